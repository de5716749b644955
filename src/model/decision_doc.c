/*
 * decision_doc.c: the decision record's sections, in order, written
 * through a format (decision_doc.h): the verdict, the board, the open
 * findings, the soak, the faults, the release.
 */
#include "calops.h"

#include <locale.h>
#include <math.h>

#include "base/buf.h"
#include "model/decision.h"
#include "model/decision_doc.h"

/* A member of o as text, "-" when it is null, empty or missing. */
static void
member(const struct decision_fmt *f, struct buf *b, const json_t *o,
    const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (json_is_string(v) && json_string_length(v) > 0)
		f->text(b, json_string_value(v));
	else if (json_is_integer(v))
		buf_addf(b, "%lld", (long long)json_integer_value(v));
	else
		f->raw(b, "-");
}

/* A cell holding member key of o; as code when asked. */
static void
cell(const struct decision_fmt *f, struct buf *b, const json_t *o,
    const char *key, bool code)
{
	const json_t *v = json_object_get(o, key);

	f->cell(b, NULL, true);
	if (code && json_is_string(v))
		f->code(b, json_string_value(v));
	else
		member(f, b, o, key);
	f->cell(b, NULL, false);
}

/* A cell of calops' own words, with a class. */
static void
cell_raw(const struct decision_fmt *f, struct buf *b, const char *cls,
    const char *s)
{
	f->cell(b, cls, true);
	f->raw(b, s);
	f->cell(b, cls, false);
}

static const char *
member_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void
board(const struct decision_fmt *f, struct buf *b, const json_t *d)
{
	static const char *const cols[] = { "Gate", "Status", "Name", "Owner",
	    "Evidence", "SHA-256" };
	const json_t *g;
	char word[48], cls[32];
	size_t i;

	f->heading(b, 2, "board", "Board");
	f->table(b, "board", cols, nitems(cols), true);
	json_array_foreach(json_object_get(d, "gates"), i, g) {
		f->row(b, "gate", member_str(g, "id"), true);
		cell_raw(f, b, "gate-id", member_str(g, "id"));
		snprintf(word, sizeof word, "%s %s", member_str(g, "glyph"),
		    member_str(g, "status"));
		snprintf(cls, sizeof cls, "s-%s", member_str(g, "status"));
		cell_raw(f, b, cls, word);
		cell(f, b, g, "name", false);
		cell(f, b, g, "owner", false);
		cell(f, b, g, "evidence", true);
		if (json_is_string(json_object_get(g, "sha256")))
			cell(f, b, g, "sha256", true);
		else
			cell_raw(f, b, NULL, "absent");
		f->row(b, "gate", NULL, false);
	}
	f->table(b, "board", cols, nitems(cols), false);
}

static void
findings(const struct decision_fmt *f, struct buf *b, const json_t *d)
{
	static const char *const cols[] = { "Gate", "Severity", "Check",
	    "Where", "Message" };
	const json_t *a = json_object_get(d, "findings"), *x;
	size_t i;

	f->heading(b, 2, "findings", "Open findings");
	if (json_array_size(a) == 0) {
		f->para(b, NULL, NULL, true);
		f->raw(b, "None: no gate has an error, a blocked, stale or "
		    "warning finding.");
		f->para(b, NULL, NULL, false);
		return;
	}
	f->table(b, "findings", cols, nitems(cols), true);
	json_array_foreach(a, i, x) {
		f->row(b, "finding", NULL, true);
		cell(f, b, x, "gate", false);
		cell(f, b, x, "severity", false);
		cell(f, b, x, "check", false);
		cell(f, b, x, "at", true);
		cell(f, b, x, "message", false);
		f->row(b, "finding", NULL, false);
	}
	f->table(b, "findings", cols, nitems(cols), false);
}

static double
sla_of(const json_t *sla, const char *key)
{
	const json_t *v = json_object_get(sla, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A figure in a cell against its SLA bound (NAN: none), with a glyph and
 * a word when it breaks it. */
static void
against(const struct decision_fmt *f, struct buf *b, const json_t *run,
    const char *key, double lim, bool atleast, const char *fmt)
{
	const json_t *v = json_object_get(run, key);
	bool ok;
	double x;

	if (!json_is_number(v)) {
		cell_raw(f, b, NULL, "-");
		return;
	}
	x = json_number_value(v);
	ok = !isfinite(lim) || (atleast ? x >= lim : x <= lim);
	f->cell(b, ok ? NULL : "bad", true);
	buf_addf(b, fmt, x);
	if (isfinite(lim))
		f->raw(b, ok ? " ✔" : atleast ? " ✘ under SLA" : " ✘ over SLA");
	f->cell(b, ok ? NULL : "bad", false);
}

static void
soak_runs(const struct decision_fmt *f, struct buf *b, const json_t *s)
{
	static const char *const cols[] = { "Run", "Span", "Outcome",
	    "Evidence", "Success rate", "TTFT P50", "TTFT P99", "TPOT P50",
	    "TPOT P99", "RSS", "Device memory" };
	const json_t *sla = json_object_get(s, "sla"), *r;
	char word[64];
	size_t i;

	f->table(b, "soak-runs", cols, nitems(cols), true);
	json_array_foreach(json_object_get(s, "runs"), i, r) {
		f->row(b, "soak-run", NULL, true);
		cell(f, b, r, "run", false);
		cell_raw(f, b, NULL, decision_span(json_object_get(r,
		    "span_s"), word, sizeof word));
		cell(f, b, r, "outcome", false);
		cell_raw(f, b, NULL, json_is_true(json_object_get(r,
		    "passing")) ? "✔ passes" : "✘ no");
		against(f, b, r, "success_rate", sla_of(sla,
		    "success_rate_min"), true, "%.4f");
		against(f, b, r, "ttft_ms_p50", NAN, false, "%.1f ms");
		against(f, b, r, "ttft_ms_p99", sla_of(sla, "ttft_ms_p99"),
		    false, "%.1f ms");
		against(f, b, r, "tpot_ms_p50", NAN, false, "%.2f ms");
		against(f, b, r, "tpot_ms_p99", sla_of(sla, "tpot_ms_p99"),
		    false, "%.2f ms");
		cell_raw(f, b, NULL, decision_leak(json_object_get(r,
		    "rss_leak"), word, sizeof word));
		cell_raw(f, b, NULL, decision_leak(json_object_get(r,
		    "device_mem_leak"), word, sizeof word));
		f->row(b, "soak-run", NULL, false);
	}
	f->table(b, "soak-runs", cols, nitems(cols), false);
}

static void
soak(const struct decision_fmt *f, struct buf *b, const json_t *d)
{
	const json_t *s = json_object_get(d, "soak"), *sla, *gr;

	sla = json_object_get(s, "sla");
	f->heading(b, 2, "soak", "Soak evidence");
	f->para(b, NULL, NULL, true);
	if (json_is_object(sla))
		buf_addf(b, "SLA (00-source/source-manifest.json): TTFT P99 ≤ "
		    "%.1f ms, TPOT P99 ≤ %.1f ms, success rate ≥ %.4f.",
		    sla_of(sla, "ttft_ms_p99"), sla_of(sla, "tpot_ms_p99"),
		    sla_of(sla, "success_rate_min"));
	else
		f->raw(b, "SLA: none (G0's SLA is missing).");
	f->para(b, NULL, NULL, false);
	if (json_array_size(json_object_get(s, "runs")) == 0) {
		f->para(b, NULL, NULL, true);
		f->raw(b, "No soak run under 07-serving/soak/.");
		f->para(b, NULL, NULL, false);
		return;
	}
	soak_runs(f, b, s);
	if (f->graph == NULL || !json_is_object(gr = json_object_get(s,
	    "graphs")))
		return;
	f->graph(b, gr, "ttft_ms_p99", "graph-ttft", sla_of(sla,
	    "ttft_ms_p99"), 1, "ms", "TTFT P99 (ms) per window");
	f->graph(b, gr, "tpot_ms_p99", "graph-tpot", sla_of(sla,
	    "tpot_ms_p99"), 1, "ms", "TPOT P99 (ms) per window");
	f->graph(b, gr, "rss_bytes", "graph-rss", NAN, 1048576.0, "MiB",
	    "RSS median (MiB) per window, which the leak rule judges");
}

static void
faults(const struct decision_fmt *f, struct buf *b, const json_t *d)
{
	static const char *const cols[] = { "Scenario", "Expected code",
	    "Result", "Error code", "Evidence" };
	const json_t *x;
	bool failed;
	size_t i;

	f->heading(b, 2, "faults", "Fault matrix");
	f->table(b, "faults", cols, nitems(cols), true);
	json_array_foreach(json_object_get(d, "faults"), i, x) {
		failed = json_is_true(json_object_get(x, "failed"));
		f->row(b, "fault", member_str(x, "scenario"), true);
		cell(f, b, x, "scenario", false);
		cell(f, b, x, "expected_code", false);
		f->cell(b, failed ? "bad" : "ok", true);
		f->raw(b, failed ? "✘ " : "✔ ");
		member(f, b, x, "result");
		f->cell(b, failed ? "bad" : "ok", false);
		cell(f, b, x, "error_code", false);
		cell(f, b, x, "file", true);
		f->row(b, "fault", NULL, false);
	}
	f->table(b, "faults", cols, nitems(cols), false);
}

static void
list(const struct decision_fmt *f, struct buf *b, const json_t *rel,
    const char *key, const char *title)
{
	const json_t *v;
	size_t i;

	f->heading(b, 3, key, title);
	if (json_array_size(json_object_get(rel, key)) == 0) {
		f->para(b, NULL, NULL, true);
		f->raw(b, "None.");
		f->para(b, NULL, NULL, false);
		return;
	}
	f->item(b, true, true);
	json_array_foreach(json_object_get(rel, key), i, v) {
		f->item(b, false, true);
		f->text(b, json_string_value(v));
		f->item(b, false, false);
	}
	f->item(b, true, false);
}

static void
changes(const struct decision_fmt *f, struct buf *b, const json_t *rel)
{
	static const char *const cols[] = { "Field", "Change", "Before",
	    "After" };
	const json_t *c;
	char title[64];
	size_t i;

	if (!json_is_integer(json_object_get(rel, "candidate")))
		return;
	snprintf(title, sizeof title, "What differs from %s",
	    json_is_integer(json_object_get(rel, "previous")) ? "generation" :
	    "the previous generation");
	if (json_is_integer(json_object_get(rel, "previous")))
		snprintf(title + strlen(title), sizeof title - strlen(title),
		    " %lld", (long long)json_integer_value(json_object_get(rel,
		    "previous")));
	f->heading(b, 3, "diff", title);
	f->para(b, NULL, NULL, true);
	if (!json_is_integer(json_object_get(rel, "previous")))
		f->raw(b, "The candidate names no previous generation: every "
		    "field is new.");
	else if (json_array_size(json_object_get(rel, "diff")) == 0)
		f->raw(b, "Nothing: the manifests bind the same.");
	else
		buf_addf(b, "Generation %lld's manifest against it, field by "
		    "field.", (long long)json_integer_value(json_object_get(rel,
		    "candidate")));
	f->para(b, NULL, NULL, false);
	if (json_array_size(json_object_get(rel, "diff")) == 0)
		return;
	f->table(b, "diff", cols, nitems(cols), true);
	json_array_foreach(json_object_get(rel, "diff"), i, c) {
		f->row(b, "diff", NULL, true);
		cell(f, b, c, "field", false);
		cell_raw(f, b, NULL, decision_change(member_str(c, "kind")));
		cell(f, b, c, "from", false);
		cell(f, b, c, "to", false);
		f->row(b, "diff", NULL, false);
	}
	f->table(b, "diff", cols, nitems(cols), false);
}

static void
approval(const struct decision_fmt *f, struct buf *b, const json_t *r)
{
	static const char *const keys[] = { "actor", "key_id", "action",
	    "from", "to", "reason" };
	char when[32];
	size_t k;

	f->row(b, "approval", NULL, true);
	if (!json_is_integer(json_object_get(r, "seq"))) {
		f->cell(b, "bad", true);
		buf_addf(b, "✘ line %lld", (long long)json_integer_value(
		    json_object_get(r, "line")));
		f->cell(b, "bad", false);
		cell_raw(f, b, NULL, "-");
		for (k = 0; k < nitems(keys) - 1; k++)
			cell_raw(f, b, NULL, "-");
		cell(f, b, r, "problem", false);
	} else {
		f->cell(b, NULL, true);
		buf_addf(b, "%lld", (long long)json_integer_value(
		    json_object_get(r, "seq")));
		f->cell(b, NULL, false);
		cell_raw(f, b, NULL, decision_utc(json_object_get(r, "ts"),
		    when, sizeof when));
		for (k = 0; k < nitems(keys); k++)
			cell(f, b, r, keys[k], false);
	}
	f->row(b, "approval", NULL, false);
}

static void
audit(const struct decision_fmt *f, struct buf *b, const json_t *rel)
{
	static const char *const cols[] = { "Seq", "Time (UTC)", "Approver",
	    "Key", "Action", "From", "To", "Reason" };
	const json_t *a = json_object_get(rel, "audit"), *r;
	size_t i;

	f->heading(b, 3, "audit", "Audit chain and approvals");
	f->para(b, NULL, NULL, true);
	if (!json_is_true(json_object_get(a, "present"))) {
		f->raw(b, "No audit.jsonl: nobody has approved a switch.");
		f->para(b, NULL, NULL, false);
		return;
	}
	if (json_is_true(json_object_get(a, "intact"))) {
		buf_addf(b, "✔ Intact, %lld records; its head (the SHA-256 of "
		    "the last line): ", (long long)json_integer_value(
		    json_object_get(a, "records")));
		if (json_is_string(json_object_get(a, "head_sha256")))
			f->code(b, member_str(a, "head_sha256"));
		else
			f->raw(b, "none");
	} else {
		f->raw(b, "✘ Broken: ");
		member(f, b, a, "problem");
	}
	f->para(b, NULL, NULL, false);
	f->table(b, "approvals", cols, nitems(cols), true);
	json_array_foreach(json_object_get(rel, "approvals"), i, r)
		approval(f, b, r);
	f->table(b, "approvals", cols, nitems(cols), false);
}

static void
release(const struct decision_fmt *f, struct buf *b, const json_t *d)
{
	const json_t *rel = json_object_get(d, "release");

	f->heading(b, 2, "release", "Release");
	f->para(b, NULL, NULL, true);
	if (json_object_get(rel, "problem") != NULL) {
		member(f, b, rel, "problem");
		f->para(b, NULL, NULL, false);
		return;
	}
	f->raw(b, "Current generation: ");
	member(f, b, rel, "current");
	f->raw(b, "; candidate: ");
	member(f, b, rel, "candidate");
	f->raw(b, "; its previous generation: ");
	member(f, b, rel, "previous");
	f->raw(b, ".");
	f->para(b, NULL, NULL, false);
	changes(f, b, rel);
	list(f, b, rel, "known_limitations", "Known limitations");
	list(f, b, rel, "disabled_features", "Disabled features");
	audit(f, b, rel);
}

static void
verdict(const struct decision_fmt *f, struct buf *b, const json_t *d)
{
	bool go = decision_go(d);

	f->para(b, "verdict", go ? "verdict go" : "verdict nogo", true);
	f->raw(b, go ? "✔ " : "✘ ");
	f->text(b, decision_line(d));
	f->para(b, "verdict", NULL, false);
	f->para(b, NULL, NULL, true);
	f->raw(b, "Project status: ");
	f->text(b, member_str(d, "project_status"));
	f->raw(b, ".  Written by calops report from the workspace's evidence "
	    "(share/doc/release.md §8): a gate's status and findings, the "
	    "soak figures and the fault results are the gate engine's.");
	f->para(b, NULL, NULL, false);
}

void
decision_doc_write(const struct decision_fmt *f, struct buf *b,
    const json_t *d)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0), old;

	/* Numbers with a point whatever LC_NUMERIC says: the same bytes. */
	old = c != (locale_t)0 ? uselocale(c) : (locale_t)0;
	f->document(b, d, true);
	verdict(f, b, d);
	board(f, b, d);
	findings(f, b, d);
	soak(f, b, d);
	faults(f, b, d);
	release(f, b, d);
	f->document(b, d, false);
	if (c != (locale_t)0) {
		uselocale(old);
		freelocale(c);
	}
}
