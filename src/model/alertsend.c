/* alertsend.c: one sender a state folder (see alertsend.h). */
#include "calops.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "alert/alertjournal.h"
#include "alert/alertrule.h"
#include "base/fileio.h"
#include "base/statedir.h"
#include "base/text.h"
#include "lab/labmodel.h"
#include "loop/loop.h"
#include "model/alertsend.h"
#include "model/alertwatch.h"
#include "remote/lab.h"

/* A job end a standby was told, kept for when it takes over. */
struct kept {
	char	*host, *id, *state, *command;
	int	 exit_code, sig;
	double	 ended;		/* the host's, or when it was told */
	double	 at;		/* when it was told */
};

struct alertsend {
	struct loop		*loop;
	struct labmodel		*lm;
	const struct lab	*lab;
	char			*who;
	alerthook_say_fn	 say;
	alertsend_changed_fn	 changed;
	void			*arg;
	struct alertjournal	 j;
	off_t			 size;		/* of the journal, last read */
	bool			 can_send;	/* the lab has a hook */
	bool			 sending;	/* the lock is ours */
	struct alertwatch	*w;		/* while sending */
	long			 holder_pid;	/* another's, 0: none known */
	char			 holder_who[64];
	long			 timer;
	struct kept		*kept;		/* oldest first */
	size_t			 nkept;
};

/* The file beside the journal that says who holds it; a new string. */
static char *
sender_path(const struct alertjournal *j)
{
	char *dir = xstrdup(j->path), *path;

	path = xasprintf("%s/%s", dirname(dir), ALERTSEND_FILE);
	free(dir);
	return path;
}

/* "812 calops alerts" into the sender file, for the others to say. */
static void
sender_write(struct alertsend *s)
{
	char err[512], *path = sender_path(&s->j), *line;
	int fd;

	line = xasprintf("%ld %s\n", (long)getpid(), s->who);
	fd = statedir_open_path(path, O_WRONLY | O_CREAT | O_TRUNC, 0600, err,
	    sizeof err);
	if (fd == -1 || fileio_write_full(fd, line, strlen(line)) != 0)
		s->say(fd == -1 ? err : "cannot write who sends the alerts",
		    s->arg);
	if (fd != -1)
		close(fd);
	free(line);
	free(path);
}

int
alertsend_holder(const struct alertjournal *j, long *pid, char *who,
    size_t len)
{
	char err[512], text[128], *path, *end;
	ssize_t n = -1;
	int fd;

	*pid = 0;
	snprintf(who, len, "?");
	if (j->fd == -1)
		return -1;
	/* Shared, at once: taken (then let go), nobody holds it. */
	if (flock(j->fd, LOCK_SH | LOCK_NB) == 0) {
		(void)flock(j->fd, LOCK_UN);
		return 0;
	}
	if (errno != EWOULDBLOCK)
		return -1;
	path = sender_path(j);
	if ((fd = statedir_open_path(path, O_RDONLY, 0, err,
	    sizeof err)) != -1) {
		n = read(fd, text, sizeof text - 1);
		close(fd);
	}
	free(path);
	if (n <= 0)
		return 1;
	text[n] = '\0';
	text[strcspn(text, "\n")] = '\0';
	*pid = strtol(text, &end, 10);
	if (*end == ' ') {
		/* Written by a calops, read back here: not trusted still. */
		path = text_sanitize_str(end + 1);
		snprintf(who, len, "%s", path);
		free(path);
	}
	return 1;
}

static void
kept_free(struct kept *k)
{
	free(k->host);
	free(k->id);
	free(k->state);
	free(k->command);
}

/* The kept ends older than ALERTSEND_KEPT_S, or all with all, let go. */
static void
kept_drop(struct alertsend *s, double now, bool all)
{
	size_t n = 0;

	while (n < s->nkept && (all || s->kept[n].at < now - ALERTSEND_KEPT_S))
		kept_free(&s->kept[n++]);
	if (n == 0)
		return;		/* nothing let go (and maybe no array yet) */
	memmove(s->kept, s->kept + n, (s->nkept - n) * sizeof *s->kept);
	s->nkept -= n;
}

/* A standby told of a job's end that fires job.failed: kept, the oldest
 * let go past ALERTSEND_KEPT_MAX. */
static void
keep(struct alertsend *s, const struct ljob_end *e)
{
	double now = (double)time(NULL);
	char msg[300], *host, *id;
	struct kept *k;
	size_t i;

	if (!s->can_send || s->sending || e->host == NULL || e->id == NULL ||
	    (strcmp(e->state, "failed") != 0 &&
	    strcmp(e->state, "killed") != 0 && strcmp(e->state, "lost") != 0))
		return;
	kept_drop(s, now, false);
	/* Told live and by the poll both: kept once. */
	for (i = 0; i < s->nkept; i++)
		if (strcmp(s->kept[i].host, e->host) == 0 &&
		    strcmp(s->kept[i].id, e->id) == 0)
			return;
	if (s->nkept == ALERTSEND_KEPT_MAX) {
		kept_free(&s->kept[0]);
		memmove(s->kept, s->kept + 1, --s->nkept * sizeof *s->kept);
	}
	s->kept = xreallocarray(s->kept, s->nkept + 1, sizeof *s->kept);
	k = &s->kept[s->nkept++];
	k->host = xstrdup(e->host);
	k->id = xstrdup(e->id);
	k->state = xstrdup(e->state);
	k->command = xstrdup(e->command != NULL ? e->command : "?");
	k->exit_code = e->exit_code;
	k->sig = e->sig;
	k->ended = isfinite(e->ended) ? e->ended : now;
	k->at = now;
	/* Host and id came from a host: not trusted. */
	host = text_sanitize_str(e->host);
	id = text_sanitize_str(e->id);
	snprintf(msg, sizeof msg, "job %s on %s %s: kept, told if the one "
	    "that sends ends first", id, host, e->state);
	s->say(msg, s->arg);
	free(host);
	free(id);
}

/* Whether the journal shows a job.failed for kept end k: the one that
 * sent before told it. */
static bool
kept_told(const struct alertsend *s, const struct kept *k)
{
	const struct alertentry *e;
	size_t i;

	for (i = 0; i < s->j.n; i++) {
		e = &s->j.e[i];
		if (e->kind != NULL && e->host != NULL && e->job != NULL &&
		    strcmp(e->kind, alertrule_kind_name(ALERT_JOB)) == 0 &&
		    strcmp(e->host, k->host) == 0 && strcmp(e->job, k->id) == 0)
			return true;
	}
	return false;
}

/* The kept job ends the journal does not show told, to the watch just
 * made. */
static void
kept_give(struct alertsend *s)
{
	struct ljob_end e;
	size_t i;

	kept_drop(s, (double)time(NULL), false);
	for (i = 0; i < s->nkept; i++) {
		if (kept_told(s, &s->kept[i]))
			continue;
		e = (struct ljob_end){ s->kept[i].host, s->kept[i].id,
		    s->kept[i].state, s->kept[i].exit_code, s->kept[i].sig,
		    s->kept[i].ended, NULL, s->kept[i].command };
		alertwatch_host_ended(s->w, &e);
	}
	kept_drop(s, 0, true);
}

/* The lock taken: read the journal whole again (what the one before
 * wrote), then judge and send from it. */
static bool
take(struct alertsend *s)
{
	char err[512];

	if (!s->can_send || s->j.fd == -1 ||
	    flock(s->j.fd, LOCK_EX | LOCK_NB) != 0)
		return false;
	if (alertjournal_reload(&s->j, true, err, sizeof err) != 0) {
		s->say(err, s->arg);
		(void)flock(s->j.fd, LOCK_UN);
		return false;
	}
	s->sending = true;
	s->holder_pid = 0;
	sender_write(s);
	s->w = alertwatch_new(s->loop, s->lm, s->lab, &s->j, s->say, s->arg);
	kept_give(s);
	return true;
}

/* Another sends: what it wrote since, read; who it is. */
static bool
follow(struct alertsend *s)
{
	char err[512], who[sizeof s->holder_who];
	bool changed = false;
	long pid;

	if (s->j.fd == -1 && alertjournal_open(&s->j, false, err,
	    sizeof err) != 0)
		return false;
	if (alertsend_holder(&s->j, &pid, who, sizeof who) == -1)
		return false;
	if (pid != s->holder_pid || strcmp(who, s->holder_who) != 0) {
		s->holder_pid = pid;
		snprintf(s->holder_who, sizeof s->holder_who, "%s", who);
		changed = true;
	}
	return changed;
}

/* Whether the journal grew (or was cut) since last seen. */
static bool
grew(struct alertsend *s)
{
	struct stat st;
	char err[512];

	if (s->j.fd == -1 || fstat(s->j.fd, &st) != 0 || st.st_size == s->size)
		return false;
	s->size = st.st_size;
	if (!s->sending && alertjournal_reload(&s->j, false, err,
	    sizeof err) != 0)
		s->say(err, s->arg);
	return true;
}

static void
tick(struct loop *l, void *arg)
{
	struct alertsend *s = arg;
	bool changed = false;
	char msg[200];

	s->timer = loop_add_timer(l, ALERTSEND_TRY_MS, tick, s);
	if (!s->sending && take(s)) {
		alertsend_who(s, msg, sizeof msg);
		s->say(msg, s->arg);
		changed = true;
	} else if (!s->sending)
		changed = follow(s);
	if (grew(s) || changed)
		s->changed(s->arg);
}

struct alertsend *
alertsend_new(struct loop *l, struct labmodel *lm, const struct lab *lab,
    const char *who, alerthook_say_fn say, alertsend_changed_fn changed,
    void *arg, char *err, size_t errlen)
{
	struct alertsend *s = xcalloc(1, sizeof *s);
	char msg[200];

	s->loop = l;
	s->lm = lm;
	s->lab = lab;
	s->who = xstrdup(who);
	s->say = say;
	s->changed = changed;
	s->arg = arg;
	s->can_send = lab->alert_hook.argv != NULL;
	/* Made when this one may send: it holds it locked; else read when
	 * there is one. */
	if (alertjournal_open(&s->j, false, err, errlen) != 0 ||
	    (s->j.fd == -1 && s->can_send &&
	    alertjournal_open(&s->j, true, err, errlen) != 0)) {
		free(s->who);
		free(s);
		return NULL;
	}
	if (!take(s))
		(void)follow(s);
	(void)grew(s);
	if (s->can_send) {
		alertsend_who(s, msg, sizeof msg);
		s->say(msg, s->arg);
	}
	s->timer = loop_add_timer(l, ALERTSEND_TRY_MS, tick, s);
	return s;
}

void
alertsend_free(struct alertsend *s)
{
	if (s == NULL)
		return;
	loop_del_timer(s->loop, s->timer);
	alertwatch_free(s->w);
	/* Closing the journal lets its lock go: another takes over. */
	alertjournal_close(&s->j);
	kept_drop(s, 0, true);
	free(s->kept);
	free(s->who);
	free(s);
}

void
alertsend_lab_changed(struct alertsend *s)
{
	if (s->w != NULL)
		alertwatch_lab_changed(s->w);
}

void
alertsend_job_ended(struct alertsend *s, const struct ljob *j)
{
	struct ljob_end e = { j->host, j->id, NULL, j->exit_code, j->sig,
	    NAN, NULL, j->label };

	if (s->w != NULL) {
		alertwatch_job_ended(s->w, j);
		return;
	}
	if (j->id == NULL)
		return;
	if (j->state == LJ_FAILED)
		e.state = "failed";
	else if (j->state == LJ_KILLED)
		e.state = "killed";
	else if (j->state == LJ_BROKEN)
		e.state = "lost";
	else
		return;
	keep(s, &e);
}

void
alertsend_host_ended(struct alertsend *s, const struct ljob_end *e)
{
	if (s->w != NULL)
		alertwatch_host_ended(s->w, e);
	else
		keep(s, e);
}

const struct alertjournal *
alertsend_journal(const struct alertsend *s)
{
	return &s->j;
}

bool
alertsend_sending(const struct alertsend *s)
{
	return s->sending;
}

struct alertwatch *
alertsend_watch(struct alertsend *s)
{
	return s->w;
}

void
alertsend_who(const struct alertsend *s, char *buf, size_t len)
{
	if (s->sending)
		snprintf(buf, len, "this %s sends alerts", s->who);
	else if (s->holder_pid > 0)
		snprintf(buf, len, "alerts sent by %s, pid %ld%s",
		    s->holder_who, s->holder_pid, s->can_send ? ": this one "
		    "takes over when it ends" : "");
	else if (s->can_send)
		snprintf(buf, len, "no one sends alerts yet");
	else
		snprintf(buf, len, "no one sends alerts: no calops alerts "
		    "runs, and this lab has no alerts: hook");
}
