/*
 * watchloop.h: a watch (watch.h) driven by the console's loop (loop.h).
 *
 * A watch uses inotify or polling and may switch between them (the root
 * went away, or came back); this keeps the loop's fd or timer in step with
 * whichever it uses now and calls changed() when watch_read or watch_poll
 * says something relevant changed.  The workspace's watch (views/app/app.c)
 * and the streams folder's (src/lab/labshare.c) are both driven this way.
 *
 * Owned by its creator; watchloop_free() takes the fd and timer off the
 * loop, which must outlive it.  changed() must not free the watchloop: it
 * is re-armed after the callback returns.
 */
#ifndef CALOPS_WATCHLOOP_H
#define CALOPS_WATCHLOOP_H

#include "calops.h"

struct loop;
struct watch;
struct watchloop;

/* Watch the tree under root; NULL with err when it cannot be read. */
struct watchloop *watchloop_new(struct loop *l, const char *root,
		    void (*changed)(void *arg), void *arg, char *err,
		    size_t errlen);
void		 watchloop_free(struct watchloop *wl);
/* The watch itself, for watch_describe() and watch_root_ok(). */
struct watch	*watchloop_watch(const struct watchloop *wl);

#endif
