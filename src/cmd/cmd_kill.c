/* cmd_kill.c: `calops kill` stops a durable job. */
#include "calops.h"

#include <getopt.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "job/job.h"

#define KILL_POLL_MS	20
#define KILL_AFTER_MS	5000	/* to wait for the record after SIGKILL */

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

/* Wait up to ms for the job to leave the running state; its state then. */
static int
wait_end(const char *root, const char *id, long ms, struct job_record *r)
{
	struct timespec nap = { 0, KILL_POLL_MS * 1000000L };
	char err[512];
	int state;

	for (;;) {
		jobstore_record_release(r);
		state = jobstore_look(root, id, r, err, sizeof err);
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
			jobstore_signal_name(r->signal, sig, sizeof sig);
		else
			snprintf(sig, sizeof sig, "exit %d", r->exit_code);
		printf("%s %s (%s)\n", id, jobstore_state_name(state), sig);
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
	if ((root = jobstore_root(jobs, false, err, sizeof err)) == NULL) {
		fprintf(stderr, "calops: %s\n", err);
		return 1;
	}
	state = jobstore_look(root, id, &r, err, sizeof err);
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
		    jobstore_state_name((enum job_state)state));
	jobstore_record_release(&r);
	free(root);
	return rc;
}
