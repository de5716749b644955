/* jobevent.c: a job's events, made, written and read back (see job.h). */
#include "calops.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/fileio.h"
#include "base/text.h"
#include "job/job.h"
#include "proto/event.h"

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

static bool
is_type(json_t *o, const char *type)
{
	const char *t = json_string_value(json_object_get(o, "type"));

	return t != NULL && strcmp(t, type) == 0;
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

/* ---- The sink (job.h) ---- */

/* A stalled notice leaves this much of the tail to the gap and the end. */
#define SINK_LAST_WORDS	1024u

struct job_wait {
	struct job_wait	*next;
	uint64_t	 gap;		/* a gap here (lines lost), or 0 */
	double		 ts, until;	/* a gap: since and until */
	bool		 cut, from_stderr;
	size_t		 len;
	char		 line[];
};

/*
 * Room for n more bytes and keep more after them: allocated ahead, or free
 * as far as the file system says.  0, or -1 with errno.
 */
static int
sink_room(struct job_sink *k, size_t n, size_t keep)
{
	off_t need = k->size + (off_t)n + (off_t)keep, want;
	unsigned long long avail;

	/* A file-size limit is the end of the disk, as far as we go. */
	if (k->limit > 0 && need > k->limit) {
		errno = EFBIG;
		return -1;
	}
	if (k->ahead) {
		if (need <= k->allocated)
			return 0;
		want = (need + JOB_SINK_GROW - 1) / JOB_SINK_GROW *
		    JOB_SINK_GROW;
		/* From the end: what lies before it is written already. */
		if (fallocate(k->fd, FALLOC_FL_KEEP_SIZE, k->size,
		    want - k->size) == 0) {
			k->allocated = want;
			return 0;
		}
		if (fallocate(k->fd, FALLOC_FL_KEEP_SIZE, k->size,
		    need - k->size) == 0) {
			k->allocated = need;
			return 0;
		}
		if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG ||
		    errno == EIO || errno == EINTR)
			return -1;
		k->ahead = false;	/* not on this file system */
	}
	/* Without allocation ahead: the free space, as near as it is known. */
	if (keep == 0 || fileio_free_bytes(k->fd, NULL, &avail) != 0)
		return 0;
	if (avail >= (unsigned long long)n + keep)
		return 0;
	errno = ENOSPC;
	return -1;
}

int
jobevent_sink_open(struct job_sink *k, int dirfd, const char *name, char *err,
    size_t errlen)
{
	struct rlimit rl;
	struct stat st;

	memset(k, 0, sizeof *k);
	k->fd = openat(dirfd, name, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC |
	    O_NOFOLLOW, 0600);
	if (k->fd == -1 || fstat(k->fd, &st) == -1) {
		errbuf_set(err, errlen, "cannot open '%s': %s", name,
		    strerror(errno));
		if (k->fd != -1)
			close(k->fd);
		k->fd = -1;
		return -1;
	}
	k->size = k->allocated = st.st_size;
	k->ahead = true;
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		k->limit = (off_t)rl.rlim_cur;
	if (sink_room(k, 0, JOB_SINK_TAIL) != 0) {
		errbuf_set(err, errlen, "cannot reserve %u KiB for '%s': %s",
		    JOB_SINK_TAIL >> 10, name, strerror(errno));
		close(k->fd);
		k->fd = -1;
		return -1;
	}
	return 0;
}

/*
 * The last whole line among the last span bytes of fd, a file of size
 * bytes, read into buf (span + 1 bytes): its start, NUL-terminated without
 * its LF, its length in *len and where the whole lines end in *whole (less
 * than size after a torn line).  NULL when there is none.
 */
static char *
last_line(int fd, off_t size, char *buf, size_t span, size_t *len,
    off_t *whole)
{
	off_t off = size > (off_t)span ? size - (off_t)span : 0;
	char *nl, *start;
	ssize_t n;

	n = size > 0 ? pread(fd, buf, (size_t)(size - off), off) : 0;
	if (n <= 0 || (nl = memrchr(buf, '\n', (size_t)n)) == NULL)
		return NULL;
	*nl = '\0';
	start = memrchr(buf, '\n', (size_t)(nl - buf));
	start = start != NULL ? start + 1 : buf;
	*len = (size_t)(nl - start);
	*whole = off + (nl + 1 - buf);
	return start;
}

int
jobevent_sink_resume(struct job_sink *k, int dirfd, const char *name,
    char *err, size_t errlen)
{
	size_t span = 2 * JOB_EVENT_MAX, len;
	char *buf, why[128], *line;
	bool is_end = false;
	off_t whole;

	if (jobevent_sink_open(k, dirfd, name, err, errlen) != 0)
		return -1;
	if (k->size == 0)
		return 0;
	buf = xmalloc(span + 1);
	line = last_line(k->fd, k->size, buf, span, &len, &whole);
	if (line != NULL && whole < k->size && ftruncate(k->fd, whole) == 0)
		k->size = whole;		/* a torn line */
	if (line != NULL && jobevent_check(line, len, &k->seq, &is_end, why,
	    sizeof why) != 0)
		line = NULL;
	free(buf);
	if (line == NULL) {
		errbuf_set(err, errlen, "'%s' does not end with an event", name);
		jobevent_sink_close(k);
		return -1;
	}
	return is_end ? 1 : 0;
}

static void
wait_free(struct job_sink *k)
{
	struct job_wait *w;

	while ((w = k->head) != NULL) {
		k->head = w->next;
		free(w);
	}
	k->tail = NULL;
	k->waiting = k->wait_bytes = 0;
}

/* Lines still waiting can no longer be written in their place: counted
 * in the gap to come. */
static void
wait_abandon(struct job_sink *k)
{
	struct job_wait *w;
	double since, until;
	uint64_t n;

	for (w = k->head; w != NULL; w = w->next) {
		n = w->gap > 0 ? w->gap : 1;
		since = w->ts;
		until = w->gap > 0 ? w->until : w->ts;
		if (k->dropped == 0 || since < k->dropped_since)
			k->dropped_since = since;
		if (k->dropped == 0 || until > k->dropped_until)
			k->dropped_until = until;
		k->dropped += n;
		if (w->gap == 0)
			k->lost++;
	}
	wait_free(k);
}

void
jobevent_sink_close(struct job_sink *k)
{
	wait_abandon(k);
	if (k->fd != -1 && k->ahead && k->allocated > k->size) {
		/* Punched where it can be (tmpfs, XFS, Btrfs); ext4 gives
		 * blocks past the end back on a truncate to the same size. */
		(void)fallocate(k->fd, FALLOC_FL_PUNCH_HOLE |
		    FALLOC_FL_KEEP_SIZE, k->size, k->allocated - k->size);
		(void)!ftruncate(k->fd, k->size);
	}
	if (k->fd != -1)
		close(k->fd);
	k->fd = -1;
}

/* One numbered event, whole or not at all, leaving keep bytes of the
 * tail; 0, or -1 with errno. */
static int
sink_write(struct job_sink *k, const char *ev, size_t len, size_t keep)
{
	size_t done = 0;
	ssize_t n;
	int saved;

	if (sink_room(k, len, keep) != 0)
		return -1;
	while (done < len) {
		n = write(k->fd, ev + done, len - done);
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

/* An event of ours, made with the next number; fields stolen. */
static int
sink_own(struct job_sink *k, const char *type, json_t *fields, size_t keep)
{
	size_t n;
	char *ev;
	int rc, saved;

	ev = jobevent_make(k->seq + 1, jobevent_now(), type, fields, &n);
	rc = sink_write(k, ev, n, keep);
	saved = errno;
	free(ev);
	errno = saved;
	return rc;
}

static int
sink_tool_line(struct job_sink *k, double ts, const char *line, size_t len,
    bool cut, bool from_stderr)
{
	size_t n;
	char *ev;
	int rc, saved;

	ev = jobevent_from_line(k->seq + 1, ts, line, len, cut, from_stderr,
	    &n);
	rc = sink_write(k, ev, n, JOB_SINK_TAIL);
	saved = errno;
	free(ev);
	errno = saved;
	if (rc == 0)
		k->said_stalled = false;
	return rc;
}

static int
sink_gap(struct job_sink *k, uint64_t lost, double since, double until,
    size_t keep)
{
	return sink_own(k, "gap", json_pack("{s:I,s:f,s:f}", "lost",
	    (json_int_t)lost, "since", since, "until", until), keep);
}

/* The lines dropped so far, as a gap event; 0 when there are none. */
static int
sink_dropped(struct job_sink *k, size_t keep)
{
	if (k->dropped == 0)
		return 0;
	if (sink_gap(k, k->dropped, k->dropped_since, k->dropped_until,
	    keep) != 0)
		return -1;
	k->dropped = 0;
	return 0;
}

/* A write failed with errno: stalled, and the file's last line says so
 * (when the tail leaves room for it). */
static void
sink_stalled(struct job_sink *k, double ts)
{
	const char *reason;
	char *msg;

	if (k->stalled_since == 0) {
		k->stalled_since = ts;
		k->stalled_errno = errno;
	}
	if (k->said_stalled)
		return;
	reason = k->stalled_errno == ENOSPC || k->stalled_errno == EDQUOT ?
	    "disk full" : k->stalled_errno == EFBIG ? "file size limit" :
	    strerror(k->stalled_errno);
	msg = xasprintf("cannot append to events.jsonl: %s; new lines wait "
	    "in memory (up to %u MiB), then are counted as lost",
	    strerror(k->stalled_errno), JOB_SINK_WAIT_MAX >> 20);
	if (sink_own(k, "stalled", json_pack("{s:f,s:s,s:s}", "since",
	    k->stalled_since, "reason", reason, "msg", msg),
	    SINK_LAST_WORDS) == 0)
		k->said_stalled = true;
	free(msg);
}

/* Space again, everything written: say for how long it was not. */
static void
sink_resumed(struct job_sink *k)
{
	char *msg;

	msg = xasprintf("events.jsonl written again after %.1f s: %llu lines "
	    "waited, %llu were lost in all", jobevent_now() - k->stalled_since,
	    (unsigned long long)k->waited, (unsigned long long)k->lost);
	if (sink_own(k, "resumed", json_pack("{s:f,s:I,s:I,s:s}", "since",
	    k->stalled_since, "waited", (json_int_t)k->waited, "lost",
	    (json_int_t)k->lost, "msg", msg), JOB_SINK_TAIL) == 0) {
		k->stalled_since = 0;
		k->said_stalled = false;
	}
	free(msg);
}

/* Queue a line (or count it dropped past the bound); always 1. */
static int
wait_line(struct job_sink *k, double ts, const char *line, size_t len,
    bool cut, bool from_stderr)
{
	size_t cost = sizeof(struct job_wait) + len;
	struct job_wait *w;

	if (k->dropped > 0)
		cost += sizeof(struct job_wait);
	if (k->wait_bytes + cost > JOB_SINK_WAIT_MAX) {
		if (k->dropped++ == 0)
			k->dropped_since = ts;
		k->dropped_until = ts;
		k->lost++;
		return 1;
	}
	if (k->dropped > 0) {
		/* The lost lines sit between those before and this one. */
		w = xcalloc(1, sizeof *w);
		w->gap = k->dropped;
		w->ts = k->dropped_since;
		w->until = k->dropped_until;
		k->dropped = 0;
		if (k->tail != NULL)
			k->tail->next = w;
		else
			k->head = w;
		k->tail = w;
	}
	w = xmalloc(sizeof *w + len);
	memset(w, 0, sizeof *w);
	w->ts = ts;
	w->cut = cut;
	w->from_stderr = from_stderr;
	w->len = len;
	memcpy(w->line, line, len);
	if (k->tail != NULL)
		k->tail->next = w;
	else
		k->head = w;
	k->tail = w;
	k->waiting++;
	k->waited++;
	k->wait_bytes += cost;
	return 1;
}

int
jobevent_sink_line(struct job_sink *k, const char *line, size_t len, bool cut,
    bool from_stderr)
{
	double ts = jobevent_now();

	if (k->head == NULL && k->stalled_since == 0) {
		if (sink_dropped(k, JOB_SINK_TAIL) == 0 &&
		    sink_tool_line(k, ts, line, len, cut, from_stderr) == 0)
			return 0;
		sink_stalled(k, ts);
	}
	return wait_line(k, ts, line, len, cut, from_stderr);
}

int
jobevent_sink_flush(struct job_sink *k)
{
	struct job_wait *w;
	int rc;

	if (k->stalled_since == 0 && k->head == NULL && k->dropped == 0)
		return 0;
	while ((w = k->head) != NULL) {
		if (w->gap > 0)
			rc = sink_gap(k, w->gap, w->ts, w->until,
			    JOB_SINK_TAIL);
		else
			rc = sink_tool_line(k, w->ts, w->line, w->len, w->cut,
			    w->from_stderr);
		if (rc != 0) {
			sink_stalled(k, jobevent_now());
			return 1;
		}
		if (w->gap == 0) {
			k->waiting--;
			k->wait_bytes -= sizeof *w + w->len;
		} else
			k->wait_bytes -= sizeof *w;
		if ((k->head = w->next) == NULL)
			k->tail = NULL;
		free(w);
	}
	if (sink_dropped(k, JOB_SINK_TAIL) != 0) {
		sink_stalled(k, jobevent_now());
		return 1;
	}
	if (k->stalled_since != 0)
		sink_resumed(k);
	return k->stalled_since != 0;
}

int
jobevent_sink_event(struct job_sink *k, const char *type, json_t *fields)
{
	(void)jobevent_sink_flush(k);
	wait_abandon(k);
	/* From the tail: these are the last words, they must be written. */
	(void)sink_dropped(k, 0);
	return sink_own(k, type, fields, 0);
}

int
jobevent_reader_open(struct job_reader *r, const char *path)
{
	memset(r, 0, sizeof *r);
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
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

/*
 * At the end of the file with part of a line read: forget that part and
 * read it again from where it began next time.  Its writer may cut it back
 * (a torn line, on a file system that cannot allocate ahead) and write
 * another line there, which must be read whole, never glued to the torn
 * bytes.  A line is written in one write(2), so this is rare and short.
 */
static void
reader_unread(struct job_reader *r)
{
	size_t partial = r->len - r->start;

	if (partial > 0 && lseek(r->fd, -(off_t)partial, SEEK_CUR) != -1)
		r->len = r->start;
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
		if (n == 0 && !r->skipping)
			reader_unread(r);
		if (n <= 0)
			return n == 0 ? 0 : -1;
		r->len += (size_t)n;
	}
}

double
jobevent_stalled_since(const char *path, char *why, size_t whylen)
{
	char buf[JOB_SINK_TAIL + 1], *line;
	json_t *o = NULL, *s;
	double since = 0;
	struct stat st;
	off_t whole;
	size_t len;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return 0;
	/* The very last line: a stalled event followed by nothing. */
	if (fstat(fd, &st) == 0 && (line = last_line(fd, st.st_size, buf,
	    JOB_SINK_TAIL, &len, &whole)) != NULL && whole == st.st_size &&
	    (o = json_loadb(line, len, 0, NULL)) != NULL &&
	    is_type(o, "stalled") && json_is_number(s = json_object_get(o,
	    "since")) && json_number_value(s) > 0 &&
	    json_number_value(s) < EVENT_TS_MAX) {
		since = json_number_value(s);
		s = json_object_get(o, "reason");
		errbuf_set(why, whylen, "%s", json_is_string(s) ?
		    json_string_value(s) : "cannot write");
	}
	json_decref(o);
	close(fd);
	return since;
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
