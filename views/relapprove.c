/* relapprove.c: the approval of a promote or a rollback (relapprove.h). */
#include "calops.h"

#include <pwd.h>
#include <unistd.h>

#include <curses.h>

#include "base/text.h"
#include "base/strv.h"
#include "lab/chipstep.h"
#include "lab/labmodel.h"
#include "model/reldiff.h"
#include "proto/hostcmd.h"
#include "release/relkey.h"
#include "release/relrecord.h"
#include "remote/transport.h"
#include "views/app/app.h"
#include "views/confirm.h"
#include "views/core/config.h"
#include "views/core/graph.h"
#include "views/core/list.h"
#include "views/core/ui.h"
#include "views/labrun.h"
#include "views/pick.h"
#include "views/relapprove.h"

/* A diff's columns (list.h): the field, cut from the front (a report's
 * path ends in what tells two apart), then from → to. */
enum { DIFF_FIELD, DIFF_FROM, DIFF_ARROW, DIFF_TO };

static const struct list_col diff_cols[] = {
	[DIFF_FIELD] = { "FIELD", 0, 16, LIST_TAIL, ROLE_NORMAL, 0, -1 },
	[DIFF_FROM] = { "FROM", 0, 8, LIST_LEFT, ROLE_DIM, 0, -1 },
	[DIFF_ARROW] = { "", 1, 1, LIST_LEFT, ROLE_NORMAL, 0, -1 },
	[DIFF_TO] = { "TO", 0, 8, LIST_LEFT, ROLE_NORMAL, LIST_GROW, -1 },
};

static int
text_width(const char *s)
{
	char *clean = text_sanitize_str(s != NULL ? s : "");
	int w = ui_width(clean);

	free(clean);
	return w;
}

/* The widths of the diff's columns in cols cells, from its lines. */
static void
diff_widths(const struct reldiff *d, int cols, int *w)
{
	int want[nitems(diff_cols)] = { 0, 0, 1, 0 }, k;
	size_t i;

	for (i = 0; i < d->n; i++) {
		if ((k = text_width(d->v[i].field)) > want[DIFF_FIELD])
			want[DIFF_FIELD] = k;
		if ((k = text_width(d->v[i].from)) > want[DIFF_FROM])
			want[DIFF_FROM] = k;
		if ((k = text_width(d->v[i].to)) > want[DIFF_TO])
			want[DIFF_TO] = k;
	}
	list_cols_fit(diff_cols, want, nitems(diff_cols), cols, w);
}

const json_t *
relapprove_gen(const json_t *status, long n)
{
	const json_t *g;
	size_t i;

	json_array_foreach(json_object_get(status, "generations"), i, g)
		if (json_is_integer(json_object_get(g, "generation")) &&
		    json_integer_value(json_object_get(g, "generation")) == n)
			return g;
	return NULL;
}

int
relapprove_draw_diff(const json_t *status, long a, long b, int top,
    int rows, int cols)
{
	const json_t *ga = relapprove_gen(status, a);
	const json_t *gb = relapprove_gen(status, b);
	const struct reldiff_line *l;
	struct reldiff d;
	int y = top, w[nitems(diff_cols)], x;
	size_t i;

	if (rows <= 0)
		return 0;
	reldiff_make(&d, json_object_get(ga, "manifest"),
	    json_object_get(gb, "manifest"));
	ui_fill(stdscr, y, 0, ROLE_HEADER);
	ui_putf(stdscr, y++, 1, cols - 2, ROLE_HEADER, "WHAT DIFFERS, "
	    "generation %ld %s %ld: %zu field%s (%zu the same)", a,
	    ui_glyph("→", "->"), b, d.n, d.n == 1 ? "" : "s", d.same);
	if (ga == NULL || gb == NULL ||
	    !json_is_object(json_object_get(ga, "manifest")) ||
	    !json_is_object(json_object_get(gb, "manifest")))
		ui_putf(stdscr, y++, 3, cols - 4, ROLE_WARN, "a manifest "
		    "that does not parse counts as empty");
	/* After the +, - or ~ and its blank. */
	diff_widths(&d, cols - 3, w);
	for (i = 0; i < d.n && y < top + rows; i++, y++) {
		l = &d.v[i];
		ui_putf(stdscr, y, 1, 1, l->kind == RD_ADDED ? ROLE_PASS :
		    l->kind == RD_REMOVED ? ROLE_FAIL : ROLE_WARN, "%s",
		    l->kind == RD_ADDED ? "+" : l->kind == RD_REMOVED ? "-" :
		    "~");
		ui_put_tail(stdscr, y, 3, w[DIFF_FIELD], ROLE_NORMAL,
		    l->field);
		x = 3 + w[DIFF_FIELD] + 1;
		if (l->kind == RD_CHANGED) {
			ui_put(stdscr, y, x, w[DIFF_FROM], ROLE_DIM, l->from,
			    false);
			x += w[DIFF_FROM] + 1;
			ui_putf(stdscr, y, x, 1, ROLE_NORMAL, "%s",
			    ui_glyph("→", ">"));
			ui_put(stdscr, y, x + 2, w[DIFF_TO], ROLE_NORMAL,
			    l->to, false);
		} else
			ui_put(stdscr, y, x, cols - x - 1, ROLE_NORMAL,
			    l->kind == RD_ADDED ? l->to : l->from, false);
	}
	if (i < d.n && y > top + 1) {
		wmove(stdscr, y - 1, 0);
		wclrtoeol(stdscr);
		ui_putf(stdscr, y - 1, 3, cols - 4, ROLE_DIM, "… and %zu more",
		    d.n - i + 1);
	}
	reldiff_release(&d);
	return y - top;
}

static const char *
verb(const struct relapprove *p)
{
	return p->promote ? "promote" : "roll back";
}

static void
forget_key(struct relapprove *p)
{
	if (p->key != NULL)
		relkey_free(p->key);
	p->key = NULL;
	p->key_id[0] = '\0';
}

static void
kill_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	(void)rs;
	(void)ex;
	(void)arg;
}

static void
kill_line(struct rstream *rs, const char *line, size_t len, bool err,
    bool cut, void *arg)
{
	(void)rs;
	(void)line;
	(void)len;
	(void)err;
	(void)cut;
	(void)arg;
}

static const struct rstream_cb kill_cb = { kill_line, kill_done };

/* Stop the chip step's job (`calops kill` on its host); its end is then
 * what relapprove_tick() signs. */
static void
stop_chip(struct relapprove *p)
{
	struct transport *t;
	struct strv s = { NULL, 0, 0 };
	char err[256];

	p->chip_stopped = true;
	if ((t = labmodel_transport(app_labmodel(p->app), p->chip_host, err,
	    sizeof err)) == NULL)
		return;
	hostcmd_kill(&s, p->job);
	(void)transport_exec(t, s.v, &kill_cb, NULL, err, sizeof err);
	strv_free(&s);
}

void
relapprove_cancel(struct relapprove *p, const char *why)
{
	/* Esc while the chip step runs: it is stopped, and cut short it is
	 * refused on the log once it ended (relapprove_tick). */
	if (p->step == RAP_CHIP && p->job[0] != '\0' && why != NULL) {
		if (!p->chip_stopped)
			stop_chip(p);
		app_message(p->app, false, "stopping the chip step (job %s): "
		    "the refusal is signed once it ended", p->job);
		return;
	}
	if (p->step == RAP_CHIP && p->job[0] != '\0' && !p->chip_stopped)
		stop_chip(p);
	forget_key(p);
	if (p->step == RAP_CLOSED)
		return;
	prompt_withdraw(p->app, p);
	if (p->step == RAP_SENT) {
		/* The screen goes: the host finishes without it. */
		app_message(p->app, false, "the signed record went to %s, "
		    "which acts on it; its answer will be in the audit log",
		    relclient_host(p->rc));
		p->step = RAP_CLOSED;
		return;
	}
	p->step = RAP_CLOSED;
	relclient_cancel(p->rc);
	if (why != NULL)
		app_message(p->app, false, "%s", why);
}

bool
relapprove_sent(const struct relapprove *p)
{
	return p->step == RAP_SENT;
}

bool
relapprove_chip_running(const struct relapprove *p)
{
	return p->step == RAP_CHIP && p->job[0] != '\0';
}

bool
relapprove_open(const struct relapprove *p)
{
	return p->step != RAP_CLOSED;
}

/* Who approves, for the log and the lock: the config's release_actor, else
 * user@host. */
static char *
actor(struct relapprove *p)
{
	const struct config *c = app_config(p->app);
	struct passwd *pw = getpwuid(getuid());
	char host[256];

	if (c->release_actor != NULL && c->release_actor[0] != '\0')
		return xstrdup(c->release_actor);
	if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "?");
	host[sizeof host - 1] = '\0';
	return xasprintf("%s@%s", pw != NULL ? pw->pw_name : "?", host);
}

void
relapprove_start(struct relapprove *p, struct app *a, struct relclient *rc,
    bool promote, long to)
{
	char err[256], *who;

	if (p->step != RAP_CLOSED) {
		app_message(a, true, "an approval is open: Esc leaves it");
		return;
	}
	if (app_readonly(a)) {
		app_message(a, true, "read-only: a release cannot be changed");
		return;
	}
	memset(p, 0, sizeof *p);
	p->app = a;
	p->rc = rc;
	p->promote = promote;
	p->to = to;
	who = actor(p);
	if (relclient_begin(rc, promote ? "promote" : "rollback", to, who,
	    err, sizeof err) != 0) {
		app_message(a, true, "cannot %s: %s", verb(p), err);
		free(who);
		return;
	}
	free(who);
	p->step = RAP_VERIFYING;
}

static void	ask_key(struct relapprove *p, const char *why);
static void	have_key(struct relapprove *p);

/* Sign and send: the action carrying chip (NULL: none), or the refusal
 * refusal says (NULL: none, but for a target that does not verify). */
static void
sign(struct relapprove *p, const struct relchip *chip, const char *refusal)
{
	char err[256], *who;
	int rc;

	who = actor(p);
	rc = relclient_sign(p->rc, p->key, p->key_id, who, p->reason, chip,
	    refusal, err, sizeof err);
	free(who);
	forget_key(p);
	if (rc != 0) {
		relapprove_cancel(p, NULL);
		app_message(p->app, true, "not signed: %s; nothing changed",
		    err);
		return;
	}
	p->step = RAP_SENT;
}

/* The chip step's job started (or not: the approval is given up). */
static void
chip_started(struct app *a, const struct ljob *j, void *arg)
{
	struct relapprove *p = arg;
	char err[256];

	(void)a;
	if (p->step != RAP_CHIP)
		return;
	if (j == NULL || j->id == NULL) {
		relapprove_cancel(p, NULL);
		app_message(p->app, true, "the chip step did not start: "
		    "nothing signed, nothing changed");
		return;
	}
	snprintf(p->job, sizeof p->job, "%s", j->id);
	/* The host marks it in progress: a console killed from here on
	 * leaves it for `calops release recover` (release.md §2). */
	if (relclient_mark(p->rc, p->job, p->chip_host, p->chip, p->key_id,
	    err, sizeof err) != 0)
		app_message(p->app, true, "the chip step's marker: %s", err);
	app_redraw(p->app);
}

/* A host picked for the chip step (pick.h), kept; false when the
 * approval is over, or given up now: the pick was cancelled. */
static bool
picked(struct relapprove *p, const char *host)
{
	if (p->step != RAP_CHIP)
		return false;
	if (host == NULL) {
		relapprove_cancel(p, "cancelled: nothing signed, nothing "
		    "changed");
		return false;
	}
	snprintf(p->chip_host, sizeof p->chip_host, "%s", host);
	return true;
}

/* The chip picked: the Confirm screen asks for it as every job that
 * disturbs a chip is asked. */
static void
chip_picked(struct app *a, const char *host, int chip, void *arg)
{
	struct relapprove *p = arg;
	struct ljob_spec spec = { .kind = LJOB_CHIPSTEP };

	if (!picked(p, host))
		return;
	p->chip = chip;
	spec.host = p->chip_host;
	spec.workspace = labrun_workspace(a, p->chip_host);
	spec.chip = p->chip;
	spec.generation = p->to;
	if (confirm_ask_then(a, &spec, chip_started, p) != 0) {
		p->step = RAP_ASKING;
		relapprove_cancel(p, NULL);
	}
}

/* The host picked: then its chip. */
static void
host_picked(struct app *a, const char *host, int chip, void *arg)
{
	struct relapprove *p = arg;

	(void)chip;
	if (picked(p, host))
		pick_chip(a, p->chip_what, p->chip_host, -1, chip_picked, p);
}

/* A promote's chip step (release.md §6): the runner's inspect and golden
 * on a chip of a lab host, both picked (pick.h; the workspace's host
 * first), then asked as every job that disturbs a chip is asked. */
static void
ask_chip(struct relapprove *p)
{
	if (labmodel_default_host(app_labmodel(p->app)) == NULL) {
		relapprove_cancel(p, NULL);
		app_message(p->app, true, "no lab host for the chip step: "
		    "nothing signed, nothing changed");
		return;
	}
	snprintf(p->chip_what, sizeof p->chip_what, "generation %ld's chip "
	    "step", p->to);
	p->step = RAP_CHIP;
	pick_host(p->app, p->chip_what, labrun_default_host(p->app),
	    host_picked, p);
}

/* The reason: the record is signed and sent; a promote's after its chip
 * step. */
static void
reason_answer(struct app *a, const char *answer, void *arg)
{
	struct relapprove *p = arg;

	(void)a;
	if (answer == NULL) {
		relapprove_cancel(p, "cancelled: nothing signed, nothing "
		    "changed");
		return;
	}
	snprintf(p->reason, sizeof p->reason, "%s", answer[0] != '\0' ?
	    answer : "");
	if (p->reason[0] == '\0')
		snprintf(p->reason, sizeof p->reason, "%s to generation %ld",
		    p->promote ? "promote" : "rollback", p->to);
	if (p->promote && relclient_approval(p->rc)->verified) {
		ask_chip(p);
		return;
	}
	sign(p, NULL, NULL);
}

void
relapprove_tick(struct relapprove *p)
{
	const struct ljob *j;
	struct relchip chip = { .kind = RELCHIP_RAN };
	struct chipstep cs;
	const char *tree;

	if (p->step != RAP_CHIP || p->job[0] == '\0' ||
	    (j = labmodel_find(app_labmodel(p->app), p->chip_host,
	    p->job)) == NULL || labmodel_job_live(j))
		return;
	if (j->chipstep != NULL)
		cs = *j->chipstep;
	else
		chipstep_init(&cs);
	snprintf(cs.job, sizeof cs.job, "%s", p->job);
	if (p->chip_stopped)
		snprintf(cs.cut, sizeof cs.cut, "stopped by the approver");
	else if (j->state == LJ_BROKEN)
		snprintf(cs.cut, sizeof cs.cut, "%.200s", j->err);
	tree = json_string_value(json_object_get(json_object_get(
	    relapprove_gen(relclient_status(p->rc), p->to), "manifest"),
	    "calbin_tree_sha256"));
	if (!chipstep_judge(&cs, tree)) {
		sign(p, NULL, cs.problem);
		return;
	}
	chip.host = p->chip_host;
	chip.chip = p->chip;
	chip.job = p->job;
	memcpy(chip.golden_sha256, cs.golden_sha256, sizeof chip.golden_sha256);
	sign(p, &chip, NULL);
}

/* The key is loaded: is it one the host trusts? */
static void
have_key(struct relapprove *p)
{
	const json_t *k;
	char *pub = relkey_public_b64(p->key), q[256], msg[1200];
	const char *ed, *name;
	size_t i;

	p->key_id[0] = '\0';
	json_array_foreach(relclient_trusted_keys(p->rc), i, k) {
		ed = json_string_value(json_object_get(k, "ed25519"));
		name = json_string_value(json_object_get(k, "name"));
		if (pub != NULL && ed != NULL && name != NULL &&
		    strcmp(ed, pub) == 0) {
			snprintf(p->key_id, sizeof p->key_id, "%s", name);
			break;
		}
	}
	free(pub);
	if (p->key_id[0] == '\0') {
		snprintf(msg, sizeof msg, "'%s' is not one of the workspace's "
		    "trusted keys", p->key_path);
		forget_key(p);
		ask_key(p, msg);
		return;
	}
	/* A refusal's reason is the host's: nothing to ask. */
	if (!relclient_approval(p->rc)->verified) {
		sign(p, NULL, NULL);
		return;
	}
	snprintf(q, sizeof q, "why, for the audit log (Enter: %s to "
	    "generation %ld): ", p->promote ? "promote" : "rollback", p->to);
	prompt_ask(p->app, q, reason_answer, p);
}

static void
pass_answer(struct app *a, const char *answer, void *arg)
{
	struct relapprove *p = arg;
	char err[512];
	bool wants;

	(void)a;
	if (answer == NULL) {
		relapprove_cancel(p, "cancelled: nothing signed, nothing "
		    "changed");
		return;
	}
	/* The prompt wipes its copy once this returns; OpenSSL's is its
	 * own, cleansed. */
	if ((p->key = relkey_load_pass(p->key_path, answer, &wants, err,
	    sizeof err)) == NULL) {
		ask_key(p, err);
		return;
	}
	have_key(p);
}

static void
key_answer(struct app *a, const char *answer, void *arg)
{
	struct relapprove *p = arg;
	const struct config *c = app_config(a);
	char err[512], q[1100], *typed;
	bool wants;

	if (answer == NULL) {
		relapprove_cancel(p, "cancelled: nothing signed, nothing "
		    "changed");
		return;
	}
	if (answer[0] == '\0' && c->release_key == NULL) {
		ask_key(p, "no key given (release_key: in the config names "
		    "one)");
		return;
	}
	/* A path typed (or completed by Tab) may start with "~/", as the
	 * config's may (config_expand_path()). */
	typed = answer[0] != '\0' ? config_expand_path(answer) : NULL;
	if (answer[0] != '\0' && typed == NULL) {
		ask_key(p, "cannot expand '~': HOME is not set");
		return;
	}
	snprintf(p->key_path, sizeof p->key_path, "%s", typed != NULL ?
	    typed : c->release_key);
	free(typed);
	p->key = relkey_load_pass(p->key_path, NULL, &wants, err,
	    sizeof err);
	if (p->key == NULL && wants) {
		snprintf(q, sizeof q, "passphrase for %s (not shown): ",
		    p->key_path);
		prompt_ask_secret(a, q, pass_answer, p);
		return;
	}
	if (p->key == NULL) {
		ask_key(p, err);
		return;
	}
	have_key(p);
}

/* The approver's key; asked again, after why, when the one given could
 * not be used: a path mistyped does not start the approval over. */
static void
ask_key(struct relapprove *p, const char *why)
{
	const struct config *c = app_config(p->app);
	char q[1400];
	int n = 0;

	if (why != NULL)
		n = snprintf(q, sizeof q, "%s\nanother key (Esc cancels; ",
		    why);
	else
		n = snprintf(q, sizeof q, "approver's key (");
	if (n < 0 || (size_t)n >= sizeof q)
		n = 0;
	if (c->release_key != NULL)
		snprintf(q + n, sizeof q - (size_t)n, "Enter: %s): ",
		    c->release_key);
	else
		snprintf(q + n, sizeof q - (size_t)n, "a PEM Ed25519 private "
		    "key file): ");
	prompt_ask_path(p->app, q, key_answer, p);
}

static void
number_answer(struct app *a, const char *answer, void *arg)
{
	struct relapprove *p = arg;
	char want[24];

	snprintf(want, sizeof want, "%ld", p->to);
	if (answer == NULL) {
		relapprove_cancel(p, "cancelled: nothing signed, nothing "
		    "changed");
		return;
	}
	if (strcmp(answer, want) != 0) {
		char msg[160];

		snprintf(msg, sizeof msg, "cancelled: '%.40s' is not %s; "
		    "nothing signed, nothing changed", answer, want);
		relapprove_cancel(p, msg);
		(void)a;
		return;
	}
	ask_key(p, NULL);
}

void
relapprove_changed(struct relapprove *p)
{
	static const char held[] = "the release lock is held by ";
	const struct relapproval *ap;
	char q[256];

	if (p->step == RAP_CLOSED)
		return;
	ap = relclient_approval(p->rc);
	if (ap->phase == RA_READY && p->step == RAP_VERIFYING) {
		p->step = RAP_ASKING;
		if (ap->verified)
			snprintf(q, sizeof q, "type %ld to %s to generation "
			    "%ld (anything else cancels): ", p->to, verb(p),
			    p->to);
		else
			snprintf(q, sizeof q, "%ld does not verify: type %ld "
			    "to sign the refusal into the log (anything else "
			    "cancels): ", p->to, p->to);
		/* The hashing took its time: the line may be in use. */
		prompt_ask_later(p->app, q, number_answer, p);
		return;
	}
	if (ap->phase != RA_DONE)
		return;
	/* The host answered (or the link went): the panel closes, with any
	 * question still open, and says how it ended. */
	prompt_withdraw(p->app, p);
	forget_key(p);
	p->step = RAP_CLOSED;
	if (strcmp(ap->result, "ok") == 0 && !ap->sent_refusal) {
		app_message(p->app, false, "%s", ap->message);
		app_reevaluate(p->app);
	} else if (strcmp(ap->result, "ok") == 0)
		app_message(p->app, true, "refused, and the refusal is on the "
		    "audit log: %s", ap->problem);
	else if (strcmp(ap->result, "locked") == 0 && strncmp(ap->message,
	    held, strlen(held)) == 0)
		/* Who holds it first: a narrow status bar keeps the name. */
		app_message(p->app, true, "locked by %s",
		    ap->message + strlen(held));
	else
		app_message(p->app, true, "%s: %s", ap->result, ap->message);
}

/* A bar from column 12, width columns (at least 10), a fraction f of it
 * filled; the width drawn. */
static int
bar(int y, int width, double f)
{
	int filled, i;

	if (width < 10)
		width = 10;
	filled = (int)(f * width + 0.5);
	wattrset(stdscr, ui_attr(f >= 1 ? ROLE_PASS : ROLE_PROGRESS));
	wmove(stdscr, y, 12);
	for (i = 0; i < width; i++)
		waddstr(stdscr, i < filled ? ui_glyph("█", "#") :
		    ui_glyph("░", "."));
	wattrset(stdscr, ui_attr(ROLE_NORMAL));
	return width;
}

/* The bar of the host's hashing, and its numbers. */
static void
draw_progress(const struct relapproval *ap, int y, int cols)
{
	double f = ap->total > 0 ? (double)ap->done / (double)ap->total : 0;
	int width = bar(y, cols - 40, f);

	ui_putf(stdscr, y, 13 + width, cols - 14 - width, ROLE_NORMAL,
	    "%3.0f %% of %.1f MiB", 100 * f, (double)ap->total / 1048576);
}

/* golden's cases as a bar, and the job's phase and numbers after it. */
static void
draw_chip_bar(const struct ljob *j, int y, int cols)
{
	int width = bar(y, cols - 44, j->total > 0 ? j->done / j->total : 0);

	ui_putf(stdscr, y, 13 + width, cols - 14 - width, ROLE_RUNNING,
	    "%s %.0f/%.0f", j->phase, j->done, j->total);
}

/*
 * The verdict's words after its glyph, from column 12, over two rows when
 * one is too narrow (and two may be used), broken between its parts ("; ")
 * so that none is cut: at 80 columns "bindings match today's artifacts"
 * still reads whole.
 */
static void
draw_words(int y, int cols, bool two, enum role r, const char *glyph,
    const char *words)
{
	char *line = xasprintf("%s %s", glyph, words), *safe, *head;
	const char *p, *brk = NULL;
	int width = cols - 13;

	safe = text_sanitize_str(line);
	free(line);
	for (p = strstr(safe, "; "); two && p != NULL; p = strstr(p + 2,
	    "; ")) {
		head = xstrndup(safe, (size_t)(p - safe) + 1);
		if (ui_width(head) > width) {
			free(head);
			break;
		}
		free(head);
		brk = p;
	}
	if (ui_width(safe) <= width || brk == NULL)
		ui_put(stdscr, y, 12, width, r, safe, false);
	else {
		head = xstrndup(safe, (size_t)(brk - safe) + 1);
		ui_put(stdscr, y, 12, width, r, head, false);
		ui_put(stdscr, y + 1, 14, width - 2, r, brk + 2, false);
		free(head);
	}
	free(safe);
}

/* Where the verification is, in its row and, when two is set, the one
 * below: once done, the target's verdict in the host's words, the Release
 * screen's and `calops release verify`'s (relverdict.h), and why it does
 * not verify; a host whose calops gives no verdict is said as before. */
static void
draw_verify(struct relapprove *p, const struct relapproval *ap, int y,
    int cols, bool two)
{
	char line[300];

	ui_putf(stdscr, y, 1, 10, ROLE_DIM, "verify");
	if (ap->phase == RA_LOCKING) {
		snprintf(line, sizeof line, "taking the release lock on %s…",
		    relclient_host(p->rc));
		ui_put(stdscr, y, 12, cols - 13, ROLE_RUNNING, line, false);
	}
	else if (ap->phase == RA_VERIFYING && ap->total > 0)
		draw_progress(ap, y, cols);
	else if (ap->phase == RA_VERIFYING)
		ui_putf(stdscr, y, 12, cols - 13, ROLE_RUNNING, "checking the "
		    "signature…");
	else if (ap->words[0] != '\0') {
		draw_words(y, cols, two && ap->verified, ap->verified ?
		    ROLE_PASS : ROLE_FAIL, ap->verified ? ui_glyph("✔", "ok") :
		    ui_glyph("✘", "x"), ap->words);
		/* The verdict said what fails; this is why, in full. */
		if (two && !ap->verified)
			ui_put(stdscr, y + 1, 14, cols - 15, ROLE_FAIL,
			    ap->problem, false);
	} else if (ap->verified)
		ui_putf(stdscr, y, 12, cols - 13, ROLE_PASS, "%s verifies: "
		    "%s", ui_glyph("✔", "ok"), ap->bound ? "bindings match "
		    "today's artifacts (hashed in full), signed by a trusted "
		    "key, not revoked" : "signed by a trusted key, not revoked "
		    "(an earlier generation: its bindings are not today's)");
	else {
		ui_putf(stdscr, y, 12, 3, ROLE_FAIL, "%s", ui_glyph("✘", "x"));
		ui_put(stdscr, y, 15, cols - 16, ROLE_FAIL, ap->problem,
		    false);
	}
}

/* The chip step's row (release.md §6): where it will run, then its job
 * as its events come, with golden's progress, then how it ended. */
static void
draw_chip(struct relapprove *p, int y, int cols)
{
	const struct ljob *j = p->job[0] != '\0' ? labmodel_find(
	    app_labmodel(p->app), p->chip_host, p->job) : NULL;
	char line[400];

	ui_putf(stdscr, y, 1, 10, ROLE_DIM, "chip step");
	if (p->step != RAP_CHIP && p->job[0] == '\0') {
		ui_putf(stdscr, y, 12, cols - 13, ROLE_NORMAL, "inspect and "
		    "golden on a chip of %s, under the lock, once approved",
		    app_workspace_lab_host(p->app) != NULL ?
		    app_workspace_lab_host(p->app) : "the workspace's host");
		return;
	}
	if (j == NULL) {
		ui_putf(stdscr, y, 12, cols - 13, ROLE_WARN, "type the chip "
		    "(%d) in the confirmation to start it on %s", p->chip,
		    p->chip_host);
		return;
	}
	if (labmodel_job_live(j) && j->total > 0) {
		draw_chip_bar(j, y, cols);
		return;
	}
	if (labmodel_job_live(j)) {
		snprintf(line, sizeof line, "job %s on %s, chip %d: %s…",
		    p->job, p->chip_host, p->chip, j->phase[0] != '\0' ?
		    j->phase : "starting");
		ui_put(stdscr, y, 12, cols - 13, ROLE_RUNNING, line, false);
		return;
	}
	snprintf(line, sizeof line, "job %s on %s, chip %d: %s", p->job,
	    p->chip_host, p->chip, j->chipstep != NULL &&
	    j->chipstep->passed && j->state == LJ_DONE ? "golden passed" :
	    labmodel_job_state_name(j->state));
	ui_put(stdscr, y, 12, cols - 13, j->state == LJ_DONE ? ROLE_PASS :
	    ROLE_FAIL, line, false);
}

void
relapprove_draw(struct relapprove *p, int top, int rows, int cols)
{
	const struct relapproval *ap = relclient_approval(p->rc);
	const json_t *status = relclient_status(p->rc), *obs, *g;
	int y = top, end = top + rows;
	char left[32], win[32];
	char line[512], from[24];

	/* Through the sanitiser: the host's name is the lab file's. */
	if (ap->from >= 1)
		snprintf(from, sizeof from, "%ld", ap->from);
	else
		snprintf(from, sizeof from, "(none)");
	snprintf(line, sizeof line, "%s: generation %s %s %ld on %s",
	    p->promote ? "PROMOTE" : "ROLL BACK", from, ui_glyph("→", "->"),
	    p->to, relclient_host(p->rc));
	ui_fill(stdscr, y, 0, ROLE_TITLE);
	ui_put(stdscr, y++, 1, cols - 2, ROLE_TITLE, line, false);
	obs = json_object_get(status, "observation");
	g = relapprove_gen(status, ap->from);
	ui_putf(stdscr, y, 1, 10, ROLE_DIM, "leaving");
	if (ap->from < 1)
		ui_putf(stdscr, y++, 12, cols - 13, ROLE_NORMAL, "nothing is "
		    "current yet");
	else if (json_is_object(obs) && json_integer_value(json_object_get(
	    obs, "generation")) == ap->from) {
		graph_fmt_dur(json_number_value(json_object_get(obs,
		    "left_h")) * 3600, left, sizeof left);
		graph_fmt_dur(json_number_value(json_object_get(obs,
		    "window_h")) * 3600, win, sizeof win);
		if (json_number_value(json_object_get(obs, "left_h")) > 0)
			ui_putf(stdscr, y++, 12, cols - 13, ROLE_WARN,
			    "generation %ld, still observed: %s of its %s "
			    "window left", ap->from, left, win);
		else
			ui_putf(stdscr, y++, 12, cols - 13, ROLE_NORMAL,
			    "generation %ld, its %s observation window over",
			    ap->from, win);
	} else
		ui_putf(stdscr, y++, 12, cols - 13, ROLE_NORMAL, "generation "
		    "%ld (observation window: %s)", ap->from,
		    json_is_number(json_object_get(g, "observation_window_h")) ?
		    "not started by a logged switch" : "none given");
	g = relapprove_gen(status, p->to);
	ui_putf(stdscr, y, 1, 10, ROLE_DIM, "going to");
	snprintf(line, sizeof line, "generation %ld, signed by %s", p->to,
	    json_string_value(json_object_get(g, "signer")) != NULL ?
	    json_string_value(json_object_get(g, "signer")) :
	    "no trusted key");
	ui_put(stdscr, y++, 12, cols - 13, ROLE_NORMAL, line, false);
	/* The row below is the verdict's, or says the record went. */
	draw_verify(p, ap, y++, cols, ap->phase != RA_SENDING);
	if (ap->phase == RA_SENDING) {
		snprintf(line, sizeof line, "signed and sent; %s acts on it…",
		    relclient_host(p->rc));
		ui_put(stdscr, y, 12, cols - 13, ROLE_RUNNING, line, false);
	}
	y++;
	if (p->promote)
		draw_chip(p, y++, cols);
	if (y + 2 < end && ap->from >= 1)
		y += relapprove_draw_diff(status, ap->from, p->to, y + 1,
		    end - y - 3, cols) + 1;
	if (y + 1 < end && p->step == RAP_ASKING)
		ui_putf(stdscr, end - 1, 1, cols - 2, ROLE_NORMAL, "Answer in "
		    "the status bar; Esc cancels: nothing is signed, the lock "
		    "is let go.");
	else if (y + 1 < end && p->step == RAP_CHIP)
		ui_putf(stdscr, end - 1, 1, cols - 2, ROLE_DIM, "The chip step "
		    "runs under the release lock; Esc stops it, and the refusal "
		    "is signed.");
	else if (y + 1 < end && p->step == RAP_VERIFYING)
		ui_putf(stdscr, end - 1, 1, cols - 2, ROLE_DIM, "The release "
		    "lock is held for this approval; Esc cancels.");
}
