/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a step, a scenario or a KTAP suite came to, by the name it travels
 * under on the results port, and the one mapping from a test program's
 * exit status to it.
 */
#ifndef TUNLAB_VERDICT_H
#define TUNLAB_VERDICT_H

enum tl_result {
	TL_NOTRUN,	/* never started: an earlier failure stopped it */
	TL_PASS,
	TL_FAIL,	/* a step did not do what the scenario expects */
	TL_SKIP,	/* a requirement is missing here */
	TL_ERROR,	/* broken setup: the lab could not run the step */
	TL_TIMEOUT,	/* killed at a timeout */
	TL_CRASH,	/* the L1 kernel reported a panic/Oops/BUG/WARNING */
};

/* "pass", "fail", ...; an unknown name is an error. */
const char *tl_result_name(enum tl_result r);
enum tl_result tl_result_from_name(const char *s);

/*
 * Exit statuses of the KTAP programs, kselftest's (0 pass, 1 fail, 4 skip)
 * plus 2 when a test's setup broke; 127 is a program that did not start.
 */
#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_BROKEN	2
#define KSFT_SKIP	4
#define KSFT_NOT_STARTED 127

/* A wait status as L1 reports it: the exit status, or 128 + the signal. */
int ksft_code(int wait_status);
/* TL_PASS, TL_FAIL, TL_SKIP, or TL_ERROR for any other status. */
enum tl_result ksft_result(int code);

#endif
