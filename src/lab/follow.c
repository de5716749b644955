/* follow.c: resumable job streams (see follow.h). */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include <jansson.h>

#include "base/fileio.h"
#include "lab/follow.h"
#include "proto/event.h"
#include "remote/transport.h"

#define FOLLOW_FILE_MAX	(4u << 20)

struct follow {
	struct loop		*loop;
	struct transport	*t;
	struct rstream		*rs;
	char			*host, *job;
	const struct follow_ops	*ops;
	void			*arg;
	struct follow_stats	 st;
	bool			 finished;
	bool			 busy;		/* inside ops->event */
	bool			 stopped;	/* follow_stop() from there */
	bool			 remember;	/* keep the position in follow.json */
	char			 lasterr[256];	/* the tail's last stderr line */
};

/* The remembered streams, [{host, job, last_seq}], shared by every follow
 * of the process; NULL until read. */
static json_t		*store;
static bool		 store_dirty;
static struct loop	*flush_loop;
static long		 flush_timer;

char *
follow_state_path(void)
{
	return fileio_state_path("follow.json", NULL, 0);
}

/* Read follow.json once; a missing file is an empty list. */
static int
store_load(char *err, size_t errlen)
{
	json_error_t je;
	json_t *root;
	char *path;

	if (store != NULL)
		return 0;
	if ((path = follow_state_path()) == NULL) {
		errbuf_set(err, errlen, "neither XDG_STATE_HOME nor HOME is set");
		return -1;
	}
	root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (root == NULL && access(path, F_OK) == 0) {
		errbuf_set(err, errlen, "cannot read '%s': %s", path, je.text);
		free(path);
		return -1;
	}
	free(path);
	store = json_array();
	if (root != NULL && json_is_array(json_object_get(root, "streams")))
		json_array_extend(store, json_object_get(root, "streams"));
	json_decref(root);
	return 0;
}

/* The entry of (host, job), borrowed, or NULL. */
static json_t *
store_find(const char *host, const char *job, size_t *index)
{
	const char *h, *j;
	json_t *e;
	size_t i;

	json_array_foreach(store, i, e) {
		h = json_string_value(json_object_get(e, "host"));
		j = json_string_value(json_object_get(e, "job"));
		if (h != NULL && j != NULL && strcmp(h, host) == 0 &&
		    strcmp(j, job) == 0) {
			if (index != NULL)
				*index = i;
			return e;
		}
	}
	return NULL;
}

static void
store_set(const char *host, const char *job, int64_t last_seq)
{
	json_t *e = store_find(host, job, NULL);

	if (e == NULL) {
		if (json_array_size(store) >= FOLLOW_MAX)
			json_array_remove(store, 0);
		e = json_pack("{s:s, s:s}", "host", host, "job", job);
		json_array_append_new(store, e);
	}
	json_object_set_new(e, "last_seq", json_integer(last_seq));
	store_dirty = true;
}

int
follow_flush(char *err, size_t errlen)
{
	json_t *root;
	char *path, *text;
	int rc;

	if (store == NULL || !store_dirty)
		return 0;
	if ((path = follow_state_path()) == NULL) {
		errbuf_set(err, errlen, "neither XDG_STATE_HOME nor HOME is set");
		return -1;
	}
	root = json_pack("{s:i, s:O}", "v", 1, "streams", store);
	text = json_dumps(root, JSON_INDENT(1) | JSON_COMPACT);
	json_decref(root);
	if (text == NULL)
		fatal("follow_flush: cannot encode follow.json");
	/* Synced: after a crash the position must not be older than shown. */
	if ((rc = fileio_make_parent(path, 0700, err, errlen)) == 0)
		rc = fileio_replace(path, text, strlen(text), 0600, true, err,
		    errlen);
	if (rc == 0)
		store_dirty = false;
	free(text);
	free(path);
	return rc;
}

/* The flush timer: a failed write is tried again at the next one. */
static void
flush_due(struct loop *l, void *arg)
{
	char err[512];

	(void)l;
	(void)arg;
	flush_timer = 0;
	if (follow_flush(err, sizeof err) != 0)
		fprintf(stderr, "calops: %s\n", err);
}

/* Batch the writes: one per FOLLOW_FLUSH_MS while events arrive. */
static void
flush_soon(struct loop *l)
{
	if (flush_timer != 0 && flush_loop == l &&
	    loop_timer_armed(l, flush_timer))
		return;
	flush_loop = l;
	flush_timer = loop_add_timer(l, FOLLOW_FLUSH_MS, flush_due, NULL);
}

static void
flush_now(void)
{
	char err[512];

	if (flush_timer != 0 && flush_loop != NULL)
		loop_del_timer(flush_loop, flush_timer);
	flush_timer = 0;
	if (follow_flush(err, sizeof err) != 0)
		fprintf(stderr, "calops: %s\n", err);
}

int
follow_saved(const char *host, const char *job, int64_t *last_seq, char *err,
    size_t errlen)
{
	json_t *e;

	if (store_load(err, errlen) != 0)
		return -1;
	if ((e = store_find(host, job, NULL)) == NULL)
		return 1;
	*last_seq = json_integer_value(json_object_get(e, "last_seq"));
	return 0;
}

int
follow_forget(const char *host, const char *job, char *err, size_t errlen)
{
	size_t i;

	if (store_load(err, errlen) != 0)
		return -1;
	if (store_find(host, job, &i) == NULL)
		return 0;
	json_array_remove(store, i);
	store_dirty = true;
	return follow_flush(err, errlen);
}

static void
free_follow(struct follow *f)
{
	free(f->host);
	free(f->job);
	free(f);
}

/* One event line: in order, or dropped and counted. */
static void
take_event(struct follow *f, const char *line, size_t len)
{
	struct event ev;
	char err[256];

	if (event_parse(line, len, &ev) != EVENT_OK) {
		f->st.bad++;
		return;
	}
	if (ev.seq <= f->st.last_seq) {
		f->st.duplicates++;
		return;
	}
	if (ev.seq > f->st.last_seq + 1) {
		f->st.gaps++;
		f->st.missing += (uint64_t)(ev.seq - f->st.last_seq - 1);
	}
	f->busy = true;
	f->ops->event(f, &ev, line, len, f->arg);
	f->busy = false;
	f->st.last_seq = ev.seq;
	f->st.delivered++;
	if (ev.type == EVENT_END) {
		f->finished = true;
		if (f->remember && follow_forget(f->host, f->job, err,
		    sizeof err) != 0)
			fprintf(stderr, "calops: %s\n", err);
		if (f->stopped)
			free_follow(f);
		return;
	}
	if (!f->remember) {
		if (f->stopped)
			free_follow(f);
		return;
	}
	store_set(f->host, f->job, f->st.last_seq);
	if (f->stopped) {
		flush_now();
		free_follow(f);
		return;
	}
	flush_soon(f->loop);
}

static void
on_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct follow *f = arg;

	(void)rs;
	if (from_stderr) {
		errbuf_set(f->lasterr, sizeof f->lasterr, "%.*s",
		    (int)(len > 200 ? 200 : len), line);
		return;
	}
	if (cut || f->finished) {
		f->st.bad += cut;
		return;
	}
	take_event(f, line, len);
}

static void
on_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct follow *f = arg;
	char why[512];

	(void)rs;
	f->rs = NULL;
	if (f->remember)
		flush_now();
	if (f->finished)
		f->ops->done(f, true, NULL, f->arg);
	else {
		if (ex->err != NULL)
			errbuf_set(why, sizeof why, "%s", ex->err);
		else if (ex->sig != 0)
			errbuf_set(why, sizeof why, "tail killed by signal %d",
			    ex->sig);
		else
			errbuf_set(why, sizeof why, "tail exited with status "
			    "%d before the end%s%s", ex->code,
			    f->lasterr[0] != '\0' ? ": " : "", f->lasterr);
		f->ops->done(f, false, why, f->arg);
	}
	free_follow(f);
}

static const struct rstream_cb follow_cb = {
	.line = on_line,
	.done = on_done,
};

/* Start `tail JOB --from FROM --follow`; NULL with err. */
static struct follow *
start(struct loop *l, struct transport *t, const char *job, int64_t from_seq,
    bool remember, const struct follow_ops *ops, void *arg, char *err,
    size_t errlen)
{
	char from[32], *argv[] = { "tail", NULL, "--from", from, "--follow",
	    NULL };
	struct follow *f;

	f = xcalloc(1, sizeof *f);
	f->loop = l;
	f->t = t;
	f->host = xstrdup(t->host);
	f->job = xstrdup(job);
	f->ops = ops;
	f->arg = arg;
	f->remember = remember;
	f->st.last_seq = from_seq - 1;
	snprintf(from, sizeof from, "%lld", (long long)from_seq);
	argv[1] = f->job;
	if ((f->rs = transport_exec(t, argv, &follow_cb, f, err,
	    errlen)) == NULL) {
		free_follow(f);
		return NULL;
	}
	return f;
}

struct follow *
follow_start(struct loop *l, struct transport *t, const char *job,
    int64_t from_seq, const struct follow_ops *ops, void *arg, char *err,
    size_t errlen)
{
	struct follow *f;
	int64_t saved;
	int rc;

	if ((rc = follow_saved(t->host, job, &saved, err, errlen)) == -1)
		return NULL;
	if (from_seq < 1)
		from_seq = 1;
	if (rc == 0 && saved + 1 > from_seq)
		from_seq = saved + 1;
	if ((f = start(l, t, job, from_seq, true, ops, arg, err,
	    errlen)) == NULL)
		return NULL;
	store_set(f->host, f->job, f->st.last_seq);
	flush_soon(l);
	return f;
}

struct follow *
follow_start_at(struct loop *l, struct transport *t, const char *job,
    int64_t from_seq, const struct follow_ops *ops, void *arg, char *err,
    size_t errlen)
{
	return start(l, t, job, from_seq < 1 ? 1 : from_seq, false, ops, arg,
	    err, errlen);
}

void
follow_stop(struct follow *f)
{
	if (f->rs != NULL)
		transport_rstream_cancel(f->rs);
	f->rs = NULL;
	if (f->busy) {
		f->stopped = true;	/* take_event frees it on return */
		return;
	}
	if (f->remember)
		flush_now();
	free_follow(f);
}

const struct follow_stats *
follow_stats(const struct follow *f)
{
	return &f->st;
}

const char *
follow_job(const struct follow *f)
{
	return f->job;
}

const char *
follow_host(const struct follow *f)
{
	return f->host;
}

int
follow_resume_all(struct loop *l, follow_transport_fn transport_for,
    const struct follow_ops *ops, void *arg, char *err, size_t errlen)
{
	struct transport *t;
	json_t *copy, *e;
	const char *host, *job;
	char why[512];
	size_t i;
	int n = 0;

	if (store_load(err, errlen) != 0)
		return -1;
	copy = json_deep_copy(store);
	json_array_foreach(copy, i, e) {
		host = json_string_value(json_object_get(e, "host"));
		job = json_string_value(json_object_get(e, "job"));
		if (host == NULL || job == NULL ||
		    (t = transport_for(host, arg)) == NULL)
			continue;
		if (follow_start(l, t, job, 1, ops, arg, why,
		    sizeof why) == NULL)
			fprintf(stderr, "calops: cannot follow job '%s' on "
			    "'%s': %s\n", job, host, why);
		else
			n++;
	}
	json_decref(copy);
	return n;
}
