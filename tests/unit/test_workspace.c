/*
 * test_workspace.c: path safety (workspace.c).  Paths named in artifacts
 * stay inside the workspace, symbolic links are followed only as far as
 * the workspace goes, reading never blocks on what is not a file, and a
 * loop (or a chain of links too deep) is called a loop, never a way out.
 * ctest runs it twice: with openat2(2), and with CALOPS_TEST_NO_OPENAT2
 * set, the way for a kernel that has none.
 *
 * The tests run as root, so nothing here relies on permissions.
 */
#include "calops.h"

#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ws/workspace.h"

/* base/ holds ws/ (the workspace) and out/ (a sibling outside it). */
struct fixture {
	char		*base;
	char		*ws;
	char		*out;
	struct workspace w;
};

static void
put(const char *dir, const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", dir, rel);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	free(path);
}

static void
link_at(const char *dir, const char *rel, const char *target)
{
	char *path = xasprintf("%s/%s", dir, rel);

	assert_int_equal(symlink(target, path), 0);
	free(path);
}

static void
dir_at(const char *dir, const char *rel)
{
	char *path = xasprintf("%s/%s", dir, rel);

	assert_int_equal(mkdir(path, 0755), 0);
	free(path);
}

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);
	char err[256], *t, *u;
	int i;

	f->base = xstrdup("/tmp/calops-test-ws.XXXXXX");
	assert_non_null(mkdtemp(f->base));
	f->ws = xasprintf("%s/ws", f->base);
	f->out = xasprintf("%s/out", f->base);
	assert_int_equal(mkdir(f->ws, 0755), 0);
	assert_int_equal(mkdir(f->out, 0755), 0);
	put(f->out, "secret", "outside\n");

	put(f->ws, "a.txt", "0123456789");
	put(f->ws, "empty", "");
	dir_at(f->ws, "d");
	put(f->ws, "d/b.txt", "bee\n");
	link_at(f->ws, "inlink", "d/b.txt");
	link_at(f->ws, "d/up", "../a.txt");
	link_at(f->ws, "dlink", "d");
	link_at(f->ws, "passwd", "/etc/passwd");
	link_at(f->ws, "climb", "../../../../../../../../etc/passwd");
	link_at(f->ws, "rel_out", "../out/secret");
	link_at(f->ws, "d/rel_out", "../../out/secret");
	link_at(f->ws, "dirlink", f->out);
	link_at(f->ws, "dangling", "nothere.txt");
	link_at(f->ws, "d/dangling", "../nothere.txt");
	link_at(f->ws, "dangling_out", "/nonexistent/calops/x");
	link_at(f->ws, "dangling_rel_out", "../out/missing");
	link_at(f->ws, "chain", "dangling_out");
	link_at(f->ws, "chain_in", "dangling");
	link_at(f->ws, "loop1", "loop2");
	link_at(f->ws, "loop2", "loop1");
	link_at(f->ws, "self", "self");
	/* A chain deeper than the system follows: deep1 -> deep2 ... */
	for (i = 1; i <= 45; i++) {
		t = xasprintf("deep%d", i);
		u = xasprintf("deep%d", i + 1);
		link_at(f->ws, t, u);
		free(t);
		free(u);
	}
	put(f->ws, "deep46", "end\n");
	link_at(f->ws, "devnull", "/dev/null");
	t = xasprintf("%s/a.txt", f->ws);
	link_at(f->ws, "abs_in", t);
	free(t);
	t = xasprintf("%s/fifo", f->ws);
	assert_int_equal(mkfifo(t, 0644), 0);
	free(t);
	link_at(f->ws, "fifolink", "fifo");

	if (workspace_open(&f->w, f->ws, err, sizeof err) != 0)
		fail_msg("%s", err);
	*state = f;
	return 0;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* rm -rf, not following links. */
static void
rmtree(const char *path)
{
	assert_int_equal(nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	workspace_close(&f->w);
	rmtree(f->base);
	free(f->base);
	free(f->ws);
	free(f->out);
	free(f);
	return 0;
}

static void
test_open(void **state)
{
	struct fixture *f = *state;
	struct workspace w;
	char err[256], *path, *real;

	/* a missing path, a file, a path through a file */
	assert_int_equal(
	    workspace_open(&w, "/nonexistent/calops/ws", err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot open workspace"));
	assert_null(w.root);
	path = xasprintf("%s/a.txt", f->ws);
	assert_int_equal(workspace_open(&w, path, err, sizeof err), -1);
	assert_non_null(strstr(err, "not a directory"));
	free(path);
	path = xasprintf("%s/a.txt/x", f->ws);
	assert_int_equal(workspace_open(&w, path, err, sizeof err), -1);
	free(path);
	path = xasprintf("%s/loop1", f->ws);
	assert_int_equal(workspace_open(&w, path, err, sizeof err), -1);
	assert_non_null(strstr(err, "a symlink loop"));
	free(path);
	assert_int_equal(workspace_open(&w, "", err, sizeof err), -1);

	/* the root is the real path, whatever way it was named */
	real = realpath(f->ws, NULL);
	assert_string_equal(f->w.root, real);
	assert_string_equal(f->w.given, f->ws);
	path = xasprintf("%s/./ws/d/..", f->base);
	assert_int_equal(workspace_open(&w, path, err, sizeof err), 0);
	assert_string_equal(w.root, real);
	workspace_close(&w);
	assert_null(w.root);
	free(path);
	path = xasprintf("%s/wslink", f->base);
	assert_int_equal(symlink("ws", path), 0);
	assert_int_equal(workspace_open(&w, path, err, sizeof err), 0);
	assert_string_equal(w.root, real);
	workspace_close(&w);
	free(path);
	free(real);

	path = workspace_abs(&f->w, "d/b.txt");
	assert_int_equal(strncmp(path, f->w.root, strlen(f->w.root)), 0);
	assert_string_equal(path + strlen(f->w.root), "/d/b.txt");
	free(path);
	path = workspace_abs(&f->w, "");
	assert_string_equal(path, f->w.root);
	free(path);
	path = workspace_abs(&f->w, ".");
	assert_string_equal(path, f->w.root);
	free(path);
}

static void
test_join(void **state)
{
	static const struct {
		const char	*from, *ref;
		int		 rc;
		const char	*rel;		/* or a part of the message */
	} cases[] = {
		{ "02-onnx/onnx-report.json", "model.onnx", 0,
		    "02-onnx/model.onnx" },
		{ "04-compiler/compile-config.yaml", "../02-onnx/model.onnx", 0,
		    "02-onnx/model.onnx" },
		{ "x.json", "./x", 0, "x" },
		{ "x.json", "a//b/./c/", 0, "a/b/c" },
		{ "a/b/c.json", "../../x", 0, "x" },
		{ "d/x.json", "a/../../b", 0, "b" },
		{ "d/x.json", "..", 0, "" },
		{ "x.json", ".", 0, "" },
		{ "x.json", "file:///etc/passwd", 0, "file:/etc/passwd" },
		{ "x.json", "/etc/passwd", -1, "absolute" },
		{ "d/x.json", "//x", -1, "absolute" },
		{ "x.json", "..", -1, "climbs out" },
		{ "x.json", "../x", -1, "climbs out" },
		{ "x.json", "a/../../b", -1, "climbs out" },
		{ "a/b/c.json", "../../../x", -1, "climbs out" },
		{ "a/b/c.json", "x/../../../../a/b", -1, "climbs out" },
		{ "x.json", "", -1, "empty" },
		{ "x.json", "sha256:0123abcd", 1, NULL },
		{ "x.json", "oci://registry.example/calcc@sha256:00ff", 1, NULL },
		{ "x.json", "s3://bucket/key", 1, NULL },
		{ "x.json", "https://example.net/x", 1, NULL },
		{ "d/x.json", "https://example.net/../../x", 1, NULL },
	};
	char err[256], *rel;
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < nitems(cases); i++) {
		err[0] = '\0';
		rel = (char *)"unset";
		rc = workspace_join(NULL,
		    cases[i].from, cases[i].ref, &rel, err, sizeof err);
		if (rc != cases[i].rc)
			fail_msg("'%s' from '%s': rc %d, wanted %d (%s)",
			    cases[i].ref, cases[i].from, rc, cases[i].rc, err);
		if (rc == 0) {
			if (strcmp(rel, cases[i].rel) != 0)
				fail_msg("'%s' from '%s': '%s', wanted '%s'",
				    cases[i].ref, cases[i].from, rel,
				    cases[i].rel);
			free(rel);
		} else {
			assert_null(rel);
			if (cases[i].rel != NULL &&
			    strstr(err, cases[i].rel) == NULL)
				fail_msg("'%s': message '%s'", cases[i].ref, err);
		}
	}
	/* No message buffer is fine. */
	assert_int_equal(workspace_join(NULL, "x", "/a", &rel, NULL, 0), -1);
	assert_true(workspace_is_uri("sha256:x"));
	assert_false(workspace_is_uri("sha256"));
	assert_false(workspace_is_uri("SHA256:x"));
	assert_false(workspace_is_uri("oci:/x"));
	assert_false(workspace_is_uri(""));
}

/* On a real workspace a ".." after a link goes up from the link's target,
 * as the file system does (workspace.md §1), never by name. */
static void
test_join_links(void **state)
{
	static const struct {
		const char	*from, *ref;
		int		 rc;
		const char	*rel;	/* or a word of the message */
	} cases[] = {
		{ "x.json", "d/../a.txt", 0, "a.txt" },
		{ "x.json", "dlink/../a.txt", 0, "a.txt" },
		{ "d/x.json", "../dlink/b.txt", 0, "dlink/b.txt" },
		{ "x.json", "dlink/nothere/../b.txt", 0,
		    "dlink/nothere/../b.txt" },	/* ENOENT, as open(2) */
		/* Past a missing folder, by names: mkdir -p would make it,
		 * and the rest would then climb out. */
		{ "d/x.json", "nothere/../../../victim", -1, "climbs out" },
		{ "x.json", "nothere/a/../../x/../../v", -1, "climbs out" },
		{ "d/x.json", "nothere/../../a.txt", 0, "d/nothere/../../a.txt" },
		/* By name "a.txt"; through the link it is ../out/a.txt. */
		{ "x.json", "dirlink/../a.txt", -1, "through the symbolic link" },
		{ "x.json", "dirlink/../out/secret", -1, "dirlink" },
		{ "x.json", "dangling/../a.txt", -1, "dangling" },
		{ "x.json", "../a.txt", -1, "climbs out" },
		/* A loop is neither dangling nor a way out. */
		{ "x.json", "loop1/../a.txt", -1,
		    "'loop1' is a symlink loop" },
		{ "d/x.json", "../deep1/../a.txt", -1,
		    "'deep1' is a symlink loop" },
	};
	struct fixture *f = *state;
	char err[256], *rel;
	size_t i;
	int rc;

	for (i = 0; i < nitems(cases); i++) {
		err[0] = '\0';
		rc = workspace_join(&f->w, cases[i].from, cases[i].ref, &rel,
		    err, sizeof err);
		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, wanted %d (%s)", cases[i].ref, rc,
			    cases[i].rc, err);
		if (rc == 0 && strcmp(rel, cases[i].rel) != 0)
			fail_msg("'%s': '%s', wanted '%s'", cases[i].ref, rel,
			    cases[i].rel);
		if (rc != 0 && strstr(err, cases[i].rel) == NULL)
			fail_msg("'%s': message '%s'", cases[i].ref, err);
		if (rc == 0)
			free(rel);
	}
}

static void
test_locate(void **state)
{
	static const struct {
		const char	*rel;
		enum ws_status	 s;
		const char	*what;
	} cases[] = {
		{ "a.txt", WS_OK, NULL },
		{ "", WS_OK, NULL },
		{ "d", WS_OK, NULL },
		{ "inlink", WS_OK, NULL },
		{ "d/up", WS_OK, NULL },
		{ "dlink/b.txt", WS_OK, NULL },
		{ "dlink/up", WS_OK, NULL },
		{ "abs_in", WS_OK, NULL },
		{ "d/../a.txt", WS_OK, NULL },
		{ "passwd", WS_OUTSIDE, "outside" },
		{ "climb", WS_OUTSIDE, "outside" },
		{ "rel_out", WS_OUTSIDE, "outside" },
		{ "d/rel_out", WS_OUTSIDE, "outside" },
		{ "dirlink", WS_OUTSIDE, "outside" },
		{ "dirlink/secret", WS_OUTSIDE, "outside" },
		{ "devnull", WS_OUTSIDE, "outside" },
		{ "../out/secret", WS_OUTSIDE, "outside" },
		{ "d/../../out/secret", WS_OUTSIDE, "outside" },
		{ "dangling", WS_ABSENT, "dangling" },
		{ "d/dangling", WS_ABSENT, "dangling" },
		{ "chain_in", WS_ABSENT, "dangling" },
		{ "dangling_out", WS_OUTSIDE, "outside" },
		{ "dangling_rel_out", WS_OUTSIDE, "outside" },
		{ "chain", WS_OUTSIDE, "outside" },
		{ "dirlink/missing", WS_OUTSIDE, "outside" },
		{ "missing.txt", WS_ABSENT, "does not exist" },
		{ "d/missing/deeper", WS_ABSENT, "does not exist" },
		{ "a.txt/x", WS_ABSENT, NULL },
		{ "../missing", WS_OUTSIDE, NULL },
		{ "loop1", WS_LOOP, "'loop1' is a symlink loop" },
		{ "self", WS_LOOP, "'self' is a symlink loop" },
		{ "loop2/x", WS_LOOP, "'loop2/x' is a symlink loop" },
		{ "deep1", WS_LOOP, "'deep1' is a symlink loop (or a chain" },
		{ "deep10", WS_OK, NULL },
	};
	struct fixture *f = *state;
	struct stat st;
	char err[512];
	enum ws_status s;
	size_t i;

	for (i = 0; i < nitems(cases); i++) {
		err[0] = '\0';
		s = workspace_locate(&f->w, cases[i].rel, &st, err, sizeof err);
		if (s != cases[i].s)
			fail_msg("'%s': status %d, wanted %d (%s)", cases[i].rel,
			    s, cases[i].s, err);
		if (s != WS_OK && err[0] == '\0')
			fail_msg("'%s': no message", cases[i].rel);
		if (cases[i].what != NULL && strstr(err, cases[i].what) == NULL)
			fail_msg("'%s': message '%s' lacks '%s'", cases[i].rel, err,
			    cases[i].what);
	}
	assert_int_equal(
	    workspace_locate(&f->w, "inlink", &st, err, sizeof err), WS_OK);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 4);
	assert_int_equal(workspace_locate(&f->w, "dlink", &st, err, sizeof err),
	    WS_OK);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(
	    workspace_locate(&f->w, "fifolink", &st, err, sizeof err), WS_OK);
	assert_true(S_ISFIFO(st.st_mode));
}

static void
test_read(void **state)
{
	static const struct {
		const char	*rel;
		size_t		 max;
		enum ws_status	 s;
	} cases[] = {
		{ "a.txt", 9, WS_TOO_BIG },
		{ "a.txt", 0, WS_TOO_BIG },
		{ "d", 100, WS_NOT_FILE },
		{ "dlink", 100, WS_NOT_FILE },
		{ "fifo", 100, WS_NOT_FILE },
		{ "fifolink", 100, WS_NOT_FILE },
		{ "passwd", 1 << 20, WS_OUTSIDE },
		{ "climb", 1 << 20, WS_OUTSIDE },
		{ "devnull", 100, WS_OUTSIDE },
		{ "rel_out", 100, WS_OUTSIDE },
		{ "missing.txt", 100, WS_ABSENT },
		{ "dangling", 100, WS_ABSENT },
		{ "self", 100, WS_LOOP },
	};
	struct fixture *f = *state;
	char err[512], *data;
	enum ws_status s;
	size_t size, i;

	/* A FIFO must be refused, never opened and waited on. */
	alarm(20);
	for (i = 0; i < nitems(cases); i++) {
		err[0] = '\0';
		data = (char *)"unset";
		size = 99;
		s = workspace_read(&f->w, cases[i].rel, cases[i].max, &data,
		    &size, err, sizeof err);
		if (s != cases[i].s)
			fail_msg("'%s': status %d, wanted %d (%s)", cases[i].rel,
			    s, cases[i].s, err);
		assert_null(data);
		assert_int_equal(size, 0);
		assert_true(err[0] != '\0');
	}
	alarm(0);

	assert_int_equal(workspace_read(&f->w, "a.txt", 10, &data, &size, err,
	    sizeof err), WS_OK);
	assert_int_equal(size, 10);
	assert_string_equal(data, "0123456789");
	free(data);
	assert_int_equal(workspace_read(&f->w, "d/up", 100, &data, &size, err,
	    sizeof err), WS_OK);
	assert_string_equal(data, "0123456789");
	free(data);
	assert_int_equal(workspace_read(&f->w, "empty", 100, &data, &size, err,
	    sizeof err), WS_OK);
	assert_int_equal(size, 0);
	assert_string_equal(data, "");
	free(data);
	assert_int_equal(workspace_read(&f->w, "empty", 0, &data, &size, err,
	    sizeof err), WS_OK);
	free(data);
}

/* What workspace_openat() opens (or why not) and what the file holds. */
static void
expect_open(struct fixture *f, const char *rel, bool nolinks, int err,
    const char *text)
{
	char buf[64];
	ssize_t n;
	int fd;

	errno = 0;
	fd = nolinks ? workspace_openat_nolinks(f->w.rootfd, rel, O_RDONLY) :
	    workspace_openat(&f->w, rel, O_RDONLY);
	if (err != 0) {
		if (fd != -1 || errno != err)
			fail_msg("'%s': fd %d errno %d, wanted -1 and %d", rel,
			    fd, errno, err);
		return;
	}
	if (fd == -1)
		fail_msg("'%s': %s", rel, strerror(errno));
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, text);
}

/* Opened beneath the root on the open itself: links that stay inside are
 * followed (an absolute one too), none that leaves; a walk that follows
 * no link refuses every one; workspace_open_fd() judges the type before
 * it opens to read. */
static void
test_open_fd(void **state)
{
	struct fixture *f = *state;
	struct stat st;
	char err[512];
	int fd;

	expect_open(f, "a.txt", false, 0, "0123456789");
	expect_open(f, "/a.txt", false, 0, "0123456789");
	expect_open(f, "inlink", false, 0, "bee\n");
	expect_open(f, "abs_in", false, 0, "0123456789");
	expect_open(f, "d/up", false, 0, "0123456789");
	expect_open(f, "dlink/up", false, 0, "0123456789");
	expect_open(f, "passwd", false, EXDEV, NULL);
	expect_open(f, "climb", false, EXDEV, NULL);
	expect_open(f, "rel_out", false, EXDEV, NULL);
	expect_open(f, "dirlink/secret", false, EXDEV, NULL);
	expect_open(f, "../out/secret", false, EXDEV, NULL);
	expect_open(f, "self", false, ELOOP, NULL);
	expect_open(f, "missing.txt", false, ENOENT, NULL);

	expect_open(f, "d/b.txt", true, 0, "bee\n");
	expect_open(f, "inlink", true, ELOOP, NULL);
	expect_open(f, "abs_in", true, ELOOP, NULL);
	expect_open(f, "passwd", true, ELOOP, NULL);
	expect_open(f, "dirlink/secret", true, ELOOP, NULL);
	expect_open(f, "../out/secret", true, EXDEV, NULL);
	fd = workspace_openat_nolinks(f->w.rootfd, "dlink", O_RDONLY |
	    O_DIRECTORY);
	assert_int_equal(fd, -1);
	assert_true(errno == ELOOP || errno == ENOTDIR);

	assert_int_equal(workspace_open_fd(&f->w, "dlink", S_IFDIR, &fd, &st,
	    err, sizeof err), WS_OK);
	assert_true(S_ISDIR(st.st_mode));
	expect_open(f, "dlink/b.txt", false, 0, "bee\n");
	close(fd);
	assert_int_equal(workspace_open_fd(&f->w, "a.txt", S_IFDIR, &fd, &st,
	    err, sizeof err), WS_NOT_FILE);
	assert_int_equal(fd, -1);
	assert_non_null(strstr(err, "'a.txt' is not a folder"));
	alarm(20);			/* a FIFO is never opened to read */
	assert_int_equal(workspace_open_fd(&f->w, "fifolink", S_IFREG, &fd,
	    &st, err, sizeof err), WS_NOT_FILE);
	alarm(0);
	assert_non_null(strstr(err, "'fifolink' is not a regular file"));
	assert_int_equal(workspace_open_fd(&f->w, "abs_in", S_IFREG, &fd, &st,
	    err, sizeof err), WS_OK);
	assert_int_equal(st.st_size, 10);
	close(fd);
	assert_int_equal(workspace_open_fd(&f->w, "dirlink/secret", S_IFREG,
	    &fd, &st, err, sizeof err), WS_OUTSIDE);
	assert_non_null(strstr(err, "leads outside the workspace"));
	assert_int_equal(workspace_open_fd(&f->w, "d", 0, &fd, &st, err,
	    sizeof err), WS_OK);
	assert_true(S_ISDIR(st.st_mode));
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open, setup, teardown),
		cmocka_unit_test(test_join),
		cmocka_unit_test_setup_teardown(test_join_links, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_locate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_fd, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
