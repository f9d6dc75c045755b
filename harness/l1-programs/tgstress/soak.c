// SPDX-License-Identifier: GPL-2.0
/*
 * The soak: worker processes with different credentials and namespaces
 * create, attach, detach and re-attach queues and close, while this
 * process replaces the policy and the mode every few milliseconds and
 * checks every decision record against the model.
 *
 * Which policy decided a record: each worker writes into its comm the
 * last generation (policy or mode write) completed before its ioctl, so
 * the decision used that generation or a later one; and a generation
 * whose write started after the record was made cannot have decided it
 * (the record's sequence number is not above the last one before that
 * write). The record must match the model under one of the generations
 * in between. Workers wait when they could overrun the kernel's ring of
 * 1024 records before this process has read them, so no record is lost,
 * and a gap in the sequence numbers is a failure.
 */
#include "tgstress.h"
#include "common/caps.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/if_tun.h>

#define NWORKERS	5
#define MAX_HELD	6
#define CHILD_UID	100000	/* root of the child user namespace, seen from outside */
#define RING_ROOM	400	/* ops not yet read back; each makes at most 2 records */
#define REPORT_MAX	5

struct worker_kind {
	const char *what;
	uint32_t uid, gid;
	uint32_t groups[2];
	size_t ngroups;
	bool cap, init_userns, own_netns;
};

static const struct worker_kind kinds[NWORKERS] = {
	{ "root", 0, 0, { 0 }, 0, true, true, false },
	{ "root (second)", 0, 0, { 0 }, 0, true, true, false },
	{ "uid 1000 in groups 1000,2000", 1000, 1000, { 1000, 2000 }, 2, false, true, false },
	{ "uid 0 without CAP_NET_ADMIN", 0, 0, { 0 }, 0, false, true, false },
	{ "root of a user and network namespace", CHILD_UID, CHILD_UID, { 0 }, 0, true, false, true },
};

/* Devices: sk + tun/tap (t/p) + single/multiqueue (s/m) + 0..2 */
#define NDEVS 12
static void dev_name(int i, char *buf)
{
	snprintf(buf, 16, "sk%c%c%d", i & 1 ? 'p' : 't', i & 2 ? 'm' : 's', i / 4);
}

static int dev_index(const char *name)
{
	char buf[16];

	for (int i = 0; i < NDEVS; i++) {
		dev_name(i, buf);
		if (!strcmp(buf, name))
			return i;
	}
	return -1;
}

static int dev_flags(int i)
{
	return (i & 1 ? IFF_TAP : IFF_TUN) | IFF_NO_PI | (i & 2 ? IFF_MULTI_QUEUE : 0);
}

static const char *const soak_names[] = {
	"sktm0", "skps1", "skpm2", "skts2", "sk*", "skt*", "skp*", "sk?m*", "sk[tp]s[01]",
	"*2", "sk\\p*", "[!s]*", "s?????", "*m?", "sk[a-p]??",
};

static const uint32_t soak_ids[] = { 0, 999, 1000, 1001, 2000, CHILD_UID, 4294967294u };

static const struct vocab soak_vocab = {
	soak_names, sizeof(soak_names) / sizeof(soak_names[0]),
	soak_ids, sizeof(soak_ids) / sizeof(soak_ids[0]),
};

/* Shared between this process and the workers. */
struct shared {
	volatile int stop;
	unsigned long gen_done;		/* last generation whose write returned */
	unsigned long ops_started, ops_done, drained;
	unsigned long cur_lo[NWORKERS];
	unsigned long eacces[NWORKERS], ops[NWORKERS], records[NWORKERS];
	unsigned long unexpected[NWORKERS];
	char unexpected_what[NWORKERS][96];
	unsigned int netns[NWORKERS];
	int ready[NWORKERS];		/* in its namespaces, waiting for id maps */
};

static unsigned long load(unsigned long *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static void store(unsigned long *p, unsigned long v)
{
	__atomic_store_n(p, v, __ATOMIC_SEQ_CST);
}

static void add(unsigned long *p, unsigned long v)
{
	__atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
}

static unsigned int netns_inode(void)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) ? 0 : (unsigned int)st.st_ino;
}

/* ---- workers ------------------------------------------------------------ */

struct held {
	int fd, dev;
	bool detached;
};

static void note(struct shared *sh, int w, int err, const char *what, const char *dev)
{
	if (err == -EACCES)
		add(&sh->eacces[w], 1);
	/* EBUSY: a single-queue device in use; EPERM: a create without
	 * CAP_NET_ADMIN, which the driver refuses before tunguard */
	if (!err || err == -EACCES || err == -EBUSY || (err == -EPERM && !kinds[w].cap))
		return;
	if (!sh->unexpected[w]++)
		snprintf(sh->unexpected_what[w], sizeof(sh->unexpected_what[w]), "%s %s: %s",
			 what, dev, strerror(-err));
}

/* Wait for room in the ring, then say which generation the op starts in. */
static void op_begin(struct shared *sh, int w)
{
	char comm[16];
	unsigned long lo;

	while (load(&sh->ops_started) - load(&sh->drained) >= RING_ROOM && !sh->stop)
		usleep(200);
	add(&sh->ops_started, 1);
	lo = load(&sh->gen_done);
	store(&sh->cur_lo[w], lo);
	snprintf(comm, sizeof(comm), "s%dg%lu", w, lo);
	prctl(PR_SET_NAME, comm);
}

static void op_end(struct shared *sh, int w)
{
	add(&sh->ops_done, 1);
	add(&sh->ops[w], 1);
}

static void worker_loop(struct shared *sh, int w, uint64_t seed)
{
	struct held held[MAX_HELD];
	struct rng r = { seed | 1 };
	int nheld = 0;
	char name[16];

	while (!sh->stop) {
		uint32_t dice = rng_below(&r, 10);

		if (nheld < MAX_HELD && (dice < 5 || !nheld)) {
			/* TUNSETIFF: creates the device, or opens and attaches to it */
			int dev = (int)rng_below(&r, NDEVS), fd = open(TUN_PATH, O_RDWR), err;

			if (fd < 0) {
				note(sh, w, -errno, "open", TUN_PATH);
				continue;
			}
			dev_name(dev, name);
			op_begin(sh, w);
			err = tun_setiff(fd, name, dev_flags(dev));
			op_end(sh, w);
			note(sh, w, err, "TUNSETIFF", name);
			if (err) {
				close(fd);
				continue;
			}
			held[nheld++] = (struct held){ fd, dev, false };
		} else if (dice < 8) {
			/* a queue of a multiqueue device: detach, or attach again */
			struct held *h = &held[rng_below(&r, (uint32_t)nheld)];
			int err;

			if (!(dev_flags(h->dev) & IFF_MULTI_QUEUE))
				continue;
			dev_name(h->dev, name);
			if (!h->detached) {
				err = tun_setqueue(h->fd, IFF_DETACH_QUEUE);
				note(sh, w, err, "TUNSETQUEUE detach", name);
				h->detached = !err;
				continue;
			}
			op_begin(sh, w);
			err = tun_setqueue(h->fd, IFF_ATTACH_QUEUE);
			op_end(sh, w);
			note(sh, w, err, "TUNSETQUEUE attach", name);
			h->detached = err != 0;
		} else {
			uint32_t i = rng_below(&r, (uint32_t)nheld);

			close(held[i].fd);
			held[i] = held[--nheld];
		}
	}
	while (nheld)
		close(held[--nheld].fd);
}

/* Become worker @w; the user namespace worker waits for its id maps. */
static int worker_setup(struct shared *sh, int w, int maps_written)
{
	const struct worker_kind *k = &kinds[w];
	gid_t groups[2] = { k->groups[0], k->groups[1] };
	char c;

	if (setgroups(k->ngroups, groups))
		return -1;
	if (k->own_netns) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET))
			return -1;
		sh->ready[w] = 1;
		if (read(maps_written, &c, 1) != 1)
			return -1;
		if (setresgid(0, 0, 0) || setresuid(0, 0, 0))
			return -1;
	} else if (k->uid) {
		if (setresgid(k->gid, k->gid, k->gid) || setresuid(k->uid, k->uid, k->uid))
			return -1;
	} else if (!k->cap && caps_keep_only(~CAP_BIT(CAP_NET_ADMIN), false)) {
		return -1;
	}
	sh->netns[w] = netns_inode();
	return 0;
}

static int map_child(pid_t pid)
{
	char path[64], map[64];

	snprintf(map, sizeof(map), "0 %u 1\n", CHILD_UID);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	if (write_string(path, map))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/setgroups", pid);
	if (write_string(path, "deny"))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	return write_string(path, map) ? -1 : 0;
}

/* ---- generations -------------------------------------------------------- */

enum { MODE_OFF, MODE_PERMISSIVE, MODE_ENFORCE };
static const char *const mode_names[] = { "off", "permissive", "enforce" };

struct gen {
	unsigned long long seq_before;	/* last record before the write began */
	size_t policy;			/* index into the policies */
	int mode;
};

struct soak {
	struct ktest *t;
	struct shared *sh;
	pid_t pids[NWORKERS];
	struct gen *gens;
	size_t ngens, cap_gens;
	struct tgm_policy *policies;	/* freed once no record can use them */
	size_t npolicies, cap_policies, first_live;
	unsigned long long last_seq;
	unsigned int init_netns;
	int dfd, endfd;
	/* results */
	unsigned long records, mismatches, gaps, foreign, enforced_denies;
	unsigned long mode_writes, policy_writes, write_errors;
	unsigned long by_op[TGM_NOPS][2];
};

static int seq_now(struct soak *s, unsigned long long *seq)
{
	off_t end = lseek(s->endfd, 0, SEEK_END);

	if (end < 0)
		return -errno;
	*seq = (unsigned long long)end;
	return 0;
}

static int new_generation(struct soak *s, struct rng *r)
{
	struct gen g = s->ngens ? s->gens[s->ngens - 1] : (struct gen){ 0, 0, MODE_ENFORCE };
	struct sbuf t = { 0 };
	int err;

	if (s->ngens == s->cap_gens) {
		s->cap_gens = s->cap_gens ? s->cap_gens * 2 : 1024;
		s->gens = xrealloc(s->gens, s->cap_gens * sizeof(*s->gens));
	}
	if (s->npolicies == s->cap_policies) {
		s->cap_policies = s->cap_policies ? s->cap_policies * 2 : 1024;
		s->policies = xrealloc(s->policies, s->cap_policies * sizeof(*s->policies));
	}
	if ((err = seq_now(s, &g.seq_before)))
		return err;
	if (s->ngens && rng_chance(r, 6)) {
		uint32_t d = rng_below(r, 20);

		g.mode = d < 10 ? MODE_ENFORCE : d < 17 ? MODE_PERMISSIVE : MODE_OFF;
		s->gens[s->ngens++] = g;
		err = tg_set_mode(mode_names[g.mode]);
		s->mode_writes++;
	} else {
		struct tgm_verdict v;

		gen_policy(r, &soak_vocab, rng_chance(r, 40) ? 200 + rng_below(r, 300) : rng_below(r, 16), &t);
		v = tgm_parse(t.buf, t.len, &s->policies[s->npolicies]);
		if (v.err) {
			ktest_diag(s->t, "the model refuses a generated policy, line %u: %s", v.line,
				   v.reason);
			sbuf_free(&t);
			return -EINVAL;
		}
		g.policy = s->npolicies++;
		s->gens[s->ngens++] = g;
		err = tg_set_policy(t.buf, t.len);
		s->policy_writes++;
	}
	sbuf_free(&t);
	if (err)
		return err;
	store(&s->sh->gen_done, s->ngens - 1);
	return 0;
}

/* Policies older than every generation a record still to come can name. */
static void free_old_policies(struct soak *s, unsigned long min_lo)
{
	size_t keep = s->gens[min_lo].policy;

	while (s->first_live < keep)
		tgm_free(&s->policies[s->first_live++]);
}

/* ---- checking records --------------------------------------------------- */

struct record {
	unsigned long long seq;
	char op[16], verdict[8], mode[16], rule[16], comm[32], dev[64], type[8];
	int pid;
	unsigned int uid, gid, netns;
};

static bool parse_record(const char *line, struct record *rec)
{
	return sscanf(line, "seq=%llu op=%15s verdict=%7s mode=%15s rule=%15s pid=%d comm=%31s "
		      "uid=%u gid=%u dev=%63s type=%7s netns=%u",
		      &rec->seq, rec->op, rec->verdict, rec->mode, rec->rule, &rec->pid,
		      rec->comm, &rec->uid, &rec->gid, rec->dev, rec->type, &rec->netns) == 12;
}

static int lookup(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

static void show_mismatch(struct soak *s, const char *line, const char *why,
			  unsigned long lo, unsigned long hi)
{
	if (s->mismatches++ >= REPORT_MAX)
		return;
	ktest_diag(s->t, "a record does not match the model: %s", why);
	ktest_diag(s->t, "  %s", line);
	ktest_diag(s->t, "  generations %lu..%lu could have decided it:", lo, hi);
	for (unsigned long g = lo; g <= hi && g < lo + 3; g++) {
		char *text = s->gens[g].policy >= s->first_live ?
			tgm_canonical(&s->policies[s->gens[g].policy]) : NULL;
		int shown = 0;

		ktest_diag(s->t, "  generation %lu: mode %s, policy %s", g, mode_names[s->gens[g].mode],
		     text ? "" : "(freed)");
		for (char *l = text ? strtok(text, "\n") : NULL; l; l = strtok(NULL, "\n")) {
			if (shown++ == 20) {
				ktest_diag(s->t, "    ...");
				break;
			}
			ktest_diag(s->t, "    %s", l);
		}
		free(text);
	}
}

static void check_record(struct soak *s, const char *line)
{
	static const char *const verdicts[] = { "deny", "allow" };
	static const char *const types[] = { "none", "tun", "tap" };
	struct tgm_subject subj;
	struct tgm_object obj;
	struct record rec;
	unsigned long lo, hi;
	int w, op, mode, allow, dev, type;
	bool mode_ok = false, rule_ok = false;
	char why[160];

	if (!parse_record(line, &rec)) {
		show_mismatch(s, line, "not a decision record", 0, 0);
		return;
	}
	if (rec.seq != s->last_seq + 1)
		s->gaps += rec.seq - s->last_seq - 1;
	s->last_seq = rec.seq;
	s->records++;
	if (sscanf(rec.comm, "s%dg%lu", &w, &lo) != 2 || w < 0 || w >= NWORKERS ||
	    rec.pid != s->pids[w]) {
		if (s->foreign++ < REPORT_MAX)
			ktest_diag(s->t, "a record from a process that is not a worker: %s", line);
		return;
	}
	op = lookup(tgm_op_names, TGM_NOPS, rec.op);
	mode = lookup(mode_names, 3, rec.mode);
	allow = lookup(verdicts, 2, rec.verdict);
	type = lookup(types, 3, rec.type);
	dev = dev_index(rec.dev);
	if (op < 0 || mode <= MODE_OFF || allow < 0 || dev < 0 ||
	    type != (dev_flags(dev) & IFF_TAP ? TGM_TYPE_TAP : TGM_TYPE_TUN)) {
		show_mismatch(s, line, "op, mode, verdict, device or type out of place", lo, lo);
		return;
	}
	if (rec.uid != kinds[w].uid || rec.gid != kinds[w].gid ||
	    rec.netns != (kinds[w].own_netns ? s->sh->netns[w] : s->init_netns)) {
		show_mismatch(s, line, "uid, gid or netns is not the worker's", lo, lo);
		return;
	}
	for (hi = lo; hi + 1 < s->ngens && s->gens[hi + 1].seq_before < rec.seq; hi++)
		;
	if (lo >= s->ngens || s->gens[lo].seq_before >= rec.seq) {
		show_mismatch(s, line, "its generation started after it was recorded", lo, lo);
		return;
	}

	subj = (struct tgm_subject){ kinds[w].uid, kinds[w].gid, kinds[w].groups,
				     kinds[w].ngroups, kinds[w].cap, kinds[w].init_userns };
	obj = (struct tgm_object){
		.name = rec.dev, .type = (enum tgm_type)type,
		.mq = dev_flags(dev) & IFF_MULTI_QUEUE, .init_netns = !kinds[w].own_netns,
		/* the devices of a namespace are all made by workers of one
		 * uid: 0 in the initial one, the child namespace's root in it */
		.creator = op == TGM_CREATE || rec.uid == (kinds[w].own_netns ? CHILD_UID : 0),
	};
	for (unsigned long g = lo; g <= hi; g++) {
		const struct tgm_policy *p = &s->policies[s->gens[g].policy];
		size_t rule = tgm_match(p, (enum tgm_op)op, &subj, &obj);
		char want[24];

		if (rule)
			snprintf(want, sizeof(want), "%zu", rule);
		else
			snprintf(want, sizeof(want), "default");
		mode_ok |= s->gens[g].mode == mode;
		rule_ok |= !strcmp(want, rec.rule) && tgm_allows(p, rule) == (allow == 1);
	}
	if (!mode_ok || !rule_ok) {
		snprintf(why, sizeof(why), "%s", !mode_ok ? "no generation had this mode" :
			 "no generation's policy gives this rule and verdict");
		show_mismatch(s, line, why, lo, hi);
		return;
	}
	s->by_op[op][allow]++;
	s->sh->records[w]++;
	if (!allow && mode == MODE_ENFORCE)
		s->enforced_denies++;
}

/* Read every record there is and check it. */
static int drain(struct soak *s)
{
	static char buf[1 << 17];
	unsigned long done = load(&s->sh->ops_done), min_lo = load(&s->sh->gen_done);
	ssize_t n;

	for (int w = 0; w < NWORKERS; w++) {
		unsigned long lo = load(&s->sh->cur_lo[w]);

		min_lo = lo < min_lo ? lo : min_lo;
	}
	while ((n = read(s->dfd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = '\0';
		for (char *save, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			check_record(s, l);
	}
	if (n < 0)
		return -errno;
	store(&s->sh->drained, done);
	free_old_policies(s, min_lo);
	return 0;
}

static void stop_workers(struct soak *s, int started)
{
	s->sh->stop = 1;
	for (int w = 0; w < started; w++)
		if (s->pids[w] > 0)
			waitpid(s->pids[w], NULL, 0);
}

void run_soak(const struct soak_opts *o, struct ktest *t)
{
	struct soak s = { .t = t, .dfd = -1, .endfd = -1 };
	struct rng r = { o->seed | 1 };
	double t0 = now_ms(), next_write = 0, next_note = t0 + 30000;
	unsigned long eacces = 0, ops = 0, unexpected = 0;
	int err = 0, started = 0, pipes[NWORKERS][2];

	s.sh = mmap(NULL, sizeof(*s.sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	s.dfd = open(TG_DECISIONS, O_RDONLY | O_CLOEXEC);
	s.endfd = open(TG_DECISIONS, O_RDONLY | O_CLOEXEC);
	s.init_netns = netns_inode();
	if (s.sh == MAP_FAILED || s.dfd < 0 || s.endfd < 0) {
		ktest_broken(t, "opening %s: %s", TG_DECISIONS, strerror(errno));
		goto out;
	}
	memset((void *)s.sh, 0, sizeof(*s.sh));
	if ((err = tg_set_mode("enforce")) || (err = new_generation(&s, &r))) {
		ktest_broken(t, "the first policy and enforce mode: %s", strerror(-err));
		goto out;
	}
	/* the reader starts after the last record made before the soak */
	s.last_seq = s.gens[0].seq_before;
	if (lseek(s.dfd, (off_t)s.last_seq, SEEK_SET) < 0) {
		ktest_broken(t, "lseek(%s, %llu): %s", TG_DECISIONS, s.last_seq, strerror(errno));
		goto out;
	}

	for (int w = 0; w < NWORKERS; w++, started++) {
		if (pipe(pipes[w]))
			break;
		s.pids[w] = fork();
		if (s.pids[w] == 0) {
			close(pipes[w][1]);
			if (worker_setup(s.sh, w, pipes[w][0])) {
				snprintf(s.sh->unexpected_what[w], sizeof(s.sh->unexpected_what[w]),
					 "setting up as %s: %s", kinds[w].what, strerror(errno));
				s.sh->unexpected[w] = 1;
				_exit(1);
			}
			worker_loop(s.sh, w, o->seed + (uint64_t)w * 7919);
			_exit(0);
		}
		close(pipes[w][0]);
		if (kinds[w].own_netns) {
			while (s.pids[w] > 0 && !s.sh->ready[w] && !s.sh->unexpected[w])
				usleep(1000);
			if (map_child(s.pids[w]))
				ktest_diag(t, "writing the id maps of worker %d: %s", w, strerror(errno));
		}
		if (write(pipes[w][1], "", 1) != 1)
			ktest_diag(t, "waking worker %d: %s", w, strerror(errno));
		close(pipes[w][1]);
	}

	while (now_ms() - t0 < o->seconds * 1000 && !err) {
		double now = now_ms();

		if ((err = drain(&s)))
			break;
		if (now >= next_write) {
			err = new_generation(&s, &r);
			next_write = now + 2 + rng_below(&r, 28);
		} else {
			usleep(1000);
		}
		if (now >= next_note) {
			progress("soak: %.0f s, %lu records checked, %zu generations",
				 (now - t0) / 1000, s.records, s.ngens);
			next_note += 30000;
		}
	}
	if (err)
		ktest_diag(t, "stopped early: %s", strerror(-err));
	stop_workers(&s, started);
	if (!err)
		err = drain(&s);

	for (int w = 0; w < NWORKERS; w++) {
		ktest_diag(t, "worker %d (%s): %lu ioctls, %lu records, %lu EACCES", w, kinds[w].what,
			   s.sh->ops[w], s.sh->records[w], s.sh->eacces[w]);
		eacces += s.sh->eacces[w];
		ops += s.sh->ops[w];
		if (s.sh->unexpected[w]) {
			unexpected++;
			ktest_diag(t, "worker %d (%s): %lu unexpected errors, the first: %s", w,
				   kinds[w].what, s.sh->unexpected[w], s.sh->unexpected_what[w]);
		}
	}
	ktest_diag(t, "%.1f s, %d workers, %lu ioctls that decide, %lu policy and %lu mode writes",
		   (now_ms() - t0) / 1000, NWORKERS, ops, s.policy_writes, s.mode_writes);
	ktest_diag(t, "%lu records checked against the model: %lu mismatches, %lu foreign, %lu lost",
		   s.records, s.mismatches, s.foreign, s.gaps);
	for (int op = 0; op < TGM_NOPS; op++)
		ktest_diag(t, "  %-12s allow %7lu  deny %7lu", tgm_op_names[op], s.by_op[op][1],
			   s.by_op[op][0]);
	ktest_diag(t, "EACCES returned %lu times; records of an enforced deny: %lu", eacces,
		   s.enforced_denies);
	ktest_check(t, !err && !unexpected && !s.mismatches && !s.foreign && s.records > 0,
		    "every decision record matches the model under a policy then in force");
	ktest_check(t, !err && !s.gaps, "no decision record was lost");
	ktest_check(t, !err && eacces == s.enforced_denies,
		    "every EACCES is a deny record in enforce mode, and every such record an EACCES");
out:
	tg_set_mode("enforce");
	tg_set_policy(TG_BOOT_POLICY, strlen(TG_BOOT_POLICY));
	while (s.first_live < s.npolicies)
		tgm_free(&s.policies[s.first_live++]);
	free(s.policies);
	free(s.gens);
	if (s.dfd >= 0)
		close(s.dfd);
	if (s.endfd >= 0)
		close(s.endfd);
	if (s.sh != MAP_FAILED)
		munmap(s.sh, sizeof(*s.sh));
}
