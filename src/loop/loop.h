/*
 * loop.h: the one event loop (in the spirit of redis ae).  poll() over every
 * file descriptor the console owns (the tty, child pipes, inotify, later SSH
 * sockets) plus timers, signals through a self-pipe, and a before-sleep
 * hook where the console paints once per iteration.  With no timer armed it
 * sleeps in poll() with no timeout: an idle console uses no CPU.
 *
 * A struct loop is owned by its creator.  Callbacks run on the loop's
 * thread; they may add and remove fds and timers, including their own.
 */
#ifndef CALOPS_LOOP_H
#define CALOPS_LOOP_H

#include "calops.h"

struct loop;

typedef void	(*loop_fd_fn)(struct loop *, int fd, short revents, void *arg);
typedef void	(*loop_timer_fn)(struct loop *, void *arg);
typedef void	(*loop_signal_fn)(struct loop *, int sig, void *arg);
typedef void	(*loop_hook_fn)(struct loop *, void *arg);

struct loop	*loop_new(void);
void		 loop_free(struct loop *l);

/* Watch fd for events (POLLIN, POLLOUT); replaces an earlier watch. */
void	 loop_add_fd(struct loop *l, int fd, short events, loop_fd_fn fn,
	    void *arg);
void	 loop_set_events(struct loop *l, int fd, short events);
void	 loop_del_fd(struct loop *l, int fd);

/* A one-shot timer after ms milliseconds; returns its id (> 0).  Due
 * timers run soonest first, those due together in the order they were
 * armed; one armed by a timer's callback runs in a later iteration. */
long	 loop_add_timer(struct loop *l, long ms, loop_timer_fn fn, void *arg);
void	 loop_del_timer(struct loop *l, long id);
bool	 loop_timer_armed(const struct loop *l, long id);

/* Deliver sig through the self-pipe to fn (signal handlers only write a
 * byte).  Returns 0, or -1 with errno. */
int	 loop_watch_signal(struct loop *l, int sig, loop_signal_fn fn,
	    void *arg);

/* Called before every sleep in poll(): where the console paints. */
void	 loop_set_before_sleep(struct loop *l, loop_hook_fn fn, void *arg);

/*
 * Wake at most once every ms milliseconds for the fds (0, the default:
 * whenever one is ready): after an iteration that read something the loop
 * waits out the rest of ms for a signal only, so that what streams in
 * meanwhile is read in one batch, not a wakeup a write.  For a headless
 * follower (calops alerts), whose latency budget is seconds; a signal
 * still ends the wait at once.
 */
void	 loop_set_pace(struct loop *l, long ms);

/* Tell the loop not to sleep: more work is buffered (transports' pending
 * data).  Cleared at each iteration. */
void	 loop_no_sleep(struct loop *l);

void	 loop_run(struct loop *l);
void	 loop_stop(struct loop *l);

/* Monotonic milliseconds. */
int64_t	 loop_now_ms(void);

#endif
