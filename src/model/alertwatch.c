/* alertwatch.c: a lab's alert rules judged headless (see alertwatch.h). */
#include "calops.h"

#include <math.h>
#include <time.h>

#include "alert/alerteval.h"
#include "alert/alerthook.h"
#include "alert/alertjournal.h"
#include "alert/alertmetric.h"
#include "alert/alertrule.h"
#include "job/jobevent.h"
#include "lab/labmodel.h"
#include "loop/loop.h"
#include "model/alertwatch.h"
#include "model/boardsrc.h"
#include "remote/lab.h"
#include "remote/transport.h"

/* A soak followed by the metric kinds, over the store it was made for. */
struct soak {
	char			*host, *id;
	const struct metrics	*m;
	struct alertmetric	*am;
	/* the job it was last found for: most lookups are that one */
	const struct ljob	*job;
	/* the job's events when last judged: none since, nothing to judge */
	uint64_t		 events;
	bool			 judged;
};

/* A workspace of the lab and the gates' statuses last seen (-1: none),
 * from the journal's baseline before its first board. */
struct wsboard {
	struct alertwatch	*w;
	const char		*host, *path;	/* the lab's */
	struct boardsrc		*src;
	int			 status[GATE_COUNT];
	/* The statuses differ from the journal's last baseline. */
	bool			 unsaved;
	/* Its G0 SLA as last evaluated (in w->sla): what its soaks are
	 * judged by. */
	struct alertsla		*sla;
};

struct alertwatch {
	struct loop		*loop;
	struct labmodel		*lm;
	const struct lab	*lab;
	struct alertjournal	*j;
	alerthook_say_fn	 say;
	void			*arg;
	struct alerteval	*ae;
	struct alerthook	*hook;
	struct soak		*soaks;
	size_t			 nsoaks;
	struct wsboard		*ws;
	size_t			 nws;
	struct alertsla		*sla;		/* a lab workspace's each */
	bool			 baselines;	/* a gate.changed rule needs */
	long			 timer;
	char			**seen;		/* "host\nid": judged already */
	size_t			 nseen;
};

/* Every note into the journal, then to the hook. */
static void
flush(struct alertwatch *w)
{
	struct alertnote n;
	char err[512];

	while (alerteval_next(w->ae, &n)) {
		w->say(n.summary, w->arg);
		if (alertjournal_note(w->j, &n, (double)time(NULL), err,
		    sizeof err) != 0)
			w->say(err, w->arg);
		else
			alerthook_send(w->hook, n.id, n.state ==
			    ALERT_RESOLVED);
		alerteval_note_release(&n);
	}
}

/* Whether soak s is job j's. */
static bool
soak_is(const struct soak *s, const struct ljob *j)
{
	return strcmp(s->id, j->id) == 0 && strcmp(s->host, j->host) == 0;
}

static struct soak *
soak_of(struct alertwatch *w, const struct ljob *j)
{
	struct soak *s = NULL;
	size_t i;

	/* The job it was found for last, checked (another job may have
	 * been made where a freed one was), before every soak's names:
	 * this runs for every soak on every event. */
	for (i = 0; i < w->nsoaks && s == NULL; i++)
		if (w->soaks[i].job == j && soak_is(&w->soaks[i], j))
			s = &w->soaks[i];
	for (i = 0; i < w->nsoaks && s == NULL; i++)
		if (soak_is(&w->soaks[i], j))
			s = &w->soaks[i];
	if (s == NULL) {
		w->soaks = xreallocarray(w->soaks, w->nsoaks + 1,
		    sizeof *w->soaks);
		s = &w->soaks[w->nsoaks++];
		s->host = xstrdup(j->host);
		s->id = xstrdup(j->id);
		s->m = j->metrics;
		s->am = alertmetric_new();
		s->judged = false;
	}
	s->job = j;
	/* The lab model dropped the soak's samples and loaded them again:
	 * the old store's series are gone. */
	if (s->m != j->metrics) {
		alertmetric_free(s->am);
		s->am = alertmetric_new();
		s->m = j->metrics;
		s->judged = false;
	}
	return s;
}

const struct alertsla *
alertwatch_sla_of(const struct labmodel *lm, const struct alertsla *sla,
    const char *host, const char *workspace)
{
	static const struct alertsla none = { NAN, NAN, NAN };
	const struct lab *lab = labmodel_lab(lm);
	const char *ws = labmodel_host_workspace(lm, host, workspace);
	size_t i;

	for (i = 0; ws != NULL && i < lab->nworkspaces; i++)
		if (strcmp(lab->workspaces[i].host, host) == 0 &&
		    strcmp(lab->workspaces[i].path, ws) == 0)
			return &sla[i];
	return &none;
}

/* The metric kinds over every soak whose samples are loaded and grew
 * since it was last judged (what it judges is the samples, on their own
 * clock: nothing new, nothing to tell), or over all with all (the SLA
 * they compare with changed). */
static void
judge_soaks(struct alertwatch *w, bool all)
{
	struct ljob *j;
	struct soak *s;
	size_t i;

	for (i = 0; i < labmodel_njobs(w->lm); i++) {
		j = labmodel_job(w->lm, i);
		if (j->kind != LJOB_SOAK || j->metrics == NULL ||
		    j->id == NULL || !isfinite(j->last_ts))
			continue;
		s = soak_of(w, j);
		if (!all && s->judged && s->events == j->events)
			continue;
		s->judged = true;
		s->events = j->events;
		alertmetric_judge(s->am, w->ae, j->metrics, j->id,
		    alertwatch_sla_of(w->lm, w->sla, j->host, j->workspace),
		    j->last_ts);
	}
}

/* host.down over every host, disk.full over every live job. */
static void
judge_hosts(struct alertwatch *w, double now)
{
	struct alert_subject s = { NULL, ALERT_NONE, NULL, NULL, ALERT_NONE,
	    NULL };
	struct transport_status st;
	struct transport *t;
	struct ljob *j;
	char err[256], what[600];
	bool down;
	size_t i;

	for (i = 0; i < w->lab->nhosts; i++) {
		s.host = w->lab->hosts[i].name;
		if ((t = labmodel_transport(w->lm, s.host, err, sizeof err)) ==
		    NULL)
			continue;
		transport_status(t, &st);
		down = st.state == TRANSPORT_DISCONNECTED ||
		    st.state == TRANSPORT_RECONNECTING ||
		    st.state == TRANSPORT_REFUSED;
		snprintf(what, sizeof what, "%s%s%s",
		    transport_state_name(st.state), st.error[0] != '\0' ?
		    ": " : "", st.error);
		alerteval_cond(w->ae, ALERT_HOST, &s, down, down ?
		    (double)(loop_now_ms() - st.since_ms) / 1000 : 0, what,
		    now);
	}
	for (i = 0; i < labmodel_njobs(w->lm); i++) {
		j = labmodel_job(w->lm, i);
		if (j->id == NULL || !labmodel_job_live(j))
			continue;
		s.host = j->host;
		s.job = j->id;
		snprintf(what, sizeof what, "cannot write its events: %s",
		    j->stalled_why);
		alerteval_cond(w->ae, ALERT_DISK, &s, j->stalled_since != 0,
		    (double)j->lost_lines, j->stalled_since != 0 ? what :
		    "writes its events again", now);
		s.job = NULL;
	}
}

static void
tick(struct loop *l, void *arg)
{
	struct alertwatch *w = arg;
	double now = (double)time(NULL);

	w->timer = loop_add_timer(l, ALERTWATCH_TICK_MS, tick, w);
	judge_hosts(w, now);
	judge_soaks(w, false);
	alerteval_tick(w->ae, now);
	flush(w);
}

void
alertwatch_lab_changed(struct alertwatch *w)
{
	size_t i;

	for (i = 0; i < w->nws; i++)
		boardsrc_host_changed(w->ws[i].src);
	judge_soaks(w, false);
	flush(w);
}

/* A job ended failed, killed or lost at start: job.failed. */
static void
job_failed(struct alertwatch *w, const struct alert_subject *s, int code,
    const char *what, double start)
{
	alerteval_event(w->ae, ALERT_JOB, s, code, what, start);
	flush(w);
}

/* Whether host's job id was judged already; with mark, it is now. */
static bool
seen(struct alertwatch *w, const char *host, const char *id, bool mark)
{
	char *key = xasprintf("%s\n%s", host, id);
	size_t i;

	for (i = 0; i < w->nseen; i++)
		if (strcmp(w->seen[i], key) == 0) {
			free(key);
			return true;
		}
	if (!mark) {
		free(key);
		return false;
	}
	w->seen = xreallocarray(w->seen, w->nseen + 1, sizeof *w->seen);
	w->seen[w->nseen++] = key;
	return false;
}

void
alertwatch_job_ended(struct alertwatch *w, const struct ljob *j)
{
	struct alert_subject s = { j->host, ALERT_NONE, j->id, j->workspace,
	    j->gate >= 0 ? j->gate : ALERT_NONE, NULL };
	char what[700];

	if (j->id == NULL || (j->state != LJ_FAILED && j->state != LJ_KILLED &&
	    j->state != LJ_BROKEN))
		return;
	/* Once, whether its end came live or in a listing first. */
	if (seen(w, j->host, j->id, true))
		return;
	if (j->state == LJ_FAILED)
		snprintf(what, sizeof what, "%s failed: exit %d", j->label,
		    j->exit_code);
	else if (j->state == LJ_KILLED)
		snprintf(what, sizeof what, "%s killed by signal %d", j->label,
		    j->sig);
	else
		snprintf(what, sizeof what, "%s lost: %s", j->label, j->err);
	job_failed(w, &s, j->state == LJ_FAILED ? j->exit_code : -1, what,
	    (double)time(NULL));
}

/*
 * A job of a host that ended failed, killed or lost, as the lab model's
 * poll tells it (labpoll.h: once, in the first list after its end, whoever
 * started it, never one that had ended before the host was first listed)
 * fires job.failed once, unless its end came live already.
 */
void
alertwatch_host_ended(struct alertwatch *w, const struct ljob_end *e)
{
	struct alert_subject s = { e->host, ALERT_NONE, e->id, NULL,
	    ALERT_NONE, NULL };
	bool failed = strcmp(e->state, "failed") == 0,
	    killed = strcmp(e->state, "killed") == 0;
	char what[700];

	if (!failed && !killed && strcmp(e->state, "lost") != 0)
		return;
	if (seen(w, e->host, e->id, true))
		return;
	if (failed)
		snprintf(what, sizeof what, "%s on %s failed: exit %d",
		    e->command, e->host, e->exit_code);
	else if (killed)
		snprintf(what, sizeof what, "%s on %s killed by signal %d",
		    e->command, e->host, e->sig);
	else
		snprintf(what, sizeof what, "%s on %s lost: its supervisor is "
		    "gone", e->command, e->host);
	/* Started when the host says it ended: a standby that kept it
	 * (alertsend.h) gives it the id its sender would have. */
	job_failed(w, &s, failed ? e->exit_code : -1, what,
	    isfinite(e->ended) ? e->ended : (double)time(NULL));
}

/* The gates' statuses judged on b into the journal, when a gate.changed
 * rule is in force (the next sender compares its first board with them)
 * and they differ from its last baseline there. */
static void
save_baseline(struct wsboard *b)
{
	const char *names[GATE_COUNT];
	char err[512];
	int g;

	if (!b->w->baselines || !b->unsaved)
		return;
	for (g = 0; g < GATE_COUNT; g++)
		names[g] = b->status[g] < 0 ? NULL :
		    gate_status_name((enum gate_status)b->status[g]);
	if (alertjournal_baseline(b->w->j, b->host, b->path, names,
	    GATE_COUNT, (double)time(NULL), err, sizeof err) != 0)
		b->w->say(err, b->w->arg);
	else
		b->unsaved = false;
}

/* A gate status by its name, or -1. */
static int
status_of(const char *name)
{
	int st;

	for (st = GS_PENDING; name != NULL && st <= GS_RUNNING; st++)
		if (strcmp(gate_status_name((enum gate_status)st), name) == 0)
			return st;
	return -1;
}

void
alertwatch_baseline(const struct alertjournal *j, const char *host,
    const char *path, int status[GATE_COUNT])
{
	const struct alertbaseline *b = alertjournal_find_baseline(j, host,
	    path);
	const char *changed = alertrule_kind_name(ALERT_GATE_CHANGED);
	const struct alertentry *e;
	size_t i, seq = b != NULL ? b->seq : 0;
	int g;

	for (g = 0; g < GATE_COUNT; g++)
		status[g] = b != NULL && (size_t)g < b->nstatus ?
		    status_of(b->status[g]) : -1;
	/* A gate.changed journaled after the baseline (its sender ended
	 * before it wrote the next one): the status the gate went to. */
	for (i = seq > j->dropped ? seq - j->dropped : 0; i < j->n; i++) {
		e = &j->e[i];
		if (e->kind != NULL && strcmp(e->kind, changed) == 0 &&
		    e->host != NULL && strcmp(e->host, host) == 0 &&
		    e->workspace != NULL && strcmp(e->workspace, path) == 0 &&
		    e->gate >= 0 && e->gate < GATE_COUNT &&
		    isfinite(e->value) && e->value >= GS_PENDING &&
		    e->value <= GS_RUNNING)
			status[e->gate] = (int)e->value;
	}
}

/* A workspace's evaluation ended: gate.red and gate.changed, its SLA. */
static void
board_changed(struct boardsrc *src, int what, void *arg)
{
	struct wsboard *b = arg;
	const struct board *bd = boardsrc_board(src);
	struct alert_subject s = { b->host, ALERT_NONE, NULL, b->path, 0,
	    NULL };
	struct alertsla sla;
	enum gate_status st;
	char text[96];
	double now;
	int g;

	if (!(what & BOARD_CHANGED) || !bd->now.valid)
		return;
	/* To the microsecond: an alert's id hashes its start to the
	 * millisecond, and two changes of a gate may come in one second (a
	 * sender's, then the next one's on taking over). */
	now = jobevent_now();
	sla = (struct alertsla){ bd->now.sla_ttft_ms_p99,
	    bd->now.sla_tpot_ms_p99, bd->now.sla_success_rate_min };
	if (memcmp(&sla, b->sla, sizeof sla) != 0) {
		*b->sla = sla;
		judge_soaks(b->w, true);
	}
	for (g = 0; g < GATE_COUNT; g++) {
		st = bd->now.gates[g].status;
		s.gate = g;
		snprintf(text, sizeof text, "G%d is %s", g,
		    gate_status_name(st));
		alerteval_cond(b->w->ae, ALERT_GATE_RED, &s, st == GS_FAIL,
		    st, text, now);
		if (b->status[g] != -1 && b->status[g] != (int)st) {
			snprintf(text, sizeof text, "G%d went from %s to %s",
			    g, gate_status_name(b->status[g]),
			    gate_status_name(st));
			alerteval_event(b->w->ae, ALERT_GATE_CHANGED, &s, st,
			    text, now);
		}
		b->unsaved |= b->status[g] != (int)st;
		b->status[g] = (int)st;
	}
	/* The changes told first, then what was judged: a sender that ends
	 * between the two leaves the next one the change in the journal. */
	flush(b->w);
	save_baseline(b);
}

static void
board_said(struct boardsrc *src, bool eval, const char *msg, void *arg)
{
	(void)src;
	(void)eval;
	(void)msg;
	(void)arg;
}

/* A board source for each workspace of the lab, watched. */
static void
watch_boards(struct alertwatch *w)
{
	const struct boardsrc_cb cb = { board_changed, board_said, NULL };
	struct boardsrc_opts o = { .watch = true, .debounce_ms = 500 };
	struct boardsrc_cb c;
	size_t i;

	w->ws = xcalloc(w->lab->nworkspaces + 1, sizeof *w->ws);
	w->sla = xcalloc(w->lab->nworkspaces + 1, sizeof *w->sla);
	for (i = 0; i < w->lab->nworkspaces; i++) {
		w->ws[i].w = w;
		w->ws[i].host = w->lab->workspaces[i].host;
		w->ws[i].path = w->lab->workspaces[i].path;
		/* What the sender before judged last: a change it did not
		 * see is told on the first board. */
		alertwatch_baseline(w->j, w->ws[i].host, w->ws[i].path,
		    w->ws[i].status);
		w->sla[i] = (struct alertsla){ NAN, NAN, NAN };
		w->ws[i].sla = &w->sla[i];
		o.host = w->ws[i].host;
		o.ws = w->ws[i].path;
		c = cb;
		c.arg = &w->ws[i];
		w->ws[i].src = boardsrc_new(w->loop, w->lm, &o, &c);
		boardsrc_start(w->ws[i].src);
	}
	w->nws = w->lab->nworkspaces;
}

/* The alerts the journal shows ongoing, taken back. */
static void
restore(struct alertwatch *w)
{
	const struct alertentry *e;
	struct alert_subject s;
	size_t i;

	for (i = 0; i < w->j->n; i++) {
		e = &w->j->e[i];
		if (!isnan(e->end) || e->rule == NULL || isnan(e->start))
			continue;
		s = (struct alert_subject){ e->host, e->chip < 0 ? ALERT_NONE :
		    e->chip, e->job, e->workspace, e->gate < 0 ? ALERT_NONE :
		    e->gate, e->metric };
		(void)alerteval_restore(w->ae, e->rule, &s, e->start, NAN);
	}
}

struct alertwatch *
alertwatch_new(struct loop *l, struct labmodel *lm, const struct lab *lab,
    struct alertjournal *j, alerthook_say_fn say, void *arg)
{
	struct alertwatch *w = xcalloc(1, sizeof *w);
	size_t i;

	w->loop = l;
	w->lm = lm;
	w->lab = lab;
	w->j = j;
	w->say = say;
	w->arg = arg;
	w->ae = alerteval_new(&lab->alerts);
	for (i = 0; i < lab->alerts.nrules; i++)
		w->baselines |= lab->alerts.rules[i].kind ==
		    ALERT_GATE_CHANGED;
	w->hook = alerthook_new(l, lab->alert_hook.argv, j, say, arg);
	alerthook_set_timing(w->hook, (long)(lab->alerts.timeout_s * 1000),
	    (long)(lab->alerts.backoff_s * 1000), lab->alerts.tries);
	restore(w);
	(void)alerthook_resume(w->hook);
	watch_boards(w);
	w->timer = loop_add_timer(l, ALERTWATCH_TICK_MS, tick, w);
	return w;
}

void
alertwatch_free(struct alertwatch *w)
{
	size_t i;

	if (w == NULL)
		return;
	loop_del_timer(w->loop, w->timer);
	for (i = 0; i < w->nseen; i++)
		free(w->seen[i]);
	free(w->seen);
	for (i = 0; i < w->nws; i++)
		boardsrc_free(w->ws[i].src);
	for (i = 0; i < w->nsoaks; i++) {
		free(w->soaks[i].host);
		free(w->soaks[i].id);
		alertmetric_free(w->soaks[i].am);
	}
	free(w->soaks);
	free(w->ws);
	free(w->sla);
	alerthook_free(w->hook);
	alerteval_free(w->ae);
	free(w);
}

struct alerthook *
alertwatch_hook(struct alertwatch *w)
{
	return w->hook;
}
