// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-probes - check KVM's ioeventfd, irqfd and real-mode behaviour by
 * driving /dev/kvm directly with tiny guests of our own.
 *
 * Usage: kvm-probes [--bench] [--wrong] [PROBE...]
 *
 * Prints KTAP v1, one top-level test per probe. Exit status: 0 every probe
 * passed (or skipped a part it cannot run here), 1 a check failed, 2 a
 * probe's setup broke (KTAP ERROR), 4 every probe was skipped.
 */
#include <stdio.h>
#include <string.h>

#include "probes.h"
#include "vm.h"
#include "common/verdict.h"

static const struct probe {
	const char *name;
	void (*run)(struct ktest *t, const struct probe_opts *o);
} probes[] = {
	{ "ioeventfd", probe_ioeventfd },
	{ "irqfd", probe_irqfd },
	{ "realmode", probe_realmode },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: kvm-probes [--bench] [--wrong] [PROBE...]\nprobes:");
	for (size_t i = 0; i < ARRAY_SIZE(probes); i++)
		fprintf(f, " %s", probes[i].name);
	fprintf(f, "\n");
}

int main(int argc, char **argv)
{
	bool selected[ARRAY_SIZE(probes)] = { false }, any_selected = false;
	int n_run = 0, n_fail = 0, n_broken = 0, n_skip = 0, index = 0;
	struct probe_opts o = { false, false };
	const char *missing;

	for (int i = 1; i < argc; i++) {
		size_t p;

		if (!strcmp(argv[i], "--bench")) {
			o.bench = true;
			continue;
		}
		if (!strcmp(argv[i], "--wrong")) {
			o.wrong = true;
			continue;
		}
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return KSFT_PASS;
		}
		for (p = 0; p < ARRAY_SIZE(probes); p++)
			if (!strcmp(argv[i], probes[p].name))
				break;
		if (p == ARRAY_SIZE(probes)) {
			printf("# kvm-probes: unknown option or probe '%s'\n", argv[i]);
			usage(stdout);
			return KSFT_BROKEN;
		}
		selected[p] = any_selected = true;
	}
	for (size_t p = 0; p < ARRAY_SIZE(probes); p++)
		n_run += !any_selected || selected[p];

	printf("KTAP version 1\n1..%d\n", n_run);
	if (o.wrong)
		printf("# --wrong: guests skip their writes, every probe must fail\n");
	missing = vm_kvm_missing();
	for (size_t p = 0; p < ARRAY_SIZE(probes); p++) {
		struct ktest t;
		double t0;

		if (any_selected && !selected[p])
			continue;
		ktest_begin(&t);
		t0 = now_ms();
		if (missing)
			ktest_skip_all(&t, "%s", missing);
		else
			probes[p].run(&t, &o);
		if (o.bench)
			ktest_diag(&t, "bench: %s run time %.1f ms", probes[p].name,
				  now_ms() - t0);
		switch (ktest_end(&t, ++index, probes[p].name)) {
		case KTEST_PASS:
			break;
		case KTEST_FAIL:
			n_fail++;
			break;
		case KTEST_SKIP:
			n_skip++;
			break;
		case KTEST_BROKEN:
			n_broken++;
			break;
		}
	}
	printf("# kvm-probes: %d probes, %d failed, %d broken, %d skipped\n", n_run, n_fail,
	       n_broken, n_skip);
	if (n_broken)
		return KSFT_BROKEN;
	if (n_fail)
		return KSFT_FAIL;
	return n_skip == n_run ? KSFT_SKIP : KSFT_PASS;
}
