// SPDX-License-Identifier: GPL-2.0
/*
 * TUN steps as an actor process runs them: TUNSETIFF with the flags a step
 * names, and what it does on descriptors the process keeps as handles.
 */
#include "tun.h"
#include "outcome.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct handle *handle_get(struct handles *hs, const char *name)
{
	for (int i = 0; i < hs->n; i++)
		if (!strcmp(hs->h[i].name, name))
			return &hs->h[i];
	return NULL;
}

int handle_put(struct handles *hs, const char *name, int fd)
{
	struct handle *h = handle_get(hs, name);

	if (!h) {
		if (hs->n == TUN_MAX_HANDLES)
			return -1;
		h = &hs->h[hs->n++];
		snprintf(h->name, sizeof(h->name), "%s", name);
	} else {
		close(h->fd);
	}
	h->fd = fd;
	return 0;
}

static void handle_drop(struct handles *hs, struct handle *h)
{
	close(h->fd);
	*h = hs->h[--hs->n];
}

static int tun_ioctl(int fd, unsigned long req, const char *reqname,
		     unsigned long arg, const char *name, struct outcome *oc)
{
	if (ioctl(fd, req, arg) < 0) {
		outcome_set(oc, errno, "ioctl(%s, %s)", reqname, name);
		return -1;
	}
	return 0;
}

static int tun_set(int fd, const struct scn_step *st, const char *name, struct outcome *oc)
{
	const char *v;

	if ((scn_flag(st, "persist") || ((v = scn_arg(st, "persist")) && !strcmp(v, "on"))) &&
	    tun_ioctl(fd, TUNSETPERSIST, "TUNSETPERSIST", 1, name, oc))
		return -1;
	v = scn_arg(st, "persist");
	if (v && !strcmp(v, "off") && tun_ioctl(fd, TUNSETPERSIST, "TUNSETPERSIST", 0, name, oc))
		return -1;
	v = scn_arg(st, "owner");
	if (v && tun_ioctl(fd, TUNSETOWNER, "TUNSETOWNER", strtoul(v, NULL, 10), name, oc))
		return -1;
	v = scn_arg(st, "group");
	if (v && tun_ioctl(fd, TUNSETGROUP, "TUNSETGROUP", strtoul(v, NULL, 10), name, oc))
		return -1;
	return 0;
}

/* create / attach / delete: TUNSETIFF with the flags the step names. */
void tun_step(struct handles *hs, const struct scn_step *st, struct outcome *oc)
{
	bool tap = !strcmp(st->argv[0], "tap");
	const char *keep = scn_arg(st, "keep");
	struct ifreq ifr = { 0 };
	int fd;

	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		outcome_set(oc, errno, "open(/dev/net/tun)");
		return;
	}
	ifr.ifr_flags = (short)((tap ? IFF_TAP : IFF_TUN) | IFF_NO_PI |
		(scn_flag(st, "multi_queue") ? IFF_MULTI_QUEUE : 0) |
		(scn_flag(st, "vnet_hdr") ? IFF_VNET_HDR : 0) |
		(scn_flag(st, "napi") ? IFF_NAPI : 0) |
		(scn_flag(st, "napi_frags") ? IFF_NAPI_FRAGS : 0) |
		(scn_flag(st, "excl") ? IFF_TUN_EXCL : 0));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", st->argv[1]);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		outcome_set(oc, errno, "ioctl(TUNSETIFF, %s)", st->argv[1]);
		close(fd);
		return;
	}
	if (strcmp(ifr.ifr_name, st->argv[1]))
		snprintf(oc->detail, sizeof(oc->detail), "the kernel named it %s", ifr.ifr_name);
	if (st->action == SCN_DELETE) {
		if (!tun_ioctl(fd, TUNSETPERSIST, "TUNSETPERSIST", 0, ifr.ifr_name, oc))
			outcome_set(oc, 0, "delete %s", ifr.ifr_name);
	} else if (st->action == SCN_CREATE && tun_set(fd, st, ifr.ifr_name, oc)) {
		close(fd);
		return;
	} else {
		outcome_set(oc, 0, "%s %s %s", scn_action_name(st->action), st->argv[0],
			    ifr.ifr_name);
	}
	if (keep && oc->err == 0 && handle_put(hs, keep, fd) == 0)
		return;
	if (keep && oc->err == 0) {
		outcome_set(oc, EMFILE, "keep=%s: more than %d handles", keep, TUN_MAX_HANDLES);
		oc->broken = true;
	}
	close(fd);
}

void tun_handle_step(struct handles *hs, const struct scn_step *st, struct outcome *oc)
{
	struct handle *h = handle_get(hs, st->argv[0]);
	struct ifreq ifr = { 0 };

	if (!h) {
		outcome_set(oc, EBADF, "%s %s: this process holds no handle %s",
			    scn_action_name(st->action), st->argv[0], st->argv[0]);
		return;
	}
	switch (st->action) {
	case SCN_CLOSE:
		handle_drop(hs, h);
		outcome_set(oc, 0, "close %s", st->argv[0]);
		break;
	case SCN_QUEUE:
		ifr.ifr_flags = (short)(!strcmp(st->argv[1], "attach") ? IFF_ATTACH_QUEUE
								     : IFF_DETACH_QUEUE);
		if (ioctl(h->fd, TUNSETQUEUE, &ifr) < 0)
			outcome_set(oc, errno, "ioctl(TUNSETQUEUE, %s %s)", st->argv[0], st->argv[1]);
		else
			outcome_set(oc, 0, "queue %s %s", st->argv[0], st->argv[1]);
		break;
	default:
		if (!tun_set(h->fd, st, st->argv[0], oc))
			outcome_set(oc, 0, "set %s", st->argv[0]);
		break;
	}
}

int tun_unpersist(const char *name)
{
	char path[128], *flags;
	struct ifreq ifr = { 0 };
	unsigned long f;
	int fd, ret = -1;

	snprintf(path, sizeof(path), "/sys/class/net/%s/tun_flags", name);
	flags = read_file(path, NULL);
	if (!flags)
		return -1;
	f = strtoul(flags, NULL, 16);
	free(flags);
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ifr.ifr_flags = (short)(f & (IFF_TUN | IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE |
				     IFF_VNET_HDR));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) == 0 && ioctl(fd, TUNSETPERSIST, 0) == 0)
		ret = 0;
	close(fd);
	return ret;
}
