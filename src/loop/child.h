/*
 * child.h: child processes with non-blocking pipes in the one event loop,
 * in the manner of tmux's job.c: started from an argv array (never a shell
 * string), fds non-blocking and close-on-exec, SIGCHLD through the loop's
 * self-pipe, and a child complete only when both end-of-file on its output
 * and its exit status have arrived.
 *
 * Output is split into lines of at most CHILD_LINE_MAX bytes; a longer line
 * is cut, flagged, and the rest of it dropped, so a child that prints
 * garbage cannot grow memory.  The struct child is owned by this module and
 * freed after its done callback returns.
 */
#ifndef CALOPS_CHILD_H
#define CALOPS_CHILD_H

#include "calops.h"

#include <sys/types.h>

#include "loop/loop.h"

#define CHILD_LINE_MAX (64u << 10)
/* What may wait at once for a child to read on its stdin. */
#define CHILD_INPUT_MAX (256u << 10)

struct child;

struct child_ops {
	/* One line of output (without its newline, borrowed). */
	void	(*line)(struct child *, const char *line, size_t len,
		    bool from_stderr, bool cut, void *arg);
	/* The child has exited and its output is drained; status as from
	 * waitpid(). */
	void	(*done)(struct child *, int status, void *arg);
};

/* Start argv[0] (searched in PATH) with stdin from /dev/null.  Returns the
 * child, or NULL with err set. */
struct child	*child_start(struct loop *l, char *const argv[],
		    const struct child_ops *ops, void *arg, char *err,
		    size_t errlen);
/* The same with stdin a pipe that child_input() writes to. */
struct child	*child_start_input(struct loop *l, char *const argv[],
		    const struct child_ops *ops, void *arg, char *err,
		    size_t errlen);
/* The same with the environment envp ("NAME=value" strings and a NULL),
 * not ours: an alert's hook gets the alert in its variables. */
struct child	*child_start_env(struct loop *l, char *const argv[],
		    char *const envp[], const struct child_ops *ops, void *arg,
		    char *err, size_t errlen);
/* The same with stdin and stdout both io (one end of a socketpair: a
 * ProxyCommand's), which the caller keeps and closes; only stderr is read
 * here, in lines. */
struct child	*child_start_io(struct loop *l, char *const argv[], int io,
		    const struct child_ops *ops, void *arg, char *err,
		    size_t errlen);
/* Give the child len bytes on its stdin, as fast as it reads them (they
 * wait here meanwhile), then close it when eof.  0, or -1 with err: its
 * stdin is closed already, was never a pipe, or too much waits. */
int		 child_input(struct child *c, const void *data, size_t len,
		    bool eof, char *err, size_t errlen);
/* Signal a running child (no effect once it has exited). */
void		 child_signal(struct child *c, int sig);
/* Forget a child: no more callbacks; it is killed and reaped quietly. */
void		 child_abandon(struct child *c);
pid_t		 child_pid(const struct child *c);

/* Reap every exited child: call on SIGCHLD. */
void		 child_reap(struct loop *l);

#endif
