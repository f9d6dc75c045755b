// SPDX-License-Identifier: GPL-2.0
/* l1-programs/lib: what the KTAP programs in L1 share. */
#include "check.h"
#include "l1-programs/lib/isolate.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

static int helper_pipe[2];

/* Starts a helper, as tgcheck's stress test does, then hangs. */
static int starts_a_helper_and_hangs(void *ctx)
{
	(void)ctx;
	if (fork() == 0) {
		/* holds the pipe's write end for as long as it lives */
		alarm(20);
		pause();
		_exit(0);
	}
	pause();
	return 0;
}

void test_timed_out_test_leaves_no_process_behind(void)
{
	struct pollfd p;
	char c;
	int status;

	CHECK_INT(pipe(helper_pipe), 0);
	status = isolate_run(starts_a_helper_and_hangs, NULL, 1);
	close(helper_pipe[1]);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM);
	/* end of file: no process holds the write end any more */
	p = (struct pollfd){ .fd = helper_pipe[0], .events = POLLIN };
	CHECK_INT(poll(&p, 1, 3000), 1);
	if (p.revents)
		CHECK_INT(read(helper_pipe[0], &c, 1), 0);
	close(helper_pipe[0]);
}

static int passes(void *ctx)
{
	return *(int *)ctx;
}

void test_isolated_test_status_is_its_return_value(void)
{
	int three = 3, status = isolate_run(passes, &three, 5);

	CHECK(WIFEXITED(status));
	CHECK_INT(WEXITSTATUS(status), 3);
}
