/*
 * test_job.c: the pure parts of durable jobs (jobevent.c, jobreader.c,
 * jobstore.c): a tool's lines as events, whatever the tool writes;
 * numbering without gaps; reading events.jsonl as it grows; job.json
 * written, read and corrupt.
 */
#include "calops.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <setjmp.h>
#include <unistd.h>

#include <cmocka.h>

#include "job/jobevent.h"
#include "job/jobreader.h"
#include "job/jobsink.h"
#include "job/jobstore.h"

#define TS 1700000000.25

/* A scratch folder, removed with everything in it by drop_dir. */
static char *
make_dir(void)
{
	char *dir = xstrdup("/tmp/calops-test-job.XXXXXX");

	assert_non_null(mkdtemp(dir));
	return dir;
}

static void
drop_dir(char *dir)
{
	char *cmd[] = { "rm", "-rf", dir, NULL };
	pid_t pid = fork();

	if (pid == 0) {
		execvp(cmd[0], cmd);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	free(dir);
}

static void
write_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_int_not_equal(fd, -1);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

/* The event for a line, parsed; checks the line's shape on the way. */
static json_t *
event_of(uint64_t seq, const char *line, size_t len, bool cut, bool err)
{
	size_t n;
	char *ev = jobevent_from_line(seq, TS, line, len, cut, err, &n);
	json_t *o;

	assert_int_equal(strlen(ev), n);
	assert_true(n <= JOB_EVENT_MAX);
	assert_int_equal(ev[n - 1], '\n');
	assert_null(memchr(ev, '\n', n - 1));
	o = json_loadb(ev, n, 0, NULL);
	assert_non_null(o);
	assert_int_equal(json_integer_value(json_object_get(o, "v")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "seq")), seq);
	assert_true(json_is_number(json_object_get(o, "ts")));
	assert_true(json_is_string(json_object_get(o, "type")));
	free(ev);
	return o;
}

static json_t *
event_str(uint64_t seq, const char *line, bool err)
{
	return event_of(seq, line, strlen(line), false, err);
}

static const char *
str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* A line that is not an event comes out as a log of the same text. */
static void
expect_log(const char *line, const char *level, bool err)
{
	json_t *o = event_of(7, line, strlen(line), false, err);

	assert_string_equal(str(o, "type"), "log");
	assert_string_equal(str(o, "level"), level);
	assert_string_equal(str(o, "msg"), line);
	assert_null(json_object_get(o, "truncated"));
	json_decref(o);
}

/* A tool's ts that is not a time is not kept as the event's; no C1 or bidi
 * control is written raw, whatever the tool printed. */
static void
test_hostile_tool_lines(void **state)
{
	static const char *const silly[] = { "1e300", "-1e300", "-5",
	    "4102444800", "\"x\"" };
	char line[128], *ev;
	json_t *o;
	size_t i, n;

	(void)state;
	for (i = 0; i < nitems(silly); i++) {
		snprintf(line, sizeof line, "{\"type\":\"metric\",\"ts\":%s,"
		    "\"values\":{\"x\":1}}", silly[i]);
		o = event_str(3, line, false);
		assert_true(json_number_value(json_object_get(o, "ts")) == TS);
		assert_non_null(json_object_get(o, "tool_ts"));
		json_decref(o);
	}
	o = event_str(3, "{\"type\":\"metric\",\"ts\":1700000001.5}",
	    false);
	assert_true(json_number_value(json_object_get(o, "ts")) ==
	    1700000001.5);
	assert_null(json_object_get(o, "tool_ts"));
	json_decref(o);
	/* U+202E, U+0085, DEL, U+2028, in a log line and in a tool's event. */
	for (i = 0; i < 2; i++) {
		snprintf(line, sizeof line, i == 0 ? "a\xe2\x80\xae b\xc2\x85"
		    "c\x7f d\xe2\x80\xa8" : "{\"type\":\"log\",\"msg\":\"a"
		    "\xe2\x80\xae b\xc2\x85" "c\x7f d\xe2\x80\xa8\"}");
		ev = jobevent_from_line(1, TS, line, strlen(line), false,
		    false, &n);
		assert_null(strstr(ev, "\xe2\x80\xae"));
		assert_null(strstr(ev, "\xc2\x85"));
		assert_null(strchr(ev, 0x7f));
		assert_null(strstr(ev, "\xe2\x80\xa8"));
		assert_non_null(strstr(ev, "a\\u202e b\\u0085c\\u007f "
		    "d\\u2028"));
		/* The same text once read back. */
		o = json_loadb(ev, n, 0, NULL);
		assert_string_equal(str(o, "msg"), "a\xe2\x80\xae b\xc2\x85"
		    "c\x7f d\xe2\x80\xa8");
		json_decref(o);
		free(ev);
	}
}

static void
test_plain_lines(void **state)
{
	json_t *o;

	(void)state;
	expect_log("hello world", "info", false);
	expect_log("a warning", "warn", true);
	expect_log("", "info", false);
	expect_log("tab\there \x1b[31mred\x1b[0m", "info", false);
	expect_log("caf\xc3\xa9 \xe4\xb8\xad", "info", false);
	/* JSON that is not an event stays text, exactly. */
	expect_log("[1,2,3]", "info", false);
	expect_log("{\"no\":\"type\"}", "info", false);
	expect_log("{\"type\":42}", "info", false);
	expect_log("{\"type\":\"metric\"", "info", false);
	expect_log("{\"type\":\"metric\"} trailing", "info", false);
	expect_log("\"type\"", "info", false);
	expect_log("{\"type\":\"log\",\"msg\":\"\\u0000\"}", "info", false);
	/* The supervisor's own types are not taken from a tool. */
	expect_log("{\"type\":\"end\",\"exit_code\":0}", "info", false);
	expect_log("{\"type\":\"hello\"}", "warn", true);
	/* Nor those that tell of a full disk: a tool cannot forge a loss. */
	expect_log("{\"type\":\"gap\",\"lost\":5}", "info", false);
	expect_log("{\"type\":\"stalled\",\"since\":1}", "info", false);
	expect_log("{\"type\":\"resumed\"}", "info", false);
	/* A CR before the LF is not part of the line. */
	o = event_of(1, "dos\r", 4, false, false);
	assert_string_equal(str(o, "msg"), "dos");
	json_decref(o);
}

static void
test_tool_events(void **state)
{
	const char *line;
	char *ev;
	size_t n;
	json_t *o;

	(void)state;
	/* Fields kept in order; v and seq are the supervisor's, ts too when
	 * the tool has none. */
	o = event_str(5, "{\"z\":1,\"type\":\"metric\",\"values\":{\"t\":2.5},"
	    "\"seq\":999,\"v\":7,\"chip\":0}", false);
	assert_string_equal(str(o, "type"), "metric");
	assert_true(json_real_value(json_object_get(o, "ts")) == TS);
	assert_true(json_number_value(json_object_get(json_object_get(o,
	    "values"), "t")) == 2.5);
	json_decref(o);
	line = "{\"type\":\"metric\",\"values\":{},\"chip\":0,\"z\":true}";
	ev = jobevent_from_line(5, TS, line, strlen(line), false, false, &n);
	assert_true(strncmp(ev, "{\"v\":1,\"seq\":5,\"ts\":", 20) == 0);
	assert_non_null(strstr(ev, ",\"type\":\"metric\",\"values\":{},"
	    "\"chip\":0,\"z\":true}\n"));
	free(ev);
	/* The tool's ts is kept when it is a number, replaced otherwise. */
	o = event_str(1, "{\"type\":\"progress\",\"ts\":12.5}", false);
	assert_true(json_number_value(json_object_get(o, "ts")) == 12.5);
	json_decref(o);
	o = event_str(1, "{\"type\":\"progress\",\"ts\":\"now\"}", false);
	assert_true(json_number_value(json_object_get(o, "ts")) == TS);
	json_decref(o);
	/* A bogus seq or v of the tool is replaced, whatever it was. */
	o = event_str(3, "  {\"type\":\"x\",\"seq\":-1,\"v\":\"one\"}", true);
	assert_string_equal(str(o, "type"), "x");
	json_decref(o);
	/* A number jansson cannot hold makes it no event. */
	o = event_str(4, "{\"type\":\"x\",\"seq\":1e400}", false);
	assert_string_equal(str(o, "type"), "log");
	json_decref(o);
}

static void
test_not_utf8(void **state)
{
	json_t *o;

	(void)state;
	o = event_of(1, "bad \xff\xfe and \xc3(", 13, false, false);
	assert_string_equal(str(o, "msg"), "bad \\xff\\xfe and \\xc3(");
	json_decref(o);
	o = event_of(1, "nul\0here", 8, false, true);
	assert_string_equal(str(o, "msg"), "nul\\x00here");
	assert_string_equal(str(o, "level"), "warn");
	json_decref(o);
	/* Overlong and surrogate encodings are not UTF-8 either. */
	o = event_of(1, "\xc0\xaf\xed\xa0\x80", 5, false, false);
	assert_string_equal(str(o, "msg"), "\\xc0\\xaf\\xed\\xa0\\x80");
	json_decref(o);
	/* A line cut inside a character loses the piece, not its validity. */
	o = event_of(1, "ab\xe4\xb8", 4, true, false);
	assert_string_equal(str(o, "msg"), "ab");
	assert_true(json_is_true(json_object_get(o, "truncated")));
	json_decref(o);
}

static void
check_fits(const char *line, size_t len, bool cut, size_t min_msg)
{
	json_t *o = event_of(123456, line, len, cut, false);

	assert_string_equal(str(o, "type"), "log");
	assert_true(json_is_true(json_object_get(o, "truncated")));
	assert_true(strlen(str(o, "msg")) >= min_msg);
	json_decref(o);
}

/* Lines whose events would pass 64 KiB are cut to fit, and flagged. */
static void
test_long_lines(void **state)
{
	char *line = xmalloc(JOB_LINE_MAX + 16);
	size_t i;

	(void)state;
	memset(line, 'a', JOB_LINE_MAX);
	check_fits(line, JOB_LINE_MAX, true, JOB_LINE_MAX - 200);
	check_fits(line, JOB_LINE_MAX - 10, false, JOB_LINE_MAX - 200);
	/* Every byte escaped: the text shrinks, but not to nothing. */
	memset(line, 0xe9, JOB_LINE_MAX);
	check_fits(line, JOB_LINE_MAX, true, 40000);
	memset(line, 0x01, JOB_LINE_MAX);
	check_fits(line, JOB_LINE_MAX, true, 10000);
	memset(line, '"', JOB_LINE_MAX);
	check_fits(line, JOB_LINE_MAX, true, 30000);
	/* Multi-byte characters are never split. */
	for (i = 0; i + 3 <= JOB_LINE_MAX; i += 3)
		memcpy(line + i, "\xe4\xb8\xad", 3);
	check_fits(line, i, false, 60000);
	/* A tool's event that grows past the limit once stamped is kept as
	 * text. */
	memset(line, 'x', JOB_LINE_MAX);
	memcpy(line, "{\"type\":\"m\",\"s\":\"", 17);
	memcpy(line + JOB_LINE_MAX - 2, "\"}", 2);
	check_fits(line, JOB_LINE_MAX, false, 60000);
	free(line);
}

static void
test_make(void **state)
{
	json_t *argv = json_array(), *o;
	char *ev, *big = xmalloc(4096);
	size_t n, i;

	(void)state;
	ev = jobevent_make(1, TS, "end", json_pack("{s:s,s:i}", "state",
	    "done", "exit_code", 0), &n);
	o = json_loadb(ev, n, 0, NULL);
	assert_string_equal(str(o, "type"), "end");
	assert_int_equal(json_integer_value(json_object_get(o, "exit_code")), 0);
	json_decref(o);
	free(ev);
	/* A huge argv does not make a huge line. */
	memset(big, 'q', 4095);
	big[4095] = '\0';
	for (i = 0; i < 100; i++)
		json_array_append_new(argv, json_string(big));
	ev = jobevent_make(1, TS, "hello", json_pack("{s:s,s:o}", "tool",
	    "calops", "argv", argv), &n);
	assert_true(n <= JOB_EVENT_MAX);
	o = json_loadb(ev, n, 0, NULL);
	assert_string_equal(str(o, "tool"), "calops");
	assert_null(json_object_get(o, "argv"));
	assert_true(json_is_true(json_object_get(o, "truncated")));
	json_decref(o);
	free(ev);
	free(big);
}

static void
test_check(void **state)
{
	static const char *const bad[] = {
		"", "garbage", "[1]", "{\"type\":\"log\"}",
		"{\"seq\":0,\"type\":\"log\"}", "{\"seq\":\"1\",\"type\":\"log\"}",
		"{\"seq\":1.5,\"type\":\"log\"}", "{\"seq\":2}",
		"{\"seq\":2,\"type\":null}", "{\"seq\":2,\"type\":\"log\"",
	};
	const char *line;
	char err[128];
	uint64_t seq;
	bool end;
	size_t i;

	(void)state;
	line = "{\"seq\":4,\"type\":\"log\"}";
	assert_int_equal(jobevent_check(line, strlen(line), &seq, &end, err,
	    sizeof err), 0);
	assert_int_equal(seq, 4);
	assert_false(end);
	line = "{\"seq\":9,\"type\":\"end\"}";
	assert_int_equal(jobevent_check(line, strlen(line), &seq, &end, err,
	    sizeof err), 0);
	assert_true(end);
	/* The supervisor's own shape, read without jansson, says the same. */
	line = "{\"v\":1,\"seq\":123456,\"ts\":1796228378.1490002,"
	    "\"type\":\"end\",\"status\":0}";
	assert_int_equal(jobevent_check(line, strlen(line), &seq, &end, err,
	    sizeof err), 0);
	assert_int_equal(seq, 123456);
	assert_true(end);
	line = "{\"v\":1,\"seq\":5,\"ts\":1.5,\"type\":\"ending\"}";
	assert_int_equal(jobevent_check(line, strlen(line), &seq, &end, err,
	    sizeof err), 0);
	assert_false(end);
	/* That shape, broken after it: not an event. */
	line = "{\"v\":1,\"seq\":5,\"ts\":1.5,\"type\":\"log\",\"x\":}";
	assert_int_equal(jobevent_check(line, strlen(line), &seq, &end, err,
	    sizeof err), -1);
	for (i = 0; i < nitems(bad); i++) {
		err[0] = '\0';
		assert_int_equal(jobevent_check(bad[i], strlen(bad[i]), &seq,
		    &end, err, sizeof err), -1);
		assert_true(err[0] != '\0');
	}
}

struct got {
	size_t	 n;
	size_t	 lens[16];
	bool	 cuts[16];
	char	 first[16][8];
};

static void
collect(const char *line, size_t len, bool cut, void *arg)
{
	struct got *g = arg;

	assert_true(g->n < 16);
	assert_true(len <= JOB_LINE_MAX);
	g->lens[g->n] = len;
	g->cuts[g->n] = cut;
	snprintf(g->first[g->n], sizeof g->first[0], "%.*s",
	    (int)(len < 7 ? len : 7), line);
	g->n++;
}

static void
test_split(void **state)
{
	struct job_split s = { 0 };
	struct got g = { 0 };
	char *chunk = xmalloc(1 << 20);
	size_t i;

	(void)state;
	jobevent_split_feed(&s, "one\ntw", 6, collect, &g);
	jobevent_split_feed(&s, "o\n\nthree", 8, collect, &g);
	jobevent_split_end(&s, collect, &g);
	assert_int_equal(g.n, 4);
	assert_string_equal(g.first[0], "one");
	assert_string_equal(g.first[1], "two");
	assert_int_equal(g.lens[2], 0);
	assert_string_equal(g.first[3], "three");
	/* 10 MB on one line, fed in chunks: one line, cut, memory bounded. */
	memset(chunk, 'z', 1 << 20);
	memset(&g, 0, sizeof g);
	for (i = 0; i < 10; i++)
		jobevent_split_feed(&s, chunk, 1 << 20, collect, &g);
	assert_int_equal(g.n, 0);
	assert_int_equal(s.len, JOB_LINE_MAX);
	jobevent_split_feed(&s, "\nafter\n", 7, collect, &g);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.lens[0], JOB_LINE_MAX);
	assert_true(g.cuts[0]);
	assert_false(g.cuts[1]);
	assert_string_equal(g.first[1], "after");
	/* A cut last line without its LF still comes out at the end. */
	memset(&g, 0, sizeof g);
	jobevent_split_feed(&s, chunk, JOB_LINE_MAX + 1, collect, &g);
	jobevent_split_end(&s, collect, &g);
	assert_int_equal(g.n, 1);
	assert_true(g.cuts[0]);
	jobevent_split_end(&s, collect, &g);
	assert_int_equal(g.n, 1);
	jobevent_split_release(&s);
	free(chunk);
}

static void
test_sink_numbering(void **state)
{
	char *dir = make_dir(), *path = xasprintf("%s/events.jsonl", dir);
	struct job_sink k;
	struct job_reader r;
	const char *line;
	uint64_t seq, want = 1;
	size_t len;
	bool end;
	char err[128];
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);

	(void)state;
	assert_int_equal(jobsink_open(&k, dfd, "events.jsonl", err,
	    sizeof err), 0);
	assert_int_equal(jobsink_event(&k, "hello", NULL), 0);
	assert_int_equal(jobsink_line(&k, "a", 1, false, false), 0);
	/* A tool's seq is not taken (test_sink.c: a disk that fills). */
	assert_int_equal(
	    jobsink_line(
		&k, "{\"type\":\"metric\",\"seq\":77}", 26, false, false),
	    0);
	assert_int_equal(jobsink_line(&k, "b\xff", 2, false, true), 0);
	assert_int_equal(jobsink_event(&k, "end", json_pack("{s:i}",
	    "exit_code", 0)), 0);
	assert_int_equal(k.seq, 5);
	jobsink_close(&k);
	assert_int_equal(jobreader_open(&r, path), 0);
	while (jobreader_next(&r, &line, &len) == 1) {
		assert_int_equal(jobevent_check(line, len, &seq, &end, err,
		    sizeof err), 0);
		assert_int_equal(seq, want);
		assert_int_equal(end, want == 5);
		want++;
	}
	assert_int_equal(want, 6);
	jobreader_close(&r);
	close(dfd);
	free(path);
	drop_dir(dir);
}

static void
append(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);

	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void
test_reader(void **state)
{
	char *dir = make_dir(), *path = xasprintf("%s/e", dir), *big;
	struct job_reader r;
	const char *line;
	size_t len;

	(void)state;
	append(path, "one\ntw");
	assert_int_equal(jobreader_open(&r, path), 0);
	assert_int_equal(jobreader_next(&r, &line, &len), 1);
	assert_string_equal(line, "one");
	/* A line still being written is not returned... */
	assert_int_equal(jobreader_next(&r, &line, &len), 0);
	assert_int_equal(jobreader_next(&r, &line, &len), 0);
	append(path, "o");
	assert_int_equal(jobreader_next(&r, &line, &len), 0);
	/* ...until its LF is there. */
	append(path, "\nthree\n");
	assert_int_equal(jobreader_next(&r, &line, &len), 1);
	assert_string_equal(line, "two");
	assert_int_equal(r.lineno, 2);
	assert_int_equal(jobreader_next(&r, &line, &len), 1);
	assert_string_equal(line, "three");
	/* A corrupt line of many MB is skipped, once, and reading goes on. */
	big = xmalloc(3 * JOB_READ_MAX + 1);
	memset(big, 'x', 3 * JOB_READ_MAX);
	big[3 * JOB_READ_MAX] = '\0';
	append(path, big);
	append(path, "\nfive\n");
	assert_int_equal(jobreader_next(&r, &line, &len), 2);
	assert_int_equal(r.lineno, 4);
	assert_int_equal(jobreader_next(&r, &line, &len), 1);
	assert_string_equal(line, "five");
	assert_int_equal(r.lineno, 5);
	assert_int_equal(jobreader_next(&r, &line, &len), 0);
	jobreader_close(&r);
	free(big);
	free(path);
	drop_dir(dir);
}

/* A writer that cut a torn line back (a file system that cannot allocate
 * ahead, on a full disk): the reader forgets what it had of it and reads
 * the line written there next whole, never glued to the torn bytes. */
static void
test_reader_torn(void **state)
{
	char *dir = make_dir(), *path = xasprintf("%s/e", dir);
	struct job_reader r;
	const char *line;
	size_t len;

	(void)state;
	append(path, "one\n{\"torn");
	assert_int_equal(jobreader_open(&r, path), 0);
	assert_int_equal(jobreader_next(&r, &line, &len), 1);
	assert_string_equal(line, "one");
	assert_int_equal(jobreader_next(&r, &line, &len), 0);
	assert_int_equal(truncate(path, 4), 0);
	assert_int_equal(jobreader_next(&r, &line, &len), 0);
	append(path, "two\n{\"torn again");
	assert_int_equal(jobreader_next(&r, &line, &len), 1);
	assert_string_equal(line, "two");
	assert_int_equal(r.lineno, 2);
	assert_int_equal(jobreader_next(&r, &line, &len), 0);
	/* Cut back and a longer line written before the reader looks. */
	assert_int_equal(truncate(path, 8), 0);
	append(path, "{\"a line longer than the torn one\"}\n");
	assert_int_equal(jobreader_next(&r, &line, &len), 1);
	assert_string_equal(line, "{\"a line longer than the torn one\"}");
	jobreader_close(&r);
	free(path);
	drop_dir(dir);
}

/* Bisection lands before the seq asked for, whatever the file's size. */
static void
test_reader_seek(void **state)
{
	char *dir = make_dir(), *path = xasprintf("%s/e", dir), *ev;
	uint64_t seq, from, first;
	struct job_reader r;
	const char *line;
	size_t len, n;
	char err[64];
	bool end;
	FILE *f;

	(void)state;
	assert_non_null(f = fopen(path, "w"));
	for (seq = 1; seq <= 40000; seq++) {
		ev = jobevent_from_line(seq, TS, "some log line of text", 21,
		    false, false, &n);
		fwrite(ev, 1, n, f);
		free(ev);
	}
	fclose(f);
	for (from = 1; from <= 40001; from += 3999) {
		assert_int_equal(jobreader_open(&r, path), 0);
		jobreader_seek(&r, from);
		assert_int_equal(jobreader_next(&r, &line, &len), 1);
		assert_int_equal(jobevent_check(line, len, &first, &end, err,
		    sizeof err), 0);
		assert_true(first <= from);
		assert_true(first == 1 || from - first < 5000);
		assert_int_equal(r.lineno, first);
		jobreader_close(&r);
	}
	free(path);
	drop_dir(dir);
}

static void
fill_record(struct job_record *r)
{
	static char *argv[] = { "sleep", "100", NULL };

	memset(r, 0, sizeof *r);
	r->id = xstrdup("20250101-000000-abcdef");
	r->argv = xcalloc(3, sizeof *r->argv);
	r->argv[0] = xstrdup(argv[0]);
	r->argv[1] = xstrdup(argv[1]);
	r->cwd = xstrdup("/tmp");
	r->started = TS;
	r->pid = 1234;
	r->supervisor_pid = 1233;
	r->state = JOB_RUNNING;
	r->exit_code = -1;
}

static void
test_record_roundtrip(void **state)
{
	char *dir = make_dir(), err[256];
	struct job_record w, r;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);

	(void)state;
	fill_record(&w);
	assert_int_equal(jobstore_record_write(&w, dfd, err, sizeof err), 0);
	assert_int_equal(jobstore_record_read(&r, dir, err, sizeof err), 0);
	assert_string_equal(r.id, w.id);
	assert_string_equal(r.argv[1], "100");
	assert_null(r.argv[2]);
	assert_string_equal(r.cwd, "/tmp");
	assert_true(r.started == TS);
	assert_int_equal(r.pid, 1234);
	assert_int_equal(r.supervisor_pid, 1233);
	assert_int_equal(r.state, JOB_RUNNING);
	assert_int_equal(r.exit_code, -1);
	assert_int_equal(r.signal, 0);
	assert_true(r.ended == 0);
	jobstore_record_release(&r);
	/* Ended, by a signal. */
	w.state = JOB_KILLED;
	w.signal = 15;
	w.ended = TS + 1;
	assert_int_equal(jobstore_record_write(&w, dfd, err, sizeof err), 0);
	assert_int_equal(jobstore_record_read(&r, dir, err, sizeof err), 0);
	assert_int_equal(r.state, JOB_KILLED);
	assert_int_equal(r.signal, 15);
	assert_int_equal(r.exit_code, -1);
	jobstore_record_release(&r);
	jobstore_record_release(&w);
	close(dfd);
	drop_dir(dir);
}

static void
test_record_corrupt(void **state)
{
	static const char *const bad[] = {
		"", "{", "[]", "null", "{}",
		"{\"id\":\"../x\"}",
		"{\"id\":\"a\",\"argv\":[]}",
		"{\"id\":\"a\",\"argv\":[1]}",
		"{\"id\":\"a\",\"argv\":[\"x\"]}",
		"{\"id\":\"a\",\"argv\":[\"x\"],\"cwd\":\"/\"}",
		"{\"id\":\"a\",\"argv\":[\"x\"],\"cwd\":\"/\",\"started\":1,"
		    "\"pid\":-4}",
		"{\"id\":\"a\",\"argv\":[\"x\"],\"cwd\":\"/\",\"started\":1,"
		    "\"pid\":5}",
		"{\"id\":\"a\",\"argv\":[\"x\"],\"cwd\":\"/\",\"started\":1,"
		    "\"pid\":5,\"supervisor_pid\":4,\"state\":\"sleeping\"}",
		"{\"id\":\"a\",\"argv\":[\"x\"],\"cwd\":\"/\",\"started\":1,"
		    "\"pid\":5,\"supervisor_pid\":4,\"state\":\"lost\"}",
		"{\"id\":\"a\",\"argv\":[\"x\"],\"cwd\":\"/\",\"started\":1,"
		    "\"pid\":5,\"supervisor_pid\":4,\"state\":\"done\","
		    "\"exit_code\":\"0\"}",
		"{\"id\":\"a\",\"argv\":[\"x\"],\"cwd\":\"/\",\"started\":1,"
		    "\"pid\":5,\"supervisor_pid\":4,\"state\":\"done\","
		    "\"exit_code\":0,\"signal\":null,\"ended\":null}",
	};
	static const char good[] = "{\"id\":\"a\",\"argv\":[\"x\"],\"cwd\":\"/\","
	    "\"started\":1,\"pid\":null,\"supervisor_pid\":4,\"state\":"
	    "\"running\",\"exit_code\":null,\"signal\":null,\"ended\":null}";
	struct job_record r;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < nitems(bad); i++) {
		err[0] = '\0';
		if (jobstore_record_parse(&r, bad[i], strlen(bad[i]), err,
		    sizeof err) != -1)
			fail_msg("accepted: %s", bad[i]);
		assert_true(strncmp(err, "job.json", 8) == 0);
		assert_null(r.id);
		assert_null(r.argv);
	}
	assert_int_equal(jobstore_record_parse(&r, good, strlen(good), err,
	    sizeof err), 0);
	assert_int_equal(r.pid, 0);
	jobstore_record_release(&r);
}

static void
test_ids(void **state)
{
	static const char *const good[] = { "a", "A.b_c-9", "x..y",
	    "1234567890123456789012345678901234567890123456789012345678901234" };
	static const char *const bad[] = { "", ".hidden", "a/b", "..", "a b",
	    "caf\xc3\xa9", "a\n",
	    "12345678901234567890123456789012345678901234567890123456789012345" };
	char id[JOB_ID_MAX + 1], other[JOB_ID_MAX + 1];
	size_t i;

	(void)state;
	for (i = 0; i < nitems(good); i++)
		assert_true(jobstore_id_valid(good[i]));
	for (i = 0; i < nitems(bad); i++)
		assert_false(jobstore_id_valid(bad[i]));
	assert_false(jobstore_id_valid(NULL));
	jobstore_id_generate(id, sizeof id);
	jobstore_id_generate(other, sizeof other);
	assert_true(jobstore_id_valid(id));
	assert_int_equal(strlen(id), 22);
	assert_int_equal(id[8], '-');
	assert_int_equal(id[15], '-');
	assert_string_not_equal(id, other);
}

/* A job folder with this record text (NULL: none). */
static char *
make_job(const char *root, const char *id, const char *text)
{
	char *dir = xasprintf("%s/%s", root, id), *path;

	assert_int_equal(mkdir(dir, 0700), 0);
	if (text != NULL) {
		path = xasprintf("%s/job.json", dir);
		write_file(path, text, strlen(text));
		free(path);
	}
	return dir;
}

static void
test_look(void **state)
{
	static const char running[] = "{\"id\":\"%s\",\"argv\":[\"x\"],\"cwd\":"
	    "\"/\",\"started\":1,\"pid\":5,\"supervisor_pid\":4,\"state\":"
	    "\"running\",\"exit_code\":null,\"signal\":null,\"ended\":null}";
	char *root = make_dir(), *text, *dir, *lock, **names, err[256];
	struct job_record r;
	int fd;

	(void)state;
	text = xasprintf(running, "live");
	dir = make_job(root, "live", text);
	/* Running with its lock held: running; the lock free: lost. */
	lock = xasprintf("%s/lock", dir);
	assert_int_not_equal(fd = open(lock, O_RDWR | O_CREAT, 0600), -1);
	assert_int_equal(flock(fd, LOCK_EX), 0);
	assert_int_equal(jobstore_look(root, "live", &r, err, sizeof err),
	    JOB_RUNNING);
	jobstore_record_release(&r);
	assert_true(jobstore_supervisor_alive(dir));
	close(fd);
	assert_false(jobstore_supervisor_alive(dir));
	assert_int_equal(
	    jobstore_look(root, "live", &r, err, sizeof err), JOB_LOST);
	assert_int_equal(r.pid, 5);
	jobstore_record_release(&r);
	free(lock);
	free(dir);
	free(text);
	/* Half-made, corrupt, or another job's record. */
	free(make_job(root, "empty", NULL));
	assert_int_equal(jobstore_look(root, "empty", &r, err, sizeof err),
	    JOB_CORRUPT);
	assert_string_equal(err, "no job.json");
	free(make_job(root, "half", "{\"id\":\"half\",\"argv\":[\"x"));
	assert_int_equal(jobstore_look(root, "half", &r, err, sizeof err),
	    JOB_CORRUPT);
	text = xasprintf(running, "live");
	free(make_job(root, "moved", text));
	free(text);
	assert_int_equal(jobstore_look(root, "moved", &r, err, sizeof err),
	    JOB_CORRUPT);
	assert_non_null(strstr(err, "'live'"));
	assert_int_equal(jobstore_look(root, "nope", &r, err, sizeof err), -1);
	assert_int_equal(
	    jobstore_look(root, "../etc", &r, err, sizeof err), -1);
	/* Hidden folders (jobs being made) are not listed. */
	free(make_job(root, ".new-1-2", NULL));
	names = jobstore_list(root, err, sizeof err);
	assert_non_null(names);
	assert_string_equal(names[0], "empty");
	assert_string_equal(names[1], "half");
	assert_string_equal(names[2], "live");
	assert_string_equal(names[3], "moved");
	assert_null(names[4]);
	for (fd = 0; names[fd] != NULL; fd++)
		free(names[fd]);
	free(names);
	drop_dir(root);
}

static void
test_root(void **state)
{
	char *dir = make_dir(), *sub = xasprintf("%s/a/b", dir), *got, err[256];

	(void)state;
	got = jobstore_root(sub, true, err, sizeof err);
	assert_non_null(got);
	assert_string_equal(got, sub);
	free(got);
	setenv("CALOPS_JOBS_DIR", "/from/env", 1);
	got = jobstore_root(NULL, false, err, sizeof err);
	assert_string_equal(got, "/from/env");
	free(got);
	unsetenv("CALOPS_JOBS_DIR");
	setenv("XDG_STATE_HOME", "/state", 1);
	got = jobstore_root(NULL, false, err, sizeof err);
	assert_string_equal(got, "/state/calops/jobs");
	free(got);
	free(sub);
	drop_dir(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_lines),
		cmocka_unit_test(test_hostile_tool_lines),
		cmocka_unit_test(test_tool_events),
		cmocka_unit_test(test_not_utf8),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_make),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_sink_numbering),
		cmocka_unit_test(test_reader),
		cmocka_unit_test(test_reader_torn),
		cmocka_unit_test(test_reader_seek),
		cmocka_unit_test(test_record_roundtrip),
		cmocka_unit_test(test_record_corrupt),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_look),
		cmocka_unit_test(test_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
