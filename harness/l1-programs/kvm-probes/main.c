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

/* Options and the probes named; -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct probe_opts *o, bool *selected,
		      bool *any_selected)
{
	for (int i = 1; i < argc; i++) {
		size_t p;

		if (!strcmp(argv[i], "--bench")) {
			o->bench = true;
			continue;
		}
		if (!strcmp(argv[i], "--wrong")) {
			o->wrong = true;
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
		selected[p] = *any_selected = true;
	}
	return -1;
}

/* One probe as top-level test @index; @missing: why none can run here. */
static enum ktest_result run_probe(const struct probe *p, const struct probe_opts *o,
				   const char *missing, int index)
{
	struct ktest t;
	double t0;

	ktest_begin(&t);
	t0 = now_ms();
	if (missing)
		ktest_skip_all(&t, "%s", missing);
	else
		p->run(&t, o);
	if (o->bench)
		ktest_diag(&t, "bench: %s run time %.1f ms", p->name, now_ms() - t0);
	return ktest_end(&t, index, p->name);
}

int main(int argc, char **argv)
{
	bool selected[ARRAY_SIZE(probes)] = { false }, any_selected = false;
	int counts[KTEST_BROKEN + 1] = { 0 }, n_run = 0, index = 0;
	struct probe_opts o = { false, false };
	const char *missing;
	int code = parse_args(argc, argv, &o, selected, &any_selected);

	if (code >= 0)
		return code;
	for (size_t p = 0; p < ARRAY_SIZE(probes); p++)
		n_run += !any_selected || selected[p];
	printf("KTAP version 1\n1..%d\n", n_run);
	if (o.wrong)
		printf("# --wrong: guests skip their writes, every probe must fail\n");
	missing = vm_kvm_missing();
	for (size_t p = 0; p < ARRAY_SIZE(probes); p++)
		if (!any_selected || selected[p])
			counts[run_probe(&probes[p], &o, missing, ++index)]++;
	printf("# kvm-probes: %d probes, %d failed, %d broken, %d skipped\n", n_run,
	       counts[KTEST_FAIL], counts[KTEST_BROKEN], counts[KTEST_SKIP]);
	if (counts[KTEST_BROKEN])
		return KSFT_BROKEN;
	if (counts[KTEST_FAIL])
		return KSFT_FAIL;
	return counts[KTEST_SKIP] == n_run ? KSFT_SKIP : KSFT_PASS;
}
