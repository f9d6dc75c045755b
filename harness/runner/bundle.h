/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scenario bundle: a newc cpio archive appended to L1's initramfs that
 * carries the scenario files and the plan (which scenario of which file
 * runs under which index). The runner writes it; the kernel unpacks it.
 */
#ifndef TUNLAB_BUNDLE_H
#define TUNLAB_BUNDLE_H

#include "plan.h"
#include "common/util.h"

#define BUNDLE_DIR "tunlab"
#define BUNDLE_PLAN "tunlab/plan"

struct cpio_writer {
	struct sbuf out;
	unsigned int ino;
};

void cpio_add_dir(struct cpio_writer *w, const char *name);
void cpio_add_file(struct cpio_writer *w, const char *name, const char *data,
		   size_t len, unsigned int mode);
/* Appends the trailer; the archive is then w->out.buf / w->out.len. */
void cpio_finish(struct cpio_writer *w);

/*
 * Write @path: the initramfs @base, the archives of the NULL-ended list
 * @layers, then the bundle of @plan's files and a plan of the @n scenarios
 * whose plan indices are in @idx. -1 with errno.
 */
int bundle_write_initrd(const char *base, const char *const *layers, const struct plan *plan,
			const int *idx, int n, const char *path);

/* Whether a scenario starts a guest through libvirt (l2 boot launcher=libvirt). */
bool bundle_needs_libvirt(const struct scenario *sc);

#endif
