/*
 * jobfixture.h: what the lab model's tests with the real calops binary
 * share: a private state and jobs folder, durable jobs started as a
 * console starts them, and reading files back whole.
 *
 * Every helper fails the test (never returns an error) when the system
 * refuses.
 */
#ifndef JOBFIXTURE_H
#define JOBFIXTURE_H

#include "calops.h"

struct loop;

/* A test's main: argv[1] is the calops binary (returned; exit 2 with a
 * usage line when it is missing), dir the mkdtemp template the group
 * setup makes: XDG_STATE_HOME=dir and CALOPS_JOBS_DIR=dir/jobs.  The group
 * teardown removes it and everything in it. */
const char *jobfix_main_args(int argc, char **argv, char *dir);
int	 jobfix_group_setup(void **state);
int	 jobfix_group_teardown(void **state);
/* `calops run --id id -- sh -c script`, waited for (it returns once the
 * job is started; the job goes on). */
void	 jobfix_run(const char *calops, const char *id, const char *script);
/* A file's bytes, NUL-terminated; its length in *len. */
char	*jobfix_slurp(const char *path, size_t *len);
/* The loop's SIGCHLD: reap every child (child.h). */
void	 jobfix_reap(struct loop *l, int sig, void *arg);
/* A timer that stops the loop. */
void	 jobfix_stop(struct loop *l, void *arg);
/* A timer, every 50 ms, on the lab model arg: it stops the loop once the
 * model's first job has ended and its replay is done. */
void	 jobfix_until_ended(struct loop *l, void *arg);

#endif
