// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the scenario parser on any bytes, the way the runner
 * meets a file (text up to its first NUL byte, which the file reader
 * refuses on its own), diagnostics printed as the runner prints them.
 * Built with ASan, UBSan and LeakSanitizer (make fuzz): a crash, a leak
 * or undefined behaviour on any input is a finding.
 */
#include "common/scenario.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct scn_diags diags = { 0 };
	struct scn_file file;
	char *text = malloc(size + 1);

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	if (!null)
		null = fopen("/dev/null", "w");
	scn_parse("fuzz.scn", text, &file, &diags);
	scn_diags_print(&diags, null);
	scn_diags_free(&diags);
	scn_file_free(&file);
	free(text);
	return 0;
}
