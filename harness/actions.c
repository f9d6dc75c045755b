// SPDX-License-Identifier: GPL-2.0
/*
 * TUN and iproute2 steps. Each runs in a child that takes on the step's
 * actor (groups, gid, uid: an unprivileged actor has no capabilities), so
 * the kernel sees exactly the credentials the scenario names.
 */
#include "exec.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

void outcome_set(struct outcome *oc, int err, const char *fmt, ...)
{
	va_list ap;

	oc->err = err;
	va_start(ap, fmt);
	vsnprintf(oc->what, sizeof(oc->what), fmt, ap);
	va_end(ap);
}

int errno_from_text(const char *text)
{
	static const int candidates[] = {
		EPERM, EACCES, EBUSY, EINVAL, ENODEV, ENOENT, EEXIST, EBADF,
		ENOTTY, EOPNOTSUPP, ENOMEM, EIO, ENXIO, E2BIG, EFBIG, ENOSPC,
	};

	for (size_t i = 0; i < ARRAY_SIZE(candidates); i++)
		if (strstr(text, strerror(candidates[i])))
			return candidates[i];
	return -1;
}

static int drop_to(const struct scn_actor *a)
{
	if (a->root)
		return 0;
	if (setgroups((size_t)a->ngroups, a->groups) < 0 || setgid(a->gid) < 0 ||
	    setuid(a->uid) < 0)
		return -1;
	return 0;
}

static int tun_fd(const char *name, bool tap, int *fd, struct outcome *oc)
{
	struct ifreq ifr = { 0 };

	*fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (*fd < 0) {
		outcome_set(oc, errno, "open(/dev/net/tun)");
		return -1;
	}
	ifr.ifr_flags = (short)((tap ? IFF_TAP : IFF_TUN) | IFF_NO_PI);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(*fd, TUNSETIFF, &ifr) < 0) {
		outcome_set(oc, errno, "ioctl(TUNSETIFF, %s)", name);
		close(*fd);
		return -1;
	}
	return 0;
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

/* create / attach / delete, in the actor's child. */
static void tun_step(const struct scn_step *st, struct outcome *oc)
{
	bool tap = !strcmp(st->argv[0], "tap");
	const char *name = st->argv[1], *v;
	int fd;

	if (tun_fd(name, tap, &fd, oc))
		return;
	switch (st->action) {
	case SCN_CREATE:
		if (scn_flag(st, "persist") &&
		    tun_ioctl(fd, TUNSETPERSIST, "TUNSETPERSIST", 1, name, oc))
			break;
		v = scn_arg(st, "owner");
		if (v && tun_ioctl(fd, TUNSETOWNER, "TUNSETOWNER", strtoul(v, NULL, 10), name, oc))
			break;
		v = scn_arg(st, "group");
		if (v && tun_ioctl(fd, TUNSETGROUP, "TUNSETGROUP", strtoul(v, NULL, 10), name, oc))
			break;
		outcome_set(oc, 0, "create %s %s", st->argv[0], name);
		break;
	case SCN_DELETE:
		if (!tun_ioctl(fd, TUNSETPERSIST, "TUNSETPERSIST", 0, name, oc))
			outcome_set(oc, 0, "delete %s", name);
		break;
	default:
		outcome_set(oc, 0, "attach %s", name);
		break;
	}
	close(fd);
}

/* iproute2, as the actor; its output is the step's detail. */
static void ip_step(const struct scn_step *st, struct outcome *oc)
{
	struct sbuf cmd = { 0 };
	char **argv = xcalloc((size_t)st->argc + 2, sizeof(char *));
	int pipefd[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	sbuf_puts(&cmd, "ip");
	argv[0] = (char *)"ip";
	for (int i = 0; i < st->argc; i++) {
		argv[i + 1] = st->argv[i];
		sbuf_printf(&cmd, " %s", st->argv[i]);
	}
	outcome_set(oc, 0, "%s", cmd.buf);
	sbuf_free(&cmd);
	if (pipe(pipefd) < 0) {
		oc->broken = true;
		oc->err = errno;
		free(argv);
		return;
	}
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		execv(IP_PATH, argv);
		fprintf(stderr, "exec %s: %s\n", IP_PATH, strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	free(argv);
	while ((n = read(pipefd[0], oc->detail + len, sizeof(oc->detail) - 1 - len)) > 0)
		len += (size_t)n;
	oc->detail[len] = '\0';
	close(pipefd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		oc->broken = true;
		oc->err = errno;
		return;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		oc->broken = true;
		oc->err = -1;
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		oc->err = errno_from_text(oc->detail);
	}
}

static void link_step(const struct scn_step *st, struct outcome *oc)
{
	outcome_set(oc, if_nametoindex(st->argv[0]) ? 0 : errno, "link %s", st->argv[0]);
}

void act_as_actor(const struct scn_step *st, struct outcome *oc, int timeout_s)
{
	int pipefd[2], status;
	struct pollfd p;
	ssize_t n;
	pid_t pid;

	memset(oc, 0, sizeof(*oc));
	if (pipe(pipefd) < 0) {
		outcome_set(oc, errno, "pipe");
		oc->broken = true;
		return;
	}
	pid = fork();
	if (pid < 0) {
		outcome_set(oc, errno, "fork");
		oc->broken = true;
		close(pipefd[0]);
		close(pipefd[1]);
		return;
	}
	if (pid == 0) {
		struct outcome c = { 0 };

		close(pipefd[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (drop_to(&st->actor) < 0) {
			outcome_set(&c, errno, "become uid %u gid %u", (unsigned int)st->actor.uid,
				    (unsigned int)st->actor.gid);
			c.broken = true;
		} else if (st->action == SCN_IP) {
			ip_step(st, &c);
		} else if (st->action == SCN_LINK) {
			link_step(st, &c);
		} else {
			tun_step(st, &c);
		}
		if (write(pipefd[1], &c, sizeof(c)) != (ssize_t)sizeof(c))
			_exit(1);
		_exit(0);
	}
	close(pipefd[1]);
	p = (struct pollfd){ .fd = pipefd[0], .events = POLLIN };
	if (poll(&p, 1, timeout_s * 1000) <= 0) {
		kill(pid, SIGKILL);
		outcome_set(oc, ETIMEDOUT, "%s: no answer within %d s", st->text, timeout_s);
		oc->broken = true;
	} else {
		n = read(pipefd[0], oc, sizeof(*oc));
		if (n != (ssize_t)sizeof(*oc)) {
			memset(oc, 0, sizeof(*oc));
			outcome_set(oc, -1, "%s: the actor process died", st->text);
			oc->broken = true;
		}
	}
	close(pipefd[0]);
	waitpid(pid, &status, 0);
}
