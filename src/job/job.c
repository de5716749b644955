/*
 * job.c: starting a durable job and its supervisor (see job.h).
 *
 * The starter makes a hidden folder under the jobs folder and forks twice;
 * the grandchild, in a session of its own with no terminal, becomes the
 * supervisor.  It takes the folder's lock, writes the record, renames the
 * folder to the job's id (never over an existing one), starts the tool and
 * tells the starter through a pipe: "ok ID", "fail ID<TAB>why" or "error
 * why".  Then it runs one poll loop until the tool has exited and its output
 * is drained, and records the end.
 */
#include "calops.h"

#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/text.h"
#include "job/job.h"
#include "job/jobevent.h"
#include "job/jobsink.h"
#include "job/jobstore.h"
#include "loop/loop.h"

#define DRAIN_MS	1000	/* output still read after the tool exits */
#define RETRY_MS	250	/* a stalled sink tries again this often */
/* disk kept for the last job.json, besides twice the first one */
#define RECORD_SPARE	(64u << 10)
#define READS_PER_WAKE	16	/* chunks read from one pipe per wake-up */
#define READ_SIZE	(64u << 10)
#define STATUS_FD	3	/* the pipe back to the starter */
#define HOLD_FD		4	/* job_spec's hold_fd, kept for life */

struct sup;

struct input {
	struct sup		*s;
	int			 fd;		/* -1 at end of file */
	bool			 from_stderr;
	struct job_split	 split;
};

struct sup {
	const struct job_spec	*spec;
	struct loop		*loop;
	int			 dirfd, lockfd;
	struct job_sink		 sink;
	struct job_record	 rec;
	struct input		 in[2];
	pid_t			 tool;
	bool			 exited, kill_requested;
	bool			 gate_let_go;	/* HOLD_FD closed */
	int			 status;
	long			 drain_timer, retry_timer;
};

static void	finish(struct sup *);

/* Write a status line to the starter. */
static void PRINTFLIKE(1, 2)
tell(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	(void)!write(STATUS_FD, s, strlen(s));
	free(s);
	close(STATUS_FD);
}

/*
 * Leave the starter's world: the status pipe on fd 3 and nothing else
 * inherited, stdin and stdout on /dev/null, stderr to supervisor.log,
 * hang-ups, broken pipes and file-size limits ignored, no signal blocked.
 */
static void
detach(const char *tmp, int sfd, int hold)
{
	sigset_t none;
	char *log;
	int fd;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* Past a file-size limit a write fails (EFBIG, a stall) instead. */
	signal(SIGXFSZ, SIG_IGN);
	if (hold == STATUS_FD) {
		/* Out of the status pipe's way first. */
		hold = fcntl(hold, F_DUPFD_CLOEXEC, HOLD_FD + 1);
		close(STATUS_FD);
	}
	if (sfd != STATUS_FD) {
		dup2(sfd, STATUS_FD);
		close(sfd);
	}
	fcntl(STATUS_FD, F_SETFD, FD_CLOEXEC);
	/* The fd the starter asked us to hold (its lock) goes to HOLD_FD,
	 * close-on-exec: the tool never holds it. */
	if (hold >= 0 && hold != HOLD_FD) {
		dup2(hold, HOLD_FD);
		close(hold);
	}
	if (hold >= 0)
		fcntl(HOLD_FD, F_SETFD, FD_CLOEXEC);
	close_range(hold >= 0 ? HOLD_FD + 1 : STATUS_FD + 1, ~0U, 0);
	if ((fd = open("/dev/null", O_RDWR)) != -1) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);	/* unless supervisor.log opens */
		if (fd > 2)
			close(fd);
	}
	log = xasprintf("%s/supervisor.log", tmp);
	if ((fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) != -1) {
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	free(log);
}

static void
record_init(struct sup *s)
{
	struct job_record *r = &s->rec;
	size_t n;
	char *cwd;

	for (n = 0; s->spec->argv[n] != NULL; n++)
		;
	r->argv = xcalloc(n + 1, sizeof *r->argv);
	for (n = 0; s->spec->argv[n] != NULL; n++)
		r->argv[n] = xstrdup(s->spec->argv[n]);
	cwd = getcwd(NULL, 0);
	r->cwd = xstrdup(cwd != NULL ? cwd : "(unknown)");
	free(cwd);
	r->actor = s->spec->actor != NULL ? xstrdup(s->spec->actor) : NULL;
	r->started = jobevent_now();
	r->supervisor_pid = (long)getpid();
	(void)jobstore_pid_start(r->supervisor_pid, r->supervisor_start,
	    sizeof r->supervisor_start);
	r->state = JOB_RUNNING;
	r->exit_code = -1;
}

/*
 * Give the hidden folder its name: the id asked for, or a generated one
 * (another on the rare clash).  The record is written first, so a folder
 * with a job's name always has one.
 */
static int
place(struct sup *s, const char *tmp, char *err, size_t errlen)
{
	char id[JOB_ID_MAX + 1] = "", *dst;
	int tries, rc;

	for (tries = 0; tries < 8; tries++) {
		if (s->spec->id != NULL)
			snprintf(id, sizeof id, "%s", s->spec->id);
		else
			jobstore_id_generate(id, sizeof id);
		free(s->rec.id);
		s->rec.id = xstrdup(id);
		if (jobstore_record_write(&s->rec, s->dirfd, err, errlen) != 0)
			return -1;
		dst = xasprintf("%s/%s", s->spec->root, id);
		rc = renameat2(AT_FDCWD, tmp, AT_FDCWD, dst, RENAME_NOREPLACE);
		if (rc == -1 && errno == EINVAL)
			rc = rename(tmp, dst);	/* no RENAME_NOREPLACE here */
		free(dst);
		if (rc == 0)
			return 0;
		if ((errno != EEXIST && errno != ENOTEMPTY) ||
		    s->spec->id != NULL)
			break;
	}
	if (errno == EEXIST || errno == ENOTEMPTY)
		errbuf_set(err, errlen, "job '%s' already exists", id);
	else
		errbuf_set(err, errlen, "cannot make job '%s': %s", id,
		    strerror(errno));
	return -1;
}

/* The hello event: who we are and what runs; 0 or -1 with errno. */
static int
hello(struct sup *s)
{
	json_t *argv = json_array();
	char host[256];
	size_t i;

	if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "unknown");
	host[sizeof host - 1] = '\0';
	for (i = 0; s->rec.argv[i] != NULL; i++)
		json_array_append_new(argv, text_json(s->rec.argv[i]));
	return jobsink_event(&s->sink, "hello",
	    json_pack("{s:s,s:s,s:o,s:s,s:o}", "tool", "calops", "version",
		s->spec->version != NULL ? s->spec->version : "0", "host",
		text_json(host), "job", s->rec.id, "argv", argv));
}

/* Disk for the last record, twice the size of the first and some: it is
 * written on a full disk too (jobstore_record_reserve()). */
static int
keep_room(struct sup *s, char *err, size_t errlen)
{
	json_t *o = jobstore_record_json(&s->rec);
	char *text = json_dumps(o, JSON_INDENT(2));
	size_t bytes = RECORD_SPARE + 2 * (text != NULL ? strlen(text) : 0);

	free(text);
	json_decref(o);
	return jobstore_record_reserve(s->dirfd, bytes, err, errlen);
}

/* Lock, record, room and name, in the hidden folder tmp. */
static int
setup(struct sup *s, const char *tmp, char *err, size_t errlen)
{
	/* The folder is ours, just made: a link there is somebody else's. */
	if ((s->dirfd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || (s->lockfd = openat(s->dirfd, "lock", O_RDWR |
	    O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) == -1 ||
	    flock(s->lockfd, LOCK_EX) == -1) {
		errbuf_set(err, errlen, "cannot set up '%s': %s", tmp,
		    strerror(errno));
		return -1;
	}
	record_init(s);
	/* Room for the last words before the job has a name: a job that
	 * could not record its end is not started. */
	if (jobsink_open(&s->sink, s->dirfd, "events.jsonl", err,
	    errlen) != 0 || keep_room(s, err, errlen) != 0)
		return -1;
	return place(s, tmp, err, errlen);
}

/* In the tool's child: its own process group, pipes on 1 and 2, default
 * signals, then exec; errno goes back on ep when exec fails. */
static void NORETURN
exec_tool(struct sup *s, int out, int errp, int ep)
{
	static const int sigs[] = { SIGHUP, SIGPIPE, SIGTERM, SIGINT, SIGCHLD,
	    SIGXFSZ };
	sigset_t none;
	size_t i;
	int e;

	setpgid(0, 0);
	for (i = 0; i < nitems(sigs); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(out, 1) != -1 && dup2(errp, 2) != -1)
		execvp(s->rec.argv[0], s->rec.argv);
	e = errno;
	(void)!write(ep, &e, sizeof e);
	_exit(127);
}

/* Start the tool; -1 with err when it could not be run. */
static int
spawn(struct sup *s, char *err, size_t errlen)
{
	int out[2] = { -1, -1 }, errp[2] = { -1, -1 }, ep[2], e = 0, i;
	sigset_t all, old;
	pid_t pid;

	/* Our ends non-blocking (the loop drains them until EAGAIN), the
	 * tool's blocking, as a tool expects of its stdout. */
	if (pipe2(out, O_CLOEXEC) == -1 || pipe2(errp, O_CLOEXEC) == -1 ||
	    fileio_set_nonblock(out[0], true) != 0 ||
	    fileio_set_nonblock(errp[0], true) != 0 ||
	    pipe2(ep, O_CLOEXEC) == -1) {
		errbuf_set(err, errlen, "cannot make a pipe: %s", strerror(errno));
		for (i = 0; i < 2; i++) {
			if (out[i] != -1)
				close(out[i]);
			if (errp[i] != -1)
				close(errp[i]);
		}
		return -1;
	}
	setenv("CALOPS_JOB", s->rec.id, 1);
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	if ((pid = fork()) == 0)
		exec_tool(s, out[1], errp[1], ep[1]);
	if (pid == -1)
		e = errno;
	else
		setpgid(pid, pid);	/* so that kill(-pid) works at once */
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(out[1]);
	close(errp[1]);
	close(ep[1]);
	while (pid != -1 && read(ep[0], &e, sizeof e) == -1 && errno == EINTR)
		;
	close(ep[0]);
	if (pid != -1 && e != 0)
		waitpid(pid, NULL, 0);
	if (e != 0) {
		errbuf_set(err, errlen, "cannot run '%s': %s", s->rec.argv[0],
		    strerror(e));
		close(out[0]);
		close(errp[0]);
		return -1;
	}
	s->tool = pid;
	s->in[0].fd = out[0];
	s->in[1].fd = errp[0];
	return 0;
}

/* The end event and the final record. */
static void
record_end(struct sup *s, int status)
{
	struct job_record *r = &s->rec;
	char err[256];
	json_t *f;

	/* The gate's lock (gatelock.h) goes before the end is said: whoever
	 * reads the job as ended may start the gate's next job at once. */
	if (s->spec->hold_fd >= 0 && !s->gate_let_go) {
		close(HOLD_FD);
		s->gate_let_go = true;
	}
	r->ended = jobevent_now();
	if (WIFSIGNALED(status)) {
		r->state = JOB_KILLED;
		r->signal = WTERMSIG(status);
	} else {
		r->exit_code = WEXITSTATUS(status);
		r->state = s->kill_requested ? JOB_KILLED : r->exit_code == 0 ?
		    JOB_DONE : JOB_FAILED;
	}
	f = json_pack("{s:s}", "state", jobstore_state_name(r->state));
	if (r->signal > 0)
		json_object_set_new(f, "signal", json_integer(r->signal));
	else
		json_object_set_new(f, "exit_code", json_integer(r->exit_code));
	if (jobsink_event(&s->sink, "end", f) != 0)
		fprintf(stderr, "calops: cannot append the end event: %s\n",
		    strerror(errno));
	r->lost = s->sink.lost;
	if (jobstore_record_write(r, s->dirfd, err, sizeof err) != 0)
		fprintf(stderr, "calops: %s\n", err);
}

/* The sink could not write: it tries again until it can (job.h). */
static void
retry(struct loop *l, void *arg)
{
	struct sup *s = arg;

	s->retry_timer = 0;
	if (jobsink_flush(&s->sink) != 0)
		s->retry_timer = loop_add_timer(l, RETRY_MS, retry, s);
}

static void
on_line(const char *line, size_t len, bool cut, void *arg)
{
	struct input *in = arg;
	struct sup *s = in->s;

	if (jobsink_line(&s->sink, line, len, cut, in->from_stderr) !=
	    0 && s->retry_timer == 0)
		s->retry_timer = loop_add_timer(s->loop, RETRY_MS, retry, s);
}

static void
close_input(struct sup *s, struct input *in)
{
	if (in->fd == -1)
		return;
	jobevent_split_end(&in->split, on_line, in);
	loop_del_fd(s->loop, in->fd);
	close(in->fd);
	in->fd = -1;
}

/* Read what is there, a bounded amount so that one busy pipe cannot starve
 * the loop; true at end of file. */
static bool
drain(struct input *in)
{
	char chunk[READ_SIZE];
	ssize_t n;
	int i;

	for (i = 0; i < READS_PER_WAKE; i++) {
		n = read(in->fd, chunk, sizeof chunk);
		if (n > 0) {
			jobevent_split_feed(
			    &in->split, chunk, (size_t)n, on_line, in);
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		return !(n == -1 && errno == EAGAIN);
	}
	return false;
}

static void
readable(struct loop *l, int fd, short revents, void *arg)
{
	struct input *in = arg;

	(void)l;
	(void)fd;
	(void)revents;
	if (drain(in)) {
		close_input(in->s, in);
		finish(in->s);
	}
}

/* The tool has exited but something it left behind holds its output:
 * take what is there and stop waiting. */
static void
drain_timeout(struct loop *l, void *arg)
{
	struct sup *s = arg;
	int i;

	(void)l;
	s->drain_timer = 0;
	for (i = 0; i < 2; i++) {
		if (s->in[i].fd != -1)
			(void)drain(&s->in[i]);
		close_input(s, &s->in[i]);
	}
	finish(s);
}

static void
on_chld(struct loop *l, int sig, void *arg)
{
	struct sup *s = arg;
	int status;

	(void)sig;
	if (s->exited || waitpid(s->tool, &status, WNOHANG) != s->tool)
		return;
	s->exited = true;
	s->status = status;
	if (s->in[0].fd != -1 || s->in[1].fd != -1)
		s->drain_timer = loop_add_timer(l, DRAIN_MS, drain_timeout, s);
	finish(s);
}

/* `calops kill` (or a shutdown) asks us to stop: pass it on to the tool's
 * process group and remember that the job was killed. */
static void
on_term(struct loop *l, int sig, void *arg)
{
	struct sup *s = arg;

	(void)l;
	(void)sig;
	if (s->exited)
		return;
	s->kill_requested = true;
	if (s->tool > 0)
		killpg(s->tool, SIGTERM);
}

/* Done once the tool has exited and its output is read. */
static void
finish(struct sup *s)
{
	if (!s->exited || s->in[0].fd != -1 || s->in[1].fd != -1)
		return;
	if (s->drain_timer != 0)
		loop_del_timer(s->loop, s->drain_timer);
	if (s->retry_timer != 0)
		loop_del_timer(s->loop, s->retry_timer);
	s->drain_timer = s->retry_timer = 0;
	record_end(s, s->status);
	loop_stop(s->loop);
}

/* The tool could not be started: recorded as failed with exit code 127. */
static void
record_failed_start(struct sup *s, const char *why)
{
	jobsink_event(&s->sink, "log", json_pack("{s:s,s:o}", "level",
	    "error", "msg", text_json(why)));
	record_end(s, 127 << 8);
}

static void
run_loop(struct sup *s)
{
	int i;

	for (i = 0; i < 2; i++)
		loop_add_fd(s->loop, s->in[i].fd, POLLIN, readable, &s->in[i]);
	loop_run(s->loop);
}

static void
sup_release(struct sup *s)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (s->in[i].fd != -1)
			close(s->in[i].fd);
		jobevent_split_release(&s->in[i].split);
	}
	jobsink_close(&s->sink);
	jobstore_record_release(&s->rec);
	loop_free(s->loop);
	if (s->dirfd != -1)
		close(s->dirfd);
	if (s->lockfd != -1)
		close(s->lockfd);	/* last: the record is final */
}

/* Remove the hidden folder of a job that was never named. */
static void
remove_tmp(const char *tmp)
{
	static const char *const files[] = { "lock", "events.jsonl",
	    "job.json", "job.json.last", "supervisor.log" };
	char *path;
	size_t i;

	for (i = 0; i < nitems(files); i++) {
		path = xasprintf("%s/%s", tmp, files[i]);
		unlink(path);
		free(path);
	}
	rmdir(tmp);
}

/* The supervisor's life; returns its exit status. */
static int
supervise(const struct job_spec *spec, const char *tmp, int sfd)
{
	struct sup s;
	char err[512];
	int rc = 0;

	memset(&s, 0, sizeof s);
	s.spec = spec;
	s.dirfd = s.lockfd = s.in[0].fd = s.in[1].fd = -1;
	s.in[0].s = s.in[1].s = &s;
	s.in[1].from_stderr = true;
	detach(tmp, sfd, spec->hold_fd);
	s.loop = loop_new();
	if (loop_watch_signal(s.loop, SIGCHLD, on_chld, &s) != 0 ||
	    loop_watch_signal(s.loop, SIGTERM, on_term, &s) != 0 ||
	    loop_watch_signal(s.loop, SIGINT, on_term, &s) != 0)
		fatal("cannot watch signals: %s", strerror(errno));
	if (setup(&s, tmp, err, sizeof err) != 0) {
		tell("error %s\n", err);
		remove_tmp(tmp);
		rc = 1;
	} else if (hello(&s) != 0) {
		/* Named, so recorded: failed, with the reason. */
		snprintf(err, sizeof err, "cannot write the hello event: %s",
		    strerror(errno));
		record_failed_start(&s, err);
		tell("fail %s\t%s\n", s.rec.id, err);
		rc = 1;
	} else if (spawn(&s, err, sizeof err) != 0) {
		record_failed_start(&s, err);
		tell("fail %s\t%s\n", s.rec.id, err);
		rc = 1;
	} else {
		s.rec.pid = (long)s.tool;
		(void)jobstore_pid_start(s.rec.pid, s.rec.pid_start,
		    sizeof s.rec.pid_start);
		if (jobstore_record_write(&s.rec, s.dirfd, err, sizeof err) !=
		    0)
			fprintf(stderr, "calops: %s\n", err);
		tell("ok %s\n", s.rec.id);
		run_loop(&s);
	}
	sup_release(&s);
	return rc;
}

/* Read the supervisor's status line; what the starter returns. */
static int
await(int fd, char *idbuf, size_t idlen, char *err, size_t errlen)
{
	char msg[1024], *tab, *nl;
	size_t len = 0;
	ssize_t n;

	while (len < sizeof msg - 1 &&
	    (n = read(fd, msg + len, sizeof msg - 1 - len)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			break;
		len += (size_t)n;
	}
	msg[len] = '\0';
	if ((nl = strchr(msg, '\n')) != NULL)
		*nl = '\0';
	if (strncmp(msg, "ok ", 3) == 0) {
		snprintf(idbuf, idlen, "%s", msg + 3);
		return 0;
	}
	if (strncmp(msg, "fail ", 5) == 0 && (tab = strchr(msg, '\t')) != NULL) {
		*tab = '\0';
		snprintf(idbuf, idlen, "%s", msg + 5);
		errbuf_set(err, errlen, "%s", tab + 1);
		return 1;
	}
	if (strncmp(msg, "error ", 6) == 0)
		errbuf_set(err, errlen, "%s", msg + 6);
	else
		errbuf_set(err, errlen, "the job's supervisor did not start");
	return -1;
}

/* The starter's half of the double fork; returns once told. */
int
job_start(const struct job_spec *spec, char *idbuf, size_t idlen, char *err,
    size_t errlen)
{
	char *tmp, *dst;
	unsigned int r = 0;
	int sp[2], rc, status;
	struct stat st;
	pid_t pid;

	if (spec->id != NULL && !jobstore_id_valid(spec->id)) {
		errbuf_set(err, errlen, "invalid job id '%s' (letters, digits, "
		    "'.', '_', '-', at most %d, no leading '.')", spec->id,
		    JOB_ID_MAX);
		return -1;
	}
	if (spec->id != NULL) {
		/* A link by that name counts: it is not ours to follow. */
		dst = xasprintf("%s/%s", spec->root, spec->id);
		rc = fstatat(AT_FDCWD, dst, &st, AT_SYMLINK_NOFOLLOW);
		free(dst);
		if (rc == 0) {
			errbuf_set(err, errlen, "job '%s' already exists",
			    spec->id);
			return -1;
		}
	}
	(void)!getrandom(&r, sizeof r, GRND_NONBLOCK);
	tmp = xasprintf("%s/.new-%ld-%08x", spec->root, (long)getpid(), r);
	if (mkdir(tmp, 0700) == -1 || pipe2(sp, O_CLOEXEC) == -1) {
		errbuf_set(err, errlen, "cannot make '%s': %s", tmp,
		    strerror(errno));
		rmdir(tmp);
		free(tmp);
		return -1;
	}
	fflush(NULL);
	if ((pid = fork()) == 0) {
		close(sp[0]);
		if (setsid() == -1 || (pid = fork()) == -1)
			_exit(1);
		if (pid != 0)
			_exit(0);
		exit(supervise(spec, tmp, sp[1]));
	}
	close(sp[1]);
	if (pid != -1)
		while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
			;
	rc = pid == -1 ? -1 : await(sp[0], idbuf, idlen, err, errlen);
	if (pid == -1)
		errbuf_set(err, errlen, "cannot fork: %s", strerror(errno));
	close(sp[0]);
	if (rc == -1)
		remove_tmp(tmp);
	free(tmp);
	return rc;
}
