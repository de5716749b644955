/* faultfold.c: fault results per chip folded into one line (faultfold.h). */
#include "calops.h"

#include <math.h>

#include "lab/labmodel.h"
#include "model/faultfold.h"
#include "proto/scenario.h"
#include "vocab/gateid.h"

static const char *const words[FO_COUNT] = {
	[FO_NEVER] = "never run",
	[FO_PENDING] = "pending",
	[FO_RUNNING] = "running",
	[FO_RECOVERED] = "recovered",
	[FO_NOT_RECOVERED] = "not recovered",
	[FO_CODE_MISMATCH] = "wrong error code",
	[FO_UNSTRUCTURED] = "unstructured",
	[FO_ABORTED] = "aborted",
	[FO_NO_RESULT] = "no result",
	[FO_DISAGREES] = "disagrees with its job",
};

const char *
faultfold_expected_code(const char *scenario)
{
	const struct scenario *sc = scenario_find(scenario);

	return sc != NULL ? sc->code : NULL;
}

enum fold_outcome
faultfold_classify(const char *scenario, bool structured,
    const char *error_code, bool aborted, bool recovered)
{
	const char *want = faultfold_expected_code(scenario);

	if (aborted)
		return FO_ABORTED;
	if (!structured)
		return FO_UNSTRUCTURED;
	if (want != NULL && (error_code == NULL ||
	    strcmp(want, error_code) != 0))
		return FO_CODE_MISMATCH;
	return recovered ? FO_RECOVERED : FO_NOT_RECOVERED;
}

const char *
faultfold_word(enum fold_outcome o)
{
	return o < FO_COUNT ? words[o] : "?";
}

bool
faultfold_failed(enum fold_outcome o)
{
	return o >= FO_NOT_RECOVERED && o < FO_COUNT;
}

/* Append to buf at *off, keeping it NUL-terminated when it is full. */
static void PRINTFLIKE(4, 5)
cat(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off + 1 >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	*off = *off + (size_t)n >= len ? len - 1 : *off + (size_t)n;
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

char *
faultfold_ranges(const int *chips, size_t n, char *buf, size_t len)
{
	int *s;
	size_t i, j, off = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (n == 0)
		return buf;
	s = xreallocarray(NULL, n, sizeof *s);
	memcpy(s, chips, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_int);
	for (i = 0; i < n; i = j) {
		/* A run of consecutive chips, duplicates included. */
		for (j = i + 1; j < n && (s[j] == s[j - 1] ||
		    s[j] == s[j - 1] + 1); j++)
			;
		cat(buf, len, &off, "%s%d", i > 0 ? "," : "", s[i]);
		if (s[j - 1] != s[i])
			cat(buf, len, &off, "-%d", s[j - 1]);
	}
	free(s);
	return buf;
}

/* One group: its chips and word (with the recovery time or range). */
static void
format_group(const struct fold_cell *cells, size_t n, enum fold_outcome o,
    int *chips, char *buf, size_t len, size_t *off)
{
	char ranges[256], tlo[32], thi[32];
	double lo = INFINITY, hi = -INFINITY;
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (cells[i].outcome != o)
			continue;
		chips[k++] = cells[i].chip;
		if (isfinite(cells[i].recover_ms)) {
			lo = fmin(lo, cells[i].recover_ms);
			hi = fmax(hi, cells[i].recover_ms);
		}
	}
	faultfold_ranges(chips, k, ranges, sizeof ranges);
	cat(buf, len, off, k == 1 || strpbrk(ranges, ",-") == NULL ?
	    "chip%s %s" : "chip[%s] %s", ranges, words[o]);
	if (o != FO_RECOVERED || lo > hi)
		return;
	/* Fast recoveries (a CSR error: 4 ms) in milliseconds. */
	snprintf(tlo, sizeof tlo, "%.*f", hi < 1000 ? 0 : 1, hi < 1000 ? lo :
	    lo / 1000);
	snprintf(thi, sizeof thi, "%.*f", hi < 1000 ? 0 : 1, hi < 1000 ? hi :
	    hi / 1000);
	if (strcmp(tlo, thi) == 0)
		cat(buf, len, off, " %s %s", tlo, hi < 1000 ? "ms" : "s");
	else
		cat(buf, len, off, " %s-%s %s", tlo, thi, hi < 1000 ? "ms" :
		    "s");
}

char *
faultfold_format(const struct fold_cell *cells, size_t n, const char *sep,
    char *buf, size_t len)
{
	int first[FO_COUNT], *chips, o, best;
	bool done[FO_COUNT] = { false };
	size_t i, off = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (o = 0; o < FO_COUNT; o++)
		first[o] = INT_MAX;
	for (i = 0; i < n; i++)
		if (cells[i].outcome < FO_COUNT && cells[i].chip < first[
		    cells[i].outcome])
			first[cells[i].outcome] = cells[i].chip;
	chips = xreallocarray(NULL, n + 1, sizeof *chips);
	for (;;) {
		/* The group with the lowest chip not yet written. */
		for (best = -1, o = 0; o < FO_COUNT; o++)
			if (!done[o] && first[o] != INT_MAX && (best == -1 ||
			    first[o] < first[best]))
				best = o;
		if (best == -1)
			break;
		if (off > 0)
			cat(buf, len, &off, "%s", sep);
		format_group(cells, n, (enum fold_outcome)best, chips, buf, len,
		    &off);
		done[best] = true;
	}
	free(chips);
	return buf;
}

static int
scenario_index(const char *s)
{
	int i;

	for (i = 0; s != NULL && i < SCENARIO_COUNT; i++)
		if (strcmp(s, scenario_table[i].name) == 0)
			return i;
	return -1;
}

/* The grid being filled by faultfold_grid(). */
struct grid {
	const char		*host;
	const int		*chips;
	size_t			 nchips;
	struct fold_state	*cells;
};

static int
chip_index(const struct grid *g, int chip)
{
	size_t i;

	for (i = 0; i < g->nchips; i++)
		if (g->chips[i] == chip)
			return (int)i;
	return -1;
}

/* The cell a result or a fault job on host is on, or NULL. */
static struct fold_state *
cell_of(const struct grid *g, const char *host, const char *scenario,
    int chip)
{
	int s, ci;

	if (strcmp(host, g->host) != 0 || (s = scenario_index(scenario)) < 0 ||
	    (ci = chip_index(g, chip)) < 0)
		return NULL;
	return &g->cells[(size_t)s * g->nchips + (size_t)ci];
}

/* Where a result's job stands among the jobs, newest first: a job the model
 * no longer keeps is older than all it keeps (SIZE_MAX). */
static size_t
job_rank(const struct fold_src *src, const struct lfault *f)
{
	size_t i;

	for (i = 0; i < src->njobs; i++)
		if (src->jobs[i]->id != NULL &&
		    strcmp(src->jobs[i]->id, f->job) == 0 &&
		    strcmp(src->jobs[i]->host, f->host) == 0)
			return i;
	return SIZE_MAX;
}

static bool
has_result(const struct fold_src *src, const struct ljob *j)
{
	size_t i;

	for (i = src->nfaults; j->id != NULL && i > 0; i--)
		if (strcmp(src->faults[i - 1]->job, j->id) == 0 &&
		    strcmp(src->faults[i - 1]->host, j->host) == 0)
			return true;
	return false;
}

/* A live G7 job runs every scenario on its first chip; a cell it has
 * already answered shows that answer. */
static void
mark_gate_job(const struct grid *g, const struct ljob *j)
{
	struct fold_state *c;
	size_t s;
	int ci;

	if (j->nchips == 0 || (ci = chip_index(g, j->chips[0])) < 0)
		return;
	for (s = 0; s < SCENARIO_COUNT; s++) {
		c = &g->cells[s * g->nchips + (size_t)ci];
		if (c->live == NULL && (c->last == NULL || j->id == NULL ||
		    strcmp(c->last->job, j->id) != 0))
			c->live = j;
	}
}

/* A job's mark on its cell, the jobs walked newest first. */
static void
grid_job(const struct grid *g, const struct fold_src *src, size_t rank)
{
	const struct ljob *j = src->jobs[rank];
	struct fold_state *c;

	if (labmodel_job_live(j) && j->kind == LJOB_GATE &&
	    gateid_job(j->gate) == GATEJOB_SUITE &&
	    strcmp(j->host, g->host) == 0)
		mark_gate_job(g, j);
	if (j->kind != LJOB_FAULT ||
	    (c = cell_of(g, j->host, j->scenario, j->chip)) == NULL)
		return;
	if (labmodel_job_live(j)) {
		if (c->live == NULL || c->live->kind != LJOB_FAULT)
			c->live = j;
	} else if (c->ended == NULL && (c->last == NULL ||
	    job_rank(src, c->last) > rank) && !has_result(src, j))
		c->ended = j;
}

static enum fold_outcome
file_outcome(const struct fold_file *f)
{
	return faultfold_classify(f->r.scenario, f->r.structured,
	    f->r.error_code, f->r.aborted, f->r.recovered);
}

bool
faultfold_file_disagrees(const struct fold_file *f)
{
	bool ok = file_outcome(f) == FO_RECOVERED;

	if (f->job[0] == '\0' || strcmp(f->state, "running") == 0)
		return false;
	if (strcmp(f->state, "done") == 0)
		return !ok;
	return !f->suite && ok;
}

/* The index of word in argv after from, or -1. */
static int
argv_find(json_t *argv, size_t from, const char *word)
{
	size_t i;

	for (i = from; i < json_array_size(argv); i++)
		if (strcmp(json_string_value(json_array_get(argv, i)) != NULL ?
		    json_string_value(json_array_get(argv, i)) : "", word) == 0)
			return (int)i;
	return -1;
}

/* argv[i] as a string, or "". */
static const char *
argv_at(json_t *argv, int i)
{
	const char *s = i >= 0 ? json_string_value(json_array_get(argv,
	    (size_t)i)) : NULL;

	return s != NULL ? s : "";
}

/* Whether the blank-separated list holds word. */
static bool
list_has(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = list; (p = strstr(p, word)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == '\0' ||
		    p[n] == ' '))
			return true;
	return false;
}

/* Whether a job's argv runs scenario on chip with calbin (labcmd.c's fault
 * job, or the runner's suite, G7's whole job, named "calops-gN" after its
 * gate: 1); 0 when not. */
static int
argv_runs(json_t *argv, const char *scenario, const char *chip,
    const char *calbin, bool *suite)
{
	char name[24];
	int k;

	snprintf(name, sizeof name, "calops-g%d", gateid_of(GATEJOB_SUITE));
	k = argv_find(argv, 0, name);

	if (k >= 0) {
		*suite = true;
		return (calbin == NULL || strcmp(argv_at(argv, k + 1),
		    calbin) == 0) && strcmp(argv_at(argv, k + 2), chip) == 0 &&
		    list_has(argv_at(argv, k + 3), scenario);
	}
	*suite = false;
	return argv_find(argv, 0, "fault") >= 0 && strcmp(argv_at(argv,
	    argv_find(argv, 0, "--scenario") + 1), scenario) == 0 &&
	    strcmp(argv_at(argv, argv_find(argv, 0, "--chips") + 1), chip) ==
	    0 && (calbin == NULL || strcmp(argv_at(argv, argv_find(argv, 0,
	    "--calbin") + 1), calbin) == 0);
}

/* A number member, NAN when not a number. */
static double
num_or_nan(json_t *o, const char *key)
{
	json_t *m = json_object_get(o, key);

	return json_is_number(m) ? json_number_value(m) : NAN;
}

void
faultfold_file_job(struct fold_file *f, const char *ws,
    json_t *const *records, size_t n)
{
	char chip[16], *calbin = ws != NULL ?
	    xasprintf("%s/05-calbin/package", ws) : NULL;
	json_t *best = NULL, *m;
	bool suite, best_suite = false;
	size_t i;

	snprintf(chip, sizeof chip, "%d", f->r.chip);
	for (i = 0; i < n; i++) {
		if (!json_is_array(m = json_object_get(records[i], "argv")) ||
		    !argv_runs(m, f->r.scenario, chip, calbin, &suite))
			continue;
		if (best == NULL || num_or_nan(records[i], "started") >
		    num_or_nan(best, "started")) {
			best = records[i];
			best_suite = suite;
		}
	}
	free(calbin);
	f->job[0] = f->actor[0] = f->state[0] = '\0';
	f->exit_code = -1;
	f->suite = best_suite;
	f->started = f->ended = NAN;
	if (best == NULL)
		return;
	snprintf(f->job, sizeof f->job, "%s", json_string_value(
	    json_object_get(best, "id")) != NULL ? json_string_value(
	    json_object_get(best, "id")) : "?");
	snprintf(f->actor, sizeof f->actor, "%s", json_string_value(
	    json_object_get(best, "actor")) != NULL ? json_string_value(
	    json_object_get(best, "actor")) : "");
	snprintf(f->state, sizeof f->state, "%s", json_string_value(
	    json_object_get(best, "state")) != NULL ? json_string_value(
	    json_object_get(best, "state")) : "?");
	if (json_is_integer(m = json_object_get(best, "exit_code")))
		f->exit_code = (int)json_integer_value(m);
	f->started = num_or_nan(best, "started");
	f->ended = num_or_nan(best, "ended");
}

void
faultfold_grid(const struct fold_src *src, const char *host,
    const int *chips, size_t nchips, struct fold_state *cells)
{
	struct grid g = { host, chips, nchips, cells };
	const struct lfault *f;
	struct fold_state *c;
	size_t i;

	memset(cells, 0, SCENARIO_COUNT * nchips * sizeof *cells);
	for (i = 0; i < src->nfaults; i++) {
		f = src->faults[i];
		if ((c = cell_of(&g, f->host, f->scenario, f->chip)) != NULL)
			c->last = f;
	}
	for (i = 0; i < src->njobs; i++)
		grid_job(&g, src, i);
	for (i = 0; i < src->nfiles; i++)
		if ((c = cell_of(&g, src->files[i].host,
		    src->files[i].r.scenario, src->files[i].r.chip)) != NULL)
			c->file = &src->files[i];
	for (i = 0; i < SCENARIO_COUNT * nchips; i++) {
		c = &cells[i];
		f = c->last;
		if (c->live != NULL)
			c->o = c->live->state == LJ_STARTING ? FO_PENDING :
			    FO_RUNNING;
		else if (c->file != NULL)
			c->o = faultfold_file_disagrees(c->file) ?
			    FO_DISAGREES : file_outcome(c->file);
		else if (c->ended != NULL)
			c->o = FO_NO_RESULT;
		else if (f != NULL)
			c->o = faultfold_classify(f->scenario, f->structured,
			    f->error_code, f->aborted, f->recovered);
		else
			c->o = FO_NEVER;
	}
}

/* Whether j is a fault job on the cell (host, scenario, chip) that has
 * left no result. */
static bool
lone_job(const struct fold_src *src, const struct ljob *j, const char *host,
    const char *scenario, int chip)
{
	return j->kind == LJOB_FAULT && j->chip == chip &&
	    j->scenario != NULL && strcmp(j->host, host) == 0 &&
	    strcmp(j->scenario, scenario) == 0 && !has_result(src, j);
}

struct fold_entry *
faultfold_history(const struct fold_src *src, const char *host,
    const char *scenario, int chip, size_t *np)
{
	const struct lfault **res, *f;
	struct fold_entry *out;
	size_t *rank, i, ji, nres = 0, n = 0;

	res = xcalloc(src->nfaults + 1, sizeof *res);
	rank = xcalloc(src->nfaults + 1, sizeof *rank);
	for (i = src->nfaults; i > 0; i--) {
		f = src->faults[i - 1];
		if (f->chip != chip || strcmp(f->host, host) != 0 ||
		    strcmp(f->scenario, scenario) != 0)
			continue;
		rank[nres] = job_rank(src, f);
		res[nres++] = f;
	}
	out = xcalloc(nres + src->njobs + 1, sizeof *out);
	for (i = ji = 0; ji < src->njobs; ji++) {
		if (!lone_job(src, src->jobs[ji], host, scenario, chip))
			continue;
		/* The results of the jobs started after it come first. */
		while (i < nres && rank[i] < ji)
			out[n++].f = res[i++];
		out[n++].j = src->jobs[ji];
	}
	while (i < nres)
		out[n++].f = res[i++];
	free(rank);
	free(res);
	*np = n;
	return out;
}

/* What an ended job left instead of a result (faultfold_cell_words). */
static char *
job_words(const struct ljob *j, bool lng, char *buf, size_t len)
{
	const char *abbrev = j->sig > 0 ? sigabbrev_np(j->sig) : NULL;

	switch (j->state) {
	case LJ_FAILED:
		snprintf(buf, len, "%s%d", lng ? "failed exit " : "exit ",
		    j->exit_code);
		break;
	case LJ_KILLED:
		if (lng && abbrev != NULL)
			snprintf(buf, len, "killed SIG%s", abbrev);
		else if (lng && j->sig > 0)
			snprintf(buf, len, "killed signal %d", j->sig);
		else
			snprintf(buf, len, "killed");
		break;
	case LJ_DONE:
		snprintf(buf, len, "%s", lng ? "done, no result" : "exit 0");
		break;
	default:
		snprintf(buf, len, "%s", labmodel_job_state_name(j->state));
	}
	return buf;
}

char *
faultfold_format_row(const struct fold_state *cells, const int *chips,
    size_t nchips, const char *sep, char *buf, size_t len)
{
	struct fold_cell *fc = xcalloc(nchips + 1, sizeof *fc);
	size_t i;

	for (i = 0; i < nchips; i++) {
		fc[i].chip = chips[i];
		fc[i].outcome = cells[i].o;
		fc[i].recover_ms = cells[i].file != NULL ?
		    cells[i].file->r.recover_ms : cells[i].last != NULL ?
		    cells[i].last->recover_ms : NAN;
	}
	faultfold_format(fc, nchips, sep, buf, len);
	free(fc);
	return buf;
}

char *
faultfold_ms(double ms, char *buf, size_t len)
{
	if (!isfinite(ms) || ms < 0)
		snprintf(buf, len, "-");
	else if (ms < 1000)
		snprintf(buf, len, "%.0fms", ms);
	else if (ms < 100000)
		snprintf(buf, len, "%.1fs", ms / 1000);
	else
		snprintf(buf, len, "%.0fs", ms / 1000);
	return buf;
}

char *
faultfold_cell_words(const struct fold_state *c, bool lng, char *buf,
    size_t len)
{
	static const char *const shorts[FO_COUNT] = {
		"never", "starting", "running", "", "no recov", "bad code",
		"unstruct", "aborted", "no result", "disagree",
	};
	char t[32];

	if (c->o == FO_NO_RESULT && c->ended != NULL)
		return job_words(c->ended, lng, buf, len);
	if (c->o == FO_DISAGREES && c->file != NULL) {
		/* What the file says, and that its job says otherwise. */
		snprintf(buf, len, "%s%s%s", lng ? words[file_outcome(
		    c->file)] : shorts[file_outcome(c->file)], lng ? ", job " :
		    "", lng ? c->file->state : "");
		return buf;
	}
	if (c->o == FO_RECOVERED && c->file != NULL) {
		faultfold_ms(c->file->r.recover_ms, t, sizeof t);
		snprintf(buf, len, "%s%s%s", lng ? words[c->o] : "",
		    lng ? " " : "", t);
		return buf;
	}
	if (c->o == FO_RECOVERED && c->last != NULL) {
		faultfold_ms(c->last->recover_ms, t, sizeof t);
		snprintf(buf, len, "%s%s%s", lng ? words[c->o] : "",
		    lng ? " " : "", t);
	} else
		snprintf(buf, len, "%s", c->o >= FO_COUNT ? "?" : lng ?
		    words[c->o] : shorts[c->o]);
	return buf;
}

void
faultfold_src_load(struct fold_src *src, const struct labmodel *lm)
{
	struct ljob *j;
	size_t i, n = labmodel_njobs(lm);

	src->nfaults = labmodel_nfaults(lm);
	src->faults = xreallocarray(src->faults, src->nfaults + 1,
	    sizeof *src->faults);
	src->jobs = xreallocarray(src->jobs, n + 1, sizeof *src->jobs);
	for (i = 0; i < src->nfaults; i++)
		src->faults[i] = labmodel_fault(lm, i);
	/* The jobs of this lab's workspaces only: another workspace's
	 * faults on the same chips are its own results. */
	for (i = 0, src->njobs = 0; i < n; i++)
		if ((j = labmodel_job(lm, i))->here)
			src->jobs[src->njobs++] = j;
}

void
faultfold_src_release(struct fold_src *src)
{
	free(src->faults);
	free(src->jobs);
	memset(src, 0, sizeof *src);
}
