/*
 * confirm.c: what a job that can disturb a chip will do, before it does
 * it: the one rule for every such action (a gate's job from the board or
 * the gate screen, a soak from the soak screen; the Faults screen shows the
 * same in its own detail pane).  The screen names the job in words and its
 * host, shows the exact command whole, the chips it runs on, and every
 * running job on those chips it would disturb; the operator types the
 * chips as shown ("0", "0-3") to start it, and anything else cancels.  A
 * job that would disturb a running one asks for more: that job's id, or
 * the word "disturb" (confirm_disturb_ok), weighed again when answered.
 * Pushed by confirm_ask() with a spec; it starts the job itself, says so
 * in words, and closes.
 */
#include "calops.h"

#include "model/boardmodel.h"
#include "proto/scenario.h"
#include "views/app/app.h"
#include "views/confirm.h"
#include "views/core/cmdline.h"
#include "views/core/ui.h"
#include "vocab/gateid.h"

#define CONFIRM_CHIPS	64
#define DISTURB_MAX	8	/* jobs named, the rest counted */

struct confirm {
	struct app		*app;
	struct ljob_spec	 spec;
	char			 host[128];
	char			 workspace[PATH_MAX];	/* spec's, or "" */
	char			 scenario[64];
	int			 soak_chips[CONFIRM_CHIPS];	/* spec's */
	char			 what[160];	/* the job in words */
	const char		*where;		/* its workspace: the lab's */
	char			 cmd[4096];
	int			 chips[CONFIRM_CHIPS];
	size_t			 nchips;
	char			 chips_text[256];	/* "0-3" */
	/* What to type: the chips; for a job on no chip (a gate's own
	 * tool), the gate's id. */
	char			 answer[256];
	bool			 weighed;	/* the question asked for
						   more: running jobs */
	bool			 raw;		/* the exact command shown
						   (Tab), not the steps */
	confirm_done_fn		 done;		/* or NULL */
	void			*done_arg;
};

/* The running jobs the job would disturb: those on any of its chips, each
 * once, up to max into out; how many in all. */
static size_t
disturbed(const struct confirm *c, const struct ljob **out, size_t max)
{
	const struct ljob *on[DISTURB_MAX];
	size_t i, j, k, m, n = 0, total = 0;
	bool seen;

	for (i = 0; i < c->nchips; i++) {
		m = labmodel_jobs_on_chip(app_labmodel(c->app), c->host,
		    c->chips[i], on, nitems(on));
		for (k = 0; k < m && k < nitems(on); k++) {
			seen = false;
			for (j = 0; j < n && !seen; j++)
				seen = out[j] == on[k];
			if (seen)
				continue;
			if (n < max)
				out[n++] = on[k];
			total++;
		}
		total += m > nitems(on) ? m - nitems(on) : 0;
	}
	return total;
}

bool
confirm_disturb_ok(const struct ljob *const *js, size_t n, const char *answer,
    char *why, size_t len)
{
	if (answer != NULL && n > 0 && (strcmp(answer, "disturb") == 0 ||
	    (n == 1 && js[0]->id != NULL && strcmp(answer, js[0]->id) == 0)))
		return true;
	snprintf(why, len, "it would disturb %s%s (type %s)", n > 0 ?
	    js[0]->label : "a job", n > 1 ? " and more" : "", n == 1 &&
	    js[0]->id != NULL ? "its job id or the word disturb" :
	    "the word disturb");
	return false;
}

void
confirm_disturb_want(const struct ljob *const *js, size_t n, char *buf,
    size_t len)
{
	if (n == 1 && js[0]->id != NULL)
		snprintf(buf, len, "its job id (%s) or the word disturb",
		    js[0]->id);
	else
		snprintf(buf, len, "the word disturb");
}

/* Whether answer starts the job as things stand now: with running jobs on
 * its chips, their id or "disturb" (whatever the question asked when it
 * was put); with none, what the question asked.  Why not into why. */
static bool
answer_ok(const struct confirm *c, const char *answer, char *why,
    size_t len)
{
	const struct ljob *js[DISTURB_MAX];
	size_t n = disturbed(c, js, nitems(js));

	if (n > 0)
		return confirm_disturb_ok(js, n > nitems(js) ? nitems(js) : n,
		    answer, why, len);
	if (answer != NULL && (strcmp(answer, c->answer) == 0 ||
	    (c->weighed && strcmp(answer, "disturb") == 0)))
		return true;
	snprintf(why, len, "'%s' is not %s (%s)", answer != NULL ? answer : "",
	    c->spec.kind == LJOB_GATE && c->nchips == 0 ? "the gate" :
	    "the chips", c->answer);
	return false;
}

static void
confirm_answer(struct app *a, const char *answer, void *arg)
{
	struct confirm *c = arg;
	struct ljob_spec spec = c->spec;
	char what[160], host[128], err[256], ws[PATH_MAX], why[400];
	int chips[CONFIRM_CHIPS];
	confirm_done_fn done = c->done;
	void *done_arg = c->done_arg;
	const struct ljob *j = NULL;
	bool ok = answer_ok(c, answer, why, sizeof why);

	/* Copied: closing the screen frees c. */
	snprintf(what, sizeof what, "%s", c->what);
	snprintf(host, sizeof host, "%s", c->host);
	snprintf(ws, sizeof ws, "%s", c->workspace);
	memcpy(chips, c->soak_chips, sizeof chips);
	spec.host = host;
	spec.workspace = ws[0] != '\0' ? ws : NULL;
	spec.chips = spec.nchips > 0 ? chips : NULL;
	app_close(a, c);
	if (!ok)
		app_message(a, false, "not started: %s", why);
	else if ((j = labmodel_start(app_labmodel(a), &spec, err,
	    sizeof err)) == NULL)
		app_message(a, true, "%s not started: %s", what, err);
	else
		app_message(a, false, "started %s on %s", j->label, j->host);
	if (done != NULL)
		done(a, j, done_arg);
}

static void
confirm_close(void *data)
{
	free(data);
}

/* Fill in what confirm_ask() checked could be built. */
static int
prepare(struct confirm *c, char *err, size_t errlen)
{
	struct labmodel *lm = app_labmodel(c->app);

	if (labmodel_label(lm, &c->spec, c->what, sizeof c->what, err,
	    errlen) != 0 || labmodel_command(lm, &c->spec, c->cmd,
	    sizeof c->cmd, err, errlen) != 0)
		return -1;
	c->where = labmodel_host_workspace(lm, c->spec.host,
	    c->spec.workspace);
	c->nchips = labmodel_spec_chips(lm, &c->spec, c->chips,
	    nitems(c->chips));
	labcmd_chips_text(c->chips, c->nchips, c->chips_text,
	    sizeof c->chips_text);
	if (c->nchips > 0)
		snprintf(c->answer, sizeof c->answer, "%s", c->chips_text);
	else
		snprintf(c->answer, sizeof c->answer, "G%d", c->spec.gate);
	return 0;
}

/* What confirm_ask_then() pushes: the spec, and whom to tell. */
struct confirm_req {
	const struct ljob_spec	*spec;
	confirm_done_fn		 done;
	void			*arg;
};

/* Pushed with the spec (copied): the screen, and its question. */
static void *
confirm_open(struct app *a, const void *arg)
{
	const struct confirm_req *req = arg;
	const struct ljob_spec *spec = req->spec;
	struct confirm *c = xcalloc(1, sizeof *c);
	const struct ljob *js[DISTURB_MAX];
	char err[256], q[512], want[160];
	size_t n;

	c->app = a;
	c->spec = *spec;
	c->done = req->done;
	c->done_arg = req->arg;
	snprintf(c->host, sizeof c->host, "%s", spec->host);
	c->spec.host = c->host;
	if (spec->workspace != NULL) {
		snprintf(c->workspace, sizeof c->workspace, "%s",
		    spec->workspace);
		c->spec.workspace = c->workspace;
	}
	if (spec->scenario != NULL) {
		snprintf(c->scenario, sizeof c->scenario, "%s",
		    spec->scenario);
		c->spec.scenario = c->scenario;
	}
	c->spec.nchips = spec->nchips < nitems(c->soak_chips) ?
	    spec->nchips : nitems(c->soak_chips);
	if (c->spec.nchips > 0) {
		memcpy(c->soak_chips, spec->chips, c->spec.nchips *
		    sizeof *c->soak_chips);
		c->spec.chips = c->soak_chips;
	}
	/* confirm_ask() has checked that it can be built. */
	if (prepare(c, err, sizeof err) != 0)
		snprintf(c->cmd, sizeof c->cmd, "cannot run: %s", err);
	/* A running job it would disturb weighs more than an idle chip. */
	if ((n = disturbed(c, js, nitems(js))) > 0) {
		c->weighed = true;
		confirm_disturb_want(js, n, want, sizeof want);
		snprintf(q, sizeof q, "%s running job%s would be disturbed: "
		    "type %s to start it anyway: ", n == 1 ? "a" : "more than "
		    "one", n == 1 ? "" : "s", want);
	} else
		snprintf(q, sizeof q, "type the %s (%s) to start it: ",
		    c->nchips > 0 ? "chips" : "gate", c->answer);
	prompt_ask(a, q, confirm_answer, c);
	return c;
}

/* The gate a job produces evidence for: a soak G9's, a fault or golden run
 * G7's (as labmodel counts them). */
static int
evidence_gate(const struct ljob_spec *spec)
{
	switch (spec->kind) {
	case LJOB_SOAK:
		return gateid_of(GATEJOB_SOAK);
	case LJOB_FAULT:
	case LJOB_GOLDEN:
		return gateid_of(GATEJOB_SUITE);
	case LJOB_CHIPSTEP:
		return -1;	/* it writes under 08-release/ only */
	case LJOB_GATE:
		break;
	}
	return spec->gate;
}

/* The evidence of the kind this job writes that the workspace already has,
 * when the job runs in the workspace the board shows (from the board's
 * inputs of the gate), and what the run does with it
 * (share/doc/workspace.md, "Runs never overwrite runs"); the next row. */
static int
draw_evidence(struct app *a, const struct confirm *c, int y, int end,
    int cols)
{
	const struct board *b = app_board(a);
	const char *board_host = app_workspace_lab_host(a), *path;
	const char *prefix, *first = NULL, *run = NULL;
	int g = evidence_gate(&c->spec);
	enum gatejob job = gateid_job(g);
	size_t i, n = 0, plen, len, runlen = 0;
	json_t *in;

	if (y >= end || b == NULL || !b->now.valid || g < 0 ||
	    g >= GATE_COUNT || board_host == NULL || c->where == NULL ||
	    strcmp(board_host, c->host) != 0 ||
	    labmodel_host_workspace(app_labmodel(a), c->host,
	    app_workspace(a)) != c->where)
		return y;
	/* A soak's are the soak runs, counted by folder (the gate reads them
	 * in name order); a fault's or the golden run's G7's results; a
	 * gate's own tool's, all its gate's. */
	prefix = job == GATEJOB_SOAK ? "07-serving/soak/" :
	    job == GATEJOB_SUITE ? "06-runtime/" : "";
	plen = strlen(prefix);
	json_array_foreach(b->now.gates[g].inputs, i, in) {
		path = json_string_value(json_object_get(in, "path"));
		if (path == NULL || strncmp(path, prefix, plen) != 0 ||
		    !json_is_true(json_object_get(in, "present")))
			continue;
		if (job == GATEJOB_SOAK) {
			len = strcspn(path + plen, "/");
			if (run != NULL && len == runlen &&
			    strncmp(path + plen, run, len) == 0)
				continue;	/* another file of that run */
			run = path + plen;
			runlen = len;
		} else if (first == NULL)
			first = path;
		n++;
	}
	ui_putf(stdscr, y, 1, 9, ROLE_DIM, "evidence");
	if (n == 0) {
		ui_putf(stdscr, y++, 10, cols - 11, ROLE_NORMAL, "none of G%d's "
		    "yet in this workspace", g);
		return y;
	}
	/* Through the sanitiser: a path is the workspace's. */
	if (job == GATEJOB_SOAK)
		ui_putf(stdscr, y++, 10, cols - 11, ROLE_NORMAL, "%zu soak "
		    "run%s (the last: %.*s)", n, n == 1 ? "" : "s", (int)runlen,
		    run);
	else
		ui_putf(stdscr, y++, 10, cols - 11, ROLE_NORMAL, "%zu file%s "
		    "of G%d (%s%s)", n, n == 1 ? "" : "s", g, first,
		    n > 1 ? ", …" : "");
	if (y < end && gateid_runner(g))
		ui_putf(stdscr, y++, 10, cols - 11, ROLE_PASS, "%s",
		    job == GATEJOB_SOAK ? "they stay untouched: this soak writes a run "
		    "folder of its own" : "they stay untouched: a result "
		    "replaced is kept in history/ beside it");
	return y;
}

/* Text wrapped at blanks over rows [y, end) from column x; the next row. */
static int
draw_wrapped(int y, int end, int x, int width, enum role r, const char *text)
{
	const char *m = text;
	size_t n;

	while (*m != '\0' && y < end) {
		if ((n = ui_fit_words(m, width)) == 0)
			n = strlen(m);
		ui_putf(stdscr, y++, x, width, r, "%.*s", (int)n, m);
		m += n;
		while (*m == ' ')	/* a new row starts with a word */
			m++;
	}
	return y;
}

/* Whether the job is G7's whole suite: a shell script whose steps say
 * more in words than its text does. */
static bool
is_suite(const struct confirm *c)
{
	return c->spec.kind == LJOB_GATE &&
	    gateid_job(c->spec.gate) == GATEJOB_SUITE;
}

/* G7's steps in words (labcmd.c's g7_script): the golden run, then every
 * fault scenario, on the one chip, each run whatever the one before did;
 * the next row. */
static int
draw_steps(const struct confirm *c, int y, int end, int cols)
{
	char *names = scenario_names(), *text;

	ui_putf(stdscr, y, 1, 9, ROLE_DIM, "steps");
	text = xasprintf("1. the runner's golden run of the package "
	    "(05-calbin/package) on chip %s", c->chips_text);
	y = draw_wrapped(y, end, 10, cols - 11, ROLE_NORMAL, text);
	free(text);
	text = xasprintf("2-%d. the %d fault scenarios on chip %s, one after "
	    "another: %s", SCENARIO_COUNT + 1, SCENARIO_COUNT, c->chips_text,
	    names);
	y = draw_wrapped(y, end, 10, cols - 11, ROLE_NORMAL, text);
	free(text);
	free(names);
	y = draw_wrapped(y, end, 10, cols - 11, ROLE_DIM, "every step runs "
	    "even when one before it failed; the job fails when any did");
	return y;
}

static void
confirm_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct confirm *c = data;
	const struct ljob *js[DISTURB_MAX];
	char buf[512];
	size_t n, i;
	int y = top, end = top + rows;

	/* Through the sanitiser: the host is the lab file's. */
	snprintf(buf, sizeof buf, "Start %s on %s?", c->what, c->host);
	ui_fill(stdscr, y, 0, ROLE_HEADER);
	ui_put(stdscr, y++, 1, cols - 2, ROLE_HEADER, buf, false);
	y++;
	/* Where: the workspace it runs in (its package, its root). */
	if (c->where != NULL) {
		ui_putf(stdscr, y, 1, 9, ROLE_DIM, "in");
		ui_put(stdscr, y++, 10, cols - 11, ROLE_NORMAL, c->where,
		    false);
	}
	/* The command takes every row it needs but the three below it;
	 * G7's script is its steps in words until Tab. */
	if (is_suite(c) && !c->raw) {
		y = draw_steps(c, y, end, cols);
		if (y < end) {
			ui_putf(stdscr, y, 1, 9, ROLE_DIM, "command");
			ui_putf(stdscr, y++, 10, cols - 11, ROLE_DIM, "a /bin/sh "
			    "script: Tab shows the exact command");
		}
	} else {
		ui_putf(stdscr, y, 1, 9, ROLE_DIM, "command");
		y = cmdline_draw(y, end - y > 3 ? end - 3 : y + 1, 10,
		    cols - 11, ROLE_WARN, c->cmd, true);
	}
	if (y < end) {
		ui_putf(stdscr, y, 1, 9, ROLE_DIM, "chips");
		ui_put(stdscr, y++, 10, cols - 11, ROLE_NORMAL, c->nchips > 0 ?
		    c->chips_text : "none: it works on the workspace's files",
		    false);
	}
	if (c->spec.kind == LJOB_GATE && !gateid_runner(c->spec.gate) &&
	    y < end) {
		const char *stales = labcmd_gate_stales(c->spec.gate);

		ui_putf(stdscr, y, 1, 9, ROLE_DIM, "stale");
		ui_putf(stdscr, y++, 10, cols - 11, stales != NULL ? ROLE_WARN :
		    ROLE_NORMAL, "%s", stales != NULL ? stales : "no later "
		    "gate's evidence is bound to what it writes");
	}
	y = draw_evidence(a, c, y, end, cols);
	n = disturbed(c, js, nitems(js));
	for (i = 0; i < n && i < nitems(js) && y < end; i++) {
		/* As the Faults screen says it. */
		snprintf(buf, sizeof buf, "this would disturb %s (job %s)",
		    js[i]->label, js[i]->id != NULL ? js[i]->id : "starting");
		ui_putf(stdscr, y, 1, 2, ROLE_WARN, "%s", ui_glyph("⚠", "!"));
		ui_put(stdscr, y++, 3, cols - 4, ROLE_WARN, buf, false);
	}
	if (n > nitems(js) && y < end)
		ui_putf(stdscr, y++, 3, cols - 4, ROLE_WARN, "and %zu more "
		    "running jobs", n - nitems(js));
	if (n == 0 && y < end)
		ui_putf(stdscr, y++, 1, cols - 2, ROLE_DIM, "no running job "
		    "uses these chips");
	if (++y >= end)
		return;
	if (n > 0) {
		confirm_disturb_want(js, n, buf, sizeof buf);
		ui_putf(stdscr, y++, 1, cols - 2, ROLE_WARN, "It would disturb "
		    "what runs: anything else cancels; to start it anyway, type");
		if (y < end)
			ui_putf(stdscr, y, 1, cols - 2, ROLE_WARN, "%s in the "
			    "status bar.", buf);
	} else
		ui_putf(stdscr, y, 1, cols - 2, ROLE_NORMAL, "Type the %s (%s) "
		    "in the status bar to start it; anything else cancels.",
		    c->nchips > 0 ? "chips" : "gate", c->answer);
}

/* Tab in the question: the exact command, or the steps again. */
static void
confirm_ask_tab(struct app *a, void *data)
{
	struct confirm *c = data;

	(void)a;	/* the prompt redraws after every key */
	if (is_suite(c))
		c->raw = !c->raw;
}

static int
confirm_action(struct app *a, void *data, enum action act)
{
	(void)a;
	(void)data;
	(void)act;
	return R_NONE;
}

const struct view_ops confirm_view = {
	.title = "Confirm",
	.open = confirm_open,
	.close = confirm_close,
	.draw = confirm_draw,
	.action = confirm_action,
	.ask_tab = confirm_ask_tab,
};

void
confirm_ask(struct app *a, const struct ljob_spec *spec)
{
	(void)confirm_ask_then(a, spec, NULL, NULL);
}

int
confirm_ask_then(struct app *a, const struct ljob_spec *spec,
    confirm_done_fn done, void *arg)
{
	struct confirm probe = { 0 };
	char err[256];

	if (app_readonly(a)) {
		app_message(a, true, "read-only: jobs cannot be started");
		return -1;
	}
	if (labmodel_start_refused(app_labmodel(a)) != NULL) {
		app_message(a, true, "%s",
		    labmodel_start_refused(app_labmodel(a)));
		return -1;
	}
	/* What cannot be built is said at once, with no screen. */
	probe.app = a;
	probe.spec = *spec;
	if (prepare(&probe, err, sizeof err) != 0) {
		app_message(a, true, "cannot start it: %s", err);
		return -1;
	}
	app_push(a, &confirm_view, &(struct confirm_req){ spec, done, arg });
	return 0;
}
