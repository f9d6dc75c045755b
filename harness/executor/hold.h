/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TUNLAB_HOLD_H
#define TUNLAB_HOLD_H

/* Hang a process group in a ptrace-stop: tunlab-exec --hold (hold.c). */
int hold_main(const char *pgid_arg, const char *seconds_arg);

#endif
