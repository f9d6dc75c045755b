/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network state a scenario works in: iproute2 steps, the links and named
 * network namespaces a group of scenarios leaves behind, and the network
 * namespace of its own a group runs in.
 */
#ifndef TUNLAB_NET_H
#define TUNLAB_NET_H

#include "executor.h"

/* Names of links or of named network namespaces at one moment. */
struct linkset {
	int n;
	char **names;
};

/* The links in /sys/class/net, the namespaces in /run/netns. */
void links_snapshot(struct linkset *l);
void netns_snapshot(struct linkset *l);
void links_free(struct linkset *l);
/*
 * Remove the named namespaces and the links that were not there before
 * (namespaces first: their devices go with them); what could not be
 * removed is appended to @why.
 */
void net_teardown(const struct linkset *links_before, const struct linkset *netns_before,
		  struct sbuf *why);

/* ip ARGS...: iproute2 as the actor, its errno read from its message. */
void ip_step(const struct scn_step *st, struct outcome *oc);

/*
 * Move this process into a network namespace of its own with its own
 * /sys and /run/netns, loopback up; -1 with @why.
 */
int enter_scenario_netns(struct sbuf *why);

#endif
