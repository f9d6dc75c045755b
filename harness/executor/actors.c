// SPDX-License-Identifier: GPL-2.0
/*
 * Actor processes. An actor process takes on the step's credentials
 * (namespaces, groups, gid, uid, and for a non-root actor no capability
 * but those the scenario names), so the kernel sees exactly who the
 * scenario says. A named process (as NAME=...) lives across steps and
 * keeps descriptors under handle names; others live for one step.
 *
 * The executor talks to each process over a SOCK_SEQPACKET socketpair:
 * a struct proc_cmd goes down, a struct outcome comes back; a descriptor
 * travels with either as SCM_RIGHTS.
 */
#include "actors.h"
#include "net.h"
#include "outcome.h"
#include "programs.h"
#include "selinux.h"
#include "tun.h"
#include "tunguard.h"
#include "common/caps.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

enum proc_op {
	PROC_RUN,	/* run step @step */
	PROC_GIVE,	/* send handle @handle's descriptor up */
	PROC_TAKE,	/* keep the descriptor that comes with this as @handle */
};

struct proc_cmd {
	enum proc_op op;
	/* a process forked from the executor finds the parsed scenario at the
	 * same address (also one that continues the process's first); one
	 * that exec'd into its SELinux context parsed the file again and
	 * finds it by its index there */
	const struct scenario *sc;
	int scn;
	int step;
	char handle[SCN_NAME_MAX];
};

/*
 * Namespaces first (a new netns needs CAP_SYS_ADMIN, which root still
 * has), then ids, then what capability the scenario grants; a user
 * namespace next, with the actor's ids mapped to its root; the SELinux
 * context last, entered at the next execve() (of this program again, or
 * of QEMU for a guest).
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
		if (a->net_admin && a->ctx[0] && caps_keep_across_exec(CAP_NET_ADMIN) < 0) {
			snprintf(why, size, "CAP_NET_ADMIN as an ambient capability: %s",
				 strerror(errno));
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
	if (a->ctx[0] && selinux_exec_context(a->ctx, why, size) < 0)
		return -1;
	return 0;
}

static void run_step_here(struct handles *hs, const struct scn_step *st, struct outcome *oc)
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
		tun_handle_step(hs, st, oc);
		break;
	default:
		tun_step(hs, st, oc);
		break;
	}
}

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

/*
 * One command in the actor process; the reply goes in @oc, with the
 * descriptor to send up in @give (-1: none). @fd came with the command.
 */
static void proc_obey(struct handles *hs, const struct scn_file *f, const struct proc_cmd *cmd,
		      int fd, struct outcome *oc, int *give)
{
	const struct scenario *sc = f ? &f->scenarios[cmd->scn] : cmd->sc;
	struct handle *h;

	memset(oc, 0, sizeof(*oc));
	*give = -1;
	switch (cmd->op) {
	case PROC_RUN:
		run_step_here(hs, &sc->steps[cmd->step], oc);
		break;
	case PROC_GIVE:
		h = handle_get(hs, cmd->handle);
		if (h) {
			*give = h->fd;
			outcome_set(oc, 0, "sendmsg(SCM_RIGHTS, %s)", cmd->handle);
		} else {
			outcome_set(oc, EBADF, "send %s: this process holds no handle %s",
				    cmd->handle, cmd->handle);
		}
		break;
	case PROC_TAKE:
		if (fd < 0 || handle_put(hs, cmd->handle, fd) < 0)
			outcome_set(oc, EBADF, "recvmsg(SCM_RIGHTS, %s): no descriptor", cmd->handle);
		else
			outcome_set(oc, 0, "recvmsg(SCM_RIGHTS, %s)", cmd->handle);
		break;
	}
}

/*
 * An actor process that is its actor: obey commands until the socket
 * closes. @f: the scenario file it parsed itself, or NULL.
 */
static void proc_loop(int sock, const struct scn_file *f)
{
	struct handles hs = { .n = 0 };
	struct outcome oc;
	struct proc_cmd cmd;
	int fd, give;

	while (recv_with_fd(sock, &cmd, sizeof(cmd), &fd) == 0) {
		proc_obey(&hs, f, &cmd, fd, &oc, &give);
		if (send_with_fd(sock, &oc, sizeof(oc), give) < 0)
			break;
	}
	_exit(0);
}

/*
 * A new actor process: become the actor, and with a context exec this
 * program again to enter it, the way libvirt starts QEMU in its domain.
 * The first reply says whether the actor could be set up.
 */
static void proc_main(int sock, const struct scn_actor *a, const struct scenario *sc)
{
	struct outcome oc;
	char fdarg[16];

	memset(&oc, 0, sizeof(oc));
	if (become_actor(a, oc.what, sizeof(oc.what)) < 0) {
		oc.err = errno ? errno : -1;
		oc.broken = true;
	} else if (a->ctx[0]) {
		snprintf(fdarg, sizeof(fdarg), "%d", sock);
		fcntl(sock, F_SETFD, 0);
		execl(EXEC_SELF, "tunlab-exec", "--actor", fdarg, sc->file, (char *)NULL);
		outcome_set(&oc, errno, "execve(%s) into ctx=%s", EXEC_SELF, a->ctx);
		oc.broken = true;
	}
	if (send_with_fd(sock, &oc, sizeof(oc), -1) < 0 || oc.broken)
		_exit(1);
	proc_loop(sock, NULL);
}

int actor_main(int sock, const char *file)
{
	struct scn_diags diags = { 0 };
	struct scn_file f;
	struct outcome oc;

	/* entering another context cleared it */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fcntl(sock, F_SETFD, FD_CLOEXEC);
	memset(&oc, 0, sizeof(oc));
	if (scn_parse_file(file, &f, &diags) < 0) {
		outcome_set(&oc, -1, "the actor reading %s again: %s", file,
			    diags.n ? diags.v[0].msg : "it does not parse");
		oc.broken = true;
	}
	scn_diags_free(&diags);
	if (send_with_fd(sock, &oc, sizeof(oc), -1) < 0 || oc.broken)
		return 1;
	proc_loop(sock, &f);
	return 0;
}

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

static int proc_start(struct actor_proc *p, const struct scn_actor *a, const struct scenario *sc,
		      struct outcome *oc, int timeout_s)
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
		proc_main(sv[1], a, sc);
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
				   const struct scenario *sc, struct outcome *oc)
{
	struct actor_proc *p = proc_find(x, a->proc);

	if (p)
		return p;
	for (int i = 0; i < EXEC_MAX_PROCS; i++) {
		if (x->procs[i].pid > 0)
			continue;
		if (proc_start(&x->procs[i], a, sc, oc, x->step_timeout_s) < 0)
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
	struct actor_proc *from = proc_get(x, &st->actor, sc, oc), *to;
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
	to = proc_get(x, dest, sc, oc);
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
	p = a ? proc_get(x, a, sc, oc) : NULL;
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
	struct proc_cmd run = { .op = PROC_RUN, .sc = sc, .scn = sc->index, .step = step };
	struct actor_proc once, *p;

	memset(oc, 0, sizeof(*oc));
	if (st->action == SCN_SEND) {
		send_step(x, sc, st, oc);
		return;
	}
	if (st->actor.proc[0]) {
		p = proc_get(x, &st->actor, sc, oc);
		if (p)
			proc_command(x, p, &run, -1, oc, NULL);
		return;
	}
	if (proc_start(&once, &st->actor, sc, oc, x->step_timeout_s) < 0)
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
