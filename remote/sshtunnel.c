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
	tn->ch = libssh2_channel_direct_tcpip_ex(ss->sess, tn->host,
	    tn->port, "127.0.0.1", 0);
	if (tn->ch == NULL) {
		rc = libssh2_session_last_error(ss->sess, &msg, NULL, 0);
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
tn_down(struct sshtunnel *tn, size_t *budget)
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
	if (tn->ch_eof || *budget == 0)
		return 0;
	n = libssh2_channel_read(tn->ch, tn->down, TN_DOWN_MAX);
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

	if (ss->writing != NULL && ss->writing != tn)
		return 0;
	if (tn->up_off < tn->up_len) {
		n = libssh2_channel_write(tn->ch, tn->up + tn->up_off,
		    tn->up_len - tn->up_off);
		if (n == LIBSSH2_ERROR_EAGAIN) {
			ss->writing = tn;
			return 0;
		}
		ss->writing = NULL;
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
		rc = libssh2_channel_send_eof(tn->ch);
		if (rc == LIBSSH2_ERROR_EAGAIN) {
			ss->writing = tn;
			return 0;
		}
		ss->writing = NULL;
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
		if ((d = tn_down(tn, budget)) < 0 || (u = tn_up(tn, ss)) < 0)
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

/* Close and free the channel: whether it is gone; -1 the session failed. */
static int
tn_close(struct sshtunnel *tn, struct sshtunnel_sess *ss)
{
	int rc;

	if (ss->writing == tn)
		ss->writing = NULL;
	if (tn->st == TN_CLOSING) {
		rc = libssh2_channel_close(tn->ch);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return 0;
		tn->st = TN_FREEING;
	}
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
	if ((tn->st == TN_CLOSING || tn->st == TN_FREEING) &&
	    (ss->writing == NULL || ss->writing == tn)) {
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
