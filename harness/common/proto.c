// SPDX-License-Identifier: GPL-2.0
#include "proto.h"
#include "util.h"

#include <stdarg.h>
#include <string.h>

static void put_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\\':
			fputs("\\\\", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			break;
		default:
			fputc(*s, out);
		}
	}
}

int proto_emit(FILE *out, const char *type, int nfields, ...)
{
	va_list ap;

	fputs(type, out);
	va_start(ap, nfields);
	for (int i = 0; i < nfields; i++) {
		const char *f = va_arg(ap, const char *);

		fputc('\t', out);
		put_escaped(out, f ? f : "");
	}
	va_end(ap);
	fputc('\n', out);
	return fflush(out) == EOF || ferror(out) ? -1 : 0;
}

static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			*w++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

int proto_split(char *line, char **fields, int max)
{
	int n = 0;

	while (n < max) {
		char *tab = strchr(line, '\t');

		fields[n++] = line;
		if (!tab)
			break;
		*tab = '\0';
		line = tab + 1;
	}
	for (int i = 0; i < n; i++)
		unescape(fields[i]);
	return n;
}

bool proto_ktap_selects(const char *spec, const char *name, char **args, int max, int *nargs)
{
	size_t nl = strlen(name);
	const char *s = spec;

	*nargs = 0;
	if (!spec)
		return true;
	while (*s) {
		size_t len = strcspn(s, ";");

		if (!strncmp(s, name, nl) && (len == nl || s[nl] == ':')) {
			const char *a = s + nl;

			while (a < s + len && *nargs < max) {
				size_t al;

				a++;
				al = strcspn(a, ",;");
				if (al)
					args[(*nargs)++] = xstrndup(a, al);
				a += al;
			}
			return true;
		}
		s += len + (s[len] == ';');
	}
	return false;
}
