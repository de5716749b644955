/* test_pathcomp.c: Tab's path completion in a prompt for a file
 * (views/core/pathcomp.c), over a temporary folder. */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "views/core/pathcomp.h"

static char	 top[64];

static void
touch(const char *name)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof p, "%s/%s", top, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	close(fd);
}

/* top: approver.pem, apple.pem, keys/ (keys/one.pem), .hidden.pem,
 * "bad\033[31mname" (a name a terminal would obey), "kéy" and "kèy". */
static int
setup(void **state)
{
	char p[PATH_MAX];

	(void)state;
	snprintf(top, sizeof top, "/tmp/pathcomp.XXXXXX");
	if (mkdtemp(top) == NULL)
		return -1;
	touch("approver.pem");
	touch("apple.pem");
	touch(".hidden.pem");
	touch("bad\033[31mname");
	touch("k\xc3\xa9y");
	touch("k\xc3\xa8y");
	snprintf(p, sizeof p, "%s/keys", top);
	if (mkdir(p, 0700) != 0)
		return -1;
	touch("keys/one.pem");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	fileio_remove_tree(top);
	return 0;
}

/* typed (under top) completed: n matches, and top/want typed after; pc
 * gets what was found. */
static void
check(const char *typed, size_t n, const char *want, struct pathcomp *pc)
{
	char path[PATH_MAX], full[PATH_MAX], err[256];

	snprintf(path, sizeof path, "%s/%s", top, typed);
	assert_int_equal(pathcomp_complete(path, sizeof path, pc, err,
	    sizeof err), 0);
	assert_int_equal(pc->n, n);
	snprintf(full, sizeof full, "%s/%s", top, want);
	assert_string_equal(path, full);
}

static void
test_unique(void **state)
{
	struct pathcomp pc;

	(void)state;
	check("appr", 1, "approver.pem", &pc);
	/* A unique folder gets its '/', and is gone into next. */
	check("ke", 1, "keys/", &pc);
	check("keys/", 1, "keys/one.pem", &pc);
}

/* Several: as far as they agree, and their names listed, sorted. */
static void
test_common(void **state)
{
	struct pathcomp pc;

	(void)state;
	check("a", 2, "app", &pc);
	assert_string_equal(pc.list, "apple.pem approver.pem");
	/* Nothing typed: every visible entry, the bad name made harmless. */
	check("", 6, "", &pc);
	assert_null(strchr(pc.list, '\033'));
	assert_non_null(strstr(pc.list, "apple.pem"));
	assert_null(strstr(pc.list, ".hidden"));
	/* Agreeing up to the middle of a character: not cut there, and
	 * never shorter than typed. */
	check("k\xc3\xa9", 1, "k\xc3\xa9y", &pc);
	check("k", 3, "k", &pc);
	check("k\xc3", 2, "k\xc3", &pc);
}

static void
test_none(void **state)
{
	struct pathcomp pc;
	char path[PATH_MAX], want[PATH_MAX], err[256];

	(void)state;
	check("zz", 0, "zz", &pc);
	/* A folder that is not there is said, the path left as it was. */
	snprintf(path, sizeof path, "%s/nowhere/a", top);
	snprintf(want, sizeof want, "%s", path);
	assert_int_equal(pathcomp_complete(path, sizeof path, &pc, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "nowhere"));
	assert_string_equal(path, want);
}

/* Hidden entries only when the typed part starts with '.'. */
static void
test_hidden(void **state)
{
	struct pathcomp pc;

	(void)state;
	check("h", 0, "h", &pc);
	check(".", 1, ".hidden.pem", &pc);
}

/* "~/" is $HOME for the listing; the typed text keeps its '~'. */
static void
test_home(void **state)
{
	struct pathcomp pc;
	char path[64], err[256], *old = getenv("HOME");
	char *saved = old != NULL ? xstrdup(old) : NULL;

	(void)state;
	setenv("HOME", top, 1);
	snprintf(path, sizeof path, "~");
	assert_int_equal(pathcomp_complete(path, sizeof path, &pc, err,
	    sizeof err), 0);
	assert_string_equal(path, "~/");
	snprintf(path, sizeof path, "~/keys/o");
	assert_int_equal(pathcomp_complete(path, sizeof path, &pc, err,
	    sizeof err), 0);
	assert_string_equal(path, "~/keys/one.pem");
	/* No room for the completion: an error, the path unchanged. */
	snprintf(path, 10, "~/appr");
	assert_int_equal(pathcomp_complete(path, 10, &pc, err, sizeof err),
	    -1);
	assert_string_equal(path, "~/appr");
	if (saved != NULL)
		setenv("HOME", saved, 1);
	free(saved);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unique),
		cmocka_unit_test(test_common),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_hidden),
		cmocka_unit_test(test_home),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
