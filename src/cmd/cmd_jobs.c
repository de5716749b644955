/* cmd_jobs.c: `calops jobs` lists durable jobs, `calops kill` stops one. */
#include "calops.h"

#include <getopt.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/text.h"
#include "cmd/cmd.h"
#include "job/job.h"

#define KILL_POLL_MS	20
#define KILL_AFTER_MS	5000	/* to wait for the record after SIGKILL */

static const char jobs_usage[] =
    "usage: calops jobs [--json] [--jobs DIR]\n"
    "\n"
    "List the durable jobs: id, state (running, done, failed, killed, lost\n"
    "when its supervisor is gone, corrupt with the reason), start, age, exit\n"
    "status and command.\n"
    "\n"
    "  --json       print one calops-jobs/v1 JSON object\n"
    "  --jobs DIR   the jobs folder (default: $CALOPS_JOBS_DIR, else\n"
    "               $XDG_STATE_HOME/calops/jobs)\n"
    "  -h, --help   this help\n";

static const char kill_usage[] =
    "usage: calops kill ID [--grace SECONDS] [--jobs DIR]\n"
    "\n"
    "Stop a running job: SIGTERM to its process group, SIGKILL when it is\n"
    "still there after the grace period (default 5 seconds).\n"
    "\n"
    "  --grace SECONDS  how long to wait before SIGKILL (0 to 3600)\n"
    "  --jobs DIR       the jobs folder\n"
    "  -h, --help       this help\n"
    "\n"
    "Exit status: 0 when the job has ended, 1 when it is unknown, has ended\n"
    "already or did not end, 2 on a usage error.\n";

/* One job as listed. */
struct entry {
	char			*name;
	int			 state;
	struct job_record	 rec;
	char			 reason[256];
};

static void
signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev != NULL)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "signal %d", sig);
}

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

/* Every job under root, looked at and sorted by start; NULL with err. */
static struct entry *
gather(const char *root, size_t *n, char *err, size_t errlen)
{
	struct entry *v;
	char **names;
	size_t i;

	if ((names = job_list(root, err, errlen)) == NULL)
		return NULL;
	for (*n = 0; names[*n] != NULL; (*n)++)
		;
	v = xcalloc(*n + 1, sizeof *v);
	for (i = 0; i < *n; i++) {
		v[i].name = names[i];
		v[i].state = job_look(root, names[i], &v[i].rec, v[i].reason,
		    sizeof v[i].reason);
		if (v[i].state == -1) {
			/* Not a folder after all, or an invalid name. */
			v[i].state = JOB_CORRUPT;
			snprintf(v[i].reason, sizeof v[i].reason, "%s",
			    job_id_valid(names[i]) ? "not a job folder" :
			    "not a valid job id");
		}
	}
	free(names);
	qsort(v, *n, sizeof *v, compare_entries);
	return v;
}

static json_t *
entry_json(const struct entry *e, double now)
{
	json_t *o;
	char *name;

	if (e->state == JOB_CORRUPT) {
		o = json_object();
		name = job_utf8_escape(e->name, strlen(e->name));
		json_object_set_new(o, "id", json_string(name));
		free(name);
		json_object_set_new(o, "state", json_string("corrupt"));
		json_object_set_new(o, "reason", json_string(e->reason));
		return o;
	}
	o = job_record_json(&e->rec);
	json_object_set_new(o, "state", json_string(job_state_name(e->state)));
	json_object_set_new(o, "age", json_real(now - e->rec.started));
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

static void
print_entry(const struct entry *e, int width, double now)
{
	char started[32], age[32], exit_s[32], *id, *cmd;
	struct tm tm;
	time_t t;

	id = text_sanitize_str(e->name);
	if (e->state == JOB_CORRUPT) {
		cmd = text_sanitize_str(e->reason);
		printf("%-*s  %-7s  %-19s  %-6s  %-7s  (%s)\n", width, id,
		    "corrupt", "-", "-", "-", cmd);
		free(cmd);
		free(id);
		return;
	}
	t = (time_t)e->rec.started;
	localtime_r(&t, &tm);
	strftime(started, sizeof started, "%Y-%m-%d %H:%M:%S", &tm);
	job_format_age(now - e->rec.started, age, sizeof age);
	if (e->rec.signal > 0)
		signal_name(e->rec.signal, exit_s, sizeof exit_s);
	else if (e->rec.exit_code >= 0)
		snprintf(exit_s, sizeof exit_s, "%d", e->rec.exit_code);
	else
		snprintf(exit_s, sizeof exit_s, "-");
	cmd = command_text(e->rec.argv);
	printf("%-*s  %-7s  %-19s  %-6s  %-7s  %s\n", width, id,
	    job_state_name((enum job_state)e->state), started, age, exit_s, cmd);
	free(cmd);
	free(id);
}

static void
print_list(const struct entry *v, size_t n, bool json)
{
	double now = job_now();
	json_t *o, *list;
	int width = 2;
	size_t i;

	if (json) {
		list = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(list, entry_json(&v[i], now));
		o = json_pack("{s:s,s:o}", "schema", "calops-jobs/v1", "jobs",
		    list);
		json_dumpf(o, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(o);
		return;
	}
	for (i = 0; i < n; i++)
		if ((int)strlen(v[i].name) > width)
			width = (int)strlen(v[i].name);
	printf("%-*s  %-7s  %-19s  %-6s  %-7s  %s\n", width, "ID", "STATE",
	    "STARTED", "AGE", "EXIT", "COMMAND");
	for (i = 0; i < n; i++)
		print_entry(&v[i], width, now);
}

int
cmd_jobs(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *jobs = NULL;
	struct entry *v;
	bool json = false;
	char err[512], *root;
	size_t i, n;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'J': jobs = optarg; break;
		case 'h':
			fputs(jobs_usage, stdout);
			return 0;
		default:
			fputs(jobs_usage, stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fputs(jobs_usage, stderr);
		return 2;
	}
	if ((root = job_root(jobs, false, err, sizeof err)) == NULL ||
	    (v = gather(root, &n, err, sizeof err)) == NULL) {
		fprintf(stderr, "calops: %s\n", err);
		free(root);
		return 1;
	}
	print_list(v, n, json);
	for (i = 0; i < n; i++) {
		job_record_release(&v[i].rec);
		free(v[i].name);
	}
	free(v);
	free(root);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}

/* Wait up to ms for the job to leave the running state; its state then. */
static int
wait_end(const char *root, const char *id, long ms, struct job_record *r)
{
	struct timespec nap = { 0, KILL_POLL_MS * 1000000L };
	char err[512];
	int state;

	for (;;) {
		job_record_release(r);
		state = job_look(root, id, r, err, sizeof err);
		if (state != JOB_RUNNING || ms <= 0)
			return state;
		nanosleep(&nap, NULL);
		ms -= KILL_POLL_MS;
	}
}

/* SIGTERM through the supervisor (which records the kill), SIGKILL to the
 * tool's process group after the grace period. */
static int
stop_job(const char *root, const char *id, struct job_record *r, long grace)
{
	char sig[32];
	int state;

	if (kill((pid_t)r->supervisor_pid, SIGTERM) == -1 && errno != ESRCH) {
		fprintf(stderr, "calops: cannot signal job '%s': %s\n", id,
		    strerror(errno));
		return 1;
	}
	state = wait_end(root, id, grace, r);
	if (state == JOB_RUNNING && r->pid > 0) {
		killpg((pid_t)r->pid, SIGKILL);
		state = wait_end(root, id, KILL_AFTER_MS, r);
	}
	if (state == JOB_DONE || state == JOB_FAILED || state == JOB_KILLED) {
		if (r->signal > 0)
			signal_name(r->signal, sig, sizeof sig);
		else
			snprintf(sig, sizeof sig, "exit %d", r->exit_code);
		printf("%s %s (%s)\n", id, job_state_name(state), sig);
		return 0;
	}
	if (state == JOB_LOST)
		fprintf(stderr, "calops: job '%s' is lost: its supervisor is "
		    "gone\n", id);
	else
		fprintf(stderr, "calops: job '%s' did not end\n", id);
	return 1;
}

static int
parse_grace(const char *s, long *ms)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !(d >= 0 && d <= 3600)) {
		fprintf(stderr, "calops: --grace wants 0 to 3600 seconds, not "
		    "'%s'\n", s);
		return -1;
	}
	*ms = (long)(d * 1000);
	return 0;
}

int
cmd_kill(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "grace", required_argument, NULL, 'g' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *jobs = NULL, *id;
	struct job_record r = { 0 };
	char err[512], *root;
	long grace = 5000;
	int c, state, rc = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'g':
			if (parse_grace(optarg, &grace) != 0)
				return 2;
			break;
		case 'J': jobs = optarg; break;
		case 'h':
			fputs(kill_usage, stdout);
			return 0;
		default:
			fputs(kill_usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(kill_usage, stderr);
		return 2;
	}
	id = argv[optind];
	if ((root = job_root(jobs, false, err, sizeof err)) == NULL) {
		fprintf(stderr, "calops: %s\n", err);
		return 1;
	}
	state = job_look(root, id, &r, err, sizeof err);
	if (state == JOB_RUNNING)
		rc = stop_job(root, id, &r, grace);
	else if (state == -1)
		fprintf(stderr, "calops: %s\n", err);
	else if (state == JOB_CORRUPT)
		fprintf(stderr, "calops: job '%s' is corrupt: %s\n", id, err);
	else if (state == JOB_LOST)
		fprintf(stderr, "calops: job '%s' is lost: its supervisor is "
		    "gone (its command was pid %ld)\n", id, r.pid);
	else
		fprintf(stderr, "calops: job '%s' has already ended (%s)\n", id,
		    job_state_name((enum job_state)state));
	job_record_release(&r);
	free(root);
	return rc;
}
