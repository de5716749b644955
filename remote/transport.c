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
