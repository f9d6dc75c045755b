// SPDX-License-Identifier: GPL-2.0
/*
 * Network state a scenario works in: iproute2 steps, the links and named
 * namespaces it leaves behind (removed when its group ends), and the
 * network namespace of its own it runs in.
 */
#include "net.h"
#include "outcome.h"
#include "tun.h"
#include "common/errnames.h"
#include "common/spawn.h"
#include "common/verdict.h"

#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static void names_in(const char *dir, struct linkset *l)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	memset(l, 0, sizeof(*l));
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		l->names = xrealloc(l->names, sizeof(char *) * (size_t)(l->n + 1));
		l->names[l->n++] = xstrdup(e->d_name);
	}
	if (d)
		closedir(d);
}

void links_snapshot(struct linkset *l)
{
	names_in("/sys/class/net", l);
}

void netns_snapshot(struct linkset *l)
{
	names_in("/run/netns", l);
}

static bool links_has(const struct linkset *l, const char *name)
{
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->names[i], name))
			return true;
	return false;
}

void links_free(struct linkset *l)
{
	for (int i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
}

static int run_captured(const char *path, char **argv, struct sbuf *out)
{
	struct spawn sp = { .argv = argv, .path = path, .out = SPAWN_PIPE, .err = SPAWN_PIPE };

	return spawn_capture(&sp, out);
}

static int run_ip(const char *a, const char *b, const char *c)
{
	char *argv[] = { (char *)"ip", (char *)a, (char *)b, (char *)c, NULL };
	struct sbuf out = { 0 };
	int status = run_captured(IP_PATH, argv, &out);

	sbuf_free(&out);
	return status >= 0 && ksft_code(status) == 0 ? 0 : -1;
}

/* Remove every link the scenario left behind; a list of failures. */
static void links_cleanup(const struct linkset *before, struct sbuf *problems)
{
	struct linkset now;

	links_snapshot(&now);
	for (int i = 0; i < now.n; i++) {
		const char *name = now.names[i];

		if (links_has(before, name))
			continue;
		if (tun_unpersist(name) == 0 && !if_nametoindex(name))
			continue;
		if (if_nametoindex(name) && run_ip("link", "del", name) < 0 &&
		    if_nametoindex(name))
			sbuf_printf(problems, "%scould not remove %s", problems->len ? "; " : "", name);
	}
	links_free(&now);
}

void net_teardown(const struct linkset *links_before, const struct linkset *netns_before,
		  struct sbuf *why)
{
	struct linkset netns_now;

	netns_snapshot(&netns_now);
	for (int i = 0; i < netns_now.n; i++)
		if (!links_has(netns_before, netns_now.names[i]) &&
		    run_ip("netns", "del", netns_now.names[i]) < 0)
			sbuf_printf(why, "%scould not delete netns %s", why->len ? "; " : "",
				    netns_now.names[i]);
	links_free(&netns_now);
	links_cleanup(links_before, why);
}

/* iproute2, in this process's namespaces and with its credentials. */
void ip_step(const struct scn_step *st, struct outcome *oc)
{
	char **argv = xcalloc((size_t)st->argc + 2, sizeof(char *));
	struct sbuf out = { 0 };
	char *cmd;
	int status;

	argv[0] = (char *)"ip";
	for (int i = 0; i < st->argc; i++)
		argv[i + 1] = st->argv[i];
	cmd = argv_join(argv);
	outcome_set(oc, 0, "%s", cmd);
	free(cmd);
	status = run_captured(IP_PATH, argv, &out);
	free(argv);
	snprintf(oc->detail, sizeof(oc->detail), "%s", out.buf);
	sbuf_free(&out);
	if (status < 0) {
		oc->broken = true;
		oc->err = errno;
	} else if (ksft_code(status) == KSFT_NOT_STARTED) {
		oc->broken = true;
		oc->err = -1;
	} else if (ksft_code(status)) {
		oc->err = errno_from_message(oc->detail);
	}
}

/*
 * A scenario's own network namespace: its devices, bridges and named
 * namespaces vanish with it. sysfs is mounted again so /sys/class/net shows
 * this namespace, with securityfs and debugfs under it as before, and
 * /run/netns is private so `ip netns add` names do not outlive it.
 */
int enter_scenario_netns(struct sbuf *why)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s;

	if (unshare(CLONE_NEWNET | CLONE_NEWNS) < 0) {
		sbuf_printf(why, "unshare(CLONE_NEWNET|CLONE_NEWNS): %s", strerror(errno));
		return -1;
	}
	mkdir("/run/netns", 0755);
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("sysfs", "/sys", "sysfs", 0, NULL) < 0 ||
	    mount("tmpfs", "/run/netns", "tmpfs", 0, "mode=0755") < 0) {
		sbuf_printf(why, "mounts for the scenario's netns: %s", strerror(errno));
		return -1;
	}
	/* both are optional: a kernel without them just lacks the feature */
	mount("securityfs", "/sys/kernel/security", "securityfs", 0, NULL);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	mount("selinuxfs", "/sys/fs/selinux", "selinuxfs", 0, NULL);
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0 ||
	    (ifr.ifr_flags |= IFF_UP, ioctl(s, SIOCSIFFLAGS, &ifr) < 0)) {
		sbuf_printf(why, "bringing up lo: %s", strerror(errno));
		if (s >= 0)
			close(s);
		return -1;
	}
	close(s);
	return 0;
}
