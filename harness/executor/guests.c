// SPDX-License-Identifier: GPL-2.0
/*
 * Nested guests: a QEMU under L1's KVM, attached to a tap, running the
 * lab kernel with the L2 agent. The agent answers on a named virtio-serial
 * port ("tunlab.ctl"): it says "ready" once its NIC is configured, runs
 * "ping ADDR COUNT" and replies with its output and "rc N", and powers off
 * on "poweroff". The guest's console goes to a file, forwarded to L0.
 */
#include "guests.h"
#include "actors.h"
#include "l2path.h"
#include "outcome.h"
#include "common/errnames.h"
#include "common/proto.h"
#include "common/spawn.h"
#include "common/util.h"
#include "common/verdict.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define L2_READY_TIMEOUT_S 90
#define L2_STOP_TIMEOUT_S 20
#define L2_DEFAULT_IP "169.254.0.2/16"
#define VIRT_PATH "/usr/bin/tunlab-virt"
/* libvirt's cache of QEMU's capabilities, one per uid the launcher runs as */
#define VIRT_CACHE RUN_DIR "/libvirt-cache"

static const char *const guest_files[] = { "console.log", "qemu.stderr", "ctl.sock",
					   "libvirt.stderr" };

static struct guest *guest_find(struct exec_ctx *x, const char *name)
{
	for (int i = 0; i < EXEC_MAX_GUESTS; i++)
		if (x->guests[i].used && !strcmp(x->guests[i].name, name))
			return &x->guests[i];
	return NULL;
}

/*
 * Under TCG's emulated SVM, KVM reports an XSAVE area size the L2 kernel
 * rejects with a WARNING at boot ("XSAVE consistency problem: size 832 !=
 * kernel_size 576"), and hiding only AVX leaves a guest whose init
 * segfaults; L2 therefore runs without XSAVE (FXSAVE only).
 * Nor with the TSC-deadline timer: L1's 6.12 KVM recalibrates its TSC rate
 * at boot away from the one it gives L2 by more than KVM tolerates without
 * scaling (250 ppm), TCG's SVM has no TSC scaling, and the L2's deadline
 * interrupts then never came (the L2 pings of the 6.12 lab failed).
 * Without the feature L2's kernel uses the local APIC timer in one-shot
 * mode, which KVM emulates from the host clock on both trees.
 * tunlab.l2cpu= on L1's command line overrides the model.
 */
static char *l2_cpu(void)
{
	char *cpu = kernel_cmdline_value("tunlab.l2cpu");

	return cpu ? cpu : xstrdup("host,-xsave,-tsc-deadline");
}

/* A locally administered MAC derived from the guest's name: guests on one
 * bridge must not share QEMU's default address. */
static const char *guest_mac(const char *name)
{
	static char mac[18];
	unsigned int h = 2166136261u;

	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	snprintf(mac, sizeof(mac), "52:54:00:%02x:%02x:%02x", (h >> 16) & 0xff,
		 (h >> 8) & 0xff, h & 0xff);
	return mac;
}

/* l2 boot ioeventfd=off: the guest's virtio-net kicks exit to QEMU. */
static bool ioeventfd_off(const struct scn_step *st)
{
	const char *v = scn_arg(st, "ioeventfd");

	return v && !strcmp(v, "off");
}

static char **l2_argv(const struct scn_step *st, const char *dir, int tapfd)
{
	const char *vhost = scn_arg(st, "vhost"), *ip = scn_arg(st, "ip");
	/*
	 * qboot and no extra kernel arguments in the lab; make bench's naive
	 * stack boots L2 with SeaBIOS and initramfs-tools' init, named on
	 * L1's command line: tunlab.l2bios=PATH tunlab.l2append=ARG,ARG...
	 */
	char *bios = kernel_cmdline_value("tunlab.l2bios");
	char *extra = kernel_cmdline_value("tunlab.l2append");
	static const char *const fixed[] = {
		"qemu-system-x86_64", "-nodefaults", "-no-user-config", "-machine", "pc",
		"-accel", "kvm", "-m", "192",
		"-kernel", LAB_DIR "/bzImage", "-initrd", LAB_DIR "/l2.cpio",
		"-no-reboot", "-display", "none", "-monitor", "none",
		/*
		 * two ports, not 31: the driver sets up two virtqueues a port at
		 * boot (port 0 is the console's, tunlab.ctl takes port 1)
		 */
		"-device", "virtio-serial-pci,max_ports=2",
		"-device", "virtserialport,chardev=ctl,name=tunlab.ctl",
	};
	struct argv_builder b = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		argv_add(&b, fixed[i]);
	argv_add(&b, "-bios");
	argv_addf(&b, bios ? bios : xstrdup("/usr/share/qemu/qboot.rom"));
	argv_add(&b, "-cpu");
	argv_addf(&b, l2_cpu());
	for (char *c = extra; c && *c; c++)
		if (*c == ',')
			*c = ' ';
	argv_add(&b, "-append");
	argv_addf(&b, xasprintf("console=ttyS0 panic=-1 loglevel=5 tunlab.ip=%s%s%s",
				ip ? ip : L2_DEFAULT_IP, extra ? " " : "", extra ? extra : ""));
	free(extra);
	argv_add(&b, "-serial");
	argv_addf(&b, xasprintf("file:%s/console.log", dir));
	argv_add(&b, "-chardev");
	argv_addf(&b, xasprintf("socket,id=ctl,path=%s/ctl.sock,server=on,wait=off", dir));
	argv_add(&b, "-netdev");
	if (tapfd >= 0)
		argv_addf(&b, xasprintf("tap,id=n0,fd=%d,vhost=%s", tapfd, vhost ? vhost : "on"));
	else
		argv_addf(&b, xasprintf("tap,id=n0,ifname=%s,script=no,downscript=no,vhost=%s",
					scn_arg(st, "net"), vhost ? vhost : "on"));
	argv_add(&b, "-device");
	/* the firmware loads the kernel through fw_cfg: no network boot ROM */
	argv_addf(&b, xasprintf("virtio-net-pci,netdev=n0,romfile=,mac=%s%s", guest_mac(st->argv[0]),
				ioeventfd_off(st) ? ",ioeventfd=off" : ""));
	return b.v;
}

static int connect_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Read one line from @fd within @deadline (ms, CLOCK_MONOTONIC). */
static int read_line(int fd, char *buf, size_t size, double deadline)
{
	size_t len = 0;

	while (len + 1 < size) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = (int)(deadline - now_ms());
		ssize_t n;

		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&p, 1, left) <= 0)
			continue;
		n = read(fd, buf + len, 1);
		if (n <= 0)
			return -EPIPE;
		if (buf[len] == '\n')
			break;
		len++;
	}
	buf[len] = '\0';
	if (len && buf[len - 1] == '\r')
		buf[len - 1] = '\0';
	return (int)len;
}

static void read_tail(const char *path, char *out, size_t size)
{
	size_t len;
	char *text = read_file(path, &len);

	out[0] = '\0';
	if (!text)
		return;
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		text[--len] = '\0';
	snprintf(out, size, "%s", len >= size ? text + len - size + 1 : text);
	free(text);
}

/*
 * Evidence of how a guest's NIC is wired: KVM's own counters for the VM
 * (debugfs kvm/<pid>-<fd>/), the eventfds its QEMU holds (ioeventfds for
 * the virtio queues, irqfds for the MSI-X vectors) and vhost's worker.
 */
struct kvm_counters {
	bool found;
	unsigned long long exits, io_exits, mmio_exits, irq_injections;
};

static unsigned long long read_counter(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name), *text = read_file(path, NULL);
	unsigned long long v = text ? strtoull(text, NULL, 10) : 0;

	free(text);
	free(path);
	return v;
}

static void kvm_counters(pid_t pid, struct kvm_counters *c)
{
	char prefix[32];
	struct dirent *e;
	DIR *d = opendir("/sys/kernel/debug/kvm");

	memset(c, 0, sizeof(*c));
	snprintf(prefix, sizeof(prefix), "%d-", (int)pid);
	while (d && (e = readdir(d))) {
		char *dir;

		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		dir = xasprintf("/sys/kernel/debug/kvm/%s", e->d_name);
		c->found = true;
		c->exits = read_counter(dir, "exits");
		c->io_exits = read_counter(dir, "io_exits");
		c->mmio_exits = read_counter(dir, "mmio_exits");
		c->irq_injections = read_counter(dir, "irq_injections");
		free(dir);
		break;
	}
	if (d)
		closedir(d);
}

static int count_eventfds(pid_t pid)
{
	char *dir = xasprintf("/proc/%d/fd", (int)pid), link[64];
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	while (d && (e = readdir(d))) {
		char *path = xasprintf("%s/%s", dir, e->d_name);
		ssize_t len = readlink(path, link, sizeof(link) - 1);

		if (len > 0) {
			link[len] = '\0';
			n += !strcmp(link, "anon_inode:[eventfd]");
		}
		free(path);
	}
	if (d)
		closedir(d);
	free(dir);
	return n;
}

/*
 * How much of @pid's memory is in transparent huge pages (KiB), the L2's
 * RAM among it when the lab kernel gives QEMU the huge pages it asks for
 * (kernel/config/lab.config); -1 when /proc does not say.
 */
static long huge_page_kib(pid_t pid)
{
	char *path = xasprintf("/proc/%d/smaps_rollup", (int)pid);
	char *text = read_file(path, NULL), *at;
	long kib = -1;

	at = text ? strstr(text, "\nAnonHugePages:") : NULL;
	if (at)
		kib = strtol(at + strlen("\nAnonHugePages:"), NULL, 10);
	free(text);
	free(path);
	return kib;
}

/* The numbered entry of @dir whose comm is @want ("/proc/123"), or NULL. */
static char *comm_in(const char *dir, const char *want)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	size_t len = strlen(want);
	char *found = NULL;

	while (!found && d && (e = readdir(d))) {
		char *path, *comm;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		path = xasprintf("%s/%s/comm", dir, e->d_name);
		comm = read_file(path, NULL);
		if (comm && !strncmp(comm, want, len) && (comm[len] == '\n' || !comm[len]))
			found = xasprintf("%s/%s", dir, e->d_name);
		free(comm);
		free(path);
	}
	if (d)
		closedir(d);
	return found;
}

/*
 * vhost-net's worker is named "vhost-<owner pid>": a kernel thread on 6.1,
 * a thread of the owner (QEMU) itself since 6.4's vhost_task. Its /proc
 * folder, or NULL.
 */
static char *vhost_worker(pid_t pid)
{
	char want[32], *task = xasprintf("/proc/%d/task", (int)pid), *found;

	snprintf(want, sizeof(want), "vhost-%d", (int)pid);
	found = comm_in(task, want);
	if (!found)
		found = comm_in("/proc", want);
	free(task);
	return found;
}

static bool has_vhost_worker(pid_t pid)
{
	char *worker = vhost_worker(pid);

	free(worker);
	return worker != NULL;
}

/* A free slot for guest @name, or NULL (@oc says why). */
static struct guest *guest_slot(struct exec_ctx *x, const char *name, struct outcome *oc)
{
	if (guest_find(x, name)) {
		outcome_set(oc, EEXIST, "l2 boot %s: already running", name);
		return NULL;
	}
	for (int i = 0; i < EXEC_MAX_GUESTS; i++) {
		if (x->guests[i].used)
			continue;
		memset(&x->guests[i], 0, sizeof(x->guests[i]));
		snprintf(x->guests[i].name, sizeof(x->guests[i].name), "%s", name);
		snprintf(x->guests[i].dir, sizeof(x->guests[i].dir), RUN_DIR "/%s", name);
		x->guests[i].ctl = -1;
		return &x->guests[i];
	}
	outcome_set(oc, EBUSY, "l2 boot %s: more than %d guests", name, EXEC_MAX_GUESTS);
	oc->broken = true;
	return NULL;
}

/*
 * A fresh folder for the guest's files, owned by its actor: an earlier
 * guest of this name may have been another user's, and its files would be
 * unwritable for this one.
 */
static int guest_dir(struct guest *guest, const struct scn_actor *actor, struct outcome *oc)
{
	mkdir(RUN_DIR, 0755);
	for (size_t i = 0; i < ARRAY_SIZE(guest_files); i++) {
		char *f = xasprintf("%s/%s", guest->dir, guest_files[i]);

		unlink(f);
		free(f);
	}
	rmdir(guest->dir);
	mkdir(guest->dir, 0755);
	if (!actor->root && chown(guest->dir, actor->uid, actor->gid) < 0) {
		outcome_set(oc, errno, "chown %s", guest->dir);
		oc->broken = true;
		return -1;
	}
	return 0;
}

/* fd=PROC:H: the tap descriptor a named process holds, or -1 for net=TAP. */
static int guest_tap_fd(struct exec_ctx *x, const struct scenario *sc, const char *fdspec,
			struct outcome *oc, int *tapfd)
{
	char proc[SCN_NAME_MAX];

	*tapfd = -1;
	if (!fdspec)
		return 0;
	snprintf(proc, sizeof(proc), "%.*s", (int)strcspn(fdspec, ":"), fdspec);
	*tapfd = proc_fetch_fd(x, sc, proc, strchr(fdspec, ':') + 1, oc);
	return *tapfd < 0 ? -1 : 0;
}

/* QEMU runs as the step's actor: its ids, capabilities and namespaces. */
static int become_actor_cb(void *actor, char *why, size_t size)
{
	return become_actor(actor, why, size);
}

static int guest_start(struct guest *guest, const struct scn_step *st, int tapfd,
		       struct outcome *oc)
{
	char *errlog = xasprintf("%s/qemu.stderr", guest->dir);
	char **argv = l2_argv(st, guest->dir, tapfd);

	guest->pid = spawn(&(struct spawn){
		.argv = argv, .out = SPAWN_NULL, .err = SPAWN_FILE, .err_file = errlog,
		.err_truncate = true, .die_with_parent = true,
		/* QEMU inherits the tap descriptor, as from libvirt */
		.inherit_fd = tapfd >= 0 ? &tapfd : NULL,
		.setup = become_actor_cb, .ctx = (void *)&st->actor,
	}, NULL);
	argv_free(argv);
	free(errlog);
	if (guest->pid < 0) {
		outcome_set(oc, errno, "fork for l2 boot %s", guest->name);
		oc->broken = true;
		return -1;
	}
	guest->qemu = guest->pid;
	guest->used = true;
	return 0;
}

/* tunlab-virt's arguments: the guest of l2_argv(), as a libvirt domain. */
static char **virt_argv(const struct scn_step *st, const char *dir, const char *cache)
{
	const char *vhost = scn_arg(st, "vhost"), *ip = scn_arg(st, "ip");
	const char *premade = scn_arg(st, "net");
	struct argv_builder b = { 0 };

	argv_add(&b, VIRT_PATH);
	argv_add(&b, "--root");
	argv_addf(&b, xasprintf("%s/libvirt", dir));
	argv_add(&b, "--cache");
	argv_add(&b, cache);
	argv_add(&b, "--name");
	argv_add(&b, st->argv[0]);
	argv_add(&b, "--kernel");
	argv_add(&b, LAB_DIR "/bzImage");
	argv_add(&b, "--initrd");
	argv_add(&b, LAB_DIR "/l2.cpio");
	argv_add(&b, "--bios");
	argv_add(&b, "/usr/share/qemu/qboot.rom");
	argv_add(&b, "--cpu");
	argv_addf(&b, l2_cpu());
	argv_add(&b, "--append");
	argv_addf(&b, xasprintf("console=ttyS0 panic=-1 loglevel=5 tunlab.ip=%s",
				ip ? ip : L2_DEFAULT_IP));
	argv_add(&b, "--console");
	argv_addf(&b, xasprintf("%s/console.log", dir));
	argv_add(&b, "--ctl");
	argv_addf(&b, xasprintf("%s/ctl.sock", dir));
	argv_add(&b, "--mac");
	argv_add(&b, guest_mac(st->argv[0]));
	argv_add(&b, "--vhost");
	argv_add(&b, vhost ? vhost : "on");
	argv_add(&b, "--tap");
	argv_add(&b, premade ? premade : scn_arg(st, "tap"));
	if (premade)
		argv_add(&b, "--premade");
	return b.v;
}

/* The launcher's capability cache: one per uid, made by root, owned by it. */
static char *virt_cache(const struct scn_actor *actor, struct outcome *oc)
{
	uid_t uid = actor->root ? 0 : actor->uid;
	char *dir = xasprintf(VIRT_CACHE ".%u", (unsigned int)uid);

	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		outcome_set(oc, errno, "mkdir %s", dir);
	} else if (uid && chown(dir, uid, actor->gid) < 0) {
		outcome_set(oc, errno, "chown %s", dir);
	} else {
		return dir;
	}
	oc->broken = true;
	free(dir);
	return NULL;
}

/*
 * launcher=libvirt: tunlab-virt starts the guest through libvirt, as the
 * step's actor, and says on its first line how that went: "started
 * qemu=PID tap=NAME", or "error errno=N code=C MESSAGE" with libvirt's
 * message, which the step reports as libvirt gave it.
 */
static int guest_start_libvirt(struct guest *guest, const struct scn_step *st,
			       double deadline, struct outcome *oc)
{
	char *errlog = xasprintf("%s/libvirt.stderr", guest->dir);
	char *cache = virt_cache(&st->actor, oc), **argv, line[1024];
	int out = -1, n, status, err, code, msg = 0;
	long qemu;

	if (!cache) {
		free(errlog);
		return -1;
	}
	argv = virt_argv(st, guest->dir, cache);
	guest->pid = spawn(&(struct spawn){
		.argv = argv, .path = VIRT_PATH, .out = SPAWN_PIPE, .err = SPAWN_FILE,
		.err_file = errlog, .err_truncate = true, .die_with_parent = true,
		.setup = become_actor_cb, .ctx = (void *)&st->actor,
	}, &out);
	argv_free(argv);
	free(cache);
	if (guest->pid < 0) {
		outcome_set(oc, errno, "fork for l2 boot %s", guest->name);
		oc->broken = true;
		free(errlog);
		return -1;
	}
	guest->used = true;
	n = read_line(out, line, sizeof(line), deadline);
	close(out);
	if (n > 0 && sscanf(line, "started qemu=%ld", &qemu) == 1 && qemu > 0) {
		guest->qemu = (pid_t)qemu;
		free(errlog);
		return 0;
	}
	/* no guest: the launcher ends by itself, or at once when it hangs */
	if (n == -ETIMEDOUT)
		kill(guest->pid, SIGKILL);
	waitpid(guest->pid, &status, 0);
	guest->pid = 0;
	guest->used = false;
	if (n > 0 && sscanf(line, "error errno=%d code=%d %n", &err, &code, &msg) == 2) {
		outcome_set(oc, err ? err : -1, "l2 boot %s: libvirt did not start the guest",
			    guest->name);
		snprintf(oc->detail, sizeof(oc->detail), "libvirt: %s%s%s%s", line + msg,
			 err ? " (" : "", err ? errno_name(err) ? errno_name(err) : "?" : "",
			 err ? ")" : "");
	} else {
		read_tail(errlog, oc->detail, sizeof(oc->detail));
		outcome_set(oc, n == -ETIMEDOUT ? ETIMEDOUT : -1,
			    "l2 boot %s: tunlab-virt %s", guest->name,
			    n == -ETIMEDOUT ? "did not answer in time" : "ended without a word");
	}
	free(errlog);
	return -1;
}

enum guest_wait { GUEST_READY, GUEST_DIED, GUEST_TIMEOUT };

/* QEMU's control socket, then the agent's "ready" line, kept in @line. */
static enum guest_wait guest_wait_ready(struct guest *guest, double deadline, char *line,
					size_t size, int *status)
{
	char *sock = xasprintf("%s/ctl.sock", guest->dir);
	enum guest_wait w = GUEST_READY;

	while (guest->ctl < 0 && w == GUEST_READY) {
		if (waitpid(guest->pid, status, WNOHANG) == guest->pid)
			w = GUEST_DIED;
		else if (now_ms() > deadline)
			w = GUEST_TIMEOUT;
		else if ((guest->ctl = connect_unix(sock)) < 0)
			usleep(20 * 1000);
	}
	free(sock);
	while (w == GUEST_READY) {
		int n = read_line(guest->ctl, line, size, deadline);

		if (n == -ETIMEDOUT)
			return GUEST_TIMEOUT;
		if (n < 0) {
			waitpid(guest->pid, status, 0);
			return GUEST_DIED;
		}
		if (!strncmp(line, "ready", 5))
			break;
	}
	return w;
}

/*
 * QEMU ended before the guest was ready: its stderr says why (libvirt
 * keeps a QEMU's stderr in its log, after the command line).
 */
static void guest_died(struct guest *guest, int status, struct outcome *oc)
{
	char *errlog = guest->qemu != guest->pid ?
		xasprintf("%s/libvirt/log/qemu/%s.log", guest->dir, guest->name) :
		xasprintf("%s/qemu.stderr", guest->dir);

	guest->pid = 0;
	read_tail(errlog, oc->detail, sizeof(oc->detail));
	free(errlog);
	/* spawn's 127: QEMU (or the launcher) never ran, as when L1 has none */
	if (WIFEXITED(status) && WEXITSTATUS(status) == KSFT_NOT_STARTED) {
		oc->broken = true;
		outcome_set(oc, errno_from_message(oc->detail),
			    "l2 boot %s: the lab could not start QEMU in L1", guest->name);
		return;
	}
	outcome_set(oc, errno_from_message(oc->detail),
		    "l2 boot %s: QEMU exited (%s %d) before the guest was ready",
		    guest->name, WIFEXITED(status) ? "status" : "signal",
		    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

static char *guest_interrupts(struct guest *guest);
static void guest_net_irqs(const char *interrupts, struct sbuf *out);

/*
 * A guest not ready by its deadline: hung, or up with its "ready" line
 * lost? The agent is asked for its interrupts; how it answers tells.
 */
static void guest_unready(struct guest *guest, struct outcome *oc)
{
	char *answer = NULL;
	struct sbuf why = { 0 };

	if (guest->ctl >= 0) {
		answer = guest_interrupts(guest);
		if (!answer)
			answer = xstrdup("");
	}
	l2path_unready(answer, &why);
	guest_net_irqs(answer, &why);
	snprintf(oc->detail, sizeof(oc->detail), "%s", why.buf);
	sbuf_free(&why);
	free(answer);
}

void act_l2_boot(struct exec_ctx *x, const struct scenario *sc, const struct scn_step *st,
		 struct outcome *oc)
{
	const char *name = st->argv[0], *fdspec = scn_arg(st, "fd");
	const char *launcher = scn_arg(st, "launcher");
	bool libvirt = launcher && !strcmp(launcher, "libvirt");
	/* libvirt probes QEMU, then walks the guest CPU's every property over
	 * QMP: its guests take about twice as long to be ready */
	unsigned int ready_s = L2_READY_TIMEOUT_S * lab_slowness() * (libvirt ? 2 : 1);
	double t0 = now_ms(), deadline = t0 + ready_s * 1000.0;
	struct guest *guest;
	char line[256];
	int tapfd = -1, status = 0, started;

	memset(oc, 0, sizeof(*oc));
	outcome_set(oc, 0, "l2 boot %s (%s, tap %s, vhost=%s%s)", name,
		    libvirt ? "libvirt, qemu:///embed" : "qemu -accel kvm",
		    fdspec ? fdspec : scn_arg(st, libvirt && !scn_arg(st, "net") ? "tap" : "net"),
		    scn_arg(st, "vhost") ? scn_arg(st, "vhost") : "on",
		    ioeventfd_off(st) ? ", ioeventfd=off" : "");
	guest = guest_slot(x, name, oc);
	if (!guest || guest_dir(guest, &st->actor, oc) < 0 ||
	    guest_tap_fd(x, sc, fdspec, oc, &tapfd) < 0)
		return;
	guest->no_ioeventfd = ioeventfd_off(st);
	if (libvirt) {
		started = guest_start_libvirt(guest, st, deadline, oc);
	} else {
		started = guest_start(guest, st, tapfd, oc);
		if (tapfd >= 0)
			close(tapfd);
	}
	if (started < 0)
		return;
	switch (guest_wait_ready(guest, deadline, line, sizeof(line), &status)) {
	case GUEST_READY: {
		double secs = (now_ms() - t0) / 1000.0;
		long huge = huge_page_kib(guest->qemu);
		char mib[24] = "?";

		if (huge >= 0)
			snprintf(mib, sizeof(mib), "%ld", huge / 1024);
		snprintf(oc->detail, sizeof(oc->detail),
			 "%s ready in %.2f s (%s); QEMU holds %d eventfds, vhost worker %s, "
			 "%s MiB in huge pages", name, secs, line,
			 count_eventfds(guest->qemu),
			 has_vhost_worker(guest->qemu) ? "running" : "absent", mib);
		break;
	}
	case GUEST_DIED:
		guest_died(guest, status, oc);
		break;
	case GUEST_TIMEOUT:
		outcome_set(oc, ETIMEDOUT, "l2 boot %s: the guest was not ready within %u s",
			    name, ready_s);
		guest_unready(guest, oc);
		break;
	}
}

/*
 * The guest's own view: the virtio lines of L2's /proc/interrupts, how
 * many interrupts each MSI-X vector took ("virtio1-input.0"): what arrives
 * through irqfd. NULL when the agent does not answer.
 */
static char *guest_interrupts(struct guest *guest)
{
	double deadline = now_ms() + 5000;
	struct sbuf text = { 0 };
	char line[512];

	if (write(guest->ctl, "interrupts\n", 11) != 11)
		return NULL;
	sbuf_puts(&text, "");
	while (read_line(guest->ctl, line, sizeof(line), deadline) >= 0 && strncmp(line, "rc ", 3))
		sbuf_printf(&text, "%s\n", line);
	return text.buf;
}

/* Each vector's interrupts since the guest booted, for the step's report. */
static void guest_net_irqs(const char *interrupts, struct sbuf *out)
{
	bool first = true;

	for (const char *line = interrupts; line && *line; ) {
		size_t len = strcspn(line, "\n");
		char *text = xstrndup(line, len), *name = strrchr(text, ' ');

		if (name && strstr(name, "virtio")) {
			sbuf_printf(out, "%s%s %llu%s", first ? "; L2 MSI-X interrupts: " : ", ",
				    name + 1, l2path_line_irqs(text),
				    strstr(text, "MSI") ? "" : " (not MSI)");
			first = false;
		}
		free(text);
		line += len + (line[len] == '\n');
	}
}

/* The voluntary context switches so far of the thread in /proc folder @dir. */
static unsigned long long thread_wakeups(const char *dir)
{
	char *path = xasprintf("%s/status", dir), *text = read_file(path, NULL);
	unsigned long long n = 0;

	l2path_voluntary_switches(text, &n);
	free(text);
	free(path);
	return n;
}

/*
 * What a guest's NIC did during a ping: KVM's counters, L2's interrupts,
 * and the wakeups of vhost's worker and of QEMU's main thread, which
 * polls the tap and the ioeventfds when vhost does not.
 */
struct ping_counters {
	struct kvm_counters kvm;
	char *irqs;
	unsigned long long vhost_wakeups, qemu_wakeups;
};

/*
 * The agent's answers wake QEMU's main thread (its control port is a
 * socket there): the interrupts are read outside the span the threads'
 * wakeups are counted over, before them at the start, after at the end.
 */
static void ping_counters(struct guest *guest, const char *worker, bool start,
			  struct ping_counters *c)
{
	char *qemu = xasprintf("/proc/%d/task/%d", (int)guest->qemu, (int)guest->qemu);

	if (start)
		c->irqs = guest_interrupts(guest);
	c->vhost_wakeups = worker ? thread_wakeups(worker) : 0;
	c->qemu_wakeups = thread_wakeups(qemu);
	kvm_counters(guest->qemu, &c->kvm);
	if (!start)
		c->irqs = guest_interrupts(guest);
	free(qemu);
}

/* path=: the evidence of a ping, judged; a failure names what broke. */
static void judge_path(const struct scn_step *st, const struct guest *guest, bool worker,
		       const unsigned int sr[2], const struct ping_counters *c0,
		       const struct ping_counters *c1, struct outcome *oc, struct sbuf *out)
{
	struct l2path_evidence ev = {
		.sent = sr[0], .replies = sr[1], .ioeventfd = !guest->no_ioeventfd,
		.kvm_found = c0->kvm.found && c1->kvm.found,
		.mmio_exits = c1->kvm.mmio_exits - c0->kvm.mmio_exits,
		.vhost_worker = worker,
		.vhost_wakeups = c1->vhost_wakeups - c0->vhost_wakeups,
		.qemu_wakeups = c1->qemu_wakeups - c0->qemu_wakeups,
	};
	unsigned long long irq0 = 0, irq1 = 0;
	enum l2path_verdict v;
	struct sbuf why = { 0 };
	enum l2_path want;

	if (!l2path_parse(scn_arg(st, "path"), &want))
		return;
	ev.irqs_found = l2path_input_irqs(c0->irqs, &irq0) && l2path_input_irqs(c1->irqs, &irq1);
	ev.input_irqs = irq1 - irq0;
	v = l2path_judge(want, &ev, &why);
	sbuf_puts(out, "; ");
	l2path_describe(&ev, out);
	if (v != L2PATH_HOLDS) {
		/* the ping's own failure, if any, stays in the detail */
		char what[sizeof(oc->what)];

		snprintf(what, sizeof(what), "%s", oc->what);
		sbuf_printf(out, "; ping %s", oc->err ? "failed" : "succeeded");
		outcome_set(oc, v == L2PATH_UNMEASURED ? ENOENT : -1, "%s %s", what, why.buf);
		oc->broken = v == L2PATH_UNMEASURED;
	}
	sbuf_free(&why);
}

void act_l2_ping(struct exec_ctx *x, const struct scn_step *st, struct outcome *oc)
{
	struct guest *guest = guest_find(x, st->argv[0]);
	int cnt = scn_ping_count(st);
	/* as for an L2 to be ready: a slow lab's L2 answers N times later */
	double deadline = now_ms() + (cnt * 2 + 10) * 1000.0 * lab_slowness();
	struct ping_counters before = { 0 }, after = { 0 };
	unsigned int sr[2] = { 0, 0 };
	struct sbuf out = { 0 };
	char line[256], *cmd, *worker;

	memset(oc, 0, sizeof(*oc));
	outcome_set(oc, 0, "l2 ping %s %s count=%d", st->argv[0], st->argv[1], cnt);
	if (!guest || guest->ctl < 0) {
		outcome_set(oc, ENODEV, "l2 ping: %s is not running", st->argv[0]);
		return;
	}
	worker = vhost_worker(guest->qemu);
	ping_counters(guest, worker, true, &before);
	cmd = xasprintf("ping %s %d\n", st->argv[1], cnt);
	if (write(guest->ctl, cmd, strlen(cmd)) != (ssize_t)strlen(cmd)) {
		outcome_set(oc, errno, "l2 ping: write to %s's agent", guest->name);
		free(cmd);
		free(worker);
		free(before.irqs);
		return;
	}
	free(cmd);
	sbuf_puts(&out, "");
	for (;;) {
		int n = read_line(guest->ctl, line, sizeof(line), deadline);

		if (n < 0) {
			outcome_set(oc, -n, "l2 ping: no answer from %s's agent", guest->name);
			break;
		}
		if (!strncmp(line, "rc ", 3)) {
			if (atoi(line + 3))
				oc->err = -1;
			break;
		}
		l2path_ping_counts(line, &sr[0], &sr[1]);
		/* keep the summary lines, not one line per echo reply */
		if (strstr(line, "packets") || strstr(line, "round-trip") ||
		    strstr(line, "bad address") || strstr(line, "unreachable"))
			sbuf_printf(&out, "%s%s", out.len ? "; " : "", line);
	}
	ping_counters(guest, worker, false, &after);
	guest_net_irqs(after.irqs, &out);
	/* what the traffic cost in exits: virtio kicks through ioeventfd and
	 * MSI-X through irqfd never reach QEMU as io/mmio exits */
	if (before.kvm.found && after.kvm.found)
		sbuf_printf(&out, "; KVM during the ping: exits +%llu, io_exits +%llu, mmio_exits +%llu, irq_injections +%llu",
			    after.kvm.exits - before.kvm.exits, after.kvm.io_exits - before.kvm.io_exits,
			    after.kvm.mmio_exits - before.kvm.mmio_exits,
			    after.kvm.irq_injections - before.kvm.irq_injections);
	if (scn_arg(st, "path"))
		judge_path(st, guest, worker != NULL, sr, &before, &after, oc, &out);
	snprintf(oc->detail, sizeof(oc->detail), "%s", out.buf);
	sbuf_free(&out);
	free(before.irqs);
	free(after.irqs);
	free(worker);
}

static void forward_console(struct exec_ctx *x, struct guest *guest)
{
	char *path = xasprintf("%s/console.log", guest->dir);
	char *text = read_file(path, NULL), *s, *nl;
	char idx[16];

	snprintf(idx, sizeof(idx), "%d", x->idx);
	/*
	 * The L2 kernel prints only warnings and worse (loglevel=5: every byte
	 * on the emulated UART is an exit to L1's QEMU), so a guest that hangs
	 * quietly leaves an empty console: say so rather than keep no log.
	 */
	if (!text || !*text)
		proto_emit(x->out, "log", 3, idx, guest->name,
			   "tunlab: the guest printed nothing on its console "
			   "(L2 boots with loglevel=5: only warnings and worse are printed)");
	for (s = text; s && *s; s = nl + 1) {
		nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		if (nl && nl > s && nl[-1] == '\r')
			nl[-1] = '\0';
		proto_emit(x->out, "log", 3, idx, guest->name, s);
		if (!nl)
			break;
	}
	free(text);
	free(path);
}

static int guest_stop(struct exec_ctx *x, struct guest *guest, char *why, size_t size)
{
	double deadline = now_ms() + L2_STOP_TIMEOUT_S * 1000.0;
	int status, ret = 0;

	if (guest->ctl >= 0 && write(guest->ctl, "poweroff\n", 9) != 9)
		snprintf(why, size, "cannot reach %s's agent", guest->name);
	while (guest->pid > 0) {
		if (waitpid(guest->pid, &status, WNOHANG) == guest->pid) {
			guest->pid = 0;
			break;
		}
		if (now_ms() > deadline) {
			/* a launcher's QEMU is no child of ours: it goes first */
			if (guest->qemu != guest->pid)
				kill(guest->qemu, SIGKILL);
			kill(guest->pid, SIGKILL);
			waitpid(guest->pid, &status, 0);
			guest->pid = 0;
			snprintf(why, size, "%s did not power off within %d s; killed",
				 guest->name, L2_STOP_TIMEOUT_S);
			ret = -1;
			break;
		}
		usleep(20 * 1000);
	}
	if (guest->ctl >= 0)
		close(guest->ctl);
	guest->ctl = -1;
	forward_console(x, guest);
	guest->used = false;
	return ret;
}

void act_l2_stop(struct exec_ctx *x, const struct scn_step *st, struct outcome *oc)
{
	struct guest *guest = guest_find(x, st->argv[0]);

	memset(oc, 0, sizeof(*oc));
	outcome_set(oc, 0, "l2 stop %s", st->argv[0]);
	if (!guest) {
		outcome_set(oc, ENODEV, "l2 stop: %s is not running", st->argv[0]);
		return;
	}
	if (guest_stop(x, guest, oc->detail, sizeof(oc->detail)))
		oc->err = ETIMEDOUT;
}

void guests_teardown(struct exec_ctx *x)
{
	char why[256];

	for (int i = 0; i < EXEC_MAX_GUESTS; i++)
		if (x->guests[i].used)
			guest_stop(x, &x->guests[i], why, sizeof(why));
}
