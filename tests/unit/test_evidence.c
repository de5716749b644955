/*
 * test_evidence.c: what counts as G9's soak evidence (workspace.md, G9, v3):
 * a run that did not complete is no evidence whatever its folder is named,
 * and a corrupt sample is an error at its line and column, never dropped.
 */
#include "calops.h"

#include <setjmp.h>
#include <unistd.h>

#include <cmocka.h>

#include "wsfixture.h"

#define SOAK "07-serving/soak"
#define RUN24 "07-serving/soak/2026-09-21-24h"
#define RUN8 "07-serving/soak/2026-09-03-8h"
#define RUN1 "07-serving/soak/2026-09-15-1h"

/* The 24 h run killed: no 24 h mark, the 8 h run is the longest passing. */
static void
killed_run_is_no_evidence(void **state)
{
	struct wsfix *w = *state;
	const struct finding *f;
	struct eval *ev;

	ws_json_set(w, RUN24 "/summary.json", "/outcome", json_string("killed"));
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_FAIL);
	expect_finding_msg(ev, "G9", "G9.duration", SEV_ERROR, "no passing soak "
	    "of 24 h");
	f = find_finding(ev, "G9", "G9.duration", SEV_INFO);
	assert_non_null(f);
	expect_finding_msg(ev, "G9", "G9.duration", SEV_INFO,
	    "run '2026-09-21-24h' was killed after");
	expect_finding_msg(ev, "G9", "G9.duration", SEV_INFO, "longest passing "
	    "soak: '2026-09-03-8h'");
	/* Its SLA and leak are not judged on it: no finding of either. */
	expect_no_finding(ev, "G9", "G9.soak");
	expect_no_finding(ev, "G9", "G9.leak");

	ws_reset(w, "completed says what the field's absence says");
	ws_json_set(w, RUN24 "/summary.json", "/outcome",
	    json_string("completed"));
	ev = ws_eval(w);
	expect_status(ev, "G9", GS_PASS);
	expect_verdict(ev, "G9.duration", CV_HELD);
}

/* Every run cut short: nothing was judged, and the board says why. */
static void
only_cut_short_runs(void **state)
{
	static const char *const outcomes[] = { "killed", "failed", "running" };
	static const char *const said[] = { "was killed after", "failed after",
	    "is still running at" };
	struct wsfix *w = *state;
	struct eval *ev;
	size_t i;

	for (i = 0; i < nitems(outcomes); i++) {
		ws_reset(w, outcomes[i]);
		ws_remove(w, RUN8);
		ws_remove(w, RUN1);
		ws_json_set(w, RUN24 "/summary.json", "/outcome",
		    json_string(outcomes[i]));
		ev = ws_eval(w);
		expect_status(ev, "G9", GS_FAIL);
		expect_finding_msg(ev, "G9", "G9.duration", SEV_INFO, said[i]);
		expect_verdict(ev, "G9.soak", CV_NOT_JUDGED);
		expect_verdict(ev, "G9.leak", CV_NOT_JUDGED);
		expect_verdict(ev, "G9.duration", CV_FAILED);
	}

	ws_reset(w, "an outcome calops does not know");
	ws_json_set(w, RUN24 "/summary.json", "/outcome", json_string("done"));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G9", "G9.soak", SEV_ERROR, "outcome must be");
	assert_string_equal(find_finding(ev, "G9", "G9.soak", SEV_ERROR)->where,
	    "/outcome");
	expect_finding_msg(ev, "G9", "G9.duration", SEV_ERROR, "24 h");
}

/* The line of metrics.jsonl that holds a request's ttft_ms, 1-based. */
static size_t
first_request_line(struct wsfix *w, const char *rel)
{
	char *data = ws_slurp(w, rel, NULL), *p, *q;
	size_t line = 1;

	for (p = data; (q = strchr(p, '\n')) != NULL; p = q + 1, line++) {
		*q = '\0';
		if (strstr(p, "\"ttft_ms\"") != NULL)
			break;
	}
	assert_non_null(q);
	free(data);
	return line;
}

/* A sample that is not a number is corrupt evidence: an error at its
 * line:col, and the run it is in no longer passes. */
static void
corrupt_sample_is_an_error(void **state)
{
	static const char *const keys[] = { "ttft_ms", "tpot_ms",
	    "request_ok" };
	struct wsfix *w = *state;
	const struct finding *f;
	struct eval *ev;
	char where[32], *data, *line, *col;
	size_t n, i, k;

	for (i = 0; i < nitems(keys); i++) {
		ws_reset(w, keys[i]);
		n = first_request_line(w, RUN24 "/metrics.jsonl");
		ws_jsonl_set(w, RUN24 "/metrics.jsonl", n,
		    i == 0 ? "/values/ttft_ms" : i == 1 ? "/values/tpot_ms" :
		    "/values/request_ok", i == 2 ? json_null() :
		    json_string("slow"));
		ev = ws_eval(w);
		expect_status(ev, "G9", GS_FAIL);
		f = find_finding(ev, "G9", "G9.parse", SEV_ERROR);
		assert_non_null(f);
		assert_non_null(strstr(f->message, keys[i]));
		assert_string_equal(f->path, RUN24 "/metrics.jsonl");
		/* The column is the value's, as an editor counts it. */
		data = ws_slurp(w, RUN24 "/metrics.jsonl", NULL);
		for (line = data, k = 1; k < n; k++)
			line = strchr(line, '\n') + 1;
		col = strstr(line, keys[i]) + strlen(keys[i]) + 2;
		snprintf(where, sizeof where, "%zu:%zu", n,
		    (size_t)(col - line) + 1);
		free(data);
		assert_string_equal(f->where, where);
		/* The 24 h run is no longer passing evidence. */
		expect_finding_msg(ev, "G9", "G9.duration", SEV_ERROR, "24 h");
	}

	ws_reset(w, "a memory sample");
	ws_jsonl_set(w, RUN24 "/metrics.jsonl", 3, "/values/rss_bytes",
	    json_true());
	ev = ws_eval(w);
	expect_finding_msg(ev, "G9", "G9.parse", SEV_ERROR, "rss_bytes");

	ws_reset(w, "a metric event without values");
	ws_jsonl_set(w, RUN24 "/metrics.jsonl", 2, "/values", json_string("x"));
	ev = ws_eval(w);
	expect_finding_msg(ev, "G9", "G9.parse", SEV_ERROR, "'values' object");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		WS_TEST(killed_run_is_no_evidence),
		WS_TEST(only_cut_short_runs),
		WS_TEST(corrupt_sample_is_an_error),
	};

	return cmocka_run_group_tests(tests, fixture_group_setup,
	    fixture_group_teardown);
}
