// SPDX-License-Identifier: GPL-2.0
#include "bundle.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void pad4(struct sbuf *sb)
{
	static const char zeros[4];

	if (sb->len % 4)
		sbuf_add(sb, zeros, 4 - sb->len % 4);
}

static void entry(struct cpio_writer *w, const char *name, unsigned int mode,
		  const char *data, size_t len)
{
	size_t namesize = strlen(name) + 1;

	/* fixed owner and mtime: the same scenarios give the same bytes */
	sbuf_printf(&w->out, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		    ++w->ino, mode, 0u, 0u, (mode & 0040000) ? 2u : 1u, 0u, len,
		    0u, 0u, 0u, 0u, namesize, 0u);
	sbuf_add(&w->out, name, namesize);
	pad4(&w->out);
	if (len) {
		sbuf_add(&w->out, data, len);
		pad4(&w->out);
	}
}

void cpio_add_dir(struct cpio_writer *w, const char *name)
{
	entry(w, name, 0040755, NULL, 0);
}

void cpio_add_file(struct cpio_writer *w, const char *name, const char *data,
		   size_t len, unsigned int mode)
{
	entry(w, name, 0100000 | (mode & 07777), data, len);
}

void cpio_finish(struct cpio_writer *w)
{
	w->ino = 0;
	entry(w, "TRAILER!!!", 0, NULL, 0);
}

static int file_index(const struct plan *plan, const struct scenario *sc)
{
	for (int i = 0; i < plan->nfiles; i++)
		if (sc >= plan->files[i].scenarios &&
		    sc < plan->files[i].scenarios + plan->files[i].nscenarios)
			return i;
	return -1;
}

/* Every file of the plan as tunlab/scn/N.scn, and the plan's lines for @idx. */
static int bundle(struct cpio_writer *w, const struct plan *plan, const int *idx, int n)
{
	struct sbuf lines = { 0 };

	cpio_add_dir(w, BUNDLE_DIR);
	cpio_add_dir(w, BUNDLE_DIR "/scn");
	for (int i = 0; i < plan->nfiles; i++) {
		size_t len;
		char *text = read_file(plan->files[i].path, &len);
		char *name = xasprintf(BUNDLE_DIR "/scn/%d.scn", i);

		if (!text) {
			free(name);
			return -1;
		}
		cpio_add_file(w, name, text, len, 0644);
		free(name);
		free(text);
	}
	sbuf_puts(&lines, "");
	for (int k = 0; k < n; k++) {
		const struct scenario *sc = plan->scenarios[idx[k]];

		sbuf_printf(&lines, "%d\t" BUNDLE_DIR "/scn/%d.scn\t%d\n", idx[k],
			    file_index(plan, sc), sc->index);
	}
	cpio_add_file(w, BUNDLE_PLAN, lines.buf, lines.len, 0644);
	cpio_finish(w);
	sbuf_free(&lines);
	return 0;
}

bool bundle_needs_libvirt(const struct scenario *sc)
{
	for (int i = 0; i < sc->nsteps; i++) {
		const char *launcher = sc->steps[i].action == SCN_L2_BOOT ?
			scn_arg(&sc->steps[i], "launcher") : NULL;

		if (launcher && !strcmp(launcher, "libvirt"))
			return true;
	}
	return false;
}

/* the kernel unpacks concatenated archives; keep 4-byte alignment */
static void append_archive(struct sbuf *all, const char *data, size_t len)
{
	static const char zeros[4];

	sbuf_add(all, data, len);
	if (all->len % 4)
		sbuf_add(all, zeros, 4 - all->len % 4);
}

int bundle_write_initrd(const char *base, const char *const *layers, const struct plan *plan,
			const int *idx, int n, const char *path)
{
	struct cpio_writer w = { 0 };
	struct sbuf all = { 0 };
	int ret = -1, err = 0;
	size_t len;
	char *text = read_file(base, &len);

	if (text)
		append_archive(&all, text, len);
	for (int i = 0; text && layers && layers[i]; i++) {
		free(text);
		text = read_file(layers[i], &len);
		if (text)
			append_archive(&all, text, len);
	}
	if (text && bundle(&w, plan, idx, n) == 0) {
		sbuf_add(&all, w.out.buf, w.out.len);
		ret = write_file(path, all.buf, all.len);
	}
	err = errno;
	free(text);
	sbuf_free(&w.out);
	sbuf_free(&all);
	errno = err;
	return ret;
}
