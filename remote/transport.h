/*
 * transport.h: how the console runs its headless commands on a lab host
 * (protocol.md §1).  Every host, local included, is driven the same way:
 * exec() starts `calops ARGS…` there and its output comes back a line at a
 * time through callbacks run in the one event loop.
 *
 * An implementation is a const struct transport_ops (designated
 * initializers; local.c, and ssh.c with an exec channel a command) behind
 * a struct transport, made by local_transport_new() (local.h) or
 * ssh_transport_new() (ssh.h).  The transport reads its own fds or socket and
 * drains them until EAGAIN; what it has read but not yet handed out it
 * reports through pending().  events() says what the transport's own
 * connection needs from poll() (an SSH socket: libssh2's block
 * directions, which change from one call to the next); the transport adds
 * that fd to the loop itself, and the local transport has none: its
 * children's pipes are in the loop already.
 *
 * The owner of the transports calls transport_before_sleep() on each of them
 * from the loop's before-sleep hook: data held inside a transport makes no
 * fd readable, so it is handed out there (deliver()), and the loop does not
 * sleep while any is left (redis beforeSleep and has_pending_data, curl
 * has_data_pending).
 *
 * A transport with a connection (ssh.c) has a state (protocol.md §6) and
 * tells its owner when it changes (changed); a command asked for while it
 * is not up waits, and one running when the connection is lost ends with
 * an error, so the owner follows its stream again once the host is up.
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
	bool		 lost;		/* err: the connection went, and the
					   command may have run or be running */
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

/*
 * A host's connection (protocol.md §6): always in exactly one state, with
 * the time it came into it.  The local transport is always up.
 */
enum transport_state {
	TRANSPORT_CONNECTING,	/* the first attempt */
	TRANSPORT_UP,
	TRANSPORT_STALE,	/* no byte for 2 x keepalive */
	TRANSPORT_DISCONNECTED,	/* lost (3 x keepalive, or closed) */
	TRANSPORT_RECONNECTING,	/* attempt n, or waiting for it */
	TRANSPORT_REFUSED,	/* final until the operator acts */
};

/* What a transport waits for from the operator, if anything. */
enum transport_ask {
	TRANSPORT_ASK_NONE,
	TRANSPORT_ASK_KEY,		/* refused over an unknown host key:
					   transport_accept_key() adds it */
	TRANSPORT_ASK_PASSPHRASE,	/* an identity file's, for
					   transport_passphrase() */
};

/* A jump host the connection goes through (ProxyJump): a host of its own,
 * with its own state, round trip and last error. */
#define TRANSPORT_JUMPS_MAX	8
struct transport_jump {
	char			 name[128];	/* as ProxyJump names it;
						   safe */
	enum transport_state	 state;
	int64_t			 since_ms;
	long			 rtt_us;	/* -1: not known */
	char			 error[256];	/* safe */
};

struct transport_status {
	enum transport_state	 state;
	int64_t			 since_ms;	/* loop_now_ms() it began */
	int64_t			 last_rx_ms;	/* last byte received, or 0 */
	unsigned		 attempt;	/* reconnecting: its number */
	int64_t			 next_try_ms;	/* reconnecting and waiting:
						   when, else 0 */
	long			 rtt_us;	/* the kernel's smoothed round
						   trip, or -1 */
	char			 version[64];	/* the host's calops, or "" */
	char			 error[512];	/* why not up, or ""; safe */
	/* The compression the SSH handshake agreed on, client to server
	 * and server to client: "zlib@openssh.com", "zlib" or "none"; ""
	 * with no session (before the handshake, once it is lost), and for
	 * a transport that is not SSH. */
	char			 comp_cs[24];
	char			 comp_sc[24];
	enum transport_ask	 ask;
	/* one more per question asked, the same one asked again too */
	unsigned		 ask_seq;
	char			 ask_text[512];	/* the question, made safe */
	/* The jump hosts on the way, the first hop first (none: direct,
	 * or a ProxyCommand). */
	size_t			 njumps;
	struct transport_jump	 jumps[TRANSPORT_JUMPS_MAX];
};

/* transport_name of a state, as the screens and --json say it. */
const char	*transport_state_name(enum transport_state st);
/* Up: commands run now (stale too: the link may yet answer). */
bool		 transport_state_up(enum transport_state st);
/* Down: disconnected, reconnecting or refused; a command waits for the
 * host or the operator (connecting is neither: it waits a moment). */
bool		 transport_state_down(enum transport_state st);

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
	/* The same, with the command's stdin open for input() (exec's is
	 * empty: /dev/null, or a channel nothing is sent on). */
	struct rstream	*(*exec_input)(struct transport *,
			    char *const argv[], const struct rstream_cb *cb,
			    void *arg, char *err, size_t errlen);
	/* Queue len bytes for the stdin of a command exec_input() started,
	 * sent as the host takes them, and end it after them when eof.  0,
	 * or -1 with err (its input was ended, too much waits). */
	int		(*input)(struct rstream *, const void *data,
			    size_t len, bool eof, char *err, size_t errlen);
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
	/* The connection's state.  NULL: always up (local). */
	void		(*status)(struct transport *,
			    struct transport_status *);
	/* The operator acts: connect again now (refused, disconnected or
	 * waiting to reconnect); add the unknown host key it was refused
	 * over and connect again (0, or -1 with err); give the passphrase it
	 * asked for (the transport keeps its own copy until that key's
	 * authentication returns, then wipes it; NULL: skip that key).
	 * NULL where there is nothing to do (local). */
	void		(*reconnect)(struct transport *);
	int		(*accept_key)(struct transport *, char *err,
			    size_t errlen);
	void		(*passphrase)(struct transport *, const char *pass);
};

struct transport {
	const struct transport_ops	*ops;
	struct loop			*loop;
	char				*host;	/* the lab file's name */
	void				*data;	/* the implementation's */
	/* Told after the state or the question changed (a host came up: its
	 * streams can be followed again), from the loop, never from inside
	 * a call the owner made; NULL: nobody listens. */
	void				(*changed)(struct transport *,
					    void *arg);
	void				*changed_arg;
	/* Someone can answer a question (the console); false: an encrypted
	 * identity is skipped and an unknown key refused, never asked. */
	bool				 can_ask;
};

/* Shorthands for t->ops->…. */
int		 transport_connect(struct transport *t, char *err,
		    size_t errlen);
struct rstream	*transport_exec(struct transport *t, char *const argv[],
		    const struct rstream_cb *cb, void *arg, char *err,
		    size_t errlen);
struct rstream	*transport_exec_input(struct transport *t,
		    char *const argv[], const struct rstream_cb *cb, void *arg,
		    char *err, size_t errlen);
int		 transport_input(struct rstream *rs, const void *data,
		    size_t len, bool eof, char *err, size_t errlen);
void		 transport_rstream_cancel(struct rstream *rs);
void		 transport_close(struct transport *t);
/* The state of t's connection; up for a transport without one. */
void		 transport_status(struct transport *t,
		    struct transport_status *st);
/* Whether t's host can be asked to do something now. */
bool		 transport_up(struct transport *t);
void		 transport_reconnect(struct transport *t);
int		 transport_accept_key(struct transport *t, char *err,
		    size_t errlen);
void		 transport_passphrase(struct transport *t, const char *pass);

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
