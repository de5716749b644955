/*
 * ticket.c: one ticket up close: each check of its definition of done with
 * its verdict and the evidence behind it (the finding that fails it, or why
 * there was nothing to judge), each one a way into its gate's "why" screen.
 * The progress is derived from these verdicts (workspace.md §6), never from
 * the state typed in tickets.yaml.
 */
#include "calops.h"

#include "views/app/app.h"
#include "views/core/glyph.h"
#include "views/core/list.h"
#include "views/core/textpane.h"
#include "views/core/ui.h"

struct ticket_detail {
	size_t		 ticket;	/* index into the board's tickets */
	bool		 placed;	/* the cursor on the first check */
	/* Each line's tag: the gate Enter opens, or -1. */
	struct textpane	 pane;
};

/* The first finding of gate g that fails check, as the engine judged. */
static const struct board_finding *
failing(const struct board_eval *e, int g, const char *check)
{
	const struct board_finding *f;
	size_t i;

	for (i = 0; i < e->nfindings; i++) {
		f = &e->findings[i];
		if (f->gate == g && gate_finding_fails(gate_table[g].id, check,
		    f->check, f->severity, false))
			return f;
	}
	return NULL;
}

/* Why a check had nothing to judge: the gate is pending, or a check was
 * skipped (a warning names the missing input), or its input is absent. */
static void
why_not_judged(struct ticket_detail *d, const struct board_eval *e, int g,
    const char *check)
{
	const struct board_finding *f;
	size_t i;

	if (e->gates[g].status == GS_PENDING) {
		textpane_add(&d->pane, ROLE_DIM, g,
		    "      %s is pending: %s is not there yet", e->gates[g].id,
		    gate_table[g].primary);
		return;
	}
	for (i = 0; i < e->nfindings; i++) {
		f = &e->findings[i];
		if (f->gate == g && f->severity == SEV_WARN &&
		    (finding_check_covers(check, f->check) ||
			strcmp(check + strcspn(check, "."), ".*") == 0)) {
			textpane_add_wrapped(&d->pane, ROLE_DIM, g, 6,
			    f->message);
			return;
		}
	}
	textpane_add(&d->pane, ROLE_DIM, g, "      what it looks at is not "
	    "there yet: no finding is no evidence");
}

static void
ticket_refresh(struct app *a, void *data)
{
	struct ticket_detail *d = data;
	const struct board_eval *e = &app_board(a)->now;
	const struct board_ticket *t;
	const struct board_finding *f;
	const char *check, *verdict, *glyph;
	char where[512], est[32] = "-";
	enum role r;
	json_t *v;
	int g;

	textpane_clear(&d->pane);
	if (!e->valid || d->ticket >= e->ntickets) {
		textpane_done(&d->pane, &d->placed);
		return;
	}
	t = &e->tickets[d->ticket];
	/* The lines are drawn through the sanitiser (ui_put). */
	textpane_add(&d->pane, t->progress >= 1 ? ROLE_PASS : ROLE_HEADER, -1,
	    "%s %s  %.0f%%", t->id, t->title != NULL ? t->title : "",
	    t->progress * 100);
	if (t->estimate_days >= 0)
		snprintf(est, sizeof est, "%.1f days", t->estimate_days);
	textpane_add(&d->pane, ROLE_NORMAL, -1,
	    "Owner: %s   state: %s   estimate: %s", t->owner != NULL ?
	    t->owner : "(none)", t->state != NULL ? t->state : "-", est);
	if (t->claimed_done_without_evidence)
		textpane_add(&d->pane, ROLE_FAIL, -1,
		    "%s claimed done, evidence missing: tickets.yaml says "
		    "done, the checks below do not all hold",
		    ui_glyph("⚠", "!"));
	textpane_add(&d->pane, ROLE_NORMAL, -1, "%s", "");
	textpane_add(&d->pane, ROLE_HEADER, -1,
	    "Definition of done (%s held, %s failed, %s nothing to judge "
	    "yet; Enter opens the gate):", ui_glyph("✔", "+"),
	    ui_glyph("✘", "x"), ui_glyph("○", "?"));
	json_object_foreach(t->checks, check, v) {
		verdict = json_string_value(v);
		glyph = glyph_verdict(verdict, &r);
		if ((g = gate_index_of_check(check)) < 0) {
			textpane_add(&d->pane, r, -1, "  %s %s", glyph, check);
			continue;
		}
		textpane_add(&d->pane, r, g, "  %s %-16s %-10s %s %s  %s %s",
		    glyph, check, verdict != NULL ? verdict : "?",
		    e->gates[g].id,
		    e->gates[g].name != NULL ? e->gates[g].name : "",
		    glyph_status(e->gates[g].status),
		    gate_status_name(e->gates[g].status));
		if (r == ROLE_FAIL && (f = failing(e, g, check)) != NULL) {
			textpane_add(&d->pane, glyph_severity_role(f->severity),
			    g, "      %s %s:",
			    finding_severity_name(f->severity), f->check);
			textpane_add_wrapped(&d->pane,
			    glyph_severity_role(f->severity), g, 6, f->message);
			if (f->path[0] != '\0')
				textpane_add(&d->pane, ROLE_NORMAL, g,
				    "      evidence: %s", boardmodel_finding_where(f,
				    where, sizeof where));
		} else if (r == ROLE_DIM)
			why_not_judged(d, e, g, check);
	}
	/* Opened, the cursor is on the first check; later evaluations leave
	 * it where the operator put it. */
	textpane_done(&d->pane, &d->placed);
}

static void *
ticket_open(struct app *a, const void *arg)
{
	struct ticket_detail *d = xcalloc(1, sizeof *d);

	d->ticket = *(const size_t *)arg;
	ticket_refresh(a, d);
	return d;
}

static void
ticket_close(void *data)
{
	struct ticket_detail *d = data;

	textpane_release(&d->pane);
	free(d);
}

static void
ticket_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct ticket_detail *d = data;

	/* Messages wrap at the width drawn. */
	if (textpane_draw(&d->pane, top, rows, cols)) {
		ticket_refresh(a, d);
		textpane_draw(&d->pane, top, rows, cols);
	}
}

static int
ticket_action(struct app *a, void *data, enum action act)
{
	struct ticket_detail *d = data;
	size_t g;
	int tag;

	if (act == ACT_ENTER || act == ACT_RIGHT || act == ACT_WHY) {
		if ((tag = textpane_selected_tag(&d->pane)) < 0)
			return R_NONE;
		g = (size_t)tag;
		app_push(a, &gate_view, &g);
		return R_REDRAW;
	}
	if (act == ACT_LEFT)
		return R_POP;
	return list_action(&d->pane.list, act) ? R_REDRAW : R_NONE;
}

static int
ticket_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct ticket_detail *d = data;

	if (!list_click(&d->pane.list, y, x))
		return R_NONE;
	return twice ? ticket_action(a, data, ACT_ENTER) : R_REDRAW;
}

const struct view_ops ticket_view = {
	.title = "Ticket",
	.open = ticket_open,
	.close = ticket_close,
	.draw = ticket_draw,
	.action = ticket_action,
	.update = ticket_refresh,
	.click = ticket_click,
};
