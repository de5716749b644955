/*
 * test_labmirror.c: a job's mirror on its own (src/lab/labmirror.c), with
 * no lab model: appending whole lines, the errors it returns instead of
 * saying them, reading it back with a line a crash cut short (cut off, or
 * left to the writer when only watching), and taking over a mirror
 * another console wrote.
 */
#include "calops.h"

#include <sys/stat.h>

#include <setjmp.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "lab/labmirror.h"

#define EV(seq, type) "{\"v\":1,\"seq\":" #seq ",\"ts\":" #seq \
	",\"type\":\"" type "\"}"

static char tmpdir[] = "/tmp/calops-labmirror.XXXXXX";

static char *
file_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[4096];
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return xstrdup(buf);
}

static void
test_append(void **state)
{
	struct labmirror m;
	char err[512], *text;
	char *path = xasprintf("%s/a.jsonl", tmpdir);
	size_t n;

	(void)state;
	labmirror_init(&m, path);
	assert_int_equal(labmirror_append(&m, EV(1, "hello"),
	    strlen(EV(1, "hello")), err, sizeof err), 0);
	assert_int_equal(labmirror_append(&m, EV(2, "log"),
	    strlen(EV(2, "log")), err, sizeof err), 0);
	/* Held until flushed: one write for the two. */
	assert_true(labmirror_pending(&m));
	assert_int_equal(m.size, 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(labmirror_flush(&m, err, sizeof err), 0);
	assert_false(labmirror_pending(&m));
	assert_int_equal(m.size, (off_t)(strlen(EV(1, "hello")) +
	    strlen(EV(2, "log")) + 2));
	text = file_text(path);
	assert_string_equal(text, EV(1, "hello") "\n" EV(2, "log") "\n");
	free(text);
	/* Closing writes what is held. */
	assert_int_equal(labmirror_append(&m, EV(3, "log"),
	    strlen(EV(3, "log")), err, sizeof err), 0);
	labmirror_close(&m);
	text = file_text(path);
	assert_string_equal(text, EV(1, "hello") "\n" EV(2, "log") "\n"
	    EV(3, "log") "\n");
	free(text);
	labmirror_release(&m);

	/* 64 KiB held are written without waiting for the flush. */
	path = xasprintf("%s/big.jsonl", tmpdir);
	labmirror_init(&m, path);
	for (n = 0; m.size == 0; n++) {
		assert_true(n < 70000 / strlen(EV(1, "log")));
		assert_int_equal(labmirror_append(&m, EV(1, "log"),
		    strlen(EV(1, "log")), err, sizeof err), 0);
	}
	assert_true(m.size >= 64 * 1024);
	assert_false(labmirror_pending(&m));
	labmirror_release(&m);

	/* A mirror that cannot be made says why, once, and is written no
	 * more: the next append is quiet. */
	labmirror_init(&m, xasprintf("%s/no/such/dir/b.jsonl", tmpdir));
	err[0] = '\0';
	assert_int_equal(labmirror_append(&m, "x", 1, err, sizeof err), 0);
	assert_int_equal(labmirror_flush(&m, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot open"));
	assert_non_null(strstr(err, "no/such/dir/b.jsonl"));
	assert_true(m.failed);
	err[0] = '\0';
	assert_int_equal(labmirror_append(&m, "y", 1, err, sizeof err), 0);
	assert_string_equal(err, "");
	labmirror_release(&m);

	/* No state folder: no mirror, and opening says so. */
	labmirror_init(&m, NULL);
	assert_int_equal(labmirror_open(&m, err, sizeof err), -1);
	labmirror_release(&m);
}

/* Read back what a file holds: the lines, and what replay_end says. */
static int
replay(const char *bytes, bool keep_file, char *lines, size_t len,
    off_t *size, char *err, size_t errlen)
{
	char *path = xasprintf("%s/r.jsonl", tmpdir);
	struct labmirror m;
	const char *line;
	double mtime = 0;
	size_t n;
	bool bad;
	int rc;

	assert_int_equal(fileio_replace(path, bytes, strlen(bytes), 0600,
	    false, err, errlen), 0);
	labmirror_init(&m, path);
	assert_int_equal(labmirror_replay_open(&m, &mtime, err, errlen), 0);
	assert_true(mtime > 0);
	lines[0] = '\0';
	while (labmirror_replay_next(&m, &line, &n, &bad) == 1)
		snprintf(lines + strlen(lines), len - strlen(lines), "%s%.*s|",
		    bad ? "BAD:" : "", (int)n, line);
	rc = labmirror_replay_end(&m, keep_file, err, errlen);
	*size = m.size;
	assert_null(m.replay);
	labmirror_release(&m);
	return rc;
}

static void
test_replay(void **state)
{
	const char whole[] = EV(1, "hello") "\n" EV(2, "log") "\n";
	char lines[1024], err[512], *path, *text;
	struct labmirror m;
	double mtime;
	off_t size;

	(void)state;
	path = xasprintf("%s/r.jsonl", tmpdir);
	assert_int_equal(replay(whole, false, lines, sizeof lines, &size,
	    err, sizeof err), 0);
	assert_string_equal(lines, EV(1, "hello") "|" EV(2, "log") "|");
	assert_int_equal(size, (off_t)strlen(whole));

	/* A line a crash cut short ends the replay and is cut off, so the
	 * next append starts on a whole line. */
	assert_int_equal(replay(EV(1, "hello") "\n{\"v\":1,\"se", false, lines,
	    sizeof lines, &size, err, sizeof err), 0);
	assert_string_equal(lines, EV(1, "hello") "|");
	assert_int_equal(size, (off_t)strlen(EV(1, "hello")) + 1);
	text = file_text(path);
	assert_string_equal(text, EV(1, "hello") "\n");
	free(text);

	/* Watching, the file is the writer's: left as it is. */
	assert_int_equal(replay(EV(1, "hello") "\n{\"v\":1,\"se", true, lines,
	    sizeof lines, &size, err, sizeof err), 0);
	text = file_text(path);
	assert_string_equal(text, EV(1, "hello") "\n{\"v\":1,\"se");
	free(text);

	/* A NUL in a line marks it bad; the lines after it still come. */
	assert_int_equal(fileio_replace(path, "a\0b\n" EV(3, "log") "\n", 4 +
	    strlen(EV(3, "log")) + 1, 0600, false, err, sizeof err), 0);
	labmirror_init(&m, xstrdup(path));
	assert_int_equal(labmirror_replay_open(&m, &mtime, err, sizeof err), 0);
	{
		const char *line;
		size_t n;
		bool bad;

		assert_int_equal(labmirror_replay_next(&m, &line, &n, &bad), 1);
		assert_true(bad);
		assert_int_equal(labmirror_replay_next(&m, &line, &n, &bad), 1);
		assert_false(bad);
		assert_int_equal(labmirror_replay_next(&m, &line, &n, &bad), 0);
	}
	assert_int_equal(labmirror_replay_end(&m, false, err, sizeof err), 0);
	labmirror_release(&m);

	/* Nothing there: no replay. */
	unlink(path);
	labmirror_init(&m, path);
	assert_int_equal(labmirror_replay_open(&m, &mtime, err, sizeof err),
	    -1);
	assert_int_equal(errno, ENOENT);
	assert_null(m.refused);
	labmirror_release(&m);
}

/*
 * A symbolic link planted as a mirror (issue 27): refused by every way
 * in, reading it back, appending, taking it over, with the path and the
 * fix as the state folder says them, and m->refused set; the file it
 * names is neither read nor written.
 */
static void
test_planted_link(void **state)
{
	char *path = xasprintf("%s/link.jsonl", tmpdir), err[1024], *text;
	char *target = xasprintf("%s/target", tmpdir);
	const char *const words[] = { "refusing '", "/link.jsonl': it is a "
	    "symbolic link (to '", "/target'), and calops follows none in "
	    "its state; remove it: rm '", NULL };
	struct labmirror m;
	double mtime;
	size_t i, k;

	(void)state;
	assert_int_equal(fileio_replace(target, "precious\n", 9, 0600, false,
	    err, sizeof err), 0);
	assert_int_equal(symlink(target, path), 0);
	for (k = 0; k < 3; k++) {
		labmirror_init(&m, xstrdup(path));
		err[0] = '\0';
		if (k == 0)
			assert_int_equal(labmirror_replay_open(&m, &mtime, err,
			    sizeof err), -1);
		else if (k == 1) {
			assert_int_equal(labmirror_append(&m, EV(1, "hello"),
			    strlen(EV(1, "hello")), err, sizeof err), 0);
			assert_int_equal(labmirror_flush(&m, err, sizeof err),
			    -1);
			assert_true(m.failed);
		} else {
			assert_int_equal(labmirror_adopt(&m, err, sizeof err),
			    -1);
			assert_true(m.failed);
		}
		for (i = 0; words[i] != NULL; i++)
			if (strstr(err, words[i]) == NULL)
				fail_msg("'%s' not in: %s", words[i], err);
		assert_non_null(m.refused);
		assert_string_equal(m.refused, err);
		labmirror_release(&m);
	}
	text = file_text(target);
	assert_string_equal(text, "precious\n");
	free(text);
	unlink(path);
	free(path);
	free(target);
}

static void
test_adopt(void **state)
{
	char *path = xasprintf("%s/t.jsonl", tmpdir), err[512], *text;
	const char bytes[] = EV(1, "hello") "\n" EV(7, "log") "\n{\"v\":1";
	struct labmirror m;

	(void)state;
	assert_int_equal(fileio_replace(path, bytes, strlen(bytes), 0600,
	    false, err, sizeof err), 0);
	labmirror_init(&m, path);
	assert_int_equal(labmirror_adopt(&m, err, sizeof err), 0);
	assert_int_equal(m.seq, 7);
	assert_int_equal(m.size, (off_t)(strlen(bytes) - strlen("{\"v\":1")));
	assert_false(m.failed);
	/* Appending goes on after the last whole line. */
	assert_int_equal(labmirror_append(&m, EV(8, "log"),
	    strlen(EV(8, "log")), err, sizeof err), 0);
	assert_int_equal(labmirror_flush(&m, err, sizeof err), 0);
	text = file_text(path);
	assert_string_equal(text, EV(1, "hello") "\n" EV(7, "log") "\n"
	    EV(8, "log") "\n");
	free(text);
	labmirror_close(&m);

	/* A mirror that does not end in an event is written no more, and
	 * says so. */
	assert_int_equal(fileio_replace(path, "junk\n", 5, 0600, false, err,
	    sizeof err), 0);
	m.failed = false;
	assert_int_equal(labmirror_adopt(&m, err, sizeof err), -1);
	assert_non_null(strstr(err, "does not end in an event"));
	assert_true(m.failed);
	labmirror_release(&m);

	/* None yet: it starts empty. */
	labmirror_init(&m, xasprintf("%s/none.jsonl", tmpdir));
	assert_int_equal(labmirror_adopt(&m, err, sizeof err), 0);
	assert_int_equal(m.seq, 0);
	assert_int_equal(m.size, 0);
	labmirror_release(&m);
}

static int
setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) != NULL ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	fileio_remove_tree(tmpdir);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_adopt),
		cmocka_unit_test(test_planted_link),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
