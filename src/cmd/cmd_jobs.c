/* cmd_jobs.c: `calops jobs` lists the durable jobs. */
#include "calops.h"

#include <getopt.h>
#include <time.h>

#include "base/buf.h"
#include "base/text.h"
#include "cmd/cmd.h"
#include "job/jobcursor.h"
#include "job/jobevent.h"
#include "job/jobsink.h"
#include "job/jobstore.h"

static const char jobs_usage[] =
    "usage: calops jobs [--json] [--running] [--jobs DIR]\n"
    "       calops jobs --json --since CURSOR [--jobs DIR]\n"
    "\n"
    "List the durable jobs: id, state (running, done, failed, killed, lost\n"
    "when its supervisor is gone, corrupt with the reason, degraded while\n"
    "its supervisor cannot write its events, a line under it saying why),\n"
    "start, age, exit status and command.\n"
    "\n"
    "  --json       print one calops-jobs/v1 JSON object\n"
    "  --running    only the running jobs (degraded ones too)\n"
    "  --since CURSOR  with --json, only the jobs that started, changed\n"
    "               state or ended since the list that gave CURSOR (its\n"
    "               \"cursor\"), and every running or lost one; 0: every\n"
    "               job.  The list gives the next cursor\n"
    "  --jobs DIR   the jobs folder (default: $CALOPS_JOBS_DIR, else\n"
    "               $XDG_STATE_HOME/calops/jobs)\n"
    "  -h, --help   this help\n";

/* One job as listed. */
struct entry {
	char			*name;
	int			 state;
	struct job_record	 rec;
	char			 reason[256];
	double			 stalled;	/* degraded since, or 0 */
	char			 stalled_why[64];
	uint64_t		 last_seq;	/* of its events, or 0 */
};

static int
compare_entries(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	bool ca = a->state == JOB_CORRUPT, cb = b->state == JOB_CORRUPT;

	if (ca != cb)
		return ca ? 1 : -1;
	if (!ca && a->rec.started != b->rec.started)
		return a->rec.started < b->rec.started ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* A running job whose supervisor cannot write its events is degraded. */
static double
stalled_since(const char *root, const char *id, char *why, size_t len)
{
	char *path = xasprintf("%s/%s/events.jsonl", root, id);
	double since = jobsink_stalled_since(path, why, len);

	free(path);
	return since;
}

/* Keep the names of the jobs that may have changed since cursor ns
 * (jobcursor.h; every one for 0), in order; how many are kept. */
static size_t
keep_changed(const char *root, char **names, int64_t ns)
{
	size_t i, k = 0;

	for (i = 0; names[i] != NULL; i++) {
		if (jobcursor_changed(root, names[i], ns))
			names[k++] = names[i];
		else
			free(names[i]);
	}
	names[k] = NULL;
	return k;
}

/* How far its events go: what a console catching up reads to. */
static uint64_t
last_seq(const char *root, const char *id)
{
	char *path = xasprintf("%s/%s/events.jsonl", root, id);
	uint64_t seq = jobsink_last_seq(path);

	free(path);
	return seq;
}

/* Every job under root that may have changed since cursor since (0: every
 * job), looked at and sorted by start; NULL with err. */
static struct entry *
gather(const char *root, int64_t since, size_t *n, char *err, size_t errlen)
{
	struct entry *v;
	char **names;
	size_t i;

	if ((names = jobstore_list(root, err, errlen)) == NULL)
		return NULL;
	*n = keep_changed(root, names, since);
	v = xcalloc(*n + 1, sizeof *v);
	for (i = 0; i < *n; i++) {
		v[i].name = names[i];
		v[i].state = jobstore_look(
		    root, names[i], &v[i].rec, v[i].reason, sizeof v[i].reason);
		if (v[i].state == -1) {
			/* Not a folder after all, or an invalid name. */
			v[i].state = JOB_CORRUPT;
			snprintf(v[i].reason, sizeof v[i].reason, "%s",
			    jobstore_id_valid(names[i]) ? "not a job folder" :
			    "not a valid job id");
		}
		if (v[i].state == JOB_RUNNING)
			v[i].stalled = stalled_since(root, names[i],
			    v[i].stalled_why, sizeof v[i].stalled_why);
		if (v[i].state != JOB_CORRUPT)
			v[i].last_seq = last_seq(root, names[i]);
	}
	free(names);
	qsort(v, *n, sizeof *v, compare_entries);
	return v;
}

static json_t *
entry_json(const struct entry *e, double now)
{
	json_t *o;

	if (e->state == JOB_CORRUPT) {
		o = json_object();
		json_object_set_new(o, "id", text_json(e->name));
		json_object_set_new(o, "state", json_string("corrupt"));
		/* The reason may quote the folder's files, cut to fit. */
		json_object_set_new(o, "reason", text_json(e->reason));
		return o;
	}
	o = jobstore_record_json(&e->rec);
	json_object_set_new(
	    o, "state", json_string(jobstore_state_name(e->state)));
	json_object_set_new(o, "age", json_real(now - e->rec.started));
	if (e->last_seq > 0)
		json_object_set_new(o, "last_seq",
		    json_integer((json_int_t)e->last_seq));
	if (e->stalled > 0)
		json_object_set_new(o, "degraded", json_pack("{s:f,s:o}",
		    "since", e->stalled, "reason", text_json(e->stalled_why)));
	return o;
}

/* The command line, every argument through the sanitiser. */
static char *
command_text(char **argv)
{
	struct buf b = BUF_INIT;
	char *s;
	size_t i;

	buf_add(&b, "", 0);
	for (i = 0; argv != NULL && argv[i] != NULL; i++) {
		s = text_sanitize_str(argv[i]);
		buf_addf(&b, "%s%s", i > 0 ? " " : "", s);
		free(s);
	}
	return buf_detach(&b, NULL);
}

/* Under a degraded job, why: "degraded: disk full since 14:03:05". */
static void
print_degraded(const struct entry *e, int width)
{
	char when[32], *why = text_sanitize_str(e->stalled_why);
	time_t t = (time_t)e->stalled;
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
	printf("%-*s  degraded: %s since %s; its lines wait in memory\n",
	    width, "", why, when);
	free(why);
}

static void
print_entry(const struct entry *e, int width, double now)
{
	char started[32], age[32], exit_s[32], *id, *cmd;
	struct tm tm;
	time_t t;

	id = text_sanitize_str(e->name);
	if (e->state == JOB_CORRUPT) {
		cmd = text_sanitize_str(e->reason);
		printf("%-*s  %-8s  %-19s  %-6s  %-7s  (%s)\n", width, id,
		    "corrupt", "-", "-", "-", cmd);
		free(cmd);
		free(id);
		return;
	}
	t = (time_t)e->rec.started;
	localtime_r(&t, &tm);
	strftime(started, sizeof started, "%Y-%m-%d %H:%M:%S", &tm);
	jobstore_format_age(now - e->rec.started, age, sizeof age);
	if (e->rec.signal > 0)
		jobstore_signal_name(e->rec.signal, exit_s, sizeof exit_s);
	else if (e->rec.exit_code >= 0)
		snprintf(exit_s, sizeof exit_s, "%d", e->rec.exit_code);
	else
		snprintf(exit_s, sizeof exit_s, "-");
	cmd = command_text(e->rec.argv);
	printf("%-*s  %-8s  %-19s  %-6s  %-7s  %s\n", width, id,
	    e->stalled > 0 ? "degraded" : jobstore_state_name(
	    (enum job_state)e->state), started, age, exit_s, cmd);
	if (e->stalled > 0)
		print_degraded(e, width);
	free(cmd);
	free(id);
}

/* What a list is asked for. */
struct ask {
	bool	 json, running;
	/* --since: the cursor given (0: every job), the next one */
	bool	 since;
	int64_t	 from, next;
};

static void
print_list(const struct entry *v, size_t n, const struct ask *a)
{
	double now = jobevent_now();
	char cursor[JOBCURSOR_LEN];
	json_t *o, *list;
	int width = 2;
	size_t i;

	if (a->json) {
		list = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(list, entry_json(&v[i], now));
		o = json_pack("{s:s,s:o}", "schema", "calops-jobs/v1", "jobs",
		    list);
		if (a->since) {
			jobcursor_format(a->next, cursor, sizeof cursor);
			json_object_set_new(o, "cursor", json_string(cursor));
			json_object_set_new(o, "full", json_boolean(a->from ==
			    0));
		}
		(void)text_json_print(stdout, o, JSON_INDENT(2));
		json_decref(o);
		return;
	}
	for (i = 0; i < n; i++)
		if ((int)strlen(v[i].name) > width)
			width = (int)strlen(v[i].name);
	printf("%-*s  %-8s  %-19s  %-6s  %-7s  %s\n", width, "ID", "STATE",
	    "STARTED", "AGE", "EXIT", "COMMAND");
	for (i = 0; i < n; i++)
		print_entry(&v[i], width, now);
}

/* Keep the running jobs, in order; the others are released.  The count
 * kept. */
static size_t
keep_running(struct entry *v, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (v[i].state == JOB_RUNNING) {
			v[k++] = v[i];
			continue;
		}
		jobstore_record_release(&v[i].rec);
		free(v[i].name);
	}
	return k;
}

int
cmd_jobs(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "running", no_argument, NULL, 'r' },
		{ "since", required_argument, NULL, 's' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *jobs = NULL, *since = NULL;
	struct ask a = { 0 };
	struct entry *v;
	char err[512], *root;
	size_t i, n;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': a.json = true; break;
		case 'r': a.running = true; break;
		case 's': since = optarg; break;
		case 'J': jobs = optarg; break;
		case 'h':
			fputs(jobs_usage, stdout);
			return 0;
		default:
			fputs(jobs_usage, stderr);
			return 2;
		}
	}
	if (optind != argc || (since != NULL && (!a.json || a.running))) {
		fputs(jobs_usage, stderr);
		return 2;
	}
	if (since != NULL && jobcursor_parse(since, &a.from) != 0) {
		fprintf(stderr, "calops: --since: '%s' is not a cursor of "
		    "calops jobs (SECONDS.NANOSECONDS, or 0)\n", since);
		return 2;
	}
	/* Taken before the folder is read: a change while it is read is in
	 * the next list too.  A cursor ahead of the clock (it was set back)
	 * could hide changes: every job then. */
	a.since = since != NULL;
	a.next = jobcursor_now();
	if (a.from > a.next)
		a.from = 0;
	if ((root = jobstore_root(jobs, false, err, sizeof err)) == NULL ||
	    (v = gather(root, a.from, &n, err, sizeof err)) == NULL) {
		fprintf(stderr, "calops: %s\n", err);
		free(root);
		return 1;
	}
	if (a.running)
		n = keep_running(v, n);
	print_list(v, n, &a);
	for (i = 0; i < n; i++) {
		jobstore_record_release(&v[i].rec);
		free(v[i].name);
	}
	free(v);
	free(root);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
