/*
 * cmd_alerts.c: `calops alerts --journal`, the alert journal of the state
 * folder (src/alert/alertjournal.h, share/doc/alerts.md): every alert the
 * lab's rules raised, with its start, its end or "ongoing", how long it
 * lasted and the min/avg/max of its value over the breach, glances'
 * events list for a soak.
 */
#include "calops.h"

#include <sys/file.h>

#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <time.h>

#include <jansson.h>

#include "alert/alertjournal.h"
#include "base/buf.h"
#include "base/text.h"
#include "cmd/cmd.h"
#include "lab/labmodel.h"
#include "loop/child.h"
#include "loop/loop.h"
#include "model/alertwatch.h"
#include "remote/lab.h"

#define ALERTS_PACE_MS	250	/* the loop wakes at most this often */

static const char alerts_usage[] =
    "usage: calops alerts LAB\n"
    "       calops alerts --journal [--json]\n"
    "\n"
    "Follow every host, job and workspace of the lab file LAB with no\n"
    "console (each host's jobs polled: one no console started is followed\n"
    "too, a failed one judged), judge its alerts: rules, journal\n"
    "every alert and run its hook for each firing and resolution, until\n"
    "SIGTERM or SIGINT.  Started again, it sends what the journal shows not\n"
    "sent, and nothing twice.  One runs for a state folder at a time.\n"
    "\n"
    "List every alert of the journal ($XDG_STATE_HOME/calops/alerts/\n"
    "journal.jsonl), oldest first: its start, its end or \"ongoing\", its\n"
    "duration, its rule and severity, what it is about, the min/avg/max of\n"
    "its value over the breach, what became of its hook, and its summary.\n"
    "\n"
    "  --journal        list the journal\n"
    "  --json           one JSON object (schema calops-alerts/v1)\n"
    "\n"
    "Exit status: 0, 1 when an alert is ongoing, 2 on a usage error or a\n"
    "journal that cannot be read.\n";

/* "2026-12-06 14:01:05" in UTC, or what for NAN. */
static void
when(char *buf, size_t len, double t, const char *what)
{
	time_t s = (time_t)floor(t);
	struct tm tm;

	if (isnan(t) || gmtime_r(&s, &tm) == NULL)
		snprintf(buf, len, "%s", what);
	else
		strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

/* "3h12m", "4m05s", "12s". */
static void
duration(char *buf, size_t len, double s)
{
	long n = isnan(s) || s < 0 ? 0 : (long)floor(s);

	if (n >= 3600)
		snprintf(buf, len, "%ldh%02ldm", n / 3600, n / 60 % 60);
	else if (n >= 60)
		snprintf(buf, len, "%ldm%02lds", n / 60, n % 60);
	else
		snprintf(buf, len, "%lds", n);
}

/* What an alert is about: "lab3 chip 1, /w G9, job 17"; sanitised. */
static char *
subject(const struct alertentry *e)
{
	struct buf b = BUF_INIT;
	char *s, *vis;

	if (e->host != NULL)
		buf_adds(&b, e->host);
	if (e->chip >= 0)
		buf_addf(&b, " chip %d", e->chip);
	if (e->metric != NULL)
		buf_addf(&b, " %s", e->metric);
	if (e->workspace != NULL)
		buf_addf(&b, "%s%s", b.len > 0 ? ", " : "", e->workspace);
	if (e->gate >= 0)
		buf_addf(&b, " G%d", e->gate);
	if (e->job != NULL)
		buf_addf(&b, "%sjob %s", b.len > 0 ? ", " : "", e->job);
	s = buf_detach(&b, NULL);
	vis = text_sanitize_str(s != NULL ? s : "");
	free(s);
	return vis;
}

static void
num(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.4g", v);
}

/* What became of the hook: "sent", "waiting", "failed x3", "gave up". */
static void
hook_state(char *buf, size_t len, const struct alertentry *e)
{
	bool sent = isnan(e->end) || e->end == e->start ? e->sent_firing :
	    e->sent_resolved;

	if (e->gave_up)
		snprintf(buf, len, "gave up");
	else if (sent)
		snprintf(buf, len, "sent");
	else if (e->failures > 0)
		snprintf(buf, len, "failed x%u", e->failures);
	else
		snprintf(buf, len, "waiting");
}

static void
print_entry(const struct alertentry *e, double now)
{
	char start[32], end[32], dur[32], lo[32], avg[32], hi[32], hook[32];
	char *subj = subject(e), *rule, *sev, *sum;

	when(start, sizeof start, e->start, "?");
	when(end, sizeof end, e->end, "ongoing");
	duration(dur, sizeof dur, (isnan(e->end) ? now : e->end) - e->start);
	num(lo, sizeof lo, e->vmin);
	num(avg, sizeof avg, e->vavg);
	num(hi, sizeof hi, e->vmax);
	hook_state(hook, sizeof hook, e);
	rule = text_sanitize_str(e->rule != NULL ? e->rule : "?");
	sev = text_sanitize_str(e->severity != NULL ? e->severity : "?");
	sum = text_sanitize_str(e->summary != NULL ? e->summary : "");
	printf("%-19s  %-19s  %8s  %-16s  %-8s  %-24s  %8s %8s %8s  %-10s  "
	    "%s\n", start, end, dur, rule, sev, subj, lo, avg, hi, hook, sum);
	free(subj);
	free(rule);
	free(sev);
	free(sum);
}

static int
print_journal(const struct alertjournal *j, bool json)
{
	double now = (double)time(NULL);
	json_t *o, *list;
	size_t i, ongoing = 0;

	for (i = 0; i < j->n; i++)
		ongoing += isnan(j->e[i].end);
	if (json) {
		list = json_array();
		for (i = 0; i < j->n; i++)
			json_array_append_new(list,
			    alertjournal_entry_json(&j->e[i], now));
		o = json_pack("{s:s, s:o, s:I, s:I, s:I}", "schema",
		    "calops-alerts/v1", "alerts", list, "ongoing",
		    (json_int_t)ongoing, "skipped_lines", (json_int_t)j->bad,
		    "dropped", (json_int_t)j->dropped);
		if (text_json_print(stdout, o, JSON_INDENT(2)) != 0)
			fprintf(stderr, "calops: cannot encode the journal\n");
		json_decref(o);
	} else {
		printf("%-19s  %-19s  %8s  %-16s  %-8s  %-24s  %8s %8s %8s  "
		    "%-10s  %s\n", "START (UTC)", "END", "DURATION", "RULE",
		    "SEVERITY", "SUBJECT", "MIN", "AVG", "MAX", "HOOK",
		    "SUMMARY");
		for (i = 0; i < j->n; i++)
			print_entry(&j->e[i], now);
		if (j->bad > 0)
			printf("(%zu lines of the journal were not alerts and "
			    "were skipped)\n", j->bad);
	}
	return ongoing > 0 ? 1 : 0;
}

/* The follower's loop and what it drives. */
struct follower {
	struct loop		*loop;
	struct labmodel		*lm;
	struct alertwatch	*w;
};

static void
say(const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "calops: %s\n", msg);
}

static void
lab_changed(struct labmodel *lm, void *arg)
{
	struct follower *f = arg;

	(void)lm;
	if (f->w != NULL)
		alertwatch_lab_changed(f->w);
}

static void
lab_ended(struct labmodel *lm, const struct ljob *j, void *arg)
{
	struct follower *f = arg;

	(void)lm;
	if (f->w != NULL)
		alertwatch_job_ended(f->w, j);
}

static void
lab_host_ended(struct labmodel *lm, const struct ljob_end *e, void *arg)
{
	struct follower *f = arg;

	(void)lm;
	if (f->w != NULL)
		alertwatch_host_ended(f->w, e);
}

static void
lab_warn(struct labmodel *lm, const char *msg, void *arg)
{
	(void)lm;
	say(msg, arg);
}

static void
before_sleep(struct loop *l, void *arg)
{
	struct follower *f = arg;

	(void)l;
	labmodel_before_sleep(f->lm);
}

static void
on_signal(struct loop *l, int sig, void *arg)
{
	(void)arg;
	if (sig == SIGCHLD)
		child_reap(l);
	else
		loop_stop(l);
}

/* The journal of the state folder, held: one sender a state folder. */
static int
journal_hold(struct alertjournal *j, char *err, size_t errlen)
{
	if (alertjournal_open(j, true, err, errlen) != 0)
		return -1;
	if (flock(j->fd, LOCK_EX | LOCK_NB) != 0) {
		errbuf_set(err, errlen, "another calops sends the alerts of "
		    "this state folder ('%s' is held)", j->path);
		alertjournal_close(j);
		return -1;
	}
	return 0;
}

/* calops alerts LAB: follow the lab until a signal. */
static int
follow(const char *path)
{
	struct follower f = { NULL, NULL, NULL };
	struct labmodel_cb cb = { .changed = lab_changed, .ended = lab_ended,
	    .warn = lab_warn, .host_ended = lab_host_ended, .arg = &f };
	struct alertjournal j;
	struct lab lab;
	char err[1024];
	int rc = 2;

	if (lab_load(&lab, path, err, sizeof err) != 0)
		fprintf(stderr, "calops: %s\n", err);
	else if (lab.alert_hook.argv == NULL)
		fprintf(stderr, "calops: '%s' has no alerts: give it one with "
		    "a hook (share/doc/alerts.md)\n", path);
	else if (journal_hold(&j, err, sizeof err) != 0)
		fprintf(stderr, "calops: %s\n", err);
	else {
		signal(SIGPIPE, SIG_IGN);
		f.loop = loop_new();
		loop_watch_signal(f.loop, SIGCHLD, on_signal, &f);
		loop_watch_signal(f.loop, SIGTERM, on_signal, &f);
		loop_watch_signal(f.loop, SIGINT, on_signal, &f);
		if ((f.lm = labmodel_new(f.loop, &lab, NULL, &cb, err,
		    sizeof err)) == NULL)
			fprintf(stderr, "calops: %s\n", err);
		else {
			f.w = alertwatch_new(f.loop, f.lm, &lab, &j, say, &f);
			loop_set_before_sleep(f.loop, before_sleep, &f);
			/* Read what streams in in batches: its hook's budget is
			 * seconds, its CPU's 2 % of a core (alerts.md §4). */
			loop_set_pace(f.loop, ALERTS_PACE_MS);
			loop_run(f.loop);
			alertwatch_free(f.w);
			labmodel_free(f.lm);
			rc = 0;
		}
		loop_free(f.loop);
		alertjournal_close(&j);
	}
	lab_release(&lab);
	return rc;
}

int
cmd_alerts(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "journal", no_argument, NULL, 'J' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct alertjournal j;
	bool json = false, journal = false;
	char err[1024];
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "Jjh", opts, NULL)) != -1) {
		switch (c) {
		case 'J':
			journal = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(alerts_usage, stdout);
			return 0;
		default:
			fputs(alerts_usage, stderr);
			return 2;
		}
	}
	if (!journal && !json && optind == argc - 1)
		return follow(argv[optind]);
	if (!journal || optind != argc) {
		fputs(alerts_usage, stderr);
		return 2;
	}
	if (alertjournal_open(&j, false, err, sizeof err) != 0) {
		fprintf(stderr, "calops: %s\n", err);
		return 2;
	}
	rc = print_journal(&j, json);
	alertjournal_close(&j);
	return rc;
}
