/*
 * watchloop.c: a watch driven by the loop (watchloop.h).
 */
#include "calops.h"

#include <poll.h>

#include "loop/loop.h"
#include "loop/watch.h"
#include "loop/watchloop.h"

struct watchloop {
	struct loop	*loop;
	struct watch	*watch;
	int		 fd;		/* registered with the loop, or -1 */
	long		 timer;		/* polling: the next walk, or -1 */
	void		(*changed)(void *);
	void		*arg;
};

static void	rearm(struct watchloop *wl);

static void
readable(struct loop *l, int fd, short revents, void *arg)
{
	struct watchloop *wl = arg;

	(void)l;
	(void)fd;
	(void)revents;
	if (watch_read(wl->watch))
		wl->changed(wl->arg);
	rearm(wl);
}

static void
tick(struct loop *l, void *arg)
{
	struct watchloop *wl = arg;

	(void)l;
	wl->timer = -1;
	if (watch_poll(wl->watch))
		wl->changed(wl->arg);
	rearm(wl);
}

/* Follow the watch's mode with the loop's fd or timer. */
static void
rearm(struct watchloop *wl)
{
	int fd = watch_fd(wl->watch);

	if (fd != wl->fd) {
		if (wl->fd != -1)
			loop_del_fd(wl->loop, wl->fd);
		if (fd != -1)
			loop_add_fd(wl->loop, fd, POLLIN, readable, wl);
		wl->fd = fd;
	}
	if (fd == -1 && wl->timer == -1)
		wl->timer = loop_add_timer(wl->loop,
		    watch_timeout_ms(wl->watch), tick, wl);
	else if (fd != -1 && wl->timer != -1) {
		loop_del_timer(wl->loop, wl->timer);
		wl->timer = -1;
	}
}

struct watchloop *
watchloop_new(struct loop *l, const char *root, void (*changed)(void *),
    void *arg, char *err, size_t errlen)
{
	struct watchloop *wl;
	struct watch *w;

	if ((w = watch_new(root, err, errlen)) == NULL)
		return NULL;
	wl = xcalloc(1, sizeof *wl);
	wl->loop = l;
	wl->watch = w;
	wl->fd = -1;
	wl->timer = -1;
	wl->changed = changed;
	wl->arg = arg;
	rearm(wl);
	return wl;
}

void
watchloop_free(struct watchloop *wl)
{
	if (wl == NULL)
		return;
	if (wl->fd != -1)
		loop_del_fd(wl->loop, wl->fd);
	if (wl->timer != -1)
		loop_del_timer(wl->loop, wl->timer);
	watch_free(wl->watch);
	free(wl);
}

struct watch *
watchloop_watch(const struct watchloop *wl)
{
	return wl->watch;
}
