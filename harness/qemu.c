// SPDX-License-Identifier: GPL-2.0
#include "qemu.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct argv_builder {
	char **v;
	int n;
};

static void add(struct argv_builder *b, const char *s)
{
	b->v = xrealloc(b->v, sizeof(char *) * (size_t)(b->n + 2));
	b->v[b->n++] = xstrdup(s);
	b->v[b->n] = NULL;
}

static void addf(struct argv_builder *b, char *owned)
{
	add(b, owned);
	free(owned);
}

char **l1_qemu_argv(const struct l1_config *c)
{
	struct argv_builder b = { 0 };
	struct sbuf cmdline = { 0 };

	add(&b, c->qemu);
	add(&b, "-nodefaults");
	add(&b, "-no-user-config");
	add(&b, "-machine");
	add(&b, "pc");
	add(&b, "-accel");
	if (c->accel == ACCEL_KVM) {
		add(&b, "kvm");
		add(&b, "-cpu");
		add(&b, "host");
	} else {
		add(&b, c->cpus > 1 ? "tcg,thread=multi" : "tcg");
		add(&b, "-cpu");
		add(&b, "max");
	}
	add(&b, "-smp");
	addf(&b, xasprintf("%d", c->cpus > 0 ? c->cpus : 1));
	add(&b, "-m");
	addf(&b, xasprintf("%d", c->mem_mb));
	add(&b, "-bios");
	add(&b, c->bios);
	add(&b, "-kernel");
	add(&b, c->kernel);
	add(&b, "-initrd");
	add(&b, c->initrd);

	/* warnings (level 4) must reach the console so the scanner sees them */
	sbuf_puts(&cmdline, "console=ttyS0 panic=-1 loglevel=5");
	if (c->smoke)
		sbuf_puts(&cmdline, " tunlab.smoke=1");
	if (c->cmdline_extra && *c->cmdline_extra)
		sbuf_printf(&cmdline, " %s", c->cmdline_extra);
	add(&b, "-append");
	add(&b, cmdline.buf);
	sbuf_free(&cmdline);

	add(&b, "-nic");
	add(&b, "none");
	add(&b, "-no-reboot");
	add(&b, "-display");
	add(&b, "none");
	add(&b, "-monitor");
	add(&b, "none");
	add(&b, "-chardev");
	add(&b, "stdio,id=console,signal=off");
	add(&b, "-serial");
	add(&b, "chardev:console");
	if (c->results_socket) {
		add(&b, "-device");
		add(&b, "virtio-serial-pci");
		add(&b, "-chardev");
		addf(&b, xasprintf("socket,id=results,path=%s", c->results_socket));
		add(&b, "-device");
		add(&b, "virtserialport,chardev=results,name=" RESULTS_PORT_NAME);
	}
	return b.v;
}

void argv_free(char **argv)
{
	if (!argv)
		return;
	for (char **p = argv; *p; p++)
		free(*p);
	free(argv);
}

char *argv_join(char *const *argv)
{
	struct sbuf sb = { 0 };

	sbuf_puts(&sb, "");
	for (char *const *p = argv; *p; p++) {
		if (p != argv)
			sbuf_puts(&sb, " ");
		if (**p && !strpbrk(*p, " \t\n'\"\\$`*?;&|<>()"))
			sbuf_puts(&sb, *p);
		else {
			sbuf_puts(&sb, "'");
			for (const char *s = *p; *s; s++) {
				if (*s == '\'')
					sbuf_puts(&sb, "'\\''");
				else
					sbuf_add(&sb, s, 1);
			}
			sbuf_puts(&sb, "'");
		}
	}
	return sb.buf;
}
