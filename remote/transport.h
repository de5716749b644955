/*
 * transport.h: how the console runs its headless commands on a lab host
 * (protocol.md §1).  Every host, local included, is driven the same way:
 * exec() starts `calops ARGS…` there and its output comes back a line at a
 * time through callbacks run in the one event loop.
 *
 * An implementation is a const struct transport_ops (designated
 * initializers; local.c now, an SSH exec channel next) behind a struct
 * transport.  The transport reads its own fds or socket and drains them
 * until EAGAIN; what it has read but not yet handed out it reports through
 * pending().  events() says what the transport's own connection needs from
 * poll() (an SSH socket: libssh2's block directions, which change from one
 * call to the next); the transport adds that fd to the loop itself, and the
 * local transport has none: its children's pipes are in the loop already.
 *
 * The owner of the transports calls transport_before_sleep() on each of them
 * from the loop's before-sleep hook: data held inside a transport makes no
 * fd readable, so it is handed out there (deliver()), and the loop does not
 * sleep while any is left (redis beforeSleep and has_pending_data, curl
 * has_data_pending).
 *
 * The local transport uses child.c, so the loop's owner delivers SIGCHLD to
 * child_reap().  A struct transport is owned by whoever made it and freed by
 * transport_close(); a struct rstream is owned by the transport: it is
 * freed after its done callback returns, or by transport_rstream_cancel().
 */
#ifndef CALOPS_TRANSPORT_H
#define CALOPS_TRANSPORT_H

#include "calops.h"

#include "loop/loop.h"

struct transport;
struct rstream;

/* How a remote command ended: code is its exit status (-1 when none), sig
 * the signal that killed it (0 when none), and err a reason when the
 * transport itself failed (the connection dropped: code -1, sig 0). */
struct rstream_exit {
	int		 code;
	int		 sig;
	const char	*err;		/* borrowed, NULL when none */
};

struct rstream_cb {
	/* One line of the command's output, without its newline (borrowed);
	 * cut when it was longer than the transport keeps (64 KiB). */
	void	(*line)(struct rstream *, const char *line, size_t len,
		    bool from_stderr, bool cut, void *arg);
	/* Last: the command ended and its output is drained. */
	void	(*done)(struct rstream *, const struct rstream_exit *,
		    void *arg);
};

struct transport_ops {
	const char	*name;
	/* Make the host reachable (local: nothing); 0 or -1 with err. */
	int		(*connect)(struct transport *, char *err,
			    size_t errlen);
	/* Start `calops ARGV…` on the host, ARGV without the program (the
	 * transport knows where calops is there).  NULL with err. */
	struct rstream	*(*exec)(struct transport *, char *const argv[],
			    const struct rstream_cb *cb, void *arg,
			    char *err, size_t errlen);
	/* Stop a command and forget it: no more callbacks. */
	void		(*cancel)(struct rstream *);
	/* The fd of the transport's own connection, with the poll events it
	 * waits for in *events; -1 when it has none. */
	int		(*events)(struct transport *, short *events);
	/* Bytes read and not yet handed out. */
	size_t		(*pending)(struct transport *);
	/* Hand out what pending() counts, to the streams' callbacks; it may
	 * hand out a part only, to keep the console answering keys.  NULL
	 * when pending() is always 0. */
	void		(*deliver)(struct transport *);
	/* Drop the connection and free the transport; its streams must have
	 * been cancelled or be done. */
	void		(*close)(struct transport *);
};

struct transport {
	const struct transport_ops	*ops;
	struct loop			*loop;
	char				*host;	/* the lab file's name */
	void				*data;	/* the implementation's */
};

/*
 * The local transport: commands run as children of this process, program
 * being the calops binary (NULL: this very program, /proc/self/exe).
 */
struct transport	*local_transport_new(struct loop *l, const char *host,
			    const char *program);

/* Shorthands for t->ops->…. */
int		 transport_connect(struct transport *t, char *err,
		    size_t errlen);
struct rstream	*transport_exec(struct transport *t, char *const argv[],
		    const struct rstream_cb *cb, void *arg, char *err,
		    size_t errlen);
void		 transport_rstream_cancel(struct rstream *rs);
void		 transport_close(struct transport *t);

/* From the loop's before-sleep hook: hand out what t holds, poll its
 * connection for what it waits for now, and keep the loop from sleeping
 * while t still holds data. */
void		 transport_before_sleep(struct transport *t);

/* What every rstream starts with, so transport_rstream_cancel finds its
 * transport. */
struct rstream {
	struct transport	*t;
};

#endif
