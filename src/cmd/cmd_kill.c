/* cmd_kill.c: `calops kill` stops a durable job. */
#include "calops.h"

#include <sys/file.h>

#include <fcntl.h>
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
    "still there after the grace period (default 5 seconds).  A lost job\n"
    "(its supervisor gone) whose tool still runs is stopped the same way,\n"
    "when its pid still has the start time the job recorded, and its end\n"
    "is recorded.\n"
    "\n"
    "  --grace SECONDS  how long to wait before SIGKILL (0 to 3600)\n"
    "  --jobs DIR       the jobs folder\n"
    "  -h, --help       this help\n"
    "\n"
    "Exit status: 0 when the job has ended, 1 when it is unknown, has ended\n"
    "already, did not end, or is lost with nothing to stop, 2 on a usage\n"
    "error.\n";

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

/* Whether the process pid is still running (not gone, not a zombie that
 * nobody has reaped yet). */
static bool
running(long pid)
{
	char path[64], stat[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return false;
	n = read(fd, stat, sizeof stat - 1);
	close(fd);
	if (n <= 0)
		return false;
	stat[n] = '\0';
	p = strrchr(stat, ')');
	return p != NULL && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* Signal the process group pgid, then wait up to ms for its leader to
 * go; true when it went. */
static bool
stop_group(long pgid, int sig, long ms)
{
	struct timespec nap = { 0, KILL_POLL_MS * 1000000L };

	if (killpg((pid_t)pgid, sig) == -1)
		return errno == ESRCH;
	while (running(pgid) && ms > 0) {
		nanosleep(&nap, NULL);
		ms -= KILL_POLL_MS;
	}
	return !running(pgid);
}

/*
 * The job's end written for the supervisor that is gone, as it would have:
 * an end event (killed, with the signal) and the final record.  Under the
 * job's lock, so that no supervisor is writing.
 */
static void
record_lost_end(const char *root, struct job_record *r, int sig)
{
	char *dir = xasprintf("%s/%s", root, r->id), err[512];
	struct job_sink k;
	int dfd, lock = -1, rc;

	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || (lock = openat(dfd, "lock", O_RDWR |
	    O_NOFOLLOW | O_CLOEXEC)) == -1 || flock(lock, LOCK_EX |
	    LOCK_NB) == -1) {
		fprintf(stderr, "calops: job '%s': cannot record its end: "
		    "%s\n", r->id, strerror(errno));
		goto out;
	}
	r->state = JOB_KILLED;
	r->signal = sig;
	r->ended = jobevent_now();
	if ((rc = jobevent_sink_resume(&k, dfd, "events.jsonl", err,
	    sizeof err)) == 0) {
		if (jobevent_sink_event(&k, "end", json_pack("{s:s,s:i,s:s}",
		    "state", "killed", "signal", sig, "by", "calops kill, "
		    "after its supervisor was gone")) != 0)
			fprintf(stderr, "calops: job '%s': cannot append its "
			    "end: %s\n", r->id, strerror(errno));
		jobevent_sink_close(&k);
	} else if (rc == -1)
		fprintf(stderr, "calops: job '%s': %s\n", r->id, err);
	if (jobstore_record_write(r, dfd, err, sizeof err) != 0)
		fprintf(stderr, "calops: job '%s': %s\n", r->id, err);
out:
	if (lock != -1)
		close(lock);
	if (dfd != -1)
		close(dfd);
	free(dir);
}

/*
 * A lost job (its supervisor gone) whose tool may live on, orphaned: its
 * process group is signalled only when the pid is still the tool's, the
 * same start time as the record's (a pid is reused), and the job's end is
 * recorded.  Says what it did.
 */
static int
stop_lost(const char *root, struct job_record *r, long grace)
{
	char now[sizeof r->pid_start];
	int sig = SIGTERM;

	if (r->pid <= 0) {
		fprintf(stderr, "calops: job '%s' is lost: its supervisor is "
		    "gone, and its tool never started\n", r->id);
		return 1;
	}
	if (jobstore_pid_start(r->pid, now, sizeof now) != 0 ||
	    !running(r->pid)) {
		fprintf(stderr, "calops: job '%s' is lost: its supervisor is "
		    "gone, and so is its tool (pid %ld): nothing to stop\n",
		    r->id, r->pid);
		return 1;
	}
	if (r->pid_start[0] == '\0' || strcmp(now, r->pid_start) != 0) {
		fprintf(stderr, "calops: job '%s' is lost: pid %ld is %s, not "
		    "signalled; look at it yourself (ps -o pid,lstart,args -g "
		    "%ld)\n", r->id, r->pid, r->pid_start[0] == '\0' ?
		    "not known to be its tool (its record has no start time)" :
		    "another process now (it started at another time)", r->pid);
		return 1;
	}
	if (!stop_group(r->pid, SIGTERM, grace)) {
		sig = SIGKILL;
		if (!stop_group(r->pid, SIGKILL, KILL_AFTER_MS)) {
			fprintf(stderr, "calops: job '%s' is lost, and its tool's "
			    "process group %ld did not stop\n", r->id, r->pid);
			return 1;
		}
	}
	record_lost_end(root, r, sig);
	printf("%s killed (%s to the process group %ld of its tool; its "
	    "supervisor was gone)\n", r->id, sig == SIGTERM ? "SIGTERM" :
	    "SIGKILL after the grace", r->pid);
	return 0;
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
		rc = stop_lost(root, &r, grace);
	else
		fprintf(stderr, "calops: job '%s' has already ended (%s)\n", id,
		    jobstore_state_name((enum job_state)state));
	jobstore_record_release(&r);
	free(root);
	return rc;
}
