// SPDX-License-Identifier: GPL-2.0
/*
 * tgcheck: check the tunguard LSM from inside the lab kernel.
 *
 * Run as root in L1.  Each test runs in its own child process, leading its
 * own process group, with a timeout; when it ends the group is killed and
 * the fixture teardown (restore policy and mode, delete the tgc* devices)
 * runs in the parent after every test, whatever happened to it.
 * Output is KTAP v1 on stdout; exit 0 when all passed, 1 when any failed,
 * 4 when all were skipped.
 *
 * tgcheck --bench measures TUN operations per second with a 1000-rule
 * policy in enforce mode against mode off.
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/if.h>
#include <linux/if_tun.h>

#include "common/caps.h"
#include "common/errnames.h"
#include "common/ktap.h"
#include "common/verdict.h"
#include "l1-programs/lib/isolate.h"

#define TG_DIR		"/sys/kernel/security/tunguard"
#define TG_POLICY	TG_DIR "/policy"
#define TG_MODE		TG_DIR "/mode"
#define TG_DECISIONS	TG_DIR "/decisions"
#define TG_STATS	TG_DIR "/stats"
#define TUN_PATH	"/dev/net/tun"
#define TG_POLICY_MAX	(64 * 1024)

#define USER_A		1000	/* unprivileged ids the tests act as */
#define USER_B		1001
#define USER_C		1002
/*
 * The group they are all in, and the group of every persistent device
 * they attach. A device with no owner and no group admits anyone on 6.1
 * but only CAP_NET_ADMIN on 6.12 (tun.c's tun_permitted()); one with a
 * group admits its members on both, so the tests mean the same on both.
 */
#define TGC_GROUP	1100

/* ---- test harness ------------------------------------------------------ */

struct test {
	const char *name;
	void (*fn)(void);
	unsigned int timeout;	/* seconds */
};

/* State of the test running in this (child) process. */
static int t_result = KSFT_PASS;

/* Output goes out line by line: a test that hangs keeps what it printed. */
static struct sbuf out;

static void vdiag(const char *prefix, const char *fmt, va_list ap)
{
	struct sbuf msg = { 0 };

	sbuf_puts(&msg, prefix);
	sbuf_vprintf(&msg, fmt, ap);
	ktap_diag(&out, 0, msg.buf);
	ktap_put(stdout, &out);
	sbuf_free(&msg);
}

static void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag("", fmt, ap);
	va_end(ap);
}

static void t_fail_at(int line, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void t_fail_at(int line, const char *fmt, ...)
{
	char where[32];
	va_list ap;

	snprintf(where, sizeof(where), "tgcheck.c:%d: ", line);
	va_start(ap, fmt);
	vdiag(where, fmt, ap);
	va_end(ap);
	t_result = KSFT_FAIL;
}

/* Check a condition; report what was expected on failure and go on. */
#define EXPECT(cond, ...)						\
	do {								\
		if (!(cond))						\
			t_fail_at(__LINE__, __VA_ARGS__);		\
	} while (0)

/* Check a condition the rest of the test depends on; stop on failure. */
#define ASSERT(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			t_fail_at(__LINE__, __VA_ARGS__);		\
			exit(KSFT_FAIL);				\
		}							\
	} while (0)

/* Expect a call returning 0 or -errno to give @want (both evaluated once). */
#define EXPECT_ERR(got, want, what)					\
	do {								\
		int _got = (got), _want = (want);			\
		EXPECT(_got == _want, "%s: got %s, expected %s", (what),	\
		       errname(_got), errname(_want));			\
	} while (0)

#define ASSERT_OK(got, what)						\
	do {								\
		int _got = (got);					\
		ASSERT(_got == 0, "%s: %s", (what), strerror(-_got));	\
	} while (0)

/* "EACCES (Permission denied)" for -EACCES, "success" for 0. */
static const char *errname(int err)
{
	static char buf[4][96];
	static int next;
	const char *name = errno_name(-err);
	char *out = buf[next++ % 4];

	if (!err)
		return "success";
	snprintf(out, sizeof(buf[0]), "%s (%s)", name ? name : "E?", strerror(-err));
	return out;
}

/* Monotonic time in seconds. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- files ------------------------------------------------------------- */

/* Read a whole (small) file; returns length or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	err = n < 0 ? -errno : 0;
	close(fd);
	buf[len] = '\0';
	return err ? err : (ssize_t)len;
}

/* Write @len bytes in a single write(); returns 0 or -errno. */
static int write_once(const char *path, const char *data, size_t len)
{
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, data, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	close(fd);
	return err;
}

static int policy_load(const char *text)
{
	return write_once(TG_POLICY, text, strlen(text));
}

static int mode_set(const char *mode)
{
	return write_once(TG_MODE, mode, strlen(mode));
}

#define LOAD_POLICY(text)						\
	do {								\
		int _e = policy_load(text);				\
		ASSERT(_e == 0, "write(%s): %s", TG_POLICY,		\
		       strerror(-_e));					\
	} while (0)

#define SET_MODE(m)							\
	do {								\
		int _e = mode_set(m);					\
		ASSERT(_e == 0, "write(%s, %s): %s", TG_MODE, (m),	\
		       strerror(-_e));					\
	} while (0)

/* ---- decision records -------------------------------------------------- */

/* Opened before any fork, so a child that drops root can still mark. */
static int decisions_fd = -1;

struct record {
	unsigned long long seq;
	char op[16], verdict[8], mode[16], rule[16], comm[80], dev[80];
	char type[8];
	long pid;
	unsigned long uid, gid, netns;
};

/* The sequence number of the newest record. */
static unsigned long long decisions_mark(void)
{
	off_t pos = lseek(decisions_fd, 0, SEEK_END);

	ASSERT(pos >= 0, "lseek(%s, SEEK_END): %s", TG_DECISIONS,
	       strerror(errno));
	return pos;
}

static bool record_parse(char *line, struct record *r)
{
	char *tok, *save, *val;
	int fields = 0;

	memset(r, 0, sizeof(*r));
	for (tok = strtok_r(line, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		val = strchr(tok, '=');
		if (!val)
			return false;
		*val++ = '\0';
		fields++;
#define STR(k) if (!strcmp(tok, #k)) snprintf(r->k, sizeof(r->k), "%s", val)
#define NUM(k) if (!strcmp(tok, #k)) r->k = strtoull(val, NULL, 10)
		NUM(seq); STR(op); STR(verdict); STR(mode); STR(rule);
		NUM(pid); STR(comm); NUM(uid); NUM(gid); STR(dev); STR(type);
		NUM(netns);
#undef STR
#undef NUM
	}
	return fields == 12;
}

/* The sequence number of the last record in @buf (whole lines). */
static unsigned long long last_seq(const char *buf, size_t len)
{
	const char *nl = len > 1 ? memrchr(buf, '\n', len - 1) : NULL;
	const char *line = nl ? nl + 1 : buf;

	return strtoull(line + strlen("seq="), NULL, 10);
}

/* Read the records after @mark; returns how many, up to @max. */
static int decisions_since(unsigned long long mark, struct record *recs,
			   int max)
{
	static char buf[256 * 1024];
	size_t len = 0;
	off_t pos = mark;
	ssize_t n;
	char *line, *save;
	int count = 0;

	/* pread() at a sequence number reads the records after it. */
	while (len + 512 < sizeof(buf) &&
	       (n = pread(decisions_fd, buf + len, sizeof(buf) - 1 - len,
			  pos)) > 0) {
		len += n;
		pos = last_seq(buf, len);
	}
	ASSERT(n >= 0, "pread(%s, %llu): %s", TG_DECISIONS, mark,
	       strerror(errno));
	buf[len] = '\0';
	for (line = strtok_r(buf, "\n", &save); line && count < max;
	     line = strtok_r(NULL, "\n", &save)) {
		ASSERT(record_parse(line, &recs[count]),
		       "malformed decision record '%s'", line);
		count++;
	}
	return count;
}

struct expect {
	const char *op;
	const char *verdict;
	const char *rule;
};

/* Identity every record of one step shares. */
struct who {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	const char *dev;
	const char *type;
	const char *mode;
};

static char self_comm[32];
static unsigned long self_netns;

/* Compare the records after @mark with @exp, field by field. */
static void check_records(const char *step, unsigned long long mark,
			  const struct who *who, const struct expect *exp,
			  int nexp)
{
	struct record recs[16];
	int n, i;

	n = decisions_since(mark, recs, 16);
	EXPECT(n == nexp, "%s: %d decision records after seq %llu, expected %d",
	       step, n, mark, nexp);
	if (n != nexp)
		for (i = 0; i < n; i++)
			diag("  got seq=%llu op=%s verdict=%s rule=%s dev=%s uid=%lu",
			     recs[i].seq, recs[i].op, recs[i].verdict,
			     recs[i].rule, recs[i].dev, recs[i].uid);
	for (i = 0; i < n && i < nexp; i++) {
		const struct record *r = &recs[i];

#define FIELD_STR(f, want)						\
		EXPECT(!strcmp(r->f, want),				\
		       "%s: record %d (seq %llu): " #f "=%s, expected %s",	\
		       step, i + 1, r->seq, r->f, want)
#define FIELD_NUM(f, want)						\
		EXPECT((unsigned long)r->f == (unsigned long)(want),	\
		       "%s: record %d (seq %llu): " #f "=%lu, expected %lu", \
		       step, i + 1, r->seq, (unsigned long)r->f,	\
		       (unsigned long)(want))
		EXPECT(r->seq > mark, "%s: record seq %llu not after %llu",
		       step, r->seq, mark);
		FIELD_STR(op, exp[i].op);
		FIELD_STR(verdict, exp[i].verdict);
		FIELD_STR(mode, who->mode);
		FIELD_STR(rule, exp[i].rule);
		FIELD_NUM(pid, who->pid);
		FIELD_STR(comm, self_comm);
		FIELD_NUM(uid, who->uid);
		FIELD_NUM(gid, who->gid);
		FIELD_STR(dev, who->dev);
		FIELD_STR(type, who->type);
		FIELD_NUM(netns, self_netns);
#undef FIELD_STR
#undef FIELD_NUM
	}
}

/* ---- TUN operations, each returning 0 or -errno ------------------------ */

static int tun_ioctl(int fd, unsigned long req, const char *name, int flags)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	ifr.ifr_flags = flags;
	return ioctl(fd, req, &ifr) < 0 ? -errno : 0;
}

static int tun_open(void)
{
	int fd = open(TUN_PATH, O_RDWR | O_CLOEXEC);

	ASSERT(fd >= 0, "open(%s): %s", TUN_PATH, strerror(errno));
	return fd;
}

static bool dev_exists(const char *name)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/class/net/%s", name);
	return access(path, F_OK) == 0;
}

/* Create a persistent device owned by @owner and @group (-1: none). */
static void make_persistent(const char *name, int flags, long owner, long group)
{
	int fd = tun_open(), err;

	err = tun_ioctl(fd, TUNSETIFF, name, flags);
	ASSERT(err == 0, "ioctl(TUNSETIFF, %s): %s", name, strerror(-err));
	ASSERT(ioctl(fd, TUNSETPERSIST, 1) == 0, "ioctl(TUNSETPERSIST, %s): %s",
	       name, strerror(errno));
	if (owner >= 0)
		ASSERT(ioctl(fd, TUNSETOWNER, owner) == 0,
		       "ioctl(TUNSETOWNER, %s, %ld): %s", name, owner,
		       strerror(errno));
	if (group >= 0)
		ASSERT(ioctl(fd, TUNSETGROUP, group) == 0,
		       "ioctl(TUNSETGROUP, %s, %ld): %s", name, group,
		       strerror(errno));
	close(fd);
}

/* Remove a persistent device, whatever its type; 0 or -errno. */
static int remove_persistent(const char *name)
{
	char path[80], buf[32];
	unsigned long flags;
	int fd, err;

	snprintf(path, sizeof(path), "/sys/class/net/%s/tun_flags", name);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return -ENOENT;
	flags = strtoul(buf, NULL, 16);
	fd = open(TUN_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = tun_ioctl(fd, TUNSETIFF, name,
			flags & (IFF_TUN | IFF_TAP | IFF_MULTI_QUEUE));
	if (!err && ioctl(fd, TUNSETPERSIST, 0) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* ---- acting as another user in a child --------------------------------- */

/*
 * A step runs in a child, as @uid/@gid with no supplementary groups.  It
 * gets a /dev/net/tun fd opened while still root (as libvirt hands one
 * to QEMU) and notes the last decision sequence number right before the
 * operation under test, so the records after it belong to that operation
 * alone.
 */
struct step_result {
	int err;
	unsigned long long mark;
	pid_t pid;
};

typedef int (*step_fn)(int tunfd, const char *name, unsigned long long *mark);

static struct step_result run_as(uid_t uid, gid_t gid, step_fn fn,
				 const char *name)
{
	struct step_result res = { .err = -ECHILD };
	int pipefd[2], status, tunfd;
	pid_t pid;

	ASSERT(pipe(pipefd) == 0, "pipe: %s", strerror(errno));
	tunfd = tun_open();
	fflush(stdout);
	pid = fork();
	ASSERT(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(pipefd[0]);
		res.pid = getpid();
		if (uid != 0 &&
		    (setgroups(1, (gid_t[]){ TGC_GROUP }) || setgid(gid) || setuid(uid))) {
			res.err = -errno;
			diag("setuid(%u): %s", uid, strerror(errno));
		} else {
			res.err = fn(tunfd, name, &res.mark);
		}
		if (write(pipefd[1], &res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(pipefd[1]);
	close(tunfd);
	if (read(pipefd[0], &res, sizeof(res)) != sizeof(res))
		res.err = -ECHILD;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	ASSERT(res.err != -ECHILD, "child for %s as uid %u died (status %#x)",
	       name, uid, status);
	return res;
}

static int step_setiff(int fd, const char *name, int flags,
		       unsigned long long *mark)
{
	*mark = decisions_mark();
	return tun_ioctl(fd, TUNSETIFF, name, flags);
}

/* TUNSETIFF for a tap: creates it, or attaches to it if it exists. */
static int step_setiff_tap(int fd, const char *name, unsigned long long *mark)
{
	return step_setiff(fd, name, IFF_TAP | IFF_NO_PI, mark);
}

static int step_setiff_tun(int fd, const char *name, unsigned long long *mark)
{
	return step_setiff(fd, name, IFF_TUN | IFF_NO_PI, mark);
}

/* Take a queue of a multiqueue tap, detach it, then attach it again. */
static int step_attach_queue(int fd, const char *name,
			     unsigned long long *mark)
{
	int err;

	err = tun_ioctl(fd, TUNSETIFF, name,
			IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE);
	if (err) {
		diag("setup: ioctl(TUNSETIFF, %s): %s", name, strerror(-err));
		return -ECANCELED;
	}
	err = tun_ioctl(fd, TUNSETQUEUE, name, IFF_DETACH_QUEUE);
	if (err) {
		diag("setup: ioctl(TUNSETQUEUE detach, %s): %s", name,
		     strerror(-err));
		return -ECANCELED;
	}
	*mark = decisions_mark();
	return tun_ioctl(fd, TUNSETQUEUE, name, IFF_ATTACH_QUEUE);
}

/* Run @fn as @uid on @name and expect @want; returns the step's result. */
static struct step_result do_step(const char *what, uid_t uid, step_fn fn,
				  const char *name, int want)
{
	struct step_result r = run_as(uid, uid, fn, name);
	char step[160];

	snprintf(step, sizeof(step), "%s %s as uid %u", what, name, uid);
	EXPECT(r.err == want, "%s: got %s, expected %s", step,
	       errname(r.err), errname(want));
	return r;
}

static void expect_records(const char *what, uid_t uid, const char *name,
			   const char *type, const char *mode,
			   const struct step_result *r,
			   const struct expect *exp, int nexp)
{
	struct who who = {
		.pid = r->pid, .uid = uid, .gid = uid, .dev = name,
		.type = type, .mode = mode,
	};
	char step[160];

	snprintf(step, sizeof(step), "%s %s as uid %u", what, name, uid);
	check_records(step, r->mark, &who, exp, nexp);
}

/* ---- tests ------------------------------------------------------------- */

static void test_lsm_listed(void)
{
	char buf[256], *tok, *save;
	bool found = false;
	ssize_t n;

	n = read_small("/sys/kernel/security/lsm", buf, sizeof(buf));
	ASSERT(n > 0, "read(/sys/kernel/security/lsm): %s", strerror(-n));
	for (tok = strtok_r(buf, ",\n", &save); tok;
	     tok = strtok_r(NULL, ",\n", &save))
		found |= !strcmp(tok, "tunguard");
	EXPECT(found, "tunguard is not in /sys/kernel/security/lsm");
}

static void expect_policy(const char *want, const char *what)
{
	static char buf[128 * 1024];
	ssize_t n = read_small(TG_POLICY, buf, sizeof(buf));

	ASSERT(n >= 0, "read(%s): %s", TG_POLICY, strerror(-n));
	EXPECT(!strcmp(buf, want), "%s: policy reads back as\n%s\nexpected\n%s",
	       what, buf, want);
}

static void test_policy_read_back_canonical(void)
{
	LOAD_POLICY("# lab\n"
		    "default deny\n"
		    "allow  open,create name=tgc* uid=1000-1000 type=tap\n"
		    "deny any\tcreator=no gid=5-9 cap=!net_admin\n");
	expect_policy("allow create,open uid=1000 type=tap name=tgc*\n"
		      "deny any gid=5-9 cap=!net_admin creator=no\n"
		      "default deny\n", "non-canonical policy");
}

static void test_policy_replaced_whole(void)
{
	LOAD_POLICY("allow create name=a*\nallow open\ndefault deny\n");
	LOAD_POLICY("deny attach_queue uid=7\ndefault allow\n");
	expect_policy("deny attach_queue uid=7\ndefault allow\n", "second policy");
}

/* '#' starts a comment only at the start of a line: elsewhere it is a name's. */
static void test_hash_inside_a_name(void)
{
	struct step_result r;

	LOAD_POLICY("# tgcheck\n"
		    "  # indented comment\n"
		    "deny open name=tgc#1\n"
		    "default allow\n");
	expect_policy("deny open name=tgc#1\ndefault allow\n", "policy with '#' in a name");
	SET_MODE("enforce");
	make_persistent("tgc#1", IFF_TAP | IFF_NO_PI, -1, TGC_GROUP);
	make_persistent("tgc", IFF_TAP | IFF_NO_PI, -1, TGC_GROUP);

	r = do_step("ioctl(TUNSETIFF) attaching to", USER_A, step_setiff_tap, "tgc#1", -EACCES);
	expect_records("ioctl(TUNSETIFF) attaching to", USER_A, "tgc#1", "tap", "enforce", &r,
		       (struct expect[]){ { "open", "deny", "1" } }, 1);
	/* the old parser read "name=tgc#1" as "name=tgc" */
	r = do_step("ioctl(TUNSETIFF) attaching to", USER_A, step_setiff_tap, "tgc", 0);
	expect_records("ioctl(TUNSETIFF) attaching to", USER_A, "tgc", "tap", "enforce", &r,
		       (struct expect[]){ { "open", "allow", "default" } }, 1);
}

/* Find @needle in the kernel log written after @fd was opened. */
static bool kmsg_contains(int fd, const char *needle)
{
	char rec[1024];
	ssize_t n;

	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || errno == EPIPE) {
		if (n <= 0)
			continue;
		rec[n] = '\0';
		if (strstr(rec, needle))
			return true;
	}
	return false;
}

/*
 * @text is refused with EINVAL, the kernel log says @log, and the policy
 * in force is still @kept.
 */
static void expect_refused(const char *text, const char *log, const char *kept)
{
	int kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	ASSERT(kmsg >= 0, "open(/dev/kmsg): %s", strerror(errno));
	lseek(kmsg, 0, SEEK_END);
	EXPECT_ERR(policy_load(text), -EINVAL, "write(policy) of a malformed policy");
	EXPECT(kmsg_contains(kmsg, log), "kernel log lacks '%s' after a refused policy", log);
	close(kmsg);
	expect_policy(kept, "after a refused policy");
}

static void test_bad_policy_keeps_old(void)
{
	static const char good[] = "allow open uid=1000\ndefault deny\n";
	static const struct {
		const char *text, *log;
	} bad[] = {
		{ "default deny\npermit any\n", "line 2 (rule 1): unknown verb" },
		{ "allow any uid=9-1\ndefault deny\n", "line 1 (rule 1): reversed range" },
		{ "allow any\n", "no default line" },
		{ "allow open uid=1000\ndefault deny\nallow bogus\n",
		  "line 3 (rule 2): unknown operation" },
		{ "# one\n\ndeny create\nallow open name=vm*  # why\ndefault deny\n",
		  "line 4 (rule 2): a comment must start its line" },
		{ "default deny # why\n", "line 1: a comment must start its line" },
		{ "allow open,attach uid=1000\ndefault deny\n",
		  "line 1 (rule 1): no operation attach: use open or attach_queue" },
		{ "deny open name=[^v]*\ndefault allow\n",
		  "line 1 (rule 1): [^...] is not a negated class: write [!...]" },
		{ "allow open,create,open\ndefault deny\n",
		  "line 1 (rule 1): operation listed twice" },
		{ "allow any uid=1 type=tap uid=2\ndefault deny\n",
		  "line 1 (rule 1): field given twice" },
	};
	unsigned int i;

	LOAD_POLICY(good);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_refused(bad[i].text, bad[i].log, good);
}

static void test_write_needs_cap_mac_admin(void)
{
	static const char good[] = "deny create\ndefault allow\n";
	char mode[32] = "";
	int status, err;
	pid_t pid;

	LOAD_POLICY(good);
	SET_MODE("enforce");
	fflush(stdout);
	pid = fork();
	ASSERT(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		err = caps_keep_only(~CAP_BIT(CAP_MAC_ADMIN), false) ? -errno : 0;
		ASSERT_OK(err, "capset(drop CAP_MAC_ADMIN)");
		EXPECT_ERR(policy_load("default allow\n"), -EPERM,
			   "write(policy) without CAP_MAC_ADMIN");
		EXPECT_ERR(mode_set("off"), -EPERM,
			   "write(mode) without CAP_MAC_ADMIN");
		exit(t_result);
	}
	waitpid(pid, &status, 0);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "child without CAP_MAC_ADMIN failed (status %#x)", status);
	expect_policy(good, "after writes without CAP_MAC_ADMIN");
	read_small(TG_MODE, mode, sizeof(mode));
	EXPECT(!strcmp(mode, "enforce\n"), "mode reads '%s' after a refused write",
	       mode);
}

/* Pass @fd over @sock (SCM_RIGHTS); 0 or -errno. */
static int send_fd(int sock, int fd)
{
	char data = 'f';
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -errno;
}

static int recv_fd(int sock)
{
	char data;
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -errno;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -EPROTO;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

static int write_fd(int fd, const char *text)
{
	ssize_t n = write(fd, text, strlen(text));

	return n < 0 ? -errno : (size_t)n == strlen(text) ? 0 : -EIO;
}

/*
 * A write is judged by the credentials the file was opened with: a
 * descriptor opened with CAP_MAC_ADMIN works in a task without it, one
 * opened without it fails in a task that has it.
 */
static void test_write_judged_by_opener(void)
{
	static const char good[] = "deny create name=tgco*\ndefault allow\n";
	static const char from_child[] = "deny open name=tgco*\ndefault allow\n";
	int priv_fd, sock[2], status, err;
	pid_t pid;

	LOAD_POLICY(good);
	priv_fd = open(TG_POLICY, O_WRONLY | O_CLOEXEC);
	ASSERT(priv_fd >= 0, "open(%s): %s", TG_POLICY, strerror(errno));
	ASSERT(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sock) == 0,
	       "socketpair: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	ASSERT(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int fd;

		close(sock[0]);
		err = caps_keep_only(~CAP_BIT(CAP_MAC_ADMIN), false) ? -errno : 0;
		ASSERT_OK(err, "capset(drop CAP_MAC_ADMIN)");
		EXPECT_ERR(write_fd(priv_fd, from_child), 0,
			   "write(policy) without CAP_MAC_ADMIN on a descriptor opened with it");
		fd = open(TG_POLICY, O_WRONLY | O_CLOEXEC);
		ASSERT(fd >= 0, "open(%s) without CAP_MAC_ADMIN: %s", TG_POLICY,
		       strerror(errno));
		ASSERT_OK(send_fd(sock[1], fd), "sendmsg(SCM_RIGHTS)");
		exit(t_result);
	}
	close(sock[1]);
	close(priv_fd);
	err = recv_fd(sock[0]);
	close(sock[0]);
	waitpid(pid, &status, 0);
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	       "child without CAP_MAC_ADMIN failed (status %#x)", status);
	expect_policy(from_child, "after a write through the privileged opener's descriptor");
	ASSERT(err >= 0, "recvmsg(SCM_RIGHTS): %s", strerror(-err));
	EXPECT_ERR(write_fd(err, good), -EPERM,
		   "write(policy) with CAP_MAC_ADMIN on a descriptor opened without it");
	close(err);
	expect_policy(from_child, "after a write through an unprivileged opener's descriptor");
}

static void test_oversized_policy_refused(void)
{
	static const char good[] = "allow any\ndefault deny\n";
	size_t len = TG_POLICY_MAX + 1, i;
	char *text = malloc(len + 1);

	ASSERT(text, "malloc(%zu)", len);
	/* Valid text, only too long: comment lines and a default. */
	for (i = 0; i < len; i++)
		text[i] = (i % 64 == 63) ? '\n' : '#';
	memcpy(text + len - 14, "\ndefault deny\n", 14);
	LOAD_POLICY(good);
	EXPECT_ERR(write_once(TG_POLICY, text, len), -EFBIG,
		   "write(policy) of 64 KiB + 1");
	/* The same text cut to the limit is accepted. */
	memcpy(text + TG_POLICY_MAX - 14, "\ndefault deny\n", 14);
	EXPECT_ERR(write_once(TG_POLICY, text, TG_POLICY_MAX), 0,
		   "write(policy) of exactly 64 KiB");
	LOAD_POLICY(good);
	EXPECT_ERR(write_once(TG_POLICY, text, len), -EFBIG,
		   "write(policy) of 64 KiB + 1");
	expect_policy(good, "after an oversized write");
	free(text);
}

/* The rule limit (TUNGUARD_MAX_RULES in the series). */
#define TG_MAX_RULES	2048

/*
 * The rule limit, at it and one past it: the rule past it is refused as
 * one too many, unless it is malformed, which is said first.  The error
 * names the line and the rule, and the old policy stays.
 */
static void test_rule_limit_names_the_rule_past_it(void)
{
	static const char good[] = "allow any\ndefault deny\n";
	static const struct {
		const char *last, *log;
	} past[] = {
		{ "deny open name=tl2048\n",
		  "line 2049 (rule 2049): too many rules" },
		{ "deny bogus name=tl2048\n",
		  "line 2049 (rule 2049): unknown operation" },
	};
	size_t size = TG_MAX_RULES * 32 + 128, n = 0, base;
	char *text = malloc(size);
	unsigned int i;

	ASSERT(text, "malloc(%zu)", size);
	for (i = 0; i < TG_MAX_RULES; i++)
		n += snprintf(text + n, size - n, "deny open name=tl%u\n", i);
	base = n;
	snprintf(text + n, size - n, "default allow\n");
	EXPECT_ERR(policy_load(text), 0, "write(policy) of 2048 rules, the limit");
	LOAD_POLICY(good);
	for (i = 0; i < sizeof(past) / sizeof(past[0]); i++) {
		n = base + snprintf(text + base, size - base, "%s", past[i].last);
		snprintf(text + n, size - n, "default allow\n");
		expect_refused(text, past[i].log, good);
	}
	free(text);
}

static void test_create_allowed_and_denied(void)
{
	struct step_result r;

	LOAD_POLICY("allow create uid=0 type=tap name=tgc*\n"
		    "deny create\n"
		    "default allow\n");
	SET_MODE("enforce");

	r = do_step("ioctl(TUNSETIFF) creating tap", 0, step_setiff_tap, "tgc0", 0);
	expect_records("ioctl(TUNSETIFF) creating tap", 0, "tgc0", "tap", "enforce", &r,
		       (struct expect[]){ { "create", "allow", "1" } }, 1);

	r = do_step("ioctl(TUNSETIFF) creating tun", 0, step_setiff_tun, "tgc1", -EACCES);
	expect_records("ioctl(TUNSETIFF) creating tun", 0, "tgc1", "tun", "enforce", &r,
		       (struct expect[]){ { "create", "deny", "2" } }, 1);
	EXPECT(!dev_exists("tgc1"), "tgc1 exists after a denied create");
}

/*
 * A create the driver refuses leaves no record: the decision comes after
 * the driver's checks, right before the device registers.  An interface
 * index already taken (TUNSETIFINDEX) is one such refusal.
 */
static void test_refused_create_leaves_no_record(void)
{
	char path[64], buf[32];
	unsigned long long mark;
	unsigned int index;
	struct record rec;
	int fd, err;

	LOAD_POLICY("default allow\n");
	SET_MODE("enforce");
	make_persistent("tgc0", IFF_TAP | IFF_NO_PI, -1, -1);
	snprintf(path, sizeof(path), "/sys/class/net/tgc0/ifindex");
	ASSERT(read_small(path, buf, sizeof(buf)) > 0, "read(%s)", path);
	index = strtoul(buf, NULL, 10);

	fd = tun_open();
	ASSERT(ioctl(fd, TUNSETIFINDEX, &index) == 0, "ioctl(TUNSETIFINDEX, %u): %s", index,
	       strerror(errno));
	mark = decisions_mark();
	err = tun_ioctl(fd, TUNSETIFF, "tgc1", IFF_TAP | IFF_NO_PI);
	close(fd);
	EXPECT_ERR(err, -EBUSY, "ioctl(TUNSETIFF) creating tgc1 at the index of tgc0");
	EXPECT(!dev_exists("tgc1"), "tgc1 exists after a refused create");
	EXPECT(decisions_since(mark, &rec, 1) == 0,
	       "a create the driver refused left a record: op=%s verdict=%s dev=%s", rec.op,
	       rec.verdict, rec.dev);
}

static void test_open_allowed_and_denied(void)
{
	struct step_result r;

	LOAD_POLICY("allow open uid=1000 name=tgc0\n"
		    "deny open uid=1001 name=tgc0\n"
		    "default allow\n");
	SET_MODE("enforce");
	make_persistent("tgc0", IFF_TAP | IFF_NO_PI, -1, TGC_GROUP);

	r = do_step("ioctl(TUNSETIFF) attaching to", USER_A, step_setiff_tap, "tgc0", 0);
	expect_records("ioctl(TUNSETIFF) attaching to", USER_A, "tgc0", "tap", "enforce", &r,
		       (struct expect[]){ { "open", "allow", "1" } }, 1);

	r = do_step("ioctl(TUNSETIFF) attaching to", USER_B, step_setiff_tap, "tgc0", -EACCES);
	expect_records("ioctl(TUNSETIFF) attaching to", USER_B, "tgc0", "tap", "enforce", &r,
		       (struct expect[]){ { "open", "deny", "2" } }, 1);

	r = do_step("ioctl(TUNSETIFF) attaching to", USER_C, step_setiff_tap, "tgc0", 0);
	expect_records("ioctl(TUNSETIFF) attaching to", USER_C, "tgc0", "tap", "enforce", &r,
		       (struct expect[]){ { "open", "allow", "default" } }, 1);
}

/* The driver's EBUSY comes before the decision: a busy device is not decided. */
static void test_busy_device_is_not_decided(void)
{
	unsigned long long mark;
	struct record rec;
	int fd, fd2, err;

	LOAD_POLICY("default allow\n");
	SET_MODE("enforce");
	fd = tun_open();
	ASSERT_OK(tun_ioctl(fd, TUNSETIFF, "tgc0", IFF_TAP | IFF_NO_PI),
		  "ioctl(TUNSETIFF) creating tgc0");
	fd2 = tun_open();
	mark = decisions_mark();
	err = tun_ioctl(fd2, TUNSETIFF, "tgc0", IFF_TAP | IFF_NO_PI);
	close(fd2);
	close(fd);
	EXPECT_ERR(err, -EBUSY, "ioctl(TUNSETIFF) on single-queue tgc0, already attached");
	EXPECT(decisions_since(mark, &rec, 1) == 0,
	       "an attach the driver refused left a record: op=%s verdict=%s", rec.op,
	       rec.verdict);
}

/*
 * A rename is not decided: open rules see the device's current name, a
 * create rule only the name it was created with.
 */
static void test_renamed_device_seen_by_open(void)
{
	struct step_result r;
	struct ifreq ifr;
	int sock;

	LOAD_POLICY("deny create name=tgcbr*\n"
		    "deny open name=tgcbr*\n"
		    "default allow\n");
	SET_MODE("enforce");
	make_persistent("tgcx0", IFF_TAP | IFF_NO_PI, -1, TGC_GROUP);
	sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT(sock >= 0, "socket(AF_INET): %s", strerror(errno));
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "tgcx0");
	snprintf(ifr.ifr_newname, IFNAMSIZ, "tgcbr0");
	ASSERT(ioctl(sock, SIOCSIFNAME, &ifr) == 0, "ioctl(SIOCSIFNAME, tgcx0 -> tgcbr0): %s",
	       strerror(errno));
	close(sock);

	r = do_step("ioctl(TUNSETIFF) attaching to renamed", USER_A, step_setiff_tap, "tgcbr0",
		    -EACCES);
	expect_records("ioctl(TUNSETIFF) attaching to renamed", USER_A, "tgcbr0", "tap", "enforce",
		       &r, (struct expect[]){ { "open", "deny", "2" } }, 1);
}

static void test_attach_queue_allowed_and_denied(void)
{
	struct step_result r;

	LOAD_POLICY("deny attach_queue uid=1001 name=tgcq*\n"
		    "allow any mq=yes\n"
		    "default deny\n");
	SET_MODE("enforce");
	make_persistent("tgcq0", IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE, -1, TGC_GROUP);

	r = do_step("ioctl(TUNSETQUEUE, IFF_ATTACH_QUEUE) on", USER_A, step_attach_queue, "tgcq0", 0);
	expect_records("ioctl(TUNSETQUEUE, IFF_ATTACH_QUEUE) on", USER_A, "tgcq0", "tap", "enforce", &r,
		       (struct expect[]){ { "attach_queue", "allow", "2" } }, 1);

	r = do_step("ioctl(TUNSETQUEUE, IFF_ATTACH_QUEUE) on", USER_B, step_attach_queue, "tgcq0",
		    -EACCES);
	expect_records("ioctl(TUNSETQUEUE, IFF_ATTACH_QUEUE) on", USER_B, "tgcq0", "tap", "enforce", &r,
		       (struct expect[]){ { "attach_queue", "deny", "1" } }, 1);
}

static void test_permissive_allows_and_records(void)
{
	struct step_result r;

	LOAD_POLICY("deny any name=tgc0\ndefault allow\n");
	SET_MODE("permissive");
	r = do_step("ioctl(TUNSETIFF) creating tap", 0, step_setiff_tap, "tgc0", 0);
	expect_records("ioctl(TUNSETIFF) creating tap", 0, "tgc0", "tap", "permissive", &r,
		       (struct expect[]){ { "create", "deny", "1" } }, 1);

	make_persistent("tgc1", IFF_TAP | IFF_NO_PI, -1, TGC_GROUP);
	LOAD_POLICY("deny any name=tgc1\ndefault allow\n");
	r = do_step("ioctl(TUNSETIFF) attaching to", USER_A, step_setiff_tap, "tgc1", 0);
	expect_records("ioctl(TUNSETIFF) attaching to", USER_A, "tgc1", "tap", "permissive", &r,
		       (struct expect[]){ { "open", "deny", "1" } }, 1);
}

static void test_off_records_nothing(void)
{
	struct step_result r;
	unsigned long long after;

	LOAD_POLICY("deny any\ndefault deny\n");
	SET_MODE("off");
	r = do_step("ioctl(TUNSETIFF) creating tap", 0, step_setiff_tap, "tgc0", 0);
	make_persistent("tgc1", IFF_TAP | IFF_NO_PI, -1, TGC_GROUP);
	do_step("ioctl(TUNSETIFF) attaching to", USER_A, step_setiff_tap, "tgc1", 0);
	after = decisions_mark();
	EXPECT(after == r.mark, "mode off: records %llu..%llu appeared",
	       r.mark + 1, after);
}

static void test_dac_refusal_leaves_no_record(void)
{
	struct step_result r;

	LOAD_POLICY("default allow\n");
	SET_MODE("enforce");
	make_persistent("tgc0", IFF_TAP | IFF_NO_PI, USER_A, -1);

	r = do_step("ioctl(TUNSETIFF) attaching (not owner) to", USER_B, step_setiff_tap, "tgc0",
		    -EPERM);
	expect_records("ioctl(TUNSETIFF) attaching (not owner) to", USER_B, "tgc0", "tap", "enforce",
		       &r, NULL, 0);

	r = do_step("ioctl(TUNSETIFF) attaching (owner) to", USER_A, step_setiff_tap, "tgc0", 0);
	expect_records("ioctl(TUNSETIFF) attaching (owner) to", USER_A, "tgc0", "tap", "enforce", &r,
		       (struct expect[]){ { "open", "allow", "default" } }, 1);
}

/* With every request allowed, root creates tgc0, then tgc1: the mark before their two records. */
static unsigned long long two_create_records(void)
{
	unsigned long long mark;

	LOAD_POLICY("default allow\n");
	SET_MODE("enforce");
	mark = decisions_mark();
	do_step("ioctl(TUNSETIFF) creating tap", 0, step_setiff_tap, "tgc0", 0);
	do_step("ioctl(TUNSETIFF) creating tap", 0, step_setiff_tap, "tgc1", 0);
	return mark;
}

static void test_decisions_seek_and_stats(void)
{
	unsigned long long mark, second;
	struct record recs[4];
	char stats[512], *p;
	int n;

	mark = two_create_records();
	n = decisions_since(mark, recs, 4);
	ASSERT(n == 2, "%d records after two creates, expected 2", n);
	EXPECT(recs[1].seq == recs[0].seq + 1, "sequence %llu then %llu",
	       recs[0].seq, recs[1].seq);
	second = recs[0].seq;
	n = decisions_since(second, recs, 4);
	EXPECT(n == 1 && !strcmp(recs[0].dev, "tgc1"),
	       "records after seq %llu: %d, first dev=%s; expected only tgc1",
	       second, n, n ? recs[0].dev : "-");
	EXPECT(decisions_since(decisions_mark(), recs, 4) == 0,
	       "records after SEEK_END");

	ASSERT(read_small(TG_STATS, stats, sizeof(stats)) > 0, "read(%s)",
	       TG_STATS);
	p = strstr(stats, "seq=");
	EXPECT(p && strtoull(p + 4, NULL, 10) == decisions_mark(),
	       "stats seq does not match the last record:\n%s", stats);
	EXPECT(strstr(stats, "create allow=") && strstr(stats, "dropped="),
	       "stats lacks counters:\n%s", stats);
}

/*
 * The tests below each catch an edit of the kernel the ones above let
 * through (kernel/mutants/6.1.list, make mutants).
 */

/* The "OP allow=N deny=N" counters of the stats file. */
static bool stats_counts(const char *op, long *allow, long *deny)
{
	char stats[512], name[32], *line, *save;
	long a, d;

	if (read_small(TG_STATS, stats, sizeof(stats)) <= 0)
		return false;
	for (line = strtok_r(stats, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%31s allow=%ld deny=%ld", name, &a, &d) == 3 &&
		    !strcmp(name, op)) {
			*allow = a;
			*deny = d;
			return true;
		}
	}
	return false;
}

/* stats counts each decision under its operation and its verdict. */
static void test_stats_count_each_verdict(void)
{
	long ca0, cd0, oa0, od0, ca1, cd1, oa1, od1;
	int fd, i;

	LOAD_POLICY("deny open name=tgc0\ndefault allow\n");
	SET_MODE("enforce");
	make_persistent("tgc0", IFF_TAP | IFF_NO_PI, -1, -1);
	ASSERT(stats_counts("create", &ca0, &cd0) && stats_counts("open", &oa0, &od0),
	       "no create and open counters in %s", TG_STATS);
	for (i = 0; i < 2; i++) {
		fd = tun_open();
		EXPECT_ERR(tun_ioctl(fd, TUNSETIFF, "tgc0", IFF_TAP | IFF_NO_PI), -EACCES,
			   "ioctl(TUNSETIFF) attaching to tgc0");
		close(fd);
	}
	fd = tun_open();
	EXPECT_ERR(tun_ioctl(fd, TUNSETIFF, "tgc1", IFF_TAP | IFF_NO_PI), 0,
		   "ioctl(TUNSETIFF) creating tgc1");
	close(fd);
	ASSERT(stats_counts("create", &ca1, &cd1) && stats_counts("open", &oa1, &od1),
	       "no create and open counters in %s", TG_STATS);
	EXPECT(ca1 - ca0 == 1 && cd1 == cd0 && oa1 == oa0 && od1 - od0 == 2,
	       "after one allowed create and two denied opens the stats moved by "
	       "create allow +%ld deny +%ld, open allow +%ld deny +%ld",
	       ca1 - ca0, cd1 - cd0, oa1 - oa0, od1 - od0);
}

/* A write of @len bytes to @path from a page the kernel cannot read: EFAULT. */
static void expect_write_faults(const char *path, size_t len)
{
	void *unreadable;
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	ASSERT(fd >= 0, "open(%s): %s", path, strerror(errno));
	unreadable = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT(unreadable != MAP_FAILED, "mmap: %s", strerror(errno));
	n = write(fd, unreadable, len);
	EXPECT(n < 0 && errno == EFAULT, "write(%s) from an unreadable page: %s, expected EFAULT",
	       path, n < 0 ? errname(-errno) : "accepted");
	munmap(unreadable, 4096);
	close(fd);
}

/*
 * A policy comes in one write() at offset 0 and a mode in one short write:
 * a second write on the same descriptor, a pwrite() past 0, an empty or NUL
 * carrying policy and an unknown or overlong mode are refused with EINVAL,
 * and what was in force stays.
 */
static void test_policy_and_mode_writes_checked(void)
{
	static const char first[] = "default deny\n", second[] = "default allow\n";
	char mode[32];
	ssize_t n;
	int fd;

	LOAD_POLICY(first);
	fd = open(TG_POLICY, O_WRONLY | O_CLOEXEC);
	ASSERT(fd >= 0, "open(%s): %s", TG_POLICY, strerror(errno));
	n = write(fd, first, strlen(first));
	EXPECT(n == (ssize_t)strlen(first), "first write(policy): %s",
	       n < 0 ? strerror(errno) : "short");
	n = write(fd, second, strlen(second));
	EXPECT(n < 0 && errno == EINVAL,
	       "a second write(policy) on one descriptor: %s, expected EINVAL",
	       n < 0 ? errname(-errno) : "accepted");
	n = pwrite(fd, second, strlen(second), 1);
	EXPECT(n < 0 && errno == EINVAL, "pwrite(policy) at offset 1: %s, expected EINVAL",
	       n < 0 ? errname(-errno) : "accepted");
	close(fd);
	/* a buffer the kernel cannot read: EFAULT, the policy kept */
	expect_write_faults(TG_POLICY, strlen(second));
	EXPECT_ERR(write_once(TG_POLICY, "", 0), -EINVAL, "an empty write(policy)");
	EXPECT_ERR(write_once(TG_POLICY, "default allow\n\0", 15), -EINVAL,
		   "write(policy) of a text with a NUL byte");
	expect_policy(first, "after the refused policy writes");

	SET_MODE("permissive");
	fd = open(TG_MODE, O_WRONLY | O_CLOEXEC);
	ASSERT(fd >= 0, "open(%s): %s", TG_MODE, strerror(errno));
	n = pwrite(fd, "off", 3, 1);
	EXPECT(n < 0 && errno == EINVAL, "pwrite(mode, off) at offset 1: %s, expected EINVAL",
	       n < 0 ? errname(-errno) : "accepted");
	n = write(fd, "enforce\n", 8);
	EXPECT(n == 8, "write(mode, enforce\\n): %s", n < 0 ? strerror(errno) : "short");
	n = write(fd, "off", 3);
	EXPECT(n < 0 && errno == EINVAL,
	       "a second write(mode) on one descriptor: %s, expected EINVAL",
	       n < 0 ? errname(-errno) : "accepted");
	close(fd);
	/* a buffer the kernel cannot read: EFAULT, the mode kept */
	expect_write_faults(TG_MODE, 3);
	EXPECT_ERR(mode_set("bogus"), -EINVAL, "write(mode, bogus)");
	EXPECT_ERR(mode_set("permissive      \n"), -EINVAL, "a 17-byte write(mode)");
	ASSERT(read_small(TG_MODE, mode, sizeof(mode)) > 0, "read(%s)", TG_MODE);
	EXPECT(!strcmp(mode, "enforce\n"), "mode after the refused writes: %s", mode);
}

/*
 * A read of decisions returns whole records: none fits (EINVAL, nothing
 * consumed), the first fits but not the second (the first alone), the
 * buffer is not writable (EFAULT, nothing consumed) or becomes unwritable
 * inside the second record (the first, and the second left for the next
 * read). The file position is the last record returned.
 */
static void test_decisions_read_edges(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long long mark, seq1;
	char buf[1024], line1[512], line2[512], *map, *nl, *at;
	size_t len1, len2;
	ssize_t n;
	int fd;

	mark = two_create_records();
	fd = open(TG_DECISIONS, O_RDONLY | O_CLOEXEC);
	ASSERT(fd >= 0, "open(%s): %s", TG_DECISIONS, strerror(errno));
	n = pread(fd, buf, sizeof(buf) - 1, mark);
	ASSERT(n > 0, "pread(%s, %llu): %s", TG_DECISIONS, mark, n ? strerror(errno) : "EOF");
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	ASSERT(nl && strchr(nl + 1, '\n') == buf + n - 1,
	       "two records expected after two creates, read:\n%s", buf);
	len1 = nl + 1 - buf;
	len2 = n - len1;
	ASSERT(len1 < sizeof(line1) && len2 < sizeof(line2), "records too long");
	memcpy(line1, buf, len1);
	memcpy(line2, nl + 1, len2);
	seq1 = strtoull(line1 + strlen("seq="), NULL, 10);

	ASSERT(lseek(fd, mark, SEEK_SET) == (off_t)mark, "lseek(%llu): %s", mark,
	       strerror(errno));
	EXPECT(read(fd, buf, 0) == 0, "read() of 0 bytes: %s", strerror(errno));
	n = read(fd, buf, len1 - 1);
	EXPECT(n < 0 && errno == EINVAL,
	       "read() of %zu bytes, one less than the next record: %zd (%s), expected EINVAL",
	       len1 - 1, n, n < 0 ? errname(-errno) : "-");
	EXPECT(lseek(fd, 0, SEEK_CUR) == (off_t)mark,
	       "a read() too short for any record moved the position to %lld",
	       (long long)lseek(fd, 0, SEEK_CUR));
	n = read(fd, buf, len1 + len2 - 1);
	EXPECT(n == (ssize_t)len1 && !memcmp(buf, line1, len1),
	       "read() of one record and a part of the next: %zd bytes, expected %zu", n, len1);
	EXPECT(lseek(fd, 0, SEEK_CUR) == (off_t)seq1, "position %lld after the first record, expected %llu",
	       (long long)lseek(fd, 0, SEEK_CUR), seq1);

	/* lseek: SEEK_CUR from where it is, no overflow, no SEEK_DATA */
	EXPECT(lseek(fd, -1, SEEK_CUR) == (off_t)(seq1 - 1), "lseek(-1, SEEK_CUR) from %llu: %s",
	       seq1, strerror(errno));
	errno = 0;
	EXPECT(lseek(fd, LLONG_MAX, SEEK_CUR) < 0 && errno == EINVAL,
	       "lseek(LLONG_MAX, SEEK_CUR): %s, expected EINVAL", errno ? errname(-errno) : "taken");
	errno = 0;
	EXPECT(lseek(fd, 0, SEEK_DATA) < 0 && errno == EINVAL,
	       "lseek(0, SEEK_DATA): %s, expected EINVAL", errno ? errname(-errno) : "taken");

	map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT(map != MAP_FAILED, "mmap: %s", strerror(errno));
	ASSERT(mprotect(map + page, page, PROT_NONE) == 0, "mprotect: %s", strerror(errno));
	lseek(fd, mark, SEEK_SET);
	n = read(fd, map + page, page);
	EXPECT(n < 0 && errno == EFAULT, "read() into an unwritable page: %zd (%s), expected EFAULT",
	       n, n < 0 ? errname(-errno) : "-");
	EXPECT(lseek(fd, 0, SEEK_CUR) == (off_t)mark,
	       "a read() that faulted moved the position to %lld",
	       (long long)lseek(fd, 0, SEEK_CUR));
	at = map + page - len1 - len2 / 2;
	n = read(fd, at, len1 + len2);
	EXPECT(n == (ssize_t)len1 && !memcmp(at, line1, len1),
	       "read() whose buffer ends inside the second record: %zd (%s), expected the first record, %zu bytes",
	       n, n < 0 ? errname(-errno) : "-", len1);
	n = read(fd, buf, sizeof(buf));
	EXPECT(n == (ssize_t)len2 && !memcmp(buf, line2, len2),
	       "the read() after a fault in the second record: %zd bytes, expected that record (%zu)",
	       n, len2);
	munmap(map, 2 * page);
	close(fd);
}

#define FAILSLAB	"/sys/kernel/debug/failslab"
#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define FAIL_NTH_MAX	5000

/* An operation under test: 0 or -errno, and what its failures may leave. */
struct fi_op {
	const char *what;
	int (*run)(void);
	/* after a success: put things back for the next round */
	void (*undo)(void);
	/*
	 * after a failure @err, with @decided telling whether a decision
	 * record was written: NULL when all is as it must be, else why not
	 */
	const char *(*after_failure)(int err, bool decided);
	/* some failure must be refused (it allocates what it cannot lack) */
	bool must_refuse;
};

/*
 * @op tried with its first, second, ... slab allocation failing
 * (fail-nth), until it runs with none failing and succeeds. Each failure
 * must be one @op refuses as after_failure() allows, or one it does
 * without (it succeeds).
 */
static void fail_each_allocation(const struct fi_op *op)
{
	int nth, err, fd, failed = 0, ok = 0;
	unsigned long long mark;
	struct record rec;
	const char *why;
	char left[16];
	bool decided;

	fd = open(FAIL_NTH, O_RDWR | O_CLOEXEC);
	ASSERT(fd >= 0, "open(" FAIL_NTH "): %s", strerror(errno));
	for (nth = 1; nth <= FAIL_NTH_MAX; nth++) {
		mark = decisions_mark();
		snprintf(left, sizeof(left), "%d", nth);
		ASSERT(pwrite(fd, left, strlen(left), 0) > 0, "write(fail-nth, %d): %s", nth,
		       strerror(errno));
		err = op->run();
		memset(left, 0, sizeof(left));
		ASSERT(pread(fd, left, sizeof(left) - 1, 0) > 0, "read(fail-nth): %s",
		       strerror(errno));
		ASSERT(pwrite(fd, "0", 1, 0) == 1, "write(fail-nth, 0): %s", strerror(errno));
		if (atoi(left) != 0) {
			/* fewer than nth allocations: it ran with none failing */
			EXPECT(err == 0, "%s with no allocation failing: %s", op->what, errname(err));
			break;
		}
		if (err == 0) {
			ok++;
			op->undo();
			continue;
		}
		failed++;
		decided = decisions_since(mark, &rec, 1) > 0;
		why = op->after_failure(err, decided);
		EXPECT(!why, "%s with allocation %d failing: %s%s: %s", op->what, nth, errname(err),
		       decided ? " (after the decision)" : "", why);
	}
	close(fd);
	EXPECT(nth <= FAIL_NTH_MAX, "%s: still failing at allocation %d", op->what, nth);
	diag("%s: %d allocations, %d failures refused it, %d it did without", op->what, nth - 1,
	     failed, ok);
	EXPECT(failed > 0 || !op->must_refuse, "%s: no failed allocation was ever refused",
	       op->what);
}

static const char fi_old[] = "default allow\n";
static const char fi_new[] = "deny open name=tgc1\nallow any uid=0-99 name=tgc*\ndefault allow\n";

static int fi_policy_write(void)
{
	return policy_load(fi_new);
}

static void fi_policy_undo(void)
{
	LOAD_POLICY(fi_old);
}

/* A refused write is ENOMEM, decides nothing and leaves the old policy. */
static const char *fi_policy_after(int err, bool decided)
{
	static char buf[4096];

	if (err != -ENOMEM)
		return "expected ENOMEM";
	if (decided)
		return "a decision was recorded";
	if (read_small(TG_POLICY, buf, sizeof(buf)) <= 0 || strcmp(buf, fi_old))
		return "the policy in force changed";
	return NULL;
}

static int fi_tunfd = -1;

static void fi_reopen(void)
{
	if (fi_tunfd >= 0)
		close(fi_tunfd);
	fi_tunfd = tun_open();
}

static int fi_create(void)
{
	return tun_ioctl(fi_tunfd, TUNSETIFF, "tgc0", IFF_TAP | IFF_NO_PI);
}

/*
 * Before tunguard decides, the allocations are tun's own (the net_device,
 * its queues): ENOMEM, and no record of a device that never was. After
 * it, register_netdevice() reports the networking core's errno: ENOMEM,
 * ENOBUFS (neighbour parameters), or EINVAL (device_add() when the
 * device's name could not be allocated: dev_set_name()'s failure is not
 * checked on the way). Either way no device is left.
 */
static const char *fi_create_after(int err, bool decided)
{
	fi_reopen();
	if (dev_exists("tgc0"))
		return "tgc0 exists";
	if (!decided && err != -ENOMEM)
		return "expected ENOMEM before the decision";
	if (decided && err != -ENOMEM && err != -ENOBUFS && err != -EINVAL)
		return "expected ENOMEM, ENOBUFS or EINVAL from register_netdevice()";
	return NULL;
}

static int fi_attach(void)
{
	return tun_ioctl(fi_tunfd, TUNSETIFF, "tgc1", IFF_TAP | IFF_NO_PI);
}

/*
 * The decision comes before the queue is set up: ENOMEM, tgc1 kept. (On
 * 6.1 an attach does without both of its slab allocations: it succeeds.)
 */
static const char *fi_attach_after(int err, bool decided)
{
	(void)decided;
	fi_reopen();
	if (err != -ENOMEM)
		return "expected ENOMEM";
	if (!dev_exists("tgc1"))
		return "tgc1 is gone";
	return NULL;
}

/*
 * A policy write, a create and an attach, each with every slab allocation
 * it makes failing in turn: the errno says out of memory, the old policy
 * stays in force, no record is left of a create refused before the
 * decision, no device is half made or lost (and the debug kernel's
 * kmemleak scan after the run catches what a failure leaks). Needs a
 * kernel with FAILSLAB and fail-nth (the debug kernel); skipped elsewhere.
 */
static void test_allocation_failures_leave_no_trace(void)
{
	static const struct fi_op policy = {
		"write(policy)", fi_policy_write, fi_policy_undo, fi_policy_after, true,
	}, create = {
		"ioctl(TUNSETIFF) creating tgc0", fi_create, fi_reopen, fi_create_after, true,
	}, attach = {
		"ioctl(TUNSETIFF) attaching to tgc1", fi_attach, fi_reopen, fi_attach_after, false,
	};

	if (access(FAIL_NTH, F_OK) || access(FAILSLAB, F_OK)) {
		diag("no fail-nth or " FAILSLAB ": a kernel without CONFIG_FAILSLAB");
		exit(KSFT_SKIP);
	}
	/* GFP_KERNEL allocations too, and no stack dump for each failure */
	ASSERT_OK(write_once(FAILSLAB "/ignore-gfp-wait", "N", 1), "ignore-gfp-wait");
	ASSERT_OK(write_once(FAILSLAB "/verbose", "0", 1), "failslab verbose");

	LOAD_POLICY(fi_old);
	SET_MODE("enforce");
	fail_each_allocation(&policy);
	expect_policy(fi_new, "after the write with no allocation failing");

	fi_reopen();
	fail_each_allocation(&create);
	make_persistent("tgc1", IFF_TAP | IFF_NO_PI, -1, -1);
	LOAD_POLICY(fi_old);
	fi_reopen();
	fail_each_allocation(&attach);
	close(fi_tunfd);
}

#define TG_RING_SIZE	1024

/* The sequence number of the first record a reader at @after gets, or 0. */
static unsigned long long first_seq_after(unsigned long long after)
{
	char buf[TG_RING_SIZE];
	ssize_t n = pread(decisions_fd, buf, sizeof(buf) - 1, after);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strncmp(buf, "seq=", 4) ? 0 : strtoull(buf + 4, NULL, 10);
}

/*
 * A reader the ring has lapped gets the oldest record still kept: the gap
 * in the sequence numbers shows what it lost. A reader exactly one ring
 * behind loses nothing; a position past the last record is refused.
 */
static void test_ring_lapped_reader_sees_the_gap(void)
{
	unsigned long long mark, last, oldest, got;
	int fd, i, err;

	LOAD_POLICY("deny open name=tgc0\ndefault allow\n");
	SET_MODE("enforce");
	make_persistent("tgc0", IFF_TAP | IFF_NO_PI, -1, -1);
	mark = decisions_mark();
	fd = tun_open();
	for (i = 0; i < TG_RING_SIZE + 8; i++) {
		err = tun_ioctl(fd, TUNSETIFF, "tgc0", IFF_TAP | IFF_NO_PI);
		ASSERT(err == -EACCES, "ioctl(TUNSETIFF) attaching to tgc0, try %d: %s",
		       i + 1, errname(err));
	}
	close(fd);
	last = decisions_mark();
	ASSERT(last == mark + TG_RING_SIZE + 8, "%d denials took seq %llu to %llu",
	       TG_RING_SIZE + 8, mark, last);
	oldest = last - TG_RING_SIZE + 1;
	got = first_seq_after(mark);
	EXPECT(got == oldest, "a reader 8 records more than a ring behind (at %llu) "
	       "got seq %llu first, expected the oldest kept, %llu", mark, got, oldest);
	got = first_seq_after(last - TG_RING_SIZE - 1);
	EXPECT(got == oldest, "a reader one record more than a ring behind got seq %llu "
	       "first, expected %llu", got, oldest);
	got = first_seq_after(last - TG_RING_SIZE);
	EXPECT(got == oldest, "a reader exactly a ring behind got seq %llu first, "
	       "expected %llu", got, oldest);
	got = first_seq_after(last - 1);
	EXPECT(got == last, "a reader one record behind got seq %llu, expected %llu",
	       got, last);
	EXPECT(lseek(decisions_fd, last + 1, SEEK_SET) < 0 && errno == EINVAL,
	       "lseek(%s) past the last record was not refused with EINVAL", TG_DECISIONS);
	errno = 0;
	EXPECT(pread(decisions_fd, (char[8]){ 0 }, 8, last + 1) <= 0,
	       "pread(%s) past the last record returned data", TG_DECISIONS);
}

/*
 * A comm with a space and a backslash is escaped in its record, so it
 * cannot add a field of its own ("uid=7") to the line.
 */
static void test_record_escapes_a_forged_comm(void)
{
	static const char comm[] = "tgc uid=7\\x";
	char buf[1024];
	unsigned long long mark;
	int status, fd;
	ssize_t n;
	pid_t pid;

	LOAD_POLICY("deny open name=tgc0\ndefault allow\n");
	SET_MODE("enforce");
	make_persistent("tgc0", IFF_TAP | IFF_NO_PI, -1, -1);
	mark = decisions_mark();
	fflush(stdout);
	pid = fork();
	ASSERT(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		fd = tun_open();
		if (prctl(PR_SET_NAME, comm) ||
		    tun_ioctl(fd, TUNSETIFF, "tgc0", IFF_TAP | IFF_NO_PI) != -EACCES)
			_exit(1);
		_exit(0);
	}
	ASSERT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0, "the child named '%s' was not refused tgc0", comm);
	n = pread(decisions_fd, buf, sizeof(buf) - 1, mark);
	ASSERT(n > 0, "no decision record after seq %llu", mark);
	buf[n] = '\0';
	EXPECT(strstr(buf, " comm=tgc\\x20uid=7\\x5cx uid=0 "),
	       "the record of a process named '%s' does not escape it: %s", comm, buf);
}

/*
 * Root of a user namespace that owns the device's network namespace holds
 * CAP_NET_ADMIN over the device: the driver lets it attach to a device
 * another uid owns (tun_not_capable), and cap=net_admin matches it. It
 * holds no capability in the initial namespace, where a wrong check looks.
 */
static void test_userns_root_over_its_netns(void)
{
	int ready[2], go[2], done[2], nsfd, status, err = -ECHILD;
	struct record recs[4];
	unsigned long long mark;
	char path[64];
	pid_t child, helper;

	LOAD_POLICY("allow open cap=net_admin name=tgc0\ndeny open name=tgc0\ndefault allow\n");
	SET_MODE("enforce");
	ASSERT(!pipe(ready) && !pipe(go) && !pipe(done), "pipe: %s", strerror(errno));
	fflush(stdout);
	child = fork();
	ASSERT(child >= 0, "fork: %s", strerror(errno));
	if (child == 0) {
		char c = 0;

		/* uid 0 mapped to itself: root of the namespace, able to open
		 * /dev/net/tun (root's 0600), with no capability outside */
		if (unshare(CLONE_NEWUSER) || write_once("/proc/self/setgroups", "deny", 4) ||
		    write_once("/proc/self/uid_map", "0 0 1", 5) ||
		    write_once("/proc/self/gid_map", "0 0 1", 5) || unshare(CLONE_NEWNET)) {
			diag("user and network namespace: %s", strerror(errno));
			_exit(1);
		}
		if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(1);
		err = open(TUN_PATH, O_RDWR | O_CLOEXEC);
		err = err < 0 ? -errno : tun_ioctl(err, TUNSETIFF, "tgc0", IFF_TAP | IFF_NO_PI);
		_exit(write(done[1], &err, sizeof(err)) == sizeof(err) ? 0 : 1);
	}
	close(ready[1]);
	close(done[1]);
	{
		char c;

		ASSERT(read(ready[0], &c, 1) == 1, "the namespace child did not get ready");
	}
	/* root, from the initial namespaces, makes tgc0 in the child's netns,
	 * owned by uid 1000 */
	helper = fork();
	ASSERT(helper >= 0, "fork: %s", strerror(errno));
	if (helper == 0) {
		snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)child);
		nsfd = open(path, O_RDONLY | O_CLOEXEC);
		if (nsfd < 0 || setns(nsfd, CLONE_NEWNET)) {
			diag("setns(%s): %s", path, strerror(errno));
			_exit(1);
		}
		make_persistent("tgc0", IFF_TAP | IFF_NO_PI, USER_A, -1);
		_exit(0);
	}
	ASSERT(waitpid(helper, &status, 0) == helper && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0, "making tgc0 in the child's netns failed");
	mark = decisions_mark();
	ASSERT(write(go[1], "g", 1) == 1, "write: %s", strerror(errno));
	if (read(done[0], &err, sizeof(err)) != sizeof(err))
		err = -ECHILD;
	waitpid(child, &status, 0);
	EXPECT_ERR(err, 0, "ioctl(TUNSETIFF) attaching to tgc0 (owner 1000, in its own "
		   "netns) as root of a user namespace");
	if (err)
		return;
	ASSERT(decisions_since(mark, recs, 4) == 1, "not one decision record for the attach");
	EXPECT(!strcmp(recs[0].op, "open") && !strcmp(recs[0].verdict, "allow") &&
	       !strcmp(recs[0].rule, "1") && recs[0].uid == 0 && recs[0].pid == child,
	       "record: op=%s verdict=%s rule=%s uid=%lu pid=%ld; expected open allow "
	       "rule=1 uid=0 pid=%d", recs[0].op, recs[0].verdict, recs[0].rule,
	       recs[0].uid, recs[0].pid, (int)child);
}

/*
 * A policy of @nrules rules in the shape of a host with one rule per
 * guest: literal names vm0, vm1, ... and ten globs at the end.
 */
static char *big_policy(int nrules, const char *dflt)
{
	size_t size = (size_t)nrules * 64 + 64, n = 0;
	char *text = malloc(size);
	int i;

	ASSERT(text, "malloc(%zu)", size);
	for (i = 0; i < nrules - 10; i++)
		n += snprintf(text + n, size - n,
			      "%s open,attach_queue name=vm%d uid=%d\n",
			      i % 3 ? "allow" : "deny", i, 1000 + i % 50);
	for (i = 0; i < 10; i++)
		n += snprintf(text + n, size - n,
			      "deny create name=guest%d* uid=%d-%d\n", i,
			      2000 + i, 2100 + i);
	snprintf(text + n, size - n, "default %s\n", dflt);
	return text;
}

/* @nrules rules without a name, none matching root: all are visited. */
static char *unnamed_policy(int nrules)
{
	size_t size = (size_t)nrules * 48 + 64, n = 0;
	char *text = malloc(size);
	int i;

	ASSERT(text, "malloc(%zu)", size);
	for (i = 0; i < nrules; i++)
		n += snprintf(text + n, size - n, "deny any uid=%d\n",
			      5000 + i);
	snprintf(text + n, size - n, "default allow\n");
	return text;
}

/* ---- fixture ----------------------------------------------------------- */

/* The policy and mode in force before tgcheck started, restored after. */
static char saved_policy[TG_POLICY_MAX + 1];
static char saved_mode[32];
/* failslab's settings, where there is failslab (the allocation test) */
static char saved_gfp_wait[8], saved_verbose[8];

static int save_state(void)
{
	ssize_t n;

	read_small(FAILSLAB "/ignore-gfp-wait", saved_gfp_wait, sizeof(saved_gfp_wait));
	read_small(FAILSLAB "/verbose", saved_verbose, sizeof(saved_verbose));
	n = read_small(TG_POLICY, saved_policy, sizeof(saved_policy));

	if (n < 0)
		return n;
	n = read_small(TG_MODE, saved_mode, sizeof(saved_mode));
	return n < 0 ? n : 0;
}

static int restore_state(void)
{
	int err = policy_load(saved_policy);

	return err ? err : mode_set(saved_mode);
}

/* Undo whatever a test left: saved policy and mode, no tgc* devices. */
static void teardown(void)
{
	DIR *d;
	struct dirent *e;
	int err;

	/* The devices go first, while the test's own policy may deny it. */
	err = policy_load("default allow\n");
	if (err)
		diag("teardown: opening the policy: %s", strerror(-err));
	d = opendir("/sys/class/net");
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "tgc", 3))
			continue;
		err = remove_persistent(e->d_name);
		if (err)
			diag("teardown: removing %s: %s", e->d_name,
			     strerror(-err));
	}
	closedir(d);
	if (saved_gfp_wait[0])
		write_once(FAILSLAB "/ignore-gfp-wait", saved_gfp_wait, strlen(saved_gfp_wait));
	if (saved_verbose[0])
		write_once(FAILSLAB "/verbose", saved_verbose, strlen(saved_verbose));
	err = restore_state();
	if (err)
		diag("teardown: restoring policy and mode: %s", strerror(-err));
}

static const struct test tests[] = {
	{ "lsm_listed", test_lsm_listed, 10 },
	{ "policy_read_back_canonical", test_policy_read_back_canonical, 10 },
	{ "policy_replaced_whole", test_policy_replaced_whole, 10 },
	{ "hash_inside_a_name", test_hash_inside_a_name, 30 },
	{ "bad_policy_keeps_old", test_bad_policy_keeps_old, 30 },
	{ "write_needs_cap_mac_admin", test_write_needs_cap_mac_admin, 10 },
	{ "write_judged_by_opener", test_write_judged_by_opener, 10 },
	{ "oversized_policy_refused", test_oversized_policy_refused, 10 },
	{ "rule_limit_names_the_rule_past_it", test_rule_limit_names_the_rule_past_it, 30 },
	{ "create_allowed_and_denied", test_create_allowed_and_denied, 30 },
	{ "refused_create_leaves_no_record",
	  test_refused_create_leaves_no_record, 30 },
	{ "open_allowed_and_denied", test_open_allowed_and_denied, 30 },
	{ "busy_device_is_not_decided", test_busy_device_is_not_decided, 30 },
	{ "renamed_device_seen_by_open", test_renamed_device_seen_by_open, 30 },
	{ "attach_queue_allowed_and_denied",
	  test_attach_queue_allowed_and_denied, 30 },
	{ "permissive_allows_and_records",
	  test_permissive_allows_and_records, 30 },
	{ "off_records_nothing", test_off_records_nothing, 30 },
	{ "dac_refusal_leaves_no_record",
	  test_dac_refusal_leaves_no_record, 30 },
	{ "decisions_seek_and_stats", test_decisions_seek_and_stats, 30 },
	{ "stats_count_each_verdict", test_stats_count_each_verdict, 30 },
	{ "policy_and_mode_writes_checked", test_policy_and_mode_writes_checked, 30 },
	{ "decisions_read_edges", test_decisions_read_edges, 30 },
	{ "allocation_failures_leave_no_trace",
	  test_allocation_failures_leave_no_trace, 600 },
	{ "ring_lapped_reader_sees_the_gap",
	  test_ring_lapped_reader_sees_the_gap, 120 },
	{ "record_escapes_a_forged_comm", test_record_escapes_a_forged_comm, 30 },
	{ "userns_root_over_its_netns", test_userns_root_over_its_netns, 30 },
};

#define NTESTS	(sizeof(tests) / sizeof(tests[0]))

/* Why nothing can be tested here, or NULL. */
static const char *missing_requirement(void)
{
	if (geteuid() != 0)
		return "not running as root";
	if (access(TG_DIR, F_OK))
		return TG_DIR " missing: tunguard not enabled or securityfs not mounted";
	if (access(TUN_PATH, F_OK))
		return TUN_PATH " missing: no TUN driver";
	return NULL;
}

static int run_test_body(void *test)
{
	((const struct test *)test)->fn();
	return t_result;
}

static int run_test(const struct test *t)
{
	int status = isolate_run(run_test_body, (void *)t, t->timeout);

	teardown();
	if (status < 0) {
		diag("%s: fork: %s", t->name, strerror(errno));
		return KSFT_FAIL;
	}
	if (WIFSIGNALED(status)) {
		diag("%s: %s", t->name, WTERMSIG(status) == SIGALRM ?
		     "timed out" : strsignal(WTERMSIG(status)));
		return KSFT_FAIL;
	}
	return WEXITSTATUS(status);
}

static void self_identity(void)
{
	struct stat st;
	char *nl;

	read_small("/proc/self/comm", self_comm, sizeof(self_comm));
	nl = strchr(self_comm, '\n');
	if (nl)
		*nl = '\0';
	if (stat("/proc/self/ns/net", &st) == 0)
		self_netns = st.st_ino;
}

static int run_tests(void)
{
	int pass = 0, fail = 0, skip = 0, rc;
	const char *why = missing_requirement();
	size_t i;

	ktap_version(&out, 0);
	ktap_plan(&out, 0, NTESTS);
	ktap_put(stdout, &out);
	if (!why) {
		self_identity();
		decisions_fd = open(TG_DECISIONS, O_RDONLY);
		if (decisions_fd < 0)
			why = "cannot open " TG_DECISIONS;
		else if (save_state())
			why = "cannot read the policy and mode in force";
	}
	for (i = 0; i < NTESTS; i++) {
		double start = now();

		rc = why ? KSFT_SKIP : run_test(&tests[i]);
		if (!why)
			diag("%s: %.2f s", tests[i].name, now() - start);
		ktap_result(&out, 0, rc == KSFT_PASS || rc == KSFT_SKIP, (int)i + 1,
			    tests[i].name, rc == KSFT_SKIP ? "SKIP" : NULL, why);
		ktap_put(stdout, &out);
		pass += rc == KSFT_PASS;
		skip += rc == KSFT_SKIP;
		fail += rc != KSFT_PASS && rc != KSFT_SKIP;
	}
	diag("Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0", pass, fail, skip);
	if (fail)
		return KSFT_FAIL;
	return pass ? KSFT_PASS : KSFT_SKIP;
}

/* ---- bench ------------------------------------------------------------- */

/* Operations per second of @op over about @seconds, or -1 on error. */
static double bench_rate(int (*op)(void), double seconds)
{
	double start = now(), elapsed;
	long n = 0;

	do {
		if (op())
			return -1;
		n++;
		elapsed = now() - start;
	} while (elapsed < seconds);
	return n / elapsed;
}

static int bench_create_close(void)
{
	int fd = open(TUN_PATH, O_RDWR), err;

	if (fd < 0)
		return -errno;
	err = tun_ioctl(fd, TUNSETIFF, "bench0", IFF_TAP | IFF_NO_PI);
	close(fd);
	if (err)
		diag("bench: ioctl(TUNSETIFF, bench0): %s", strerror(-err));
	return err;
}

static int bench_attach_close(void)
{
	int fd = open(TUN_PATH, O_RDWR), err;

	if (fd < 0)
		return -errno;
	err = tun_ioctl(fd, TUNSETIFF, "benchp0", IFF_TAP | IFF_NO_PI);
	close(fd);
	if (err)
		diag("bench: ioctl(TUNSETIFF, benchp0): %s", strerror(-err));
	return err;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#define BENCH_ROUNDS	3

/*
 * Rounds interleave the configurations so that drift of the (emulated)
 * machine hits them alike; each figure is the median of the rounds.
 */
static int run_bench(double seconds)
{
	char *indexed = big_policy(1000, "allow");
	char *unnamed = unnamed_policy(1000);
	const struct {
		const char *label, *mode, *policy;
	} configs[] = {
		{ "off, 1000 rules", "off", indexed },
		{ "enforce, default only", "enforce", "default allow\n" },
		{ "enforce, 1000 named rules", "enforce", indexed },
		{ "enforce, 1000 unnamed rules", "enforce", unnamed },
	};
	enum { NCONF = sizeof(configs) / sizeof(configs[0]) };
	double create[NCONF][BENCH_ROUNDS], attach[NCONF][BENCH_ROUNDS];
	const char *why = missing_requirement();
	int round, err = 0;
	size_t i;

	if (!why && save_state())
		why = "cannot read the policy and mode in force";
	/* KTAP like the tests, so the lab reads it the same way */
	ktap_version(&out, 0);
	ktap_plan(&out, 0, 1);
	if (why) {
		ktap_result(&out, 0, true, 1, "bench", "SKIP", why);
		ktap_put(stdout, &out);
		return KSFT_SKIP;
	}
	ktap_put(stdout, &out);
	err = policy_load("default allow\n");
	if (err) {
		diag("bench: write(%s): %s", TG_POLICY, strerror(-err));
		ktap_result(&out, 0, false, 1, "bench", NULL, NULL);
		ktap_put(stdout, &out);
		return KSFT_FAIL;
	}
	make_persistent("benchp0", IFF_TAP | IFF_NO_PI, -1, -1);
	diag("bench: %d rounds of %.1f s per figure, median shown; bench0/benchp0 match no rule",
	     BENCH_ROUNDS, seconds);
	for (round = 0; round < BENCH_ROUNDS && !err; round++) {
		for (i = 0; i < NCONF && !err; i++) {
			err = policy_load(configs[i].policy);
			if (!err)
				err = mode_set(configs[i].mode);
			if (err) {
				diag("bench: %s: %s", configs[i].label, strerror(-err));
				break;
			}
			create[i][round] = bench_rate(bench_create_close, seconds);
			attach[i][round] = bench_rate(bench_attach_close, seconds);
			if (create[i][round] < 0 || attach[i][round] < 0)
				err = -EIO;
		}
	}
	for (i = 0; i < NCONF && !err; i++) {
		qsort(create[i], BENCH_ROUNDS, sizeof(double), cmp_double);
		qsort(attach[i], BENCH_ROUNDS, sizeof(double), cmp_double);
		diag("bench: %-28s create+close %7.0f ops/s  attach+close %7.0f ops/s",
		     configs[i].label, create[i][BENCH_ROUNDS / 2], attach[i][BENCH_ROUNDS / 2]);
	}
	policy_load("default allow\n");
	remove_persistent("benchp0");
	restore_state();
	free(indexed);
	free(unnamed);
	ktap_result(&out, 0, !err, 1, "bench", NULL, NULL);
	ktap_put(stdout, &out);
	return err ? KSFT_FAIL : KSFT_PASS;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "--bench"))
		return run_bench(argc > 2 ? atof(argv[2]) : 2.0);
	if (argc > 1) {
		fprintf(stderr, "usage: %s [--bench [seconds]]\n", argv[0]);
		return 2;
	}
	return run_tests();
}
