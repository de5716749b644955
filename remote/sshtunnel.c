/* sshtunnel.c: a direct-tcpip channel pumped to and from a socketpair in
 * the one loop (see sshtunnel.h). */
#include "calops.h"

#include <poll.h>
#include <unistd.h>

#include "remote/sshtunnel.h"

#define TN_DOWN_MAX	(256u << 10)	/* from the jump, for the host */
#define TN_UP_MAX	(64u << 10)	/* from the session behind */

enum tn_state {
	TN_QUEUED,
	TN_OPENING,
	TN_OPEN,
	TN_CLOSING,
	TN_FREEING,
	TN_GONE,		/* no channel, and none to come */
};

struct sshtunnel {
	struct loop	*loop;
	char		*host;
	int		 port;
	int		 fd;		/* the pump's end; -1 once closed */
	enum tn_state	 st;
	LIBSSH2_CHANNEL	*ch;
	bool		 orphan;
	char		*err;
	char		*down;		/* read from the channel */
	size_t		 down_off, down_len;
	bool		 ch_eof;
	char		*up;		/* read from the pump's end */
	size_t		 up_off, up_len;
	bool		 fd_eof, eof_sent;
};

struct sshtunnel *
sshtunnel_new(struct loop *l, const char *host, int port, int fd,
    loop_fd_fn fn, void *arg)
{
	struct sshtunnel *tn = xcalloc(1, sizeof *tn);

	tn->loop = l;
	loop_add_fd(l, fd, 0, fn, arg);
	tn->host = xstrdup(host);
	tn->port = port;
	tn->fd = fd;
	tn->down = xmalloc(TN_DOWN_MAX);
	tn->up = xmalloc(TN_UP_MAX);
	return tn;
}

const char *
sshtunnel_error(const struct sshtunnel *tn)
{
	return tn->err;
}

/* The session behind sees its connection end (EOF). */
static void
tn_close_fd(struct sshtunnel *tn)
{
	if (tn->fd != -1) {
		loop_del_fd(tn->loop, tn->fd);
		close(tn->fd);
		tn->fd = -1;
	}
}

static void
tn_end(struct sshtunnel *tn, const char *why)
{
	if (tn->err == NULL && why != NULL)
		tn->err = xstrdup(why);
	tn_close_fd(tn);
	if (tn->ch != NULL && tn->st == TN_OPEN)
		tn->st = TN_CLOSING;
	else if (tn->ch == NULL && tn->st != TN_OPENING)
		tn->st = TN_GONE;
}

void
sshtunnel_fail(struct sshtunnel *tn, const char *why)
{
	tn->ch = NULL;		/* freed with the session */
	tn->st = TN_GONE;
	tn_end(tn, why);
}

void
sshtunnel_orphan(struct sshtunnel *tn)
{
	tn->orphan = true;
	tn_end(tn, NULL);
}

bool
sshtunnel_done(const struct sshtunnel *tn)
{
	return tn->orphan && tn->st == TN_GONE;
}

void
sshtunnel_free(struct sshtunnel *tn)
{
	tn_close_fd(tn);
	free(tn->host);
	free(tn->err);
	free(tn->down);
	free(tn->up);
	free(tn);
}

bool
sshtunnel_sess_busy(const struct sshtunnel_sess *ss, const void *who,
    enum sshtunnel_op op)
{
	return ss->sender != NULL && (ss->sender != who || ss->sender_op != op);
}

void
sshtunnel_sess_after(struct sshtunnel_sess *ss, const void *who,
    enum sshtunnel_op op, long rc)
{
	if (rc == LIBSSH2_ERROR_EAGAIN &&
	    (libssh2_session_block_directions(ss->sess) &
	    LIBSSH2_SESSION_BLOCK_OUTBOUND)) {
		ss->sender = who;
		ss->sender_op = op;
	} else if (ss->sender == who && ss->sender_op == op)
		ss->sender = NULL;
}

void
sshtunnel_sess_forget(struct sshtunnel_sess *ss, const void *who)
{
	if (ss->sender == who)
		ss->sender = NULL;
}

/* Open the channel: 1 open, 0 not yet, -1 the session failed. */
static int
tn_open(struct sshtunnel *tn, struct sshtunnel_sess *ss)
{
	char *msg = NULL, why[400];
	int rc;

	if (tn->st == TN_QUEUED) {
		if (ss->opening)
			return 0;
		ss->opening = true;
		tn->st = TN_OPENING;
	}
	if (sshtunnel_sess_busy(ss, tn, SSHTUNNEL_OPEN))
		return 0;
	tn->ch = libssh2_channel_direct_tcpip_ex(ss->sess, tn->host,
	    tn->port, "127.0.0.1", 0);
	rc = tn->ch == NULL ? libssh2_session_last_error(ss->sess, &msg,
	    NULL, 0) : 0;
	sshtunnel_sess_after(ss, tn, SSHTUNNEL_OPEN, rc);
	if (tn->ch == NULL) {
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return 0;
		ss->opening = false;
		if (rc != LIBSSH2_ERROR_CHANNEL_FAILURE)
			return -1;
		/* sshd said no: it cannot connect there, or may not. */
		snprintf(why, sizeof why, "it cannot reach %s port %d: %s",
		    tn->host, tn->port, msg != NULL ? msg : "refused");
		tn->st = TN_GONE;
		tn_end(tn, why);
		return 1;
	}
	ss->opening = false;
	tn->st = TN_OPEN;
	if (tn->orphan)
		tn->st = TN_CLOSING;
	return 1;
}

/* From the channel to the pump's end: whether anything moved; -1 the
 * session failed. */
static int
tn_down(struct sshtunnel *tn, struct sshtunnel_sess *ss, size_t *budget)
{
	ssize_t n;

	if (tn->down_off < tn->down_len && tn->fd != -1) {
		n = write(tn->fd, tn->down + tn->down_off,
		    tn->down_len - tn->down_off);
		if (n > 0) {
			tn->down_off += (size_t)n;
			return 1;
		}
		if (n == -1 && errno != EAGAIN && errno != EINTR)
			tn->fd_eof = true;	/* the session behind went */
		return 0;
	}
	if (tn->ch_eof || *budget == 0 ||
	    sshtunnel_sess_busy(ss, tn, SSHTUNNEL_READ))
		return 0;
	/* A read may send a window adjustment, and leave it half sent. */
	n = libssh2_channel_read(tn->ch, tn->down, TN_DOWN_MAX);
	sshtunnel_sess_after(ss, tn, SSHTUNNEL_READ, n);
	if (n == LIBSSH2_ERROR_EAGAIN)
		return 0;
	if (n < 0)
		return -1;
	if (n == 0) {
		tn->ch_eof = libssh2_channel_eof(tn->ch) != 0;
		return tn->ch_eof;
	}
	tn->down_off = 0;
	tn->down_len = (size_t)n;
	*budget -= (size_t)n < *budget ? (size_t)n : *budget;
	return 1;
}

/* From the pump's end to the channel, the end of it too. */
static int
tn_up(struct sshtunnel *tn, struct sshtunnel_sess *ss)
{
	ssize_t n;
	int rc;

	if (tn->up_off < tn->up_len) {
		if (sshtunnel_sess_busy(ss, tn, SSHTUNNEL_WRITE))
			return 0;
		n = libssh2_channel_write(tn->ch, tn->up + tn->up_off,
		    tn->up_len - tn->up_off);
		sshtunnel_sess_after(ss, tn, SSHTUNNEL_WRITE, n);
		if (n == LIBSSH2_ERROR_EAGAIN)
			return 0;
		if (n < 0)
			return -1;
		tn->up_off += (size_t)n;
		return 1;
	}
	if (!tn->fd_eof && tn->fd != -1) {
		n = read(tn->fd, tn->up, TN_UP_MAX);
		if (n > 0) {
			tn->up_off = 0;
			tn->up_len = (size_t)n;
			return 1;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return 0;
		tn->fd_eof = true;
	}
	if (tn->fd_eof && !tn->eof_sent) {
		if (sshtunnel_sess_busy(ss, tn, SSHTUNNEL_EOF))
			return 0;
		rc = libssh2_channel_send_eof(tn->ch);
		sshtunnel_sess_after(ss, tn, SSHTUNNEL_EOF, rc);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return 0;
		tn->eof_sent = true;
		return 1;
	}
	return 0;
}

/* Both ways until neither moves; -1 the session failed. */
static int
tn_pump(struct sshtunnel *tn, struct sshtunnel_sess *ss, size_t *budget,
    bool *moved)
{
	int d, u;

	do {
		if ((d = tn_down(tn, ss, budget)) < 0 ||
		    (u = tn_up(tn, ss)) < 0)
			return -1;
		if (d > 0 || u > 0)
			*moved = true;
	} while (d > 0 || u > 0);
	/* The host hung up and all it sent is through, or the session
	 * behind hung up and its end is sent on. */
	if ((tn->ch_eof && tn->down_off == tn->down_len) ||
	    (tn->fd_eof && tn->eof_sent)) {
		tn_end(tn, tn->ch_eof ? "the connection was closed" : NULL);
		*moved = true;
	}
	return 0;
}

/* The call of the tunnel's own that left a packet half sent, made again
 * (with the same arguments) so that the channel may close: whether it
 * went; -1 the session failed. */
static int
tn_finish(struct sshtunnel *tn, struct sshtunnel_sess *ss)
{
	enum sshtunnel_op op = ss->sender_op;
	long rc;

	switch (op) {
	case SSHTUNNEL_READ:
		rc = libssh2_channel_read(tn->ch, tn->down, TN_DOWN_MAX);
		break;
	case SSHTUNNEL_WRITE:
		rc = libssh2_channel_write(tn->ch, tn->up + tn->up_off,
		    tn->up_len - tn->up_off);
		break;
	case SSHTUNNEL_EOF:
		rc = libssh2_channel_send_eof(tn->ch);
		break;
	default:
		return 1;	/* the close itself: tn_close makes it */
	}
	sshtunnel_sess_after(ss, tn, op, rc);
	if (ss->sender == tn)
		return 0;
	return rc < 0 && rc != LIBSSH2_ERROR_EAGAIN &&
	    rc != LIBSSH2_ERROR_CHANNEL_CLOSED &&
	    rc != LIBSSH2_ERROR_CHANNEL_EOF_SENT ? -1 : 1;
}

/* Close and free the channel: whether it is gone; -1 the session failed. */
static int
tn_close(struct sshtunnel *tn, struct sshtunnel_sess *ss)
{
	int rc;

	if (ss->sender == tn && (rc = tn_finish(tn, ss)) <= 0)
		return rc;
	if (sshtunnel_sess_busy(ss, tn, SSHTUNNEL_CLOSE))
		return 0;
	if (tn->st == TN_CLOSING) {
		rc = libssh2_channel_close(tn->ch);
		sshtunnel_sess_after(ss, tn, SSHTUNNEL_CLOSE, rc);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return 0;
		tn->st = TN_FREEING;
	}
	/* Closed: freeing it sends nothing more. */
	rc = libssh2_channel_free(tn->ch);
	if (rc == LIBSSH2_ERROR_EAGAIN)
		return 0;
	tn->ch = NULL;
	tn->st = TN_GONE;
	return 1;
}

enum sshtunnel_rc
sshtunnel_run(struct sshtunnel *tn, struct sshtunnel_sess *ss,
    size_t *budget)
{
	bool moved = false;
	int rc;

	if (tn->st == TN_QUEUED && tn->orphan) {
		tn->st = TN_GONE;
		return SSHTUNNEL_MOVED;
	}
	if (tn->st == TN_QUEUED || tn->st == TN_OPENING) {
		if ((rc = tn_open(tn, ss)) < 0)
			return SSHTUNNEL_LOST;
		if (rc == 0)
			return SSHTUNNEL_IDLE;
		moved = true;
	}
	if (tn->st == TN_OPEN && tn_pump(tn, ss, budget, &moved) != 0)
		return SSHTUNNEL_LOST;
	/* A packet half sent is finished before the channel closes. */
	if (tn->st == TN_CLOSING || tn->st == TN_FREEING) {
		if ((rc = tn_close(tn, ss)) < 0)
			return SSHTUNNEL_LOST;
		moved = moved || rc > 0;
	}
	return moved ? SSHTUNNEL_MOVED : SSHTUNNEL_IDLE;
}

void
sshtunnel_poll(struct sshtunnel *tn)
{
	short ev = 0;

	if (tn->fd == -1)
		return;
	if (tn->st == TN_OPEN && tn->up_off == tn->up_len && !tn->fd_eof)
		ev |= POLLIN;
	if (tn->st == TN_OPEN && tn->down_off < tn->down_len)
		ev |= POLLOUT;
	loop_set_events(tn->loop, tn->fd, ev);
}

/* Bytes libssh2 holds for the channel that a round would take now. */
bool
sshtunnel_pending(const struct sshtunnel *tn)
{
	return tn->st == TN_OPEN && tn->down_off == tn->down_len &&
	    !tn->ch_eof && libssh2_poll_channel_read(tn->ch, 0) > 0;
}
