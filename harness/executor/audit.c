// SPDX-License-Identifier: GPL-2.0
/*
 * The audit stream over NETLINK_AUDIT (see audit.h). The kernel sends
 * each record as a datagram of its own, and records unicast to the
 * daemon carry an nlmsg_len without the header (kernel/audit.c,
 * audit_log_end()), so a record's length is taken from recv(), not from
 * its header.
 */
#include "audit.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* enough for every record a step makes and then some: the daemon reads
 * between steps only */
#define AUDIT_RCVBUF (8 << 20)
#define AUDIT_BACKLOG 8192
#define AUDIT_MARK_TIMEOUT_MS 10000

/* the largest record the kernel sends (libaudit's MAX_AUDIT_MESSAGE_LENGTH) */
#define AUDIT_PAYLOAD_MAX 8970
#define AUDIT_MSG_MAX (NLMSG_HDRLEN + AUDIT_PAYLOAD_MAX)

static int audit_send(struct audit_stream *as, int type, const void *data, size_t len)
{
	char buf[NLMSG_SPACE(AUDIT_PAYLOAD_MAX)] = { 0 };
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	if (len > AUDIT_PAYLOAD_MAX) {
		errno = EMSGSIZE;
		return -1;
	}
	nlh->nlmsg_len = NLMSG_LENGTH(len);
	nlh->nlmsg_type = (unsigned short)type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++as->seq;
	if (len)
		memcpy(NLMSG_DATA(nlh), data, len);
	if (sendto(as->fd, buf, nlh->nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) != (ssize_t)nlh->nlmsg_len)
		return -1;
	return 0;
}

/*
 * One datagram within @timeout_ms: its type, payload and payload length
 * (NUL-terminated). 0 on timeout, -1 with errno on error, else 1.
 */
static int audit_recv(struct audit_stream *as, char *buf, size_t size, int timeout_ms,
		      int *type, char **data, size_t *len)
{
	struct pollfd pfd = { .fd = as->fd, .events = POLLIN };
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	ssize_t n;
	int r = poll(&pfd, 1, timeout_ms);

	if (r <= 0)
		return r;
	n = recv(as->fd, buf, size - 1, 0);
	if (n < 0)
		return -1;
	if ((size_t)n < NLMSG_HDRLEN) {
		errno = EPROTO;
		return -1;
	}
	buf[n] = '\0';
	*type = nlh->nlmsg_type;
	*data = buf + NLMSG_HDRLEN;
	*len = (size_t)n - NLMSG_HDRLEN;
	return 1;
}

/*
 * Wait for the kernel's answer to the last request (AUDIT_GET's status
 * into @status, then the ACK): 0, or -1 with errno.
 */
static int audit_wait_ack(struct audit_stream *as, struct audit_status *status)
{
	static char buf[AUDIT_MSG_MAX + 1];
	char *data;
	size_t len;
	int type, r;

	for (;;) {
		r = audit_recv(as, buf, sizeof(buf), AUDIT_MARK_TIMEOUT_MS, &type, &data, &len);
		if (r == 0)
			errno = ETIMEDOUT;
		if (r <= 0)
			return -1;
		if (((struct nlmsghdr *)buf)->nlmsg_seq != as->seq)
			continue;	/* a record, not our answer */
		if (type == AUDIT_GET && status && len >= sizeof(*status)) {
			memcpy(status, data, sizeof(*status));
			continue;	/* the ACK follows */
		}
		if (type == NLMSG_ERROR && len >= sizeof(struct nlmsgerr)) {
			const struct nlmsgerr *e = (const struct nlmsgerr *)data;

			if (e->error) {
				errno = -e->error;
				return -1;
			}
			return 0;
		}
	}
}

/* The kernel's count of records it lost (backlog full, no daemon). */
static int audit_lost(struct audit_stream *as, unsigned int *lost)
{
	struct audit_status s = { 0 };

	if (audit_send(as, AUDIT_GET, NULL, 0) < 0 || audit_wait_ack(as, &s) < 0)
		return -1;
	*lost = s.lost;
	return 0;
}

int audit_open(struct audit_stream *as, char *why, size_t size)
{
	struct audit_status s = {
		.mask = AUDIT_STATUS_ENABLED | AUDIT_STATUS_PID | AUDIT_STATUS_BACKLOG_LIMIT |
			AUDIT_STATUS_RATE_LIMIT,
		.enabled = 1,
		.pid = (unsigned int)getpid(),
		.backlog_limit = AUDIT_BACKLOG,
		.rate_limit = 0,
	};
	int rcvbuf = AUDIT_RCVBUF;

	memset(as, 0, sizeof(*as));
	as->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (as->fd < 0) {
		snprintf(why, size, "socket(NETLINK_AUDIT): %s", strerror(errno));
		return -1;
	}
	if (setsockopt(as->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0) {
		snprintf(why, size, "setsockopt(NETLINK_AUDIT, SO_RCVBUFFORCE, %d): %s", rcvbuf,
			 strerror(errno));
		goto out_close;
	}
	if (audit_send(as, AUDIT_SET, &s, sizeof(s)) < 0 || audit_wait_ack(as, NULL) < 0) {
		snprintf(why, size, "registering as the audit daemon (AUDIT_SET pid=%u): %s",
			 s.pid, strerror(errno));
		goto out_close;
	}
	/* what was lost before there was a daemon is not the lab's loss */
	if (audit_lost(as, &as->lost) < 0) {
		snprintf(why, size, "AUDIT_GET: %s", strerror(errno));
		goto out_close;
	}
	return 0;

out_close:
	close(as->fd);
	as->fd = -1;
	return -1;
}

/* "audit(1733.123:45): avc:  denied  { create } for  pid=1" -> "avc: denied { create } for pid=1" */
static void add_record(struct sbuf *records, const char *text)
{
	const char *p = strstr(text, "): ");
	bool space = false;

	p = p ? p + 3 : text;
	if (records->len)
		sbuf_puts(records, "\n");
	for (; *p && *p != '\n'; p++) {
		if (*p == ' ') {
			space = true;
			continue;
		}
		if (space)
			sbuf_puts(records, " ");
		space = false;
		sbuf_add(records, p, 1);
	}
}

int audit_sync(struct audit_stream *as, struct sbuf *records, char *why, size_t size)
{
	static char buf[AUDIT_MSG_MAX + 1];
	char mark[48], *data;
	unsigned int lost;
	size_t len;
	int type, r;

	if (as->fd < 0) {
		snprintf(why, size, "the audit stream is not open");
		return -1;
	}
	snprintf(mark, sizeof(mark), "tunlab-mark=%u", ++as->mark);
	if (audit_send(as, AUDIT_USER, mark, strlen(mark) + 1) < 0) {
		snprintf(why, size, "sending audit mark %u: %s", as->mark, strerror(errno));
		return -1;
	}
	for (;;) {
		r = audit_recv(as, buf, sizeof(buf), AUDIT_MARK_TIMEOUT_MS, &type, &data, &len);
		if (r == 0) {
			snprintf(why, size, "the audit stream is lost: mark %u did not come back within %d s",
				 as->mark, AUDIT_MARK_TIMEOUT_MS / 1000);
			return -1;
		}
		if (r < 0) {
			snprintf(why, size, "reading the audit stream: %s", strerror(errno));
			return -1;
		}
		if (type == NLMSG_ERROR && ((struct nlmsgerr *)data)->error) {
			snprintf(why, size, "audit mark %u refused: %s", as->mark,
				 strerror(-((struct nlmsgerr *)data)->error));
			return -1;
		}
		if (type == AUDIT_USER && strstr(data, mark) &&
		    strchr(" '", strstr(data, mark)[strlen(mark)]))
			break;
		if ((type == AUDIT_AVC || type == AUDIT_SELINUX_ERR) && records)
			add_record(records, data);
	}
	if (audit_lost(as, &lost) < 0) {
		snprintf(why, size, "AUDIT_GET: %s", strerror(errno));
		return -1;
	}
	if (lost != as->lost) {
		snprintf(why, size, "the audit stream is lost: the kernel dropped %u records (backlog limit %d)",
			 lost - as->lost, AUDIT_BACKLOG);
		as->lost = lost;
		return -1;
	}
	return 0;
}

void audit_close(struct audit_stream *as)
{
	if (as->fd >= 0)
		close(as->fd);
	as->fd = -1;
}
