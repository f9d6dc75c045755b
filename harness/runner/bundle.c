// SPDX-License-Identifier: GPL-2.0
#include "bundle.h"

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
