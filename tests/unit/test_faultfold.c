/*
 * test_faultfold.c: fault results per chip folded into one line
 * (faultfold.c): each result is classified by the worst thing it says,
 * chips of one outcome become ranges, groups come in the order of their
 * lowest chip, and recovery times that jitter still fold.  A host's grid
 * and a cell's past go by arrival, not by the tool's timestamps, and a job
 * that ended without a result shows what it did instead.  A host's result
 * file wins over the events this console followed, is matched to the job
 * that wrote it, and is never shown passed when that job says otherwise.
 */
#include "calops.h"

#include <math.h>
#include <setjmp.h>
#include <signal.h>

#include <cmocka.h>

#include "lab/labmodel.h"
#include "model/faultfold.h"
#include "proto/scenario.h"

static void
expected_codes_are_the_runbooks(void **state)
{
	(void)state;
	assert_string_equal(faultfold_expected_code("wait-timeout"),
	    "CALRT_E_WAIT_TIMEOUT");
	assert_string_equal(faultfold_expected_code("reset-warmup"),
	    "CALRT_E_DEVICE_RESET");
	assert_string_equal(faultfold_expected_code("missing-tensor"),
	    "CALRT_E_TENSOR_MISSING");
	assert_null(faultfold_expected_code("no-such"));
	assert_null(faultfold_expected_code(NULL));
}

static void
classify_takes_the_worst(void **state)
{
	(void)state;
	assert_int_equal(faultfold_classify("kv-full", true,
	    "CALRT_E_KV_FULL", false, true), FO_RECOVERED);
	assert_int_equal(faultfold_classify("kv-full", true,
	    "CALRT_E_KV_FULL", false, false), FO_NOT_RECOVERED);
	assert_int_equal(faultfold_classify("kv-full", true,
	    "CALRT_E_SUBMIT_BUSY", false, true), FO_CODE_MISMATCH);
	assert_int_equal(faultfold_classify("kv-full", true, NULL, false,
	    true), FO_CODE_MISMATCH);
	assert_int_equal(faultfold_classify("kv-full", false, "", false,
	    true), FO_UNSTRUCTURED);
	assert_int_equal(faultfold_classify("kv-full", false, "", true,
	    false), FO_ABORTED);
	/* A scenario the table does not know cannot mismatch. */
	assert_int_equal(faultfold_classify("new-one", true, "X", false,
	    true), FO_RECOVERED);
	assert_false(faultfold_failed(FO_RECOVERED));
	assert_false(faultfold_failed(FO_RUNNING));
	assert_false(faultfold_failed(FO_NEVER));
	assert_true(faultfold_failed(FO_ABORTED));
	assert_true(faultfold_failed(FO_CODE_MISMATCH));
	assert_true(faultfold_failed(FO_NO_RESULT));
	assert_string_equal(faultfold_word(FO_NO_RESULT), "no result");
	assert_string_equal(faultfold_word(FO_NOT_RECOVERED), "not recovered");
	assert_string_equal(faultfold_word(FO_COUNT), "?");
}

static void
ranges_sort_and_merge(void **state)
{
	int a[] = { 7, 0, 1, 2, 4, 5, 6 }, b[] = { 3 }, c[] = { 5, 5, 6, 9 };
	char buf[64];

	(void)state;
	assert_string_equal(faultfold_ranges(a, nitems(a), buf, sizeof buf),
	    "0-2,4-7");
	assert_string_equal(faultfold_ranges(b, 1, buf, sizeof buf), "3");
	assert_string_equal(faultfold_ranges(c, nitems(c), buf, sizeof buf),
	    "5-6,9");
	assert_string_equal(faultfold_ranges(a, 0, buf, sizeof buf), "");
	/* Cut to fit, always terminated. */
	assert_string_equal(faultfold_ranges(a, nitems(a), buf, 4), "0-2");
}

static void
the_issue_example_folds(void **state)
{
	struct fold_cell c[8];
	char buf[256];
	int i;

	(void)state;
	for (i = 0; i < 8; i++) {
		c[i].chip = i;
		c[i].outcome = i == 3 ? FO_ABORTED : FO_RECOVERED;
		c[i].recover_ms = i == 3 ? NAN : 5012;
	}
	assert_string_equal(faultfold_format(c, 8, " · ", buf, sizeof buf),
	    "chip[0-2,4-7] recovered 5.0 s · chip3 aborted");
}

static void
jittered_times_show_a_range(void **state)
{
	struct fold_cell c[] = {
		{ 1, FO_RECOVERED, 4990 }, { 0, FO_RECOVERED, 5040 },
		{ 2, FO_RECOVERED, 5400 }, { 3, FO_RECOVERED, 4611 },
	};
	char buf[256];

	(void)state;
	assert_string_equal(faultfold_format(c, nitems(c), " | ", buf,
	    sizeof buf), "chip[0-3] recovered 4.6-5.4 s");
	c[2].recover_ms = 5012;
	c[3].recover_ms = 5020;
	assert_string_equal(faultfold_format(c, nitems(c), " | ", buf,
	    sizeof buf), "chip[0-3] recovered 5.0 s");
	/* Under a second: milliseconds. */
	c[0].recover_ms = 3.9;
	c[1].recover_ms = c[2].recover_ms = c[3].recover_ms = 4.2;
	assert_string_equal(faultfold_format(c, nitems(c), " | ", buf,
	    sizeof buf), "chip[0-3] recovered 4 ms");
	c[3].recover_ms = 12;
	assert_string_equal(faultfold_format(c, nitems(c), " | ", buf,
	    sizeof buf), "chip[0-3] recovered 4-12 ms");
}

static void
every_outcome_has_its_group(void **state)
{
	struct fold_cell c[] = {
		{ 0, FO_NEVER, NAN }, { 1, FO_RUNNING, NAN },
		{ 2, FO_PENDING, NAN }, { 3, FO_UNSTRUCTURED, NAN },
		{ 4, FO_CODE_MISMATCH, NAN }, { 5, FO_NOT_RECOVERED, 15000 },
		{ 6, FO_NEVER, NAN }, { 7, FO_NEVER, NAN },
	};
	char buf[512];

	(void)state;
	assert_string_equal(faultfold_format(c, nitems(c), " · ", buf,
	    sizeof buf), "chip[0,6-7] never run · chip1 running · "
	    "chip2 pending · chip3 unstructured · chip4 wrong error code · "
	    "chip5 not recovered");
}

static void
small_buffers_and_nothing(void **state)
{
	struct fold_cell c[] = { { 0, FO_ABORTED, NAN }, { 1, FO_NEVER, NAN } };
	char buf[10];

	(void)state;
	assert_string_equal(faultfold_format(c, 0, " · ", buf, sizeof buf), "");
	faultfold_format(c, nitems(c), " · ", buf, sizeof buf);
	assert_int_equal(strlen(buf), sizeof buf - 1);
	assert_memory_equal(buf, "chip0 abo", 9);
	/* A recovered chip with no time says so without one. */
	c[0].outcome = FO_RECOVERED;
	assert_string_equal(faultfold_format(c, 1, " · ", buf, sizeof buf),
	    "chip0 rec");
}

/* An ended fault job on host h into *j; returns j. */
static struct ljob *
fault_job(struct ljob *j, const char *id, const char *scenario, int chip,
    enum ljob_state st, int exit_code, int sig)
{
	memset(j, 0, sizeof *j);
	j->host = (char *)"h";
	j->id = (char *)id;
	j->kind = LJOB_FAULT;
	j->gate = -1;
	j->chip = chip;
	j->scenario = (char *)scenario;
	j->state = st;
	j->exit_code = exit_code;
	j->sig = sig;
	return j;
}

static struct lfault
result(const char *job, const char *scenario, int chip, double ts)
{
	return (struct lfault){ .host = (char *)"h", .job = (char *)job,
	    .scenario = (char *)scenario, .chip = chip,
	    .error_code = (char *)faultfold_expected_code(scenario),
	    .structured = true, .recovered = true, .recover_ms = 5012,
	    .ts = ts };
}

/*
 * kv-full on chip 0: j0 (gone from the model) and j2 left results, j2's
 * arriving last but stamped earlier by the tool; j1 failed and j3 was
 * killed without one.  wait-timeout on chip 1: j4 failed without a result,
 * then a later job (j5) answered.
 */
struct lab_fixture {
	struct lfault	 r[3];
	struct ljob	 j[5];
	const struct lfault *faults[3];
	const struct ljob *jobs[5];
	struct fold_src	 src;
};

static void
fixture(struct lab_fixture *x)
{
	size_t i;

	x->r[0] = result("j0", "kv-full", 0, 9999);
	x->r[1] = result("j2", "kv-full", 0, 5);
	x->r[2] = result("j5", "wait-timeout", 1, 7);
	x->jobs[0] = fault_job(&x->j[0], "j5", "wait-timeout", 1, LJ_DONE, 0,
	    0);
	x->jobs[1] = fault_job(&x->j[1], "j3", "kv-full", 0, LJ_KILLED, -1,
	    SIGTERM);
	x->jobs[2] = fault_job(&x->j[2], "j2", "kv-full", 0, LJ_DONE, 0, 0);
	x->jobs[3] = fault_job(&x->j[3], "j4", "wait-timeout", 1, LJ_FAILED,
	    1, 0);
	x->jobs[4] = fault_job(&x->j[4], "j1", "kv-full", 0, LJ_FAILED, 1, 0);
	for (i = 0; i < nitems(x->r); i++)
		x->faults[i] = &x->r[i];
	x->src = (struct fold_src){ x->faults, nitems(x->faults), x->jobs,
	    nitems(x->jobs), NULL, 0 };
}

static void
grid_shows_a_job_that_left_no_result(void **state)
{
	struct fold_state cells[SCENARIO_COUNT * 2], *kv = &cells[3 * 2],
	    *wt = &cells[5 * 2 + 1];
	struct lab_fixture x;
	int chips[] = { 0, 1 };
	char buf[64];

	(void)state;
	fixture(&x);
	faultfold_grid(&x.src, "h", chips, 2, cells);
	/* j3 started after j2, whose result arrived last: j3 is the latest. */
	assert_ptr_equal(kv->last, &x.r[1]);
	assert_ptr_equal(kv->ended, x.jobs[1]);
	assert_int_equal(kv->o, FO_NO_RESULT);
	assert_string_equal(faultfold_cell_words(kv, true, buf, sizeof buf),
	    "killed SIGTERM");
	assert_string_equal(faultfold_cell_words(kv, false, buf, sizeof buf),
	    "killed");
	/* j4 failed, but j5 answered after it. */
	assert_null(wt->ended);
	assert_int_equal(wt->o, FO_RECOVERED);
	assert_string_equal(faultfold_cell_words(wt, true, buf, sizeof buf),
	    "recovered 5.0s");
	assert_string_equal(faultfold_cell_words(wt, false, buf, sizeof buf),
	    "5.0s");
	assert_int_equal(cells[0].o, FO_NEVER);
	assert_string_equal(faultfold_cell_words(&cells[0], true, buf,
	    sizeof buf), "never run");
	assert_string_equal(faultfold_format_row(kv, chips, 2, " · ", buf,
	    sizeof buf), "chip0 no result · chip1 never run");
	/* Without j3, the failed j1 is older than j2's result. */
	x.src.jobs = &x.jobs[2];
	x.src.njobs = 3;
	faultfold_grid(&x.src, "h", chips, 2, cells);
	assert_null(kv->ended);
	assert_int_equal(kv->o, FO_RECOVERED);
	/* Other hosts are not this grid. */
	faultfold_grid(&x.src, "other", chips, 2, cells);
	assert_null(kv->last);
	assert_int_equal(kv->o, FO_NEVER);
}

/* A live G7 job runs every scenario on its first chip: the cells it has
 * not answered yet show it running, and a live fault job its own cell. */
static void
live_jobs_show_running(void **state)
{
	struct fold_state cells[SCENARIO_COUNT * 2];
	const struct ljob *jobs[2];
	struct lab_fixture x;
	struct ljob g7, f;
	int chips[] = { 0, 1 }, g7chips[] = { 1 };

	(void)state;
	fixture(&x);
	memset(&g7, 0, sizeof g7);
	g7.host = (char *)"h";
	g7.id = (char *)"j5";
	g7.kind = LJOB_GATE;
	g7.gate = 7;
	g7.chip = -1;
	g7.chips = g7chips;
	g7.nchips = 1;
	g7.state = LJ_RUNNING;
	jobs[0] = fault_job(&f, NULL, "kv-full", 0, LJ_STARTING, -1, 0);
	jobs[1] = &g7;
	x.src.jobs = jobs;
	x.src.njobs = nitems(jobs);
	faultfold_grid(&x.src, "h", chips, 2, cells);
	assert_int_equal(cells[3 * 2].o, FO_PENDING);
	assert_int_equal(cells[3 * 2 + 1].o, FO_RUNNING);
	assert_int_equal(cells[5 * 2 + 1].o, FO_RECOVERED);
	assert_int_equal(cells[0].o, FO_NEVER);
}

static void
failed_job_words(void **state)
{
	struct fold_state c = { .o = FO_NO_RESULT };
	struct ljob j;
	char buf[64];

	(void)state;
	c.ended = fault_job(&j, "j", "kv-full", 0, LJ_FAILED, 1, 0);
	assert_string_equal(faultfold_cell_words(&c, true, buf, sizeof buf),
	    "failed exit 1");
	assert_string_equal(faultfold_cell_words(&c, false, buf, sizeof buf),
	    "exit 1");
	fault_job(&j, "j", "kv-full", 0, LJ_DONE, 0, 0);
	assert_string_equal(faultfold_cell_words(&c, true, buf, sizeof buf),
	    "done, no result");
	fault_job(&j, NULL, "kv-full", 0, LJ_BROKEN, -1, 0);
	assert_string_equal(faultfold_cell_words(&c, false, buf, sizeof buf),
	    "broken");
	assert_string_equal(faultfold_ms(NAN, buf, sizeof buf), "-");
	assert_string_equal(faultfold_ms(4.2, buf, sizeof buf), "4ms");
	assert_string_equal(faultfold_ms(412000, buf, sizeof buf), "412s");
}

static void
history_goes_by_arrival(void **state)
{
	struct lab_fixture x;
	struct fold_entry *h;
	size_t n;

	(void)state;
	fixture(&x);
	/* Newest first: j3 (no result), j2's result, j1 (no result), then
	 * j0's, though the tool stamped j0's the latest. */
	h = faultfold_history(&x.src, "h", "kv-full", 0, &n);
	assert_int_equal(n, 4);
	assert_ptr_equal(h[0].j, x.jobs[1]);
	assert_ptr_equal(h[1].f, &x.r[1]);
	assert_ptr_equal(h[2].j, x.jobs[4]);
	assert_ptr_equal(h[3].f, &x.r[0]);
	free(h);
	h = faultfold_history(&x.src, "h", "wait-timeout", 1, &n);
	assert_int_equal(n, 2);
	assert_ptr_equal(h[0].f, &x.r[2]);
	assert_ptr_equal(h[1].j, x.jobs[3]);
	free(h);
	h = faultfold_history(&x.src, "h", "kv-full", 1, &n);
	assert_int_equal(n, 0);
	free(h);
}

/* ---- the host's result files ---- */

static const char aborted_file[] =
    "{\n  \"scenario\": \"kv-full\",\n  \"chip\": 1,\n"
    "  \"structured_error\": true,\n  \"error_code\": \"CALRT_E_KV_FULL\",\n"
    "  \"aborted\": true,\n  \"recovered\": false,\n  \"recover_ms\": null,\n"
    "  \"calbin_tree_sha256\": \"ab\"\n}\n";

static int
parse(const char *text, struct hostcmd_fault *f, char *err, size_t len)
{
	return hostcmd_fault_parse(text, strlen(text), f, err, len);
}

static void
result_files_parse_strictly(void **state)
{
	struct hostcmd_fault f;
	char err[200];

	(void)state;
	assert_int_equal(hostcmd_fault_parse(aborted_file,
	    strlen(aborted_file), &f, err, sizeof err), 0);
	assert_string_equal(f.scenario, "kv-full");
	assert_int_equal(f.chip, 1);
	assert_true(f.structured && f.aborted && !f.recovered);
	assert_string_equal(f.error_code, "CALRT_E_KV_FULL");
	assert_true(isnan(f.recover_ms));
	/* Never a result in part: the member that is wrong is named. */
	assert_int_equal(parse("{\"scenario\": \"kv-full\", \"chip\": 0, "
	    "\"structured_error\": true, \"recovered\": true}", &f, err,
	    sizeof err), -1);
	assert_string_equal(err, "\"aborted\" is missing, not true or false");
	assert_int_equal(parse("{\"scenario\": \"kv-full\", \"chip\": -1}",
	    &f, err, sizeof err), -1);
	assert_string_equal(err, "\"chip\" is wrong, not a chip number");
	assert_int_equal(parse("{\"scenario\": ", &f, err, sizeof err), -1);
	assert_non_null(strstr(err, "not JSON: line 1"));
}

/* A calops-jobs/v1 entry: argv words, its state, exit code and times. */
static json_t *
job_record(const char *id, const char *argv, const char *st, int code,
    double started, const char *actor)
{
	json_t *o = json_pack("{s:s, s:s, s:f, s:f}", "id", id, "state", st,
	    "started", started, "ended", started + 2), *a = json_array();
	char *words = xstrdup(argv), *w, *save = NULL;

	for (w = strtok_r(words, "|", &save); w != NULL;
	    w = strtok_r(NULL, "|", &save))
		json_array_append_new(a, json_string(w));
	free(words);
	json_object_set_new(o, "argv", a);
	json_object_set_new(o, "exit_code", code >= 0 ? json_integer(code) :
	    json_null());
	if (actor != NULL)
		json_object_set_new(o, "actor", json_string(actor));
	return o;
}

#define KV1 "calrt-sim|fault|--calbin|/w/05-calbin/package|--chips|1|" \
	"--scenario|kv-full"

static void
a_file_is_matched_to_the_job_that_wrote_it(void **state)
{
	json_t *r[5];
	struct fold_file f = { .host = "h" };
	size_t i;

	(void)state;
	f.r.chip = 1;
	snprintf(f.r.scenario, sizeof f.r.scenario, "kv-full");
	r[0] = job_record("old", KV1, "done", 0, 100, "ana@lab");
	r[1] = job_record("new", KV1, "done", 0, 300, "bo@home");
	/* Another chip, another scenario, another workspace: not it. */
	r[2] = job_record("c0", "calrt-sim|fault|--calbin|"
	    "/w/05-calbin/package|--chips|0|--scenario|kv-full", "done", 0,
	    900, NULL);
	r[3] = job_record("ws2", "calrt-sim|fault|--calbin|"
	    "/v/05-calbin/package|--chips|1|--scenario|kv-full", "done", 0,
	    900, NULL);
	r[4] = job_record("bc", "calrt-sim|fault|--calbin|"
	    "/w/05-calbin/package|--chips|1|--scenario|bad-csr", "done", 0,
	    900, NULL);
	faultfold_file_job(&f, "/w", r, nitems(r));
	assert_string_equal(f.job, "new");
	assert_string_equal(f.actor, "bo@home");
	assert_string_equal(f.state, "done");
	assert_int_equal(f.exit_code, 0);
	assert_false(f.suite);
	assert_true(f.ended == 302);
	/* G7's whole job, later, runs it too. */
	json_decref(r[4]);
	r[4] = job_record("g7", "/bin/sh|-c|script|calops-g7|"
	    "/w/05-calbin/package|1|missing-tensor kv-full bad-csr|calrt-sim",
	    "failed", 1, 1000, NULL);
	faultfold_file_job(&f, "/w", r, nitems(r));
	assert_string_equal(f.job, "g7");
	assert_true(f.suite);
	assert_string_equal(f.actor, "");
	faultfold_file_job(&f, "/w", r, 0);
	assert_string_equal(f.job, "");
	for (i = 0; i < nitems(r); i++)
		json_decref(r[i]);
}

/*
 * The issue's repro: this console followed kv-full on chip 1 recovering in
 * 10 ms; since, another console's job ended "done" but the host's file says
 * aborted.  The cell is the file's, and says they disagree: never ✔.
 */
static void
a_file_its_job_contradicts_is_never_passed(void **state)
{
	struct fold_state cells[SCENARIO_COUNT * 2], *kv = &cells[3 * 2 + 1];
	struct lfault stale = result("mine", "kv-full", 1, 5);
	const struct lfault *faults[] = { &stale };
	struct fold_src src = { faults, 1, NULL, 0, NULL, 0 };
	struct fold_file f = { .host = "h" };
	int chips[] = { 0, 1 };
	char err[200], buf[64];

	(void)state;
	stale.recover_ms = 10;
	faultfold_grid(&src, "h", chips, 2, cells);
	assert_int_equal(kv->o, FO_RECOVERED);
	assert_int_equal(hostcmd_fault_parse(aborted_file,
	    strlen(aborted_file), &f.r, err, sizeof err), 0);
	snprintf(f.job, sizeof f.job, "theirs");
	snprintf(f.state, sizeof f.state, "done");
	f.exit_code = 0;
	src.files = &f;
	src.nfiles = 1;
	faultfold_grid(&src, "h", chips, 2, cells);
	assert_ptr_equal(kv->file, &f);
	assert_int_equal(kv->o, FO_DISAGREES);
	assert_true(faultfold_failed(kv->o));
	assert_string_equal(faultfold_cell_words(kv, true, buf, sizeof buf),
	    "aborted, job done");
	/* The job failed as the file says: aborted, and nothing to doubt. */
	snprintf(f.state, sizeof f.state, "failed");
	f.exit_code = 1;
	faultfold_grid(&src, "h", chips, 2, cells);
	assert_int_equal(kv->o, FO_ABORTED);
	/* The reverse: the file says recovered, its fault job failed. */
	f.r.aborted = false;
	f.r.recovered = true;
	f.r.recover_ms = 12;
	faultfold_grid(&src, "h", chips, 2, cells);
	assert_int_equal(kv->o, FO_DISAGREES);
	assert_string_equal(faultfold_cell_words(kv, true, buf, sizeof buf),
	    "recovered, job failed");
	/* G7's whole job fails for any scenario: no word on this one. */
	f.suite = true;
	faultfold_grid(&src, "h", chips, 2, cells);
	assert_int_equal(kv->o, FO_RECOVERED);
	assert_string_equal(faultfold_cell_words(kv, true, buf, sizeof buf),
	    "recovered 12ms");
	/* Both agree: the file's time, not the stale event's. */
	f.suite = false;
	snprintf(f.state, sizeof f.state, "done");
	f.exit_code = 0;
	faultfold_grid(&src, "h", chips, 2, cells);
	assert_int_equal(kv->o, FO_RECOVERED);
	assert_string_equal(faultfold_cell_words(kv, false, buf, sizeof buf),
	    "12ms");
	/* The other chip keeps what the events said: the file is chip 1's. */
	assert_int_equal(cells[3 * 2].o, FO_NEVER);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(expected_codes_are_the_runbooks),
		cmocka_unit_test(classify_takes_the_worst),
		cmocka_unit_test(ranges_sort_and_merge),
		cmocka_unit_test(the_issue_example_folds),
		cmocka_unit_test(jittered_times_show_a_range),
		cmocka_unit_test(every_outcome_has_its_group),
		cmocka_unit_test(small_buffers_and_nothing),
		cmocka_unit_test(grid_shows_a_job_that_left_no_result),
		cmocka_unit_test(live_jobs_show_running),
		cmocka_unit_test(failed_job_words),
		cmocka_unit_test(history_goes_by_arrival),
		cmocka_unit_test(result_files_parse_strictly),
		cmocka_unit_test(a_file_is_matched_to_the_job_that_wrote_it),
		cmocka_unit_test(a_file_its_job_contradicts_is_never_passed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
