// SPDX-License-Identifier: GPL-2.0
/* AVC records against expectations, and LSM order (avc.h). */
#include "avc.h"

#include <stdio.h>
#include <string.h>

/* The value of KEY in a "key=value key=value" record, quotes removed. */
static bool avc_field(const char *rec, const char *key, char *val, size_t size)
{
	size_t kl = strlen(key);

	for (const char *p = rec; p && *p; p = strchr(p, ' '), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, kl) || p[kl] != '=')
			continue;
		p += kl + 1;
		if (*p == '"') {
			p++;
			snprintf(val, size, "%.*s", (int)strcspn(p, "\""), p);
		} else {
			snprintf(val, size, "%.*s", (int)strcspn(p, " \n"), p);
		}
		return true;
	}
	return false;
}

/* A context matches a full context, or a bare type against its type. */
static bool context_matches(const char *want, const char *have)
{
	const char *t;

	if (strchr(want, ':'))
		return !strcmp(want, have);
	t = strchr(have, ':');
	t = t ? strchr(t + 1, ':') : NULL;
	if (!t)
		return false;
	t++;
	return strlen(want) == strcspn(t, ":") && !strncmp(t, want, strlen(want));
}

bool avc_matches(const struct scn_avc *a, const char *rec)
{
	const char *p = rec, *open, *close;
	char v[256];
	int n = 0;

	if (strncmp(p, "avc: ", 5))
		return false;
	p += 5;
	if (strncmp(p, a->verdict, strlen(a->verdict)) || p[strlen(a->verdict)] != ' ')
		return false;
	open = strstr(p, "{ ");
	close = open ? strstr(open, " }") : NULL;
	if (!close)
		return false;
	/* the same permissions, in any order */
	for (const char *w = open + 2; w < close; w += strcspn(w, " ") + 1, n++) {
		size_t len = strcspn(w, " ");
		bool known = false;

		for (int i = 0; i < a->nperms; i++)
			known |= strlen(a->perms[i]) == len && !strncmp(a->perms[i], w, len);
		if (!known)
			return false;
	}
	if (n != a->nperms)
		return false;
	for (int i = 0; i < a->nfields; i++) {
		bool ctx = !strcmp(a->keys[i], "scontext") || !strcmp(a->keys[i], "tcontext");

		if (!avc_field(close, a->keys[i], v, sizeof(v)))
			return false;
		if (ctx ? !context_matches(a->vals[i], v) : strcmp(a->vals[i], v))
			return false;
	}
	return true;
}

/* Position of @name (@len bytes) in the comma-separated @list, or -1. */
static int lsm_index(const char *list, const char *name, size_t len)
{
	int i = 0;

	for (const char *p = list; *p && *p != '\n'; i++) {
		size_t l = strcspn(p, ",\n");

		if (l == len && !strncmp(p, name, len))
			return i;
		p += l;
		p += *p == ',';
	}
	return -1;
}

bool lsm_order_holds(const char *want, const char *active)
{
	size_t fl = strcspn(want, ",");
	int a = lsm_index(active, want, fl);
	int b = want[fl] ? lsm_index(active, want + fl + 1, strlen(want + fl + 1)) : -1;

	return a >= 0 && b >= 0 && a < b;
}
