/*
 * linewin.c: a window on a long run of lines a host holds (linewin.h).  A
 * fetch is one command on the host's transport (its argv built by
 * proto/hostcmd.c), read on the console's poll loop: nothing here waits.
 */
#include "calops.h"

#include "remote/transport.h"
#include "views/linewin.h"

void
linewin_init(struct linewin *w, size_t size, size_t keep,
    const struct linewin_ops *ops, void *arg)
{
	memset(w, 0, sizeof *w);
	w->size = size;
	w->keep = keep > 0 ? keep : 1;
	w->ops = ops;
	w->arg = arg;
}

static void
release_items(struct linewin *w, char *items, size_t k)
{
	size_t i;

	for (i = 0; w->ops->release != NULL && i < k; i++)
		w->ops->release(items + i * w->size);
}

static void
drop_got(struct linewin *w)
{
	release_items(w, w->got, w->ngot);
	free(w->got);
	w->got = NULL;
	w->ngot = w->gotcap = 0;
}

void
linewin_release(struct linewin *w)
{
	if (w->rs != NULL)
		transport_rstream_cancel(w->rs);
	w->rs = NULL;
	drop_got(w);
	release_items(w, w->v, w->n);
	free(w->v);
	free(w->host);
	w->v = NULL;
	w->n = w->cap = 0;
}

void
linewin_clear(struct linewin *w)
{
	release_items(w, w->v, w->n);
	w->n = 0;
}

void *
linewin_item(const struct linewin *w, size_t i)
{
	return w->v + i * w->size;
}

size_t
linewin_add(struct linewin *w, const void *items, size_t k, bool before)
{
	size_t drop = 0, total = w->n + k;

	if (total > w->cap) {
		w->cap = total + total / 4;
		w->v = xreallocarray(w->v, w->cap, w->size);
	}
	if (before) {
		memmove(w->v + k * w->size, w->v, w->n * w->size);
		memcpy(w->v, items, k * w->size);
	} else
		memcpy(w->v + w->n * w->size, items, k * w->size);
	w->n = total;
	if (w->n <= w->keep)
		return 0;
	if (before) {
		/* The reader went back: the newest go. */
		drop = w->n - w->keep;
		release_items(w, w->v + w->keep * w->size, drop);
	} else {
		/* The reader went on: the oldest go, by the tenth when the
		 * lines come a few at a time. */
		drop = w->n - w->keep;
		if (k < w->keep / 10)
			drop = w->n - (w->keep - w->keep / 10);
		release_items(w, w->v, drop);
		memmove(w->v, w->v + drop * w->size, (w->n - drop) * w->size);
	}
	w->n -= drop;
	return drop;
}

void
linewin_push(struct linewin *w, const void *item)
{
	if (w->ngot == w->gotcap) {
		w->gotcap = w->gotcap == 0 ? 256 : w->gotcap * 2;
		w->got = xreallocarray(w->got, w->gotcap, w->size);
	}
	memcpy(w->got + w->ngot * w->size, item, w->size);
	w->ngot++;
}

static void
fetch_line(struct rstream *rs, const char *line, size_t len,
    bool from_stderr, bool cut, void *arg)
{
	struct linewin *w = arg;

	(void)rs;
	if (from_stderr) {
		if (w->err[0] == '\0')
			snprintf(w->err, sizeof w->err, "%s: %.*s", w->host,
			    (int)(len > 240 ? 240 : len), line);
		return;
	}
	w->printed++;
	w->ops->line(w, line, len, cut, w->arg);
}

/* What came joins what is held, or is let go with why. */
static void
fetch_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct linewin *w = arg;
	size_t added = 0, dropped = 0;

	(void)rs;
	w->rs = NULL;
	if (ex->err != NULL || ex->code != 0) {
		if (ex->err != NULL)
			snprintf(w->err, sizeof w->err, "%s", ex->err);
		else if (w->err[0] == '\0')
			snprintf(w->err, sizeof w->err, "the fetch on %s ended "
			    "with status %d", w->host, ex->code);
		drop_got(w);
	} else {
		w->err[0] = '\0';	/* a warning of a fetch that worked */
		added = w->ngot;
		if (w->where == LINEWIN_INSTEAD) {
			dropped = w->n;
			linewin_clear(w);
		}
		if (added > 0)
			dropped += linewin_add(w, w->got, added,
			    w->where == LINEWIN_BEFORE);
		free(w->got);
		w->got = NULL;
		w->ngot = w->gotcap = 0;
	}
	w->ops->done(w, w->err[0] != '\0' ? w->err : NULL, w->where, added,
	    dropped, w->arg);
}

static const struct rstream_cb fetch_cb = { fetch_line, fetch_done };

int
linewin_fetch(struct linewin *w, struct transport *t, const char *host,
    char *const *argv, enum linewin_where where)
{
	if (w->rs != NULL)
		return -1;	/* err is the running one's */
	free(w->host);
	w->host = xstrdup(host);
	w->where = where;
	w->printed = 0;
	w->err[0] = '\0';
	w->rs = transport_exec(t, argv, &fetch_cb, w, w->err, sizeof w->err);
	return w->rs != NULL ? 0 : -1;
}

bool
linewin_busy(const struct linewin *w)
{
	return w->rs != NULL;
}
