/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One test of an L1 program reported as a KTAP subtest: its checks are the
 * subtest's lines, buffered until the test ends so that its plan can come
 * first, as Documentation/dev-tools/ktap.rst asks. Lines are written by
 * common/ktap.
 */
#ifndef TUNLAB_KTEST_H
#define TUNLAB_KTEST_H

#include <stdbool.h>

#include "common/util.h"

enum ktest_result {
	KTEST_PASS,
	KTEST_FAIL,
	KTEST_SKIP,
	KTEST_BROKEN,	/* setup failed: the checks could not be trusted */
};

struct ktest {
	struct sbuf lines;	/* the subtest's lines so far */
	int n;			/* checks reported so far */
	int n_fail;
	int n_skip;
	char *skip_reason;	/* the whole test was skipped */
	char *broken;		/* the test's setup failed */
};

#define KTEST_PRINTF(a, b) __attribute__((format(printf, a, b)))

void ktest_begin(struct ktest *t);
/* Report one check; returns @ok so callers can add diagnostics on failure. */
bool ktest_check(struct ktest *t, bool ok, const char *fmt, ...) KTEST_PRINTF(3, 4);
/* Report one check that cannot run here, naming what is missing. */
void ktest_skip(struct ktest *t, const char *reason, const char *fmt, ...) KTEST_PRINTF(3, 4);
void ktest_diag(struct ktest *t, const char *fmt, ...) KTEST_PRINTF(2, 3);
/* Skip the whole test (e.g. no /dev/kvm); later checks are not expected. */
void ktest_skip_all(struct ktest *t, const char *fmt, ...) KTEST_PRINTF(2, 3);
/* Mark the test broken: its setup failed for a reason that is not a check. */
void ktest_broken(struct ktest *t, const char *fmt, ...) KTEST_PRINTF(2, 3);
/* Print the test as top-level test @index of the run on stdout; frees @t. */
enum ktest_result ktest_end(struct ktest *t, int index, const char *name);

/* A call that must fail with errno @want; @err is what it gave (0: success). */
bool ktest_expect_errno(struct ktest *t, int err, int want, const char *fmt, ...)
	KTEST_PRINTF(4, 5);

#endif
