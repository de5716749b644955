/*
 * release.c: the Release screen (share/doc/release.md): the workspace's
 * generations, newest first, with `current`, the candidate and current's
 * previous_generation marked, each one's signer, observation window and
 * verdict (relverdict.h: the host's words, as `calops release status` and
 * `verify` say them, the candidate's bindings included); under them what
 * differs between the selected
 * generation and current (or the one `m` chose), field by field; and the
 * audit log, newest first, with the state of its chain.
 *
 * p promotes the candidate and b rolls back (to the selected earlier
 * generation, or current's previous_generation): the approval takes the
 * rest of the screen (relapprove.h).  The state comes from the headless
 * `calops release status|audit --json` run through the workspace's host's
 * transport, this machine's too (relclient.h), so a workspace on an SSH
 * host works the same; it is fetched when the screen opens, with R, and
 * when the workspace is evaluated again (its files changed).
 */
#include "calops.h"

#include <time.h>

#include "base/text.h"
#include "lab/labmodel.h"
#include "lab/relclient.h"
#include "remote/local.h"
#include "remote/transport.h"
#include "views/actionpane.h"
#include "views/app/app.h"
#include "views/core/graph.h"
#include "views/core/list.h"
#include "views/core/ui.h"
#include "views/relapprove.h"

struct release_view {
	struct app		*app;
	struct relclient	*rc;
	struct transport	*own;	/* this machine's, made here, or NULL */
	char			*ws, *host;	/* what rc is for */
	char			 err[256];	/* no transport to the host */
	struct list		 list;
	long			 base;	/* diff against it; -1: current */
	struct relapprove	 ap;
};

static long
num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (long)json_integer_value(v) : -1;
}

/* A member the host says is text: "?" when it is not (a host may lie). */
static const char *
str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "?";
}

static const json_t *
gens(const struct release_view *v)
{
	return json_object_get(relclient_status(v->rc), "generations");
}

/* Record rec of the list: the newest generation first. */
static const json_t *
gen_at(const struct release_view *v, size_t rec)
{
	size_t n = json_array_size(gens(v));

	return rec < n ? json_array_get(gens(v), n - 1 - rec) : NULL;
}

static long
selected(const struct release_view *v)
{
	size_t i = list_selected(&v->list);

	return i == SIZE_MAX ? -1 : num(gen_at(v, i), "generation");
}

static void
rebuild(struct release_view *v)
{
	list_rebuild(&v->list, json_array_size(gens(v)), NULL, NULL);
}

static void
client_changed(void *arg)
{
	struct release_view *v = arg;

	rebuild(v);
	relapprove_changed(&v->ap);
	app_redraw(v->app);
}

static const struct relclient_cb client_cb = {
	.changed = client_changed,
};

static void
drop_client(struct release_view *v)
{
	relapprove_cancel(&v->ap, NULL);
	relclient_free(v->rc);
	v->rc = NULL;
	if (v->own != NULL)
		transport_close(v->own);
	v->own = NULL;
	free(v->ws);
	free(v->host);
	v->ws = v->host = NULL;
}

/* A client for the workspace the console shows now, and its state asked
 * for; the one before goes (its approval cancelled). */
static void
make_client(struct release_view *v)
{
	const char *host = app_workspace_host(v->app);
	struct transport *t;

	drop_client(v);
	v->err[0] = '\0';
	v->ws = xstrdup(app_workspace(v->app));
	v->host = host != NULL ? xstrdup(host) : NULL;
	if (host == NULL)
		t = v->own = local_transport_new(app_loop(v->app), "this "
		    "machine", NULL);
	else if ((t = labmodel_transport(app_labmodel(v->app), host, v->err,
	    sizeof v->err)) == NULL)
		return;
	v->rc = relclient_new(t, v->ws, &client_cb, v);
	relclient_refresh(v->rc);
}

static bool
same(const char *a, const char *b)
{
	return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static void
release_update(struct app *a, void *data)
{
	struct release_view *v = data;

	v->app = a;
	/* A job ended (the board is evaluated then): a chip step's end signs
	 * its promote. */
	relapprove_tick(&v->ap);
	if (v->rc == NULL || !same(v->ws, app_workspace(a)) ||
	    !same(v->host, app_workspace_host(a)))
		make_client(v);
	else
		relclient_refresh(v->rc);
}

static void *
release_open(struct app *a, const void *arg)
{
	struct release_view *v = xcalloc(1, sizeof *v);

	(void)arg;
	v->app = a;
	v->base = -1;
	make_client(v);
	return v;
}

static void
release_close(void *data)
{
	struct release_view *v = data;

	drop_client(v);
	list_release(&v->list);
	free(v);
}

/* "kept until 12-09 10:43" when generation n is what current's
 * observation window keeps (release.md §6), into buf; else "". */
static void
kept_text(const json_t *st, long n, char *buf, size_t len)
{
	const json_t *kept = json_object_get(json_object_get(st,
	    "observation"), "kept");
	time_t until = (time_t)json_number_value(json_object_get(kept,
	    "until"));
	struct tm tm;

	buf[0] = '\0';
	if (!json_is_object(kept) || num(kept, "generation") != n)
		return;
	gmtime_r(&until, &tm);
	strftime(buf, len, "kept until %m-%d %H:%M ", &tm);
}

/* What a generation is to the release: current, candidate, previous (or
 * kept, through current's observation window). */
static void
marks(const struct release_view *v, const json_t *g, char *buf, size_t len)
{
	const json_t *st = relclient_status(v->rc);
	long n = num(g, "generation"), cur = num(st, "current");
	char kept[40];

	kept_text(st, n, kept, sizeof kept);
	snprintf(buf, len, "%s%s%s%s%s", n == cur ? "current " : "",
	    n == num(st, "candidate") ? "candidate " : "", kept,
	    kept[0] == '\0' && n == num(relapprove_gen(st, cur),
	    "previous_generation") ? "previous " : "",
	    json_is_true(json_object_get(g, "revoked")) ? "revoked" : "");
}

/*
 * The generation's verdict in the host's words, whole where they fit in
 * width columns, else from their start: "verifies", or what fails (the ✘
 * says "does not verify"), which the words put first.  A host whose calops
 * says no verdict gives "verifies" or its problem.
 */
static void
verdict_cell(const json_t *g, bool ok, int width, char *buf, size_t len)
{
	const char *words = json_string_value(json_object_get(json_object_get(
	    g, "verdict"), "words")), *colon;
	char *safe;

	if (words == NULL) {
		snprintf(buf, len, "%s", ok ? "verifies" : str(g, "problem"));
		return;
	}
	safe = text_sanitize_str(words);
	colon = strchr(words, ':');
	if (ui_width(safe) <= width || colon == NULL)
		snprintf(buf, len, "%s", words);
	else if (ok)
		snprintf(buf, len, "%.*s", (int)(colon - words), words);
	else
		snprintf(buf, len, "%s", colon[1] == ' ' ? colon + 2 :
		    colon + 1);
	free(safe);
}

static void
draw_gen(const void *arg, size_t rec, int y, int x, int cols, bool sel)
{
	const struct release_view *v = arg;
	const json_t *g = gen_at(v, rec), *w;
	enum role base = sel ? ROLE_SELECTION : ROLE_NORMAL;
	const char *signer = json_string_value(json_object_get(g, "signer"));
	const json_t *verdict = json_object_get(g, "verdict");
	char buf[64], win[16], cell[1024];
	long prev = num(g, "previous_generation");
	/* Never a ✔ the verdict does not give. */
	bool ok = json_is_true(json_object_get(g, "verifies")) &&
	    (verdict == NULL || json_is_true(json_object_get(verdict,
	    "verifies")));

	marks(v, g, buf, sizeof buf);
	ui_putf(stdscr, y, x + 1, 5, base, "%5ld", num(g, "generation"));
	ui_putf(stdscr, y, x + 7, 24, sel ? base : num(g, "generation") ==
	    num(relclient_status(v->rc), "current") ? ROLE_PASS : ROLE_NORMAL,
	    "%s", buf);
	ui_put(stdscr, y, x + 32, 16, base, signer != NULL ? signer : "-",
	    true);
	w = json_object_get(g, "observation_window_h");
	if (json_is_number(w))
		graph_fmt_dur(json_number_value(w) * 3600, win, sizeof win);
	else
		snprintf(win, sizeof win, "-");
	ui_putf(stdscr, y, x + 49, 6, base, "%6s", win);
	if (prev >= 1)
		ui_putf(stdscr, y, x + 56, 5, base, "%5ld", prev);
	else
		ui_putf(stdscr, y, x + 56, 5, base, "%5s", "-");
	ui_putf(stdscr, y, x + 63, 2, sel ? base : ok ? ROLE_PASS : ROLE_FAIL,
	    "%s", ok ? ui_glyph("✔", "v") : ui_glyph("✘", "x"));
	if (cols > 68) {
		verdict_cell(g, ok, cols - 67, cell, sizeof cell);
		ui_put(stdscr, y, x + 66, cols - 67, sel ? base : ok ?
		    ROLE_DIM : ROLE_FAIL, cell, false);
	}
}

/* A generation's number, or NONE when there is none (a missing member
 * reads -1, never shown). */
static void
gen_text(long n, const char *none, char *buf, size_t len)
{
	if (n >= 1)
		snprintf(buf, len, "%ld", n);
	else
		snprintf(buf, len, "%s", none);
}

/* The audit log's records, newest first, under its chain's state. */
static void
draw_audit(struct release_view *v, int top, int rows, int cols)
{
	const json_t *au = relclient_audit(v->rc);
	const json_t *st = json_object_get(au, "audit");
	const json_t *recs = json_object_get(au, "records"), *r;
	char when[32], line[1200], from[24], to[24];
	size_t i, n = json_array_size(recs);
	const char *head = json_string_value(json_object_get(st,
	    "head_sha256"));
	int y = top;

	if (rows < 2)
		return;
	ui_fill(stdscr, y, 0, ROLE_HEADER);
	if (!json_is_object(st))
		snprintf(line, sizeof line, "AUDIT LOG  %s",
		    relclient_loading(v->rc) ? "reading…" : "not read");
	else if (json_is_true(json_object_get(st, "intact")))
		snprintf(line, sizeof line, "AUDIT LOG  %ld records %s chain "
		    "intact %s head %.12s…", num(st, "records"),
		    ui_glyph("·", "-"), ui_glyph("·", "-"), head != NULL ?
		    head : "?");
	else
		snprintf(line, sizeof line, "AUDIT LOG  %s chain BROKEN at "
		    "line %ld: %s", ui_glyph("✘", "x"), num(st, "bad_line"),
		    str(st, "problem"));
	ui_put(stdscr, y++, 1, cols - 2, json_is_true(json_object_get(st,
	    "intact")) || !json_is_object(st) ? ROLE_HEADER : ROLE_FAIL,
	    line, false);
	for (i = n; i-- > 0 && y < top + rows; y++) {
		r = json_array_get(recs, i);
		if (json_object_get(r, "problem") != NULL) {
			snprintf(line, sizeof line, "line %ld: %s", num(r,
			    "line"), str(r, "problem"));
			ui_put(stdscr, y, 1, cols - 2, ROLE_FAIL, line, false);
			continue;
		}
		actionpane_when(json_number_value(json_object_get(r, "ts")),
		    when, sizeof when);
		gen_text(num(r, "from"), "-", from, sizeof from);
		gen_text(num(r, "to"), "-", to, sizeof to);
		snprintf(line, sizeof line, "#%-4ld %s  %-8s %3s %s %-3s  %s "
		    "[%s]: %s", num(r, "seq"), when, str(r, "action"), from,
		    ui_glyph("→", ">"), to, str(r, "actor"), str(r, "key_id"),
		    str(r, "reason"));
		ui_put(stdscr, y, 1, cols - 2, strcmp(str(r, "action"),
		    "refused") == 0 ? ROLE_WARN : ROLE_NORMAL, line, false);
	}
}

/* What is wrong with the release as a whole, one line, or nothing. */
static bool
problem_line(struct release_view *v, char *buf, size_t len)
{
	const json_t *st = relclient_status(v->rc), *cut;
	const char *s;

	buf[0] = '\0';
	if (v->rc == NULL)
		snprintf(buf, len, "cannot reach the workspace's host: %s",
		    v->err);
	else if (relclient_error(v->rc)[0] != '\0')
		snprintf(buf, len, "%s", relclient_error(v->rc));
	else if (json_is_object(cut = json_object_get(st, "interrupted")) &&
	    num(cut, "generation") < 1)
		snprintf(buf, len, "%s", str(cut, "words"));
	else if (json_is_object(cut))
		/* The job first: a narrow screen keeps what to look for. */
		snprintf(buf, len, "cut short: the chip step of the %s to %ld "
		    "(job %s on %s): `calops release recover` signs its refusal; "
		    "until then no promote", str(cut, "action"),
		    num(cut, "generation"), str(cut, "job"), str(cut, "host"));
	else if ((s = json_string_value(json_object_get(st,
	    "rolled_forward"))) != NULL)
		snprintf(buf, len, "%s", s);
	else if ((s = json_string_value(json_object_get(st,
	    "current_problem"))) != NULL)
		snprintf(buf, len, "current: %s", s);
	else if (json_is_true(json_object_get(st, "roll_forward_due")))
		snprintf(buf, len, "the log is ahead of current (a switch cut "
		    "short): the next approval completes it");
	else if (json_is_true(json_object_get(st, "log_disagrees")))
		snprintf(buf, len, "the audit log's last switch and current "
		    "disagree: current was moved by hand, or the log cut");
	else if ((s = json_string_value(json_object_get(st,
	    "keys_problem"))) != NULL)
		snprintf(buf, len, "trusted-keys/: %s", s);
	return buf[0] != '\0';
}

/* The last switch went live without a chip step, in the approver's
 * words (release.md §6): one line, or nothing. */
static bool
skipped_line(struct release_view *v, char *buf, size_t len)
{
	const json_t *chip = json_object_get(json_object_get(
	    relclient_status(v->rc), "audit"), "last_switch_chip_step");
	const char *why = json_string_value(json_object_get(chip, "skipped"));

	if (why == NULL)
		return false;
	snprintf(buf, len, "generation %ld: promoted without a chip step: "
	    "\"%s\"", num(relclient_status(v->rc), "current"), why);
	return true;
}

static void
release_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct release_view *v = data;
	const json_t *st = v->rc != NULL ? relclient_status(v->rc) : NULL;
	const json_t *obs = json_object_get(st, "observation");
	char line[1200], left[16], header[160], cur[24], cand[24];
	int y = top, end = top + rows, h;
	long sel, base;

	(void)a;
	snprintf(line, sizeof line, "%s%s%s", v->ws != NULL ? v->ws : "",
	    v->host != NULL ? " on " : "", v->host != NULL ? v->host : "");
	ui_fill(stdscr, y, 0, ROLE_TITLE);
	ui_put(stdscr, y, 1, cols / 2, ROLE_TITLE, line, false);
	gen_text(num(st, "current"), "none", cur, sizeof cur);
	gen_text(num(st, "candidate"), "none", cand, sizeof cand);
	if (json_is_object(obs) && json_number_value(json_object_get(obs,
	    "left_h")) > 0) {
		graph_fmt_dur(json_number_value(json_object_get(obs,
		    "left_h")) * 3600, left, sizeof left);
		ui_putf(stdscr, y, cols / 2 + 1, cols - cols / 2 - 2,
		    ROLE_TITLE, "current %s · candidate %s · observing, "
		    "%s left", cur, cand, left);
	} else if (st != NULL)
		ui_putf(stdscr, y, cols / 2 + 1, cols - cols / 2 - 2,
		    ROLE_TITLE, "current %s · candidate %s%s", cur, cand,
		    json_is_object(obs) ? " · observation window over" : "");
	y++;
	if (problem_line(v, line, sizeof line))
		ui_put(stdscr, y++, 1, cols - 2, ROLE_FAIL, line, false);
	if (skipped_line(v, line, sizeof line))
		ui_put(stdscr, y++, 1, cols - 2, ROLE_WARN, line, false);
	if (st == NULL) {
		ui_putf(stdscr, y, 1, cols - 2, ROLE_DIM, "%s",
		    v->rc != NULL && relclient_loading(v->rc) ? "reading the "
		    "release state…" : "no release state");
		return;
	}
	snprintf(header, sizeof header, "%5s %-24s %-16s %6s %5s  %s",
	    "GEN", "IS", "SIGNED BY", "WINDOW", "PREV", "VERIFICATION");
	h = (int)json_array_size(gens(v)) + 1;
	if (h > (end - y) / 3)
		h = (end - y) / 3 > 3 ? (end - y) / 3 : 3;
	list_draw(&v->list, y, h, 0, cols, header, draw_gen, v,
	    "no generations in 08-release/generations/");
	y += h + 1;
	if (relapprove_open(&v->ap)) {
		/* Its job's events come without an evaluation: its end is
		 * seen here first. */
		relapprove_tick(&v->ap);
		relapprove_draw(&v->ap, y, end - y, cols);
		return;
	}
	sel = selected(v);
	base = v->base >= 1 ? v->base : num(st, "current");
	if (sel == base)
		base = num(gen_at(v, list_selected(&v->list)),
		    "previous_generation");
	/* The audit pane takes what its records need, up to a third. */
	h = (int)json_array_size(json_object_get(relclient_audit(v->rc),
	    "records")) + 1;
	if (h > (end - y) / 3)
		h = (end - y) / 3 > 2 ? (end - y) / 3 : 2;
	if (sel >= 1 && base >= 1)
		y += relapprove_draw_diff(st, base, sel, y, end - y - h - 1,
		    cols) + 1;
	draw_audit(v, y, end - y, cols);
}

/* b: to the selected generation when it is earlier than current, else to
 * current's previous_generation. */
static void
rollback(struct release_view *v)
{
	const json_t *st = relclient_status(v->rc);
	long cur = num(st, "current"), to = selected(v);

	if (to < 1 || to >= cur)
		to = num(relapprove_gen(st, cur), "previous_generation");
	if (cur < 1 || to < 1) {
		app_message(v->app, true, "nothing to roll back to: %s",
		    cur < 1 ? "nothing is current" : "current names no "
		    "previous_generation; select an earlier generation");
		return;
	}
	relapprove_start(&v->ap, v->app, v->rc, false, to);
}

static void
promote(struct release_view *v)
{
	const json_t *st = relclient_status(v->rc);
	long cand = num(st, "candidate");
	const char *cut = json_string_value(json_object_get(json_object_get(
	    st, "interrupted"), "words"));

	/* Refused by the host too (release.md §2): said before anything is
	 * asked. */
	if (cut != NULL) {
		app_message(v->app, true, "%s: `calops release recover WS --key "
		    "FILE` signs its refusal first", cut);
		return;
	}
	if (cand < 1) {
		app_message(v->app, true, "no candidate to promote");
		return;
	}
	if (cand == num(st, "current")) {
		app_message(v->app, false, "the candidate, generation %ld, is "
		    "current already", cand);
		return;
	}
	relapprove_start(&v->ap, v->app, v->rc, true, cand);
}

static int
release_action(struct app *a, void *data, enum action act)
{
	struct release_view *v = data;

	v->app = a;
	switch (act) {
	case ACT_ESCAPE:
	case ACT_BACK:
		if (!relapprove_open(&v->ap))
			return R_NONE;
		if (relapprove_sent(&v->ap)) {
			app_message(a, false, "the signed record went: waiting "
			    "for the host's answer");
			return R_REDRAW;
		}
		relapprove_cancel(&v->ap, "cancelled: nothing signed, nothing "
		    "changed");
		return R_REDRAW;
	case ACT_REFRESH:
		if (v->rc == NULL)
			make_client(v);
		else
			relclient_refresh(v->rc);
		return R_REDRAW;
	case ACT_PROMOTE:
	case ACT_ROLLBACK:
		if (v->rc == NULL || relclient_status(v->rc) == NULL) {
			app_message(a, true, "the release state is not read "
			    "yet");
			return R_REDRAW;
		}
		if (act == ACT_PROMOTE)
			promote(v);
		else
			rollback(v);
		return R_REDRAW;
	case ACT_BASE:
		v->base = v->base == selected(v) ? -1 : selected(v);
		return R_REDRAW;
	default:
		return list_action(&v->list, act) ? R_REDRAW : R_NONE;
	}
}

static int
release_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct release_view *v = data;

	(void)a;
	(void)twice;
	return list_click(&v->list, y, x) ? R_REDRAW : R_NONE;
}

static void
release_status(struct app *a, void *data, char *buf, size_t len)
{
	struct release_view *v = data;
	const json_t *st = v->rc != NULL ? relclient_status(v->rc) : NULL;

	(void)a;
	if (st == NULL)
		snprintf(buf, len, "release: %s", v->rc != NULL &&
		    relclient_loading(v->rc) ? "reading…" : "not read");
	else
		snprintf(buf, len, "%zu generations · diff against %s%s",
		    json_array_size(gens(v)), v->base >= 1 ? "the marked "
		    "one" : "current", relclient_loading(v->rc) ?
		    " · reading…" : "");
}

static const struct keybinding release_keys[] = {
	{ 'p', ACT_PROMOTE, "p" },
	{ 'b', ACT_ROLLBACK, "b" },
	{ 'm', ACT_BASE, "m" },
	{ 0, ACT_NONE, NULL },
};

static const struct view_note release_notes[] = {
	{ "current", "where the 08-release/current link points: what is live" },
	{ "candidate", "the highest generation not revoked: what p promotes" },
	{ "previous", "current's previous_generation: where b goes by "
	    "default" },
	{ "kept until", "the generation current replaced, kept while "
	    "current is inside its observation window (UTC): calops never "
	    "deletes it, nor lets it be revoked" },
	{ "chip step", "p runs inspect and golden with the candidate's "
	    "package on a chip picked from lists: any host of the lab file "
	    "(the workspace's first; another runs its own workspace's "
	    "package), then one of its chips, under the lock, confirmed by "
	    "typing the chip; the record carries the result's hash, and a "
	    "golden that fails is refused on the log; b runs none "
	    "(release.md §7)" },
	{ "no chip step", "\"generation N: promoted without a chip "
	    "step: TEXT\" under the title: the last switch went live with "
	    "none (`calops release promote --no-chip-step --reason TEXT`), "
	    "TEXT its reason; G10 warns while that switch is the last" },
	{ "cut short", "a promote's chip step whose console or command was "
	    "killed: no promote until `calops release recover WS --key FILE` "
	    "stops its job and signs the refusal (release.md §2)" },
	{ "WINDOW", "the generation's observation window (runbook §14)" },
	{ "✔ / ✘", "the verdict: signed by a trusted key, not revoked and, "
	    "for the candidate, bindings that match today's artifacts; or "
	    "what fails first" },
	{ "~ + -", "a field changed, added or removed between two "
	    "manifests" },
	{ "chain", "each audit record signed and linked to the one before" },
	{ ":report", "writes the release decision record, "
	    "08-release/decision.md, from the evidence (asks before writing "
	    "over one; release.md §8)" },
	{ NULL, NULL },
};

/* The screen stays while a chip step runs: closing it would stop the job
 * with no refusal on the audit log (release.md §6: a cut-short chip step
 * is refused, signed). */
static const char *
release_holding(void *data)
{
	struct release_view *v = data;

	return relapprove_chip_running(&v->ap) ? "chip step running: Esc "
	    "stops it and signs its refusal" : NULL;
}

const struct view_ops release_view = {
	.title = "Release",
	.keys = release_keys,
	.notes = release_notes,
	.open = release_open,
	.close = release_close,
	.draw = release_draw,
	.action = release_action,
	.update = release_update,
	.click = release_click,
	.status = release_status,
	.holding = release_holding,
};
