/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One L1 boot, shared by the boot loop (lab.c) and what reads L1's
 * results records and console lines into the result model (records.c).
 */
#ifndef TUNLAB_BOOT_H
#define TUNLAB_BOOT_H

#include <pthread.h>
#include <stdio.h>
#include <sys/types.h>

#include "console.h"
#include "lab.h"

/* With several L1s (--jobs), one lock over the run's shared results. */
extern pthread_mutex_t lab_lock;

struct vmx_queue;

/* An L1 after another until its share of the plan has run: one lane. */
struct lane {
	const struct lab_opts *o;
	const struct plan *plan;
	struct run_result *r;
	struct console_scan *l2_scans;	/* one per scenario */
	double deadline;		/* of the whole run */
	int lane, nlanes;		/* this lane runs scenarios with lane_of[i] == lane */
	const int *lane_of;
	struct vmx_queue *vmx;		/* after its share, boots of the VMX lane */
	pthread_t thread;
};

/* One L1 boot: its QEMU or Bochs, its console and its results connection. */
struct boot {
	const struct lab_opts *o;
	struct lane *lane;
	struct run_result *r;
	const char *machine;		/* "QEMU" or "Bochs", for messages */
	char *lane_name;		/* e.g. "qemu-tcg svm": names its suites */
	double panic_at;		/* when the console showed a kernel panic */
	pid_t pid;
	int console_fd;
	int listen_fd;
	int results_fd;
	/*
	 * Bochs: the stderr log where it names the pty it draws its screen on
	 * (NULL: none), and that pty, read and thrown away (-1: not open). Its
	 * debugger build writes the screen to a pty of its own; unread, the pty
	 * fills and Bochs, with the guest, stops in a write.
	 */
	char *screen_from;
	int screen_fd;
	struct sbuf console_buf;
	struct sbuf results_buf;
	FILE *console_log;
	struct console_scan scan;
	int inflight;			/* scenario index, -1 when none */
	int completed;			/* scenarios ended in this boot */
	int gcov_set;			/* its gcov counters' set (RUN/gcov/boot-N), 0: none */
	bool hello;
	bool done;
	double halted_at;		/* when the kernel halted, as it does when it cannot power off */
	double started;
	double last_record;
	char tmpdir[64];
};

/* How a boot's wait ended. */
enum boot_end {
	BOOT_DONE,
	BOOT_HALTED,		/* the kernel halted, the machine still running: stopped (the
				 * end of a boot when done, else a lost L1 as BOOT_EXITED is) */
	BOOT_EXITED,
	BOOT_PANICKED,		/* Bochs, which boots again after a panic: stopped */
	BOOT_TIMEOUT,
	BOOT_RUN_TIMEOUT,
	BOOT_INTERRUPTED,
	BOOT_SETUP,
};

/*
 * Until L1 is done, exits, hangs past a timeout, panics under Bochs, halts
 * when done or the run is interrupted; @why says why when it is not done.
 * The machine is then stopped with boot_kill() unless it ended by itself.
 */
enum boot_end boot_wait(struct boot *b, int *status, char **why);
void boot_kill(struct boot *b);
/* The console's unfinished last line, logged and scanned (under lab_lock). */
void boot_flush(struct boot *b);
void boot_close(struct boot *b);
/* "QEMU exited with status 1", from a wait status. */
char *boot_status_text(const char *machine, int status);
/* The run's first lab-level problem is the one it reports. */
void set_infra(struct run_result *r, enum tl_result res, const char *why);
/*
 * The VMX lane: L1 under Bochs once per kvm_intel setting (vmx.c). Its
 * boots are taken one at a time, by whichever lane is free of its share
 * first; lab_lock guards the queue.
 */
struct vmx_queue {
	int next;	/* the setting the next boot takes */
	bool stop;	/* a boot did not get through: no more */
};
/* The next boot of @q, if any is left (false: none was). */
bool vmx_lane_next(struct vmx_queue *q, const struct lab_opts *o, struct run_result *r,
		   struct lane *l);
/* The settings no boot took, reported as not run. */
void vmx_lane_end(struct vmx_queue *q, struct run_result *r);
/* The kernel command line of the VMX lane's boot under setting @n. */
char *vmx_cmdline(const struct lab_opts *o, int n);

/* A unix socket listening at @path for L1's results port; -1 with errno. */
int listen_unix(const char *path);

/* Progress on stdout (or say_to, when set), flushed at once. */
extern FILE *say_to;
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One record from the results port, into the result model. */
void results_record(struct boot *b, char *line);
/* One line of L1's console: logged, shown with --console, scanned. */
void console_line(struct boot *b, const char *line);
/* Scenario @idx ended (unless it had a result already). */
void end_scenario(struct boot *b, int idx, enum tl_result res, double ms, const char *reason);
void set_reason(struct scenario_result *sr, enum tl_result res, const char *why);

#endif
