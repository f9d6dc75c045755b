// SPDX-License-Identifier: GPL-2.0
#include "cpuinfo.h"

#include <string.h>

bool cpuinfo_has_flag(const char *cpuinfo, const char *flag)
{
	const char *line = cpuinfo;
	size_t fl = strlen(flag);

	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);

		if (!strncmp(line, "flags", 5)) {
			const char *colon = memchr(line, ':', len);

			for (const char *p = colon; p && p < line + len; p++) {
				if (*p == ' ' && !strncmp(p + 1, flag, fl) &&
				    (p + 1 + fl == line + len || p[1 + fl] == ' '))
					return true;
			}
			return false;	/* the first CPU speaks for all */
		}
		line = eol ? eol + 1 : NULL;
	}
	return false;
}

const char *cpuinfo_virt_flag(const char *cpuinfo)
{
	if (!cpuinfo)
		return NULL;
	if (cpuinfo_has_flag(cpuinfo, "vmx"))
		return "vmx";
	if (cpuinfo_has_flag(cpuinfo, "svm"))
		return "svm";
	return NULL;
}
