// SPDX-License-Identifier: GPL-2.0
#include "qemu.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

char **l1_qemu_argv(const struct l1_config *c)
{
	struct argv_builder b = { 0 };
	struct sbuf cmdline = { 0 };

	argv_add(&b, c->qemu);
	argv_add(&b, "-nodefaults");
	argv_add(&b, "-no-user-config");
	argv_add(&b, "-machine");
	argv_add(&b, "pc");
	argv_add(&b, "-accel");
	if (c->accel == ACCEL_KVM) {
		argv_add(&b, "kvm");
		argv_add(&b, "-cpu");
		argv_add(&b, "host");
	} else {
		argv_add(&b, c->cpus > 1 ? "tcg,thread=multi" : "tcg");
		argv_add(&b, "-cpu");
		argv_add(&b, "max");
	}
	argv_add(&b, "-smp");
	argv_addf(&b, xasprintf("%d", c->cpus > 0 ? c->cpus : 1));
	argv_add(&b, "-m");
	argv_addf(&b, xasprintf("%d", c->mem_mb));
	argv_add(&b, "-bios");
	argv_add(&b, c->bios);
	argv_add(&b, "-kernel");
	argv_add(&b, c->kernel);
	argv_add(&b, "-initrd");
	argv_add(&b, c->initrd);

	sbuf_puts(&cmdline, L1_CMDLINE);
	if (c->smoke)
		sbuf_puts(&cmdline, " tunlab.smoke=1");
	if (c->cmdline_extra && *c->cmdline_extra)
		sbuf_printf(&cmdline, " %s", c->cmdline_extra);
	argv_add(&b, "-append");
	argv_add(&b, cmdline.buf);
	sbuf_free(&cmdline);

	argv_add(&b, "-nic");
	argv_add(&b, "none");
	argv_add(&b, "-no-reboot");
	argv_add(&b, "-display");
	argv_add(&b, "none");
	argv_add(&b, "-monitor");
	argv_add(&b, "none");
	argv_add(&b, "-chardev");
	argv_add(&b, "stdio,id=console,signal=off");
	argv_add(&b, "-serial");
	argv_add(&b, "chardev:console");
	if (c->results_socket) {
		argv_add(&b, "-device");
		argv_add(&b, "virtio-serial-pci");
		argv_add(&b, "-chardev");
		argv_addf(&b, xasprintf("socket,id=results,path=%s", c->results_socket));
		argv_add(&b, "-device");
		argv_add(&b, "virtserialport,chardev=results,name=" RESULTS_PORT_NAME);
	}
	return b.v;
}

char *qemu_lane(enum accel accel, const char *features)
{
	char *words = xstrdup(features), *save = NULL, *lane = NULL;

	for (char *w = strtok_r(words, ",", &save); w && !lane; w = strtok_r(NULL, ",", &save))
		if (!strcmp(w, "svm") || !strcmp(w, "vmx"))
			lane = xasprintf("qemu-%s %s", accel_name(accel), w);
	free(words);
	return lane ? lane : xasprintf("qemu-%s", accel_name(accel));
}
