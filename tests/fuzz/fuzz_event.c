/*
 * fuzz_event.c: the event fast path against jansson on the same bytes.
 * Where the fast path answers (EVENT_OK or EVENT_ERROR), jansson must give
 * the same answer, and for EVENT_OK the same event, field for field and
 * bit for bit; event_parse() must give jansson's answer; every error has a
 * message.  Anything else aborts.
 *
 * An input whose first byte is 1, 2 or 3 (never the start of JSON text) is
 * put, without that byte, into a metric event: as the value of a member of
 * `values` (1), as a label's string (2) or as a name in `values` (3), so
 * most runs reach the fast path's numbers and strings.
 */
#include "calops.h"

#include "proto/event.h"
#include "proto/eventfast.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool
same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static bool
events_equal(const struct event *a, const struct event *b)
{
	size_t i;

	if (a->has != b->has || a->type != b->type ||
	    strcmp(a->type_name, b->type_name) != 0 || a->seq != b->seq ||
	    !same_double(a->ts, b->ts) || a->chip != b->chip ||
	    a->nvalues != b->nvalues || a->nlabels != b->nlabels ||
	    a->values_not_kept != b->values_not_kept ||
	    a->labels_not_kept != b->labels_not_kept)
		return false;
	for (i = 0; i < a->nvalues; i++)
		if (strcmp(a->values[i].name, b->values[i].name) != 0 ||
		    !same_double(a->values[i].v, b->values[i].v))
			return false;
	for (i = 0; i < a->nlabels; i++)
		if (strcmp(a->labels[i].name, b->labels[i].name) != 0 ||
		    strcmp(a->labels[i].value, b->labels[i].value) != 0)
			return false;
	return true;
}

static void
disagree(const char *what, const struct event *f, const struct event *j)
{
	fprintf(stderr, "fuzz_event: %s (fast: '%s', jansson: '%s')\n", what,
	    f->err, j->err);
	abort();
}

static void
check(const char *line, size_t size)
{
	static struct event f, j, e;
	int rf, rj, re;

	rf = eventfast_parse(line, size, &f);
	rj = event_parse_jansson(line, size, &j);
	re = event_parse(line, size, &e);
	if (rj != EVENT_OK && rj != EVENT_ERROR)
		disagree("jansson path returned a fallback", &f, &j);
	if (re != rj)
		disagree("event_parse differs from jansson", &e, &j);
	if (rj == EVENT_ERROR && j.err[0] == '\0')
		disagree("jansson error without a message", &f, &j);
	if (rf == EVENT_FALLBACK)
		return;
	if (rf != rj)
		disagree(rf == EVENT_OK ? "fast accepts, jansson refuses" :
		    "fast refuses, jansson accepts", &f, &j);
	if (rf == EVENT_ERROR && f.err[0] == '\0')
		disagree("fast error without a message", &f, &j);
	if (rf == EVENT_OK && (!events_equal(&f, &j) || !events_equal(&e, &j)))
		disagree("both accept, the events differ", &f, &j);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const wrap[][2] = {
		{ NULL, NULL },
		{ "{\"v\":1,\"seq\":1,\"ts\":1,\"type\":\"metric\","
		    "\"values\":{\"x\":", "}}" },
		{ "{\"v\":1,\"seq\":1,\"ts\":1,\"type\":\"metric\","
		    "\"values\":{},\"labels\":{\"k\":\"", "\"}}" },
		{ "{\"v\":1,\"seq\":1,\"ts\":1,\"type\":\"metric\","
		    "\"values\":{\"", "\":1}}" },
	};
	size_t pre, post;
	char *buf;

	if (size == 0 || data[0] < 1 || data[0] > 3) {
		check((const char *)data, size);
		return 0;
	}
	pre = strlen(wrap[data[0]][0]);
	post = strlen(wrap[data[0]][1]);
	buf = xmalloc(pre + size - 1 + post);
	memcpy(buf, wrap[data[0]][0], pre);
	memcpy(buf + pre, data + 1, size - 1);
	memcpy(buf + pre + size - 1, wrap[data[0]][1], post);
	check(buf, pre + size - 1 + post);
	free(buf);
	return 0;
}
