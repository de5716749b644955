/*
 * test_hostparse.c: the typed parsers of what a host's calops prints
 * (proto/hostcmd.h): `run`'s id, `jobs --json`, `version --json`,
 * `release status` and `audit`, `release apply`'s events, `watch`'s events,
 * `cat --line-of` and `ls --json`, each on good output and on what a
 * broken or hostile host may print instead: a document refused whole, with
 * a message that says where (truncated JSON, another schema, members of
 * the wrong type, a name that is not one component, a huge folder);
 * apply's events read as leniently as the console always read them.
 */
#include "calops.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "base/buf.h"
#include "base/text.h"
#include "proto/hostcmd.h"

/* One running job of a gate, one killed, one corrupt folder. */
static const char jobs_ok[] =
    "{\"schema\":\"calops-jobs/v1\",\"jobs\":["
    "{\"id\":\"a1\",\"state\":\"running\",\"age\":100.5,\"cwd\":\"/w\","
    "\"argv\":[\"calrt-sim\",\"stress\"],\"exit_code\":null,"
    "\"signal\":null,\"degraded\":{\"since\":1.5,\"reason\":\"disk full\"},"
    "\"pid\":42,\"last_seq\":177142},"
    "{\"id\":\"b1\",\"state\":\"killed\",\"age\":50,\"signal\":9,"
    "\"argv\":[\"sleep\",\"60\"]},"
    "{\"id\":\"c\",\"state\":\"corrupt\",\"reason\":\"no job.json\"}]}\n";

static void
test_jobs(void **state)
{
	struct hostcmd_jobs jobs;
	const struct hostcmd_job *j;
	char err[200];

	(void)state;
	assert_int_equal(hostcmd_jobs_parse(jobs_ok, strlen(jobs_ok), &jobs,
	    err, sizeof err), 0);
	assert_int_equal(jobs.n, 3);
	j = &jobs.v[0];
	assert_string_equal(j->id, "a1");
	assert_string_equal(j->state, "running");
	assert_int_equal(j->argc, 2);
	assert_string_equal(j->argv[1], "stress");
	assert_null(j->argv[2]);
	assert_string_equal(j->cwd, "/w");
	assert_null(j->reason);
	assert_true(j->age == 100.5);
	assert_int_equal(j->exit_code, -1);
	assert_int_equal(j->sig, 0);
	assert_true(j->degraded);
	assert_int_equal(j->last_seq, 177142);
	/* The entry whole, for a screen that shows every member. */
	assert_int_equal(json_integer_value(json_object_get(j->record,
	    "pid")), 42);
	j = &jobs.v[1];
	assert_int_equal(j->sig, 9);
	assert_false(j->degraded);
	assert_null(j->cwd);
	/* A calops from before last_seq: how far is not known. */
	assert_int_equal(j->last_seq, 0);
	j = &jobs.v[2];
	assert_string_equal(j->state, "corrupt");
	assert_string_equal(j->reason, "no job.json");
	assert_int_equal(j->argc, 0);
	assert_true(j->age == 0);
	hostcmd_jobs_release(&jobs);
	assert_int_equal(jobs.n, 0);
	assert_null(jobs.v);

	assert_int_equal(hostcmd_jobs_parse("{\"schema\":\"calops-jobs/v1\","
	    "\"jobs\":[]}", 37, &jobs, err, sizeof err), 0);
	assert_int_equal(jobs.n, 0);
	hostcmd_jobs_release(&jobs);
}

/* What text gives: refused, jobs empty, and err what is expected. */
static void
jobs_bad(const char *text, const char *expect)
{
	struct hostcmd_jobs jobs;
	char err[200];

	assert_int_equal(hostcmd_jobs_parse(text, text != NULL ?
	    strlen(text) : 0, &jobs, err, sizeof err), -1);
	assert_int_equal(jobs.n, 0);
	assert_null(jobs.v);
	if (strcmp(err, expect) != 0 && strncmp(err, expect,
	    strlen(expect)) != 0)
		fail_msg("'%s': '%s', not '%s'", text != NULL ? text :
		    "(nothing)", err, expect);
}

#define JOBS(s)	"{\"schema\":\"calops-jobs/v1\",\"jobs\":[" s "]}"

static void
test_jobs_bad(void **state)
{
	(void)state;
	/* Not JSON: where it stops being JSON. */
	jobs_bad(NULL, "not JSON: line 1, column 0: ");
	jobs_bad("", "not JSON: line 1, column 0: ");
	jobs_bad("{\"schema\": ", "not JSON: line 1, column 11: ");
	jobs_bad("{\"schema\":\"calops-jobs/v1\",\n\"jobs\":[{\"id\":",
	    "not JSON: line 2, column 14: ");
	/* Not the schema. */
	jobs_bad("{\"schema\":\"other/v2\",\"jobs\":[]}", "not calops-jobs/v1");
	jobs_bad("{\"jobs\":[]}", "not calops-jobs/v1");
	jobs_bad("{\"schema\":\"calops-jobs/v1\",\"jobs\":{}}",
	    "not calops-jobs/v1");
	jobs_bad("[]", "not calops-jobs/v1");
	/* A job's member of the wrong type, the job by its index. */
	jobs_bad(JOBS("{\"id\":\"a\",\"state\":\"done\"},7"),
	    "job 1 is not an object");
	jobs_bad(JOBS("{\"state\":\"done\"}"),
	    "job 0: \"id\" is missing, not a string");
	jobs_bad(JOBS("{\"id\":\"a\",\"state\":3}"),
	    "job 0: \"state\" is of another type, not a string");
	jobs_bad(JOBS("{\"id\":\"a\",\"state\":\"done\",\"argv\":\"ls\"}"),
	    "job 0: \"argv\" is not an array");
	jobs_bad(JOBS("{\"id\":\"a\",\"state\":\"done\",\"argv\":[\"ls\",1]}"),
	    "job 0: \"argv\"[1] is not a string");
	jobs_bad(JOBS("{\"id\":\"a\",\"state\":\"done\",\"age\":\"9\"}"),
	    "job 0: \"age\" is not a number");
	jobs_bad(JOBS("{\"id\":\"a\",\"state\":\"done\",\"exit_code\":1.5}"),
	    "job 0: \"exit_code\" is not an integer or null");
	jobs_bad(JOBS("{\"id\":\"a\",\"state\":\"done\","
	    "\"exit_code\":4294967296}"),
	    "job 0: \"exit_code\" is not an integer or null");
	jobs_bad(JOBS("{\"id\":\"a\",\"state\":\"done\",\"signal\":\"9\"}"),
	    "job 0: \"signal\" is not an integer or null");
	jobs_bad(JOBS("{\"id\":\"a\",\"state\":\"running\",\"degraded\":true}"),
	    "job 0: \"degraded\" is not an object");
	jobs_bad(JOBS("{\"id\":\"a\",\"state\":\"done\",\"last_seq\":0}"),
	    "job 0: \"last_seq\" is not an integer from 1");
	jobs_bad(JOBS("{\"id\":\"a\",\"state\":\"done\",\"last_seq\":\"9\"}"),
	    "job 0: \"last_seq\" is not an integer from 1");
	jobs_bad(JOBS("{\"id\":\"a\",\"state\":\"done\",\"last_seq\":1.5}"),
	    "job 0: \"last_seq\" is not an integer from 1");
	jobs_bad(JOBS("{\"id\":\"a\",\"state\":\"corrupt\",\"reason\":[]}"),
	    "job 0: \"reason\" is of another type, not a string");
	jobs_bad(JOBS("{\"id\":\"a\",\"state\":\"done\",\"cwd\":null}"),
	    "job 0: \"cwd\" is of another type, not a string");
}

/* An answer to `jobs --since`: its cursor and whether it is every job;
 * a list without them (--running, an old calops) has neither. */
static void
test_jobs_since(void **state)
{
	struct hostcmd_jobs jobs;
	char err[200];

	(void)state;
	assert_int_equal(hostcmd_jobs_parse(jobs_ok, strlen(jobs_ok), &jobs,
	    err, sizeof err), 0);
	assert_null(jobs.cursor);
	assert_false(jobs.full);
	hostcmd_jobs_release(&jobs);
	{
		static const char t[] = "{\"schema\":\"calops-jobs/v1\","
		    "\"jobs\":[{\"id\":\"a\",\"state\":\"failed\","
		    "\"exit_code\":3}],\"cursor\":\"1796228378.149000000\","
		    "\"full\":true}";

		assert_int_equal(hostcmd_jobs_parse(t, strlen(t), &jobs, err,
		    sizeof err), 0);
		assert_int_equal(jobs.n, 1);
		assert_string_equal(jobs.cursor, "1796228378.149000000");
		assert_true(jobs.full);
		hostcmd_jobs_release(&jobs);
		assert_null(jobs.cursor);
	}
	jobs_bad("{\"schema\":\"calops-jobs/v1\",\"jobs\":[],\"cursor\":7}",
	    "\"cursor\" is not a string of 1 to 64 bytes");
	jobs_bad("{\"schema\":\"calops-jobs/v1\",\"jobs\":[],\"cursor\":\"\"}",
	    "\"cursor\" is not a string of 1 to 64 bytes");
	/* (a NUL in it is not JSON jansson reads) */
	jobs_bad("{\"schema\":\"calops-jobs/v1\",\"jobs\":[],\"cursor\":"
	    "\"a\\u0000b\"}", "not JSON: ");
	jobs_bad("{\"schema\":\"calops-jobs/v1\",\"jobs\":[],\"cursor\":"
	    "\"12345678901234567890123456789012345678901234567890123456789012345"
	    "\"}", "\"cursor\" is not a string of 1 to 64 bytes");
	jobs_bad("{\"schema\":\"calops-jobs/v1\",\"jobs\":[],\"cursor\":"
	    "\"1.000000000\",\"full\":1}", "\"full\" is not true or false");
}

/* What text gives: refused, with err starting with expect. */
static void
version_bad(const char *text, const char *expect)
{
	struct hostcmd_version v;
	char err[200];

	assert_int_equal(hostcmd_version_parse(text, text != NULL ?
	    strlen(text) : 0, &v, err, sizeof err), -1);
	if (strncmp(err, expect, strlen(expect)) != 0)
		fail_msg("'%s': '%s', not '%s'", text != NULL ? text :
		    "(nothing)", err, expect);
}

static void
test_version(void **state)
{
	struct hostcmd_version v;
	char err[200];
	const char *ok = "{\"version\":\"0.1.0\",\"protocol\":1}\n";

	(void)state;
	assert_int_equal(hostcmd_version_parse(ok, strlen(ok), &v, err,
	    sizeof err), 0);
	assert_string_equal(v.version, "0.1.0");
	assert_int_equal(v.protocol, 1);

	version_bad(NULL, "not JSON: line 1, column 0: ");
	version_bad("{\"version\":\"0.1", "not JSON: line 1, column 15: ");
	version_bad("calops 0.1.0 (protocol 1)", "not JSON: line 1, ");
	version_bad("{\"version\":1,\"protocol\":1}",
	    "\"version\" is of another type, not a string");
	version_bad("{\"version\":\"1\",\"protocol\":\"1\"}",
	    "\"protocol\" is of another type, not an integer");
	version_bad("{\"version\":\"1\",\"protocol\":1.0}",
	    "\"protocol\" is of another type, not an integer");
	version_bad("{\"version\":\"1\"}",
	    "\"protocol\" is missing, not an integer");
	version_bad("[1]", "\"version\" is missing, not a string");
}

static void
watch_is(const char *line, enum hostcmd_watch_event want)
{
	assert_int_equal(hostcmd_watch_parse(line, strlen(line)), want);
}

static void
test_watch(void **state)
{
	(void)state;
	watch_is("{\"v\":1,\"seq\":1,\"ts\":1.5e9,\"type\":\"watching\","
	    "\"how\":\"inotify\"}", HOSTCMD_WATCH_WATCHING);
	watch_is("{\"v\":1,\"seq\":2,\"ts\":1.5e9,\"type\":\"changed\","
	    "\"paths\":[\"a\",\"b\"],\"truncated\":false}",
	    HOSTCMD_WATCH_CHANGED);
	/* "changed" as a word in another event, or in a line that is no
	 * event (a login shell's chatter), is no change. */
	watch_is("{\"v\":1,\"seq\":3,\"ts\":1.5e9,\"type\":\"log\","
	    "\"msg\":\"\\\"changed\\\"\"}", HOSTCMD_WATCH_OTHER);
	watch_is("{\"v\":1,\"seq\":3,\"ts\":1.5e9,\"type\":\"log\","
	    "\"\\\"watching\\\"\":1}", HOSTCMD_WATCH_OTHER);
	watch_is("motd: \"changed\"", HOSTCMD_WATCH_OTHER);
	watch_is("{\"type\":\"changed\"}", HOSTCMD_WATCH_OTHER);
	watch_is("", HOSTCMD_WATCH_OTHER);
}

static void
test_release(void **state)
{
	static const char *const bad[][2] = {
		{ "", "not JSON: line 1, column 0: " },
		{ "{\"schema\":\"calops-release-status/v1\"",
		    "not JSON: line 1, column 36: " },
		{ "[\"calops-release-status/v1\"]",
		    "not calops-release-status/v1" },
		{ "{\"schema\":\"calops-release-audit/v1\"}",
		    "not calops-release-status/v1" },
		{ "{\"schema\":1}", "not calops-release-status/v1" },
	};
	const char *ok = "{\"schema\":\"calops-release-status/v1\","
	    "\"current\":2}";
	json_t *doc, *stale;
	char err[200];
	size_t i;

	(void)state;
	assert_int_equal(hostcmd_release_parse(ok, strlen(ok), "status", &doc,
	    err, sizeof err), 0);
	assert_int_equal(json_integer_value(json_object_get(doc, "current")),
	    2);
	json_decref(doc);
	/* Not NULL going in, so that NULL coming out says the parser set it;
	 * the object is the test's, freed once. */
	stale = json_object();
	for (i = 0; i < nitems(bad); i++) {
		doc = stale;
		assert_int_equal(hostcmd_release_parse(bad[i][0],
		    strlen(bad[i][0]), "status", &doc, err, sizeof err), -1);
		assert_null(doc);
		if (strncmp(err, bad[i][1], strlen(bad[i][1])) != 0)
			fail_msg("'%s': '%s', not '%s'", bad[i][0], err,
			    bad[i][1]);
	}
	json_decref(stale);
}

static void
apply_is(const char *line, enum hostcmd_apply_type type,
    struct hostcmd_apply *ev)
{
	assert_int_equal(hostcmd_apply_parse(line, strlen(line), ev), 0);
	assert_int_equal(ev->type, type);
}

static void
test_apply(void **state)
{
	static const char head[] = "0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef";
	struct hostcmd_apply ev;
	char *line;

	(void)state;
	line = xasprintf("{\"type\":\"held\",\"current\":3,"
	    "\"next_seq\":12,\"head_sha256\":\"%s\",\"trusted_keys\":"
	    "[{\"name\":\"ops\"}]}", head);
	apply_is(line, HOSTCMD_APPLY_HELD, &ev);
	free(line);
	assert_int_equal(ev.current, 3);
	assert_int_equal(ev.next_seq, 12);
	assert_string_equal(ev.head, head);
	assert_int_equal(json_array_size(ev.trusted_keys), 1);
	hostcmd_apply_release(&ev);
	assert_null(ev.trusted_keys);
	/* Read leniently, as ever: what is missing or wrong is a default. */
	apply_is("{\"type\":\"held\",\"current\":\"3\",\"head_sha256\":"
	    "\"abc\",\"trusted_keys\":{}}", HOSTCMD_APPLY_HELD, &ev);
	assert_int_equal(ev.current, -1);
	assert_int_equal(ev.next_seq, 0);
	assert_string_equal(ev.head, "");
	assert_null(ev.trusted_keys);
	apply_is("{\"type\":\"progress\",\"done\":5,\"total\":9}",
	    HOSTCMD_APPLY_PROGRESS, &ev);
	assert_int_equal(ev.done, 5);
	assert_int_equal(ev.total, 9);
	apply_is("{\"type\":\"verified\",\"verifies\":true,"
	    "\"bindings_checked\":true,\"verdict\":{\"words\":\"held\"}}",
	    HOSTCMD_APPLY_VERIFIED, &ev);
	assert_true(ev.verifies);
	assert_true(ev.bound);
	assert_string_equal(ev.problem, "");
	assert_string_equal(ev.words, "held");
	apply_is("{\"type\":\"result\",\"message\":\"m\"}",
	    HOSTCMD_APPLY_RESULT, &ev);
	assert_string_equal(ev.result, "error");
	assert_string_equal(ev.message, "m");
	apply_is("{\"type\":\"other\"}", HOSTCMD_APPLY_OTHER, &ev);
	apply_is("{\"type\":7}", HOSTCMD_APPLY_OTHER, &ev);
	assert_int_equal(hostcmd_apply_parse("{\"type\":", 8, &ev), -1);
	assert_int_equal(hostcmd_apply_parse("[1]", 3, &ev), -1);
	assert_int_equal(hostcmd_apply_parse("", 0, &ev), -1);
}

static void
line_of_bad(const char *text)
{
	char err[100];
	long line = 7;

	assert_int_equal(hostcmd_line_of_parse(text, strlen(text), &line, err,
	    sizeof err), -1);
	assert_int_equal(line, 0);
	assert_non_null(strstr(err, "not a line number"));
}

static void
test_line_of(void **state)
{
	char err[100];
	long line;

	(void)state;
	assert_int_equal(hostcmd_line_of_parse("12", 2, &line, err,
	    sizeof err), 0);
	assert_int_equal(line, 12);
	line_of_bad("");
	line_of_bad("0");
	line_of_bad("-3");
	line_of_bad(" 5");
	line_of_bad("+5");
	line_of_bad("12x");
	line_of_bad("99999999999999999999");
	line_of_bad("123456789012345678901234567890");
}

static void
test_run_started(void **state)
{
	(void)state;
	assert_true(hostcmd_run_started("--from", 6, "--from"));
	assert_false(hostcmd_run_started("--from ", 7, "--from"));
	assert_false(hostcmd_run_started("--fro", 5, "--from"));
	assert_false(hostcmd_run_started("", 0, "a"));
	assert_false(hostcmd_run_started("calops: job 'a' already exists",
	    30, "a"));
	/* What run and report --write say on stderr, read here only. */
	assert_true(hostcmd_run_exists("calops: job 'a' already exists", 30));
	assert_false(hostcmd_run_exists("calops: cannot make job 'a': "
	    "Permission denied", 46));
	assert_false(hostcmd_run_exists("already exist", 13));
	assert_true(hostcmd_report_exists("calops: '/w/08-release/decision.md' "
	    "is there already: --force writes over it", 76));
	assert_false(hostcmd_report_exists("calops: no such workspace", 25));
}

static void
test_version_argv(void **state)
{
	struct strv s = { NULL, 0, 0 };

	(void)state;
	hostcmd_version(&s);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.v[0], "version");
	assert_string_equal(s.v[1], "--json");
	assert_null(s.v[2]);
	strv_free(&s);
	assert_null(s.v);
}

/* ---- ls --json ---- */

static const char ls_ok[] =
    "{\"schema\":\"calops-ls/v1\",\"path\":\"06-runtime/faults\","
    "\"type\":\"folder\",\"more\":2,\"entries\":["
    "{\"name\":\"history\",\"type\":\"folder\",\"size\":4096,"
    "\"mtime\":1765040000},"
    "{\"name\":\"kv-full.json\",\"type\":\"file\",\"size\":312,"
    "\"mtime\":1765040102},"
    "{\"name\":\"\\u001b]52;c;eA==\\u0007\\n\",\"type\":\"link\","
    "\"size\":9,\"mtime\":0},"
    "{\"name\":\"\\\\xff\",\"type\":\"other\",\"size\":0,"
    "\"mtime\":1,\"opaque\":true}]}\n";

static void
test_ls(void **state)
{
	struct hostcmd_ls ls;
	char err[200], *shown;

	(void)state;
	assert_int_equal(hostcmd_ls_parse(ls_ok, strlen(ls_ok), &ls, err,
	    sizeof err), 0);
	assert_string_equal(ls.path, "06-runtime/faults");
	assert_int_equal(ls.type, HOSTCMD_LS_FOLDER);
	assert_int_equal(ls.n, 4);
	assert_int_equal(ls.more, 2);
	assert_string_equal(ls.v[0].name, "history");
	assert_int_equal(ls.v[0].type, HOSTCMD_LS_FOLDER);
	assert_int_equal(ls.v[1].size, 312);
	assert_int_equal(ls.v[1].mtime, 1765040102);
	assert_false(ls.v[1].opaque);
	/* A hostile name is handed out as the host wrote it, and the
	 * sanitiser shows its controls, never sends them. */
	assert_int_equal(ls.v[2].type, HOSTCMD_LS_LINK);
	assert_non_null(strchr(ls.v[2].name, '\033'));
	shown = text_sanitize_str(ls.v[2].name);
	assert_null(strchr(shown, '\033'));
	assert_null(strchr(shown, '\n'));
	assert_null(strchr(shown, '\a'));
	free(shown);
	assert_true(ls.v[3].opaque);
	assert_string_equal(ls.v[3].name, "\\xff");
	assert_string_equal(hostcmd_ls_type_name(ls.v[3].type), "other");
	hostcmd_ls_release(&ls);
	assert_null(ls.v);
}

/* out is refused whole, err naming what (want), ls left empty. */
static void
ls_bad(const char *out, const char *want)
{
	struct hostcmd_ls ls;
	char err[200] = "";

	assert_int_equal(hostcmd_ls_parse(out, strlen(out), &ls, err,
	    sizeof err), -1);
	if (strstr(err, want) == NULL)
		fail_msg("'%s': '%s' does not say '%s'", out, err, want);
	assert_null(ls.v);
	assert_null(ls.path);
	assert_int_equal(ls.n, 0);
}

#define LS_HEAD "{\"schema\":\"calops-ls/v1\",\"path\":\"p\",\"type\":" \
    "\"folder\",\"entries\":["

static void
test_ls_bad(void **state)
{
	struct buf b;
	int i;

	(void)state;
	ls_bad("{\"schema\":\"calops-ls/v1\",", "not JSON: line 1");
	ls_bad("{\"schema\":\"calops-jobs/v1\"}", "not calops-ls/v1");
	ls_bad("[]", "not calops-ls/v1");
	ls_bad("{\"schema\":\"calops-ls/v1\",\"type\":\"folder\"}",
	    "\"path\" is missing");
	ls_bad("{\"schema\":\"calops-ls/v1\",\"path\":\"p\",\"type\":"
	    "\"dir\"}", "\"type\" is not");
	ls_bad(LS_HEAD "]," "\"more\":-1}", "\"more\"");
	ls_bad(LS_HEAD "{\"name\":\"..\",\"type\":\"folder\",\"size\":0,"
	    "\"mtime\":0}]}", "entry 0: \"name\" is not one name");
	ls_bad(LS_HEAD "{\"name\":\"a/../../etc\",\"type\":\"folder\","
	    "\"size\":0,\"mtime\":0}]}", "not one name");
	ls_bad(LS_HEAD "{\"name\":\"\",\"type\":\"file\",\"size\":0,"
	    "\"mtime\":0}]}", "not one name");
	ls_bad(LS_HEAD "{\"name\":\".\",\"type\":\"file\",\"size\":0,"
	    "\"mtime\":0}]}", "not one name");
	ls_bad(LS_HEAD "{\"name\":\"a\",\"type\":\"file\",\"size\":0,"
	    "\"mtime\":0},{\"name\":\"b\",\"type\":\"file\","
	    "\"size\":-5,\"mtime\":0}]}", "entry 1: \"size\" is wrong");
	ls_bad(LS_HEAD "{\"name\":\"a\",\"type\":\"file\",\"size\":1}]}",
	    "entry 0: \"mtime\" is missing");
	ls_bad(LS_HEAD "{\"name\":7,\"type\":\"file\",\"size\":1,"
	    "\"mtime\":0}]}", "not a string");
	ls_bad(LS_HEAD "{\"name\":\"a\",\"type\":\"file\",\"size\":1,"
	    "\"mtime\":0,\"opaque\":1}]}", "\"opaque\"");
	ls_bad(LS_HEAD "3]}", "entry 0 is not an object");
	/* A huge folder is refused whole, never taken in part. */
	buf_init(&b, 1u << 30);
	buf_adds(&b, LS_HEAD);
	for (i = 0; i <= HOSTCMD_LS_MAX; i++)
		buf_addf(&b, "%s{\"name\":\"f%d\",\"type\":\"file\","
		    "\"size\":1,\"mtime\":0}", i > 0 ? "," : "", i);
	buf_adds(&b, "]}");
	buf_addc(&b, '\0');
	ls_bad(b.data, "5001 entries: more than the 5000");
	buf_release(&b);
}

static void
test_ls_argv(void **state)
{
	struct strv s = { NULL, 0, 0 };

	(void)state;
	hostcmd_ls(&s, "-w", "--json");
	assert_int_equal(s.n, 5);
	assert_string_equal(s.v[0], "ls");
	assert_string_equal(s.v[1], "--json");
	assert_string_equal(s.v[2], "--");
	assert_string_equal(s.v[3], "-w");
	assert_string_equal(s.v[4], "--json");
	strv_free(&s);
	/* The workspace's root. */
	hostcmd_ls(&s, "/w", "");
	assert_string_equal(s.v[4], ".");
	strv_free(&s);
}


int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jobs),
		cmocka_unit_test(test_jobs_bad),
		cmocka_unit_test(test_jobs_since),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_watch),
		cmocka_unit_test(test_line_of),
		cmocka_unit_test(test_run_started),
		cmocka_unit_test(test_version_argv),
		cmocka_unit_test(test_ls),
		cmocka_unit_test(test_ls_bad),
		cmocka_unit_test(test_ls_argv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
