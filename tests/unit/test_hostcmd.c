/*
 * test_hostcmd.c: every command line sent to a host puts "--" before its
 * operands (proto/hostcmd.h), so that a valid job id such as "--follow" or
 * "--from" is never read as an option (issue 27, item 7).
 *
 * The builders, word for word; then, with the real calops binary
 * (argv[1]), each line they make for such a job run as a host runs it:
 * the job started, its events printed, listed, killed; and the lab model
 * following a job called "--from" to its end, its mirror the job's
 * events.jsonl byte for byte.  And `ls --json` as the folder screen runs
 * it: hostile names listed as they are (escapes, a newline, bytes that are
 * not UTF-8: opaque), a link not followed, a huge folder cut at
 * HOSTCMD_LS_MAX with the rest counted, and every way out of the workspace
 * (.., an absolute path, a link) refused.
 *
 *	test_hostcmd CALOPS_BINARY
 */
#include "calops.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "jobfixture.h"
#include "lab/labcmd.h"
#include "lab/labmodel.h"
#include "loop/loop.h"
#include "proto/hostcmd.h"
#include "remote/lab.h"

static const char *calops;
static char tmpdir[] = "/tmp/calops-hostcmd.XXXXXX";

/* s's words joined by '|', and s emptied. */
static char *
words(struct strv *s)
{
	char *out = xstrdup(""), *t;
	size_t i;

	for (i = 0; i < s->n; i++) {
		t = xasprintf("%s%s%s", out, i ? "|" : "", s->v[i]);
		free(out);
		out = t;
	}
	strv_free(s);
	return out;
}

static void
want(struct strv *s, const char *expect)
{
	char *got = words(s);

	assert_string_equal(got, expect);
	free(got);
}

static void
test_builders(void **state)
{
	char *job[] = { "sh", "-c", "true", NULL };
	struct strv s = { NULL, 0, 0 };

	(void)state;
	hostcmd_run(&s, &(struct hostcmd_run_opts){ .id = "--follow",
	    .gate = -1 }, job);
	want(&s, "run|--id|--follow|--|sh|-c|true");
	hostcmd_run(&s, &(struct hostcmd_run_opts){ .id = "a", .cwd = "-w s",
	    .gate = 7, .actor = "--x" }, job);
	want(&s, "run|--id|a|--cwd|-w s|--gate|G7|--actor|--x|--|sh|-c|true");
	hostcmd_tail(&s, "--follow", 1, true);
	want(&s, "tail|--from|1|--follow|--|--follow");
	hostcmd_tail(&s, "--from", 42, false);
	want(&s, "tail|--from|42|--|--from");
	hostcmd_tail_range(&s, "--follow", 0, 9);
	want(&s, "tail|--from|1|--until|9|--|--follow");
	hostcmd_tail_find(&s, "-h", "--last", 5, 0, true);
	want(&s, "tail|--find|--last|--from|5|--last|--|-h");
	hostcmd_tail_find(&s, "-h", "x", 1, 7, false);
	want(&s, "tail|--find|x|--from|1|--until|7|--|-h");
	hostcmd_kill(&s, "--jobs");
	want(&s, "kill|--|--jobs");
	hostcmd_jobs(&s, true);
	want(&s, "jobs|--json|--running");
	hostcmd_jobs(&s, false);
	want(&s, "jobs|--json");
	hostcmd_check(&s, "-ws");
	want(&s, "check|--stream|--|-ws");
	hostcmd_watch(&s, "--help");
	want(&s, "watch|--|--help");
	hostcmd_cat(&s, "-w", "-f", 3, 10);
	want(&s, "cat|--from|3|--lines|10|--|-w|-f");
	hostcmd_cat_line_of(&s, "/w", "-f.json", "/a/0");
	want(&s, "cat|--line-of|/a/0|--|/w|-f.json");
	hostcmd_release(&s, "status", "--json");
	want(&s, "release|status|--json|--|--json");
	hostcmd_release_apply(&s, "-w", 3, "--me");
	want(&s, "release|apply|--hold|3|--json|--actor|--me|--|-w");
	hostcmd_release_apply(&s, "/w", 1, NULL);
	want(&s, "release|apply|--hold|1|--json|--|/w");
	/* A lab job's own commands, the caller's words to follow. */
	hostcmd_repro_build(&s, "/w s", true);
	want(&s, "repro-build|/w s|--again|--");
	hostcmd_repro_build(&s, "/w", false);
	want(&s, "repro-build|/w|--");
	hostcmd_chip_step(&s, 12, 3, "-w");
	want(&s, "release|chip-step|--generation|12|--chip|3|--|-w");
}

/* calops with s's words (s emptied); its exit status, its standard output
 * in *out (to free). */
static int
host(struct strv *s, char **out)
{
	char path[] = "/tmp/calops-hostcmd-out.XXXXXX";
	char **argv = xcalloc(s->n + 2, sizeof *argv);
	size_t i, len;
	pid_t pid;
	int st, fd;

	assert_true((fd = mkstemp(path)) != -1);
	argv[0] = (char *)calops;
	for (i = 0; i < s->n; i++)
		argv[i + 1] = s->v[i];
	if ((pid = fork()) == 0) {
		dup2(fd, 1);
		execv(calops, argv);
		_exit(127);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	close(fd);
	free(argv);
	strv_free(s);
	*out = jobfix_slurp(path, &len);
	unlink(path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Wait until job id's events hold text (or 10 s). */
static void
wait_events(const char *id, const char *text)
{
	char *path = xasprintf("%s/jobs/%s/events.jsonl", tmpdir, id), *b;
	size_t len;
	int i;

	for (i = 0; i < 1000; i++) {
		if (access(path, F_OK) == 0) {
			b = jobfix_slurp(path, &len);
			if (strstr(b, text) != NULL) {
				free(b);
				break;
			}
			free(b);
		}
		usleep(10000);
	}
	free(path);
	assert_true(i < 1000);
}

/* A job called id, run, tailed, listed and killed by the lines the
 * console sends. */
static void
drive(const char *id)
{
	char *job[] = { "sh", "-c", "echo started; exec sleep 60", NULL };
	struct strv s = { NULL, 0, 0 };
	char *out, *hello, why[80];
	long seq;

	hostcmd_run(&s, &(struct hostcmd_run_opts){ .id = id, .gate = -1 },
	    job);
	assert_int_equal(host(&s, &out), 0);
	hello = xasprintf("%s\n", id);
	assert_string_equal(out, hello);
	free(hello);
	free(out);
	wait_events(id, "\"msg\":\"started\"");
	hostcmd_tail(&s, id, 1, false);
	assert_int_equal(host(&s, &out), 0);
	hello = xasprintf("\"job\":\"%s\"", id);
	assert_non_null(strstr(out, hello));
	assert_non_null(strstr(out, "\"msg\":\"started\""));
	free(hello);
	free(out);
	hostcmd_jobs(&s, true);
	assert_int_equal(host(&s, &out), 0);
	hello = xasprintf("\"id\": \"%s\"", id);
	assert_non_null(strstr(out, hello));
	free(hello);
	free(out);
	hostcmd_kill(&s, id);
	assert_int_equal(host(&s, &out), 0);
	hello = xasprintf("%s killed", id);
	if (strstr(out, hello) == NULL)
		fail_msg("kill said: %s", out);
	free(hello);
	free(out);
	/* Its end is printed: --follow ends there. */
	hostcmd_tail(&s, id, 2, true);
	assert_int_equal(host(&s, &out), 0);
	assert_non_null(strstr(out, "\"type\":\"end\""));
	free(out);
	/* A part of the run: the first event only. */
	hostcmd_tail_range(&s, id, 1, 1);
	assert_int_equal(host(&s, &out), 0);
	assert_non_null(strstr(out, "\"type\":\"hello\""));
	assert_ptr_equal(strchr(out, '\n'), out + strlen(out) - 1);
	free(out);
	/* What the log shows of the hello ("job started by calops …") has
	 * it too: the first event. */
	hostcmd_tail_find(&s, id, "STARTED", 1, 0, false);
	assert_int_equal(host(&s, &out), 0);
	assert_string_equal(out, "1\n");
	free(out);
	/* Where a message is: the seq, which the typed parser takes. */
	hostcmd_tail_find(&s, id, "STARTED", 2, 0, false);
	assert_int_equal(host(&s, &out), 0);
	assert_true(strlen(out) > 1 && out[strlen(out) - 1] == '\n');
	assert_int_equal(hostcmd_line_of_parse(out, strlen(out) - 1, &seq,
	    why, sizeof why), 0);
	assert_true(seq > 1);
	free(out);
	/* Nothing between has it: nothing printed. */
	hostcmd_tail_find(&s, id, "started", 2, seq - 1, true);
	assert_int_equal(host(&s, &out), 0);
	assert_string_equal(out, "");
	free(out);
}

static void
test_dashed_ids(void **state)
{
	(void)state;
	drive("--follow");
	drive("--from");
	drive("-h");
}

/* The lab model follows a job called "--from" (its record left by the
 * console that started it) to its end, and mirrors it whole. */
static void
test_model_follows(void **state)
{
	const char *text = "hosts:\n  - {name: local, transport: local}\n";
	const char *meta = "{\"v\":1,\"id\":\"--from\",\"host\":\"local\","
	    "\"kind\":\"golden\",\"gate\":7,\"chip\":-1,\"chips\":[0],"
	    "\"target_s\":0,\"command\":\"sh\",\"label\":\"dashed\","
	    "\"started\":1}";
	const struct labmodel_cb cb = { 0 };
	char err[512], *path, *a, *b;
	struct labmodel *lm;
	struct loop *l;
	struct lab lab;
	struct ljob *j;
	size_t alen, blen;

	(void)state;
	path = xasprintf("%s/calops/streams/local", tmpdir);
	assert_int_equal(fileio_make_dirs(path, 0700, err, sizeof err), 0);
	free(path);
	path = xasprintf("%s/calops/streams/local/--from.json", tmpdir);
	assert_int_equal(fileio_replace(path, meta, strlen(meta), 0600, false,
	    err, sizeof err), 0);
	free(path);
	assert_int_equal(lab_parse(&lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);
	l = loop_new();
	loop_watch_signal(l, SIGCHLD, jobfix_reap, NULL);
	lm = labmodel_new(l, &lab, calops, &cb, err, sizeof err);
	assert_non_null(lm);
	loop_add_timer(l, 50, jobfix_until_ended, lm);
	loop_add_timer(l, 30000, jobfix_stop, NULL);
	loop_run(l);
	j = labmodel_job(lm, 0);
	assert_non_null(j);
	assert_string_equal(j->id, "--from");
	if (j->state != LJ_KILLED)
		fail_msg("job --from is %s: %s",
		    labmodel_job_state_name(j->state), j->err);
	assert_int_equal(j->bad_lines, 0);
	labmodel_free(lm);
	loop_free(l);
	lab_release(&lab);
	path = xasprintf("%s/calops/streams/local/--from.jsonl", tmpdir);
	a = jobfix_slurp(path, &alen);
	free(path);
	path = xasprintf("%s/jobs/--from/events.jsonl", tmpdir);
	b = jobfix_slurp(path, &blen);
	free(path);
	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, blen);
	free(a);
	free(b);
}

/* An empty file at dir/name. */
static void
touch(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	close(fd);
	free(p);
}

/* `ls --json -- ws path` run as a host runs it: its exit status, and the
 * document parsed into ls when 0. */
static int
ls_host(const char *ws, const char *path, struct hostcmd_ls *ls)
{
	struct strv s = { NULL, 0, 0 };
	char err[256], *out;
	int rc;

	hostcmd_ls(&s, ws, path);
	rc = host(&s, &out);
	if (rc == 0 && hostcmd_ls_parse(out, strlen(out), ls, err,
	    sizeof err) != 0)
		fail_msg("ls %s: %s", path, err);
	free(out);
	return rc;
}

static void
test_ls(void **state)
{
	char *ws = xasprintf("%s/lsws", tmpdir), *d, *name;
	struct hostcmd_ls ls;
	int i;

	(void)state;
	d = xasprintf("%s/06-runtime/faults", ws);
	assert_int_equal(mkdir(ws, 0755), 0);
	name = xasprintf("%s/06-runtime", ws);
	assert_int_equal(mkdir(name, 0755), 0);
	free(name);
	assert_int_equal(mkdir(d, 0755), 0);
	name = xasprintf("%s/history", d);
	assert_int_equal(mkdir(name, 0755), 0);
	free(name);
	touch(d, "kv-full.json");
	touch(d, "\033]52;c;eA==\007");
	touch(d, "new\nline");
	touch(d, "bad\xff\xfe");
	name = xasprintf("%s/out", d);
	assert_int_equal(symlink("/etc", name), 0);
	free(name);
	assert_int_equal(ls_host(ws, "06-runtime/faults", &ls), 0);
	assert_int_equal(ls.type, HOSTCMD_LS_FOLDER);
	assert_int_equal(ls.n, 6);
	assert_int_equal(ls.more, 0);
	/* Sorted by name, bytes: the escape first, "out" last but one. */
	assert_string_equal(ls.v[0].name, "\033]52;c;eA==\007");
	assert_string_equal(ls.v[1].name, "bad\\xff\\xfe");
	assert_true(ls.v[1].opaque);
	assert_false(ls.v[0].opaque);
	assert_string_equal(ls.v[2].name, "history");
	assert_int_equal(ls.v[2].type, HOSTCMD_LS_FOLDER);
	assert_string_equal(ls.v[3].name, "kv-full.json");
	assert_int_equal(ls.v[3].type, HOSTCMD_LS_FILE);
	assert_string_equal(ls.v[4].name, "new\nline");
	assert_string_equal(ls.v[5].name, "out");
	assert_int_equal(ls.v[5].type, HOSTCMD_LS_LINK);
	hostcmd_ls_release(&ls);
	/* A file says so, with no entries; the root is "." */
	assert_int_equal(ls_host(ws, "06-runtime/faults/kv-full.json", &ls),
	    0);
	assert_int_equal(ls.type, HOSTCMD_LS_FILE);
	assert_int_equal(ls.n, 0);
	hostcmd_ls_release(&ls);
	assert_int_equal(ls_host(ws, "", &ls), 0);
	assert_int_equal(ls.n, 1);
	assert_string_equal(ls.v[0].name, "06-runtime");
	hostcmd_ls_release(&ls);
	/* Every way out refused. */
	assert_int_equal(ls_host(ws, "..", &ls), 1);
	assert_int_equal(ls_host(ws, "06-runtime/../..", &ls), 1);
	assert_int_equal(ls_host(ws, "06-runtime/faults/out", &ls), 1);
	assert_int_equal(ls_host(ws, "/etc", &ls), 1);
	assert_int_equal(ls_host(ws, "nothing-here", &ls), 1);
	/* A huge folder: the first HOSTCMD_LS_MAX, the rest counted. */
	for (i = 0; i < HOSTCMD_LS_MAX + 3; i++) {
		name = xasprintf("f%05d", i);
		touch(d, name);
		free(name);
	}
	assert_int_equal(ls_host(ws, "06-runtime/faults", &ls), 0);
	assert_int_equal(ls.n, HOSTCMD_LS_MAX);
	assert_int_equal(ls.more, 9);
	hostcmd_ls_release(&ls);
	free(d);
	free(ws);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builders),
		cmocka_unit_test(test_dashed_ids),
		cmocka_unit_test(test_model_follows),
		cmocka_unit_test(test_ls),
	};

	calops = jobfix_main_args(argc, argv, tmpdir);
	return cmocka_run_group_tests(tests, jobfix_group_setup,
	    jobfix_group_teardown);
}
