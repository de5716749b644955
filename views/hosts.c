/*
 * hosts.c: the Hosts screen: every host of the lab, one row each, with its
 * connection's state (protocol.md §6) and how long it has been in it, the
 * round trip, the calops it runs, its chips, the jobs of this console
 * running there, and why it is not up; under the list, the selected
 * host's whole story: where it goes (for an ssh host, as ~/.ssh/config
 * and the lab file make it, sshhost.h, and via which jump hosts), its
 * host key policy and which
 * setting won, the ssh_config keywords calops ignores for it, its error or
 * the question it asks.
 *
 * c connects the selected host again now (a refused one is tried only
 * when the operator says so); a accepts the unknown host key it was
 * refused over once "yes" has been typed under its fingerprint, as ssh
 * asks, and connects again.  A passphrase is asked for by the console
 * itself when a host needs one (app.c).
 *
 * A host reached through jump hosts (ProxyJump) has a row under it for
 * each, the first hop first: a jump is a host of its own, with its state,
 * round trip and last error; c and a on it act on the host it leads to.
 *
 * The states change under it (the lab model says so); the times in it
 * tick, so it draws again every second while on screen, and not at all
 * when another screen is up.
 */
#include "calops.h"

#include "base/buf.h"
#include "base/text.h"
#include "lab/labmodel.h"
#include "remote/lab.h"
#include "remote/ssh.h"
#include "remote/sshhost.h"
#include "remote/transport.h"
#include "views/app/app.h"
#include "views/core/graph.h"
#include "views/core/list.h"
#include "views/core/ui.h"

#define HOSTS_TICK_MS	1000

/* A row: a host of the lab file, or (jump >= 0) a jump host on its way. */
struct hosts_row {
	size_t		 host;
	int		 jump;
};

struct hosts_view {
	struct app		*app;
	struct list		 list;
	long			 timer;
	struct hosts_row	*rows;
	size_t			 nrows;
};

static const struct lab_host *
host_at(struct app *a, size_t i)
{
	const struct lab *lab = labmodel_lab(app_labmodel(a));

	return i < lab->nhosts ? &lab->hosts[i] : NULL;
}

/* The host's state; false when it has no transport at all (err says). */
static bool
host_status(struct app *a, const struct lab_host *h,
    struct transport_status *st, char *err, size_t errlen)
{
	struct transport *t = labmodel_transport(app_labmodel(a), h->name,
	    err, errlen);

	if (t == NULL) {
		memset(st, 0, sizeof *st);
		st->state = TRANSPORT_REFUSED;
		st->rtt_us = -1;
		return false;
	}
	transport_status(t, st);
	return true;
}

/* This console's live jobs on a host. */
static size_t
host_jobs(struct app *a, const char *host)
{
	struct labmodel *lm = app_labmodel(a);
	const struct ljob *j;
	size_t i, n = 0;

	for (i = 0; (j = labmodel_job(lm, i)) != NULL; i++)
		n += strcmp(j->host, host) == 0 && labmodel_job_live(j);
	return n;
}

static enum role
state_role(enum transport_state st)
{
	switch (st) {
	case TRANSPORT_UP:
		return ROLE_PASS;
	case TRANSPORT_STALE:
	case TRANSPORT_CONNECTING:
	case TRANSPORT_RECONNECTING:
		return ROLE_WARN;
	default:
		return ROLE_FAIL;
	}
}

/* The state in words, with what a reconnecting host waits for. */
static void
state_text(const struct transport_status *st, char *buf, size_t len)
{
	int64_t in = st->next_try_ms - loop_now_ms();

	if (st->state == TRANSPORT_RECONNECTING && st->next_try_ms != 0)
		snprintf(buf, len, "retry #%u in %llds", st->attempt + 1,
		    (long long)(in > 0 ? (in + 999) / 1000 : 0));
	else if (st->state == TRANSPORT_RECONNECTING)
		snprintf(buf, len, "reconnecting #%u", st->attempt);
	else
		snprintf(buf, len, "%s", transport_state_name(st->state));
}

static bool
host_matches(size_t i, void *arg)
{
	struct hosts_view *v = arg;
	struct app *a = v->app;
	const struct lab_host *h = host_at(a, v->rows[i].host);
	struct transport_status st;
	char err[256];

	if (!host_status(a, h, &st, err, sizeof err))
		return app_filter_match(a, h->name) || app_filter_match(a,
		    err);
	return app_filter_match(a, h->name) ||
	    app_filter_match(a, transport_state_name(st.state)) ||
	    app_filter_match(a, st.error);
}

/* A row for each host, and one for each jump host on its way. */
static void
hosts_refresh(struct app *a, void *data)
{
	struct hosts_view *v = data;
	const struct lab *lab = labmodel_lab(app_labmodel(a));
	struct transport_status st;
	char err[256];
	size_t i, k, n = 0;

	v->app = a;
	for (i = 0; i < lab->nhosts; i++) {
		k = host_status(a, &lab->hosts[i], &st, err, sizeof err) ?
		    st.njumps : 0;
		v->rows = xreallocarray(v->rows, n + k + 1, sizeof *v->rows);
		v->rows[n].host = i;
		v->rows[n++].jump = -1;
		for (; k > 0; k--, n++) {
			v->rows[n].host = i;
			v->rows[n].jump = (int)(st.njumps - k);
		}
	}
	v->nrows = n;
	list_rebuild(&v->list, n, app_filter(a)[0] != '\0' ? host_matches :
	    NULL, v);
}

static void *
hosts_open(struct app *a, const void *arg)
{
	struct hosts_view *v = xcalloc(1, sizeof *v);

	(void)arg;
	hosts_refresh(a, v);
	return v;
}

static void
hosts_close(void *data)
{
	struct hosts_view *v = data;

	if (v->timer != 0)
		loop_del_timer(app_loop(v->app), v->timer);
	list_release(&v->list);
	free(v->rows);
	free(v);
}

static void
tick(struct loop *l, void *arg)
{
	struct hosts_view *v = arg;

	(void)l;
	v->timer = 0;
	if (app_on_top(v->app, v))
		app_redraw(v->app);
}

/* A jump host's row, under the host it leads to. */
static void
draw_jump(const struct transport_jump *j, int y, int x, int cols, bool sel)
{
	enum role base = sel ? ROLE_SELECTION : ROLE_NORMAL;
	char age[16], rtt[16];

	ui_putf(stdscr, y, x + 1, 16, sel ? base : ROLE_DIM, " via %s",
	    j->name);
	x += 18;
	ui_put(stdscr, y, x, 18, sel ? base : state_role(j->state),
	    transport_state_name(j->state), true);
	x += 19;
	graph_fmt_dur((double)(loop_now_ms() - j->since_ms) / 1000, age,
	    sizeof age);
	ui_putf(stdscr, y, x, 6, base, "%6s", age);
	x += 7;
	if (j->rtt_us >= 0 && transport_state_up(j->state))
		snprintf(rtt, sizeof rtt, "%.1fms", (double)j->rtt_us / 1000);
	else
		snprintf(rtt, sizeof rtt, "-");
	ui_putf(stdscr, y, x, 8, base, "%8s", rtt);
	x += 9 + 10 + 9 + 6;
	if (cols - x > 4 && j->error[0] != '\0')
		ui_put(stdscr, y, x, cols - x - 1, sel ? base : ROLE_DIM,
		    j->error, false);
}

static void
draw_host(const void *arg, size_t rec, int y, int x, int cols, bool sel)
{
	const struct hosts_view *v = arg;
	const struct lab_host *h = host_at(v->app, v->rows[rec].host);
	enum role base = sel ? ROLE_SELECTION : ROLE_NORMAL;
	struct transport_status st;
	char err[256], word[32], age[16], rtt[16], chips[32];
	const char *why;
	bool have;
	size_t i;
	int off;

	have = host_status(v->app, h, &st, err, sizeof err);
	if (v->rows[rec].jump >= 0) {
		if (have && (size_t)v->rows[rec].jump < st.njumps)
			draw_jump(&st.jumps[v->rows[rec].jump], y, x, cols,
			    sel);
		return;
	}
	x += 1;
	ui_put(stdscr, y, x, 16, base, h->name, true);
	x += 17;
	state_text(&st, word, sizeof word);
	ui_put(stdscr, y, x, 18, sel ? base : state_role(st.state), word, true);
	x += 19;
	graph_fmt_dur(have ? (double)(loop_now_ms() - st.since_ms) / 1000 :
	    0, age, sizeof age);
	ui_putf(stdscr, y, x, 6, base, "%6s", have ? age : "-");
	x += 7;
	if (st.rtt_us >= 0 && transport_state_up(st.state))
		snprintf(rtt, sizeof rtt, "%.1fms", (double)st.rtt_us / 1000);
	else
		snprintf(rtt, sizeof rtt, "-");
	ui_putf(stdscr, y, x, 8, base, "%8s", rtt);
	x += 9;
	ui_put(stdscr, y, x, 9, base, h->transport == LAB_LOCAL ? "(this)" :
	    st.version[0] != '\0' ? st.version : "-", true);
	x += 10;
	for (i = 0, off = 0, chips[0] = '\0'; i < h->nchips &&
	    off < (int)sizeof chips - 8; i++)
		off += snprintf(chips + off, sizeof chips - (size_t)off,
		    "%s%d", i > 0 ? "," : "", h->chips[i]);
	ui_put(stdscr, y, x, 8, base, chips[0] != '\0' ? chips : "-", true);
	x += 9;
	ui_putf(stdscr, y, x, 4, base, "%4zu", host_jobs(v->app, h->name));
	x += 6;
	why = !have ? err : st.ask != TRANSPORT_ASK_NONE ? st.ask_text :
	    st.error;
	if (cols - x > 4 && *why != '\0')
		ui_put(stdscr, y, x, cols - x - 1, sel ? base : ROLE_DIM, why,
		    false);
}

/* " via a, b": the jump hosts on the way, "" when none. */
static const char *
via_text(const struct transport_status *st, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < st->njumps && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
		    i == 0 ? " via " : ", ", st->jumps[i].name);
	return buf;
}

/* The selected ssh host's address (and the jump hosts on its way, via),
 * compression when asked for, host key policy and ignored keywords, on
 * the three lines from y. */
static void
draw_ssh(const struct lab_host *h, const struct sshhost *sh,
    const struct transport_status *st, const char *via, bool protect, int y,
    int cols)
{
	char *line, comp[PATH_MAX + 128];
	struct buf b;
	size_t i;

	if (sh->compress)
		sshhost_compress_str(sh, st->comp_cs, st->comp_sc, comp,
		    sizeof comp);
	line = xasprintf("%s: ssh %s@%s port %d%s, %zu identit%s%s, keepalive "
	    "%ds x %d%s%s%s", h->name, sh->user, sh->hostname, sh->port, via,
	    sh->nids, sh->nids == 1 ? "y" : "ies", sh->default_ids ?
	    " (ssh's default files)" : "", sh->keepalive_s, sh->alive_max,
	    sh->compress ? ", compression " : "", sh->compress ? comp : "",
	    !h->protected ? "" : protect ? ", protected: no jobs without "
	    "--write" : ", protected, --write given");
	ui_put(stdscr, y, 1, cols - 2, ROLE_HEADER, line, false);
	free(line);
	line = xasprintf("host keys: %s", sh->strict_why);
	ui_put(stdscr, y + 1, 1, cols - 2, ROLE_DIM, line, false);
	free(line);
	buf_init(&b, 4096);
	for (i = 0; i < sh->ignored.n; i++)
		(void)buf_addf(&b, "%s%s", i > 0 ? ", " : "ignored: ",
		    sh->ignored.v[i]);
	if (b.len > 0)
		ui_put(stdscr, y + 2, 1, cols - 2, ROLE_DIM, b.data, false);
	buf_release(&b);
}

static void
hosts_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct hosts_view *v = data;
	const struct lab_host *h;
	const struct sshhost *sh;
	struct transport_status st;
	char header[160], err[256], via[300], *line;
	const char *why;
	bool protect;
	size_t i;
	int y;

	v->app = a;
	if (v->timer == 0)
		v->timer = loop_add_timer(app_loop(a), HOSTS_TICK_MS, tick, v);
	snprintf(header, sizeof header, "%-16s %-18s %6s %8s %-9s %-8s %4s  %s",
	    "HOST", "STATE", "FOR", "RTT", "CALOPS", "CHIPS", "JOBS",
	    "WHY NOT UP");
	list_draw(&v->list, top, rows - 5, 0, cols, header, draw_host, v,
	    NULL);
	if ((i = list_selected(&v->list)) == SIZE_MAX)
		return;
	/* The selected host in full, at the bottom: where, and why. */
	h = host_at(a, v->rows[i].host);
	y = top + rows - 4;
	if (!host_status(a, h, &st, err, sizeof err)) {
		ui_put(stdscr, y, 1, cols - 2, ROLE_FAIL, err, false);
		return;
	}
	protect = labmodel_host_protected(app_labmodel(a), h->name);
	sh = ssh_transport_host(labmodel_transport(app_labmodel(a), h->name,
	    err, sizeof err));
	if (sh != NULL)
		draw_ssh(h, sh, &st, via_text(&st, via, sizeof via), protect,
		    y, cols);
	else {
		line = xasprintf("%s: this machine, jobs as children of "
		    "calops", h->name);
		ui_put(stdscr, y, 1, cols - 2, ROLE_HEADER, line, false);
		free(line);
	}
	why = st.ask != TRANSPORT_ASK_NONE ? st.ask_text : st.error;
	if (*why != '\0')
		ui_put(stdscr, y + 3, 1, cols - 2, st.state == TRANSPORT_UP ?
		    ROLE_DIM : ROLE_FAIL, why, false);
}

static int
hosts_action(struct app *a, void *data, enum action act)
{
	struct hosts_view *v = data;
	const struct lab_host *h;
	struct transport_status st;
	struct transport *t;
	char err[256];
	size_t i;

	if (act != ACT_RECONNECT && act != ACT_ACCEPT_KEY)
		return list_action(&v->list, act) ? R_REDRAW : R_NONE;
	if ((i = list_selected(&v->list)) == SIZE_MAX ||
	    (h = host_at(a, v->rows[i].host)) == NULL)
		return R_NONE;
	if ((t = labmodel_transport(app_labmodel(a), h->name, err,
	    sizeof err)) == NULL) {
		app_message(a, true, "%s", err);
		return R_REDRAW;
	}
	transport_status(t, &st);
	if (act == ACT_RECONNECT && st.ask == TRANSPORT_ASK_PASSPHRASE) {
		/* Waiting for a passphrase whose question was put away. */
		app_ask_host(a, h->name);
		return R_REDRAW;
	}
	if (act == ACT_RECONNECT) {
		if (h->transport == LAB_LOCAL ||
		    !transport_state_down(st.state)) {
			app_message(a, false, "%s is %s: nothing to do",
			    h->name, transport_state_name(st.state));
			return R_REDRAW;
		}
		transport_reconnect(t);
		app_message(a, false, "connecting to %s again", h->name);
		return R_REDRAW;
	}
	if (st.ask != TRANSPORT_ASK_KEY) {
		app_message(a, false, "%s has no unknown host key to accept",
		    h->name);
		return R_REDRAW;
	}
	app_ask_host(a, h->name);
	return R_REDRAW;
}

static int
hosts_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct hosts_view *v = data;

	(void)a;
	(void)twice;
	return list_click(&v->list, y, x) ? R_REDRAW : R_NONE;
}

static void
hosts_status(struct app *a, void *data, char *buf, size_t len)
{
	const struct lab *lab = labmodel_lab(app_labmodel(a));
	struct transport_status st;
	size_t i, up = 0, asking = 0;
	char err[256];

	(void)data;
	for (i = 0; i < lab->nhosts; i++) {
		if (!host_status(a, &lab->hosts[i], &st, err, sizeof err))
			continue;
		up += st.state == TRANSPORT_UP;
		asking += st.ask != TRANSPORT_ASK_NONE;
	}
	snprintf(buf, len, "%zu of %zu hosts up%s", up, lab->nhosts,
	    asking > 0 ? " · a host asks something: see WHY NOT UP" : "");
}

static const struct keybinding hosts_keys[] = {
	{ 'c', ACT_RECONNECT, "c" },
	{ 'a', ACT_ACCEPT_KEY, "a" },
	{ 0, ACT_NONE, NULL },
};

static const struct view_note hosts_notes[] = {
	{ "up", "connected; calops answers there" },
	{ "stale", "no byte from the host for 2 x its keepalive" },
	{ "disconnected", "lost (3 x keepalive, or the socket closed)" },
	{ "retry #n in s", "reconnecting, with backoff from 1 s to 60 s" },
	{ "refused", "host key, authentication or calops there: tried "
	    "again only on c (or a, for an unknown key)" },
	{ "FOR", "how long the host has been in its state" },
	{ "JOBS", "this console's jobs running there" },
	{ "host keys", "the selected host's policy for a key known_hosts "
	    "does not hold, and which setting won (share/doc/lab.md)" },
	{ "ignored", "ssh_config keywords calops does not act on, each "
	    "with the line that applies" },
	{ "compression", "zlib asked for (lab compression: true, or "
	    "Compression yes) and what the host agreed to" },
	{ "via NAME", "a jump host on the way to the host above (ProxyJump)" },
	{ NULL, NULL },
};

const struct view_ops hosts_view = {
	.title = "Hosts",
	.keys = hosts_keys,
	.notes = hosts_notes,
	.open = hosts_open,
	.close = hosts_close,
	.draw = hosts_draw,
	.action = hosts_action,
	.update = hosts_refresh,
	.click = hosts_click,
	.status = hosts_status,
};
