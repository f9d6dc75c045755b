/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The executor's sessions besides the plan, each ending with an "exit"
 * record whose status L0 returns: an interactive shell on L1's console
 * (tunlab shell, make shell) and one program (tunlab run).
 */
#ifndef TUNLAB_SESSION_H
#define TUNLAB_SESSION_H

#include "executor.h"

/* Where tunlab run's files are in the bundle: argv, policy, mode, bin/. */
#define SESSION_RUN_DIR "/tunlab/run"

/* A login shell on the console tty, sized @size ("ROWSxCOLS", or "1"). */
void shell_session(struct exec_ctx *x, const char *size);
/* The program of SESSION_RUN_DIR/argv, under its policy and mode. */
void run_session(struct exec_ctx *x);

#endif
