/*
 * labshare.c: two consoles on one state folder (labmodel_int.h).
 *
 * One console follows a state folder's jobs and writes their mirrors: two
 * appending to the same mirror, or one cutting a mirror the other appends
 * to, would break the exactly-once promise.  The first console takes a
 * flock on streams/.lock.  Another one watches:
 *
 *  - it replays the mirrors and follows the same streams from the hosts,
 *    applying events without writing anything;
 *  - it sees the jobs the first one starts: their records appear in the
 *    streams folder, which it watches (watchloop.h, inotify or polling);
 *  - it starts nothing;
 *  - when the first console quits or dies, the lock is free and it takes
 *    over: each mirror is caught up from the host (labstream_take_over) and
 *    outcomes the first did not log are logged.
 *
 * The wait for the lock costs nothing while idle: a child process blocks in
 * flock() on the console's own open file description (a lock taken through
 * it belongs to the description, so it stays the console's when the child
 * exits) and writes a byte to a pipe the loop watches.  The child dies with
 * the console (PR_SET_PDEATHSIG).
 */
#include "calops.h"

#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/statedir.h"
#include "lab/labmodel_int.h"
#include "lab/labreplay.h"
#include "lab/labshare.h"
#include "lab/labstream.h"
#include "loop/loop.h"
#include "loop/watchloop.h"

struct lshare {
	struct watchloop *watch;	/* the streams folder, or NULL */
	pid_t		 waiter;	/* blocked in flock(), or -1 */
	int		 waiter_fd;	/* its pipe, or -1 */
	char		**seen;		/* record ids looked at */
	size_t		 nseen;
};

static void	take_over(struct labmodel *lm);

/* ---- the jobs the other console starts ---- */

/* Whether a record was looked at before; from now on it was.  A record
 * that cannot be read is reported once, not at every change. */
static bool
seen_before(struct labmodel *lm, const char *id)
{
	struct lshare *s = lm->share;
	size_t i;

	for (i = 0; i < s->nseen; i++)
		if (strcmp(s->seen[i], id) == 0)
			return true;
	s->seen = xreallocarray(s->seen, s->nseen + 1, sizeof *s->seen);
	s->seen[s->nseen++] = xstrdup(id);
	for (i = 0; i < lm->njobs; i++)
		if (strcmp(lm->jobs[i]->pub.id, id) == 0)
			return true;
	return false;
}

/* At start: every record there is already the replay's. */
static bool
remember(struct labmodel *lm, const char *id)
{
	(void)seen_before(lm, id);
	return true;
}

static int
by_started(const void *a, const void *b)
{
	const struct ljob_int *x = *(struct ljob_int *const *)a;
	const struct ljob_int *y = *(struct ljob_int *const *)b;

	return (x->pub.started > y->pub.started) - (x->pub.started <
	    y->pub.started);
}

/* New records in the streams folder: jobs the other console started. */
static void
rescan(struct labmodel *lm)
{
	struct ljob_int **v = NULL, *j;
	size_t i, n = 0;
	char err[512];

	for (i = 0; i < lm->nhosts; i++)
		labreplay_scan_host(
		    lm, lm->hosts[i].h->name, seen_before, &v, &n);
	if (n > 1)
		qsort(v, n, sizeof *v, by_started);	/* oldest first */
	for (i = 0; i < n; i++) {
		j = v[i];
		labmodel_job_setup(lm, j, j->pub.kind == LJOB_SOAK);
		labstream_catching_up(j);
		j->pub.replaying = labmirror_replay_open(&j->mirror,
		    &j->pub.last_recv, err, sizeof err) == 0;
		labmodel_job_insert(lm, j);
		if (j->mirror.replay != NULL)
			labreplay_schedule(lm);
		else
			labstream_follow(j);
	}
	free(v);
	if (n > 0)
		labmodel_changed(lm);
}

static void
streams_changed(void *arg)
{
	rescan(arg);
}

/* ---- waiting for the lock ---- */

static int	start_waiter(struct labmodel *lm, char *err, size_t errlen);

static void
waiter_readable(struct loop *l, int fd, short revents, void *arg)
{
	struct labmodel *lm = arg;
	struct lshare *s = lm->share;
	char c, err[256];
	ssize_t n;

	(void)l;
	(void)revents;
	while ((n = read(fd, &c, 1)) == -1 && errno == EINTR)
		;
	if (n == -1 && errno == EAGAIN)
		return;
	loop_del_fd(lm->loop, fd);
	close(fd);
	s->waiter_fd = -1;
	/* It has written or died: this does not wait long.  ECHILD when the
	 * loop's SIGCHLD handler reaped it first. */
	while (waitpid(s->waiter, NULL, 0) == -1 && errno == EINTR)
		;
	s->waiter = -1;
	/* Killed before it wrote, it may have taken the lock all the same
	 * (it is this console's): ask the lock itself. */
	if (n == 1 || flock(lm->lock_fd, LOCK_EX | LOCK_NB) == 0) {
		take_over(lm);
		return;
	}
	if (start_waiter(lm, err, sizeof err) != 0)
		labmodel_warn(lm,
		    "stopped waiting for the other calops console to "
		    "quit (%s): restart this one to take over its jobs",
		    err);
}

/* Close every fd from 3 up but a and b. */
static void
keep_only(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a, fd;
	long max;

	if ((lo <= 3 || close_range(3, (unsigned)lo - 1, 0) == 0) &&
	    (hi <= lo + 1 || close_range((unsigned)lo + 1, (unsigned)hi - 1,
	    0) == 0) && close_range((unsigned)hi + 1, ~0U, 0) == 0)
		return;
	/* A kernel without close_range (before 5.9). */
	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (fd = 3; fd < max; fd++)
		if (fd != a && fd != b)
			close(fd);
}

/* Fork the child that blocks in flock() for us. */
static int
start_waiter(struct labmodel *lm, char *err, size_t errlen)
{
	struct lshare *s = lm->share;
	pid_t parent = getpid();
	int p[2];

	if (pipe2(p, O_CLOEXEC) != 0) {
		errbuf_set(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	if ((s->waiter = fork()) == -1) {
		errbuf_set(err, errlen, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (s->waiter == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
		    getppid() != parent)
			_exit(1);
		/* What top and ps -o comm show for it. */
		(void)prctl(PR_SET_NAME, "calops-lockwait");
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		/* It never execs, so close-on-exec does not apply: it keeps
		 * nothing of the console's but the lock and its pipe (a copy
		 * of the other console's lock, in a test of both in one
		 * process, would hold the lock it waits for). */
		keep_only(lm->lock_fd, p[1]);
		while (flock(lm->lock_fd, LOCK_EX) != 0)
			if (errno != EINTR)
				_exit(1);
		_exit(write(p[1], "1", 1) == 1 ? 0 : 1);
	}
	close(p[1]);
	s->waiter_fd = p[0];
	if (fileio_set_nonblock(p[0], true) != 0) {
		errbuf_set(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	loop_add_fd(lm->loop, p[0], POLLIN, waiter_readable, lm);
	return 0;
}

/* ---- the console's part ---- */

void
labshare_start(struct labmodel *lm)
{
	struct lshare *s;
	char *path, err[512];
	struct ljob_int **v = NULL;
	size_t i, n = 0;
	int fd;

	if (lm->streams == NULL)
		return;
	/* Neither it nor its lock may be a link or another user's. */
	if ((fd = statedir_open("streams", "the streams folder", true, NULL,
	    err, sizeof err)) == -1) {
		labmodel_warn(lm, "%s", err);
		return;
	}
	close(fd);
	path = xasprintf("%s/.lock", lm->streams);
	lm->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	free(path);
	if (lm->lock_fd == -1 || flock(lm->lock_fd, LOCK_EX | LOCK_NB) == 0)
		return;
	if (errno != EWOULDBLOCK) {
		/* No locks on this file system: one console is the rule. */
		labmodel_warn(lm,
		    "cannot lock '%s/.lock' (%s): run one console on "
		    "this state folder",
		    lm->streams, strerror(errno));
		return;
	}
	lm->observer = true;
	lm->share = s = xcalloc(1, sizeof *s);
	s->waiter_fd = -1;
	s->waiter = -1;
	for (i = 0; i < lm->nhosts; i++)
		labreplay_scan_host(lm, lm->hosts[i].h->name, remember, &v, &n);
	free(v);
	s->watch = watchloop_new(lm->loop, lm->streams, streams_changed, lm,
	    err, sizeof err);
	if (s->watch == NULL)
		labmodel_warn(lm,
		    "not watching for jobs the other console starts: "
		    "%s",
		    err);
	if (start_waiter(lm, err, sizeof err) != 0)
		labmodel_warn(lm, "cannot wait for the other console: %s", err);
	labmodel_warn(lm, "another calops console follows these jobs: this one "
	    "watches them, starts nothing, and takes over when it quits");
}

void
labshare_stop(struct labmodel *lm)
{
	struct lshare *s = lm->share;
	size_t i;

	if (s == NULL)
		return;
	if (s->waiter != -1) {
		kill(s->waiter, SIGKILL);
		while (waitpid(s->waiter, NULL, 0) == -1 && errno == EINTR)
			;
	}
	if (s->waiter_fd != -1) {
		loop_del_fd(lm->loop, s->waiter_fd);
		close(s->waiter_fd);
	}
	watchloop_free(s->watch);
	for (i = 0; i < s->nseen; i++)
		free(s->seen[i]);
	free(s->seen);
	free(s);
	lm->share = NULL;
}

/* The other console is gone: this one writes the mirrors from now on. */
static void
take_over(struct labmodel *lm)
{
	size_t i;

	lm->observer = false;
	for (i = 0; i < lm->njobs; i++)
		labstream_take_over(lm->jobs[i]);
	/* Records it wrote just before it went: followed as this console's
	 * (a job inserted here may push out an ended one, never one whose
	 * mirror is being caught up). */
	rescan(lm);
	labshare_stop(lm);
	labmodel_warn(lm, "the other calops console quit: this one follows the "
	    "lab's jobs now");
	labmodel_changed(lm);
}
