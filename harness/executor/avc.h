/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SELinux AVC records against what a step expects, and the LSM order a
 * scenario asks for: text in, verdict out (the unit tests check them).
 */
#ifndef TUNLAB_AVC_H
#define TUNLAB_AVC_H

#include <stdbool.h>

#include "common/scenario.h"

/*
 * An AVC record line as the audit stream gives it, the "audit(...): "
 * prefix dropped ("avc: denied { create } for pid=7 ... tclass=tun_socket
 * permissive=0"), against one expected record: the same verdict, the
 * same set of permissions, and each field given equal (a bare type
 * matches the type of a context).
 */
bool avc_matches(const struct scn_avc *a, const char *rec);
/* Whether the active LSM list @active ("capability,tunguard,selinux")
 * has @want's two modules ("tunguard,selinux") in that order. */
bool lsm_order_holds(const char *want, const char *active);

#endif
