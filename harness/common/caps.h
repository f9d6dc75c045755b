/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capabilities of the calling thread through capget/capset: the one place
 * the harness writes them (an actor that keeps only CAP_NET_ADMIN, a
 * tgcheck child without CAP_MAC_ADMIN).
 */
#ifndef TUNLAB_CAPS_H
#define TUNLAB_CAPS_H

#include <stdbool.h>
#include <stdint.h>

#define CAP_BIT(cap) (UINT64_C(1) << (cap))

/*
 * Keep only the capabilities in @keep in the effective, permitted and
 * inheritable sets; with @raise, make those still permitted effective
 * too. Returns 0, or -1 with errno.
 */
int caps_keep_only(uint64_t keep, bool raise);
/*
 * Keep permitted capability @cap across execve() for a process that is
 * not root: it joins the inheritable set, then the ambient one. 0, or -1
 * with errno.
 */
int caps_keep_across_exec(int cap);

#endif
