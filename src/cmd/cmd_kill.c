/* cmd_kill.c: `calops kill` stops a durable job. */
#include "calops.h"

#include <sys/file.h>

#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "job/jobevent.h"
#include "job/jobsink.h"
#include "job/jobstore.h"

#define KILL_POLL_MS	20
#define KILL_AFTER_MS	5000	/* to wait for the record after SIGKILL */
#define LOCK_MS		2000	/* to wait for a lost job's lock */

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

/*
 * Processes are named by pid, and a pid is reused once its process is gone
 * and reaped: a job's pids are signalled only while they are still its.
 * A pid is the job's when the process has the start time job.json recorded
 * (jobstore_pid_start()).  The tool's process group is the job's while any
 * process of it lives and its leader is either the job's or gone: the
 * kernel does not give a group's number to a new process while the group
 * has members.
 */

/* A process in state st (jobstore_proc_state()) runs: it is there, and
 * not a zombie that nobody has reaped yet. */
static bool
runs(char st)
{
	return st != 0 && st != 'Z' && st != 'X';
}

static bool
running(long pid)
{
	long pgrp;

	return runs(jobstore_proc_state(pid, &pgrp));
}

/* How many processes of group pgid are running. */
static size_t
group_running(long pgid)
{
	struct dirent *de;
	size_t n = 0;
	long pid, pgrp;
	char st, *end;
	DIR *d;

	if ((d = opendir("/proc")) == NULL)
		return killpg((pid_t)pgid, 0) == 0 ? 1 : 0;
	while ((de = readdir(d)) != NULL) {
		pid = strtol(de->d_name, &end, 10);
		if (*end != '\0' || pid <= 0)
			continue;
		st = jobstore_proc_state(pid, &pgrp);
		n += runs(st) && pgrp == pgid;	/* pgrp is set only then */
	}
	closedir(d);
	return n;
}

/* Whether pid is the process started at start ("": not recorded). */
static bool
same_process(long pid, const char *start)
{
	char now[64];

	return start[0] != '\0' && jobstore_pid_start(pid, now,
	    sizeof now) == 0 && strcmp(now, start) == 0 && running(pid);
}

/* Whether the tool's process group is still the job's, and running. */
static bool
group_ours(const struct job_record *r)
{
	if (r->pid <= 0 || group_running(r->pid) == 0)
		return false;
	return running(r->pid) ? same_process(r->pid, r->pid_start) : true;
}

/* Signal the job's tool group, then wait up to ms for it to be gone;
 * true when it went. */
static bool
stop_group(const struct job_record *r, int sig, long ms)
{
	struct timespec nap = { 0, KILL_POLL_MS * 1000000L };

	if (!group_ours(r))
		return true;
	if (killpg((pid_t)r->pid, sig) == -1)
		return errno == ESRCH;
	while (group_running(r->pid) > 0 && ms > 0) {
		nanosleep(&nap, NULL);
		ms -= KILL_POLL_MS;
	}
	return group_running(r->pid) == 0;
}

/* SIGTERM through the supervisor (which records the kill), SIGKILL to the
 * tool's process group after the grace period.  A lock held by somebody
 * who is not the recorded supervisor (another `kill` recording a lost
 * job's end) is waited for, never signalled. */
static int
stop_job(const char *root, const char *id, struct job_record *r, long grace)
{
	/* An older record has no start: its pid is taken on trust. */
	bool ours = r->supervisor_start[0] == '\0' ||
	    same_process(r->supervisor_pid, r->supervisor_start);
	char sig[32];
	int state;

	if (ours && kill((pid_t)r->supervisor_pid, SIGTERM) == -1 &&
	    errno != ESRCH) {
		fprintf(stderr, "calops: cannot signal job '%s': %s\n", id,
		    strerror(errno));
		return 1;
	}
	state = wait_end(root, id, grace, r);
	if (state == JOB_RUNNING && ours && group_ours(r)) {
		(void)stop_group(r, SIGKILL, 0);
		state = wait_end(root, id, KILL_AFTER_MS, r);
	} else if (state == JOB_RUNNING && !ours)
		/* Another kill stopping a lost job holds the lock: its
		 * signals, its record. */
		state = wait_end(root, id, KILL_AFTER_MS + LOCK_MS, r);
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

/* The job's lock, taken from whoever holds it for a moment (`jobs` looks
 * with a shared lock; another `kill` records an end); -1 past LOCK_MS. */
static int
lock_job(int dfd)
{
	struct timespec nap = { 0, KILL_POLL_MS * 1000000L };
	long ms;
	int fd;

	if ((fd = openat(dfd, "lock", O_RDWR | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -1;
	for (ms = 0; flock(fd, LOCK_EX | LOCK_NB) == -1; ms += KILL_POLL_MS) {
		if (errno != EWOULDBLOCK || ms >= LOCK_MS) {
			close(fd);
			return -1;
		}
		nanosleep(&nap, NULL);
	}
	return fd;
}

/*
 * The end the supervisor could not write, written as it would have: an
 * end event (killed, with the signal) and the final record; 0, or -1
 * after saying why.  Under the job's lock (dfd: its folder).
 */
static int
record_lost_end(int dfd, struct job_record *r, int sig)
{
	struct job_sink k;
	char err[512];
	int rc;

	r->state = JOB_KILLED;
	r->signal = sig;
	r->ended = jobevent_now();
	if ((rc = jobsink_resume(&k, dfd, "events.jsonl", err,
	    sizeof err)) == 1) {
		/* It died between its end and its record: the end stands. */
		jobsink_close(&k);
		fprintf(stderr, "calops: job '%s': its events end already; "
		    "its record is left as it is\n", r->id);
		return -1;
	}
	if (rc == -1) {
		fprintf(stderr, "calops: job '%s': %s\n", r->id, err);
		return -1;
	}
	rc = jobsink_event(&k, "end", json_pack("{s:s,s:i,s:s}",
	    "state", "killed", "signal", sig, "by", "calops kill, after its "
	    "supervisor was gone"));
	if (rc != 0)
		fprintf(stderr, "calops: job '%s': cannot append its end: %s\n",
		    r->id, strerror(errno));
	jobsink_close(&k);
	if (rc == 0 && jobstore_record_write(r, dfd, err, sizeof err) != 0) {
		fprintf(stderr, "calops: job '%s': %s\n", r->id, err);
		rc = -1;
	}
	return rc;
}

/* Under the job's lock: the tool's group stopped, the end recorded. */
static int
stop_lost_locked(int dfd, struct job_record *r, long grace)
{
	int sig = SIGTERM;

	if (r->pid <= 0) {
		fprintf(stderr, "calops: job '%s' is lost: its supervisor is "
		    "gone, and its tool never started\n", r->id);
		return 1;
	}
	if (group_running(r->pid) == 0) {
		fprintf(stderr, "calops: job '%s' is lost: its supervisor is "
		    "gone, and so is its tool (process group %ld): nothing to "
		    "stop\n", r->id, r->pid);
		return 1;
	}
	if (!group_ours(r)) {
		fprintf(stderr, "calops: job '%s' is lost: pid %ld is %s, not "
		    "signalled; look at it yourself (ps -o pid,lstart,args -g "
		    "%ld)\n", r->id, r->pid, r->pid_start[0] == '\0' ?
		    "not known to be its tool (its record has no start time)" :
		    "another process now (it started at another time)", r->pid);
		return 1;
	}
	if (!stop_group(r, SIGTERM, grace)) {
		sig = SIGKILL;
		if (!stop_group(r, SIGKILL, KILL_AFTER_MS)) {
			fprintf(stderr, "calops: job '%s' is lost, and its tool's "
			    "process group %ld did not stop\n", r->id, r->pid);
			return 1;
		}
	}
	if (record_lost_end(dfd, r, sig) != 0)
		return 1;
	printf("%s killed (%s to the process group %ld of its tool; its "
	    "supervisor was gone)\n", r->id, sig == SIGTERM ? "SIGTERM" :
	    "SIGKILL after the grace", r->pid);
	return 0;
}

/*
 * A lost job (its supervisor gone) whose tool may live on, orphaned.  Its
 * lock is taken first and its record read again under it: a second `kill`
 * finds the job ended, and nobody else records an end meanwhile.
 */
static int
stop_lost(const char *root, struct job_record *r, long grace)
{
	char *dir = xasprintf("%s/%s", root, r->id), err[512], sig[32];
	struct job_record now = { 0 };
	int dfd, lock = -1, rc = 1;

	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || (lock = lock_job(dfd)) == -1)
		fprintf(stderr, "calops: job '%s' is lost, and its lock cannot "
		    "be taken: %s\n", r->id, errno == EWOULDBLOCK ? "another "
		    "calops holds it (try again)" : strerror(errno));
	else if (jobstore_record_read(&now, dir, err, sizeof err) != 0)
		fprintf(stderr, "calops: job '%s': %s\n", r->id, err);
	else if (now.state != JOB_RUNNING) {
		/* Another kill recorded its end meanwhile. */
		if (now.signal > 0)
			jobstore_signal_name(now.signal, sig, sizeof sig);
		else
			snprintf(sig, sizeof sig, "exit %d", now.exit_code);
		printf("%s %s (%s)\n", now.id, jobstore_state_name(now.state),
		    sig);
		rc = 0;
	} else
		rc = stop_lost_locked(dfd, &now, grace);
	jobstore_record_release(&now);
	if (lock != -1)
		close(lock);
	if (dfd != -1)
		close(dfd);
	free(dir);
	return rc;
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
