/* loop.c: poll(), timers, signals and the before-sleep hook (see loop.h). */
#include "calops.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "loop/loop.h"

struct loop_fd {
	int		 fd;
	short		 events;
	loop_fd_fn	 fn;
	void		*arg;
	bool		 dead;
};

struct loop_timer {
	long		 id;
	int64_t		 due;
	loop_timer_fn	 fn;
	void		*arg;
};

struct loop_signal {
	int		 sig;
	loop_signal_fn	 fn;
	void		*arg;
};

struct loop {
	struct loop_fd		*fds;
	size_t			 nfds;
	struct loop_timer	*timers;
	size_t			 ntimers;
	long			 next_timer;
	struct loop_signal	 signals[16];
	size_t			 nsignals;
	loop_hook_fn		 before_sleep;
	void			*before_sleep_arg;
	bool			 stop, no_sleep;
	long			 pace_ms;	/* loop_set_pace() */
	struct pollfd		*pfds;
	size_t			 pfds_alloc;
};

/* The self-pipe: one per process, as signals are. */
static int signal_pipe[2] = { -1, -1 };

int64_t
loop_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
signal_handler(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;

	(void)!write(signal_pipe[1], &b, 1);
	errno = saved;
}

static void
signal_readable(struct loop *l, int fd, short revents, void *arg)
{
	unsigned char b[64];
	ssize_t n, i;
	size_t k;

	(void)revents;
	(void)arg;
	while ((n = read(fd, b, sizeof b)) > 0) {
		for (i = 0; i < n; i++)
			for (k = 0; k < l->nsignals; k++)
				if (l->signals[k].sig == b[i])
					l->signals[k].fn(l, b[i],
					    l->signals[k].arg);
	}
}

struct loop *
loop_new(void)
{
	struct loop *l = xcalloc(1, sizeof *l);

	l->next_timer = 1;
	return l;
}

void
loop_free(struct loop *l)
{
	if (l == NULL)
		return;
	free(l->fds);
	free(l->timers);
	free(l->pfds);
	free(l);
}

static struct loop_fd *
find_fd(struct loop *l, int fd)
{
	size_t i;

	for (i = 0; i < l->nfds; i++)
		if (l->fds[i].fd == fd && !l->fds[i].dead)
			return &l->fds[i];
	return NULL;
}

void
loop_add_fd(struct loop *l, int fd, short events, loop_fd_fn fn, void *arg)
{
	struct loop_fd *f = find_fd(l, fd);

	if (f == NULL) {
		l->fds = xreallocarray(l->fds, l->nfds + 1, sizeof *l->fds);
		f = &l->fds[l->nfds++];
	}
	f->fd = fd;
	f->events = events;
	f->fn = fn;
	f->arg = arg;
	f->dead = false;
}

void
loop_set_events(struct loop *l, int fd, short events)
{
	struct loop_fd *f = find_fd(l, fd);

	if (f != NULL)
		f->events = events;
}

/* Removal only marks: the dispatch loop may be walking the array. */
void
loop_del_fd(struct loop *l, int fd)
{
	struct loop_fd *f = find_fd(l, fd);

	if (f != NULL)
		f->dead = true;
}

long
loop_add_timer(struct loop *l, long ms, loop_timer_fn fn, void *arg)
{
	struct loop_timer *t;

	l->timers = xreallocarray(l->timers, l->ntimers + 1, sizeof *l->timers);
	t = &l->timers[l->ntimers++];
	t->id = l->next_timer++;
	t->due = loop_now_ms() + (ms < 0 ? 0 : ms);
	t->fn = fn;
	t->arg = arg;
	return t->id;
}

void
loop_del_timer(struct loop *l, long id)
{
	size_t i;

	for (i = 0; i < l->ntimers; i++) {
		if (l->timers[i].id == id) {
			l->timers[i] = l->timers[--l->ntimers];
			return;
		}
	}
}

bool
loop_timer_armed(const struct loop *l, long id)
{
	size_t i;

	for (i = 0; i < l->ntimers; i++)
		if (l->timers[i].id == id)
			return true;
	return false;
}

int
loop_watch_signal(struct loop *l, int sig, loop_signal_fn fn, void *arg)
{
	struct sigaction sa;
	int i;

	if (l->nsignals == nitems(l->signals)) {
		errno = ENOSPC;
		return -1;
	}
	if (signal_pipe[0] == -1) {
		if (pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) == -1)
			return -1;
	}
	loop_add_fd(l, signal_pipe[0], POLLIN, signal_readable, NULL);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = signal_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(sig, &sa, NULL) == -1)
		return -1;
	i = (int)l->nsignals++;
	l->signals[i].sig = sig;
	l->signals[i].fn = fn;
	l->signals[i].arg = arg;
	return 0;
}

void
loop_set_before_sleep(struct loop *l, loop_hook_fn fn, void *arg)
{
	l->before_sleep = fn;
	l->before_sleep_arg = arg;
}

void
loop_set_pace(struct loop *l, long ms)
{
	l->pace_ms = ms > 0 ? ms : 0;
}

/* The rest of the pace since began, waited out for a signal only. */
static void
pace(struct loop *l, int64_t began)
{
	struct pollfd p = { signal_pipe[0], POLLIN, 0 };
	int64_t left = began + l->pace_ms - loop_now_ms();

	if (l->pace_ms == 0 || l->no_sleep || left <= 0 || signal_pipe[0] < 0)
		return;
	(void)poll(&p, 1, (int)left);
}

void
loop_no_sleep(struct loop *l)
{
	l->no_sleep = true;
}

void
loop_stop(struct loop *l)
{
	l->stop = true;
}

/* The next timer to run: due, soonest first, and in the order they were
 * armed when due together; only those armed before `last`. */
static size_t
next_due(struct loop *l, int64_t now, long last)
{
	const struct loop_timer *t, *best = NULL;
	size_t i, k = SIZE_MAX;

	for (i = 0; i < l->ntimers; i++) {
		t = &l->timers[i];
		if (t->due > now || t->id >= last)
			continue;
		if (best == NULL || t->due < best->due ||
		    (t->due == best->due && t->id < best->id)) {
			best = t;
			k = i;
		}
	}
	return k;
}

/* Run the timers that are due; each is removed before it runs.  A timer
 * armed by a callback waits for the next iteration (redis ae's maxId), so
 * a timer that re-arms itself cannot keep the loop from polling. */
static void
run_timers(struct loop *l)
{
	int64_t now = loop_now_ms();
	long last = l->next_timer;
	struct loop_timer t;
	size_t i;

	while ((i = next_due(l, now, last)) != SIZE_MAX) {
		t = l->timers[i];
		l->timers[i] = l->timers[--l->ntimers];
		t.fn(l, t.arg);
	}
}

static int
poll_timeout(struct loop *l)
{
	int64_t now = loop_now_ms(), soonest = -1;
	size_t i;

	if (l->no_sleep)
		return 0;
	for (i = 0; i < l->ntimers; i++) {
		int64_t d = l->timers[i].due - now;

		if (d < 0)
			d = 0;
		if (soonest < 0 || d < soonest)
			soonest = d;
	}
	return soonest < 0 ? -1 : (int)(soonest > INT_MAX ? INT_MAX : soonest);
}

/* Drop the fds marked dead, keeping the order of the rest. */
static void
compact(struct loop *l)
{
	size_t i, j = 0;

	for (i = 0; i < l->nfds; i++)
		if (!l->fds[i].dead)
			l->fds[j++] = l->fds[i];
	l->nfds = j;
}

static void
dispatch(struct loop *l, size_t n)
{
	struct loop_fd *f;
	size_t i;

	for (i = 0; i < n; i++) {
		if (l->pfds[i].revents == 0)
			continue;
		if ((f = find_fd(l, l->pfds[i].fd)) != NULL)
			f->fn(l, f->fd, l->pfds[i].revents, f->arg);
	}
}

void
loop_run(struct loop *l)
{
	size_t i, n;
	int64_t began;
	int rc;

	l->stop = false;
	while (!l->stop) {
		began = loop_now_ms();
		run_timers(l);
		if (l->stop)
			break;
		if (l->before_sleep != NULL)
			l->before_sleep(l, l->before_sleep_arg);
		if (l->stop)
			break;
		compact(l);
		if (l->nfds > l->pfds_alloc) {
			l->pfds_alloc = l->nfds;
			l->pfds = xreallocarray(l->pfds, l->pfds_alloc,
			    sizeof *l->pfds);
		}
		for (i = n = 0; i < l->nfds; i++, n++) {
			l->pfds[n].fd = l->fds[i].fd;
			l->pfds[n].events = l->fds[i].events;
			l->pfds[n].revents = 0;
		}
		rc = poll(l->pfds, n, poll_timeout(l));
		l->no_sleep = false;
		if (rc == -1 && errno != EINTR)
			fatal("poll: %s", strerror(errno));
		if (rc > 0) {
			dispatch(l, n);
			pace(l, began);
		}
	}
}
