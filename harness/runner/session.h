/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tunlab shell and tunlab run: one L1 for one person or one program,
 * whose exit status becomes tunlab's.
 */
#ifndef TUNLAB_SESSION_RUNNER_H
#define TUNLAB_SESSION_RUNNER_H

/* tunlab shell [options]: L1's console is the terminal; the shell's status. */
int shell_command(int argc, char **argv);
/* tunlab run [options] -- CMD ARGS...: CMD in L1, its output streamed; its status. */
int run_command(int argc, char **argv);

#endif
