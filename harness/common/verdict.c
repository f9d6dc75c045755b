// SPDX-License-Identifier: GPL-2.0
#include "verdict.h"
#include "util.h"

#include <string.h>
#include <sys/wait.h>

static const char *const names[] = {
	[TL_NOTRUN] = "notrun", [TL_PASS] = "pass", [TL_FAIL] = "fail",
	[TL_SKIP] = "skip", [TL_ERROR] = "error", [TL_TIMEOUT] = "timeout",
	[TL_CRASH] = "crash",
};

const char *tl_result_name(enum tl_result r)
{
	return names[r];
}

enum tl_result tl_result_from_name(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(names[i], s))
			return (enum tl_result)i;
	return TL_ERROR;
}

int ksft_code(int wait_status)
{
	return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

enum tl_result ksft_result(int code)
{
	switch (code) {
	case KSFT_PASS:
		return TL_PASS;
	case KSFT_FAIL:
		return TL_FAIL;
	case KSFT_SKIP:
		return TL_SKIP;
	}
	return TL_ERROR;
}
