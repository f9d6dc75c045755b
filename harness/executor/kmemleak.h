/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kmemleak on a debug kernel (kernel/config/debug.extra): leaks found while
 * L1 ran the lab, reported as the "kmemleak" suite. Nothing happens on a
 * kernel without it.
 */
#ifndef TUNLAB_KMEMLEAK_H
#define TUNLAB_KMEMLEAK_H

#include "executor.h"

/*
 * Before anything of the lab runs: scan, note in @ktap what boot left
 * unreferenced (a failure only where TUN or tunguard allocated it) and
 * set it aside. Returns whether kmemleak is there.
 */
bool kmemleak_begin(struct sbuf *ktap);
/*
 * After the plan: scan again once the newest objects are old enough to be
 * reported, and emit the suite with @ktap's lines; every object leaked
 * since the start fails it.
 */
void kmemleak_end(struct exec_ctx *x, struct sbuf *ktap);
/*
 * The leaks in kmemleak's @report (one "unreferenced object" block each),
 * shown in @ktap as diagnostics (only those of TUN or tunguard with
 * @only_ours); *@ours counts those whose backtrace is in TUN or tunguard.
 */
int kmemleak_count(struct sbuf *ktap, const char *report, bool only_ours, int *ours);

#endif
