/*
 * jobfixture.c: the lab model's real-binary tests' fixture (jobfixture.h).
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
#include "jobfixture.h"
#include "lab/labmodel.h"
#include "loop/child.h"
#include "loop/loop.h"

static char *fix_dir;

const char *
jobfix_main_args(int argc, char **argv, char *dir)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CALOPS_BINARY\n", argv[0]);
		exit(2);
	}
	fix_dir = dir;
	return argv[1];
}

int
jobfix_group_setup(void **state)
{
	char *jobs;

	(void)state;
	assert_non_null(mkdtemp(fix_dir));
	setenv("XDG_STATE_HOME", fix_dir, 1);
	jobs = xasprintf("%s/jobs", fix_dir);
	setenv("CALOPS_JOBS_DIR", jobs, 1);
	free(jobs);
	return 0;
}

int
jobfix_group_teardown(void **state)
{
	(void)state;
	fileio_remove_tree(fix_dir);
	return 0;
}

void
jobfix_run(const char *calops, const char *id, const char *script)
{
	pid_t pid;
	int st;

	if ((pid = fork()) == 0) {
		if (freopen("/dev/null", "w", stdout) == NULL)
			_exit(127);
		execl(calops, calops, "run", "--id", id, "--", "sh", "-c",
		    script, (char *)NULL);
		_exit(127);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

char *
jobfix_slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY);

	assert_true(fd != -1 && fstat(fd, &st) == 0);
	buf = xmalloc((size_t)st.st_size + 1);
	assert_int_equal(fileio_read_full(fd, buf, (size_t)st.st_size), 0);
	close(fd);
	buf[st.st_size] = '\0';
	*len = (size_t)st.st_size;
	return buf;
}

void
jobfix_reap(struct loop *l, int sig, void *arg)
{
	(void)sig;
	(void)arg;
	child_reap(l);
}

void
jobfix_stop(struct loop *l, void *arg)
{
	(void)arg;
	loop_stop(l);
}

void
jobfix_until_ended(struct loop *l, void *arg)
{
	struct labmodel *lm = arg;
	struct ljob *j = labmodel_job(lm, 0);

	if (j != NULL && !labmodel_job_live(j) && !j->replaying) {
		loop_stop(l);
		return;
	}
	loop_add_timer(l, 50, jobfix_until_ended, lm);
}
