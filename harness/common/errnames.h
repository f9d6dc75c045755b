/* SPDX-License-Identifier: GPL-2.0 */
/*
 * errno values by name ("EPERM") and by message ("Operation not
 * permitted"), for every errno the C library knows (strerrorname_np), so
 * a scenario can expect any of them and a tool's message maps back to one.
 */
#ifndef TUNLAB_ERRNAMES_H
#define TUNLAB_ERRNAMES_H

/* The errno called @name (ENOTSUP, EWOULDBLOCK, EDEADLOCK as well); -1. */
int errno_from_name(const char *name);
/* "EPERM" for EPERM; NULL for 0 and for a number that is no errno. */
const char *errno_name(int err);
/*
 * The errno whose strerror() text @text carries ("ip: ...: Device or
 * resource busy" gives EBUSY); the longest text wins, so "No such device
 * or address" is ENXIO, not ENODEV. -1 when none does.
 */
int errno_from_message(const char *text);

#endif
