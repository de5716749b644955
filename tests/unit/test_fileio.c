/*
 * test_fileio.c: copying a folder (src/base/fileio.c): files, folders and their
 * permission bits arrive whole; a symlink or a FIFO anywhere is an error
 * naming it and leaves no half-made copy; an existing target is never
 * touched; mkdir -p.
 */
#include "calops.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fileio.h"

struct fx {
	char	*root;		/* a private temp folder */
	char	*src;		/* root/src: the tree to copy */
	char	*dst;		/* root/dst: not made */
};

/* root/rel, a new string. */
static char *
at(const char *root, const char *rel)
{
	return xasprintf("%s/%s", root, rel);
}

static void
put(const char *root, const char *rel, const void *data, size_t len,
    mode_t mode)
{
	char *p = at(root, rel);
	FILE *f = fopen(p, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(p, mode), 0);
	free(p);
}

static void
chmod_at(const char *root, const char *rel, mode_t mode)
{
	char *p = at(root, rel);

	assert_int_equal(chmod(p, mode), 0);
	free(p);
}

static void
mk(const char *root, const char *rel, mode_t mode)
{
	char *p = at(root, rel);

	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(chmod(p, mode), 0);
	free(p);
}

/* rel's bytes under root (a new buffer, *len set); NULL when unreadable. */
static char *
slurp(const char *root, const char *rel, size_t *len)
{
	char *p = at(root, rel), *data;
	FILE *f = fopen(p, "rb");
	long n;

	free(p);
	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	data = xmalloc((size_t)n + 1);
	*len = fread(data, 1, (size_t)n, f);
	fclose(f);
	return data;
}

static mode_t
mode_of(const char *root, const char *rel)
{
	char *p = at(root, rel);
	struct stat st;

	assert_int_equal(lstat(p, &st), 0);
	free(p);
	return st.st_mode;
}

static bool
exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static int
setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	struct fx *f = xcalloc(1, sizeof *f);

	f->root = xasprintf("%s/calops-fileio-XXXXXX", tmp != NULL &&
	    tmp[0] == '/' ? tmp : "/tmp");
	assert_non_null(mkdtemp(f->root));
	f->src = at(f->root, "src");
	f->dst = at(f->root, "dst");
	assert_int_equal(mkdir(f->src, 0750), 0);
	assert_int_equal(chmod(f->src, 0750), 0);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	char *cmd[] = { "chmod", "-R", "u+rwx", f->root, NULL };
	char *rm[] = { "rm", "-rf", f->root, NULL };
	pid_t pid;
	int st;

	/* Opened up first: the tests leave read-only folders behind. */
	if ((pid = fork()) == 0) {
		execvp(cmd[0], cmd);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	if ((pid = fork()) == 0) {
		execvp(rm[0], rm);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	free(f->root);
	free(f->src);
	free(f->dst);
	free(f);
	return 0;
}

/* A tree of every kind the copy takes: nested folders, an empty folder, an
 * empty file, a file larger than one chunk, executable and read-only files,
 * a read-only folder with a file in it. */
static void
make_tree(const struct fx *f, unsigned char *big, size_t nbig)
{
	size_t i;

	for (i = 0; i < nbig; i++)
		big[i] = (unsigned char)(i * 131 + (i >> 9));
	put(f->src, "owners.yaml", "gates: {}\n", 10, 0644);
	put(f->src, "empty", "", 0, 0600);
	mk(f->src, "04-compiler", 0755);
	put(f->src, "04-compiler/compile.sh", "#!/bin/sh\nexit 0\n", 17, 0755);
	mk(f->src, "05-calbin", 0755);
	mk(f->src, "05-calbin/package", 0755);
	mk(f->src, "05-calbin/package/weights", 0750);
	put(f->src, "05-calbin/package/weights/w.bin", big, nbig, 0444);
	mk(f->src, "06-runtime", 0755);
	mk(f->src, "06-runtime/faults", 0700);
	/* a file inside a read-only folder: made before the folder closes */
	mk(f->src, "08-release", 0755);
	put(f->src, "08-release/decision.md", "# GO\n", 5, 0640);
	chmod_at(f->src, "08-release", 0555);
}

static void
test_copy(void **state)
{
	static const char *const files[] = { "owners.yaml", "empty",
	    "04-compiler/compile.sh", "05-calbin/package/weights/w.bin",
	    "08-release/decision.md" };
	static const char *const dirs[] = { "", "04-compiler", "05-calbin",
	    "05-calbin/package", "05-calbin/package/weights", "06-runtime",
	    "06-runtime/faults", "08-release" };
	struct fx *f = *state;
	size_t nbig = 3 * 64 * 1024 + 7, i, la, lb;
	unsigned char *big = xmalloc(nbig);
	char err[512] = "", *a, *b;

	make_tree(f, big, nbig);
	if (fileio_copy_tree(f->src, f->dst, err, sizeof err) != 0)
		fail_msg("%s", err);
	for (i = 0; i < nitems(files); i++) {
		a = slurp(f->src, files[i], &la);
		b = slurp(f->dst, files[i], &lb);
		assert_non_null(a);
		if (b == NULL)
			fail_msg("'%s' was not copied", files[i]);
		assert_int_equal(la, lb);
		assert_memory_equal(a, b, la);
		assert_true(S_ISREG(mode_of(f->dst, files[i])));
		assert_int_equal(mode_of(f->src, files[i]) & 07777,
		    mode_of(f->dst, files[i]) & 07777);
		free(a);
		free(b);
	}
	b = slurp(f->dst, "05-calbin/package/weights/w.bin", &lb);
	assert_int_equal(lb, nbig);
	assert_memory_equal(b, big, nbig);
	free(b);
	for (i = 0; i < nitems(dirs); i++) {
		assert_true(S_ISDIR(mode_of(f->dst, dirs[i])));
		assert_int_equal(mode_of(f->src, dirs[i]) & 07777,
		    mode_of(f->dst, dirs[i]) & 07777);
	}
	assert_int_equal(mode_of(f->dst, "08-release") & 07777, 0555);
	assert_int_equal(mode_of(f->dst, "") & 07777, 0750);
	free(big);
}

/* An existing target, even an empty folder, is refused and left alone. */
static void
test_target_exists(void **state)
{
	struct fx *f = *state;
	char err[512] = "";
	size_t len;
	char *s;

	put(f->src, "a", "new", 3, 0644);
	assert_int_equal(mkdir(f->dst, 0700), 0);
	put(f->dst, "keep", "old", 3, 0644);
	assert_int_equal(fileio_copy_tree(f->src, f->dst, err, sizeof err),
	    -1);
	assert_non_null(strstr(err, "cannot create '"));
	assert_non_null(strstr(err, "/dst'"));
	assert_non_null(strstr(err, strerror(EEXIST)));
	s = slurp(f->dst, "keep", &len);
	assert_non_null(s);
	assert_memory_equal(s, "old", 3);
	free(s);
	assert_null(slurp(f->dst, "a", &len));
}

/* A symlink deep in the tree: an error naming it, and no copy left. */
static void
test_symlink(void **state)
{
	struct fx *f = *state;
	char err[512] = "", *link, *want;

	put(f->src, "a", "x", 1, 0644);
	mk(f->src, "08-release", 0755);
	mk(f->src, "08-release/generations", 0755);
	put(f->src, "08-release/generations/m.json", "{}", 2, 0644);
	link = at(f->src, "08-release/current");
	assert_int_equal(symlink("generations", link), 0);
	assert_int_equal(fileio_copy_tree(f->src, f->dst, err, sizeof err),
	    -1);
	want = xasprintf("cannot copy '%s': a symbolic link", link);
	assert_string_equal(err, want);
	assert_false(exists(f->dst));
	free(want);
	free(link);
}

/* A FIFO (a special file): an error naming it, no copy left, no hang. */
static void
test_fifo(void **state)
{
	struct fx *f = *state;
	char err[512] = "", *fifo, *want;

	mk(f->src, "z", 0755);
	put(f->src, "z/file", "y", 1, 0400);
	chmod_at(f->src, "z", 0555);
	fifo = at(f->src, "pipe");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(fileio_copy_tree(f->src, f->dst, err, sizeof err),
	    -1);
	want = xasprintf("cannot copy '%s': not a regular file or folder",
	    fifo);
	assert_string_equal(err, want);
	/* whatever was copied first (z/, read-only) is gone again */
	assert_false(exists(f->dst));
	free(want);
	free(fifo);
}

/* The source itself: missing, a symlink to a folder, a file. */
static void
test_bad_source(void **state)
{
	struct fx *f = *state;
	char err[512] = "", *p, *q;

	p = at(f->root, "nope");
	assert_int_equal(fileio_copy_tree(p, f->dst, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot read '"));
	assert_non_null(strstr(err, strerror(ENOENT)));
	free(p);

	p = at(f->root, "link");
	assert_int_equal(symlink("src", p), 0);
	assert_int_equal(fileio_copy_tree(p, f->dst, err, sizeof err), -1);
	q = xasprintf("cannot copy '%s': a symbolic link", p);
	assert_string_equal(err, q);
	free(q);
	free(p);

	put(f->src, "file", "x", 1, 0644);
	p = at(f->src, "file");
	assert_int_equal(fileio_copy_tree(p, f->dst, err, sizeof err), -1);
	q = xasprintf("cannot copy '%s': not a folder", p);
	assert_string_equal(err, q);
	free(q);
	free(p);
	assert_false(exists(f->dst));
}

/* Folders nested deeper than FILEIO_COPY_DEPTH (a copy into itself would
 * be one): refused, no copy left. */
static void
test_too_deep(void **state)
{
	struct fx *f = *state;
	char err[512] = "", *p = xstrdup(f->src), *q;
	int i;

	for (i = 0; i < FILEIO_COPY_DEPTH + 1; i++) {
		q = xasprintf("%s/d", p);
		assert_int_equal(mkdir(q, 0700), 0);
		free(p);
		p = q;
	}
	assert_int_equal(fileio_copy_tree(f->src, f->dst, err, sizeof err),
	    -1);
	assert_non_null(strstr(err, "folders nested deeper than"));
	assert_false(exists(f->dst));
	free(p);
}

static void
test_make_dirs(void **state)
{
	struct fx *f = *state;
	char err[512] = "", *p, *q;

	p = at(f->root, "state//calops/demo/");
	assert_int_equal(fileio_make_dirs(p, 0700, err, sizeof err), 0);
	q = at(f->root, "state/calops/demo");
	assert_true(S_ISDIR(mode_of(q, "")));
	assert_int_equal(mode_of(q, "") & 07777, 0700);
	/* again: nothing to do */
	assert_int_equal(fileio_make_dirs(q, 0700, err, sizeof err), 0);
	free(p);
	free(q);

	put(f->root, "plain", "x", 1, 0644);
	p = at(f->root, "plain/sub");
	assert_int_equal(fileio_make_dirs(p, 0700, err, sizeof err), -1);
	q = xasprintf("cannot make '%s/plain': %s", f->root,
	    strerror(ENOTDIR));
	assert_string_equal(err, q);
	free(q);
	free(p);
}

/* O_NONBLOCK on and off, the other status flags kept (a bare F_SETFL would
 * clear O_APPEND); a bad descriptor is an error, not ignored. */
static void
test_set_nonblock(void **state)
{
	struct fx *f = *state;
	char *p = at(f->root, "log");
	int fd;

	fd = open(p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	assert_int_not_equal(fd, -1);
	assert_int_equal(fileio_set_nonblock(fd, true), 0);
	assert_int_equal(fcntl(fd, F_GETFL) & (O_NONBLOCK | O_APPEND),
	    O_NONBLOCK | O_APPEND);
	assert_int_equal(fileio_set_nonblock(fd, false), 0);
	assert_int_equal(fcntl(fd, F_GETFL) & (O_NONBLOCK | O_APPEND),
	    O_APPEND);
	close(fd);
	assert_int_equal(fileio_set_nonblock(fd, true), -1);
	assert_int_equal(errno, EBADF);
	free(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_target_exists, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_source, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_too_deep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_nonblock, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_make_dirs, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
