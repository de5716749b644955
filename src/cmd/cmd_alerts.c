/*
 * cmd_alerts.c: `calops alerts --journal`, the alert journal of the state
 * folder (src/alert/alertjournal.h, share/doc/alerts.md): every alert the
 * lab's rules raised, with its start, its end or "ongoing", how long it
 * lasted and the min/avg/max of its value over the breach, glances'
 * events list for a soak.
 */
#include "calops.h"

#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <time.h>

#include <jansson.h>

#include "alert/alertjournal.h"
#include "base/fileio.h"
#include "base/text.h"
#include "cmd/cmd.h"
#include "lab/labmodel.h"
#include "loop/child.h"
#include "loop/loop.h"
#include "model/alertsend.h"
#include "remote/lab.h"

#define ALERTS_PACE_MS	250	/* the loop wakes at most this often */

static const char alerts_usage[] =
    "usage: calops alerts [--config FILE] LAB\n"
    "       calops alerts --journal [--json]\n"
    "\n"
    "Follow every host, job and workspace of the lab file LAB with no\n"
    "console (each host's jobs polled: one no console started is followed\n"
    "too, a failed one judged), judge its alerts: rules, journal\n"
    "every alert and run its hook for each firing and resolution, until\n"
    "SIGTERM or SIGINT.  Started again, it sends what the journal shows not\n"
    "sent, and nothing twice.  One process sends for a state folder at a\n"
    "time: while a console with the lab open (or another calops alerts)\n"
    "sends, this one says so and waits, and takes over when it ends.\n"
    "\n"
    "List every alert of the journal ($XDG_STATE_HOME/calops/alerts/\n"
    "journal.jsonl), oldest first: its start, its end or \"ongoing\", its\n"
    "duration, its rule and severity, what it is about, the min/avg/max of\n"
    "its value over the breach, what became of its hook, and its summary;\n"
    "then who sends (\"alerts sent by calops alerts, pid N\").\n"
    "\n"
    "  --config FILE    the config file whose alerts: go under LAB's\n"
    "                   (default $XDG_CONFIG_HOME/calops/config.yaml)\n"
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

static void
num(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.4g", v);
}

static void
print_entry(const struct alertentry *e, double now)
{
	char start[32], end[32], dur[32], lo[32], avg[32], hi[32], hook[32];
	char *subj = alertjournal_subject(e), *rule, *sev, *sum;

	when(start, sizeof start, e->start, "?");
	when(end, sizeof end, e->end, "ongoing");
	alertjournal_duration(dur, sizeof dur, (isnan(e->end) ? now :
	    e->end) - e->start);
	num(lo, sizeof lo, e->vmin);
	num(avg, sizeof avg, e->vavg);
	num(hi, sizeof hi, e->vmax);
	alertjournal_hook_state(e, hook, sizeof hook);
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

/* Who sends the alerts of the state folder (alertsend.h), for people and
 * as JSON: {"pid": 812, "who": "calops alerts"} or null. */
static json_t *
sender(const struct alertjournal *j, char *buf, size_t len)
{
	char who[64];
	long pid;

	switch (alertsend_holder(j, &pid, who, sizeof who)) {
	case 1:
		snprintf(buf, len, "alerts sent by %s, pid %ld", who, pid);
		return json_pack("{s:I, s:s}", "pid", (json_int_t)pid, "who",
		    who);
	case 0:
		snprintf(buf, len, "no one sends alerts: no calops alerts nor "
		    "console with the lab's alerts: runs");
		return json_null();
	default:
		snprintf(buf, len, "no one has sent alerts: no journal");
		return json_null();
	}
}

static int
print_journal(const struct alertjournal *j, bool json)
{
	double now = (double)time(NULL);
	json_t *o, *list, *who;
	size_t i, ongoing = 0;
	char says[160];

	for (i = 0; i < j->n; i++)
		ongoing += isnan(j->e[i].end);
	who = sender(j, says, sizeof says);
	if (json) {
		list = json_array();
		for (i = 0; i < j->n; i++)
			json_array_append_new(list,
			    alertjournal_entry_json(&j->e[i], now));
		o = json_pack("{s:s, s:o, s:I, s:I, s:I, s:o}", "schema",
		    "calops-alerts/v1", "alerts", list, "ongoing",
		    (json_int_t)ongoing, "skipped_lines", (json_int_t)j->bad,
		    "dropped", (json_int_t)j->dropped, "sender", who);
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
		printf("(%s)\n", says);
		json_decref(who);
	}
	return ongoing > 0 ? 1 : 0;
}

/* The follower's loop and what it drives. */
struct follower {
	struct loop		*loop;
	struct labmodel		*lm;
	struct alertsend	*s;
};

static void
say(const char *msg, void *arg)
{
	(void)arg;
	fprintf(stderr, "calops: %s\n", msg);
}

static void
journal_changed(void *arg)
{
	(void)arg;
}

static void
lab_changed(struct labmodel *lm, void *arg)
{
	struct follower *f = arg;

	(void)lm;
	if (f->s != NULL)
		alertsend_lab_changed(f->s);
}

static void
lab_ended(struct labmodel *lm, const struct ljob *j, void *arg)
{
	struct follower *f = arg;

	(void)lm;
	if (f->s != NULL)
		alertsend_job_ended(f->s, j);
}

static void
lab_host_ended(struct labmodel *lm, const struct ljob_end *e, void *arg)
{
	struct follower *f = arg;

	(void)lm;
	if (f->s != NULL)
		alertsend_host_ended(f->s, e);
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

/* calops alerts LAB: follow the lab until a signal, sending while it
 * holds the journal (alertsend.h), waiting to take over while another
 * does. */
static int
follow(const char *path, const char *config)
{
	struct follower f = { NULL, NULL, NULL };
	struct labmodel_cb cb = { .changed = lab_changed, .ended = lab_ended,
	    .warn = lab_warn, .host_ended = lab_host_ended, .arg = &f };
	struct lab lab;
	char err[1024], dir[PATH_MAX], dflt[PATH_MAX + 16];
	int rc = 2;

	/* The config's alerts: go under the lab file's (alerts.md §1). */
	if (config == NULL && fileio_config_dir(dir, sizeof dir) != NULL) {
		snprintf(dflt, sizeof dflt, "%s/config.yaml", dir);
		config = dflt;
	}
	if (lab_load(&lab, path, err, sizeof err) != 0 || (config != NULL &&
	    lab_merge_config(&lab, config, err, sizeof err) != 0))
		fprintf(stderr, "calops: %s\n", err);
	else if (lab.alert_hook.argv == NULL)
		fprintf(stderr, "calops: neither '%s' nor the config file has "
		    "alerts: give one of them a hook (share/doc/alerts.md)\n",
		    path);
	else {
		signal(SIGPIPE, SIG_IGN);
		f.loop = loop_new();
		loop_watch_signal(f.loop, SIGCHLD, on_signal, &f);
		loop_watch_signal(f.loop, SIGTERM, on_signal, &f);
		loop_watch_signal(f.loop, SIGINT, on_signal, &f);
		if ((f.lm = labmodel_new(f.loop, &lab, NULL, &cb, err,
		    sizeof err)) == NULL ||
		    (f.s = alertsend_new(f.loop, f.lm, &lab, "calops alerts",
		    say, journal_changed, &f, err, sizeof err)) == NULL)
			fprintf(stderr, "calops: %s\n", err);
		else {
			loop_set_before_sleep(f.loop, before_sleep, &f);
			/* Read what streams in in batches: its hook's budget is
			 * seconds, its CPU's 2 % of a core (alerts.md §4). */
			loop_set_pace(f.loop, ALERTS_PACE_MS);
			loop_run(f.loop);
			rc = 0;
		}
		alertsend_free(f.s);
		labmodel_free(f.lm);
		loop_free(f.loop);
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
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct alertjournal j;
	const char *config = NULL;
	bool json = false, journal = false;
	char err[1024];
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "Jjhc:", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
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
		return follow(argv[optind], config);
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
