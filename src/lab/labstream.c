/*
 * labstream.c: one job's event stream in the lab model (labmodel.h): its
 * record, the follow (follow.h) that resumes at the mirror's last seq + 1
 * (labmirror.c keeps the mirror), what each event changes in the model,
 * and a job taken over from another console.
 */
#include "calops.h"

#include <fcntl.h>
#include <math.h>
#include <unistd.h>

#include <jansson.h>

#include "base/fileio.h"
#include "base/statedir.h"
#include "base/text.h"
#include "job/jobevent.h"
#include "job/jobstore.h"
#include "lab/actionlog.h"
#include "lab/follow.h"
#include "lab/chipstep.h"
#include "lab/labmodel_int.h"
#include "lab/labstream.h"
#include "metrics/alerts.h"
#include "metrics/metrics.h"
#include "proto/event.h"
#include "proto/scenario.h"
#include "remote/transport.h"

static void	labstream_gone(struct ljob_int *j, const char *why);
static void	labstream_refuse(struct ljob_int *j);

/* follow restarts before the stream is broken */
#define RETRY_MAX	6
#define KEEP_RETRY_MS	2000	/* what could not be kept, tried again */
#define G7_STEPS	(1 + SCENARIO_COUNT) /* golden, then every fault */

static const char *const kind_names[] = {
	[LJOB_GATE] = "gate", [LJOB_SOAK] = "soak", [LJOB_FAULT] = "fault",
	[LJOB_GOLDEN] = "golden", [LJOB_CHIPSTEP] = "chip-step",
};

/* ---- the record beside the mirror ---- */

char *
labstream_meta_json(const struct ljob_int *ji)
{
	const struct ljob *j = &ji->pub;
	json_t *o, *chips = json_array();
	char *s;
	size_t i;

	for (i = 0; i < j->nchips; i++)
		json_array_append_new(chips, json_integer(j->chips[i]));
	/* The command and the names came from the user or a host: bytes that
	 * are not UTF-8 are kept as \xHH rather than lose the record. */
	o = json_pack("{s:i, s:o, s:o, s:s, s:i, s:i, s:o, s:f, s:o, s:o, "
	    "s:f}", "v", 1, "id", text_json(j->id), "host", text_json(j->host),
	    "kind", kind_names[j->kind], "gate", j->gate, "chip", j->chip,
	    "chips", chips, "target_s", j->target_s, "command",
	    text_json(j->command), "label", text_json(j->label), "started",
	    j->started);
	if (j->scenario != NULL)
		json_object_set_new(o, "scenario", text_json(j->scenario));
	if (ji->outcome_logged)
		json_object_set_new(o, "outcome_logged", json_true());
	if (j->workspace != NULL)
		json_object_set_new(o, "workspace", text_json(j->workspace));
	if (j->actor != NULL)
		json_object_set_new(o, "actor", text_json(j->actor));
	if (ji->own_sla)
		json_object_set_new(o, "sla", json_pack("{s:f, s:f, s:f}",
		    "ttft_ms_p99", ji->sla[0], "tpot_ms_p99", ji->sla[1],
		    "success_rate_min", ji->sla[2]));
	s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

/* A string member, or NULL. */
static const char *
str_of(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static double
num_or_nan(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

struct ljob_int *
labstream_job_from_meta(struct labmodel *lm, const char *path, char *err,
    size_t errlen)
{
	json_error_t je;
	json_t *o, *v;
	struct ljob_int *j;
	const char *id, *host, *kind, *cmd, *label;
	size_t i, k;
	int fd;

	/* Never through a link, nor another user's (statedir.h). */
	if ((fd = statedir_open_path(path, O_RDONLY, 0, err, errlen)) == -1)
		return NULL;
	o = json_loadfd(fd, JSON_REJECT_DUPLICATES, &je);
	close(fd);
	if (o == NULL) {
		errbuf_set(err, errlen, "'%s': %s at line %d, column %d",
		    path, je.text, je.line, je.column);
		return NULL;
	}
	id = str_of(o, "id");
	host = str_of(o, "host");
	kind = str_of(o, "kind");
	cmd = str_of(o, "command");
	label = str_of(o, "label");
	for (k = 0; kind != NULL && k < nitems(kind_names); k++)
		if (strcmp(kind, kind_names[k]) == 0)
			break;
	if (id == NULL || !jobstore_id_valid(id) || host == NULL ||
	    kind == NULL || k == nitems(kind_names) || cmd == NULL ||
	    label == NULL || !json_is_number(json_object_get(o, "started"))) {
		errbuf_set(err, errlen, "'%s': not a job record (id, host, "
		    "kind, command, label, started)", path);
		json_decref(o);
		return NULL;
	}
	j = xcalloc(1, sizeof *j);
	j->lm = lm;
	labmirror_init(&j->mirror, NULL);
	j->retry_timer = j->keep_timer = -1;
	j->pub.id = xstrdup(id);
	j->pub.host = xstrdup(host);
	j->pub.kind = (enum ljob_kind)k;
	j->pub.gate = (int)json_integer_value(json_object_get(o, "gate"));
	j->pub.chip = json_is_integer(json_object_get(o, "chip")) ?
	    (int)json_integer_value(json_object_get(o, "chip")) : -1;
	if (str_of(o, "scenario") != NULL)
		j->pub.scenario = xstrdup(str_of(o, "scenario"));
	if (str_of(o, "workspace") != NULL)
		j->pub.workspace = xstrdup(str_of(o, "workspace"));
	if (str_of(o, "actor") != NULL)
		j->pub.actor = xstrdup(str_of(o, "actor"));
	v = json_object_get(o, "chips");
	j->pub.chips = xcalloc(json_array_size(v) + 1, sizeof *j->pub.chips);
	for (i = 0; i < json_array_size(v); i++)
		if (json_is_integer(json_array_get(v, i)))
			j->pub.chips[j->pub.nchips++] =
			    (int)json_integer_value(json_array_get(v, i));
	j->pub.target_s = json_number_value(json_object_get(o, "target_s"));
	j->pub.command = xstrdup(cmd);
	j->pub.label = xstrdup(label);
	j->pub.started = json_number_value(json_object_get(o, "started"));
	j->outcome_logged = json_is_true(json_object_get(o, "outcome_logged"));
	if (json_is_object(v = json_object_get(o, "sla"))) {
		j->own_sla = true;
		j->sla[0] = num_or_nan(json_object_get(v, "ttft_ms_p99"));
		j->sla[1] = num_or_nan(json_object_get(v, "tpot_ms_p99"));
		j->sla[2] = num_or_nan(json_object_get(v, "success_rate_min"));
	}
	json_decref(o);
	return j;
}

/* ---- applying events ---- */

/* A fault event (protocol.md §3) into the model's results. */
static void
apply_fault(struct ljob_int *j, const json_t *o, double ts)
{
	struct lfault f = { 0 };
	const json_t *chip = json_object_get(o, "chip");

	/* Another workspace's result is not this lab's (labmodel.h). */
	if (!j->pub.here)
		return;
	f.host = j->pub.host;
	f.job = j->pub.id;
	f.scenario = (char *)str_of(o, "scenario");
	f.error_code = (char *)str_of(o, "error_code");
	if (f.scenario == NULL)
		return;
	if (f.error_code == NULL)
		f.error_code = "";
	f.chip = json_is_integer(chip) ? (int)json_integer_value(chip) :
	    j->pub.chip;
	f.structured = json_is_true(json_object_get(o, "structured_error"));
	f.aborted = json_is_true(json_object_get(o, "aborted"));
	f.recovered = json_is_true(json_object_get(o, "recovered"));
	f.recover_ms = json_number_value(json_object_get(o, "recover_ms"));
	f.ts = ts;
	f.job_started = j->pub.started;
	labmodel_add_fault(j->lm, &f);
}

/* The words of the action log's outcome for an end. */
static void
outcome_words(const struct ljob *j, char *buf, size_t len)
{
	if (j->sig != 0)
		errbuf_set(buf, len, "killed by signal %d", j->sig);
	else
		errbuf_set(buf, len, "%s exit %d%s%s",
		    j->exit_code == 0 ? "done" : "failed", j->exit_code,
		    j->result[0] != '\0' ? ", result " : "", j->result);
}

int
labstream_log_action(const struct ljob_int *j, const char *outcome)
{
	struct action_rec rec = { 0 };
	char err[512];

	rec.ts = outcome != NULL ? jobevent_now() : j->pub.started;
	rec.host = j->pub.host;
	rec.chip = j->pub.chip;
	rec.job = j->pub.id;
	rec.what = j->pub.label;
	rec.command = j->pub.command;
	rec.outcome = outcome;
	if (actionlog_append(&rec, err, sizeof err) == 0)
		return 0;
	labmodel_warn(j->lm, "%s", err);
	return -1;
}

/* Say in the job's record that its outcome is in the action log. */
static void
mark_outcome_logged(struct ljob_int *j)
{
	char err[256], *meta;

	j->outcome_logged = true;
	if (j->meta_path == NULL || j->lm->observer)
		return;
	meta = labstream_meta_json(j);
	if (fileio_replace(j->meta_path, meta, strlen(meta), 0600, false, err,
	    sizeof err) != 0)
		labmodel_warn(j->lm, "%s", err);
	free(meta);
}

/*
 * A job that failed before its runner reported anything (no progress,
 * metric, fault or result): the runner could not be started (exit 126 or
 * 127), or refused its command line (a usage error, commonly 2).  Said
 * with the exact command, so that a lab file's runner: that does not take
 * the console's command line (lab.md) shows how; G7's script names each
 * step that failed in the job's log.
 */
static void
say_runner_failed(struct ljob_int *j)
{
	const struct ljob *p = &j->pub;
	const char *how;

	if (p->sig != 0 || p->exit_code <= 0 || p->phase[0] != '\0' ||
	    p->result[0] != '\0' || !isnan(p->first_ts) || j->results > 0)
		return;
	how = p->exit_code == 126 || p->exit_code == 127 ?
	    "could not be started" : "exited";
	snprintf(j->pub.err, sizeof j->pub.err, "the runner %s (exit %d)",
	    how, p->exit_code);
	if (p->replaying)
		return;
	if (p->kind == LJOB_GATE)
		labmodel_warn(j->lm, "%s on %s: the runner %s before it "
		    "reported anything (exit %d): the job's log names the "
		    "command of each step that failed", p->label, p->host, how,
		    p->exit_code);
	else
		labmodel_warn(j->lm, "%s on %s: the runner %s before it "
		    "reported anything (exit %d); it ran: %s", p->label, p->host,
		    how, p->exit_code, p->command);
}

static void	keep_retry_later(struct ljob_int *j);

/* The end event: the job's final state, its outcome logged when live. */
static void
apply_end(struct ljob_int *j, const json_t *o)
{
	struct labmodel *lm = j->lm;
	const json_t *code = json_object_get(o, "exit_code");
	const json_t *sig = json_object_get(o, "signal");
	char words[160];

	j->ended = true;
	j->pub.exit_code = json_is_integer(code) ?
	    (int)json_integer_value(code) : -1;
	j->pub.sig = json_is_integer(sig) ? (int)json_integer_value(sig) : 0;
	if (j->pub.sig != 0)
		j->pub.state = LJ_KILLED;
	else
		j->pub.state = j->pub.exit_code == 0 ? LJ_DONE : LJ_FAILED;
	say_runner_failed(j);
	if (j->pub.alerts != NULL && !isnan(j->pub.last_ts))
		alerts_finish(j->pub.alerts, j->pub.last_ts);
	if (!j->pub.replaying) {
		/* The end is the last event: nothing more is appended. */
		labmirror_close(&j->mirror);
		if (lm->cb.ended != NULL)
			lm->cb.ended(lm, &j->pub, lm->cb.arg);
	}
	/*
	 * The outcome goes to the action log once: a console that died
	 * between mirroring the end and logging it logs it on replay, one
	 * that could not (a full disk) tries again (keep_retry()); the log
	 * keeps one (actionlog.h).  After the ended hook, so that what went
	 * wrong is the last word on the status line, not "done".
	 */
	if (!j->outcome_logged && !lm->observer) {
		outcome_words(&j->pub, words, sizeof words);
		if (labstream_log_action(j, words) == 0)
			mark_outcome_logged(j);
		else
			keep_retry_later(j);
	}
}

/* The events other than metrics and logs: rare, so jansson reads them. */
static void
apply_other(struct ljob_int *j, const struct event *ev, const char *line,
    size_t len)
{
	json_t *o, *m;
	double done, total;
	const char *s;

	/* A runner's log lines can come as fast as metrics and nothing
	 * here reads them (the Jobs screen's log tails the job itself): not
	 * parsed a second time. */
	switch (ev->type) {
	case EVENT_PROGRESS: case EVENT_FAULT: case EVENT_RESULT:
	case EVENT_END: case EVENT_GAP: case EVENT_STALLED:
	case EVENT_RESUMED:
		break;
	default:
		return;
	}
	if ((o = json_loadb(line, len, 0, NULL)) == NULL)
		return;
	switch (ev->type) {
	case EVENT_PROGRESS:
		if ((s = str_of(o, "phase")) != NULL)
			snprintf(j->pub.phase, sizeof j->pub.phase, "%s", s);
		done = json_number_value(json_object_get(o, "done"));
		total = json_number_value(json_object_get(o, "total"));
		if (j->pub.kind == LJOB_GATE) {
			/* The suite's steps, the running one in part. */
			j->pub.done = j->results + (total > 0 && done <= total ?
			    done / total : 0);
			j->pub.total = G7_STEPS;
			break;
		}
		j->pub.done = done;
		j->pub.total = total;
		break;
	case EVENT_FAULT:
		apply_fault(j, o, ev->ts);
		break;
	case EVENT_RESULT:
		if ((s = str_of(o, "status")) != NULL)
			snprintf(j->pub.result, sizeof j->pub.result, "%s", s);
		if (j->pub.kind == LJOB_GATE) {
			j->results++;
			j->pub.done = j->results;
			j->pub.total = G7_STEPS;
		}
		break;
	case EVENT_END:
		j->pub.stalled_since = 0;
		apply_end(j, o);
		break;
	case EVENT_GAP:
		/* Lines the host's disk could not take (protocol.md §3). */
		if (json_is_integer(m = json_object_get(o, "lost")) &&
		    json_integer_value(m) > 0)
			j->pub.lost_lines += (uint64_t)json_integer_value(m);
		break;
	case EVENT_STALLED:
		/* The supervisor cannot write the events, then it can. */
		m = json_object_get(o, "since");
		j->pub.stalled_since = json_number_value(m) > 0 &&
		    json_number_value(m) < EVENT_TS_MAX ? json_number_value(m) :
		    ev->ts;
		snprintf(j->pub.stalled_why, sizeof j->pub.stalled_why, "%s",
		    (s = str_of(o, "reason")) != NULL ? s : "cannot write");
		break;
	case EVENT_RESUMED:
		j->pub.stalled_since = 0;
		break;
	default:
		break;
	}
	json_decref(o);
}

/*
 * Once a job, when its store first refuses a new series (metrics.h: the
 * job's cap or the console's): the Soak screen's header counts what is not
 * kept from then on.
 */
static void
say_dropped(struct ljob_int *j)
{
	struct mdropped d;

	metrics_dropped(j->pub.metrics, &d);
	if (d.samples == 0)
		return;
	j->dropped_said = true;
	labmodel_warn(j->lm, "%s on %s: past its cap of %zu metric series%s "
	    "(a quarter of it kept for the names calops knows): samples of "
	    "new ones are counted, not kept", j->pub.label, j->pub.host, d.cap,
	    d.quota ? " in all jobs" : "");
}

/*
 * Once a job, when a metric event holds more than a struct event keeps
 * (event.h: 64 values, 16 labels, names of 1 to 64 bytes, label values of
 * 128): the event is valid and its mirror holds it whole, the screens show
 * what fits and say so (the Soak screen's header counts them).
 */
static void
say_capped(struct ljob_int *j, const struct event *ev)
{
	j->capped_said = true;
	labmodel_warn(j->lm, "%s on %s: an event of seq %lld has %zu values "
	    "and %zu labels past what the console shows (%d values, %d "
	    "labels, names of 1 to %d bytes, label values of %d): shown in "
	    "part, its mirror keeps it whole", j->pub.label, j->pub.host,
	    (long long)ev->seq, ev->values_not_kept, ev->labels_not_kept,
	    EVENT_VALUES_MAX, EVENT_LABELS_MAX, EVENT_NAME_MAX,
	    EVENT_LABEL_MAX);
}

void
labstream_apply(struct ljob_int *j, const struct event *ev, const char *line,
    size_t len)
{
	struct ljob *p = &j->pub;

	p->last_seq = ev->seq;
	p->events++;
	if (ev->type == EVENT_METRIC) {
		if (ev->values_not_kept > 0 || ev->labels_not_kept > 0) {
			p->capped++;
			/* Said live; a replay's are the Soak screen's count. */
			if (!j->capped_said && !p->replaying)
				say_capped(j, ev);
		}
		if (p->metrics == NULL)
			return;
		metrics_add_event(p->metrics, p->host, ev, NULL, 0);
		if (!j->dropped_said)
			say_dropped(j);
		if (isnan(p->first_ts) || ev->ts < p->first_ts)
			p->first_ts = ev->ts;
		if (isnan(p->last_ts) || ev->ts > p->last_ts)
			p->last_ts = ev->ts;
		if (p->alerts != NULL)
			alerts_observe(p->alerts, p->metrics, ev->ts);
		return;
	}
	if (p->state == LJ_STARTING || p->state == LJ_BROKEN)
		p->state = LJ_RUNNING;
	/* A release's chip step: what its approval signs or refuses
	 * (chipstep.h), from every line but metrics. */
	if (p->kind == LJOB_CHIPSTEP) {
		if (p->chipstep == NULL) {
			p->chipstep = xmalloc(sizeof *p->chipstep);
			chipstep_init(p->chipstep);
			snprintf(p->chipstep->job, sizeof p->chipstep->job,
			    "%s", p->id != NULL ? p->id : "");
		}
		chipstep_event(p->chipstep, line, len);
	}
	apply_other(j, ev, line, len);
}

/* Its stream has reached how far its host's events went (or nothing
 * said how far): running, if it was catching up. */
static void
caught_up(struct ljob_int *j)
{
	j->catching = false;
	j->pub.catchup_seq = 0;
	if (j->pub.state == LJ_CATCHING_UP)
		j->pub.state = LJ_RUNNING;
}

void
labstream_catching_up(struct ljob_int *j)
{
	j->pub.state = LJ_CATCHING_UP;
	j->catching = true;
}

void
labstream_catchup(struct ljob_int *j, int64_t seq)
{
	if (!j->catching || j->ended || seq <= 0)
		return;
	/* Reached already: the next event, if any, is live. */
	if (seq <= j->pub.last_seq) {
		j->catching = false;
		j->pub.catchup_seq = 0;
		return;
	}
	if (seq > j->pub.catchup_seq) {
		j->pub.catchup_seq = seq;
		labmodel_changed(j->lm);
	}
	/* Running from an event that came before the list did: short of
	 * what the host holds, it is catching up still. */
	if (j->pub.state == LJ_RUNNING)
		j->pub.state = LJ_CATCHING_UP;
}

/*
 * What this console could not keep (its disk full): a mirror write that
 * failed, an outcome not logged.  Tried again every KEEP_RETRY_MS once the
 * mirror's folder has room: the outcome is logged, and from what the
 * mirror holds the follow starts again at its end, so that the mirror
 * catches up with the host's stream in this session (events applied
 * already are mirrored, not applied again: on_event).
 */
static void
keep_retry(struct loop *l, void *arg)
{
	struct ljob_int *j = arg;
	char err[512];

	(void)l;
	j->keep_timer = -1;
	if (j->lm->observer || j->mirror.path == NULL ||
	    j->mirror.replay != NULL)
		return;
	if (!labmirror_has_room(&j->mirror)) {
		keep_retry_later(j);
		return;
	}
	if (j->ended && !j->outcome_logged) {
		outcome_words(&j->pub, err, sizeof err);
		if (labstream_log_action(j, err) != 0) {
			keep_retry_later(j);
			return;
		}
		mark_outcome_logged(j);
	}
	if (!j->mirror.failed)
		return;
	j->mirror.failed = false;
	if (labmirror_adopt(&j->mirror, err, sizeof err) != 0) {
		/* Not a mirror we can go on from: written no more. */
		if (j->mirror.refused != NULL)
			labstream_refuse(j);
		else
			labmodel_warn(j->lm, "%s", err);
		return;
	}
	if (j->follow != NULL) {
		follow_stop(j->follow);
		j->follow = NULL;
	}
	labstream_follow(j);
}

static void
keep_retry_later(struct ljob_int *j)
{
	if (j->keep_timer == -1 && !j->lm->observer)
		j->keep_timer = loop_add_timer(j->lm->loop, KEEP_RETRY_MS,
		    keep_retry, j);
}

/* ---- following ---- */

static void	retry_later(struct ljob_int *j, const char *why);
static void	flush_soon(struct ljob_int *j);

/* Whether this console writes the mirror and it lacks events applied. */
static bool
mirror_lacks(const struct ljob_int *j)
{
	return !j->lm->observer && !j->mirror.failed &&
	    j->mirror.seq < j->pub.last_seq;
}

/*
 * One live event: to the mirror first (written with the rest of this
 * turn's, labstream_flush_all), then into the model.  A console
 * that took over from another mirrors events it already applied while
 * watching (they are not applied again), and applies those it missed.
 */
static void
on_event(struct follow *f, const struct event *ev, const char *line,
    size_t len, void *arg)
{
	struct ljob_int *j = arg;
	char err[512];

	if (!j->lm->observer && ev->seq > j->mirror.seq) {
		/* The end is the last event: nothing more is appended, and
		 * it is written at once. */
		if (labmirror_append(&j->mirror, line, len, err,
		    sizeof err) != 0 || (ev->type == EVENT_END &&
		    labmirror_flush(&j->mirror, err, sizeof err) != 0)) {
			if (j->mirror.refused != NULL) {
				/* Not applied: nothing keeps it. */
				labstream_refuse(j);
				return;
			}
			labmodel_warn(j->lm, "%s", err);
			keep_retry_later(j);
		}
		j->mirror.seq = ev->seq;
		if (ev->type == EVENT_END)
			labmirror_close(&j->mirror);
		flush_soon(j);
	}
	j->pub.last_recv = jobevent_now();
	j->retries = 0;
	/* An event from the host now: a job caught up with is running (its
	 * end, if this is it, says otherwise at once); one whose host said
	 * how far its events went, once that far.  Until a list says, it
	 * still heeds one (labstream_catchup). */
	if (j->pub.catchup_seq > 0 && ev->seq >= j->pub.catchup_seq)
		caught_up(j);
	else if (j->pub.catchup_seq == 0 && j->pub.state == LJ_CATCHING_UP)
		j->pub.state = LJ_RUNNING;
	/* Lines the follower could not read as events (it drops them; the
	 * job's log says it refused them): counted on the job, never
	 * silent. */
	j->pub.bad_lines += follow_stats(f)->bad - j->follow_bad;
	j->follow_bad = follow_stats(f)->bad;
	if (ev->seq <= j->pub.last_seq)
		return;
	labstream_apply(j, ev, line, len);
	if (j->lm->cb.applied != NULL)
		j->lm->cb.applied(j->lm, &j->pub, ev->ts, j->lm->cb.arg);
	labmodel_changed(j->lm);
}

/*
 * The lines the mirrors hold: written before the console paints
 * (labmodel_before_sleep), else at the start of the loop's next turn (a
 * timer due at once), before it sleeps.  What one turn brought, a few
 * events from every host, goes to each mirror in one write.
 */
void
labstream_flush_all(struct labmodel *lm)
{
	struct ljob_int *j;
	char err[512];
	size_t i;

	if (lm->flush_timer != -1)
		loop_del_timer(lm->loop, lm->flush_timer);
	lm->flush_timer = -1;
	for (i = 0; i < lm->njobs; i++) {
		j = lm->jobs[i];
		if (!labmirror_pending(&j->mirror) ||
		    labmirror_flush(&j->mirror, err, sizeof err) == 0)
			continue;
		if (j->mirror.refused != NULL)
			labstream_refuse(j);
		else {
			labmodel_warn(lm, "%s", err);
			keep_retry_later(j);
		}
	}
}

static void
flush_fire(struct loop *l, void *arg)
{
	struct labmodel *lm = arg;

	(void)l;
	lm->flush_timer = -1;
	labstream_flush_all(lm);
}

static void
flush_soon(struct ljob_int *j)
{
	if (j->lm->flush_timer == -1 && labmirror_pending(&j->mirror))
		j->lm->flush_timer = loop_add_timer(j->lm->loop, 0,
		    flush_fire, j->lm);
}

/*
 * Whether j's host is down (an SSH host lost, reconnecting or refused): its
 * stream is then followed again when the host is up (labstream_host_up),
 * however long that takes, and no retry is counted: a host away for an
 * hour does not break a 24 h soak.  Connecting is not down: the command
 * waits in the transport.
 */
static bool
wait_for_host(struct ljob_int *j)
{
	struct transport_status st;
	struct transport *t;
	char err[256];

	if ((t = labmodel_transport(j->lm, j->pub.host, err,
	    sizeof err)) == NULL)
		return false;
	transport_status(t, &st);
	if (!transport_state_down(st.state))
		return false;
	j->wait_host = true;
	snprintf(j->pub.err, sizeof j->pub.err, "%s is %s: followed again "
	    "when it is up", j->pub.host, transport_state_name(st.state));
	labmodel_changed(j->lm);
	return true;
}

void
labstream_host_up(struct ljob_int *j)
{
	if (!j->wait_host)
		return;
	j->wait_host = false;
	j->retries = 0;
	j->pub.err[0] = '\0';
	/* What it wrote while its host was away is replayed first: how
	 * far, the host's next job list says. */
	j->catching = true;
	if (j->retry_timer != -1) {
		loop_del_timer(j->lm->loop, j->retry_timer);
		j->retry_timer = -1;
	}
	labstream_follow(j);
}

static void
on_follow_done(struct follow *f, bool finished, const char *err, void *arg)
{
	struct ljob_int *j = arg;
	bool no_job = strstr(err != NULL ? err : "", "no job '") != NULL;

	(void)f;
	j->follow = NULL;
	if (finished || (j->ended && !mirror_lacks(j))) {
		labmodel_changed(j->lm);
		return;
	}
	if (wait_for_host(j))
		return;
	if (j->ended && no_job) {
		/* Catching up a mirror after a takeover: the job's outcome is
		 * known, only its mirror stays short. */
		labmodel_warn(j->lm, "'%s' cannot be completed: %s",
		    j->mirror.path, err);
		j->mirror.failed = true;
		return;
	}
	if (no_job && j->lm->observer && j->meta_path != NULL &&
	    access(j->meta_path, F_OK) != 0) {
		/* The console that owns it took its record back. */
		snprintf(j->pub.err, sizeof j->pub.err, "not started by the "
		    "console that owns it");
		j->pub.state = LJ_BROKEN;
		labmodel_changed(j->lm);
	} else if (no_job && !j->lm->observer && (j->pub.events > 0 ||
	    j->retries >= RETRY_MAX))
		/* The host had the job and lost it, or never had it in a
		 * minute of asking: trying again will not bring it back. */
		labstream_gone(j, err);
	else
		/* A record is written before `calops run` makes the job: a
		 * console that died or quit in between (this one before a
		 * restart, or the one taken over from) left a job that may
		 * be there in a moment.  Not yet is not never. */
		retry_later(j, err);
}

static const struct follow_ops follow_ops = {
	.event = on_event,
	.done = on_follow_done,
};

/*
 * The host does not know the job (its jobs folder was cleaned, or a
 * console died before `calops run` made it and a minute of asking did not
 * bring it): broken for good, and when nothing of it was ever received its
 * record goes, so that it does not come back at every start.
 */
static void
labstream_gone(struct ljob_int *j, const char *why)
{
	snprintf(j->pub.err, sizeof j->pub.err, "%s", why);
	j->pub.state = LJ_BROKEN;
	if (j->pub.events == 0) {
		if (j->meta_path != NULL)
			unlink(j->meta_path);
		if (j->mirror.path != NULL)
			unlink(j->mirror.path);
	}
	labmodel_changed(j->lm);
}

static void
retry_fire(struct loop *l, void *arg)
{
	struct ljob_int *j = arg;

	(void)l;
	j->retry_timer = -1;
	labstream_follow(j);
}

/* A broken stream: try again with backoff (1 s, 2 s, … 32 s), then give up
 * and say why; R on the jobs or soak screen does not bring it back, a new
 * console does. */
static void
retry_later(struct ljob_int *j, const char *why)
{
	if (j->retries >= RETRY_MAX && j->ended) {
		labmodel_warn(j->lm, "'%s' cannot be completed: %s",
		    j->mirror.path, why);
		j->mirror.failed = true;
		return;
	}
	snprintf(j->pub.err, sizeof j->pub.err, "%s", why);
	if (j->retries >= RETRY_MAX) {
		j->pub.state = LJ_BROKEN;
		labmodel_changed(j->lm);
		return;
	}
	j->retry_timer = loop_add_timer(j->lm->loop, 1000L << j->retries,
	    retry_fire, j);
	j->retries++;
	labmodel_changed(j->lm);
}

/*
 * The job's mirror is refused (statedir.h: a link planted in its place, a
 * file of another user's or that others may write): the job is followed
 * no more rather than without a mirror, which would show events nothing
 * keeps, and says why and how to fix it, as the state folder does (a job
 * that has ended keeps its outcome).  A console started after the fix
 * follows it again.
 */
static void
labstream_refuse(struct ljob_int *j)
{
	if (j->follow != NULL) {
		follow_stop(j->follow);
		j->follow = NULL;
	}
	if (j->retry_timer != -1) {
		loop_del_timer(j->lm->loop, j->retry_timer);
		j->retry_timer = -1;
	}
	j->mirror.failed = true;
	if (!j->ended) {
		j->pub.state = LJ_BROKEN;
		snprintf(j->pub.err, sizeof j->pub.err, "not followed without "
		    "a mirror: %s", j->mirror.refused);
	}
	if (!j->refused_said)
		labmodel_warn(j->lm, "%s on %s %s: %s", j->pub.label,
		    j->pub.host, j->ended ? "cannot be mirrored whole" :
		    "not followed without a mirror", j->mirror.refused);
	j->refused_said = true;
	labmodel_changed(j->lm);
}

void
labstream_follow(struct ljob_int *j)
{
	struct transport *t;
	char err[512];
	int64_t from;

	if (j->follow != NULL || j->pub.id == NULL ||
	    (j->ended && !mirror_lacks(j)))
		return;
	/* The mirror first: no event is taken that it could not keep. */
	if (!j->lm->observer && j->mirror.path != NULL &&
	    j->mirror.refused == NULL && !j->mirror.failed)
		(void)labmirror_open(&j->mirror, err, sizeof err);
	if (j->mirror.refused != NULL) {
		labstream_refuse(j);
		return;
	}
	if ((t = labmodel_transport(j->lm, j->pub.host, err,
	    sizeof err)) == NULL) {
		snprintf(j->pub.err, sizeof j->pub.err, "%s", err);
		j->pub.state = LJ_BROKEN;
		return;
	}
	if (wait_for_host(j))
		return;
	if (j->pub.state == LJ_STARTING)
		j->pub.state = LJ_RUNNING;
	j->follow_bad = 0;
	/* The mirror is the position: a position kept apart from it could
	 * run ahead after a mirror write failed, and skip.  From the lower of
	 * what is applied and what is mirrored (they differ only after a
	 * takeover, see on_event). */
	from = mirror_lacks(j) ? j->mirror.seq : j->pub.last_seq;
	j->follow = follow_start(t, j->pub.id, from + 1,
	    &follow_ops, j, err, sizeof err);
	if (j->follow == NULL)
		retry_later(j, err);
}

void
labstream_take_over(struct ljob_int *j)
{
	struct ljob_int *rec;
	char err[512];

	/* A record gone while this console watched: the console that wrote
	 * removed an ended job's files, its outcome logged (labreplay.c).
	 * Still shown here, it is written nowhere again. */
	if (j->meta_path != NULL && access(j->meta_path, F_OK) != 0 &&
	    errno == ENOENT) {
		free(j->meta_path);
		j->meta_path = NULL;
		j->mirror.failed = true;
		j->outcome_logged = true;
	}
	/* Whether the other console logged the outcome, as it last said
	 * (also for a job whose replay is under way: its end is applied as
	 * this console's). */
	if (j->meta_path != NULL &&
	    (rec = labstream_job_from_meta(
		 j->lm, j->meta_path, err, sizeof err)) != NULL) {
		j->outcome_logged = rec->outcome_logged;
		labstream_job_free(rec);
	}
	/* A replay under way ends as this console's (labreplay.c). */
	if (j->mirror.replay != NULL || j->mirror.path == NULL)
		return;
	if (!j->mirror.failed && labmirror_adopt(&j->mirror, err,
	    sizeof err) != 0 && j->mirror.refused == NULL)
		labmodel_warn(j->lm, "%s", err);
	if (j->ended && !j->outcome_logged) {
		outcome_words(&j->pub, err, sizeof err);
		if (labstream_log_action(j, err) == 0)
			mark_outcome_logged(j);
	}
	if (j->follow != NULL) {
		follow_stop(j->follow);
		j->follow = NULL;
	}
	if (j->retry_timer != -1) {
		loop_del_timer(j->lm->loop, j->retry_timer);
		j->retry_timer = -1;
	}
	j->retries = 0;
	if (j->pub.state == LJ_BROKEN)
		j->pub.state = LJ_RUNNING;
	labstream_follow(j);
}

void
labstream_job_free(struct ljob_int *j)
{
	if (j->follow != NULL)
		follow_stop(j->follow);
	if (j->run != NULL)
		transport_rstream_cancel(j->run);
	strv_free(&j->run_argv);
	if (j->retry_timer != -1)
		loop_del_timer(j->lm->loop, j->retry_timer);
	if (j->keep_timer != -1)
		loop_del_timer(j->lm->loop, j->keep_timer);
	labmirror_release(&j->mirror);
	if (j->pub.metrics != NULL)
		metrics_free(j->pub.metrics);
	if (j->pub.alerts != NULL)
		alerts_free(j->pub.alerts);
	free(j->pub.host);
	free(j->pub.workspace);
	free(j->pub.id);
	free(j->pub.scenario);
	free(j->pub.chips);
	free(j->pub.chipstep);
	free(j->pub.command);
	free(j->pub.actor);
	free(j->pub.label);
	free(j->meta_path);
	free(j);
}
