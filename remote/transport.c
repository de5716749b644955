/* transport.c: what every transport shares (see transport.h). */
#include "calops.h"

#include "remote/transport.h"

int
transport_connect(struct transport *t, char *err, size_t errlen)
{
	return t->ops->connect(t, err, errlen);
}

struct rstream *
transport_exec(struct transport *t, char *const argv[],
    const struct rstream_cb *cb, void *arg, char *err, size_t errlen)
{
	return t->ops->exec(t, argv, cb, arg, err, errlen);
}

struct rstream *
transport_exec_input(struct transport *t, char *const argv[],
    const struct rstream_cb *cb, void *arg, char *err, size_t errlen)
{
	return t->ops->exec_input(t, argv, cb, arg, err, errlen);
}

int
transport_input(struct rstream *rs, const void *data, size_t len, bool eof,
    char *err, size_t errlen)
{
	return rs->t->ops->input(rs, data, len, eof, err, errlen);
}

void
transport_rstream_cancel(struct rstream *rs)
{
	rs->t->ops->cancel(rs);
}

void
transport_close(struct transport *t)
{
	t->ops->close(t);
}

void
transport_before_sleep(struct transport *t)
{
	short events;
	int fd;

	if (t->ops->deliver != NULL && t->ops->pending(t) > 0)
		t->ops->deliver(t);
	if ((fd = t->ops->events(t, &events)) >= 0)
		loop_set_events(t->loop, fd, events);
	if (t->ops->pending(t) > 0)
		loop_no_sleep(t->loop);
}

const char *
transport_state_name(enum transport_state st)
{
	switch (st) {
	case TRANSPORT_CONNECTING:	return "connecting";
	case TRANSPORT_UP:		return "up";
	case TRANSPORT_STALE:		return "stale";
	case TRANSPORT_DISCONNECTED:	return "disconnected";
	case TRANSPORT_RECONNECTING:	return "reconnecting";
	case TRANSPORT_REFUSED:		return "refused";
	}
	return "?";
}

void
transport_status(struct transport *t, struct transport_status *st)
{
	if (t->ops->status != NULL) {
		t->ops->status(t, st);
		return;
	}
	memset(st, 0, sizeof *st);
	st->state = TRANSPORT_UP;
	st->rtt_us = -1;
}

bool
transport_state_up(enum transport_state st)
{
	return st == TRANSPORT_UP || st == TRANSPORT_STALE;
}

bool
transport_state_down(enum transport_state st)
{
	return !transport_state_up(st) && st != TRANSPORT_CONNECTING;
}

bool
transport_up(struct transport *t)
{
	struct transport_status st;

	transport_status(t, &st);
	return transport_state_up(st.state);
}

void
transport_reconnect(struct transport *t)
{
	if (t->ops->reconnect != NULL)
		t->ops->reconnect(t);
}

int
transport_accept_key(struct transport *t, char *err, size_t errlen)
{
	if (t->ops->accept_key == NULL) {
		errbuf_set(err, errlen, "host '%s' has no host key to accept",
		    t->host);
		return -1;
	}
	return t->ops->accept_key(t, err, errlen);
}

void
transport_passphrase(struct transport *t, const char *pass)
{
	if (t->ops->passphrase != NULL)
		t->ops->passphrase(t, pass);
}
