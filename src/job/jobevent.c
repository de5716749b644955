/* jobevent.c: a job's events, made, written and read back (see job.h). */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/text.h"
#include "job/job.h"

#define READ_CHUNK	(64u << 10)
/* smaller files are read from the start */
#define SEEK_MIN_SIZE	(1u << 20)
#define SEEK_WINDOW	(256u << 10)	/* bisection stops at this much */

double
jobevent_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)(ts.tv_nsec / 1000) / 1e6;
}

char *
jobevent_utf8_escape(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	struct buf b = BUF_INIT;
	size_t i = 0, run, n;
	uint32_t cp;
	char hex[8];

	buf_add(&b, "", 0);
	while (i < len) {
		for (run = i; run < len && p[run] != 0; run += n)
			if ((n = text_utf8_decode(p + run, len - run, &cp)) ==
			    0)
				break;
		buf_add(&b, s + i, run - i);
		if ((i = run) < len) {
			snprintf(hex, sizeof hex, "\\x%02x", p[i]);
			buf_add(&b, hex, 4);
			i++;
		}
	}
	return buf_detach(&b, NULL);
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
	if (!json_is_object(o) || type == NULL || strcmp(type, "hello") == 0 ||
	    strcmp(type, "end") == 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A tool's event renumbered; NULL when it grew past the limit. */
static char *
restamp(uint64_t seq, double ts, json_t *o, size_t *outlen)
{
	json_t *e, *v, *tv = json_object_get(o, "ts");
	const char *key;
	char *out;

	e = event_head(seq, json_is_number(tv) ? json_incref(tv) :
	    json_real(ts), json_string_value(json_object_get(o, "type")));
	json_object_foreach(o, key, v) {
		if (!common_member(key))
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
	msg = jobevent_utf8_escape(line, len);
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

int
jobevent_check(const char *line, size_t len, uint64_t *seq, bool *is_end,
    char *err, size_t errlen)
{
	json_error_t je;
	const char *type;
	json_t *o, *s;
	int rc = -1;

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

int
jobevent_sink_open(struct job_sink *k, int dirfd, const char *name, char *err,
    size_t errlen)
{
	struct stat st;

	memset(k, 0, sizeof *k);
	k->fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0600);
	if (k->fd == -1 || fstat(k->fd, &st) == -1) {
		errbuf_set(err, errlen, "cannot open '%s': %s", name,
		    strerror(errno));
		if (k->fd != -1)
			close(k->fd);
		k->fd = -1;
		return -1;
	}
	k->size = st.st_size;
	return 0;
}

void
jobevent_sink_close(struct job_sink *k)
{
	if (k->fd != -1)
		close(k->fd);
	k->fd = -1;
}

/* One whole line in one write; a part written is cut off again. */
static int
sink_append(struct job_sink *k, const char *line, size_t len)
{
	size_t done = 0;
	ssize_t n;
	int saved;

	while (done < len) {
		n = write(k->fd, line + done, len - done);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			saved = n == 0 ? EIO : errno;
			if (done > 0)
				(void)!ftruncate(k->fd, k->size);
			errno = saved;
			return -1;
		}
		done += (size_t)n;
	}
	k->size += (off_t)len;
	k->seq++;
	return 0;
}

int
jobevent_sink_line(struct job_sink *k, const char *line, size_t len, bool cut,
    bool from_stderr)
{
	size_t n;
	char *ev;
	int rc;

	ev = jobevent_from_line(k->seq + 1, jobevent_now(), line, len, cut,
	    from_stderr, &n);
	rc = sink_append(k, ev, n);
	free(ev);
	return rc;
}

int
jobevent_sink_event(struct job_sink *k, const char *type, json_t *fields)
{
	size_t n;
	char *ev;
	int rc;

	ev = jobevent_make(k->seq + 1, jobevent_now(), type, fields, &n);
	rc = sink_append(k, ev, n);
	free(ev);
	return rc;
}

int
jobevent_reader_open(struct job_reader *r, const char *path)
{
	memset(r, 0, sizeof *r);
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	return r->fd == -1 ? -1 : 0;
}

void
jobevent_reader_close(struct job_reader *r)
{
	if (r->fd != -1)
		close(r->fd);
	free(r->buf);
	memset(r, 0, sizeof *r);
	r->fd = -1;
}

/* A complete line in the buffer (1), an over-long one dropped (2), or 0. */
static int
reader_take(struct job_reader *r, const char **line, size_t *len)
{
	char *p, *nl;

	while (r->start < r->len) {
		p = r->buf + r->start;
		if ((nl = memchr(p, '\n', r->len - r->start)) == NULL)
			break;
		r->start += (size_t)(nl - p) + 1;
		if (r->skipping) {
			r->skipping = false;
			continue;
		}
		*nl = '\0';
		r->lineno++;
		*line = p;
		*len = (size_t)(nl - p);
		return 1;
	}
	if (r->skipping)
		r->start = r->len = 0;
	else if (r->len - r->start > JOB_READ_MAX) {
		r->skipping = true;
		r->start = r->len = 0;
		r->lineno++;
		return 2;
	}
	return 0;
}

int
jobevent_reader_next(struct job_reader *r, const char **line, size_t *len)
{
	ssize_t n;
	int rc;

	for (;;) {
		if ((rc = reader_take(r, line, len)) != 0)
			return rc;
		if (r->start > 0) {
			memmove(r->buf, r->buf + r->start, r->len - r->start);
			r->len -= r->start;
			r->start = 0;
		}
		if (r->alloc - r->len < READ_CHUNK) {
			r->alloc = r->len + READ_CHUNK;
			r->buf = xrealloc(r->buf, r->alloc);
		}
		n = read(r->fd, r->buf + r->len, r->alloc - r->len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? 0 : -1;
		r->len += (size_t)n;
	}
}

/* The first whole line after offset off (at off itself when it is 0): its
 * start and seq.  -1 when there is none or it is not an event. */
static int
probe(struct job_reader *r, off_t off, char *buf, off_t *at, uint64_t *seq)
{
	char err[128], *p, *end;
	bool is_end;
	ssize_t n;

	n = pread(r->fd, buf, 2 * JOB_EVENT_MAX, off);
	if (n <= 0)
		return -1;
	p = buf;
	if (off > 0) {
		if ((p = memchr(buf, '\n', (size_t)n)) == NULL)
			return -1;
		p++;
	}
	if ((end = memchr(p, '\n', (size_t)(buf + n - p))) == NULL)
		return -1;
	*at = off + (p - buf);
	return jobevent_check(p, (size_t)(end - p), seq, &is_end, err,
	    sizeof err);
}

void
jobevent_reader_seek(struct job_reader *r, uint64_t from)
{
	off_t lo = 0, hi, mid, at;
	uint64_t lo_seq = 0, seq;
	struct stat st;
	char *buf;

	if (from <= 1 || fstat(r->fd, &st) == -1 || st.st_size < SEEK_MIN_SIZE)
		return;
	buf = xmalloc(2 * JOB_EVENT_MAX);
	hi = st.st_size;
	while (hi - lo > SEEK_WINDOW) {
		mid = lo + (hi - lo) / 2;
		if (probe(r, mid, buf, &at, &seq) != 0)
			break;
		if (seq < from && at < hi) {
			lo = at;
			lo_seq = seq;
		} else
			hi = mid;
	}
	free(buf);
	if (lo == 0 || lseek(r->fd, lo, SEEK_SET) == -1)
		return;
	r->start = r->len = 0;
	r->skipping = false;
	r->lineno = (size_t)lo_seq - 1;
}
