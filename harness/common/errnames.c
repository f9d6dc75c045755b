// SPDX-License-Identifier: GPL-2.0
#include "errnames.h"
#include "util.h"

#include <errno.h>
#include <string.h>

/* Linux keeps errno values below 4096 (MAX_ERRNO). */
#define ERRNO_LIMIT 4096

/* Second names of an errno, which strerrorname_np() never returns. */
static const struct {
	const char *name;
	int err;
} aliases[] = {
	{ "ENOTSUP", ENOTSUP }, { "EWOULDBLOCK", EWOULDBLOCK }, { "EDEADLOCK", EDEADLOCK },
};

int errno_from_name(const char *name)
{
	for (int e = 1; e < ERRNO_LIMIT; e++) {
		const char *n = strerrorname_np(e);

		if (n && !strcmp(n, name))
			return e;
	}
	for (size_t i = 0; i < ARRAY_SIZE(aliases); i++)
		if (!strcmp(aliases[i].name, name))
			return aliases[i].err;
	return -1;
}

const char *errno_name(int err)
{
	return err > 0 ? strerrorname_np(err) : NULL;
}

int errno_from_message(const char *text)
{
	size_t best_len = 0;
	int best = -1;

	for (int e = 1; e < ERRNO_LIMIT; e++) {
		const char *msg;

		if (!strerrorname_np(e))
			continue;
		msg = strerror(e);
		if (strlen(msg) > best_len && strstr(text, msg)) {
			best = e;
			best_len = strlen(msg);
		}
	}
	return best;
}
