/*
 * test_boardmodel.c: the console's board (boardmodel.c), fed line by line
 * with the real output of `calops check --stream` on the two example
 * workspaces, as the console feeds it.  The last complete evaluation stays
 * while the next one runs; a result with status "error" keeps the old
 * board and says why; and no line, however bad, crashes it or passes for
 * harmless.
 */
#include "calops.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "model/boardmodel.h"

/* The stream of one run, split into lines. */
struct stream {
	char	**lines;
	size_t	  n;
	int	  status;	/* the exit status of `calops check` */
};

static struct stream mid, complete;
static char *tmpdir;

static void
split(struct stream *s, char *text)
{
	char *p = text, *nl;

	while (*p != '\0') {
		nl = strchr(p, '\n');
		s->lines = xreallocarray(s->lines, s->n + 1, sizeof *s->lines);
		s->lines[s->n++] = xstrndup(p, nl != NULL ? (size_t)(nl - p) :
		    strlen(p));
		if (nl == NULL)
			break;
		p = nl + 1;
	}
}

/* Run `$CALOPS_BIN check --stream <example>` and keep its stdout. */
static void
capture(struct stream *s, const char *example)
{
	const char *bin = getenv("CALOPS_BIN"), *src = getenv("CALOPS_SOURCE_DIR");
	char buf[65536], *text = NULL, *ws, *cache;
	char *argv[] = { NULL, "check", "--stream", "--", NULL, NULL };
	size_t len = 0;
	ssize_t r;
	int fds[2], devnull, status;
	pid_t pid = -1;	/* fail_msg() does not return; cmocka does not say so */

	ws = xasprintf("%s/share/examples/%s", src, example);
	cache = xasprintf("%s/cache", tmpdir);
	argv[0] = (char *)bin;
	argv[4] = ws;
	if (pipe(fds) == -1 || (pid = fork()) == -1)
		fail_msg("cannot run '%s': %s", bin, strerror(errno));
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		if ((devnull = open("/dev/null", O_WRONLY)) != -1)
			dup2(devnull, STDERR_FILENO);
		close(fds[0]);
		close(fds[1]);
		setenv("XDG_CACHE_HOME", cache, 1);
		execv(bin, argv);
		_exit(127);
	}
	close(fds[1]);
	while ((r = read(fds[0], buf, sizeof buf)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			fail_msg("read: %s", strerror(errno));
		text = xrealloc(text, len + (size_t)r + 1);
		memcpy(text + len, buf, (size_t)r);
		len += (size_t)r;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			fail_msg("waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) > 1 || text == NULL)
		fail_msg("'%s check --stream %s' failed (status %#x)", bin, ws,
		    status);
	text[len] = '\0';
	s->status = WEXITSTATUS(status);
	split(s, text);
	free(text);
	free(ws);
	free(cache);
}

static int
group_setup(void **state)
{
	(void)state;
	if (getenv("CALOPS_BIN") == NULL || getenv("CALOPS_SOURCE_DIR") == NULL)
		return 0;	/* the stream tests fail (need_streams) */
	tmpdir = xstrdup("/tmp/calops-test-boardmodel.XXXXXX");
	if (mkdtemp(tmpdir) == NULL)
		return -1;
	capture(&mid, "midproject");
	capture(&complete, "complete");
	return 0;
}

static void
stream_free(struct stream *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->lines[i]);
	free(s->lines);
	memset(s, 0, sizeof *s);
}

static int
group_teardown(void **state)
{
	(void)state;
	stream_free(&mid);
	stream_free(&complete);
	if (tmpdir != NULL)
		fileio_remove_tree(tmpdir);
	free(tmpdir);
	tmpdir = NULL;
	return 0;
}

static void
need_streams(void)
{
	/* A test that cannot run has not passed: ctest sets both. */
	if (mid.n == 0 || complete.n == 0)
		fail_msg("no evaluation streams: CALOPS_BIN or "
		    "CALOPS_SOURCE_DIR is not set (run the tests through "
		    "ctest)");
}

static int
event(struct board *b, const char *line)
{
	return boardmodel_event(b, line, strlen(line));
}

/* Feed lines [from, to) of s, checking each flag returned. */
static void
feed(struct board *b, const struct stream *s, size_t from, size_t to)
{
	json_t *o;
	const char *type;
	size_t i;
	int r;

	for (i = from; i < to; i++) {
		r = event(b, s->lines[i]);
		o = json_loads(s->lines[i], 0, NULL);
		assert_non_null(o);
		type = json_string_value(json_object_get(o, "type"));
		assert_non_null(type);
		if (strcmp(type, "progress") == 0) {
			assert_int_equal(r, BOARD_PROGRESS);
			assert_int_equal(b->progress_done,
			    json_integer_value(json_object_get(o, "done")));
			assert_int_equal(b->progress_total,
			    json_integer_value(json_object_get(o, "total")));
		} else if (strcmp(type, "result") == 0)
			assert_int_equal(r, BOARD_CHANGED);
		else
			assert_int_equal(r, 0);
		json_decref(o);
	}
}

/* One whole evaluation: begin, every line, and the board it gives. */
static void
feed_all(struct board *b, const struct stream *s)
{
	boardmodel_begin(b);
	assert_true(b->running);
	feed(b, s, 0, s->n);
	assert_false(b->running);
	assert_null(b->error);
	assert_true(b->now.valid);
}

/* The inputs the stream sent for one gate, as the board should keep them. */
static json_t *
stream_inputs(const struct stream *s, const char *gate)
{
	json_t *list = json_array(), *o;
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (strstr(s->lines[i], "\"type\":\"input\"") == NULL)
			continue;
		o = json_loads(s->lines[i], 0, NULL);
		assert_non_null(o);
		if (strcmp(json_string_value(json_object_get(o, "gate")),
		    gate) == 0) {
			json_object_del(o, "gate");
			json_object_del(o, "v");
			json_object_del(o, "seq");
			json_object_del(o, "ts");
			json_object_del(o, "type");
			json_array_append(list, o);
		}
		json_decref(o);
	}
	return list;
}

/* The board agrees with the summary of the result line. */
static void
assert_matches_summary(const struct board *b, const struct stream *s)
{
	json_t *res = json_loads(s->lines[s->n - 1], 0, NULL), *sum, *v, *in;
	size_t i, nf = 0;
	int k;

	assert_non_null(res);
	sum = json_object_get(res, "summary");
	assert_string_equal(b->now.model_id,
	    json_string_value(json_object_get(sum, "model_id")));
	assert_string_equal(b->now.project_status,
	    json_string_value(json_object_get(sum, "project_status")));
	assert_int_equal(json_array_size(json_object_get(sum, "gates")),
	    GATE_COUNT);
	json_array_foreach(json_object_get(sum, "gates"), i, v) {
		const struct board_gate *g = &b->now.gates[i];

		assert_string_equal(g->id, gate_table[i].id);
		assert_string_equal(g->id, json_string_value(json_object_get(v,
		    "id")));
		assert_int_equal(g->status,
		    boardmodel_status_parse(
			json_string_value(json_object_get(v, "status"))));
		assert_string_equal(g->name,
		    json_string_value(json_object_get(v, "name")));
		assert_string_equal(g->owner,
		    json_string_value(json_object_get(v, "owner")));
		assert_int_equal(g->counts[SEV_ERROR],
		    json_integer_value(json_object_get(
			json_object_get(v, "counts"), "error")));
		assert_int_equal(g->counts[SEV_WARN],
		    json_integer_value(
			json_object_get(json_object_get(v, "counts"), "warn")));
		/* Inputs come as events, not in the result (64 KiB a line). */
		assert_null(json_object_get(v, "inputs"));
		in = stream_inputs(s, g->id);
		assert_true(json_equal(g->inputs, in));
		json_decref(in);
	}
	assert_int_equal(b->now.ntickets,
	    json_array_size(json_object_get(sum, "tickets")));
	for (i = 0; i < s->n; i++)
		nf += strstr(s->lines[i], "\"type\":\"finding\"") != NULL;
	assert_int_equal(b->now.nfindings, nf);
	/* project first, then gate by gate */
	for (i = 1; i < b->now.nfindings; i++)
		assert_true(b->now.findings[i - 1].gate <=
		    b->now.findings[i].gate);
	for (i = 0; i < b->now.nfindings; i++) {
		k = b->now.findings[i].gate;
		assert_true(k >= -1 && k < GATE_COUNT);
	}
	json_decref(res);
}

static const struct board_ticket *
ticket(const struct board *b, const char *id)
{
	size_t i;

	for (i = 0; i < b->now.ntickets; i++)
		if (strcmp(b->now.tickets[i].id, id) == 0)
			return &b->now.tickets[i];
	fail_msg("no ticket %s", id);
	return NULL;
}

static void
assert_midproject(const struct board *b)
{
	static const enum gate_status want[GATE_COUNT] = { GS_PASS, GS_PASS,
	    GS_STALE, GS_FAIL, GS_PASS, GS_BLOCKED, GS_PENDING, GS_PENDING,
	    GS_PENDING, GS_PENDING, GS_PENDING };
	static const struct {
		int		 gate;
		enum severity	 sev;
		const char	*check;
	} wantf[] = {
		{ -1, SEV_BLOCKED, "vendor.compile_command" },
		{ 0, SEV_INFO, "G0.complexity" },
		{ 2, SEV_STALE, "G2.bound" },
		{ 3, SEV_ERROR, "G3.unsupported" },
		{ 5, SEV_BLOCKED, "G5.script" },
	};
	const struct board_ticket *t;
	size_t i;

	assert_string_equal(b->now.project_status, "BLOCKED_COMPILER");
	assert_non_null(strstr(b->now.model_id, "qwen/qwen3-1.7b"));
	for (i = 0; i < GATE_COUNT; i++)
		if (b->now.gates[i].status != want[i])
			fail_msg("%s is %s, wanted %s", b->now.gates[i].id,
			    gate_status_name(b->now.gates[i].status),
			    gate_status_name(want[i]));
	assert_int_equal(b->now.gates[3].counts[SEV_ERROR], 1);
	assert_int_equal(b->now.gates[2].counts[SEV_STALE], 1);
	assert_int_equal(b->now.gates[5].counts[SEV_BLOCKED], 1);
	assert_int_equal(b->now.ntickets, 13);
	for (i = 0; i < b->now.ntickets; i++) {
		t = &b->now.tickets[i];
		assert_int_equal(t->claimed_done_without_evidence,
		    strcmp(t->id, "M07") == 0);
		assert_true(t->progress >= 0 && t->progress <= 1);
	}
	t = ticket(b, "M07");
	assert_string_equal(t->state, "done");
	assert_true(t->progress > 0.6 && t->progress < 0.7);
	assert_true(t->estimate_days == 5);
	assert_true(json_is_object(t->checks));
	assert_string_equal(ticket(b, "M01")->title, "source/tokenizer freeze");
	assert_string_equal(ticket(b, "M04")->state, "done");
	assert_int_equal(b->now.nfindings, nitems(wantf));
	for (i = 0; i < nitems(wantf); i++) {
		assert_int_equal(b->now.findings[i].gate, wantf[i].gate);
		assert_int_equal(b->now.findings[i].severity, wantf[i].sev);
		assert_string_equal(b->now.findings[i].check, wantf[i].check);
	}
	assert_string_equal(b->now.findings[4].path, "04-compiler/compile.sh");
	assert_string_equal(b->now.findings[2].where, "/model_sha256");
}

static void
assert_complete(const struct board *b)
{
	size_t i;

	assert_string_equal(b->now.project_status, "RELEASED");
	for (i = 0; i < GATE_COUNT; i++)
		assert_int_equal(b->now.gates[i].status, GS_PASS);
	assert_int_equal(b->now.ntickets, 13);
	for (i = 0; i < b->now.ntickets; i++) {
		assert_false(b->now.tickets[i].claimed_done_without_evidence);
		assert_true(b->now.tickets[i].progress == 1);
	}
	assert_int_equal(b->now.gates[6].counts[SEV_WARN], 2);
	assert_int_equal(b->now.nfindings, 4);
	assert_int_equal(b->now.findings[0].gate, 0);
	assert_int_equal(b->now.findings[1].gate, 6);
	assert_int_equal(b->now.findings[2].gate, 6);
	assert_int_equal(b->now.findings[3].gate, 9);
}

static void
test_gate_index(void **state)
{
	static const char *const ids[] = { "G0", "G1", "G2", "G3", "G4", "G5",
	    "G6", "G7", "G8", "G9", "G10" };
	static const char *const bad[] = { "G11", "G99", "g1", "G", "", "G01",
	    "G1 ", "project", "G-1", "G10x" };
	size_t i;

	(void)state;
	for (i = 0; i < nitems(ids); i++)
		assert_int_equal(boardmodel_gate_index(ids[i]), (int)i);
	for (i = 0; i < nitems(bad); i++)
		assert_int_equal(boardmodel_gate_index(bad[i]), -1);
	assert_int_equal(boardmodel_gate_index(NULL), -1);
	assert_int_equal(boardmodel_status_parse("pass"), GS_PASS);
	assert_int_equal(boardmodel_status_parse("fail"), GS_FAIL);
	assert_int_equal(boardmodel_status_parse("blocked"), GS_BLOCKED);
	assert_int_equal(boardmodel_status_parse("stale"), GS_STALE);
	assert_int_equal(boardmodel_status_parse("pending"), GS_PENDING);
	assert_int_equal(boardmodel_status_parse("running"), GS_RUNNING);
	assert_int_equal(boardmodel_status_parse("PASS"), GS_PENDING);
	assert_int_equal(boardmodel_status_parse(NULL), GS_PENDING);
}

/* The example workspaces, as the console sees them. */
static void
test_midproject(void **state)
{
	struct board b;

	(void)state;
	need_streams();
	assert_int_equal(mid.status, 1);
	boardmodel_init(&b);
	feed_all(&b, &mid);
	assert_matches_summary(&b, &mid);
	assert_midproject(&b);
	boardmodel_release(&b);
}

static void
test_complete(void **state)
{
	struct board b;

	(void)state;
	need_streams();
	assert_int_equal(complete.status, 0);
	boardmodel_init(&b);
	feed_all(&b, &complete);
	assert_matches_summary(&b, &complete);
	assert_complete(&b);
	/* evaluated twice: the same board */
	feed_all(&b, &complete);
	assert_complete(&b);
	boardmodel_release(&b);
}

/* While an evaluation runs, and when it ends without a result, the board
 * shows the last complete one. */
static void
test_keep_while_running(void **state)
{
	struct board b;

	(void)state;
	need_streams();
	boardmodel_init(&b);
	/* no evaluation yet: nothing valid, even with findings in */
	boardmodel_begin(&b);
	feed(&b, &mid, 0, mid.n - 1);
	assert_false(b.now.valid);
	assert_int_equal(b.now.nfindings, 0);
	assert_true(b.running);
	feed(&b, &mid, mid.n - 1, mid.n);
	assert_midproject(&b);

	/* the next one: findings and progress in, no result yet */
	boardmodel_begin(&b);
	assert_int_equal(b.progress_done, 0);
	assert_int_equal(b.progress_total, 0);
	feed(&b, &complete, 0, complete.n - 1);
	assert_true(b.running);
	assert_true(b.nincoming > 0);
	assert_midproject(&b);
	/* the child dies */
	boardmodel_fail(&b, "the evaluation was killed");
	assert_false(b.running);
	assert_string_equal(b.error, "the evaluation was killed");
	assert_midproject(&b);
	/* a new run starts over: the dead run's findings are gone */
	boardmodel_begin(&b);
	feed(&b, &complete, 0, complete.n);
	assert_null(b.error);
	assert_complete(&b);
	assert_int_equal(b.nincoming, 0);
	boardmodel_release(&b);
}

/* A result with status "error" (or none) keeps the old board and says
 * why. */
static void
test_result_error(void **state)
{
	static const struct {
		const char	*line;
		const char	*why;
	} errs[] = {
		{ "{\"type\":\"result\",\"status\":\"error\",\"summary\":"
		    "{\"message\":\"cannot open 'ws': gone\"}}",
		    "cannot open 'ws': gone" },
		{ "{\"type\":\"result\",\"status\":\"error\"}",
		    "the evaluation ended in an error" },
		{ "{\"type\":\"result\",\"summary\":{\"gates\":[]}}",
		    "the evaluation ended in an error" },
		{ "{\"type\":\"result\",\"status\":7,\"summary\":{}}",
		    "the evaluation ended in an error" },
		{ "{\"type\":\"result\",\"status\":\"pass\",\"summary\":[]}",
		    "the evaluation ended in an error" },
		{ "{\"type\":\"result\",\"status\":\"error\",\"summary\":"
		    "{\"message\":5}}", "the evaluation ended in an error" },
	};
	struct board b;
	size_t i;

	(void)state;
	need_streams();
	boardmodel_init(&b);
	/* with no board yet */
	boardmodel_begin(&b);
	assert_int_equal(event(&b, errs[0].line), BOARD_CHANGED);
	assert_false(b.now.valid);
	assert_string_equal(b.error, errs[0].why);
	assert_false(b.running);

	feed_all(&b, &mid);
	for (i = 0; i < nitems(errs); i++) {
		boardmodel_begin(&b);
		feed(&b, &complete, 0, complete.n - 1);
		assert_int_equal(event(&b, errs[i].line), BOARD_CHANGED);
		assert_false(b.running);
		assert_string_equal(b.error, errs[i].why);
		assert_midproject(&b);
	}
	/* and a good result clears the error */
	boardmodel_begin(&b);
	feed(&b, &complete, 0, complete.n);
	assert_null(b.error);
	assert_complete(&b);
	boardmodel_release(&b);
}

/* A finding with an unknown or missing severity counts as an error. */
static void
test_unknown_severity(void **state)
{
	static const char *const lines[] = {
		"{\"type\":\"finding\",\"gate\":\"G1\",\"check\":\"G1.a\","
		    "\"severity\":\"catastrophic\",\"message\":\"m\"}",
		"{\"type\":\"finding\",\"gate\":\"G1\",\"check\":\"G1.b\"}",
		"{\"type\":\"finding\",\"gate\":\"G1\",\"check\":\"G1.c\","
		    "\"severity\":3}",
		"{\"type\":\"finding\",\"gate\":\"G1\",\"check\":\"G1.d\","
		    "\"severity\":\"\"}",
		"{\"type\":\"finding\",\"gate\":\"G1\",\"check\":\"G1.e\","
		    "\"severity\":\"INFO\"}",
		"{\"type\":\"finding\",\"gate\":\"G1\",\"check\":\"G1.f\","
		    "\"severity\":null}",
		"{\"type\":\"finding\",\"gate\":\"G1\",\"check\":\"G1.g\","
		    "\"severity\":\"info\"}",
		"{\"type\":\"result\",\"status\":\"pass\",\"summary\":{}}",
	};
	struct board b;
	size_t i;

	(void)state;
	boardmodel_init(&b);
	boardmodel_begin(&b);
	for (i = 0; i < nitems(lines); i++)
		event(&b, lines[i]);
	assert_true(b.now.valid);
	assert_int_equal(b.now.nfindings, 7);
	for (i = 0; i < 6; i++) {
		assert_int_equal(b.now.findings[i].gate, 1);
		assert_int_equal(b.now.findings[i].severity, SEV_ERROR);
	}
	assert_int_equal(b.now.findings[6].severity, SEV_INFO);
	boardmodel_release(&b);
}

/* Lines that are not events, or events of the wrong shape. */
static void
test_bad_lines(void **state)
{
	static const char *const lines[] = {
		"", "   ", "not json", "{", "{\"type\":\"finding\"", "[1,2]",
		"\"finding\"", "42", "null", "true", "{}", "{\"type\":5}",
		"{\"type\":null}", "{\"type\":\"\"}", "{\"type\":\"mystery\"}",
		"{\"type\":[\"finding\"]}",
		"{\"type\":\"finding\",\"gate\":5,\"check\":[],\"severity\":{},"
		    "\"message\":1.5,\"path\":true,\"where\":null}",
		"{\"type\":\"finding\",\"gate\":\"G99\",\"check\":\"G99.x\","
		    "\"severity\":\"warn\",\"message\":\"m\"}",
		"{\"type\":\"finding\",\"gate\":\"G3\",\"check\":\"G3.z\","
		    "\"severity\":\"warn\",\"message\":\"\\u001b[2Jclear\"}",
		"{\"type\":\"progress\",\"done\":\"lots\",\"total\":[]}",
		"{\"type\":\"progress\",\"done\":-5,\"total\":-1}",
		"{\"type\":\"progress\",\"done\":1e300,\"total\":1e-300}",
		"{\"type\":\"progress\",\"done\":9223372036854775807,"
		    "\"total\":-9223372036854775808}",
		"{\"type\":\"finding\"}\n{\"type\":\"finding\"}",
		"{\"type\":\"finding\",\"gate\":\"G1\"} trailing",
	};
	struct board b;
	size_t i;
	int r;

	(void)state;
	boardmodel_init(&b);
	boardmodel_begin(&b);
	for (i = 0; i < nitems(lines); i++) {
		r = event(&b, lines[i]);
		assert_true(r == 0 || r == BOARD_PROGRESS);
		assert_false(b.now.valid);
		assert_null(b.error);
	}
	assert_int_equal(b.nincoming, 3);
	/* wrong types: the fields are there and empty, and it is an error */
	assert_int_equal(b.incoming[0].gate, -1);
	assert_int_equal(b.incoming[0].severity, SEV_ERROR);
	assert_string_equal(b.incoming[0].check, "?");
	assert_string_equal(b.incoming[0].message, "");
	assert_string_equal(b.incoming[0].path, "");
	assert_string_equal(b.incoming[0].where, "");
	/* a gate that does not exist: the finding is kept, for the project */
	assert_int_equal(b.incoming[1].gate, -1);
	assert_string_equal(b.incoming[1].check, "G99.x");
	/* progress that is negative, or past its total, does not wrap */
	assert_int_equal(event(&b, "{\"type\":\"progress\",\"done\":-5,"
	    "\"total\":-1}"), BOARD_PROGRESS);
	assert_int_equal(b.progress_done, 0);
	assert_int_equal(b.progress_total, 0);
	assert_int_equal(event(&b, "{\"type\":\"progress\",\"done\":-5,"
	    "\"total\":10}"), BOARD_PROGRESS);
	assert_int_equal(b.progress_done, 0);
	assert_int_equal(b.progress_total, 10);
	assert_int_equal(event(&b, "{\"type\":\"progress\",\"done\":50,"
	    "\"total\":10}"), BOARD_PROGRESS);
	assert_int_equal(b.progress_done, 10);
	assert_int_equal(b.progress_total, 10);
	/* a line with NUL bytes in it */
	r = boardmodel_event(&b, "{\"type\":\"finding\"}\0junk", 23);
	assert_int_equal(r, 0);
	assert_int_equal(b.nincoming, 3);
	boardmodel_release(&b);
}

static void	event_f(struct board *, int, const char *, ...)
		    PRINTFLIKE(3, 4);

/* Feed one line made from fmt; it must return want. */
static void
event_f(struct board *b, int want, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	assert_int_equal(boardmodel_event(b, s, strlen(s)), want);
	free(s);
}

/* A result whose summary has every field of the wrong type, gates twice
 * or unknown, too many tickets: a board, and nothing leaks or overflows. */
static void
test_bad_summary(void **state)
{
	struct board b;
	size_t i;
	char *big, *tickets;

	(void)state;
	boardmodel_init(&b);
	boardmodel_begin(&b);
	event_f(&b, BOARD_CHANGED, "{\"type\":\"result\",\"status\":\"fail\","
	    "\"summary\":{\"model_id\":5,\"project_status\":[],\"gates\":"
	    "\"G0\",\"tickets\":{}}}");
	assert_true(b.now.valid);
	assert_null(b.now.model_id);
	assert_null(b.now.project_status);
	for (i = 0; i < GATE_COUNT; i++) {
		assert_string_equal(b.now.gates[i].id, gate_table[i].id);
		assert_int_equal(b.now.gates[i].status, GS_PENDING);
	}
	assert_int_equal(b.now.ntickets, 0);

	boardmodel_begin(&b);
	event_f(&b, BOARD_CHANGED, "{\"type\":\"result\",\"status\":\"fail\","
	    "\"summary\":{\"gates\":[1,null,\"G3\",{\"id\":5},"
	    "{\"id\":\"G99\",\"status\":\"pass\"},"
	    "{\"id\":\"G3\",\"status\":\"fail\",\"name\":\"first\","
	    "\"owner\":\"o\",\"inputs\":[],\"counts\":{\"error\":2}},"
	    "{\"id\":\"G3\",\"status\":\"pass\",\"name\":\"second\","
	    "\"owner\":\"p\",\"inputs\":[1],\"counts\":{\"error\":0}},"
	    "{\"id\":\"G4\",\"status\":7,\"name\":5,\"owner\":null,"
	    "\"due\":[],\"failback\":{},\"role\":1,\"inputs\":\"x\","
	    "\"counts\":{\"error\":-3,\"warn\":\"many\",\"info\":1e30}},"
	    "{\"id\":\"G5\",\"status\":\"strange\",\"counts\":[1,2]}]}}");
	assert_true(b.now.valid);
	/* a gate listed twice: the first one counts */
	assert_int_equal(b.now.gates[3].status, GS_FAIL);
	assert_string_equal(b.now.gates[3].name, "first");
	assert_int_equal(b.now.gates[3].counts[SEV_ERROR], 2);
	assert_int_equal(b.now.gates[4].status, GS_PENDING);
	assert_null(b.now.gates[4].name);
	assert_null(b.now.gates[4].owner);
	assert_null(b.now.gates[4].due);
	assert_int_equal(b.now.gates[4].counts[SEV_ERROR], 0);
	assert_int_equal(b.now.gates[4].counts[SEV_WARN], 0);
	assert_int_equal(b.now.gates[5].status, GS_PENDING);
	assert_int_equal(b.now.gates[0].status, GS_PENDING);

	/* tickets of every wrong shape, and more than thirteen */
	tickets = xstrdup("[1,{},{\"id\":5,\"title\":[],\"progress\":\"x\","
	    "\"estimate_days\":\"2\",\"claimed_done_without_evidence\":1},"
	    "{\"id\":\"M123456789\",\"progress\":7.5},"
	    "{\"id\":\"M02\",\"progress\":-2,\"estimate_days\":-1}");
	for (i = 0; i < 20; i++) {
		char *more = xasprintf("%s,{\"id\":\"M%02zu\"}", tickets, i);

		free(tickets);
		tickets = more;
	}
	boardmodel_begin(&b);
	event_f(&b, BOARD_CHANGED, "{\"type\":\"result\",\"status\":\"fail\","
	    "\"summary\":{\"tickets\":%s]}}", tickets);
	free(tickets);
	assert_int_equal(b.now.ntickets, 13);
	for (i = 0; i < b.now.ntickets; i++) {
		const struct board_ticket *t = &b.now.tickets[i];

		assert_true(strlen(t->id) < sizeof t->id);
		assert_null(strstr(t->id, "null"));
		assert_true(t->progress >= 0 && t->progress <= 1);
		assert_false(t->claimed_done_without_evidence);
	}
	assert_string_equal(b.now.tickets[3].id, "M123456");
	assert_true(b.now.tickets[3].progress == 1);
	assert_true(b.now.tickets[4].progress == 0);
	assert_true(b.now.tickets[4].estimate_days < 0);
	assert_true(b.now.tickets[2].estimate_days < 0);

	/* huge strings */
	big = xmalloc(8u << 20);
	memset(big, 'A', (8u << 20) - 1);
	big[(8u << 20) - 1] = '\0';
	boardmodel_begin(&b);
	event_f(&b, 0, "{\"type\":\"finding\",\"gate\":\"G1\",\"check\":\"%s\","
	    "\"severity\":\"warn\",\"message\":\"%s\",\"path\":\"%s\"}", big,
	    big, big);
	event_f(&b, 0, "{\"type\":\"finding\",\"gate\":\"%s\","
	    "\"severity\":\"%s\"}", big, big);
	event_f(&b, BOARD_CHANGED, "{\"type\":\"result\",\"status\":\"pass\","
	    "\"summary\":{\"model_id\":\"%s\",\"gates\":[{\"id\":\"G0\","
	    "\"name\":\"%s\"}],\"tickets\":[{\"id\":\"%s\"}]}}", big, big,
	    big);
	free(big);
	assert_int_equal(b.now.nfindings, 2);
	assert_int_equal(b.now.findings[0].gate, -1);	/* sorted first */
	assert_int_equal(b.now.findings[0].severity, SEV_ERROR);
	assert_int_equal(b.now.findings[1].gate, 1);
	assert_int_equal(b.now.findings[1].severity, SEV_WARN);
	assert_int_equal(strlen(b.now.findings[1].message), (8u << 20) - 1);
	assert_int_equal(strlen(b.now.findings[1].check), (8u << 20) - 1);
	assert_int_equal(strlen(b.now.model_id), (8u << 20) - 1);
	assert_int_equal(strlen(b.now.tickets[0].id), 7);
	boardmodel_release(&b);
}

/* Findings come out project first, then gate by gate, and within a gate
 * in the order they arrived: the gate screen shows its first failing
 * check. */
static void
test_finding_order(void **state)
{
	static const char *const gates[] = { "G3", "project", "G1", "G10",
	    "G3", "G0", "G1", "G99", "G3" };
	struct board b;
	size_t i, n = 600, seen[GATE_COUNT + 1] = { 0 };
	int g, prev = -2;
	unsigned long seq;

	(void)state;
	boardmodel_init(&b);
	boardmodel_begin(&b);
	for (i = 0; i < n; i++)
		event_f(&b, 0, "{\"type\":\"finding\",\"gate\":\"%s\","
		    "\"check\":\"c%zu\",\"severity\":\"%s\"}",
		    gates[i % nitems(gates)], i, i % 3 ? "error" : "warn");
	event_f(&b, BOARD_CHANGED, "{\"type\":\"result\",\"status\":"
	    "\"fail\",\"summary\":{}}");
	assert_int_equal(b.now.nfindings, n);
	for (i = 0; i < n; i++) {
		g = b.now.findings[i].gate;
		assert_true(g >= prev);
		if (g != prev)
			seen[g + 1] = 0;
		seq = strtoul(b.now.findings[i].check + 1, NULL, 10);
		if (g == prev)
			assert_true(seq > seen[g + 1]);
		seen[g + 1] = seq;
		prev = g;
	}
	assert_int_equal(b.now.findings[0].gate, -1);
	assert_string_equal(b.now.findings[0].check, "c1");
	assert_int_equal(b.now.findings[n - 1].gate, 10);
	boardmodel_release(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate_index),
		cmocka_unit_test(test_midproject),
		cmocka_unit_test(test_complete),
		cmocka_unit_test(test_keep_while_running),
		cmocka_unit_test(test_result_error),
		cmocka_unit_test(test_unknown_severity),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_bad_summary),
		cmocka_unit_test(test_finding_order),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
