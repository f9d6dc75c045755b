// SPDX-License-Identifier: GPL-2.0
#include "plan.h"
#include "common/util.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct pathlist {
	int n;
	char **v;
};

static void push(struct pathlist *l, char *p)
{
	l->v = xrealloc(l->v, sizeof(char *) * (size_t)(l->n + 1));
	l->v[l->n++] = p;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_diag(struct scn_diags *d, const char *path, const char *msg)
{
	d->v = xrealloc(d->v, sizeof(*d->v) * (size_t)(d->n + 1));
	d->v[d->n].file = xstrdup(path);
	d->v[d->n].line = 0;
	d->v[d->n].col = 0;
	d->v[d->n].msg = xstrdup(msg);
	d->n++;
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && !strcmp(s + a - b, suf);
}

static void walk(const char *dir, struct pathlist *out, struct scn_diags *d)
{
	struct pathlist names = { 0 };
	struct dirent *e;
	DIR *dp = opendir(dir);

	if (!dp) {
		add_diag(d, dir, strerror(errno));
		return;
	}
	while ((e = readdir(dp)))
		if (e->d_name[0] != '.')
			push(&names, xstrdup(e->d_name));
	closedir(dp);
	qsort(names.v, (size_t)names.n, sizeof(char *), cmp_str);
	for (int i = 0; i < names.n; i++) {
		char *p = xasprintf("%s/%s", dir, names.v[i]);
		struct stat st;

		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (strcmp(names.v[i], "selftest"))
				walk(p, out, d);
			free(p);
		} else if (has_suffix(names.v[i], ".scn")) {
			push(out, p);
		} else {
			free(p);
		}
		free(names.v[i]);
	}
	free(names.v);
}

/* A quoted glob, which the shell left for us to expand; -1 when nothing matches. */
static int collect_glob(const char *pattern, struct pathlist *files, struct scn_diags *diags)
{
	struct stat st;
	glob_t g;

	if (glob(pattern, 0, NULL, &g)) {
		add_diag(diags, pattern, "no file matches this pattern");
		return -1;
	}
	for (size_t k = 0; k < g.gl_pathc; k++) {
		if (stat(g.gl_pathv[k], &st) == 0 && S_ISDIR(st.st_mode))
			walk(g.gl_pathv[k], files, diags);
		else if (has_suffix(g.gl_pathv[k], ".scn"))
			push(files, xstrdup(g.gl_pathv[k]));
	}
	globfree(&g);
	return 0;
}

/* The scenario files @arg names: itself, a folder's, or a glob's; -1 on a problem. */
static int collect(const char *arg, struct pathlist *files, struct scn_diags *diags)
{
	size_t len = strlen(arg);
	char *path = xstrdup(arg);
	struct stat st;
	int ret = 0;

	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	if (stat(path, &st) < 0 && strpbrk(path, "*?[")) {
		ret = collect_glob(path, files, diags);
	} else if (stat(path, &st) < 0) {
		add_diag(diags, path, strerror(errno));
		ret = -1;
	} else if (S_ISDIR(st.st_mode)) {
		walk(path, files, diags);
	} else {
		push(files, path);
		return 0;
	}
	free(path);
	return ret;
}

int plan_load(struct plan *p, char *const *paths, int npaths, struct scn_diags *diags)
{
	struct pathlist files = { 0 };
	int ret = 0;

	memset(p, 0, sizeof(*p));
	for (int i = 0; i < npaths; i++)
		if (collect(paths[i], &files, diags) < 0)
			ret = -1;
	if (!files.n && !diags->n) {
		add_diag(diags, npaths ? paths[0] : ".", "no scenario files (*.scn) found");
		ret = -1;
	}
	p->files = xcalloc((size_t)files.n, sizeof(*p->files));
	for (int i = 0; i < files.n; i++) {
		if (scn_parse_file(files.v[i], &p->files[p->nfiles++], diags))
			ret = -1;
		free(files.v[i]);
	}
	free(files.v);
	if (diags->n)
		ret = -1;
	for (int i = 0; i < p->nfiles; i++) {
		for (int j = 0; j < p->files[i].nscenarios; j++) {
			p->scenarios = xrealloc(p->scenarios, sizeof(*p->scenarios) * (size_t)(p->n + 1));
			p->scenarios[p->n++] = &p->files[i].scenarios[j];
		}
	}
	return ret;
}

void plan_free(struct plan *p)
{
	for (int i = 0; i < p->nfiles; i++)
		scn_file_free(&p->files[i]);
	free(p->files);
	free(p->scenarios);
	memset(p, 0, sizeof(*p));
}

int plan_keep_tags(struct plan *p, char **tags, int ntags)
{
	int kept = 0;

	for (int i = 0; i < p->n; i++) {
		bool any = false;

		for (int t = 0; t < ntags && !any; t++)
			any = scn_has_tag(p->scenarios[i], tags[t]);
		if (any)
			p->scenarios[kept++] = p->scenarios[i];
	}
	p->n = kept;
	return kept;
}

int plan_check_continues(const struct plan *p)
{
	for (int i = 0; i < p->n; i++) {
		const struct scenario *sc = p->scenarios[i], *prev = i ? p->scenarios[i - 1] : NULL;

		if (sc->continues && (!prev || strcmp(prev->file, sc->file) ||
				      prev->index != sc->index - 1)) {
			fprintf(stderr, "%s:%d: error: scenario '%s' continues the one before it in its file, which this selection leaves out\n",
				sc->file, sc->line, sc->title);
			return -1;
		}
	}
	return 0;
}

/*
 * The model plan_cost() gives, in milliseconds of an L1 of one vCPU (what
 * each shard and each -j lane boots by default), fitted to a whole warm
 * `make lab` as two such shards (2026-12-06): an L2 that boots 4.9 s, a
 * ping 0.2 s (the agent's interval, 2026-12-07), a program run 1.5 s on
 * average (0.1 to 6.5 s), most other steps a few to 25 ms, an L2 boot
 * that is meant to fail about 1.2 s.
 */
#define COST_SCENARIO_MS 50
#define COST_STEP_MS 25
#define COST_L2_BOOT_MS 4900
#define COST_L2_BOOT_REFUSED_MS 1200
#define COST_PING_MS 200
#define COST_PROBE_MS 400
#define COST_RUN_MS 1500

long plan_cost(const struct scenario *sc)
{
	long ms = COST_SCENARIO_MS;

	for (int i = 0; i < sc->nsteps; i++) {
		const struct scn_step *st = &sc->steps[i];

		switch (st->action) {
		case SCN_L2_BOOT:
			ms += st->expect == SCN_EXPECT_OK ? COST_L2_BOOT_MS : COST_L2_BOOT_REFUSED_MS;
			break;
		case SCN_L2_PING:
			ms += (long)scn_ping_count(st) * COST_PING_MS;
			break;
		case SCN_PROBE:
			ms += COST_PROBE_MS;
			break;
		case SCN_RUN:
			ms += COST_RUN_MS;
			break;
		default:
			ms += COST_STEP_MS;
			break;
		}
	}
	return ms;
}

int plan_deal(const struct scenario *const *scenarios, int n, int nparts, const long *head_ms,
	      int *part_of)
{
	long *load = xcalloc((size_t)nparts, sizeof(long));
	int groups = 0;

	for (int p = 0; p < nparts; p++)
		load[p] = head_ms ? head_ms[p] : 0;
	for (int i = 0; i < n; groups++) {
		long cost = plan_cost(scenarios[i]);
		int end = i + 1, best = 0;

		while (end < n && scenarios[end]->continues)
			cost += plan_cost(scenarios[end++]);
		for (int p = 1; p < nparts; p++)
			if (load[p] < load[best])
				best = p;
		load[best] += cost;
		while (i < end)
			part_of[i++] = best;
	}
	free(load);
	return groups;
}
