/*
 * gate.c: one gate up close: why is it not green?  Its first failing check
 * with the evidence behind it, the later gates it holds back, what changed
 * since it was last green (from the history), then all its findings.
 */
#include "calops.h"

#include <time.h>

#include "base/text.h"
#include "model/history.h"
#include "views/app/app.h"
#include "views/core/glyph.h"
#include "views/core/list.h"
#include "views/core/textpane.h"
#include "views/core/ui.h"
#include "views/labrun.h"
#include "vocab/gateid.h"

/*
 * What each gate stands on: the artifacts it reads (workspace.md §3) and
 * the runbook's flow (no compile before the op gap and the quantization are
 * settled, no runner before a package, …).  G10 stands on all of them.
 */
static const int needs[GATE_COUNT][5] = {
	[0] = { -1 }, [1] = { 0, -1 }, [2] = { 1, -1 }, [3] = { 2, -1 },
	[4] = { 0, 1, 2, -1 }, [5] = { 2, 3, 4, -1 }, [6] = { 0, 5, -1 },
	[7] = { 0, 6, -1 }, [8] = { 0, 6, 7, -1 }, [9] = { 0, 8, -1 },
	[10] = { -1 },
};

struct gate_detail {
	int		 gate;
	bool		 placed;	/* the cursor on the first finding */
	/* Each line's tag: its index into the board's findings, or -1. */
	struct textpane	 pane;
};

/* The input an artifact path was read as: its hash, for the evidence. */
static const char *
input_hash(const struct board_gate *g, const char *path)
{
	json_t *in;
	size_t i;

	json_array_foreach(g->inputs, i, in)
		if (json_is_string(json_object_get(in, "path")) &&
		    strcmp(json_string_value(json_object_get(in, "path")),
		    path) == 0)
			return json_string_value(json_object_get(in, "sha256"));
	return NULL;
}

/* The checks not judged, counted and listed into buf ("G9.soak G9.leak"). */
static size_t
unjudged(const struct board_gate *g, char *buf, size_t len)
{
	const char *id;
	size_t n = 0, off = 0;
	json_t *v;

	json_object_foreach(g->checks, id, v) {
		if (json_is_string(v) &&
		    strcmp(json_string_value(v), "not_judged") != 0)
			continue;
		if (buf != NULL && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s",
			    n > 0 ? " " : "", id);
		n++;
	}
	return n;
}

/* Every check of the gate with its verdict, as many to a line as fit with
 * room to spare: each takes 23 columns ("  ✔ " and the id in 19), counted
 * as 25. */
static void
verdicts(struct gate_detail *d, const struct board_gate *g)
{
	char line[512];
	const char *id, *glyph;
	size_t off = 0, k = 0, per;
	enum role r;
	json_t *v;

	if (json_object_size(g->checks) == 0)
		return;
	per = d->pane.cols > 29 ? (size_t)(d->pane.cols - 4) / 25 : 1;
	per = per < 8 ? per : 8;	/* a line holds 8 */
	textpane_add(&d->pane, ROLE_NORMAL, -1, "%s", "");
	textpane_add(&d->pane, ROLE_HEADER, -1,
	    "Checks (%s held, %s failed, %s nothing to "
	    "judge yet):", ui_glyph("✔", "+"), ui_glyph("✘", "x"),
	    ui_glyph("○", "?"));
	json_object_foreach(g->checks, id, v) {
		glyph = glyph_verdict(json_string_value(v), &r);
		off += (size_t)snprintf(line + off, sizeof line - off,
		    "  %s %-19.40s", glyph, id);
		if (++k % per == 0) {
			textpane_add(&d->pane, ROLE_NORMAL, -1, "%s", line);
			off = 0;
		}
	}
	if (off > 0)
		textpane_add(&d->pane, ROLE_NORMAL, -1, "%s", line);
}

static void
why(struct app *a, struct gate_detail *d, const struct board_gate *g)
{
	const struct board_eval *e = &app_board(a)->now;
	const struct board_finding *f;
	char where[512];
	const char *h;
	size_t i;

	for (i = 0; i < e->nfindings; i++) {
		f = &e->findings[i];
		if (f->gate != d->gate || f->severity > SEV_STALE)
			continue;
		textpane_add(&d->pane, ROLE_HEADER, -1,
		    "First failing check: %s (%s)", f->check,
		    finding_severity_name(f->severity));
		textpane_add_wrapped(&d->pane, glyph_severity_role(f->severity),
		    (int)i, 2, f->message);
		if (f->path[0] != '\0')
			textpane_add(&d->pane, ROLE_NORMAL, (int)i,
			    "  evidence: %s",
			    boardmodel_finding_where(f, where, sizeof where));
		if ((h = input_hash(g, f->path)) != NULL)
			textpane_add(&d->pane, ROLE_DIM, (int)i,
			    "  sha256 %s", h);
		return;
	}
	if (g->status == GS_PENDING)
		textpane_add(&d->pane, ROLE_HEADER, -1,
		    "Pending: its primary artifact %s is not "
		    "there yet", gate_table[d->gate].primary);
	else if (unjudged(g, NULL, 0) == 0)
		textpane_add(&d->pane, ROLE_PASS, -1, "Every check holds.");
	else {
		unjudged(g, where, sizeof where);
		textpane_add(&d->pane, ROLE_HEADER, -1,
		    "No check fails, but nothing was there "
		    "to judge for %s: not evidence yet", where);
	}
}


/* The later gates that cannot pass while this one does not: everything
 * that stands on it, directly or through another gate.  A green gate holds
 * nothing back: they are only downstream of it. */
static void
held_back(struct app *a, struct gate_detail *d, const struct board_gate *g)
{
	bool held[GATE_COUNT] = { false };
	char list[128] = "";
	size_t off = 0;
	int j, k;

	(void)a;
	held[d->gate] = true;
	for (j = d->gate + 1; j < GATE_COUNT; j++) {
		held[j] = j == GATE_COUNT - 1;
		for (k = 0; needs[j][k] >= 0 && !held[j]; k++)
			held[j] = held[needs[j][k]];
		if (held[j])
			off += (size_t)snprintf(list + off, sizeof list - off,
			    "%s%s", off ? " " : "", gate_table[j].id);
		if (off >= sizeof list)
			break;
	}
	textpane_add(&d->pane, ROLE_NORMAL, -1,
	    "%s: %s", g->status == GS_PASS ? "Downstream" :
	    "Holds back", off > 0 ? list : "nothing");
}

static void
changes(struct app *a, struct gate_detail *d, const struct board_gate *g)
{
	char err[256], when[32];
	json_t *then, *diff, *c;
	int64_t ts = 0;
	char *path;
	time_t t;
	size_t i;

	if (g->status == GS_PASS)
		return;
	if ((path = history_path(app_workspace(a),
	    app_workspace_host(a), err, sizeof err)) == NULL) {
		textpane_add(&d->pane, ROLE_DIM, -1,
		    "Since it was last green: %s", err);
		return;
	}
	then = history_last_pass(path, g->id, &ts);
	free(path);
	if (then == NULL) {
		textpane_add(&d->pane, ROLE_DIM, -1,
		    "Since it was last green: it has not passed "
		    "in the evaluations this console remembers");
		return;
	}
	t = (time_t)ts;
	strftime(when, sizeof when, "%Y-%m-%d %H:%M", localtime(&t));
	diff = history_diff(json_object_get(then, "inputs"), g->inputs);
	textpane_add(&d->pane, ROLE_HEADER, -1,
	    "Since it was last green (%s): %zu change%s",
	    when, json_array_size(diff), json_array_size(diff) == 1 ? "" : "s");
	json_array_foreach(diff, i, c) {
		const char *from = json_string_value(
		    json_object_get(c, "from"));
		const char *to = json_string_value(json_object_get(c, "to"));

		textpane_add(&d->pane, ROLE_NORMAL, -1,
		    "  %-7s %s  %.16s%s %s %.16s%s",
		    json_string_value(json_object_get(c, "change")),
		    json_string_value(json_object_get(c, "path")),
		    from != NULL ? from : "-", from != NULL &&
		    strlen(from) > 16 ? ui_glyph("…", "...") : "",
		    ui_glyph("→", "->"), to != NULL ? to : "-", to != NULL &&
		    strlen(to) > 16 ? ui_glyph("…", "...") : "");
	}
	json_decref(diff);
	json_decref(then);
}

static void
gate_refresh(struct app *a, void *data)
{
	struct gate_detail *d = data;
	const struct board_gate *g = &app_board(a)->now.gates[d->gate];
	const struct board_finding *f;
	char where[512];
	size_t i;

	textpane_clear(&d->pane);
	if (!app_board(a)->now.valid) {
		textpane_done(&d->pane, &d->placed);
		return;
	}
	textpane_add(&d->pane, glyph_status_role(g->status), -1,
	    "%s %s  %s %s", g->id, g->name,
	    glyph_status(g->status), gate_status_name(g->status));
	textpane_add(&d->pane, ROLE_NORMAL, -1,
	    "Owner: %s   role: %s   due %s   failback: %s",
	    g->owner != NULL ? g->owner : "(none)", g->role != NULL ? g->role :
	    "?", g->due != NULL ? g->due : "-", g->failback);
	if (gateid_runner(d->gate))
		textpane_add(&d->pane, ROLE_DIM, -1,
		    "Lab job: r runs %s on a lab host",
		    gateid_job(d->gate) == GATEJOB_SOAK ? "the 24 h soak" : "golden and the eight "
		    "fault scenarios");
	else if (labmodel_gate_has_job(app_labmodel(a), d->gate))
		textpane_add(&d->pane, ROLE_DIM, -1, "Lab job: r runs %s in "
		    "the workspace on a lab host (the lab file's gates:)",
		    labmodel_lab(app_labmodel(a))->gates[d->gate].text);
	textpane_add(&d->pane, ROLE_NORMAL, -1, "%s", "");
	why(a, d, g);
	verdicts(d, g);
	held_back(a, d, g);
	changes(a, d, g);
	textpane_add(&d->pane, ROLE_NORMAL, -1, "%s", "");
	textpane_add(&d->pane, ROLE_HEADER, -1,
	    "All findings (Enter or o opens the artifact):");
	for (i = 0; i < app_board(a)->now.nfindings; i++) {
		f = &app_board(a)->now.findings[i];
		if (f->gate == d->gate)
			textpane_add(&d->pane,
			    glyph_severity_role(f->severity), (int)i,
			    "  %-7s %-22s %s  %s",
			    finding_severity_name(f->severity), f->check,
			    boardmodel_finding_where(f, where, sizeof where),
			    f->message);
	}
	/* Opened, the cursor is on the first finding, which Enter and o
	 * open; later evaluations leave it where the operator put it. */
	textpane_done(&d->pane, &d->placed);
}

static void *
gate_open(struct app *a, const void *arg)
{
	struct gate_detail *d = xcalloc(1, sizeof *d);

	d->gate = (int)*(const size_t *)arg;
	gate_refresh(a, d);
	return d;
}

static void
gate_close(void *data)
{
	struct gate_detail *d = data;

	textpane_release(&d->pane);
	free(d);
}

static void
gate_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct gate_detail *d = data;

	/* Long messages wrap at the width drawn. */
	if (textpane_draw(&d->pane, top, rows, cols)) {
		gate_refresh(a, d);
		textpane_draw(&d->pane, top, rows, cols);
	}
}

/* y, Y: why the gate is where it is, as the screen says it. */
static int
gate_copy(struct app *a, const struct gate_detail *d, bool md)
{
	char name[32], what[48], *text = textpane_copy(&d->pane, md);

	snprintf(name, sizeof name, "why-%s.%s", gate_table[d->gate].id,
	    md ? "md" : "txt");
	snprintf(what, sizeof what, "why %s", gate_table[d->gate].id);
	app_copy(a, what, name, text);
	free(text);
	return R_REDRAW;
}

static int
gate_action(struct app *a, void *data, enum action act)
{
	struct gate_detail *d = data;
	const struct board_finding *f;
	int i;

	if (act == ACT_ENTER || act == ACT_OPEN) {
		if ((i = textpane_selected_tag(&d->pane)) < 0)
			return R_NONE;
		f = &app_board(a)->now.findings[i];
		app_open_file(a, f->path, f->where);
		return R_REDRAW;
	}
	if (act == ACT_LEFT)
		return R_POP;
	if (act == ACT_RUN) {
		labrun_gate(a, d->gate);
		return R_REDRAW;
	}
	if (act == ACT_RUN_AGAIN) {
		labrun_gate_again(a, d->gate);
		return R_REDRAW;
	}
	if (act == ACT_COPY || act == ACT_COPY_MD)
		return gate_copy(a, d, act == ACT_COPY_MD);
	return list_action(&d->pane.list, act) ? R_REDRAW : R_NONE;
}

/* A click selects a line; a double click opens its finding. */
static int
gate_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct gate_detail *d = data;

	if (!list_click(&d->pane.list, y, x))
		return R_NONE;
	return twice ? gate_action(a, data, ACT_OPEN) : R_REDRAW;
}

static const struct keybinding gate_keys[] = {
	{ 'o', ACT_OPEN, "o" },
	{ 'r', ACT_RUN, "r" },
	{ 'a', ACT_RUN_AGAIN, "a" },
	{ 'y', ACT_COPY, "y" },
	{ 'Y', ACT_COPY_MD, "Y" },
	{ 0, ACT_NONE, NULL },
};

const struct view_ops gate_view = {
	.title = "Gate",
	.keys = gate_keys,
	.open = gate_open,
	.close = gate_close,
	.draw = gate_draw,
	.action = gate_action,
	.update = gate_refresh,
	.click = gate_click,
};
