// SPDX-License-Identifier: GPL-2.0
/*
 * TUN and iproute2 steps, carried out by actor processes. An actor process
 * takes on the step's credentials (namespaces, groups, gid, uid, and for a
 * non-root actor no capability but those the scenario names), so the
 * kernel sees exactly who the scenario says. A named process (as NAME=...)
 * lives across steps and keeps descriptors under handle names; others
 * live for one step.
 *
 * The executor talks to each process over a SOCK_SEQPACKET socketpair:
 * a struct proc_cmd goes down, a struct outcome comes back; a descriptor
 * travels with either as SCM_RIGHTS.
 */
#include "executor.h"
#include "common/caps.h"
#include "common/errnames.h"
#include "common/spawn.h"
#include "common/util.h"
#include "common/verdict.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROC_MAX_HANDLES 32

enum proc_op {
	PROC_RUN,	/* run step @step */
	PROC_GIVE,	/* send handle @handle's descriptor up */
	PROC_TAKE,	/* keep the descriptor that comes with this as @handle */
};

struct proc_cmd {
	enum proc_op op;
	/* the process is a fork of the executor: the same address means the
	 * same parsed scenario, also one that continues the process's first */
	const struct scenario *sc;
	int step;
	char handle[SCN_NAME_MAX];
};

struct handle {
	char name[SCN_NAME_MAX];
	int fd;
};

void outcome_set(struct outcome *oc, int err, const char *fmt, ...)
{
	va_list ap;

	oc->err = err;
	va_start(ap, fmt);
	vsnprintf(oc->what, sizeof(oc->what), fmt, ap);
	va_end(ap);
}

/* --- becoming the actor ------------------------------------------------- */

/*
 * Namespaces first (a new netns needs CAP_SYS_ADMIN, which root still
 * has), then ids, then what capability the scenario grants; a user
 * namespace last, with the actor's ids mapped to its root.
 */
int become_actor(const struct scn_actor *a, char *why, size_t size)
{
	char map[64];

	if (a->netns && !a->userns && unshare(CLONE_NEWNET) < 0) {
		snprintf(why, size, "unshare(CLONE_NEWNET): %s", strerror(errno));
		return -1;
	}
	if (!a->root) {
		if (a->net_admin && prctl(PR_SET_KEEPCAPS, 1) < 0) {
			snprintf(why, size, "prctl(PR_SET_KEEPCAPS): %s", strerror(errno));
			return -1;
		}
		if (setgroups((size_t)a->ngroups, a->groups) < 0 || setgid(a->gid) < 0 ||
		    setuid(a->uid) < 0) {
			snprintf(why, size, "become uid %u gid %u: %s", (unsigned int)a->uid,
				 (unsigned int)a->gid, strerror(errno));
			return -1;
		}
		if (a->net_admin && caps_keep_only(CAP_BIT(CAP_NET_ADMIN), true) < 0) {
			snprintf(why, size, "capset(CAP_NET_ADMIN): %s", strerror(errno));
			return -1;
		}
		/* setuid() made us non-dumpable: /proc/self would stay root's
		 * and the id maps below could not be written */
		prctl(PR_SET_DUMPABLE, 1);
	}
	if (a->userns) {
		if (unshare(CLONE_NEWUSER | (a->netns ? CLONE_NEWNET : 0)) < 0) {
			snprintf(why, size, "unshare(CLONE_NEWUSER%s): %s",
				 a->netns ? "|CLONE_NEWNET" : "", strerror(errno));
			return -1;
		}
		snprintf(map, sizeof(map), "0 %u 1", (unsigned int)a->uid);
		if (write_string("/proc/self/setgroups", "deny") < 0 ||
		    write_string("/proc/self/uid_map", map) < 0) {
			snprintf(why, size, "uid_map %s: %s", map, strerror(errno));
			return -1;
		}
		snprintf(map, sizeof(map), "0 %u 1", (unsigned int)a->gid);
		if (write_string("/proc/self/gid_map", map) < 0) {
			snprintf(why, size, "gid_map %s: %s", map, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* --- what a process does ------------------------------------------------- */

struct proc_state {
	struct handle h[PROC_MAX_HANDLES];
	int nh;
};

static struct handle *handle_get(struct proc_state *ps, const char *name)
{
	for (int i = 0; i < ps->nh; i++)
		if (!strcmp(ps->h[i].name, name))
			return &ps->h[i];
	return NULL;
}

static int handle_put(struct proc_state *ps, const char *name, int fd)
{
	struct handle *h = handle_get(ps, name);

	if (!h) {
		if (ps->nh == PROC_MAX_HANDLES)
			return -1;
		h = &ps->h[ps->nh++];
		snprintf(h->name, sizeof(h->name), "%s", name);
	} else {
		close(h->fd);
	}
	h->fd = fd;
	return 0;
}

static void handle_drop(struct proc_state *ps, struct handle *h)
{
	close(h->fd);
	*h = ps->h[--ps->nh];
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
static void tun_step(struct proc_state *ps, const struct scn_step *st, struct outcome *oc)
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
	if (keep && oc->err == 0 && handle_put(ps, keep, fd) == 0)
		return;
	if (keep && oc->err == 0) {
		outcome_set(oc, EMFILE, "keep=%s: more than %d handles", keep, PROC_MAX_HANDLES);
		oc->broken = true;
	}
	close(fd);
}

/* close, queue, set on a kept descriptor. */
static void handle_step(struct proc_state *ps, const struct scn_step *st, struct outcome *oc)
{
	struct handle *h = handle_get(ps, st->argv[0]);
	struct ifreq ifr = { 0 };

	if (!h) {
		outcome_set(oc, EBADF, "%s %s: this process holds no handle %s",
			    scn_action_name(st->action), st->argv[0], st->argv[0]);
		return;
	}
	switch (st->action) {
	case SCN_CLOSE:
		handle_drop(ps, h);
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

int run_captured(const char *path, char **argv, struct sbuf *out)
{
	struct spawn sp = { .argv = argv, .path = path, .out = SPAWN_PIPE, .err = SPAWN_PIPE };

	return spawn_capture(&sp, out);
}

/* iproute2, in this process's namespaces and with its credentials. */
static void ip_step(const struct scn_step *st, struct outcome *oc)
{
	char **argv = xcalloc((size_t)st->argc + 2, sizeof(char *));
	struct sbuf out = { 0 };
	int status;

	argv[0] = (char *)"ip";
	for (int i = 0; i < st->argc; i++)
		argv[i + 1] = st->argv[i];
	{
		char *cmd = argv_join(argv);

		outcome_set(oc, 0, "%s", cmd);
		free(cmd);
	}
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

/* tunguard policy/mode: one write, as the actor (CAP_MAC_ADMIN decides). */
static void tunguard_step(const struct scn_step *st, struct outcome *oc)
{
	const char *file = st->action == SCN_TG_MODE ? TG_DIR "/mode" : TG_DIR "/policy";
	struct sbuf text = { 0 };
	int fd;

	sbuf_puts(&text, "");
	for (int i = 0; i < st->argc; i++) {
		const char *w = st->argv[i];
		size_t len = strlen(w);
		bool ends = len && w[len - 1] == ';';

		if (!strcmp(w, ";")) {
			sbuf_puts(&text, "\n");
			continue;
		}
		if (text.len && text.buf[text.len - 1] != '\n')
			sbuf_puts(&text, " ");
		sbuf_add(&text, w, ends ? len - 1 : len);
		if (ends)
			sbuf_puts(&text, "\n");
	}
	if (!text.len || text.buf[text.len - 1] != '\n')
		sbuf_puts(&text, "\n");
	outcome_set(oc, 0, "write(%s)", file);
	fd = open(file, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || write(fd, text.buf, text.len) != (ssize_t)text.len)
		oc->err = errno;
	if (fd >= 0 && close(fd) < 0 && !oc->err)
		oc->err = errno;
	sbuf_free(&text);
}

/* A KVM probe of kvm-probes, its output kept when it fails. */
static void probe_step(const struct scn_step *st, struct outcome *oc)
{
	char *argv[8] = { (char *)"kvm-probes" }, *save, *line;
	struct sbuf out = { 0 };
	int status, n = 1;
	size_t len = 0;

	for (int i = 0; i < st->argc && n < 7; i++)
		argv[n++] = st->argv[i];
	outcome_set(oc, 0, "kvm-probes %s", st->argv[0]);
	status = run_captured(PROBES_PATH, argv, &out);
	if (status < 0) {
		oc->err = errno;
		oc->broken = true;
		sbuf_free(&out);
		return;
	}
	/* keep what says why: the failing checks and the benchmark figures */
	for (line = strtok_r(out.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if ((strstr(line, "not ok") || strstr(line, "# bench")) &&
		    len + strlen(line) + 2 < sizeof(oc->detail))
			len += (size_t)snprintf(oc->detail + len, sizeof(oc->detail) - len,
						"%s%s", len ? "\n" : "", line);
	sbuf_free(&out);
	if (ksft_result(ksft_code(status)) == TL_ERROR)
		oc->broken = true;
	if (ksft_code(status) != KSFT_PASS)
		oc->err = -1;
}

static void run_step_here(struct proc_state *ps, const struct scn_step *st, struct outcome *oc)
{
	memset(oc, 0, sizeof(*oc));
	switch (st->action) {
	case SCN_TG_POLICY:
	case SCN_TG_MODE:
		tunguard_step(st, oc);
		break;
	case SCN_PROBE:
		probe_step(st, oc);
		break;
	case SCN_IP:
		ip_step(st, oc);
		break;
	case SCN_LINK:
		outcome_set(oc, if_nametoindex(st->argv[0]) ? 0 : errno, "link %s", st->argv[0]);
		break;
	case SCN_CLOSE:
	case SCN_QUEUE:
	case SCN_SET:
		handle_step(ps, st, oc);
		break;
	default:
		tun_step(ps, st, oc);
		break;
	}
}

/* --- descriptors over the socketpair ------------------------------------- */

static int send_with_fd(int sock, const void *buf, size_t len, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &m, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

/* Receive exactly @len bytes and perhaps a descriptor (-1 if none). */
static int recv_with_fd(int sock, void *buf, size_t len, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	ssize_t n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);

	*fd = -1;
	if (n != (ssize_t)len)
		return -1;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	return 0;
}

/* The body of an actor process: obey commands until the socket closes. */
static void proc_main(int sock, const struct scn_actor *a)
{
	struct proc_state ps = { .nh = 0 };
	struct outcome oc;
	struct proc_cmd cmd;
	int fd;

	memset(&oc, 0, sizeof(oc));
	if (become_actor(a, oc.what, sizeof(oc.what)) < 0) {
		oc.err = errno ? errno : -1;
		oc.broken = true;
	}
	/* the first reply says whether the actor could be set up */
	if (send_with_fd(sock, &oc, sizeof(oc), -1) < 0 || oc.broken)
		_exit(1);
	while (recv_with_fd(sock, &cmd, sizeof(cmd), &fd) == 0) {
		struct handle *h;
		int give = -1;

		memset(&oc, 0, sizeof(oc));
		switch (cmd.op) {
		case PROC_RUN:
			run_step_here(&ps, &cmd.sc->steps[cmd.step], &oc);
			break;
		case PROC_GIVE:
			h = handle_get(&ps, cmd.handle);
			if (h) {
				give = h->fd;
				outcome_set(&oc, 0, "sendmsg(SCM_RIGHTS, %s)", cmd.handle);
			} else {
				outcome_set(&oc, EBADF, "send %s: this process holds no handle %s",
					    cmd.handle, cmd.handle);
			}
			break;
		case PROC_TAKE:
			if (fd < 0 || handle_put(&ps, cmd.handle, fd) < 0)
				outcome_set(&oc, EBADF, "recvmsg(SCM_RIGHTS, %s): no descriptor", cmd.handle);
			else
				outcome_set(&oc, 0, "recvmsg(SCM_RIGHTS, %s)", cmd.handle);
			break;
		}
		if (send_with_fd(sock, &oc, sizeof(oc), give) < 0)
			break;
	}
	_exit(0);
}

/* --- the executor's side -------------------------------------------------- */

static int proc_wait_reply(struct actor_proc *p, struct outcome *oc, int *fd, int timeout_s)
{
	struct pollfd pfd = { .fd = p->sock, .events = POLLIN };

	if (poll(&pfd, 1, timeout_s * 1000) <= 0) {
		outcome_set(oc, ETIMEDOUT, "no answer from the actor process within %d s", timeout_s);
		oc->broken = true;
		return -1;
	}
	if (recv_with_fd(p->sock, oc, sizeof(*oc), fd) < 0) {
		memset(oc, 0, sizeof(*oc));
		outcome_set(oc, -1, "the actor process died");
		oc->broken = true;
		return -1;
	}
	return 0;
}

static void proc_kill(struct actor_proc *p)
{
	int status;

	if (p->sock >= 0)
		close(p->sock);
	if (p->pid > 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, &status, 0);
	}
	p->pid = 0;
	p->sock = -1;
}

static int proc_start(struct actor_proc *p, const struct scn_actor *a, struct outcome *oc,
		      int timeout_s)
{
	int sv[2], fd;

	memset(p, 0, sizeof(*p));
	p->sock = -1;
	snprintf(p->name, sizeof(p->name), "%s", a->proc);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		outcome_set(oc, errno, "socketpair");
		oc->broken = true;
		return -1;
	}
	p->pid = fork();
	if (p->pid == 0) {
		close(sv[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		proc_main(sv[1], a);
	}
	close(sv[1]);
	p->sock = sv[0];
	if (p->pid < 0) {
		outcome_set(oc, errno, "fork");
		oc->broken = true;
		proc_kill(p);
		return -1;
	}
	if (proc_wait_reply(p, oc, &fd, timeout_s) < 0 || oc->broken) {
		proc_kill(p);
		return -1;
	}
	return 0;
}

static struct actor_proc *proc_find(struct exec_ctx *x, const char *name)
{
	for (int i = 0; i < EXEC_MAX_PROCS; i++)
		if (x->procs[i].pid > 0 && !strcmp(x->procs[i].name, name))
			return &x->procs[i];
	return NULL;
}

static struct actor_proc *proc_get(struct exec_ctx *x, const struct scn_actor *a,
				   struct outcome *oc)
{
	struct actor_proc *p = proc_find(x, a->proc);

	if (p)
		return p;
	for (int i = 0; i < EXEC_MAX_PROCS; i++) {
		if (x->procs[i].pid > 0)
			continue;
		if (proc_start(&x->procs[i], a, oc, x->step_timeout_s) < 0)
			return NULL;
		return &x->procs[i];
	}
	outcome_set(oc, EMFILE, "more than %d named processes", EXEC_MAX_PROCS);
	oc->broken = true;
	return NULL;
}

static void proc_command(struct exec_ctx *x, struct actor_proc *p, const struct proc_cmd *cmd,
			 int fd, struct outcome *oc, int *fd_out)
{
	int got = -1;

	if (send_with_fd(p->sock, cmd, sizeof(*cmd), fd) < 0) {
		outcome_set(oc, errno, "the actor process is gone");
		oc->broken = true;
		return;
	}
	if (proc_wait_reply(p, oc, &got, x->step_timeout_s) < 0)
		proc_kill(p);
	if (fd_out)
		*fd_out = got;
	else if (got >= 0)
		close(got);
}

/* send H to P: H's descriptor leaves one process and arrives in another. */
static void send_step(struct exec_ctx *x, const struct scenario *sc, const struct scn_step *st,
		      struct outcome *oc)
{
	struct proc_cmd give = { .op = PROC_GIVE }, take = { .op = PROC_TAKE };
	struct actor_proc *from = proc_get(x, &st->actor, oc), *to;
	const struct scn_actor *dest = NULL;
	int fd = -1;

	for (int i = 0; i < sc->nprocs; i++)
		if (!strcmp(sc->procs[i].proc, st->argv[2]))
			dest = &sc->procs[i];
	if (!from || !dest)
		return;
	snprintf(give.handle, sizeof(give.handle), "%s", st->argv[0]);
	proc_command(x, from, &give, -1, oc, &fd);
	if (oc->err || fd < 0)
		return;
	to = proc_get(x, dest, oc);
	if (to) {
		take.op = PROC_TAKE;
		snprintf(take.handle, sizeof(take.handle), "%s", st->argv[0]);
		proc_command(x, to, &take, fd, oc, NULL);
		if (!oc->err)
			outcome_set(oc, 0, "send %s to %s", st->argv[0], st->argv[2]);
	}
	close(fd);
}

int proc_fetch_fd(struct exec_ctx *x, const struct scenario *sc, const char *proc,
		  const char *handle, struct outcome *oc)
{
	struct proc_cmd give = { .op = PROC_GIVE };
	const struct scn_actor *a = NULL;
	struct actor_proc *p;
	int fd = -1;

	for (int i = 0; i < sc->nprocs; i++)
		if (!strcmp(sc->procs[i].proc, proc))
			a = &sc->procs[i];
	p = a ? proc_get(x, a, oc) : NULL;
	if (!p)
		return -1;
	snprintf(give.handle, sizeof(give.handle), "%s", handle);
	proc_command(x, p, &give, -1, oc, &fd);
	return oc->err ? -1 : fd;
}

void act_in_process(struct exec_ctx *x, const struct scenario *sc, int step,
		    struct outcome *oc)
{
	const struct scn_step *st = &sc->steps[step];
	struct proc_cmd run = { .op = PROC_RUN, .sc = sc, .step = step };
	struct actor_proc once, *p;

	memset(oc, 0, sizeof(*oc));
	if (st->action == SCN_SEND) {
		send_step(x, sc, st, oc);
		return;
	}
	if (st->actor.proc[0]) {
		p = proc_get(x, &st->actor, oc);
		if (p)
			proc_command(x, p, &run, -1, oc, NULL);
		return;
	}
	if (proc_start(&once, &st->actor, oc, x->step_timeout_s) < 0)
		return;
	proc_command(x, &once, &run, -1, oc, NULL);
	proc_kill(&once);
}

void procs_teardown(struct exec_ctx *x)
{
	for (int i = 0; i < EXEC_MAX_PROCS; i++)
		if (x->procs[i].pid > 0)
			proc_kill(&x->procs[i]);
}
