/* jobevent.c: a job's events, made from a tool's lines and checked
 * (jobevent.h). */
#include "calops.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/text.h"
#include "job/jobevent.h"
#include "proto/event.h"

double
jobevent_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)(ts.tv_nsec / 1000) / 1e6;
}

/* How many bytes at the end of s begin a UTF-8 sequence that was cut off. */
static size_t
utf8_unfinished(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t k, need;
	unsigned char c;

	for (k = 1; k <= 3 && k <= len; k++) {
		c = p[len - k];
		if ((c & 0xc0) == 0x80)
			continue;
		need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 1;
		return need > k ? k : 0;
	}
	return 0;
}

/* The dumped event with its LF in a string of our own, or NULL when it
 * would pass JOB_EVENT_MAX. */
static char *
dump_line(json_t *e, size_t *outlen)
{
	char *s, *out;
	size_t n;

	if ((s = json_dumps(e, JSON_COMPACT)) == NULL)
		fatal("cannot encode an event");
	n = strlen(s);
	/* No C1 or bidi control reaches a terminal that shows the file. */
	if ((out = text_json_harden(s, n, &n)) != NULL) {
		free(s);
		s = out;
	}
	if (n + 1 > JOB_EVENT_MAX) {
		free(s);
		*outlen = n + 1;
		return NULL;
	}
	out = xmalloc(n + 2);
	memcpy(out, s, n);
	out[n] = '\n';
	out[n + 1] = '\0';
	free(s);
	*outlen = n + 1;
	return out;
}

/* A new event object with the common members first. */
static json_t *
event_head(uint64_t seq, json_t *ts, const char *type)
{
	json_t *e = json_object();

	json_object_set_new(e, "v", json_integer(1));
	json_object_set_new(e, "seq", json_integer((json_int_t)seq));
	json_object_set_new(e, "ts", ts);
	json_object_set_new(e, "type", json_string(type));
	return e;
}

static bool
common_member(const char *key)
{
	return strcmp(key, "v") == 0 || strcmp(key, "seq") == 0 ||
	    strcmp(key, "ts") == 0 || strcmp(key, "type") == 0;
}

/* The supervisor's own types: a tool's line with one of them is text. */
static bool
supervisor_type(const char *type)
{
	static const char *const own[] = { "hello", "end", "gap", "stalled",
	    "resumed" };
	size_t i;

	for (i = 0; i < nitems(own); i++)
		if (strcmp(type, own[i]) == 0)
			return true;
	return false;
}

/* The tool's line as a protocol event of its own (new reference), or NULL
 * when it is not one. */
static json_t *
tool_event(const char *line, size_t len)
{
	const char *type;
	size_t i = 0;
	json_t *o;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == len || line[i] != '{')
		return NULL;
	if ((o = json_loadb(line, len, 0, NULL)) == NULL)
		return NULL;
	type = json_string_value(json_object_get(o, "type"));
	if (!json_is_object(o) || type == NULL || supervisor_type(type)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A tool's event renumbered; NULL when it grew past the limit.  The tool's
 * ts is kept when it is a time (else ours, and the tool's as tool_ts). */
static char *
restamp(uint64_t seq, double ts, json_t *o, size_t *outlen)
{
	json_t *e, *v, *tv = json_object_get(o, "ts");
	bool is_time = json_is_number(tv) && json_number_value(tv) >= 0 &&
	    json_number_value(tv) < EVENT_TS_MAX;
	const char *key;
	char *out;

	e = event_head(seq, is_time ? json_incref(tv) : json_real(ts),
	    json_string_value(json_object_get(o, "type")));
	if (tv != NULL && !is_time)
		json_object_set(e, "tool_ts", tv);
	json_object_foreach(o, key, v) {
		if (!common_member(key) && strcmp(key, "tool_ts") != 0)
			json_object_set(e, key, v);
	}
	out = dump_line(e, outlen);
	json_decref(e);
	return out;
}

/* How many bytes of msg fit in budget bytes once encoded as a JSON string
 * (jansson escapes '"', '\\' and the C0 controls), cut at a character. */
static size_t
fit_msg(const char *msg, size_t mlen, size_t budget)
{
	size_t i, used = 0, cost, fit = 0;
	unsigned char c;

	for (i = 0; i < mlen; i++) {
		c = (unsigned char)msg[i];
		if ((c & 0xc0) != 0x80)
			fit = i;	/* a character may end before i */
		if (c == '"' || c == '\\' || c == '\b' || c == '\f' ||
		    c == '\n' || c == '\r' || c == '\t')
			cost = 2;
		else
			cost = c < 0x20 ? 6 : 1;
		if (used + cost > budget)
			return fit;
		used += cost;
	}
	return mlen;
}

static json_t *
log_object(uint64_t seq, double ts, const char *level, const char *msg,
    size_t mlen, bool cut)
{
	json_t *e = event_head(seq, json_real(ts), "log"), *m;

	json_object_set_new(e, "level", json_string(level));
	if ((m = json_stringn(msg, mlen)) == NULL)
		fatal("an escaped log line is not UTF-8");
	json_object_set_new(e, "msg", m);
	if (cut)
		json_object_set_new(e, "truncated", json_true());
	return e;
}

/* A log event; a msg too long for a line is cut (at a character) to fit. */
static char *
log_event(uint64_t seq, double ts, const char *level, const char *line,
    size_t len, bool cut, size_t *outlen)
{
	size_t mlen, empty, budget;
	char *msg, *out;
	json_t *e;

	if (cut)
		len -= utf8_unfinished(line, len);
	msg = text_utf8_escape(line, len);
	mlen = strlen(msg);
	e = log_object(seq, ts, level, msg, mlen, cut);
	out = dump_line(e, outlen);
	json_decref(e);
	if (out != NULL) {
		free(msg);
		return out;
	}
	/* What the line takes without its text, flagged as cut. */
	e = log_object(seq, ts, level, "", 0, true);
	free(dump_line(e, &empty));
	json_decref(e);
	budget = empty < JOB_EVENT_MAX ? JOB_EVENT_MAX - empty : 0;
	for (;;) {
		mlen = fit_msg(msg, mlen, budget);
		e = log_object(seq, ts, level, msg, mlen, true);
		out = dump_line(e, outlen);
		json_decref(e);
		if (out != NULL)
			break;
		if (mlen == 0)
			fatal("a log event does not fit a line");
		budget = budget > *outlen - JOB_EVENT_MAX ?
		    budget - (*outlen - JOB_EVENT_MAX) : 0;
	}
	free(msg);
	return out;
}

char *
jobevent_from_line(uint64_t seq, double ts, const char *line, size_t len,
    bool cut, bool from_stderr, size_t *outlen)
{
	char *out;
	json_t *o;

	if (!cut && len > 0 && line[len - 1] == '\r')
		len--;
	if (!cut && (o = tool_event(line, len)) != NULL) {
		out = restamp(seq, ts, o, outlen);
		json_decref(o);
		if (out != NULL)
			return out;
		cut = true;	/* too long once stamped: keep it as text */
	}
	return log_event(seq, ts, from_stderr ? "warn" : "info", line, len, cut,
	    outlen);
}

/* The member whose text is longest (borrowed key), to drop first. */
static const char *
largest_member(json_t *fields)
{
	const char *key, *best = NULL;
	size_t n, most = 0;
	json_t *v;
	char *s;

	json_object_foreach(fields, key, v) {
		s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		n = s != NULL ? strlen(s) : 0;
		free(s);
		if (best == NULL || n > most) {
			best = key;
			most = n;
		}
	}
	return best;
}

char *
jobevent_make(uint64_t seq, double ts, const char *type, json_t *fields,
    size_t *outlen)
{
	const char *key;
	json_t *e, *v;
	char *out;

	if (fields == NULL)
		fields = json_object();
	for (;;) {
		e = event_head(seq, json_real(ts), type);
		json_object_foreach(fields, key, v) {
			if (!common_member(key))
				json_object_set(e, key, v);
		}
		out = dump_line(e, outlen);
		json_decref(e);
		if (out != NULL || (key = largest_member(fields)) == NULL)
			break;
		/* Too long (a huge argv): drop the longest member. */
		json_object_del(fields, key);
		json_object_set_new(fields, "truncated", json_true());
	}
	json_decref(fields);
	if (out == NULL)
		fatal("an event of type '%s' does not fit a line", type);
	return out;
}

/*
 * The supervisor writes every event as {"v":1,"seq":N,"ts":T,"type":"NAME",
 * …} (event_head): read seq and type from there when the line is
 * plain JSON (text_json_plain), which is how `calops tail` reads a GiB of
 * events at the disk's pace rather than jansson's.  0 when it could; -1:
 * ask jansson (a line in another shape, or JSON that is not plain).  A
 * second "seq" later in such a line, which no supervisor writes, would be
 * the one jansson keeps; this keeps the first.
 */
static int
check_plain(const char *line, size_t len, uint64_t *seq, bool *is_end)
{
	static const char pre[] = "{\"v\":1,\"seq\":", ts[] = ",\"ts\":",
	    type[] = ",\"type\":\"";
	const char *p = line + sizeof pre - 1, *end = line + len, *name;
	uint64_t v = 0;
	int digits = 0;

	if (len < sizeof pre || memcmp(line, pre, sizeof pre - 1) != 0 ||
	    *p < '1' || *p > '9')
		return -1;
	for (; p < end && *p >= '0' && *p <= '9' && digits < 15; p++, digits++)
		v = v * 10 + (uint64_t)(*p - '0');
	if ((size_t)(end - p) < sizeof ts || memcmp(p, ts, sizeof ts - 1) != 0)
		return -1;
	for (p += sizeof ts - 1; p < end && (*p == '-' || *p == '.' ||
	    (*p >= '0' && *p <= '9')); p++)
		;
	if ((size_t)(end - p) < sizeof type ||
	    memcmp(p, type, sizeof type - 1) != 0)
		return -1;
	for (name = p += sizeof type - 1; p < end && ((*p >= 'a' &&
	    *p <= 'z') || *p == '_'); p++)
		;
	if (p == end || *p != '"' || !text_json_plain(line, len))
		return -1;
	*seq = v;
	*is_end = p - name == 3 && memcmp(name, "end", 3) == 0;
	return 0;
}

int
jobevent_check(const char *line, size_t len, uint64_t *seq, bool *is_end,
    char *err, size_t errlen)
{
	json_error_t je;
	const char *type;
	json_t *o, *s;
	int rc = -1;

	if (check_plain(line, len, seq, is_end) == 0)
		return 0;
	if ((o = json_loadb(line, len, 0, &je)) == NULL) {
		errbuf_set(err, errlen, "not JSON (%s)", je.text);
		return -1;
	}
	s = json_object_get(o, "seq");
	type = json_string_value(json_object_get(o, "type"));
	if (!json_is_object(o))
		errbuf_set(err, errlen, "not a JSON object");
	else if (!json_is_integer(s) || json_integer_value(s) < 1)
		errbuf_set(err, errlen, "no seq");
	else if (type == NULL)
		errbuf_set(err, errlen, "no type");
	else {
		*seq = (uint64_t)json_integer_value(s);
		*is_end = strcmp(type, "end") == 0;
		rc = 0;
	}
	json_decref(o);
	return rc;
}

static void
split_emit(struct job_split *s, job_line_fn fn, void *arg)
{
	fn(s->line != NULL ? s->line : "", s->len, s->cut, arg);
	s->len = 0;
	s->cut = false;
}

/* Keep n more bytes of the current line, up to the cap. */
static void
split_keep(struct job_split *s, const char *p, size_t n)
{
	if (n > JOB_LINE_MAX - s->len) {
		n = JOB_LINE_MAX - s->len;
		s->cut = true;
	}
	if (s->line == NULL)
		s->line = xmalloc(JOB_LINE_MAX + 1);
	memcpy(s->line + s->len, p, n);
	s->len += n;
	s->line[s->len] = '\0';
}

void
jobevent_split_feed(struct job_split *s, const char *p, size_t n,
    job_line_fn fn, void *arg)
{
	const char *nl;
	size_t k;

	while (n > 0) {
		nl = memchr(p, '\n', n);
		k = nl != NULL ? (size_t)(nl - p) : n;
		split_keep(s, p, k);
		if (nl == NULL)
			return;
		split_emit(s, fn, arg);
		p += k + 1;
		n -= k + 1;
	}
}

void
jobevent_split_end(struct job_split *s, job_line_fn fn, void *arg)
{
	if (s->len > 0 || s->cut)
		split_emit(s, fn, arg);
}

void
jobevent_split_release(struct job_split *s)
{
	free(s->line);
	memset(s, 0, sizeof *s);
}
