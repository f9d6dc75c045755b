// SPDX-License-Identifier: GPL-2.0
/*
 * tunlab shell and tunlab run: one L1 booted for a person or for one
 * program, not for a plan. The status L1's executor sends at the end
 * ("exit" record) is tunlab's; nothing is left running when it returns.
 *
 * tunlab shell gives QEMU the terminal itself: its stdio console with
 * signal=off puts the terminal in raw mode and passes Ctrl-C to L1's
 * serial line, where the shell's terminal turns it into SIGINT for the
 * job running in L1. tunlab run boots L1 the way a plan does (lab_run),
 * with the program, its arguments, policy and mode in the bundle, and
 * streams the program's output to stdout as it comes; progress goes to
 * stderr.
 */
#include "session.h"
#include "boot.h"
#include "bundle.h"
#include "lab.h"
#include "qemu.h"
#include "common/proto.h"
#include "common/spawn.h"
#include "common/util.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* the directory of the executor's sessions in the bundle */
#define RUN_BUNDLE "tunlab/run"

struct session {
	struct lab_opts lab;
	struct sbuf append;
	const char *policy;	/* tunlab run --policy FILE */
	const char *mode;	/* tunlab run --mode MODE */
	bool libvirt;		/* with libvirt's layer */
};

static int smoke(void *ctx)
{
	struct lab_opts o = *(const struct lab_opts *)ctx;

	o.accel = ACCEL_KVM;
	return lab_smoke(&o, 30);
}

static void session_usage(FILE *out)
{
	fputs("usage: tunlab shell [options]\n"
	      "       tunlab run [options] [--policy FILE] [--mode MODE] -- CMD ARGS...\n"
	      "shell: boot L1 with this terminal as its console and a shell on it;\n"
	      "       'exit' or Ctrl-D leaves, and its status is tunlab's.\n"
	      "run:   run CMD in L1, as root, its output on stdout as it comes; its exit\n"
	      "       status is tunlab's. CMD with a '/' is a file on this host, carried\n"
	      "       into L1, or else a path in the L1 image; a bare name is looked up\n"
	      "       in the image's /usr/bin, /sbin and /bin. --policy loads a tunguard\n"
	      "       policy first, --mode sets the mode (enforce, permissive, off).\n\n"
	      "  --kernel FILE   lab kernel (default build/kernel/bzImage)\n"
	      "  --initrd FILE   L1 initramfs (default build/images/l1.cpio)\n"
	      "  --libvirt       with libvirt's layer (l1-libvirt.cpio beside the initramfs):\n"
	      "                  tunlab-virt and libvirt's QEMU driver in L1\n"
	      "  --cpus N, --mem MB, --append ARGS, --timeout SEC (run: default 3600)\n"
	      "environment: ACCEL=tcg|kvm, QEMU, QBOOT\n"
	      "exit status: the shell's or CMD's; 2 usage error or CMD not found (nothing\n"
	      "booted); 3 the lab could not be set up; 124 timeout; 125 a kernel report;\n"
	      "run: 128+N when signal N (INT, TERM) stopped it, and L1 with it\n", out);
}

static int parse_number(const char *s, const char *what, int lo, int hi, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end || v < lo || v > hi) {
		fprintf(stderr, "tunlab: %s must be a number in %d..%d, got '%s'\n", what, lo, hi, s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* The options both commands take; -1 on a usage error, 1 after --help. */
static int session_options(int argc, char **argv, struct session *s, bool run)
{
	static const struct option longopts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "initrd", required_argument, NULL, 'i' },
		{ "libvirt", no_argument, NULL, 'V' },
		{ "cpus", required_argument, NULL, 'p' },
		{ "mem", required_argument, NULL, 'm' },
		{ "append", required_argument, NULL, 'a' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "policy", required_argument, NULL, 'P' },
		{ "mode", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, bad = 0;

	*s = (struct session){ .lab = {
		.qemu = "qemu-system-x86_64", .bios = "/usr/share/qemu/qboot.rom",
		.kernel = "build/kernel/bzImage", .initrd = "build/images/l1.cpio",
		.mem_mb = 2048, .cpus = 2, .boot_timeout_s = 120, .step_timeout_s = 86400,
		.run_timeout_s = 3600,
	} };
	sbuf_puts(&s->append, "");
	/* "+": options end at the first word that is none, CMD's own are CMD's */
	while (!bad && (c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': s->lab.kernel = optarg; break;
		case 'i': s->lab.initrd = optarg; break;
		case 'V': s->libvirt = true; break;
		case 'p': bad = parse_number(optarg, "--cpus", 1, 64, &s->lab.cpus); break;
		case 'm': bad = parse_number(optarg, "--mem", 256, 65536, &s->lab.mem_mb); break;
		case 'T': bad = parse_number(optarg, "--timeout", 1, 86400, &s->lab.run_timeout_s); break;
		case 'a': sbuf_printf(&s->append, " %s", optarg); break;
		case 'P': s->policy = optarg; bad = !run; break;
		case 'M': s->mode = optarg; bad = !run; break;
		case 'h': session_usage(stdout); return 1;
		default: bad = -1; break;
		}
	}
	if (bad) {
		session_usage(stderr);
		return -1;
	}
	if (getenv("QEMU") && *getenv("QEMU"))
		s->lab.qemu = getenv("QEMU");
	if (getenv("QBOOT") && *getenv("QBOOT"))
		s->lab.bios = getenv("QBOOT");
	return 0;
}

/* libvirt's layer: l1-libvirt.cpio beside the initramfs */
static char *libvirt_layer_path(const char *initrd)
{
	char *dir = xstrdup(initrd), *slash = strrchr(dir, '/'), *path;

	if (slash)
		slash[1] = '\0';
	path = xasprintf("%sl1-libvirt.cpio", slash ? dir : "");
	free(dir);
	return path;
}

/* The kernel and image are there, and the accelerator is chosen; an exit status or -1. */
static int session_ready(struct session *s)
{
	struct accel_choice ac;
	char *cpuinfo;
	int ret;

	if (access(s->lab.kernel, R_OK) || access(s->lab.initrd, R_OK)) {
		fprintf(stderr, "tunlab: %s: %s (build it with `make kernel images`)\n",
			access(s->lab.kernel, R_OK) ? s->lab.kernel : s->lab.initrd, strerror(errno));
		return TL_EXIT_SETUP;
	}
	if (s->libvirt) {
		s->lab.libvirt_layer = libvirt_layer_path(s->lab.initrd);
		if (access(s->lab.libvirt_layer, R_OK)) {
			fprintf(stderr, "tunlab: %s: %s (build it with `make images`)\n",
				s->lab.libvirt_layer, strerror(errno));
			return TL_EXIT_SETUP;
		}
	}
	cpuinfo = read_file("/proc/cpuinfo", NULL);
	ret = accel_choose(getenv("ACCEL"), cpuinfo, smoke, &s->lab, &ac);
	free(cpuinfo);
	if (ret < 0) {
		fprintf(stderr, "tunlab: %s\n", ac.reason);
		return TL_EXIT_USAGE;
	}
	s->lab.accel = ac.accel;
	return -1;
}

/*
 * @path: the archives @first and @second, one after the other (the kernel
 * unpacks them in turn); -1 after a message.
 */
static int concat_archives(const char *first, const char *second, const char *path)
{
	size_t len1, len2;
	char *a = read_file(first, &len1), *b = a ? read_file(second, &len2) : NULL;
	struct sbuf all = { 0 };
	static const char zeros[4];
	int ret = -1;

	if (b) {
		sbuf_add(&all, a, len1);
		if (all.len % 4)
			sbuf_add(&all, zeros, 4 - all.len % 4);
		sbuf_add(&all, b, len2);
		ret = write_file(path, all.buf, all.len);
	}
	if (ret < 0)
		fprintf(stderr, "tunlab: cannot join %s and %s into %s: %s\n", first, second, path,
			strerror(errno));
	free(a);
	free(b);
	sbuf_free(&all);
	return ret;
}

/* The terminal's size as L1's shell is to take it: "ROWSxCOLS", or "1". */
static char *terminal_size(void)
{
	struct winsize ws;

	if (ioctl(0, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		return xasprintf("%ux%u", ws.ws_row, ws.ws_col);
	return xstrdup("1");
}

/*
 * The status of an "exit" record from the results connection @fd, read
 * to its end (L1 powers off after it); -1 when none came.
 */
static int read_exit_record(int fd)
{
	struct sbuf buf = { 0 };
	char data[512];
	int code = -1;
	ssize_t n;

	while ((n = read(fd, data, sizeof(data))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			sbuf_add(&buf, data, (size_t)n);
	for (char *line = buf.buf, *nl; line && *line; line = nl + 1) {
		char *f[PROTO_MAX_FIELDS];

		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		if (proto_split(line, f, PROTO_MAX_FIELDS) >= 2 && !strcmp(f[0], "exit"))
			code = atoi(f[1]);
	}
	sbuf_free(&buf);
	return code;
}

/* L1's results connection, once QEMU makes it; -1 when QEMU ends or the boot times out. */
static int accept_results(int listen_fd, pid_t qemu, int timeout_s, int *status)
{
	double deadline = now_ms() + timeout_s * 1000.0;

	while (now_ms() < deadline) {
		struct pollfd p = { .fd = listen_fd, .events = POLLIN };

		if (waitpid(qemu, status, WNOHANG) == qemu)
			return -1;
		if (poll(&p, 1, 200) > 0)
			return accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	}
	return -1;
}

int shell_command(int argc, char **argv)
{
	struct session s;
	char tmp[] = "/tmp/tunlab-shell.XXXXXX", *sock, *size, **qargv, *initrd = NULL;
	int ret = session_options(argc, argv, &s, false), listen_fd, fd, status = 0, code;
	double t0 = now_ms();
	pid_t pid;

	if (ret)
		return ret > 0 ? TL_EXIT_PASS : TL_EXIT_USAGE;
	if (optind < argc) {
		fprintf(stderr, "tunlab shell: unexpected '%s'\n", argv[optind]);
		return TL_EXIT_USAGE;
	}
	ret = session_ready(&s);
	if (ret >= 0)
		return ret;
	if (!mkdtemp(tmp)) {
		fprintf(stderr, "tunlab shell: mkdtemp: %s\n", strerror(errno));
		return TL_EXIT_SETUP;
	}
	/* with libvirt's layer, the image the shell boots is both */
	if (s.libvirt) {
		initrd = xasprintf("%s/initrd", tmp);
		if (concat_archives(s.lab.initrd, s.lab.libvirt_layer, initrd) < 0) {
			free(initrd);
			rmdir(tmp);
			return TL_EXIT_SETUP;
		}
		s.lab.initrd = initrd;
	}
	sock = xasprintf("%s/results.sock", tmp);
	listen_fd = listen_unix(sock);
	size = terminal_size();
	/* the shell, not KUnit or the KTAP programs */
	sbuf_printf(&s.append, " tunlab.shell=%s tunlab.kunit=0 tunlab.ktap=", size);
	qargv = l1_qemu_argv(&(struct l1_config){
		.qemu = s.lab.qemu, .bios = s.lab.bios, .kernel = s.lab.kernel,
		.initrd = s.lab.initrd, .results_socket = sock, .cmdline_extra = s.append.buf,
		.accel = s.lab.accel, .mem_mb = s.lab.mem_mb, .cpus = s.lab.cpus });
	pid = listen_fd < 0 ? -1 : spawn(&(struct spawn){ .argv = qargv, .path = NULL,
				.inherit_stdio = true, .die_with_parent = true }, NULL);
	argv_free(qargv);
	if (pid > 0)
		fprintf(stderr, "tunlab shell: booting L1 (QEMU pid %d, %s, %d MiB, %d cpu); this terminal is its console\n",
			(int)pid, accel_name(s.lab.accel), s.lab.mem_mb, s.lab.cpus);
	code = -1;
	if (pid > 0) {
		fd = accept_results(listen_fd, pid, s.lab.boot_timeout_s, &status);
		if (fd >= 0) {
			code = read_exit_record(fd);
			close(fd);
		} else {
			kill(pid, SIGKILL);
		}
		waitpid(pid, &status, 0);
	}
	if (listen_fd >= 0)
		close(listen_fd);
	unlink(sock);
	if (initrd)
		unlink(initrd);
	free(initrd);
	rmdir(tmp);
	if (code < 0)
		fprintf(stderr, "tunlab shell: L1 ended without the shell's status (%s)\n",
			pid < 0 ? strerror(errno) : "see its console above");
	else
		fprintf(stderr, "tunlab shell: L1 is off after %.1f s; the shell's status was %d\n",
			(now_ms() - t0) / 1000.0, code);
	free(size);
	free(sock);
	sbuf_free(&s.append);
	return code < 0 ? TL_EXIT_SETUP : code;
}

/*
 * A program of an L1 image or layer: @name is a path in it, or a name its
 * /usr/bin, /sbin or /bin holds.
 */
static bool archive_has(const char *image, const char *name)
{
	static const char *const dirs[] = { "usr/bin/", "sbin/", "bin/" };
	size_t len, off = 0;
	char *cpio = read_file(image, &len);
	bool found = false;

	/* newc: "070701", 13 fields of 8 hex digits, the name, the data; 4-aligned */
	while (cpio && !found && off + 110 <= len && !memcmp(cpio + off, "070701", 6)) {
		char field[9] = { 0 };
		unsigned long size, namesize;
		const char *entry = cpio + off + 110;

		memcpy(field, cpio + off + 54, 8);
		size = strtoul(field, NULL, 16);
		memcpy(field, cpio + off + 94, 8);
		namesize = strtoul(field, NULL, 16);
		if (off + 110 + namesize > len)
			break;
		if (!strncmp(entry, "./", 2))
			entry += 2;
		if (name[0] == '/')
			found = !strcmp(entry, name + 1);
		for (size_t d = 0; d < ARRAY_SIZE(dirs) && !found && name[0] != '/'; d++)
			found = !strncmp(entry, dirs[d], strlen(dirs[d])) &&
				!strcmp(entry + strlen(dirs[d]), name);
		off = (off + 110 + namesize + 3) & ~3UL;
		off = (off + size + 3) & ~3UL;
	}
	free(cpio);
	return found;
}

/* A program of the image tunlab run boots (with libvirt's layer when asked). */
static bool image_has(const struct session *s, const char *name)
{
	char *layer = s->libvirt ? libvirt_layer_path(s->lab.initrd) : NULL;
	bool found = archive_has(s->lab.initrd, name) || (layer && archive_has(layer, name));

	free(layer);
	return found;
}

/*
 * A policy tunguard will take the shape of: each rule starts with allow,
 * deny or default (the kernel checks the rest when it is written); a line
 * that does not is a usage error before anything boots.
 */
static int check_policy(const char *path, const char *text)
{
	int line = 1;

	for (const char *p = text; *p; line++) {
		size_t len = strcspn(p, "\n"), skip = strspn(p, " \t");

		if (skip < len && p[skip] != '#' && strncmp(p + skip, "allow", 5) &&
		    strncmp(p + skip, "deny", 4) && strncmp(p + skip, "default", 7)) {
			fprintf(stderr, "%s:%d:%zu: a tunguard rule starts with allow, deny or default\n",
				path, line, skip + 1);
			return -1;
		}
		p += len + (p[len] == '\n');
	}
	return 0;
}

/*
 * The bundle's tunlab/run/: the arguments (each ended by a NUL), the
 * policy and mode, and a host program carried in; -1 after a message.
 */
static int run_archive(const struct session *s, char **cmd, int ncmd, const char *path)
{
	struct cpio_writer w = { 0 };
	struct sbuf args = { 0 };
	char *carried = NULL, *prog = NULL;
	size_t len;
	int ret = -1;

	cpio_add_dir(&w, "tunlab");
	cpio_add_dir(&w, RUN_BUNDLE);
	if (strchr(cmd[0], '/') && (cmd[0][0] != '/' || !image_has(s, cmd[0]) ||
				    access(cmd[0], F_OK) == 0)) {
		struct stat st;
		const char *base = strrchr(cmd[0], '/') + 1;

		errno = 0;
		if (stat(cmd[0], &st) < 0 || !S_ISREG(st.st_mode) || access(cmd[0], X_OK)) {
			fprintf(stderr, "tunlab run: %s: %s (neither a program of this host nor a path in L1's image)\n",
				cmd[0], errno ? strerror(errno) : "not an executable file");
			goto out;
		}
		carried = read_file(cmd[0], &len);
		if (!carried || !*base) {
			fprintf(stderr, "tunlab run: %s: %s\n", cmd[0], strerror(errno));
			goto out;
		}
		prog = xasprintf("/" RUN_BUNDLE "/bin/%s", base);
		cpio_add_dir(&w, RUN_BUNDLE "/bin");
		cpio_add_file(&w, prog + 1, carried, len, 0755);
	} else if (!strchr(cmd[0], '/') && !image_has(s, cmd[0])) {
		fprintf(stderr, "tunlab run: %s: not in L1's /usr/bin, /sbin or /bin (%s); a program of this host needs its path, e.g. ./%s\n",
			cmd[0], s->lab.initrd, cmd[0]);
		goto out;
	}
	sbuf_add(&args, prog ? prog : cmd[0], strlen(prog ? prog : cmd[0]) + 1);
	for (int i = 1; i < ncmd; i++)
		sbuf_add(&args, cmd[i], strlen(cmd[i]) + 1);
	cpio_add_file(&w, RUN_BUNDLE "/argv", args.buf, args.len, 0644);
	if (s->policy) {
		char *text = read_file(s->policy, &len);

		if (!text) {
			fprintf(stderr, "tunlab run: --policy %s: %s\n", s->policy, strerror(errno));
			goto out;
		}
		if (check_policy(s->policy, text) < 0) {
			free(text);
			goto out;
		}
		cpio_add_file(&w, RUN_BUNDLE "/policy", text, len, 0644);
		free(text);
	}
	if (s->mode)
		cpio_add_file(&w, RUN_BUNDLE "/mode", s->mode, strlen(s->mode), 0644);
	cpio_finish(&w);
	ret = write_file(path, w.out.buf, w.out.len);
	if (ret < 0)
		fprintf(stderr, "tunlab run: %s: %s\n", path, strerror(errno));
out:
	free(carried);
	free(prog);
	sbuf_free(&args);
	sbuf_free(&w.out);
	return ret;
}

int run_command(int argc, char **argv)
{
	struct session s;
	char tmp[] = "/tmp/tunlab-run.XXXXXX", *archive;
	struct plan plan = { 0 };
	struct run_result r;
	int ret = session_options(argc, argv, &s, true), code;

	if (ret)
		return ret > 0 ? TL_EXIT_PASS : TL_EXIT_USAGE;
	if (optind >= argc) {
		fputs("tunlab run: name the program after the options: tunlab run [options] -- CMD ARGS...\n",
		      stderr);
		return TL_EXIT_USAGE;
	}
	if (s.mode && strcmp(s.mode, "enforce") && strcmp(s.mode, "permissive") &&
	    strcmp(s.mode, "off")) {
		fprintf(stderr, "tunlab run: --mode: expected enforce, permissive or off, got '%s'\n",
			s.mode);
		return TL_EXIT_USAGE;
	}
	if (!mkdtemp(tmp)) {
		fprintf(stderr, "tunlab run: mkdtemp: %s\n", strerror(errno));
		return TL_EXIT_SETUP;
	}
	archive = xasprintf("%s/run.cpio", tmp);
	if (run_archive(&s, argv + optind, argc - optind, archive) < 0) {
		unlink(archive);
		rmdir(tmp);
		free(archive);
		return TL_EXIT_USAGE;
	}
	ret = session_ready(&s);
	/* libvirt's layer goes in with the program (no scenario asks for it) */
	if (ret < 0 && s.libvirt) {
		char *joined = xasprintf("%s/run+libvirt.cpio", tmp);

		if (concat_archives(s.lab.libvirt_layer, archive, joined) < 0 ||
		    rename(joined, archive) < 0)
			ret = TL_EXIT_SETUP;
		unlink(joined);
		free(joined);
	}
	if (ret >= 0) {
		unlink(archive);
		rmdir(tmp);
		free(archive);
		return ret;
	}
	/* the program's output alone on stdout */
	say_to = stderr;
	sbuf_puts(&s.append, " tunlab.kunit=0 tunlab.ktap=");
	s.lab.cmdline_extra = s.append.buf;
	s.lab.extra_archive = archive;
	s.lab.run_dir = tmp;
	run_init(&r, NULL, 0);
	/* ^C or a TERM (a scheduler's cancel) stops L1, whose QEMU has a process group of its own */
	signal(SIGINT, lab_interrupt);
	signal(SIGTERM, lab_interrupt);
	lab_run(&s.lab, &plan, &r);
	code = r.session_exit;
	if (lab_interrupted()) {
		code = TL_EXIT_SIGNAL + lab_interrupted();
		fprintf(stderr, "tunlab run: interrupted (SIG%s); L1 stopped; its console is in %s\n",
			sigabbrev_np(lab_interrupted()), tmp);
	} else if (code < 0) {
		code = r.crash_kind ? TL_EXIT_CRASH : r.infra_result == TL_TIMEOUT ?
			TL_EXIT_TIMEOUT : TL_EXIT_SETUP;
		fprintf(stderr, "tunlab run: no status from L1%s%s; its console is in %s\n",
			r.infra_error ? ": " : "", r.infra_error ? r.infra_error : "", tmp);
	} else {
		char *log = xasprintf("%s/l1-console.log", tmp), *err = xasprintf("%s/qemu-stderr.log", tmp);

		unlink(log);
		unlink(err);
		unlink(archive);
		rmdir(tmp);
		free(log);
		free(err);
	}
	run_free(&r);
	free(archive);
	sbuf_free(&s.append);
	return code;
}
