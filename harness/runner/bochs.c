// SPDX-License-Identifier: GPL-2.0
#include "bochs.h"
#include "common/spawn.h"
#include "common/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Real mode runs natively with unrestricted guest; without it KVM uses
 * vm86 and its emulator, and without the emulator for invalid guest state
 * it squeezes big real mode into vm86 (kvm-probes realmode checks each).
 */
const struct vmx_setting vmx_settings[] = {
	{ "unrestricted_guest=1", "kvm_intel.unrestricted_guest=1" },
	{ "unrestricted_guest=0", "kvm_intel.unrestricted_guest=0" },
	{ "unrestricted_guest=0 emulate_invalid_guest_state=0",
	  "kvm_intel.unrestricted_guest=0 kvm_intel.emulate_invalid_guest_state=0" },
};
const int vmx_nsettings = ARRAY_SIZE(vmx_settings);

#define BOCHS_POWER_OFF "ACPI control: soft power off"

/* The image's CD with /cmdline.cfg replaced, as isolinux.cfg includes it. */
static int bochs_make_cd(struct bochs_boot *b, const char *cmdline, char *why, size_t size)
{
	const char *cfg = b->cfg;
	char *text = xasprintf("APPEND %s\n", cmdline);
	struct argv_builder a = { 0 };
	struct sbuf out = { 0 };
	int status, ret = -1;

	if (write_file(cfg, text, strlen(text)) < 0) {
		snprintf(why, size, "cannot write %s: %s", cfg, strerror(errno));
		goto out;
	}
	argv_add(&a, "xorriso");
	argv_add(&a, "-indev");
	argv_addf(&a, xasprintf("%s/boot.iso", b->image_dir));
	argv_add(&a, "-outdev");
	argv_add(&a, b->cd);
	argv_add(&a, "-boot_image");
	argv_add(&a, "isolinux");
	argv_add(&a, "patch");
	argv_add(&a, "-map");
	argv_add(&a, cfg);
	argv_add(&a, "/cmdline.cfg");
	argv_add(&a, "-commit");
	status = spawn_capture(&(struct spawn){ .argv = a.v, .out = SPAWN_PIPE,
					       .err = SPAWN_PIPE }, &out);
	if (status < 0)
		snprintf(why, size, "cannot run xorriso: %s", strerror(errno));
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		snprintf(why, size, "xorriso could not write %s: %s", b->cd,
			 out.buf ? out.buf : "(no output)");
	else
		ret = 0;
out:
	argv_free(a.v);
	sbuf_free(&out);
	free(text);
	return ret;
}

int bochs_prepare(struct bochs_boot *b, const char *cmdline, char *why, size_t size)
{
	b->cfg = xasprintf("%s/cmdline.cfg", b->tmpdir);
	b->cd = xasprintf("%s/boot.iso", b->tmpdir);
	b->console = xasprintf("%s/console", b->tmpdir);
	b->results = xasprintf("%s/results", b->tmpdir);
	if (bochs_make_cd(b, cmdline, why, size) < 0)
		return -1;
	if (mkfifo(b->console, 0600) < 0 || mkfifo(b->results, 0600) < 0) {
		snprintf(why, size, "mkfifo in %s: %s", b->tmpdir, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The machine is the image's bochsrc; its paths come from the
 * environment, which Bochs expands there. The debugger script lets Bochs
 * run instead of stopping at the first instruction.
 */
char **bochs_argv(const struct bochs_boot *b)
{
	struct argv_builder a = { 0 };

	argv_add(&a, "env");
	argv_addf(&a, xasprintf("TUNLAB_CD=%s", b->cd));
	argv_addf(&a, xasprintf("TUNLAB_CONSOLE=%s", b->console));
	argv_addf(&a, xasprintf("TUNLAB_RESULTS=%s", b->results));
	argv_addf(&a, xasprintf("TUNLAB_BOCHS_LOG=%s", b->log));
	argv_add(&a, "bochs");
	argv_add(&a, "-q");
	argv_add(&a, "-f");
	argv_addf(&a, xasprintf("%s/bochsrc", b->image_dir));
	argv_add(&a, "-rc");
	argv_addf(&a, xasprintf("%s/continue.rc", b->image_dir));
	return a.v;
}

char *bochs_exit_message(const char *log)
{
	char *text = read_file(log, NULL), *msg = NULL, *at, *end;

	if (!text)
		return NULL;
	at = strstr(text, ">>PANIC<< ");
	while (at) {
		char *next = strstr(at + 1, ">>PANIC<< ");

		if (!next)
			break;
		at = next;
	}
	if (at) {
		at += strlen(">>PANIC<< ");
		end = strchr(at, '\n');
		msg = end ? xstrndup(at, (size_t)(end - at)) : xstrdup(at);
	}
	free(text);
	return msg;
}

bool bochs_powered_off(const char *message)
{
	return message && !strcmp(message, BOCHS_POWER_OFF);
}

void bochs_boot_free(struct bochs_boot *b)
{
	char **files[] = { &b->cfg, &b->cd, &b->console, &b->results };

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		if (*files[i])
			unlink(*files[i]);
		free(*files[i]);
		*files[i] = NULL;
	}
}
