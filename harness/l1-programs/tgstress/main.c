// SPDX-License-Identifier: GPL-2.0
/*
 * tgstress: hold the tunguard LSM to a model of its policy, from inside L1.
 *
 *   policy_fuzz  random and mutated policies written to the policy file
 *                while other processes take decisions: the kernel takes
 *                exactly what the model takes, reads back the model's
 *                canonical text, and keeps the old policy byte for byte
 *                after every refusal
 *   soak         processes create, attach, detach and re-attach queues and
 *                close while the policy and mode are replaced; every
 *                decision record is checked against the model
 *
 * Run as root. KTAP v1 on stdout, progress as top-level diagnostics while
 * it runs; exit 0 when all passed, 1 when a check failed, 2 when setup
 * broke, 4 when tunguard is not there. Kernel reports (KASAN, lockdep,
 * ...) are the runner's to find on the console.
 */
#include "tgstress.h"
#include "common/ktap.h"
#include "common/verdict.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/if.h>
#include <linux/if_tun.h>

#define SHOW_MAX	160	/* bytes of a policy or record shown in a report */

void progress(const char *fmt, ...)
{
	struct sbuf msg = { 0 }, line = { 0 };
	va_list ap;

	va_start(ap, fmt);
	sbuf_vprintf(&msg, fmt, ap);
	va_end(ap);
	ktap_diag(&line, 0, msg.buf);
	ktap_put(stdout, &line);
	sbuf_free(&msg);
	sbuf_free(&line);
}

void show(struct ktest *t, const char *what, const char *s, size_t len)
{
	struct sbuf out = { 0 };
	size_t i;

	for (i = 0; i < len && i < SHOW_MAX; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n')
			sbuf_puts(&out, "\\n");
		else if (c >= 0x20 && c < 0x7f && c != '\\')
			sbuf_add(&out, (const char *)&c, 1);
		else
			sbuf_printf(&out, "\\x%02x", c);
	}
	if (i < len)
		sbuf_printf(&out, "... (%zu bytes)", len);
	ktest_diag(t, "  %s: \"%s\"", what, out.buf ? out.buf : "");
	sbuf_free(&out);
}

int tg_write(int fd, const char *buf, size_t len)
{
	ssize_t n = pwrite(fd, buf, len, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static int write_whole(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = tg_write(fd, text, len);
	close(fd);
	return err;
}

int tg_set_policy(const char *text, size_t len)
{
	return write_whole(TG_POLICY, text, len);
}

int tg_set_mode(const char *mode)
{
	return write_whole(TG_MODE, mode, strlen(mode));
}

int tun_setiff(int fd, const char *name, int flags)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_flags = (short)flags;
	return ioctl(fd, TUNSETIFF, &ifr) < 0 ? -errno : 0;
}

int tun_setqueue(int fd, int flags)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = (short)flags;
	return ioctl(fd, TUNSETQUEUE, &ifr) < 0 ? -errno : 0;
}

static void usage(FILE *out)
{
	fputs("usage: tgstress [--policies N] [--deciders N] [--soak SECONDS] [--seed N]\n"
	      "  --policies N    policies the fuzzer writes (default 2000; 0: no fuzz)\n"
	      "  --deciders N    processes taking decisions meanwhile (default 2, at most 7)\n"
	      "  --soak SECONDS  how long the soak runs (default 5; 0: no soak)\n"
	      "  --seed N        random seed (default: from the clock; printed)\n", out);
}

static bool parse_number(const char *s, unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return !errno && end != s && !*end && *s != '-';
}

int main(int argc, char **argv)
{
	struct fuzz_opts fo = { .policies = 2000, .deciders = 2 };
	struct soak_opts so = { .seconds = 5 };
	unsigned long long seed = (unsigned long long)time(NULL) * 2654435761u ^ (unsigned)getpid();
	struct ktest t;
	struct sbuf head = { 0 };
	int failed = 0, broken = 0, n = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		unsigned long long v;

		if (!strcmp(arg, "--help")) {
			usage(stdout);
			return KSFT_PASS;
		}
		if (!val || !parse_number(val, &v)) {
			usage(stderr);
			return KSFT_BROKEN;
		}
		i++;
		if (!strcmp(arg, "--policies")) {
			fo.policies = (unsigned long)v;
		} else if (!strcmp(arg, "--deciders") && v <= 7) {
			fo.deciders = (int)v;
		} else if (!strcmp(arg, "--soak")) {
			so.seconds = (double)v;
		} else if (!strcmp(arg, "--seed")) {
			seed = v;
		} else {
			usage(stderr);
			return KSFT_BROKEN;
		}
	}
	fo.seed = seed;
	so.seed = seed + 1;

	ktap_version(&head, 0);
	ktap_plan(&head, 0, !!fo.policies + (so.seconds > 0));
	ktap_diagf(&head, 0, "seed %llu (--seed %llu writes the same policies again)", seed, seed);
	ktap_put(stdout, &head);
	sbuf_free(&head);
	if (access(TG_POLICY, W_OK)) {
		progress("%s: %s: tunguard is not active in this kernel", TG_POLICY, strerror(errno));
		return KSFT_SKIP;
	}
	if (fo.policies) {
		ktest_begin(&t);
		run_fuzz(&fo, &t);
		switch (ktest_end(&t, ++n, "policy_fuzz")) {
		case KTEST_FAIL: failed++; break;
		case KTEST_BROKEN: broken++; break;
		default: break;
		}
	}
	if (so.seconds > 0) {
		ktest_begin(&t);
		run_soak(&so, &t);
		switch (ktest_end(&t, ++n, "soak")) {
		case KTEST_FAIL: failed++; break;
		case KTEST_BROKEN: broken++; break;
		default: break;
		}
	}
	return failed ? KSFT_FAIL : broken ? KSFT_BROKEN : KSFT_PASS;
}
