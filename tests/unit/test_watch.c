/*
 * test_watch.c: change notification (watch.c) on real files in a temporary
 * folder, driven by poll() as the console drives it.  Both modes are
 * covered: inotify, and polling (forced with CALOPS_WATCH_POLL, or reached
 * through the folder cap).  Waits are short: inotify events are queued
 * before the call that caused them returns, and polling runs every 40 ms.
 *
 * The tests run as root, so nothing here relies on permissions.
 */
#include "calops.h"

#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <setjmp.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "loop/watch.h"

#define POLL_MS		40

/* base/ holds ws/ (the watched root: a.txt, d/e/f.txt) and out/. */
struct fixture {
	char		*base;
	char		*root;
	char		*out;
	struct watch	*w;
};

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *
at(const char *dir, const char *rel)
{
	return xasprintf("%s/%s", dir, rel);
}

static void
put(const char *dir, const char *rel, const char *text)
{
	char *path = at(dir, rel);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	free(path);
}

static void
dir_at(const char *dir, const char *rel)
{
	char *path = at(dir, rel);

	assert_int_equal(mkdir(path, 0755), 0);
	free(path);
}

static void
move(const char *dir, const char *from, const char *todir, const char *to)
{
	char *a = at(dir, from), *b = at(todir, to);

	assert_int_equal(rename(a, b), 0);
	free(a);
	free(b);
}

static void
gone(const char *dir, const char *rel)
{
	char *path = at(dir, rel);

	assert_int_equal(remove(path), 0);
	free(path);
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

/* Run the watch as the console's loop would, for at most ms; true as soon
 * as it reports a change. */
static bool
changed_within(struct watch *w, int ms)
{
	int64_t end = now_ms() + ms, left;
	struct pollfd p;
	int t;

	for (;;) {
		if ((left = end - now_ms()) < 0)
			left = 0;
		if ((p.fd = watch_fd(w)) != -1) {
			assert_int_equal(watch_timeout_ms(w), -1);
			p.events = POLLIN;
			if (poll(&p, 1, (int)left) == 1 && watch_read(w))
				return true;
		} else {
			assert_true((t = watch_timeout_ms(w)) >= 0);
			poll(NULL, 0, t < left ? t : (int)left);
			if (watch_poll(w))
				return true;
		}
		if (left == 0)
			return false;
	}
}

#define CHANGED(f) do {							\
	if (!changed_within((f)->w, 1000))				\
		fail_msg("no change seen (%s)", watch_describe((f)->w)); \
} while (0)

/* Nothing to report: in inotify mode the fd is not even readable, in
 * polling mode a whole poll finds nothing. */
static void
quiet(struct watch *w)
{
	struct pollfd p;

	if (changed_within(w, watch_fd(w) != -1 ? 20 : POLL_MS + 30))
		fail_msg("a change was reported (%s)", watch_describe(w));
	if ((p.fd = watch_fd(w)) != -1) {
		p.events = POLLIN;
		assert_int_equal(poll(&p, 1, 0), 0);
		assert_false(watch_read(w));
	}
}

static void
describes(const struct watch *w, const char *want)
{
	if (strstr(watch_describe(w), want) == NULL)
		fail_msg("'%s' lacks '%s'", watch_describe(w), want);
}

static struct watch *
start(const char *root)
{
	struct watch *w;
	char err[256];

	if ((w = watch_new(root, err, sizeof err)) == NULL)
		fail_msg("%s", err);
	if (watch_fd(w) == -1)
		watch_set_interval_ms(w, POLL_MS);
	return w;
}

static int
setup_tree(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);

	f->base = xstrdup("/tmp/calops-test-watch.XXXXXX");
	assert_non_null(mkdtemp(f->base));
	f->root = at(f->base, "ws");
	f->out = at(f->base, "out");
	assert_int_equal(mkdir(f->root, 0755), 0);
	assert_int_equal(mkdir(f->out, 0755), 0);
	put(f->root, "a.txt", "0123456789");
	dir_at(f->root, "d");
	dir_at(f->root, "d/e");
	put(f->root, "d/e/f.txt", "f\n");
	unsetenv("CALOPS_WATCH_POLL");
	*state = f;
	return 0;
}

static int
setup(void **state)
{
	struct fixture *f;

	setup_tree(state);
	f = *state;
	f->w = start(f->root);
	assert_int_not_equal(watch_fd(f->w), -1);
	return 0;
}

static int
setup_poll(void **state)
{
	struct fixture *f;

	setup_tree(state);
	f = *state;
	setenv("CALOPS_WATCH_POLL", "1", 1);
	f->w = start(f->root);
	assert_int_equal(watch_fd(f->w), -1);
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	watch_free(f->w);
	unsetenv("CALOPS_WATCH_POLL");
	watch_set_limits(0, 0);
	rmtree(f->base);
	free(f->base);
	free(f->root);
	free(f->out);
	free(f);
	return 0;
}

static void
test_idle(void **state)
{
	struct fixture *f = *state;

	assert_string_equal(watch_describe(f->w), "inotify (3 folders)");
	assert_int_equal(watch_timeout_ms(f->w), -1);
	assert_false(watch_poll(f->w));
	assert_true(watch_root_ok(f->w));
	quiet(f->w);
	quiet(f->w);
}

static void
test_write(void **state)
{
	struct fixture *f = *state;

	put(f->root, "new.txt", "new\n");
	CHANGED(f);
	quiet(f->w);
	put(f->root, "a.txt", "9876543210");
	CHANGED(f);
	quiet(f->w);
	put(f->root, "d/e/f.txt", "nested\n");
	CHANGED(f);
	quiet(f->w);
}

static void
test_new_folder(void **state)
{
	struct fixture *f = *state;

	dir_at(f->root, "n");
	CHANGED(f);
	put(f->root, "n/x.json", "{}");
	CHANGED(f);
	/* Made before the watch is told: found by listing the new folder. */
	dir_at(f->root, "p");
	dir_at(f->root, "p/q");
	dir_at(f->root, "p/q/r");
	CHANGED(f);
	assert_string_equal(watch_describe(f->w), "inotify (7 folders)");
	put(f->root, "p/q/r/x.yaml", "a: 1\n");
	CHANGED(f);
	quiet(f->w);
}

static void
test_rename(void **state)
{
	struct fixture *f = *state;

	put(f->root, "a.txt.tmp", "temp");
	CHANGED(f);
	move(f->root, "a.txt.tmp", f->root, "a.txt");
	CHANGED(f);
	/* A dropping renamed onto the final name is a change all the same. */
	put(f->root, "b.txt~", "backup");
	quiet(f->w);
	move(f->root, "b.txt~", f->root, "b.txt");
	CHANGED(f);
	quiet(f->w);
	/* A folder renamed inside the tree stays watched under its new name. */
	move(f->root, "d", f->root, "d2");
	CHANGED(f);
	assert_string_equal(watch_describe(f->w), "inotify (3 folders)");
	put(f->root, "d2/e/g.txt", "g");
	CHANGED(f);
	/* Moved out of the tree, it is no longer watched. */
	move(f->root, "d2", f->out, "d2");
	CHANGED(f);
	assert_string_equal(watch_describe(f->w), "inotify (1 folder)");
	put(f->out, "d2/e/h.txt", "h");
	quiet(f->w);
	/* And moved in from outside, it is. */
	move(f->out, "d2", f->root, "d3");
	CHANGED(f);
	assert_string_equal(watch_describe(f->w), "inotify (3 folders)");
	put(f->root, "d3/e/i.txt", "i");
	CHANGED(f);
}

static void
test_delete(void **state)
{
	struct fixture *f = *state;

	gone(f->root, "a.txt");
	CHANGED(f);
	gone(f->root, "d/e/f.txt");
	CHANGED(f);
	gone(f->root, "d/e");
	CHANGED(f);
	assert_string_equal(watch_describe(f->w), "inotify (2 folders)");
	quiet(f->w);
}

static void
test_droppings(void **state)
{
	struct fixture *f = *state;
	static const char *names[] = {
		".a.txt.swp", ".a.txt.swx", "a.txt~", ".#a.txt", "d/e/.f.txt.swp",
	};
	char buf[64], *path;
	size_t i;
	int fd;

	for (i = 0; i < nitems(names); i++) {
		put(f->root, names[i], "junk");
		put(f->root, names[i], "more junk");
		gone(f->root, names[i]);
	}
	path = at(f->root, ".#lock");
	assert_int_equal(symlink("root@host.1234", path), 0);
	assert_int_equal(unlink(path), 0);
	free(path);
	quiet(f->w);

	/* Reading, as an evaluation does, is not a change either. */
	path = at(f->root, "d/e/f.txt");
	assert_true((fd = open(path, O_RDONLY)) != -1);
	assert_int_equal(read(fd, buf, sizeof buf), 2);
	close(fd);
	free(path);
	quiet(f->w);
}

static void
test_symlink(void **state)
{
	struct fixture *f = *state;
	char *path = at(f->root, "outlink");

	assert_int_equal(symlink(f->out, path), 0);
	free(path);
	CHANGED(f);
	assert_string_equal(watch_describe(f->w), "inotify (3 folders)");
	put(f->out, "x.txt", "outside");
	quiet(f->w);
}

/*
 * A folder on the way swapped for a link out of the workspace before the
 * watch hears of a folder made in it: the new folder is opened beneath the
 * root, every step of it, and not followed out.  The old watch followed the
 * link and walked the outside tree (here past the folder cap, so that it
 * gave up inotify for polling).
 */
static void
test_symlink_on_the_way(void **state)
{
	struct fixture *f = *state;
	char *path = at(f->root, "d"), rel[32];
	int i;

	watch_set_limits(6, 0);
	f->w = start(f->root);
	assert_string_equal(watch_describe(f->w), "inotify (3 folders)");
	dir_at(f->root, "d/n");
	dir_at(f->out, "n");
	for (i = 0; i < 4; i++) {
		snprintf(rel, sizeof rel, "n/deep%d", i);
		dir_at(f->out, rel);
	}
	move(f->root, "d", f->root, "d.old");
	assert_int_equal(symlink(f->out, path), 0);
	free(path);
	CHANGED(f);
	quiet(f->w);
	assert_string_equal(watch_describe(f->w), "inotify (4 folders)");
	put(f->out, "n/x.txt", "outside");
	put(f->out, "n/deep0/y.txt", "outside");
	quiet(f->w);
}

/* More events than the kernel queues: the folder made after the flood is
 * watched all the same, since an overflow starts the watch over. */
static void
test_overflow(void **state)
{
	struct fixture *f = *state;
	long max = 16384, i, n;
	FILE *fp;
	char *path;
	int fd;

	if ((fp = fopen("/proc/sys/fs/inotify/max_queued_events", "r")) !=
	    NULL) {
		if (fscanf(fp, "%ld", &max) != 1)
			max = 16384;
		fclose(fp);
	}
	if (max > 65536)
		skip();
	n = max / 2 + 1000;	/* two events each: create, close */
	for (i = 0; i < n; i++) {
		path = xasprintf("%s/d/flood%ld", f->root, i);
		assert_true((fd = open(path, O_WRONLY | O_CREAT, 0644)) != -1);
		close(fd);
		free(path);
	}
	dir_at(f->root, "late");
	CHANGED(f);
	assert_string_equal(watch_describe(f->w), "inotify (4 folders)");
	quiet(f->w);
	put(f->root, "late/x.txt", "x");
	CHANGED(f);
}

static void
test_root_removed(void **state)
{
	struct fixture *f = *state;

	rmtree(f->root);
	CHANGED(f);
	assert_false(watch_root_ok(f->w));
	assert_int_equal(watch_fd(f->w), -1);
	describes(f->w, "gone");
	watch_set_interval_ms(f->w, POLL_MS);
	quiet(f->w);

	/* When it comes back, inotify takes over again. */
	assert_int_equal(mkdir(f->root, 0755), 0);
	put(f->root, "x.txt", "back");
	CHANGED(f);
	assert_true(watch_root_ok(f->w));
	assert_int_not_equal(watch_fd(f->w), -1);
	assert_string_equal(watch_describe(f->w), "inotify (1 folder)");
	put(f->root, "y.txt", "again");
	CHANGED(f);
}

static void
test_root_moved(void **state)
{
	struct fixture *f = *state;

	move(f->base, "ws", f->base, "moved");
	CHANGED(f);
	assert_false(watch_root_ok(f->w));
	describes(f->w, "polling");
	watch_set_interval_ms(f->w, POLL_MS);
	put(f->base, "moved/a.txt", "elsewhere");
	quiet(f->w);
}

static void
test_polling(void **state)
{
	struct fixture *f = *state;
	int t;

	assert_string_equal(watch_describe(f->w),
	    "polling every 40 ms (CALOPS_WATCH_POLL is set)");
	t = watch_timeout_ms(f->w);
	assert_true(t >= 0 && t <= POLL_MS);
	assert_false(watch_read(f->w));
	quiet(f->w);

	/* A rewrite that keeps the size: only the times tell. */
	put(f->root, "a.txt", "abcdefghij");
	CHANGED(f);
	quiet(f->w);
	move(f->root, "a.txt", f->root, "b.txt");
	CHANGED(f);
	put(f->root, "d/e/new.txt", "new");
	CHANGED(f);
	put(f->root, "d/.new.txt.swp", "swap");
	quiet(f->w);
	gone(f->root, "d/e/f.txt");
	CHANGED(f);
	dir_at(f->root, "n");
	CHANGED(f);
	assert_true(watch_root_ok(f->w));
}

static void
test_polling_root(void **state)
{
	struct fixture *f = *state;

	rmtree(f->root);
	CHANGED(f);
	assert_false(watch_root_ok(f->w));
	quiet(f->w);
	assert_int_equal(mkdir(f->root, 0755), 0);
	CHANGED(f);
	assert_true(watch_root_ok(f->w));
	assert_int_equal(watch_fd(f->w), -1);	/* forced stays forced */
}

static void
test_folder_cap(void **state)
{
	struct fixture *f = *state;

	/* Over the cap from the start: polling. */
	watch_set_limits(2, 0);
	f->w = start(f->root);
	assert_int_equal(watch_fd(f->w), -1);
	assert_string_equal(watch_describe(f->w),
	    "polling every 40 ms (more than 2 folders)");
	put(f->root, "d/e/f.txt", "seen");
	CHANGED(f);
	watch_free(f->w);

	/* Over the cap later: a change, then polling. */
	watch_set_limits(4, 0);
	f->w = start(f->root);
	assert_string_equal(watch_describe(f->w), "inotify (3 folders)");
	dir_at(f->root, "n");
	CHANGED(f);
	assert_string_equal(watch_describe(f->w), "inotify (4 folders)");
	dir_at(f->root, "m");
	CHANGED(f);
	assert_int_equal(watch_fd(f->w), -1);
	assert_string_equal(watch_describe(f->w),
	    "polling every 2 s (more than 4 folders)");
	watch_set_interval_ms(f->w, POLL_MS);
	put(f->root, "m/x.txt", "x");
	CHANGED(f);
}

static void
test_entry_cap(void **state)
{
	struct fixture *f = *state;

	setenv("CALOPS_WATCH_POLL", "1", 1);
	watch_set_limits(0, 3);
	f->w = start(f->root);
	assert_string_equal(watch_describe(f->w),
	    "polling every 40 ms (CALOPS_WATCH_POLL is set; "
	    "first 3 entries only)");
	quiet(f->w);
}

static void
test_bad_root(void **state)
{
	struct fixture *f = *state;
	char err[256] = "", *path;

	path = at(f->base, "nothere");
	assert_null(watch_new(path, err, sizeof err));
	assert_non_null(strstr(err, "nothere"));
	assert_non_null(strstr(err, "No such file"));
	free(path);
	path = at(f->root, "a.txt");
	assert_null(watch_new(path, err, sizeof err));
	assert_non_null(strstr(err, "Not a directory"));
	free(path);
	watch_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_folder, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_rename, setup, teardown),
		cmocka_unit_test_setup_teardown(test_delete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_droppings, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_on_the_way,
		    setup_tree, teardown),
		cmocka_unit_test_setup_teardown(test_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_root_removed, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_root_moved, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_polling, setup_poll,
		    teardown),
		cmocka_unit_test_setup_teardown(test_polling_root, setup_poll,
		    teardown),
		cmocka_unit_test_setup_teardown(test_folder_cap, setup_tree,
		    teardown),
		cmocka_unit_test_setup_teardown(test_entry_cap, setup_tree,
		    teardown),
		cmocka_unit_test_setup_teardown(test_bad_root, setup_tree,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
