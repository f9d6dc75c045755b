// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: a person's shell on L1's console, and tunlab run's program.
 * The shell gets the serial console as its controlling terminal, so the
 * Ctrl-C that QEMU passes through (its stdio has signal=off) interrupts
 * what runs in L1, never the runner on L0.
 */
#include "session.h"
#include "run.h"
#include "tunguard.h"
#include "common/proto.h"
#include "common/verdict.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define SHELL_TTY "/dev/ttyS0"
/* tunlab run's program runs until L0's own timeout stops L1 */
#define RUN_TIMEOUT_S (7 * 24 * 3600)

static void emit_exit(struct exec_ctx *x, int code)
{
	char c[16];

	snprintf(c, sizeof(c), "%d", code);
	proto_emit(x->out, "exit", 1, c);
}

/* One line that says where the user is, what is at hand and how to leave. */
static void banner(int fd)
{
	char *lsm = read_file("/sys/kernel/security/lsm", NULL);
	struct utsname uts;

	uname(&uts);
	dprintf(fd, "tunlab shell: L1, kernel %s, lsm %s; ip, qemu-system-x86_64, "
		"tunlab-exec, kvm-probes, tgcheck at hand, tunguard policies in /etc/tunguard; "
		"'exit' or Ctrl-D leaves (L1 powers off, its status is tunlab's)\n",
		uts.release, lsm ? lsm : "?");
	free(lsm);
}

static void __attribute__((noreturn)) shell_child(const char *size)
{
	struct winsize ws = { 0 };
	int fd;

	setsid();
	fd = open(SHELL_TTY, O_RDWR);
	if (fd < 0 || ioctl(fd, TIOCSCTTY, 0) < 0) {
		fprintf(stderr, "tunlab-exec: %s as the shell's terminal: %s\n", SHELL_TTY,
			strerror(errno));
		_exit(127);
	}
	/* the user's terminal size, so editors and ls fit it */
	if (sscanf(size, "%hux%hu", &ws.ws_row, &ws.ws_col) == 2)
		ioctl(fd, TIOCSWINSZ, &ws);
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
	banner(1);
	if (chdir("/") == 0)
		setenv("HOME", "/", 1);
	setenv("TERM", getenv("TERM") ? getenv("TERM") : "vt100", 1);
	/* a login shell: it reads /etc/profile */
	execl("/bin/sh", "-sh", (char *)NULL);
	fprintf(stderr, "tunlab-exec: exec /bin/sh: %s\n", strerror(errno));
	_exit(127);
}

void shell_session(struct exec_ctx *x, const char *size)
{
	int status;
	pid_t pid;

	fflush(x->out);
	pid = fork();
	if (pid == 0)
		shell_child(size);
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		emit_exit(x, KSFT_NOT_STARTED);
		return;
	}
	emit_exit(x, ksft_code(status));
}

/* SESSION_RUN_DIR/argv: the arguments, each ended by a NUL. */
static char **read_argv(void)
{
	size_t len;
	char *text = read_file(SESSION_RUN_DIR "/argv", &len), **argv = NULL;
	int n = 0;

	for (size_t i = 0; text && i < len; i += strlen(text + i) + 1) {
		argv = xrealloc(argv, sizeof(char *) * (size_t)(n + 2));
		argv[n++] = xstrdup(text + i);
	}
	if (argv)
		argv[n] = NULL;
	free(text);
	return argv;
}

static void say_out(struct exec_ctx *x, const char *line)
{
	proto_emit(x->out, "out", 3, "-", "-", line);
}

void run_session(struct exec_ctx *x)
{
	char *policy = read_file(SESSION_RUN_DIR "/policy", NULL);
	char *mode = read_file(SESSION_RUN_DIR "/mode", NULL);
	struct scn_actor root = { .root = true };
	char **argv = read_argv();
	struct sbuf why = { 0 };
	struct run_tap tap;
	bool timed_out;
	int status;

	if (mode)
		mode[strcspn(mode, "\n")] = '\0';
	sbuf_puts(&why, "");
	if (!argv) {
		say_out(x, "tunlab run: no program in the bundle");
		emit_exit(x, 2);
	} else if ((policy || mode) && tg_apply(policy, mode, &why) < 0) {
		char *msg = xasprintf("tunlab run: tunguard: %s", why.buf);

		say_out(x, msg);
		free(msg);
		emit_exit(x, 2);
	} else {
		status = run_streamed(x, argv, &root, -1, 0, RUN_TIMEOUT_S, &timed_out, &tap);
		if (status < 0) {
			char *msg = xasprintf("tunlab run: %s: %s", argv[0], strerror(errno));

			say_out(x, msg);
			free(msg);
		}
		emit_exit(x, status < 0 ? KSFT_NOT_STARTED : ksft_code(status));
	}
	for (int i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
	free(policy);
	free(mode);
	sbuf_free(&why);
}
