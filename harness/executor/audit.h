/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's audit stream, read the way auditd reads it: the executor
 * registers as the audit daemon over NETLINK_AUDIT and takes SELinux's
 * AVC records from there, unicast to it and never rate-limited or
 * dropped by printk as the console copy would be.
 */
#ifndef TUNLAB_AUDIT_H
#define TUNLAB_AUDIT_H

#include <stddef.h>

#include "common/util.h"

struct audit_stream {
	int fd;
	unsigned int seq;	/* netlink sequence of the last request */
	unsigned int mark;	/* number of the last mark sent */
	unsigned int lost;	/* the kernel's count of lost records, last seen */
};

/*
 * Become the audit daemon: records go to this socket from now on, with a
 * backlog large enough for a step. -1 with @why.
 */
int audit_open(struct audit_stream *as, char *why, size_t size);

/*
 * Every AVC and SELinux error record the kernel queued before this call,
 * one line each ("avc: denied { create } for pid=..."), appended to
 * @records (may be NULL to discard them). A mark record sent through the
 * same queue says where "before" ends. -1 with @why when the stream is
 * lost: no mark within the time allowed, or the kernel counted records
 * it could not queue.
 */
int audit_sync(struct audit_stream *as, struct sbuf *records, char *why, size_t size);

void audit_close(struct audit_stream *as);

#endif
