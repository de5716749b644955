/*
 * test_statedir.c: the state folder trusts nothing it finds (statedir.c).
 * Folders are made 0700 a level at a time; a symbolic link planted as the
 * state folder, as a folder below it or as a file is refused, and so is a
 * folder or a file writable by its group or others, or another user's
 * (the tests run as root, which may give a file away: without root that
 * part is skipped).  Each refusal names the path and the command that
 * fixes it, with the path's control characters made visible; a FIFO in a
 * file's place does not block.
 */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <setjmp.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "base/statedir.h"

struct fixture {
	char	*base;		/* a temp folder: XDG_STATE_HOME */
	char	*state;		/* base/calops */
};

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);

	f->base = xstrdup("/tmp/calops-test-statedir.XXXXXX");
	assert_non_null(mkdtemp(f->base));
	setenv("XDG_STATE_HOME", f->base, 1);
	f->state = xasprintf("%s/calops", f->base);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	fileio_remove_tree(f->base);
	free(f->base);
	free(f->state);
	free(f);
	return 0;
}

static mode_t
mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

/* statedir_open() must refuse rel; err holds each of the words. */
static void
refuse(const char *rel, const char *const *words)
{
	char err[1024] = "";
	size_t i;

	assert_int_equal(statedir_open(rel, "the test folder", true, NULL,
	    err, sizeof err), -1);
	assert_int_equal(errno, EACCES);
	for (i = 0; words[i] != NULL; i++)
		if (strstr(err, words[i]) == NULL)
			fail_msg("'%s' not in: %s", words[i], err);
}

static void
folders_are_made_private(void **state)
{
	struct fixture *f = *state;
	char err[512], *path = NULL, *want;
	int fd;

	fd = statedir_open("streams/lab3", "the test folder", false, NULL,
	    err, sizeof err);
	assert_int_equal(fd, -1);
	assert_int_equal(errno, ENOENT);
	fd = statedir_open("streams/lab3", "the test folder", true, &path,
	    err, sizeof err);
	if (fd == -1)
		fail_msg("%s", err);
	want = xasprintf("%s/streams/lab3", f->state);
	assert_string_equal(path, want);
	assert_int_equal(mode_of(f->state), 0700);
	assert_int_equal(mode_of(want), 0700);
	close(fd);
	free(path);
	free(want);
}

static void
planted_links_are_refused(void **state)
{
	struct fixture *f = *state;
	static const char *const link_words[] = { "is a symbolic link",
	    "rm '", NULL };
	char err[512], *elsewhere = xasprintf("%s/elsewhere", f->base);
	char *streams = xasprintf("%s/streams", f->state), *file;
	int fd;

	assert_int_equal(mkdir(elsewhere, 0700), 0);
	/* The state folder itself. */
	assert_int_equal(symlink(elsewhere, f->state), 0);
	refuse("", link_words);
	refuse("jobs", (const char *const[]){ "refusing the state folder",
	    NULL });
	assert_int_equal(unlink(f->state), 0);
	/* A folder two deep: the link is caught on the way. */
	assert_int_equal(mkdir(f->state, 0700), 0);
	assert_int_equal(symlink(elsewhere, streams), 0);
	refuse("streams/lab3", link_words);
	refuse("streams/lab3", (const char *const[]){ "refusing the folder '",
	    "/calops/streams': it is a symbolic link (to '", NULL });
	file = xasprintf("%s/lab3", elsewhere);
	assert_int_equal(access(file, F_OK), -1);
	free(file);
	/* A file. */
	fd = statedir_open("", "the test folder", false, NULL, err,
	    sizeof err);
	assert_true(fd >= 0);
	file = xasprintf("%s/target", elsewhere);
	assert_int_equal(symlinkat(file, fd, "actions.jsonl"), 0);
	assert_int_equal(statedir_open_file(fd, f->state, "actions.jsonl",
	    O_WRONLY | O_APPEND | O_CREAT, 0600, err, sizeof err), -1);
	assert_non_null(strstr(err, "is a symbolic link"));
	assert_int_equal(access(file, F_OK), -1);	/* nothing made there */
	assert_int_equal(statedir_check_file(fd, f->state, "actions.jsonl",
	    err, sizeof err), -1);
	assert_int_equal(statedir_check_file(fd, f->state, "none", err,
	    sizeof err), 1);
	close(fd);
	free(file);
	free(streams);
	free(elsewhere);
}

static void
writable_folders_and_files_are_refused(void **state)
{
	struct fixture *f = *state;
	char err[512], *jobs = xasprintf("%s/jobs", f->state), *want;
	int fd;

	fd = statedir_open("jobs", "the jobs folder", true, NULL, err,
	    sizeof err);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(jobs, 0777), 0);
	want = xasprintf("refusing the test folder '%s': it is writable by "
	    "its group and others (mode 0777); run: chmod go-w '%s'", jobs,
	    jobs);
	refuse("jobs", (const char *const[]){ want, NULL });
	free(want);
	assert_int_equal(chmod(jobs, 0770), 0);
	refuse("jobs", (const char *const[]){ "writable by its group "
	    "(mode 0770)", NULL });
	assert_int_equal(chmod(jobs, 0757), 0);
	refuse("jobs", (const char *const[]){ "writable by others "
	    "(mode 0757)", NULL });
	/* Readable by others is no threat. */
	assert_int_equal(chmod(jobs, 0755), 0);
	fd = statedir_open("jobs", "the jobs folder", false, NULL, err,
	    sizeof err);
	assert_true(fd >= 0);
	want = xasprintf("%s/fifo", jobs);
	assert_int_equal(mkfifo(want, 0600), 0);
	free(want);
	assert_int_equal(statedir_open_file(fd, jobs, "fifo", O_RDONLY, 0,
	    err, sizeof err), -1);
	assert_non_null(strstr(err, "not a regular file"));
	close(openat(fd, "open", O_WRONLY | O_CREAT, 0600));
	assert_int_equal(fchmodat(fd, "open", 0666, 0), 0);
	assert_int_equal(statedir_open_file(fd, jobs, "open", O_RDONLY, 0,
	    err, sizeof err), -1);
	assert_non_null(strstr(err, "chmod go-w '"));
	assert_int_equal(fchmodat(fd, "open", 0644, 0), 0);
	close(statedir_open_file(fd, jobs, "open", O_RDONLY, 0, err,
	    sizeof err));
	close(fd);
	free(jobs);
}

static void
another_users_are_refused(void **state)
{
	struct fixture *f = *state;
	char err[512], *jobs = xasprintf("%s/jobs", f->state), *job;
	int fd;

	if (geteuid() != 0)
		skip();
	fd = statedir_open("jobs", "the jobs folder", true, NULL, err,
	    sizeof err);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chown(jobs, 65534, (gid_t)-1), 0);
	refuse("jobs", (const char *const[]){ "it belongs to another user",
	    "uid 65534", "not to you (", "mv '", ".untrusted'", NULL });
	assert_int_equal(chown(jobs, 0, (gid_t)-1), 0);
	job = xasprintf("%s/x", jobs);
	assert_int_equal(mkdir(job, 0700), 0);
	assert_int_equal(chown(job, 65534, (gid_t)-1), 0);
	refuse("jobs/x", (const char *const[]){ "another user", NULL });
	assert_int_equal(chown(job, 0, (gid_t)-1), 0);
	fd = statedir_open("jobs/x", "the job folder", false, NULL, err,
	    sizeof err);
	assert_true(fd >= 0);
	close(openat(fd, "job.json", O_WRONLY | O_CREAT, 0600));
	assert_int_equal(fchownat(fd, "job.json", 65534, (gid_t)-1, 0), 0);
	assert_int_equal(statedir_check_file(fd, job, "job.json", err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "another user"));
	close(fd);
	free(job);
	free(jobs);
}

/* A jobs folder named by the operator: the folders above it are followed,
 * its own name is not; it is made when asked. */
static void
a_named_folder(void **state)
{
	struct fixture *f = *state;
	char err[512], *real = xasprintf("%s/real", f->base), *path = NULL;
	char *via = xasprintf("%s/via", f->base), *jobs, *want;
	int fd;

	assert_int_equal(mkdir(real, 0700), 0);
	assert_int_equal(symlink(real, via), 0);
	jobs = xasprintf("%s/a/jobs", via);
	fd = statedir_open_top(jobs, "the jobs folder", true, &path, err,
	    sizeof err);
	if (fd == -1)
		fail_msg("%s", err);
	close(fd);
	want = xasprintf("%s/a/jobs", real);
	assert_string_equal(path, want);
	free(path);
	path = xasprintf("%s/a/moved", real);
	assert_int_equal(rename(want, path), 0);
	free(path);
	assert_int_equal(symlink("moved", want), 0);
	assert_int_equal(statedir_open_top(jobs, "the jobs folder", false,
	    NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "refusing the jobs folder"));
	assert_non_null(strstr(err, "symbolic link (to 'moved')"));
	free(want);
	free(jobs);
	free(via);
	free(real);
}

/* A path holding escape sequences is shown, never sent to a terminal. */
static void
paths_are_made_visible(void **state)
{
	struct fixture *f = *state;
	char err[1024], *base = xasprintf("%s/\x1b]52;c;SGk=\a\x1b[2J",
	    f->base);
	char *dir = xasprintf("%s/calops", base);

	assert_int_equal(mkdir(base, 0700), 0);
	assert_int_equal(mkdir(dir, 0777), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	setenv("XDG_STATE_HOME", base, 1);
	assert_int_equal(statedir_open("", "the state folder", false, NULL,
	    err, sizeof err), -1);
	assert_null(strchr(err, '\x1b'));
	assert_null(strchr(err, '\a'));
	assert_non_null(strstr(err, "^[]52;c;SGk=^G^[[2J/calops"));
	free(dir);
	free(base);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(folders_are_made_private,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(planted_links_are_refused,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    writable_folders_and_files_are_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(another_users_are_refused,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(a_named_folder, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(paths_are_made_visible, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
