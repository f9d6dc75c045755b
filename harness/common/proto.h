/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The results port protocol between the L1 executor and the L0 runner:
 * one record per line, fields separated by tabs, with '\\', '\t' and '\n'
 * escaped inside fields. Records (first field is the type):
 *
 *   hello   PROTO KERNEL-RELEASE FEATURES LSMS  executor is up
 *   begin   IDX                                 scenario IDX of the plan starts
 *   step    IDX STEP RESULT MS MESSAGE RECORDS  one step finished; RECORDS are
 *                                               the decision records it made
 *                                               ("-": not checked)
 *   end     IDX RESULT MS REASON                scenario finished
 *   log     IDX SOURCE LINE                     a line of an L2 console
 *   out     IDX STEP LINE                       a line run step STEP's program
 *                                               wrote ("- -": tunlab run's)
 *   exit    STATUS                              tunlab run's program or tunlab
 *                                               shell's shell ended so
 *   ktap    SOURCE LINE                         a KTAP line of suite SOURCE
 *   suite   SOURCE STATUS MS                    suite SOURCE ended (-1: no status)
 *   gcov    PATH BASE64                         a kernel gcov counter file
 *                                               (tunlab.gcov=1): its path
 *                                               under /sys/kernel/debug/gcov,
 *                                               its bytes (common/base64.h)
 *   done                                        the whole plan ran
 */
#ifndef TUNLAB_PROTO_H
#define TUNLAB_PROTO_H

#include <stdbool.h>
#include <stdio.h>

#define PROTO_VERSION "1"
#define PROTO_MAX_FIELDS 8

/* Write one record; fields are escaped. Returns -1 on write error. */
int proto_emit(FILE *out, const char *type, int nfields, ...);

/*
 * Split @line (no trailing newline) in place into at most @max fields,
 * unescaping each. Returns the number of fields.
 */
int proto_split(char *line, char **fields, int max);

/*
 * The KTAP programs L1 runs are the runner's tunlab.ktap= spec on L1's
 * kernel command line: NAME[:ARG,ARG...][;NAME...]. Whether @spec (NULL:
 * every program) selects @name, with up to @max of its arguments put in
 * @args (the caller frees them) and counted in @nargs.
 */
bool proto_ktap_selects(const char *spec, const char *name, char **args, int max, int *nargs);

#endif
