/*
 * labpoll.c: the hosts' job lists, asked for in the loop, and the jobs the
 * model did not start taken in (labpoll.h).
 */
#include "calops.h"

#include <math.h>

#include "base/buf.h"
#include "base/strv.h"
#include "job/jobevent.h"
#include "lab/labcmd.h"
#include "lab/labmodel_int.h"
#include "lab/labpoll.h"
#include "lab/labstream.h"
#include "proto/hostcmd.h"
#include "remote/transport.h"
#include "vocab/gateid.h"

#define LABPOLL_OUT_MAX	(8u << 20)	/* of one `jobs --json` */

/* Whether the model should take in job hj of host h (as of now). */
static bool
wanted(const struct labmodel *lm, const struct lhost *h,
    const struct hostcmd_job *hj, double started)
{
	const struct ljob *oldest;

	if (labmodel_find(lm, h->h->name, hj->id) != NULL || hj->argc == 0 ||
	    strcmp(hj->state, "corrupt") == 0)
		return false;
	if (strcmp(hj->state, "running") == 0)
		return true;
	if (jobevent_now() - started > LABPOLL_RECENT_S)
		return false;
	/* Full: only one newer than the oldest kept, or it would go again
	 * at once and be taken in again at the next ask. */
	oldest = lm->njobs > 0 ? &lm->jobs[lm->njobs - 1]->pub : NULL;
	return lm->njobs < LAB_JOBS_MAX || (oldest != NULL &&
	    started > oldest->started);
}

/* The job as the model holds one it started (labmodel_start): from what
 * its argv says it is (labcmd_job_describe) and its record on the host. */
static struct ljob_int *
job_of(struct labmodel *lm, struct lhost *h, const struct hostcmd_job *hj,
    const struct labcmd_job *d, double started)
{
	struct ljob_int *j = xcalloc(1, sizeof *j);
	const char *actor;
	struct buf b;
	size_t i;

	j->pub.host = xstrdup(h->h->name);
	j->pub.id = xstrdup(hj->id);
	j->pub.workspace = labmodel_ws_key(h, d->ws);
	j->pub.kind = d->kind;
	j->pub.gate = d->gate;
	j->pub.chip = d->chip;
	j->pub.scenario = d->scenario != NULL ? xstrdup(d->scenario) : NULL;
	j->pub.chips = xcalloc(d->nchips + 1, sizeof *j->pub.chips);
	for (i = 0; i < d->nchips; i++)
		j->pub.chips[j->pub.nchips++] = d->chips[i];
	j->pub.target_s = d->kind == LJOB_SOAK ? (d->target_s > 0 ?
	    d->target_s : 86400) : 0;
	buf_init(&b, 64 << 10);
	labcmd_join_argv(hj->argv, &b);
	buf_addc(&b, '\0');
	j->pub.command = buf_detach(&b, NULL);
	j->pub.label = xstrdup(d->label);
	j->pub.started = started;
	actor = json_string_value(json_object_get(hj->record, "actor"));
	j->pub.actor = actor != NULL ? xstrdup(actor) : NULL;
	/* Not this console's action: nothing of it goes to the action
	 * log. */
	j->outcome_logged = true;
	labmodel_job_setup(lm, j, true);
	/* Running only once its host says so, as a job found in a mirror,
	 * and caught up with once as far as its list said. */
	labstream_catching_up(j);
	labstream_catchup(j, hj->last_seq);
	return j;
}

/* Take in job hj of host h, which d describes: its record beside a new
 * mirror, then its events from the first.  The job, or NULL with err (its
 * mirror refused). */
static struct ljob_int *
take_one(struct labmodel *lm, struct lhost *h, const struct hostcmd_job *hj,
    const struct labcmd_job *d, double started, char *err, size_t errlen)
{
	struct ljob_int *j = job_of(lm, h, hj, d, started);

	if (labmodel_host_dir(lm, h->h->name, err, errlen) != 0 ||
	    labmodel_job_record(j, err, errlen) != 0) {
		labstream_job_free(j);
		return NULL;
	}
	labmodel_job_insert(lm, j);
	labstream_follow(j);
	return j;
}

void
labpoll_take(struct labmodel *lm, struct lhost *h, struct hostcmd_job *jobs,
    size_t n)
{
	double now = jobevent_now(), started;
	const struct ljob *held;
	struct labcmd_job d;
	bool took = false;
	char err[512];
	size_t i;

	if (lm->observer || lm->streams == NULL)
		return;
	/* `jobs` lists them oldest first: each goes first in the model, so
	 * the newest ends on top. */
	for (i = 0; i < n; i++) {
		/* A job held: how far its host's events go, for one that
		 * catches up (labstream.h). */
		if ((held = labmodel_find(lm, h->h->name, jobs[i].id)) !=
		    NULL)
			labstream_catchup((struct ljob_int *)held,
			    jobs[i].last_seq);
		/* Its start on the console's clock: the host's may differ. */
		started = now - (isfinite(jobs[i].age) ? jobs[i].age : 0);
		/* Not a lab job: the Jobs screen lists it. */
		if (!wanted(lm, h, &jobs[i], started) ||
		    labcmd_job_describe(jobs[i].argv, jobs[i].argc, &d) != 0)
			continue;
		/* A failure is said; it is asked about again at the next
		 * list. */
		if (take_one(lm, h, &jobs[i], &d, started, err, sizeof err) !=
		    NULL)
			took = true;
		else
			labmodel_warn(lm, "job %s on %s cannot be followed: %s",
			    jobs[i].id, h->h->name, err);
		labcmd_job_release(&d);
	}
	if (took)
		labmodel_changed(lm);
}

/* A calops-jobs/v1 entry's argv (borrowed) as words into w; 0, or -1
 * when it has none or a word is not a string. */
static int
entry_argv(json_t *record, struct strv *w)
{
	json_t *argv = json_object_get(record, "argv"), *a;
	size_t i;

	if (!json_is_array(argv) || json_array_size(argv) == 0)
		return -1;
	json_array_foreach(argv, i, a) {
		if (!json_is_string(a)) {
			strv_free(w);
			return -1;
		}
		strv_add(w, xstrdup(json_string_value(a)));
	}
	return 0;
}

bool
labpoll_entry_kind(json_t *record, enum ljob_kind *kind)
{
	struct strv w = { NULL, 0, 0 };
	struct labcmd_job d;
	int rc;

	if (entry_argv(record, &w) != 0)
		return false;
	if ((rc = labcmd_job_describe(w.v, w.n, &d)) == 0) {
		*kind = d.kind;
		labcmd_job_release(&d);
	}
	strv_free(&w);
	return rc == 0;
}

const struct ljob *
labpoll_take_entry(struct labmodel *lm, const char *host, json_t *record,
    double age, char *err, size_t errlen)
{
	struct hostcmd_job hj = { .exit_code = -1 };
	struct strv w = { NULL, 0, 0 };
	struct labcmd_job d;
	const struct ljob *known;
	struct ljob_int *j;
	struct lhost *h;

	hj.id = (char *)json_string_value(json_object_get(record, "id"));
	if (hj.id == NULL || entry_argv(record, &w) != 0) {
		errbuf_set(err, errlen, "its host lists no id or command");
		return NULL;
	}
	if ((known = labmodel_find(lm, host, hj.id)) != NULL) {
		strv_free(&w);
		return known;
	}
	if (lm->observer) {
		strv_free(&w);
		errbuf_set(err, errlen, "%s", labmodel_start_refused(lm));
		return NULL;
	}
	if ((h = labmodel_host_at(lm, host)) == NULL) {
		strv_free(&w);
		errbuf_set(err, errlen, "no host '%s' in the lab file", host);
		return NULL;
	}
	hj.argv = w.v;
	hj.argc = w.n;
	hj.record = record;
	hj.last_seq = hostcmd_job_last_seq(record);
	if (labcmd_job_describe(hj.argv, hj.argc, &d) != 0) {
		strv_free(&w);
		errbuf_set(err, errlen, "not a lab job's command");
		return NULL;
	}
	j = take_one(lm, h, &hj, &d, jobevent_now() - (isfinite(age) ? age :
	    0), err, errlen);
	labcmd_job_release(&d);
	strv_free(&w);
	if (j == NULL)
		return NULL;
	labmodel_changed(lm);
	return &j->pub;
}

/* ---- what ended ---- */

/* Whether host h told id already (or found it lost at its first list). */
static bool
told(const struct lhost *h, const char *id)
{
	size_t i;

	for (i = h->told.n; i > 0; i--)
		if (strcmp(h->told.v[i - 1], id) == 0)
			return true;
	return false;
}

/* The host's clock when it made the list: a job's start plus its age. */
static double
list_clock(const struct hostcmd_jobs *jobs)
{
	double t = -INFINITY, s;
	size_t i;

	for (i = 0; i < jobs->n; i++) {
		s = json_number_value(json_object_get(jobs->v[i].record,
		    "started"));
		if (isfinite(jobs->v[i].age) && s + jobs->v[i].age > t)
			t = s + jobs->v[i].age;
	}
	return t;
}

/* Tell the owner of one job that ended. */
static void
tell(struct labmodel *lm, struct lhost *h, const struct hostcmd_job *hj)
{
	struct ljob_end e = { h->h->name, hj->id, hj->state, hj->exit_code,
	    hj->sig, NAN, NULL, NULL };
	json_t *ended = json_object_get(hj->record, "ended");
	struct buf b;

	buf_init(&b, 64 << 10);
	labcmd_join_argv(hj->argv, &b);
	buf_addc(&b, '\0');
	e.command = b.data;
	if (json_is_number(ended))
		e.ended = json_number_value(ended);
	e.actor = json_string_value(json_object_get(hj->record, "actor"));
	lm->cb.host_ended(lm, &e, lm->cb.arg);
	buf_release(&b);
}

/*
 * Every job of a list that has ended (done, failed, killed or lost) and
 * was not told yet is told, once: news when it ended after the host's
 * first list (a lost one: when it was not lost then), history before,
 * which is remembered untold.
 */
static void
tell_ended(struct labmodel *lm, struct lhost *h, struct hostcmd_jobs *jobs)
{
	const struct hostcmd_job *hj;
	bool first = isnan(h->first_list), lost;
	double ended;
	size_t i;

	if (first)
		h->first_list = list_clock(jobs);
	for (i = 0; i < jobs->n; i++) {
		hj = &jobs->v[i];
		lost = strcmp(hj->state, "lost") == 0;
		if (!lost && strcmp(hj->state, "done") != 0 &&
		    strcmp(hj->state, "failed") != 0 &&
		    strcmp(hj->state, "killed") != 0)
			continue;
		ended = json_number_value(json_object_get(hj->record,
		    "ended"));
		if ((lost ? first : ended <= h->first_list) || told(h, hj->id))
		{
			if (lost && first)
				strv_add(&h->told, xstrdup(hj->id));
			continue;
		}
		strv_add(&h->told, xstrdup(hj->id));
		if (lm->cb.host_ended != NULL)
			tell(lm, h, hj);
	}
}

/* ---- fault jobs ---- */

/* Whether a job's argv is a fault run's or G7's whole job's. */
static bool
runs_faults(const struct hostcmd_job *hj)
{
	struct labcmd_job d;
	bool yes;

	if (hj->argc == 0 || labcmd_job_describe(hj->argv, hj->argc, &d) != 0)
		return false;
	yes = d.kind == LJOB_FAULT || (d.kind == LJOB_GATE &&
	    gateid_job(d.gate) == GATEJOB_SUITE);
	labcmd_job_release(&d);
	return yes;
}

static double
started_of(json_t *record)
{
	return json_number_value(json_object_get(record, "started"));
}

/* Whether two entries of one job say the same of how it stands (its age
 * grows at each list, and is no news). */
static bool
same_state(json_t *a, json_t *b)
{
	static const char *const keys[] = { "state", "exit_code", "signal",
	    "ended" };
	json_t *x, *y;
	size_t i;

	for (i = 0; i < nitems(keys); i++) {
		x = json_object_get(a, keys[i]);
		y = json_object_get(b, keys[i]);
		if ((x == NULL) != (y == NULL) || (x != NULL &&
		    !json_equal(x, y)))
			return false;
	}
	return true;
}

/* Job hj's entry in h's fault jobs, in place of the one it had; true when
 * that changes how one stands. */
static bool
keep_fault_job(struct lhost *h, const struct hostcmd_job *hj)
{
	size_t i, old = 0;
	bool same;

	for (i = 0; i < h->nfjobs; i++)
		if (strcmp(json_string_value(json_object_get(h->fjobs[i],
		    "id")), hj->id) == 0) {
			same = same_state(h->fjobs[i], hj->record);
			json_decref(h->fjobs[i]);
			h->fjobs[i] = json_incref(hj->record);
			return !same;
		}
	if (h->nfjobs == LABPOLL_FAULT_JOBS) {
		for (i = 1; i < h->nfjobs; i++)
			if (started_of(h->fjobs[i]) < started_of(h->fjobs[old]))
				old = i;
		if (started_of(hj->record) <= started_of(h->fjobs[old]))
			return false;
		json_decref(h->fjobs[old]);
		h->fjobs[old] = h->fjobs[--h->nfjobs];
	}
	h->fjobs = xreallocarray(h->fjobs, h->nfjobs + 1, sizeof *h->fjobs);
	h->fjobs[h->nfjobs++] = json_incref(hj->record);
	return true;
}

/* A list's fault and G7 jobs kept; whether what they say changed. */
static bool
keep_fault_jobs(struct lhost *h, const struct hostcmd_jobs *jobs)
{
	bool changed = false;
	size_t i;

	for (i = 0; i < jobs->n; i++)
		if (runs_faults(&jobs->v[i]) &&
		    keep_fault_job(h, &jobs->v[i]))
			changed = true;
	return changed;
}

json_t *const *
labpoll_fault_jobs(const struct labmodel *lm, const char *host, size_t *n)
{
	const struct lhost *h = labmodel_host_at(lm, host);

	*n = h != NULL ? h->nfjobs : 0;
	return h != NULL ? h->fjobs : NULL;
}

void
labpoll_list(struct labmodel *lm, struct lhost *h, struct hostcmd_jobs *jobs)
{
	labpoll_take(lm, h, jobs->v, jobs->n);
	tell_ended(lm, h, jobs);
	if (keep_fault_jobs(h, jobs))
		labmodel_changed(lm);
}

/* ---- asking ---- */


static void
list_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct lhost *h = arg;

	(void)rs;
	if (from_stderr)
		return;
	if (cut || buf_add(&h->list_out, line, len) != 0 ||
	    buf_addc(&h->list_out, '\n') != 0)
		h->list_cut = true;
}

/* The cursor of the list that came, for the next ask; an answer to
 * --since without one is an old calops'. */
static void
took_cursor(struct lhost *h, struct hostcmd_jobs *jobs)
{
	if (!h->asked_since)
		return;
	free(h->cursor);
	h->cursor = jobs->cursor;
	jobs->cursor = NULL;
	if (h->cursor == NULL)
		h->no_since = true;
}

/* The list came: read it (a list cut or unreadable is said once, and
 * asked for again at the next turn). */
static void
list_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct lhost *h = arg;
	struct hostcmd_jobs jobs;
	char why[256];

	(void)rs;
	h->list = NULL;
	/* A calops from before `jobs --since`: polled as before. */
	if (h->asked_since && ex->code == HOSTCMD_USAGE) {
		h->no_since = true;
		h->lists = 0;
	}
	if (ex->code == 0 && !h->list_cut) {
		if (hostcmd_jobs_parse(h->list_out.data, h->list_out.len,
		    &jobs, why, sizeof why) == 0) {
			labpoll_list(h->lm, h, &jobs);
			took_cursor(h, &jobs);
			hostcmd_jobs_release(&jobs);
			h->list_said = false;
		} else if (!h->list_said) {
			labmodel_warn(h->lm, "%s: its job list cannot be "
			    "read: %s", h->h->name, why);
			h->list_said = true;
		}
	}
	buf_release(&h->list_out);
	h->list_cut = false;
}

static const struct rstream_cb list_cb = { list_line, list_done };

/* Ask host h, up and not answering already, for its jobs. */
static void
ask_host(struct lhost *h)
{
	struct strv argv = { NULL, 0, 0 };
	char err[256];

	buf_init(&h->list_out, LABPOLL_OUT_MAX);
	/* What changed since the last list, with the running ones; of an
	 * old calops the running jobs each time, every job now and then
	 * (one that started and ended between two asks). */
	h->asked_since = !h->no_since;
	if (h->asked_since)
		hostcmd_jobs_since(&argv, h->cursor != NULL ? h->cursor : "0");
	else
		hostcmd_jobs(&argv, h->lists++ % LABPOLL_FULL_EVERY != 0);
	h->list = transport_exec(h->t, argv.v, &list_cb, h, err, sizeof err);
	strv_free(&argv);
}

/* Host h is not up: every job again once it is, asked of the calops it
 * runs then. */
static void
forget_list(struct lhost *h)
{
	h->lists = 0;
	free(h->cursor);
	h->cursor = NULL;
	h->no_since = false;
}

/* Ask each host that is up and not answering already for its jobs. */
static void
ask(struct loop *l, void *arg)
{
	struct labmodel *lm = arg;
	struct transport_status st;
	struct lhost *h;
	size_t i;

	lm->poll_timer = loop_add_timer(l, LABPOLL_MS, ask, lm);
	/* A watching console takes nothing in, but is told of ends and
	 * keeps the fault jobs. */
	if (lm->streams == NULL)
		return;
	for (i = 0; i < lm->nhosts; i++) {
		h = &lm->hosts[i];
		if (h->t == NULL || h->list != NULL)
			continue;
		transport_status(h->t, &st);
		if (st.state != TRANSPORT_UP) {
			forget_list(h);
			continue;
		}
		ask_host(h);
	}
}

void
labpoll_host_up(struct lhost *h)
{
	struct labmodel *lm = h->lm;

	if (lm->streams == NULL || lm->poll_timer == -1 || h->list != NULL)
		return;
	forget_list(h);
	ask_host(h);
}

void
labpoll_start(struct labmodel *lm)
{
	size_t i;

	for (i = 0; i < lm->nhosts; i++)
		lm->hosts[i].first_list = NAN;
	lm->poll_timer = loop_add_timer(lm->loop, 0, ask, lm);
}

void
labpoll_stop(struct labmodel *lm)
{
	size_t i;

	if (lm->poll_timer != -1)
		loop_del_timer(lm->loop, lm->poll_timer);
	lm->poll_timer = -1;
	for (i = 0; i < lm->nhosts; i++) {
		if (lm->hosts[i].list != NULL)
			transport_rstream_cancel(lm->hosts[i].list);
		lm->hosts[i].list = NULL;
		buf_release(&lm->hosts[i].list_out);
		free(lm->hosts[i].cursor);
		lm->hosts[i].cursor = NULL;
		strv_free(&lm->hosts[i].told);
		while (lm->hosts[i].nfjobs > 0)
			json_decref(lm->hosts[i].fjobs[--lm->hosts[i].nfjobs]);
		free(lm->hosts[i].fjobs);
		lm->hosts[i].fjobs = NULL;
	}
}
