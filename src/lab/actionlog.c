/* actionlog.c: the action log, appended a line at a time (see actionlog.h). */
#include "calops.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <math.h>
#include <pwd.h>
#include <unistd.h>

#include <jansson.h>

#include "base/fileio.h"
#include "base/statedir.h"
#include "base/text.h"
#include "lab/actionlog.h"

#define FIELD_MAX	256		/* bytes of user, host, what, job */
#define CHUNK		(64u << 10)	/* read backwards this much at a time */
#define OUTCOMES_MAX	16384		/* outcomes remembered while reading */

char *
actionlog_path(char *err, size_t errlen)
{
	return fileio_state_path("actions.jsonl", err, errlen);
}

/* Who is acting: the password entry's name, else $USER, else the uid. */
static char *
user_name(void)
{
	struct passwd *pw = getpwuid(getuid());
	const char *u = getenv("USER");

	if (pw != NULL && pw->pw_name != NULL && pw->pw_name[0] != '\0')
		return xstrdup(pw->pw_name);
	if (u != NULL && u[0] != '\0')
		return xstrdup(u);
	return xasprintf("uid %u", (unsigned)getuid());
}

/* A JSON string for s, at most max bytes cut on a character boundary,
 * with bytes that are not UTF-8 kept as the text \xHH (text_utf8_escape():
 * the record says what was run, even when it was not text); *cut is set
 * when something was shortened. */
static json_t *
jstr(const char *s, size_t max, bool *cut)
{
	char *fixed = text_utf8_escape(s, strlen(s));
	const unsigned char *p = (const unsigned char *)fixed;
	size_t len = strlen(fixed), o = 0, n;
	uint32_t cp;
	json_t *j;

	if (len > max)
		*cut = true;
	while (o < len && (n = text_utf8_decode(p + o, len - o, &cp)) != 0 &&
	    o + n <= max)
		o += n;
	j = json_stringn(fixed, o);
	free(fixed);
	return j;
}

static void
set_str(json_t *o, const char *key, const char *s, size_t max, bool *cut)
{
	json_object_set_new(o, key, s != NULL ? jstr(s, max, cut) :
	    json_null());
}

/* The record's line (a new string with its line feed) whose command is cut
 * to at most cmd_max bytes; NULL when it would still be too long. */
static char *
record_line(const struct action_rec *rec, const char *user, size_t cmd_max,
    size_t *lenp)
{
	json_t *o = json_object();
	bool cut = false, action = rec->outcome == NULL || rec->job == NULL;
	char *s, *line;
	size_t len;

	json_object_set_new(o, "ts", json_real(round(rec->ts * 1000) / 1000));
	if (action) {
		set_str(o, "user", user, FIELD_MAX, &cut);
		set_str(o, "host", rec->host, FIELD_MAX, &cut);
		json_object_set_new(o, "chip", rec->chip >= 0 ?
		    json_integer(rec->chip) : json_null());
	}
	set_str(o, "job", rec->job, FIELD_MAX, &cut);
	if (action) {
		set_str(o, "what", rec->what != NULL ? rec->what : "",
		    FIELD_MAX, &cut);
		set_str(o, "command", rec->command != NULL ? rec->command : "",
		    cmd_max, &cut);
	}
	if (rec->outcome != NULL)
		set_str(o, "outcome", rec->outcome, FIELD_MAX * 4, &cut);
	if (cut)
		json_object_set_new(o, "cut", json_true());
	s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(15));
	json_decref(o);
	if (s == NULL)
		fatal("cannot encode an action record");
	len = strlen(s);
	if (len + 1 > ACTIONLOG_LINE_MAX) {
		free(s);
		return NULL;
	}
	line = xasprintf("%s\n", s);
	free(s);
	*lenp = len + 1;
	return line;
}

/* Reads a file's lines from the last to the first, holding one line. */
struct rev {
	int	 fd;
	off_t	 pos;		/* the chunk holds the bytes from pos on */
	char	 chunk[CHUNK];
	size_t	 cend;		/* chunk[0, cend) is not yet consumed */
	char	 line[ACTIONLOG_LINE_MAX];
	size_t	 lp;		/* the line is line[lp, ACTIONLOG_LINE_MAX) */
	bool	 toolong, eof;
	uint64_t scanned;
};

static int
pread_full(int fd, char *p, size_t n, off_t off)
{
	ssize_t r;

	while (n > 0) {
		if ((r = pread(fd, p, n, off)) == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO;
			return -1;
		}
		p += r;
		n -= (size_t)r;
		off += r;
	}
	return 0;
}

/* Put the n bytes at p before the line assembled so far. */
static void
rev_prepend(struct rev *r, const char *p, size_t n)
{
	if (r->toolong)
		return;
	if (n > r->lp) {
		r->toolong = true;
		r->lp = sizeof r->line;
		return;
	}
	memcpy(r->line + r->lp - n, p, n);
	r->lp -= n;
}

static int
rev_emit(struct rev *r, const char **line, size_t *len, bool *toolong)
{
	*line = r->line + r->lp;
	*len = sizeof r->line - r->lp;
	*toolong = r->toolong;
	if (*len > 0 && (*line)[*len - 1] == '\r')
		(*len)--;
	r->lp = sizeof r->line;
	r->toolong = false;
	return 1;
}

/* The line before the last one returned: 1, 0 at the start of the file (or
 * when the scan budget is spent), -1 on a read error (errno).  *line is
 * borrowed until the next call. */
static int
rev_next(struct rev *r, const char **line, size_t *len, bool *toolong)
{
	const char *nl;
	size_t n, start;

	for (;;) {
		if (r->cend == 0) {
			if (r->eof)
				return 0;
			if (r->pos == 0) {
				r->eof = true;
				return rev_emit(r, line, len, toolong);
			}
			if (r->scanned >= ACTIONLOG_SCAN_MAX)
				return 0;
			n = r->pos < (off_t)CHUNK ? (size_t)r->pos : CHUNK;
			r->pos -= (off_t)n;
			if (pread_full(r->fd, r->chunk, n, r->pos) == -1)
				return -1;
			r->cend = n;
			r->scanned += n;
		}
		nl = memrchr(r->chunk, '\n', r->cend);
		start = nl != NULL ? (size_t)(nl - r->chunk) + 1 : 0;
		rev_prepend(r, r->chunk + start, r->cend - start);
		r->cend = nl != NULL ? (size_t)(nl - r->chunk) : 0;
		if (nl != NULL)
			return rev_emit(r, line, len, toolong);
	}
}

static char *
dup_field(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? xstrdup(s) : NULL;
}

/* An action record into an entry; its outcome is joined from outcomes. */
static void
entry_from(struct action_entry *e, json_t *o, json_t *outcomes)
{
	json_t *chip = json_object_get(o, "chip"), *out = o;

	e->ts = json_number_value(json_object_get(o, "ts"));
	e->user = dup_field(o, "user");
	e->host = dup_field(o, "host");
	e->chip = json_is_integer(chip) && json_integer_value(chip) >= 0 &&
	    json_integer_value(chip) <= INT_MAX ?
	    (int)json_integer_value(chip) : -1;
	e->job = dup_field(o, "job");
	e->what = dup_field(o, "what");
	e->command = dup_field(o, "command");
	if (json_object_get(o, "outcome") == NULL && e->job != NULL)
		out = json_object_get(outcomes, e->job);
	if ((e->outcome = dup_field(out, "outcome")) != NULL)
		e->outcome_ts = json_number_value(json_object_get(out, "ts"));
}

/* One line read backwards: an outcome is remembered, an action added.
 * Returns false when the line is not understood. */
static bool
take_line(const char *line, size_t len, json_t *outcomes,
    struct action_list *out)
{
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
	const char *job = json_string_value(json_object_get(o, "job"));
	bool ok = false;

	if (!json_is_object(o) || !json_is_number(json_object_get(o, "ts")))
		goto out;
	if (json_is_string(json_object_get(o, "what"))) {
		entry_from(&out->v[out->n++], o, outcomes);
		ok = true;
	} else if (job != NULL &&
	    json_is_string(json_object_get(o, "outcome"))) {
		/* Read backwards: the first outcome seen is the newest. */
		if (json_object_get(outcomes, job) == NULL &&
		    json_object_size(outcomes) < OUTCOMES_MAX)
			json_object_set(outcomes, job, o);
		ok = true;
	}
out:
	json_decref(o);
	return ok;
}

/* The log at path, else the state folder's (its path in *own), for
 * reading and never through a link; -1 with err, errno ENOENT when there
 * is none. */
static int
open_log(const char *path, char **own, char *err, size_t errlen)
{
	char *dir = NULL;
	int dfd, fd, e;

	if (path != NULL) {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW |
		    O_NONBLOCK);
		if (fd == -1 && errno != ENOENT)
			errbuf_set(err, errlen, "cannot open '%s': %s", path,
			    strerror(errno));
		return fd;
	}
	if ((dfd = statedir_open("", "the state folder", false, &dir, err,
	    errlen)) == -1)
		return -1;
	fd = statedir_open_file(dfd, dir, "actions.jsonl", O_RDONLY, 0, err,
	    errlen);
	e = errno;
	*own = xasprintf("%s/actions.jsonl", dir);
	close(dfd);
	free(dir);
	errno = e;
	return fd;
}

int
actionlog_load(const char *path, size_t max, struct action_list *out,
    char *err, size_t errlen)
{
	struct rev *r;
	struct stat st;
	json_t *outcomes;
	const char *line;
	char *own = NULL;
	size_t len;
	bool toolong;
	int rc = -1, got = 0;

	memset(out, 0, sizeof *out);
	if (max > ACTIONLOG_LOAD_MAX)
		max = ACTIONLOG_LOAD_MAX;
	r = xcalloc(1, sizeof *r);
	if ((r->fd = open_log(path, &own, err, errlen)) == -1) {
		/* No log yet: nothing to say. */
		if (errno == ENOENT) {
			errbuf_set(err, errlen, "%s", "");
			rc = 0;
		}
		goto out;
	}
	if (path == NULL)
		path = own;
	if (fstat(r->fd, &st) == -1) {
		errbuf_set(err, errlen, "cannot read '%s': %s", path,
		    strerror(errno));
		goto out_close;
	}
	r->pos = st.st_size;
	r->lp = sizeof r->line;
	out->v = xcalloc(max + 1, sizeof *out->v);
	outcomes = json_object();
	while (out->n < max && (got = rev_next(r, &line, &len,
	    &toolong)) == 1) {
		if (len == 0 && !toolong)
			continue;
		if (toolong || !take_line(line, len, outcomes, out))
			out->skipped++;
	}
	json_decref(outcomes);
	if (out->n < max && got == -1)
		errbuf_set(err, errlen, "cannot read '%s': %s", path,
		    strerror(errno));
	else
		rc = 0;
out_close:
	close(r->fd);
out:
	free(r);
	free(own);
	return rc;
}

/* Whether the n bytes of the file open on fd end in a cut line (no final
 * line feed). */
static bool
ends_cut(int fd, off_t n)
{
	char c;

	return n > 0 && pread(fd, &c, 1, n - 1) == 1 && c != '\n';
}

/*
 * Whether the log's first n bytes already hold rec's outcome: an outcome
 * record with the same job and words after the job's action record (an
 * outcome is always written after its action, so the search stops there).
 */
static bool
outcome_there(int fd, off_t n, const struct action_rec *rec)
{
	struct rev *r = xcalloc(1, sizeof *r);
	const char *line, *job;
	json_t *o;
	size_t len;
	bool toolong, there = false, action = false;

	r->fd = fd;
	r->pos = n;
	r->lp = sizeof r->line;
	while (!there && !action && rev_next(r, &line, &len, &toolong) == 1) {
		o = toolong ? NULL : json_loadb(line, len, 0, NULL);
		job = json_string_value(json_object_get(o, "job"));
		if (job != NULL && strcmp(job, rec->job) == 0) {
			action = json_object_get(o, "what") != NULL;
			there = !action && json_is_string(json_object_get(o,
			    "outcome")) && strcmp(json_string_value(
			    json_object_get(o, "outcome")), rec->outcome) == 0;
		}
		json_decref(o);
	}
	free(r);
	return there;
}

/*
 * Append line to the log open on fd, locked so that every console's check
 * and write are one step.  An outcome already there is not written again:
 * a job's end may be applied more than once (a replay after a restart, a
 * console that takes over another's jobs, a retry after a failed append)
 * and its outcome belongs in the log once.  A write that fails (a full
 * disk) is undone, the file cut back to where it ended, so that no part of
 * the record is left to be completed by the next one.
 */
static int
append_locked(int fd, const char *path, const struct action_rec *rec,
    const char *line, char *err, size_t errlen)
{
	struct stat st;
	char *out;
	int rc = -1, e;

	while (flock(fd, LOCK_EX) == -1 && errno == EINTR)
		;
	if (fstat(fd, &st) == -1) {
		errbuf_set(err, errlen, "cannot read '%s': %s", path,
		    strerror(errno));
		goto out;
	}
	if (rec->outcome != NULL && rec->job != NULL &&
	    outcome_there(fd, st.st_size, rec)) {
		rc = 0;
		goto out;
	}
	/* One write() per record: O_APPEND keeps other writers' lines
	 * whole, even those that take no lock. */
	out = ends_cut(fd, st.st_size) ? xasprintf("\n%s", line) :
	    xstrdup(line);
	if (fileio_write_full(fd, out, strlen(out)) == -1) {
		e = errno;
		(void)!ftruncate(fd, st.st_size);
		/* The reason first: a narrow status line clips the path. */
		errbuf_set(err, errlen, "%s: cannot append to '%s'",
		    strerror(e), path);
	} else
		rc = 0;
	free(out);
out:
	(void)flock(fd, LOCK_UN);
	return rc;
}

int
actionlog_append(const struct action_rec *rec, char *err, size_t errlen)
{
	char *dir = NULL, *path = NULL, *user = user_name(), *line;
	size_t cmd_max = ACTIONLOG_LINE_MAX, len = 0;
	int dfd, fd = -1, rc = -1;

	/* The other fields are short: a command of 0 bytes always fits. */
	while ((line = record_line(rec, user, cmd_max, &len)) == NULL)
		cmd_max /= 2;
	/* Neither the state folder nor the log may be a planted link. */
	if ((dfd = statedir_open("", "the state folder", true, &dir, err,
	    errlen)) != -1) {
		fd = statedir_open_file(dfd, dir, "actions.jsonl", O_RDWR |
		    O_APPEND | O_CREAT, 0600, err, errlen);
		close(dfd);
	}
	if (fd != -1) {
		path = xasprintf("%s/actions.jsonl", dir);
		rc = append_locked(fd, path, rec, line, err, errlen);
		close(fd);
	}
	free(path);
	free(dir);
	free(line);
	free(user);
	return rc;
}

void
actionlog_list_release(struct action_list *l)
{
	size_t i;
	struct action_entry *e;

	for (i = 0; i < l->n; i++) {
		e = &l->v[i];
		free(e->user);
		free(e->host);
		free(e->job);
		free(e->what);
		free(e->command);
		free(e->outcome);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}
