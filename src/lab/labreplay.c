/*
 * labreplay.c: the lab model at start (labmodel.h): the job records and
 * mirrors an earlier console left, replayed a chunk per loop turn before
 * their streams resume.
 */
#include "calops.h"

#include <dirent.h>
#include <unistd.h>

#include "base/statedir.h"
#include "lab/follow.h"
#include "lab/labmodel_int.h"
#include "lab/labreplay.h"
#include "lab/labstream.h"
#include "proto/event.h"

#define REPLAY_LINES	20000	/* mirror lines applied per loop turn */

static int
by_started(const void *a, const void *b)
{
	const struct ljob_int *x = *(struct ljob_int *const *)a;
	const struct ljob_int *y = *(struct ljob_int *const *)b;

	return (x->pub.started < y->pub.started) - (x->pub.started >
	    y->pub.started);
}

void
labreplay_scan_host(struct labmodel *lm, const char *host,
    bool (*skip)(struct labmodel *, const char *id), struct ljob_int ***v,
    size_t *n)
{
	char *dir = xasprintf("%s/%s", lm->streams, host), *path, err[512];
	struct ljob_int *j;
	struct dirent *d;
	size_t len;
	DIR *dp = NULL;
	int fd;

	/* The folder is the user's alone, or nothing in it is believed. */
	path = xasprintf("streams/%s", host);
	fd = statedir_open(path, "the host's mirror folder", false, NULL, err,
	    sizeof err);
	free(path);
	if (fd == -1 && errno != ENOENT)
		labmodel_warn(lm, "%s", err);
	if (fd == -1 || (dp = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		free(dir);
		return;
	}
	while ((d = readdir(dp)) != NULL) {
		len = strlen(d->d_name);
		if (d->d_name[0] == '.' || len < 6 ||
		    strcmp(d->d_name + len - 5, ".json") != 0)
			continue;
		if (skip != NULL) {
			d->d_name[len - 5] = '\0';
			if (skip(lm, d->d_name))
				continue;
			d->d_name[len - 5] = '.';
		}
		path = xasprintf("%s/%s", dir, d->d_name);
		j = labstream_job_from_meta(lm, path, err, sizeof err);
		free(path);
		if (j == NULL) {
			labmodel_warn(lm, "%s", err);
			continue;
		}
		/* A record is its job's <id>.json on its host: a copy under
		 * another name would stand for the job twice, and removing
		 * one's files would remove the other's. */
		d->d_name[len - 5] = '\0';
		if (strcmp(j->pub.host, host) != 0 ||
		    strcmp(j->pub.id, d->d_name) != 0) {
			labmodel_warn(lm,
			    "'%s/%s.json' is not a record of its own "
			    "(job '%s' on '%s'): left alone",
			    dir, d->d_name, j->pub.id, j->pub.host);
			labstream_job_free(j);
			continue;
		}
		*v = xreallocarray(*v, *n + 1, sizeof **v);
		(*v)[(*n)++] = j;
	}
	closedir(dp);
	free(dir);
}

/* Apply up to *budget lines of j's mirror, taken by the follower's rule
 * (follow_judge); when done, follow on (a console watching another's jobs
 * follows them too, without writing). */
static bool
replay_one(struct labmodel *lm, struct ljob_int *j, size_t *budget)
{
	struct follow_stats st = { 0 };
	struct event ev;
	const char *line;
	char err[512];
	size_t len;
	bool bad;

	for (; *budget > 0; (*budget)--) {
		if (labmirror_replay_next(&j->mirror, &line, &len, &bad) == 0)
			break;
		st.last_seq = j->pub.last_seq;
		st.ended = j->ended;
		if (follow_judge(&st, line, len, bad, &ev) != FOLLOW_TAKE) {
			j->pub.bad_lines++;
			continue;
		}
		labstream_apply(j, &ev, line, len);
	}
	if (*budget == 0)
		return false;
	/* A watching console leaves the file as the writer has it. */
	if (labmirror_replay_end(&j->mirror, lm->observer, err,
	    sizeof err) != 0)
		labmodel_warn(lm, "%s", err);
	j->mirror.seq = j->pub.last_seq;
	j->pub.replaying = false;
	labstream_follow(j);
	return true;
}

/*
 * Replay the mirrors REPLAY_LINES lines per loop turn, the unfinished jobs
 * first (newest first: their streams resume as soon as they are caught
 * up), then the ended ones oldest first (fault results in their order).
 */
static void
replay_fire(struct loop *l, void *arg)
{
	struct labmodel *lm = arg;
	size_t i, budget = REPLAY_LINES;
	bool all = true;

	lm->replay_timer = -1;
	for (i = 0; i < lm->njobs && all; i++)
		if (lm->jobs[i]->mirror.replay != NULL &&
		    lm->jobs[i]->unfinished)
			all = replay_one(lm, lm->jobs[i], &budget);
	for (i = lm->njobs; i-- > 0 && all;)
		if (lm->jobs[i]->mirror.replay != NULL)
			all = replay_one(lm, lm->jobs[i], &budget);
	labmodel_changed(lm);
	if (!all)
		lm->replay_timer = loop_add_timer(l, 0, replay_fire, lm);
}

/*
 * An ended job past those the console shows, its outcome logged: its
 * files go, the record first (a mirror without one is never read), so that
 * the mirrors of 24 h soaks (gigabytes each) do not pile up.  Nothing is
 * lost: the job's own events stay on its host and its outcome is in the
 * action log.  A watching console leaves this to the one that writes.
 */
static void
forget_files(struct labmodel *lm, const struct ljob_int *j)
{
	static const char *const exts[] = { "json", "jsonl", "acks" };
	char *path;
	size_t i;

	for (i = 0; i < nitems(exts) && !lm->observer; i++) {
		path = labmodel_job_path(lm, j->pub.host, j->pub.id, exts[i]);
		if (unlink(path) != 0 && errno != ENOENT)
			labmodel_warn(lm, "cannot remove '%s': %s", path,
			    strerror(errno));
		free(path);
	}
}

/*
 * The jobs this console (or an earlier one) started, newest first: every
 * one whose mirror has not ended (it may still run), and the newest ended
 * ones up to LAB_JOBS_MAX in all.  Soaks keep their samples when unfinished
 * or among the newest LAB_SOAKS_LOADED.
 */
void
labreplay_init(struct labmodel *lm)
{
	struct ljob_int **v = NULL, *j;
	size_t i, n = 0, live = 0, kept = 0, soaks = 0;
	char *path, err[512];

	if (lm->streams == NULL)
		return;
	for (i = 0; i < lm->nhosts; i++)
		labreplay_scan_host(lm, lm->hosts[i].h->name, NULL, &v, &n);
	if (n > 1)
		qsort(v, n, sizeof *v, by_started);
	for (i = 0; i < n; i++) {
		path = labmodel_job_path(
		    lm, v[i]->pub.host, v[i]->pub.id, "jsonl");
		v[i]->unfinished = !labmirror_ended(path);
		free(path);
		live += v[i]->unfinished;
		soaks += v[i]->unfinished && v[i]->pub.kind == LJOB_SOAK;
	}
	for (i = 0; i < n; i++) {
		j = v[i];
		/* An outcome not logged yet (a console died between
		 * mirroring the end and logging it) is logged by the replay
		 * first; the files go at a later start. */
		if (!j->unfinished && live + kept >= LAB_JOBS_MAX &&
		    j->outcome_logged) {
			forget_files(lm, j);
			labstream_job_free(j);
			continue;
		}
		kept += !j->unfinished;
		labmodel_job_setup(lm, j,
		    j->pub.kind == LJOB_SOAK &&
			(j->unfinished || ++soaks <= LAB_SOAKS_LOADED));
		/* Running only once its host says so (labstream.c). */
		labstream_catching_up(j);
		/* A mirror refused is not followed (labstream_follow). */
		j->pub.replaying = labmirror_replay_open(&j->mirror,
		    &j->pub.last_recv, err, sizeof err) == 0;
		lm->jobs = xreallocarray(lm->jobs, lm->njobs + 1,
		    sizeof *lm->jobs);
		lm->jobs[lm->njobs++] = j;
	}
	free(v);
	/* Jobs without a mirror yet (the console died before the first
	 * event) are followed from the start at once. */
	for (i = 0; i < lm->njobs; i++)
		if (lm->jobs[i]->mirror.replay == NULL)
			labstream_follow(lm->jobs[i]);
	labreplay_schedule(lm);
}

void
labreplay_schedule(struct labmodel *lm)
{
	if (lm->replay_timer == -1)
		lm->replay_timer = loop_add_timer(lm->loop, 0, replay_fire,
		    lm);
}
