/* report.c: the check result as JSON and as a text board (see report.h). */
#include "calops.h"

#include <langinfo.h>
#include <wchar.h>

#include "base/text.h"
#include "engine/report.h"

bool
report_filter_has(const struct gate_filter *f, int index)
{
	return f == NULL || f->n == 0 || f->want[index];
}

json_t *
report_finding_json(const struct finding *f, const char *gate)
{
	json_t *o = json_object();

	if (gate != NULL)
		json_object_set_new(o, "gate", json_string(gate));
	json_object_set_new(o, "check", text_json(f->check));
	json_object_set_new(
	    o, "severity", json_string(finding_severity_name(f->severity)));
	json_object_set_new(o, "message", text_json(f->message));
	json_object_set_new(o, "path", text_json(f->path));
	json_object_set_new(o, "where", text_json(f->where));
	return o;
}

json_t *
report_input_json(const struct gate_input *in, const char *gate)
{
	json_t *o = json_object();

	if (gate != NULL)
		json_object_set_new(o, "gate", json_string(gate));
	json_object_set_new(o, "path", text_json(in->rel));
	json_object_set_new(o, "present", json_boolean(in->present));
	json_object_set_new(o, "sha256", in->hex[0] != '\0' ?
	    json_string(in->hex) : json_null());
	json_object_set_new(o, "size", json_integer((json_int_t)in->size));
	json_object_set_new(o, "mtime_ns", json_integer(in->mtime_ns));
	return o;
}

static json_t *
gate_json(const struct gate_result *gr, bool with_findings)
{
	json_t *o = json_object(), *list;
	size_t i, counts[5] = { 0 };

	json_object_set_new(o, "id", json_string(gr->def->id));
	json_object_set_new(o, "name", json_string(gr->def->name));
	json_object_set_new(o, "status", json_string(gate_status_name(gr->status)));
	json_object_set_new(o, "role", json_string(gr->def->role));
	json_object_set_new(o, "owner", text_json(gr->owner));
	json_object_set_new(o, "due", text_json(gr->due));
	json_object_set_new(o, "failback", json_string(gr->def->failback));
	for (i = 0; i < gr->findings.n; i++)
		counts[gr->findings.v[i].severity]++;
	json_object_set_new(o, "counts", json_pack("{s:I,s:I,s:I,s:I,s:I}",
	    "error", (json_int_t)counts[SEV_ERROR],
	    "blocked", (json_int_t)counts[SEV_BLOCKED],
	    "stale", (json_int_t)counts[SEV_STALE],
	    "warn", (json_int_t)counts[SEV_WARN],
	    "info", (json_int_t)counts[SEV_INFO]));
	/* Every check id of the gate with its verdict (workspace.md §6). */
	list = json_object();
	for (i = 0; gr->def->checks[i] != NULL; i++)
		json_object_set_new(list, gr->def->checks[i], json_string(
		    gate_verdict_name(gate_check_verdict(gr, gr->def->checks[i],
		    false))));
	json_object_set_new(o, "checks", list);
	if (with_findings) {
		list = json_array();
		for (i = 0; i < gr->ninputs; i++)
			json_array_append_new(
			    list, report_input_json(&gr->inputs[i], NULL));
		json_object_set_new(o, "inputs", list);
		list = json_array();
		for (i = 0; i < gr->findings.n; i++)
			json_array_append_new(list,
			    report_finding_json(&gr->findings.v[i], NULL));
		json_object_set_new(o, "findings", list);
	}
	return o;
}

static json_t *
ticket_json(const struct ticket *t)
{
	json_t *o = json_object(), *checks = json_object();
	char *id;
	size_t k;

	json_object_set_new(o, "id", json_string(t->def->id));
	json_object_set_new(o, "title", json_string(t->def->title));
	json_object_set_new(o, "progress", json_real(t->progress));
	json_object_set_new(o, "state", text_json(t->state));
	json_object_set_new(o, "owner", text_json(t->owner));
	json_object_set_new(o, "estimate_days", t->estimate_days >= 0 ?
	    json_real(t->estimate_days) : json_null());
	json_object_set_new(o, "claimed_done_without_evidence",
	    json_boolean(t->claimed_done_without_evidence));
	/* Keyed by the check ("G5.manifest"), not by the spec's "!". */
	for (k = 0; k < t->total; k++) {
		id = xstrndup(t->def->checks[k],
		    strcspn(t->def->checks[k], "!"));
		json_object_set_new(checks, id,
		    json_string(gate_verdict_name(t->verdict[k])));
		free(id);
	}
	json_object_set_new(o, "checks", checks);
	if (t->problem != NULL)
		json_object_set_new(o, "problem", json_pack("{s:o,s:o}",
		    "message", text_json(t->problem),
		    "where", text_json(t->problem_where)));
	return o;
}

json_t *
report_json(const struct eval *ev, const struct ticket *t,
    const struct gate_filter *f, bool with_findings)
{
	json_t *o = json_object(), *gates = json_array(), *pf = json_array();
	json_t *tickets = json_array();
	char *status = gate_eval_project_status(ev);
	size_t i;

	json_object_set_new(o, "schema", json_string("calops-check/v1"));
	json_object_set_new(o, "workspace", text_json(ev->ws.given));
	json_object_set_new(o, "model_id", text_json(ev->src.model_id));
	json_object_set_new(o, "project_status", json_string(status));
	/* The G0 SLA, for the soak graphs and alerts of the console. */
	if (ev->src.have_sla)
		json_object_set_new(o, "sla", json_pack("{s:f, s:f, s:f}",
		    "ttft_ms_p99", ev->src.ttft_ms_p99, "tpot_ms_p99",
		    ev->src.tpot_ms_p99, "success_rate_min",
		    ev->src.success_rate_min));
	for (i = 0; i < ev->project.n; i++)
		json_array_append_new(
		    pf, report_finding_json(&ev->project.v[i], NULL));
	json_object_set_new(o, "project_findings", pf);
	for (i = 0; i < GATE_COUNT; i++)
		if (report_filter_has(f, (int)i))
			json_array_append_new(gates, gate_json(&ev->gates[i],
			    with_findings));
	json_object_set_new(o, "gates", gates);
	for (i = 0; i < TICKET_COUNT; i++)
		json_array_append_new(tickets, ticket_json(&t[i]));
	json_object_set_new(o, "tickets", tickets);
	free(status);
	return o;
}

/* ---- the text board ---- */

struct style {
	const char	*glyph, *ascii, *sgr;
};

static const struct style status_style[] = {
	[GS_PENDING] = { "·", ".", "2" },
	[GS_FAIL] = { "✘", "x", "1;31" },
	[GS_BLOCKED] = { "⊘", "#", "1;35" },
	[GS_STALE] = { "≈", "~", "33" },
	[GS_PASS] = { "✔", "+", "32" },
	[GS_RUNNING] = { "▶", ">", "36" },
};

const char *
report_status_glyph(enum gate_status s, bool utf8)
{
	return utf8 ? status_style[s].glyph : status_style[s].ascii;
}

static const char *const severity_sgr[] = {
	[SEV_ERROR] = "31", [SEV_BLOCKED] = "35", [SEV_STALE] = "33",
	[SEV_WARN] = "33", [SEV_INFO] = "2",
};

static bool
utf8_locale(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs != NULL && strcmp(cs, "UTF-8") == 0;
}

/* Untrusted text, sanitised and clipped to width columns, then padded. */
static void
put_cell(FILE *out, const char *s, size_t width)
{
	char *clean = text_sanitize(s != NULL ? s : "-", s != NULL ?
	    strlen(s) : 1, width);
	size_t cols = 0;
	const char *p;
	wchar_t wc;
	int n, w;
	mbstate_t mb;

	memset(&mb, 0, sizeof mb);
	for (p = clean; *p != '\0'; p += n) {
		n = (int)mbrtowc(&wc, p, MB_CUR_MAX, &mb);
		if (n <= 0) {
			n = 1;
			cols++;
			continue;
		}
		w = wcwidth(wc);
		cols += w > 0 ? (size_t)w : 0;
	}
	fputs(clean, out);
	for (; cols < width; cols++)
		fputc(' ', out);
	free(clean);
}

static void
sgr(FILE *out, bool colour, const char *code)
{
	if (colour)
		fprintf(out, "\033[%sm", code);
}

static void
put_finding(FILE *out, const struct finding *f, bool colour)
{
	char *msg = text_sanitize_str(f->message);

	fputs("    ", out);
	sgr(out, colour, severity_sgr[f->severity]);
	fprintf(out, "%-7s", finding_severity_name(f->severity));
	sgr(out, colour, "0");
	fputc(' ', out);
	put_cell(out, f->check, 0);
	fputs("  ", out);
	if (f->path[0] != '\0') {
		put_cell(out, f->path, 0);
		if (f->where[0] != '\0') {
			fputc(f->where[0] == '/' ? '#' : ':', out);
			put_cell(out, f->where, 0);
		}
		fputs("  ", out);
	}
	fprintf(out, "%s\n", msg);
	free(msg);
}

static void
put_gate(FILE *out, const struct gate_result *gr, bool colour, bool utf8)
{
	const struct style *st = &status_style[gr->status];
	size_t i, c[5] = { 0 };

	for (i = 0; i < gr->findings.n; i++)
		c[gr->findings.v[i].severity]++;
	fprintf(out, "%-4s ", gr->def->id);
	sgr(out, colour, st->sgr);
	fprintf(out, "%s %-8s", utf8 ? st->glyph : st->ascii,
	    gate_status_name(gr->status));
	sgr(out, colour, "0");
	fprintf(out, " %-26s ", gr->def->name);
	put_cell(out, gr->owner, 24);
	fputc(' ', out);
	put_cell(out, gr->due, 10);
	fprintf(out, "  %zuE %zuB %zuS %zuW\n", c[SEV_ERROR], c[SEV_BLOCKED],
	    c[SEV_STALE], c[SEV_WARN]);
}

static void
put_details(FILE *out, const struct gate_result *gr, bool colour)
{
	size_t i;

	if (gr->status == GS_PASS || gr->status == GS_PENDING)
		return;
	fprintf(out, "\n%s %s: %s — failback: %s\n", gr->def->id, gr->def->name,
	    gate_status_name(gr->status), gr->def->failback);
	for (i = 0; i < gr->findings.n; i++)
		if (gr->findings.v[i].severity != SEV_INFO)
			put_finding(out, &gr->findings.v[i], colour);
}

static void
put_ticket(FILE *out, const struct ticket *t, bool colour, bool utf8)
{
	size_t i, filled = (size_t)(t->progress * 10 + 0.5);

	fprintf(out, "%-4s %-24s [", t->def->id, t->def->title);
	sgr(out, colour, t->progress >= 1 ? "32" : "33");
	for (i = 0; i < 10; i++)
		fputs(i < filled ? (utf8 ? "█" : "#") : (utf8 ? "░" : "."), out);
	sgr(out, colour, "0");
	fprintf(out, "] %3.0f%%  %-7s ", t->progress * 100,
	    t->state != NULL ? t->state : "-");
	put_cell(out, t->owner, 24);
	if (t->claimed_done_without_evidence) {
		sgr(out, colour, "1;31");
		fputs("  claimed done, evidence missing", out);
		sgr(out, colour, "0");
	}
	fputc('\n', out);
}

void
report_text(FILE *out, const struct eval *ev, const struct ticket *t,
    const struct gate_filter *f, bool colour)
{
	char *status = gate_eval_project_status(ev);
	bool utf8 = utf8_locale();
	size_t i;

	fputs("calops check  ", out);
	put_cell(out, ev->ws.given, 0);
	fputs("  model ", out);
	put_cell(out, ev->src.model_id, 0);
	fputs("\nproject: ", out);
	sgr(out, colour, ev->project.n > 0 ? "1;35" : strcmp(status,
	    "RELEASED") == 0 ? "1;32" : "1");
	fputs(status, out);
	if (ev->project.n > 0)
		fputs(" — no launch date may be promised", out);
	sgr(out, colour, "0");
	fputc('\n', out);
	for (i = 0; i < ev->project.n; i++)
		put_finding(out, &ev->project.v[i], colour);
	fprintf(out, "\n%-4s %-10s %-26s %-24s %-10s  %s\n", "GATE", "STATUS",
	    "NAME", "OWNER", "DUE", "FINDINGS");
	for (i = 0; i < GATE_COUNT; i++)
		if (report_filter_has(f, (int)i))
			put_gate(out, &ev->gates[i], colour, utf8);
	for (i = 0; i < GATE_COUNT; i++)
		if (report_filter_has(f, (int)i))
			put_details(out, &ev->gates[i], colour);
	if (f == NULL || f->n == 0) {
		fputs("\nTICKETS\n", out);
		for (i = 0; i < TICKET_COUNT; i++)
			put_ticket(out, &t[i], colour, utf8);
	}
	free(status);
}
