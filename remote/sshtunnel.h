/*
 * sshtunnel.h: one TCP connection made through a jump host (ProxyJump): a
 * direct-tcpip channel of the jump's libssh2 session, pumped to and from
 * one end of a socketpair whose other end is the socket of the session to
 * the host behind the jump (ssh.c).  Nothing here blocks: the jump's
 * transport calls sshtunnel_run() when its socket or the pump's end is
 * ready, and asks sshtunnel_events() what to poll the pump's end for and
 * sshtunnel_pending() whether libssh2 holds bytes for it already.
 *
 * A tunnel ends -- its pump's end closed, so that the session behind sees
 * the connection go -- when the channel cannot be opened (the jump cannot
 * reach the host: the jump's sshd says why), when either side ends, or
 * when the jump's session goes (sshtunnel_fail).  sshtunnel_error() then
 * says why, for the host behind.
 *
 * A struct sshtunnel is owned by the jump's transport, which frees it with
 * sshtunnel_free() once sshtunnel_done() says its channel is gone; the
 * host behind holds it borrowed, and lets go with sshtunnel_orphan().
 */
#ifndef CALOPS_SSHTUNNEL_H
#define CALOPS_SSHTUNNEL_H

#include "calops.h"

#include <libssh2.h>

#include "loop/loop.h"

struct sshtunnel;

/*
 * What the channels of one session share: libssh2 1.10 opens one channel
 * at a time on a session, and holds one half-sent packet per session:
 * until the call that made it is made again and finishes it, any other
 * packet is refused (transport.c, send_existing: LIBSSH2_ERROR_BAD_USE,
 * which a window adjustment inside channel_read turns into
 * LIBSSH2_ERROR_SOCKET_SEND).  So after a call says EAGAIN with a packet
 * left to send, that call alone -- the same owner (a tunnel here, a
 * channel of ssh.c), the same operation -- is made on the session until
 * it goes: no other channel opens, reads, writes or closes meanwhile.
 */
enum sshtunnel_op {
	SSHTUNNEL_OPEN = 1,
	SSHTUNNEL_EXEC,
	SSHTUNNEL_READ,
	SSHTUNNEL_WRITE,
	SSHTUNNEL_EOF,
	SSHTUNNEL_CLOSE,
};

struct sshtunnel_sess {
	LIBSSH2_SESSION		*sess;
	bool			 opening;
	const void		*sender;	/* whose call holds a packet */
	enum sshtunnel_op	 sender_op;	/* and which call */
};

/* Whether another call than who's op holds the session's half-sent packet. */
bool	sshtunnel_sess_busy(const struct sshtunnel_sess *ss, const void *who,
	    enum sshtunnel_op op);
/* After who's call op said rc: it holds the session while its packet waits
 * (EAGAIN with the socket's outbound direction blocked), and lets it go
 * once the call ends. */
void	sshtunnel_sess_after(struct sshtunnel_sess *ss, const void *who,
	    enum sshtunnel_op op, long rc);
/* who is gone: a packet it held is no one's to finish. */
void	sshtunnel_sess_forget(struct sshtunnel_sess *ss, const void *who);

/* What a round did: nothing to do now, bytes moved or the channel
 * opened, or the jump's connection failed under it (the caller's
 * session is lost). */
enum sshtunnel_rc {
	SSHTUNNEL_IDLE,
	SSHTUNNEL_MOVED,
	SSHTUNNEL_LOST,
};

/* A tunnel to host:port, fd the pump's end (non-blocking; owned: it is
 * watched in l, fn called when it is ready, until it is closed). */
struct sshtunnel	*sshtunnel_new(struct loop *l, const char *host,
			    int port, int fd, loop_fd_fn fn, void *arg);
/* One round on the session: open the channel when no other one is
 * opening, then move bytes both ways until neither moves; *budget counts
 * the bytes read from the jump, and the round stops when it is spent. */
enum sshtunnel_rc	 sshtunnel_run(struct sshtunnel *tn,
			    struct sshtunnel_sess *ss, size_t *budget);
/* Watch the pump's end for what the tunnel waits for now. */
void			 sshtunnel_poll(struct sshtunnel *tn);
bool			 sshtunnel_pending(const struct sshtunnel *tn);
/* The jump's session is gone (its channel with it): the tunnel ends with
 * why, unless it has ended already; it may be opened again on the next
 * session only by a new tunnel. */
void			 sshtunnel_fail(struct sshtunnel *tn, const char *why);
const char		*sshtunnel_error(const struct sshtunnel *tn);
/* The host behind lets go: the pump's end is closed, the channel closed
 * at the next rounds. */
void			 sshtunnel_orphan(struct sshtunnel *tn);
/* Orphaned and its channel gone: sshtunnel_free() may be called. */
bool			 sshtunnel_done(const struct sshtunnel *tn);
void			 sshtunnel_free(struct sshtunnel *tn);

#endif
