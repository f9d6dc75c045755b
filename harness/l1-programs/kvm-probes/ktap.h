/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP v1 reporting for kvm-probes: each probe is one top-level test whose
 * checks are its subtests. A probe's lines are buffered until it ends so
 * that its plan can come first, as Documentation/dev-tools/ktap.rst asks.
 */
#ifndef KVM_PROBES_KTAP_H
#define KVM_PROBES_KTAP_H

#include <stdbool.h>
#include <stdio.h>

enum ktap_result {
	KTAP_PASS,
	KTAP_FAIL,
	KTAP_SKIP,
	KTAP_BROKEN,	/* setup failed: the checks could not be trusted */
};

struct ktap {
	FILE *out;		/* memstream holding the subtest lines */
	char *buf;
	size_t len;
	int n;			/* checks reported so far */
	int n_fail;
	int n_skip;
	char *skip_reason;	/* the whole probe was skipped */
	char *broken;		/* the probe's setup failed */
};

#define KTAP_PRINTF(a, b) __attribute__((format(printf, a, b)))

void ktap_begin(struct ktap *t);
/* Report one check; returns @ok so callers can add diagnostics on failure. */
bool ktap_check(struct ktap *t, bool ok, const char *fmt, ...) KTAP_PRINTF(3, 4);
/* Report one check that cannot run here, naming what is missing. */
void ktap_skip(struct ktap *t, const char *reason, const char *fmt, ...) KTAP_PRINTF(3, 4);
void ktap_diag(struct ktap *t, const char *fmt, ...) KTAP_PRINTF(2, 3);
/* Skip the whole probe (e.g. no /dev/kvm); later checks are not expected. */
void ktap_skip_all(struct ktap *t, const char *fmt, ...) KTAP_PRINTF(2, 3);
/* Mark the probe broken: its setup failed for a reason that is not a check. */
void ktap_broken(struct ktap *t, const char *fmt, ...) KTAP_PRINTF(2, 3);
/* Print the probe as top-level test @index of the run and free the buffer. */
enum ktap_result ktap_end(struct ktap *t, int index, const char *name);

/* A call that must fail with errno @want; @err is what it gave (0: success). */
bool ktap_expect_errno(struct ktap *t, int err, int want, const char *fmt, ...)
	KTAP_PRINTF(4, 5);

#endif
