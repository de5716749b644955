/*
 * test_history.c: the evaluations remembered per workspace (history.c).
 * The file lives under $XDG_STATE_HOME, named by the workspace's real
 * path; an entry equal to the last is not written again, at most `keep`
 * are kept, a corrupt file loses only its bad lines, and the file is
 * replaced whole.  history_last_pass finds the newest green record of a
 * gate, and history_diff tells what changed since, by hash or by size and
 * mtime.  A planted link, as the history folder or as a workspace's file,
 * is never followed.
 */
#include "calops.h"

#include <sys/stat.h>

#include <dirent.h>
#include <setjmp.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "model/history.h"

struct fixture {
	char	*base;		/* a temp folder */
	char	*state;		/* base/state: XDG_STATE_HOME */
	char	*ws;		/* base/ws: a workspace */
	char	*path;		/* its history file */
	char	*home;		/* HOME as it was */
};

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);
	char err[256];

	f->base = xstrdup("/tmp/calops-test-history.XXXXXX");
	assert_non_null(mkdtemp(f->base));
	f->state = xasprintf("%s/state", f->base);
	f->ws = xasprintf("%s/ws", f->base);
	assert_int_equal(mkdir(f->ws, 0755), 0);
	if (getenv("HOME") != NULL)
		f->home = xstrdup(getenv("HOME"));
	setenv("XDG_STATE_HOME", f->state, 1);
	f->path = history_path(f->ws, NULL, err, sizeof err);
	if (f->path == NULL)
		fail_msg("history_path: %s", err);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	fileio_remove_tree(f->base);
	if (f->home != NULL)
		setenv("HOME", f->home, 1);
	unsetenv("XDG_STATE_HOME");
	free(f->base);
	free(f->state);
	free(f->ws);
	free(f->path);
	free(f->home);
	free(f);
	return 0;
}

static void
put(const char *path, const char *text, size_t len)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_int_equal(fwrite(text, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

/* The file's entries, one JSON value per line (a new array). */
static json_t *
entries(const char *path)
{
	json_t *all = json_array(), *o;
	char line[65536];
	FILE *fp = fopen(path, "r");

	assert_non_null(fp);
	while (fgets(line, sizeof line, fp) != NULL) {
		assert_non_null(strchr(line, '\n'));
		o = json_loads(line, 0, NULL);
		assert_non_null(o);
		json_array_append_new(all, o);
	}
	fclose(fp);
	return all;
}

static json_int_t
ts_at(json_t *all, size_t i)
{
	return json_integer_value(json_object_get(json_array_get(all, i),
	    "ts"));
}

/* {"G0": {"status": s0, "inputs": []}, "G1": {"status": s1, …}} */
static json_t *
gates(const char *s0, const char *s1)
{
	return json_pack("{s:{s:s,s:[]},s:{s:s,s:[]}}", "G0", "status", s0,
	    "inputs", "G1", "status", s1, "inputs");
}

static void
append(const struct fixture *f, json_t *g, int64_t ts, int keep)
{
	char err[256];

	if (history_append(f->path, g, ts, keep, err, sizeof err) != 0)
		fail_msg("history_append: %s", err);
	json_decref(g);
}

/* Temp files left next to the history file. */
static size_t
leftovers(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	*slash = '\0';
	assert_non_null(d = opendir(dir));
	while ((e = readdir(d)) != NULL)
		n += strstr(e->d_name, ".tmp") != NULL;
	closedir(d);
	free(dir);
	return n;
}

/* One file per workspace, under $XDG_STATE_HOME, named by its real path. */
static void
test_path(void **state)
{
	struct fixture *f = *state;
	char err[256], *p, *q, *other, *lnk, *want;
	struct stat st;

	want = xasprintf("%s/calops/history/", f->state);
	assert_true(strncmp(f->path, want, strlen(want)) == 0);
	assert_int_equal(strlen(f->path), strlen(want) + 32 + 6);
	assert_string_equal(f->path + strlen(f->path) - 6, ".jsonl");
	assert_int_equal(stat(want, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	free(want);

	/* the same workspace by another name: the same file */
	p = xasprintf("%s/./ws/", f->base);
	q = history_path(p, NULL, err, sizeof err);
	assert_non_null(q);
	assert_string_equal(q, f->path);
	free(p);
	free(q);
	lnk = xasprintf("%s/link", f->base);
	assert_int_equal(symlink(f->ws, lnk), 0);
	q = history_path(lnk, NULL, err, sizeof err);
	assert_string_equal(q, f->path);
	free(q);
	free(lnk);

	/* another workspace: another file */
	other = xasprintf("%s/other", f->base);
	assert_int_equal(mkdir(other, 0755), 0);
	q = history_path(other, NULL, err, sizeof err);
	assert_non_null(q);
	assert_string_not_equal(q, f->path);
	free(q);

	/* a workspace that does not exist */
	p = xasprintf("%s/missing", f->base);
	assert_null(history_path(p, NULL, err, sizeof err));
	assert_non_null(strstr(err, "cannot resolve"));
	assert_non_null(strstr(err, "missing"));
	/* ... unless it is on an SSH host: there by its host and path, one
	 * file per host */
	q = history_path(p, "lab3", err, sizeof err);
	assert_non_null(q);
	assert_string_not_equal(q, f->path);
	lnk = history_path(p, "lab4", err, sizeof err);
	assert_non_null(lnk);
	assert_string_not_equal(q, lnk);
	free(lnk);
	free(q);
	free(p);

	/* a relative XDG_STATE_HOME is ignored for HOME */
	setenv("XDG_STATE_HOME", "relative/state", 1);
	setenv("HOME", f->base, 1);
	q = history_path(other, NULL, err, sizeof err);
	assert_non_null(q);
	want = xasprintf("%s/.local/state/calops/history/", f->base);
	assert_true(strncmp(q, want, strlen(want)) == 0);
	free(want);
	free(q);
	/* neither */
	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
	assert_null(history_path(other, NULL, err, sizeof err));
	assert_non_null(strstr(err, "XDG_STATE_HOME"));
	/* the state folder cannot be made */
	p = xasprintf("%s/file", f->base);
	put(p, "x", 1);
	setenv("XDG_STATE_HOME", p, 1);
	assert_null(history_path(other, NULL, err, sizeof err));
	assert_non_null(strstr(err, "cannot make"));
	free(p);
	free(other);
}

/* Entries equal to the last are skipped; at most `keep` stay. */
static void
test_append(void **state)
{
	struct fixture *f = *state;
	json_t *all, *g;
	struct stat st;

	append(f, gates("pass", "fail"), 100, 5);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	all = entries(f->path);
	assert_int_equal(json_array_size(all), 1);
	assert_int_equal(ts_at(all, 0), 100);
	g = gates("pass", "fail");
	assert_true(json_equal(json_object_get(json_array_get(all, 0),
	    "gates"), g));
	json_decref(g);
	json_decref(all);

	/* the same again: nothing written */
	append(f, gates("pass", "fail"), 101, 5);
	all = entries(f->path);
	assert_int_equal(json_array_size(all), 1);
	assert_int_equal(ts_at(all, 0), 100);
	json_decref(all);

	/* different, then back to the first: both written */
	append(f, gates("pass", "pass"), 102, 5);
	append(f, gates("pass", "fail"), 103, 5);
	all = entries(f->path);
	assert_int_equal(json_array_size(all), 3);
	assert_int_equal(ts_at(all, 2), 103);
	json_decref(all);

	/* keep 5: the oldest go */
	append(f, gates("fail", "fail"), 104, 5);
	append(f, gates("stale", "fail"), 105, 5);
	append(f, gates("blocked", "fail"), 106, 5);
	append(f, gates("pending", "fail"), 107, 5);
	all = entries(f->path);
	assert_int_equal(json_array_size(all), 5);
	assert_int_equal(ts_at(all, 0), 103);
	assert_int_equal(ts_at(all, 4), 107);
	json_decref(all);

	/* keep shrinks to 2 */
	append(f, gates("pass", "stale"), 108, 2);
	all = entries(f->path);
	assert_int_equal(json_array_size(all), 2);
	assert_int_equal(ts_at(all, 0), 107);
	assert_int_equal(ts_at(all, 1), 108);
	json_decref(all);

	/* keep 1 */
	append(f, gates("fail", "stale"), 109, 1);
	all = entries(f->path);
	assert_int_equal(json_array_size(all), 1);
	assert_int_equal(ts_at(all, 0), 109);
	json_decref(all);
	assert_int_equal(leftovers(f->path), 0);
}

/* A corrupt file: its bad lines are skipped and dropped, the good kept. */
static void
test_corrupt(void **state)
{
	struct fixture *f = *state;
	char *big, *text;
	json_t *all, *r;
	int64_t ts = 0;
	size_t biglen = 5u << 20;

	big = xmalloc(biglen + 1);
	memset(big, '{', biglen);
	big[biglen] = '\0';
	text = xasprintf("not json\n"
	    "{\"ts\":1,\"gates\":{\"G0\":{\"status\":\"pass\",\"inputs\":[]}}}\n"
	    "[1,2,3]\n"
	    "{\"ts\":2}\n"
	    "{\"ts\":3,\"gates\":[]}\n"
	    "\n"
	    "{\"ts\":4,\"gates\":{\"G0\":{\"status\":\"fail\"}}\n"
	    "%s\n"
	    "{\"ts\":5,\"gates\":{\"G0\":{\"status\":\"fail\",\"inputs\":[]}}}\n"
	    "\x01\x02\xff\xfe junk\n"
	    "{\"ts\":6,\"gates\":{\"G0\":{\"status\":\"pass\"", big);
	free(big);
	put(f->path, text, strlen(text));
	free(text);

	/* read as is */
	r = history_last_pass(f->path, "G0", &ts);
	assert_non_null(r);
	assert_int_equal(ts, 1);
	json_decref(r);

	/* appended to: the bad lines are gone */
	append(f, gates("pass", "pass"), 7, 10);
	all = entries(f->path);
	assert_int_equal(json_array_size(all), 3);
	assert_int_equal(ts_at(all, 0), 1);
	assert_int_equal(ts_at(all, 1), 5);
	assert_int_equal(ts_at(all, 2), 7);
	json_decref(all);

	/* a file of NULs and nothing else */
	put(f->path, "\0\0\0\0\n\0", 6);
	assert_null(history_last_pass(f->path, "G0", NULL));
	append(f, gates("pass", "pass"), 8, 10);
	all = entries(f->path);
	assert_int_equal(json_array_size(all), 1);
	json_decref(all);
	assert_int_equal(leftovers(f->path), 0);
}

/* The file is replaced by rename, never written in place; when it cannot
 * be, the old one stays and nothing is left behind. */
static void
test_atomic(void **state)
{
	struct fixture *f = *state;
	struct stat before, after;
	char err[256] = "", *dir, *path;
	json_t *all, *g;
	FILE *old;
	char line[256];

	append(f, gates("pass", "fail"), 1, 10);
	assert_int_equal(stat(f->path, &before), 0);
	old = fopen(f->path, "r");	/* a reader with the old file open */
	assert_non_null(old);
	append(f, gates("pass", "pass"), 2, 10);
	assert_int_equal(stat(f->path, &after), 0);
	assert_true(before.st_ino != after.st_ino);
	/* the reader still sees the old file, whole */
	assert_non_null(fgets(line, sizeof line, old));
	assert_non_null(strstr(line, "\"ts\":1"));
	assert_null(fgets(line, sizeof line, old));
	fclose(old);
	assert_int_equal(leftovers(f->path), 0);

	/* cannot write: -1 and a message, the file as it was */
	dir = xasprintf("%s/nowhere/h.jsonl", f->base);
	g = gates("x", "y");
	assert_int_equal(history_append(dir, g, 3, 10, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot write"));
	free(dir);
	/* the history file's name taken by a folder: rename fails */
	path = xasprintf("%s/dir.jsonl", f->base);
	assert_int_equal(mkdir(path, 0700), 0);
	err[0] = '\0';
	assert_int_equal(history_append(path, g, 3, 10, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot write"));
	assert_int_equal(leftovers(path), 0);
	free(path);
	json_decref(g);
	all = entries(f->path);
	assert_int_equal(json_array_size(all), 2);
	json_decref(all);
}

static json_t *
rec(const char *g0, const char *g1, json_t *inputs)
{
	return json_pack("{s:{s:s,s:o},s:{s:s,s:[]}}", "G0", "status", g0,
	    "inputs", inputs != NULL ? inputs : json_array(), "G1", "status",
	    g1, "inputs");
}

/* The newest entry where the gate passed, and its ts. */
static void
test_last_pass(void **state)
{
	struct fixture *f = *state;
	json_t *r;
	int64_t ts = -1;

	assert_null(history_last_pass(f->path, "G0", &ts));	/* no file */
	assert_int_equal(ts, -1);
	append(f, rec("pass", "fail", json_pack("[{s:s}]", "path", "a")), 10,
	    10);
	append(f, rec("fail", "fail", NULL), 20, 10);
	append(f, rec("pass", "fail", json_pack("[{s:s}]", "path", "b")), 30,
	    10);
	append(f, rec("stale", "fail", NULL), 40, 10);
	append(f, rec("fail", "pending", NULL), 50, 10);

	r = history_last_pass(f->path, "G0", &ts);
	assert_non_null(r);
	assert_int_equal(ts, 30);
	assert_string_equal(json_string_value(json_object_get(r, "status")),
	    "pass");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    json_object_get(r, "inputs"), 0), "path")), "b");
	json_decref(r);
	ts = -1;
	assert_null(history_last_pass(f->path, "G1", &ts));
	assert_int_equal(ts, -1);
	assert_null(history_last_pass(f->path, "G7", &ts));
	assert_null(history_last_pass(f->path, "", NULL));
	r = history_last_pass(f->path, "G0", NULL);	/* ts not wanted */
	assert_non_null(r);
	json_decref(r);
}

static json_t *
input(const char *path, bool present, const char *sha, json_int_t size,
    json_int_t mtime)
{
	return json_pack("{s:s,s:b,s:o,s:I,s:I}", "path", path, "present",
	    present, "sha256", sha != NULL ? json_string(sha) : json_null(),
	    "size", size, "mtime_ns", mtime);
}

static const json_t *
change_of(json_t *d, const char *path)
{
	json_t *v;
	size_t i;

	json_array_foreach(d, i, v)
		if (strcmp(json_string_value(json_object_get(v, "path")),
		    path) == 0)
			return v;
	fail_msg("no change for '%s'", path);
	return NULL;
}

static void
assert_change(json_t *d, const char *path, const char *change,
    const char *from, const char *to)
{
	const json_t *v = change_of(d, path);
	json_t *jf = json_object_get(v, "from"), *jt = json_object_get(v, "to");

	assert_string_equal(json_string_value(json_object_get(v, "change")),
	    change);
	if (from == NULL)
		assert_true(json_is_null(jf));
	else
		assert_string_equal(json_string_value(jf), from);
	if (to == NULL)
		assert_true(json_is_null(jt));
	else
		assert_string_equal(json_string_value(jt), to);
}

/* What changed between two input lists: by hash when both are hashed,
 * else by size and mtime; presence counts. */
static void
test_diff(void **state)
{
	json_t *then, *now, *d, *junk = json_string("not a list");

	(void)state;
	then = json_pack("[o,o,o,o,o,o,o,o]",
	    input("same-hash", true, "aaaa", 1, 1),
	    input("new-hash", true, "aaaa", 1, 1),
	    input("same-size", true, NULL, 10, 100),
	    input("grown", true, NULL, 10, 100),
	    input("touched", true, NULL, 10, 100),
	    input("gone", true, "cccc", 5, 5),
	    input("appeared", false, NULL, 0, 0),
	    input("vanished", true, "dddd", 5, 5));
	now = json_pack("[o,o,o,o,o,o,o,o,{s:i}]",
	    input("same-hash", true, "aaaa", 2, 2),
	    input("new-hash", true, "bbbb", 1, 1),
	    input("same-size", true, NULL, 10, 100),
	    input("grown", true, NULL, 11, 100),
	    input("touched", true, NULL, 10, 200),
	    input("added", true, "eeee", 1, 1),
	    input("appeared", true, "ffff", 3, 3),
	    input("vanished", false, NULL, 0, 0),
	    "path", 5);
	d = history_diff(then, now);
	assert_int_equal(json_array_size(d), 7);
	assert_change(d, "new-hash", "changed", "aaaa", "bbbb");
	assert_change(d, "grown", "changed", "10 bytes, mtime 100",
	    "11 bytes, mtime 100");
	assert_change(d, "touched", "changed", "10 bytes, mtime 100",
	    "10 bytes, mtime 200");
	assert_change(d, "added", "added", NULL, "eeee");
	assert_change(d, "appeared", "changed", "absent", "ffff");
	assert_change(d, "vanished", "changed", "dddd", "absent");
	assert_change(d, "gone", "removed", "cccc", NULL);
	json_decref(d);

	/* nothing changed, or nothing to compare */
	d = history_diff(then, then);
	assert_int_equal(json_array_size(d), 0);
	json_decref(d);
	d = history_diff(NULL, NULL);
	assert_int_equal(json_array_size(d), 0);
	json_decref(d);
	d = history_diff(NULL, now);
	assert_int_equal(json_array_size(d), 8);
	assert_change(d, "vanished", "added", NULL, "absent");
	json_decref(d);
	d = history_diff(then, junk);
	assert_int_equal(json_array_size(d), 8);
	assert_change(d, "gone", "removed", "cccc", NULL);
	json_decref(d);
	json_decref(junk);
	json_decref(then);
	json_decref(now);
}

/* A link planted as the folder is refused; as the file, it is neither
 * read nor written through. */
static void
test_planted(void **state)
{
	struct fixture *f = *state;
	const char *planted = "{\"ts\":1,\"gates\":{\"G0\":{\"status\":"
	    "\"pass\",\"inputs\":[]}}}\n";
	char err[512], *dir, *moved, *target;
	struct stat st;

	target = xasprintf("%s/target", f->base);
	put(target, planted, strlen(planted));
	assert_int_equal(symlink(target, f->path), 0);
	assert_null(history_last_pass(f->path, "G0", NULL));
	append(f, gates("pass", "fail"), 100, 5);
	assert_int_equal(lstat(f->path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_size, (off_t)strlen(planted));
	/* The folder a link. */
	dir = xasprintf("%s/calops/history", f->state);
	moved = xasprintf("%s/moved", f->base);
	assert_int_equal(rename(dir, moved), 0);
	assert_int_equal(symlink(moved, dir), 0);
	assert_null(history_path(f->ws, NULL, err, sizeof err));
	assert_non_null(strstr(err, "refusing the history folder"));
	assert_non_null(strstr(err, "is a symbolic link"));
	free(moved);
	free(dir);
	free(target);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_path),
		T(test_append),
		T(test_corrupt),
		T(test_atomic),
		T(test_last_pass),
		T(test_diff),
		T(test_planted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
