/* decision.c: the decision record from the evidence (decision.h). */
#include "calops.h"

#include <math.h>
#include <sys/stat.h>
#include <time.h>

#include "base/buf.h"
#include "base/text.h"
#include "engine/artifact.h"
#include "engine/gate.h"
#include "engine/report.h"
#include "model/decision.h"
#include "model/faultfold.h"
#include "model/reldiff.h"
#include "proto/scenario.h"
#include "release/relstate.h"
#include "ws/hashtree.h"

#define FAULTS	"06-runtime/faults"

/* A number, or null when it is not finite (NAN: not known). */
static json_t *
num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The sha256 of a gate's evidence, its primary artifact: a file's hash as
 * the gate read it (else hashed now, through the cache), a folder's tree
 * hash; null when it is absent or unreadable. */
static json_t *
evidence_hash(struct gate_result *gr, const char **kind)
{
	const char *rel = gr->def->primary;
	char hex[HASH_HEX_LEN + 1], err[320];
	const struct tree *t;
	struct stat st;
	size_t i;

	*kind = "absent";
	if (workspace_locate(&gr->ev->ws, rel, &st, err, sizeof err) != WS_OK)
		return json_null();
	if (S_ISDIR(st.st_mode)) {
		*kind = "tree";
		t = artifact_tree(gr, rel, err, sizeof err);
		return t != NULL ? json_string(t->hex) : json_null();
	}
	*kind = "file";
	for (i = 0; i < gr->ninputs; i++)
		if (strcmp(gr->inputs[i].rel, rel) == 0 &&
		    gr->inputs[i].hex[0] != '\0')
			return json_string(gr->inputs[i].hex);
	if (artifact_hash(gr, rel, hex, err, sizeof err) != 0)
		return json_null();
	return json_string(hex);
}

static json_t *
board(struct eval *ev)
{
	json_t *a = json_array(), *g, *h;
	struct gate_result *gr;
	const char *kind;
	int i;

	for (i = 0; i < GATE_COUNT; i++) {
		gr = &ev->gates[i];
		h = evidence_hash(gr, &kind);
		g = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:s, s:s, s:o}",
		    "id", gr->def->id, "name", gr->def->name,
		    "status", gate_status_name(gr->status),
		    "glyph", report_status_glyph(gr->status, true),
		    "owner", text_json(gr->owner), "due", text_json(gr->due),
		    "evidence", gr->def->primary, "evidence_kind", kind,
		    "sha256", h);
		json_array_append_new(a, g);
	}
	return a;
}

/* Where a finding is as "FILE:LINE" when its position gives a line (a
 * JSON pointer is looked up in the file, "LINE:COL" is cut to its line),
 * else "FILE:POSITION" or "FILE" (a new string). */
static char *
finding_at(const struct eval *ev, const struct finding *f)
{
	char err[320];
	long line;

	if (f->path[0] == '\0')
		return xstrdup("");
	if (f->where[0] == '\0')
		return xstrdup(f->path);
	if (f->where[0] == '/') {
		line = workspace_pointer_line(&ev->ws, f->path, f->where, err,
		    sizeof err);
		if (line > 0)
			return xasprintf("%s:%ld", f->path, line);
		return xasprintf("%s#%s", f->path, f->where);
	}
	return xasprintf("%s:%.*s", f->path, (int)strcspn(f->where, ":"),
	    f->where);
}

static void
findings_into(json_t *a, const struct eval *ev, const char *gate,
    const struct findings *fs)
{
	const struct finding *f;
	size_t i;
	char *at;

	for (i = 0; i < fs->n; i++) {
		f = &fs->v[i];
		if (f->severity == SEV_INFO)
			continue;
		at = finding_at(ev, f);
		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:o, s:o}",
		    "gate", gate, "severity",
		    finding_severity_name(f->severity),
		    "check", text_json(f->check), "at", text_json(at),
		    "message", text_json(f->message)));
		free(at);
	}
}

/* The open findings: every one that is not an info, project ones first. */
static json_t *
open_findings(const struct eval *ev)
{
	json_t *a = json_array();
	int i;

	findings_into(a, ev, "project", &ev->project);
	for (i = 0; i < GATE_COUNT; i++)
		findings_into(a, ev, ev->gates[i].def->id,
		    &ev->gates[i].findings);
	return a;
}

static json_t *
leak_json(bool have, const struct leak_verdict *lv)
{
	if (!have || !lv->evaluated)
		return json_pack("{s:s}", "verdict", have ? "too few samples" :
		    "no samples");
	return json_pack("{s:s, s:o, s:o}", "verdict", lv->growing ? "grows" :
	    "no growth", "growth_bytes", num(lv->growth), "threshold_bytes",
	    num(lv->threshold));
}

static json_t *
soak_run_json(const struct soak_run *r)
{
	json_t *o;

	o = json_pack("{s:o, s:s, s:b, s:o}", "run", text_json(r->name),
	    "outcome", r->outcome != NULL ? r->outcome : "unread",
	    "passing", r->passing,
	    "span_s", r->t1 >= r->t0 ? json_real(r->t1 - r->t0) : json_null());
	if (!r->stats)
		return o;
	json_object_set_new(o, "success_rate", num(r->success_rate));
	json_object_set_new(o, "ttft_ms_p50", num(r->ttft_p50));
	json_object_set_new(o, "ttft_ms_p99", num(r->ttft_p99));
	json_object_set_new(o, "tpot_ms_p50", num(r->tpot_p50));
	json_object_set_new(o, "tpot_ms_p99", num(r->tpot_p99));
	json_object_set_new(o, "rss_leak", leak_json(r->have_rss,
	    &r->rss_leak));
	json_object_set_new(o, "device_mem_leak", leak_json(r->have_dev,
	    &r->dev_leak));
	return o;
}

/* The run the graphs show: G9's longest passing one, else the last run
 * that has samples; NULL when none has. */
static const struct soak_run *
evidence_run(const struct eval *ev)
{
	const struct soak_run *best = NULL;
	size_t i;

	for (i = 0; i < ev->nsoak; i++)
		if (ev->soak[i].passing && ev->soak[i].t1 > ev->soak[i].t0 &&
		    (best == NULL || ev->soak[i].t1 - ev->soak[i].t0 >
		    best->t1 - best->t0))
			best = &ev->soak[i];
	for (i = ev->nsoak; best == NULL && i > 0; i--)
		if (ev->soak[i - 1].ttft.n > 0 && ev->soak[i - 1].t1 >
		    ev->soak[i - 1].t0)
			best = &ev->soak[i - 1];
	return best;
}

/*
 * One graph of series s over [t0, t1]: DECISION_GRAPH_POINTS equal windows,
 * each one's nearest-rank quantile q of its samples (soakstats.h) at the
 * window's middle, in seconds from t0; windows without a sample give no
 * point.
 */
static json_t *
graph(const struct series *s, double t0, double t1, double q)
{
	size_t count[DECISION_GRAPH_POINTS] = { 0 },
	    start[DECISION_GRAPH_POINTS + 1], fill[DECISION_GRAPH_POINTS];
	double width = (t1 - t0) / DECISION_GRAPH_POINTS, *v;
	json_t *a = json_array();
	size_t i, w;

	if (s->n == 0 || !(width > 0))
		return a;
	for (i = 0; i < s->n; i++) {
		w = (size_t)fmin(DECISION_GRAPH_POINTS - 1,
		    fmax(0, floor((s->ts[i] - t0) / width)));
		count[w]++;
	}
	start[0] = 0;
	for (w = 0; w < DECISION_GRAPH_POINTS; w++) {
		start[w + 1] = start[w] + count[w];
		fill[w] = start[w];
	}
	v = xreallocarray(NULL, s->n, sizeof *v);
	for (i = 0; i < s->n; i++) {
		w = (size_t)fmin(DECISION_GRAPH_POINTS - 1,
		    fmax(0, floor((s->ts[i] - t0) / width)));
		v[fill[w]++] = s->v[i];
	}
	for (w = 0; w < DECISION_GRAPH_POINTS; w++)
		if (count[w] > 0)
			json_array_append_new(a, json_pack("[f, f]",
			    ((double)w + 0.5) * width,
			    soakstats_nearest_rank(v + start[w], count[w], q)));
	free(v);
	return a;
}

static json_t *
soak(const struct eval *ev)
{
	const struct soak_run *e = evidence_run(ev);
	json_t *o = json_object(), *runs = json_array();
	size_t i;

	if (ev->src.have_sla)
		json_object_set_new(o, "sla", json_pack("{s:f, s:f, s:f}",
		    "ttft_ms_p99", ev->src.ttft_ms_p99, "tpot_ms_p99",
		    ev->src.tpot_ms_p99, "success_rate_min",
		    ev->src.success_rate_min));
	else
		json_object_set_new(o, "sla", json_null());
	for (i = 0; i < ev->nsoak; i++)
		json_array_append_new(runs, soak_run_json(&ev->soak[i]));
	json_object_set_new(o, "runs", runs);
	if (e == NULL) {
		json_object_set_new(o, "graphs", json_null());
		return o;
	}
	json_object_set_new(o, "graphs", json_pack("{s:o, s:f, s:o, s:o, s:o}",
	    "run", text_json(e->name), "span_s", e->t1 - e->t0,
	    "ttft_ms_p99", graph(&e->ttft, e->t0, e->t1, 0.99),
	    "tpot_ms_p99", graph(&e->tpot, e->t0, e->t1, 0.99),
	    "rss_bytes", graph(&e->rss, e->t0, e->t1, 0.50)));
	return o;
}

/* One scenario's result as G7 reads it, named as the Faults screen names
 * it (faultfold.h). */
static json_t *
fault(struct eval *ev, const struct scenario *sc)
{
	char *rel = xasprintf("%s/%s.json", FAULTS, sc->name), line[160];
	struct artifact *a = artifact_eval(ev, rel, true);
	json_t *r, *o, *code;
	struct fold_cell cell;
	enum fold_outcome fo;

	o = json_pack("{s:s, s:s, s:s}", "scenario", sc->name,
	    "expected_code", sc->code, "file", rel);
	free(rel);
	r = a->parsed ? a->doc.root : NULL;
	if (!json_is_object(r)) {
		json_object_set_new(o, "result", json_string(
		    a->status == WS_ABSENT ? "no result" : "unreadable"));
		json_object_set_new(o, "failed", json_true());
		return o;
	}
	code = json_object_get(r, "error_code");
	fo = faultfold_classify(sc->name,
	    json_is_true(json_object_get(r, "structured_error")),
	    json_string_value(code),
	    !json_is_false(json_object_get(r, "aborted")),
	    json_is_true(json_object_get(r, "recovered")));
	cell.chip = (int)json_integer_value(json_object_get(r, "chip"));
	cell.outcome = fo;
	cell.recover_ms = json_is_number(json_object_get(r, "recover_ms")) ?
	    json_number_value(json_object_get(r, "recover_ms")) : NAN;
	/* Without a chip the line names none rather than chip 0. */
	if (json_is_integer(json_object_get(r, "chip")))
		faultfold_format(&cell, 1, " · ", line, sizeof line);
	else
		snprintf(line, sizeof line, "%s", faultfold_word(fo));
	json_object_set_new(o, "chip", json_is_integer(json_object_get(r,
	    "chip")) ? json_integer(cell.chip) : json_null());
	json_object_set_new(o, "error_code", text_json(json_string_value(
	    code)));
	json_object_set_new(o, "outcome", json_string(faultfold_word(fo)));
	json_object_set_new(o, "recover_ms", num(cell.recover_ms));
	json_object_set_new(o, "result", json_string(line));
	json_object_set_new(o, "failed", json_boolean(faultfold_failed(fo)));
	return o;
}

static json_t *
faults(struct eval *ev)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < SCENARIO_COUNT; i++)
		json_array_append_new(a, fault(ev, &scenario_table[i]));
	return a;
}

/* The strings of a manifest's list member (others are left out). */
static json_t *
strings(const json_t *doc, const char *key)
{
	json_t *a = json_array(), *v;
	size_t i;

	json_array_foreach(json_object_get(doc, key), i, v)
		if (json_is_string(v))
			json_array_append_new(a,
			    text_json(json_string_value(v)));
	return a;
}

static json_t *
diff(const struct relgen *g, const struct relgen *prev)
{
	json_t *a = json_array();
	struct reldiff d;
	size_t i;

	reldiff_make(&d, prev != NULL ? prev->doc : NULL, g->doc);
	for (i = 0; i < d.n; i++)
		json_array_append_new(a, json_pack("{s:s, s:o, s:o, s:o}",
		    "kind", d.v[i].kind == RD_CHANGED ? "changed" :
		    d.v[i].kind == RD_ADDED ? "added" : "removed",
		    "field", text_json(d.v[i].field),
		    "from", text_json(d.v[i].from), "to", text_json(d.v[i].to)));
	reldiff_release(&d);
	return a;
}

static json_t *
generations(const struct relstate *st)
{
	const struct relgen *g;
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < st->ngens; i++) {
		g = &st->gens[i];
		json_array_append_new(a, json_pack("{s:i, s:o, s:b, s:o, s:o, "
		    "s:o}", "generation", (json_int_t)g->n,
		    "signer", text_json(g->signer), "revoked", g->revoked,
		    "previous_generation", g->previous >= 0 ?
		    json_integer(g->previous) : json_null(),
		    "observation_window_h", num(g->window_h),
		    "problem", text_json(g->problem[0] != '\0' ? g->problem :
		    NULL)));
	}
	return a;
}

static json_t *
release_json(const struct relstate *st, const char *why)
{
	const struct relgen *c, *prev;
	json_t *o;

	if (st == NULL)
		return json_pack("{s:o}", "problem", text_json(why));
	c = relstate_gen(st, st->candidate);
	prev = c != NULL && c->previous >= 0 ? relstate_gen(st, c->previous) :
	    NULL;
	o = json_pack("{s:o, s:o, s:o, s:o}",
	    "current", st->current >= 0 ? json_integer(st->current) :
	    json_null(),
	    "candidate", c != NULL ? json_integer(c->n) : json_null(),
	    "previous", prev != NULL ? json_integer(prev->n) : json_null(),
	    "generations", generations(st));
	json_object_set_new(o, "diff", c != NULL ? diff(c, prev) :
	    json_array());
	json_object_set_new(o, "known_limitations", strings(c != NULL ?
	    c->doc : NULL, "known_limitations"));
	json_object_set_new(o, "disabled_features", strings(c != NULL ?
	    c->doc : NULL, "disabled_features"));
	json_object_set_new(o, "audit", json_pack("{s:b, s:b, s:i, s:o, s:o}",
	    "present", st->audit_present, "intact", st->audit_ok,
	    "records", (json_int_t)st->audit.records,
	    "head_sha256", st->audit_present && st->audit.records > 0 ?
	    json_string(st->audit.last_line_sha256) : json_null(),
	    "problem", text_json(st->audit.problem[0] != '\0' ?
	    st->audit.problem : NULL)));
	/* The approvers are the log's records, as they signed them. */
	json_object_set(o, "approvals", st->audit_tail != NULL ?
	    st->audit_tail : json_array());
	return o;
}

/* Is gr in the way of going live?  G10 is not held back by the one thing
 * this record is the evidence of: decision.md itself. */
static bool
blocks(const struct gate_result *gr)
{
	size_t i;

	if (gr->status == GS_PASS)
		return false;
	if (gr->index != GATE_COUNT - 1 || gr->status != GS_FAIL)
		return true;
	for (i = 0; i < gr->findings.n; i++)
		if (gr->findings.v[i].severity != SEV_INFO &&
		    gr->findings.v[i].severity != SEV_WARN &&
		    strcmp(gr->findings.v[i].check, "G10.decision") != 0)
			return true;
	return false;
}

/* The go/no-go and its one line. */
static json_t *
verdict(const struct eval *ev, const struct relstate *st, const char *ps)
{
	struct buf b = BUF_INIT;
	bool go = true;
	char *line;
	json_t *v;
	int i;

	if (ev->project.n > 0) {
		buf_addf(&b, "project %s", ps);
		go = false;
	}
	for (i = 0; i < GATE_COUNT; i++)
		if (blocks(&ev->gates[i])) {
			buf_addf(&b, "%s%s %s", go ? "" : ", ",
			    ev->gates[i].def->id,
			    gate_status_name(ev->gates[i].status));
			go = false;
		}
	if (go && (st == NULL || st->candidate < 0)) {
		buf_adds(&b, "no candidate generation");
		go = false;
	}
	if (go)
		line = xasprintf("GO: generation %ld may go live: every gate "
		    "G0-G10 passes", st->candidate);
	else
		line = xasprintf("NO-GO: %s", b.data);
	buf_release(&b);
	v = json_pack("{s:b, s:o}", "go", go, "line", text_json(line));
	free(line);
	return v;
}

json_t *
decision_build(struct eval *ev, const struct relstate *st, const char *why)
{
	char *ps = gate_eval_project_status(ev);
	json_t *d, *v;

	v = verdict(ev, st, ps);
	d = json_pack("{s:s, s:o, s:o, s:o}", "schema", "calops-decision/v1",
	    "model_id", text_json(ev->src.model_id),
	    "project_status", text_json(ps), "decision", v);
	free(ps);
	json_object_set_new(d, "gates", board(ev));
	json_object_set_new(d, "findings", open_findings(ev));
	json_object_set_new(d, "soak", soak(ev));
	json_object_set_new(d, "faults", faults(ev));
	json_object_set_new(d, "release", release_json(st, why));
	return d;
}

bool
decision_go(const json_t *d)
{
	return json_is_true(json_object_get(json_object_get(d, "decision"),
	    "go"));
}

const char *
decision_line(const json_t *d)
{
	return json_string_value(json_object_get(json_object_get(d,
	    "decision"), "line"));
}

/* ---- the words the writers share (decision.h) ---- */

const char *
decision_span(const json_t *span_s, char *buf, size_t len)
{
	double s = json_number_value(span_s);

	if (!json_is_number(span_s))
		snprintf(buf, len, "no sample");
	else if (s >= 3600)
		snprintf(buf, len, "%.1f h", s / 3600);
	else if (s >= 60)
		snprintf(buf, len, "%.1f min", s / 60);
	else
		snprintf(buf, len, "%.0f s", s);
	return buf;
}

const char *
decision_leak(const json_t *leak, char *buf, size_t len)
{
	const char *v = json_string_value(json_object_get(leak, "verdict"));

	if (v == NULL)
		snprintf(buf, len, "-");
	else if (strcmp(v, "grows") == 0)
		snprintf(buf, len, "✘ grows %.2f MiB", json_number_value(
		    json_object_get(leak, "growth_bytes")) / 1048576.0);
	else if (strcmp(v, "no growth") == 0)
		snprintf(buf, len, "✔ no growth");
	else
		snprintf(buf, len, "· %s", v);
	return buf;
}

const char *
decision_change(const char *kind)
{
	if (kind != NULL && strcmp(kind, "added") == 0)
		return "+ added";
	if (kind != NULL && strcmp(kind, "removed") == 0)
		return "- removed";
	return "~ changed";
}

const char *
decision_utc(const json_t *ts, char *buf, size_t len)
{
	time_t t = (time_t)json_number_value(ts);
	struct tm tm;

	if (!json_is_number(ts) || gmtime_r(&t, &tm) == NULL)
		snprintf(buf, len, "-");
	else
		strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
	return buf;
}
