/* evtext.c: the words the job log shows of an event (evtext.h). */
#include "calops.h"

#include <time.h>

#include "base/buf.h"
#include "proto/event.h"
#include "proto/evtext.h"

void
evtext_value(struct buf *b, const char *metric, const json_t *v)
{
	char *s;

	(void)metric;
	if (json_is_number(v))
		buf_addf(b, "%g", json_number_value(v));
	else if (v == NULL)
		buf_adds(b, "-");
	else {
		s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		buf_addf(b, "%.64s(not a number)", s != NULL ? s : "?");
		free(s);
	}
}

/* A string member, or a default. */
static const char *
str_or(const json_t *o, const char *key, const char *def)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : def;
}

/* A ts as HH:MM:SS, when it is a time at all (a forged 1e300 is not). */
static bool
clock_of(json_t *ts, char *buf, size_t len)
{
	double v = json_number_value(ts);
	struct tm tm;
	time_t t;

	if (!json_is_number(ts) || !(v >= 0 && v < EVENT_TS_MAX))
		return false;
	t = (time_t)v;
	if (localtime_r(&t, &tm) == NULL)
		return false;
	strftime(buf, len, "%H:%M:%S", &tm);
	return true;
}

/* " between 14:03:05 and 14:03:10", when both are times. */
static void
add_span(struct buf *b, json_t *since, json_t *until)
{
	char t0[16], t1[16];

	if (clock_of(since, t0, sizeof t0) && clock_of(until, t1, sizeof t1))
		buf_addf(b, " between %s and %s", t0, t1);
}

/* A metric's chip and its first 8 values (the others said, not hidden). */
static void
metric_summary(json_t *o, evtext_value_fn value, struct buf *b)
{
	const char *k;
	json_t *m;
	int n = 0;

	/* Which chip first: a merged soak has a line per chip. */
	if (json_is_integer(m = json_object_get(o, "chip")))
		buf_addf(b, "chip %lld ", (long long)json_integer_value(m));
	json_object_foreach(json_object_get(o, "values"), k, m) {
		if (n++ < 8) {
			buf_addf(b, "%s%s=", n > 1 ? " " : "", k);
			value(b, k, m);
		}
	}
	if (n > 8)
		buf_addf(b, " (+%d more)", n - 8);
}

/* A compact summary of an event that is not a log line. */
static void
summary(json_t *o, const char *type, evtext_value_fn value, struct buf *b)
{
	json_t *m;

	if (strcmp(type, "end") == 0) {
		if (json_is_integer(m = json_object_get(o, "signal")))
			buf_addf(b, "signal %lld", (long long)
			    json_integer_value(m));
		else
			buf_addf(b, "exit %lld", (long long)json_integer_value(
			    json_object_get(o, "exit_code")));
	} else if (strcmp(type, "progress") == 0) {
		buf_addf(b, "%s ", str_or(o, "phase", ""));
		evtext_value(b, NULL, json_object_get(o, "done"));
		buf_addc(b, '/');
		evtext_value(b, NULL, json_object_get(o, "total"));
		buf_addf(b, " %s", str_or(o, "unit", ""));
	} else if (strcmp(type, "metric") == 0)
		metric_summary(o, value, b);
	else if (strcmp(type, "result") == 0)
		buf_adds(b, str_or(o, "status", ""));
	else if (strcmp(type, "gap") == 0) {
		/* The host's supervisor could not store these (disk full). */
		m = json_object_get(o, "lost");
		buf_addf(b, "%lld line%s lost on the host", json_is_integer(m) ?
		    (long long)json_integer_value(m) : 0LL,
		    json_integer_value(m) == 1 ? "" : "s");
		add_span(b, json_object_get(o, "since"),
		    json_object_get(o, "until"));
	} else if (strcmp(type, "hello") == 0)
		/* The supervisor's first word: the job started, where. */
		buf_addf(b, "job started by %s %s on %s", str_or(o, "tool", "?"),
		    str_or(o, "version", ""), str_or(o, "host", "?"));
}

void
evtext_message(json_t *o, const char *type, evtext_value_fn value,
    struct buf *b)
{
	/* The supervisor cut a line past 64 KiB: said first, where it shows. */
	if (json_is_true(json_object_get(o, "truncated")))
		buf_adds(b, "[cut at 64 KiB] ");
	if (strcmp(type, "log") == 0 || strcmp(type, "stalled") == 0 ||
	    strcmp(type, "resumed") == 0)
		buf_adds(b, str_or(o, "msg", ""));
	else if (strcmp(type, "fault") == 0)
		buf_adds(b, str_or(o, "scenario", ""));
	else
		summary(o, type, value != NULL ? value : evtext_value, b);
}

void
evtext_words(json_t *o, const char *type, evtext_value_fn value,
    struct buf *b)
{
	static const char *const levels[] = { "debug", "info", "warn",
	    "error" };
	const char *lv = str_or(o, "level", "info");
	size_t i;

	buf_addf(b, "%s ", type);
	/* The log shows a level it does not know as info. */
	for (i = 0; strcmp(type, "log") == 0 && i <= nitems(levels); i++)
		if (i == nitems(levels) || strcmp(lv, levels[i]) == 0) {
			buf_addf(b, "%s ", i < nitems(levels) ? levels[i] :
			    "info");
			break;
		}
	evtext_message(o, type, value, b);
}
