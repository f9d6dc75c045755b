/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TUN steps as an actor process runs them, on /dev/net/tun descriptors it
 * opens or keeps under handle names.
 */
#ifndef TUNLAB_TUN_H
#define TUNLAB_TUN_H

#include "executor.h"

#define TUN_MAX_HANDLES 32

struct handle {
	char name[SCN_NAME_MAX];
	int fd;
};

/* The descriptors an actor process keeps, by handle name. */
struct handles {
	struct handle h[TUN_MAX_HANDLES];
	int n;
};

struct handle *handle_get(struct handles *hs, const char *name);
/* Keep @fd as @name (closing what was kept under it); -1 when full. */
int handle_put(struct handles *hs, const char *name, int fd);

/* create / attach / delete: TUNSETIFF with the flags the step names. */
void tun_step(struct handles *hs, const struct scn_step *st, struct outcome *oc);
/* close, queue, set on a kept descriptor. */
void tun_handle_step(struct handles *hs, const struct scn_step *st, struct outcome *oc);
/* Clear persist on a tun/tap device so closing our fd deletes it; 0 or -1. */
int tun_unpersist(const char *name);

#endif
