/* child.c: child processes in the event loop (see child.h). */
#include "calops.h"

#include <sys/wait.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/fileio.h"
#include "loop/child.h"

extern char **environ;

struct stream {
	int		 fd;		/* -1 at end-of-file */
	struct buf	 line;
	bool		 cut;
};

/* What waits to go to a child's stdin (child_start_input()). */
struct input {
	int		 fd;		/* -1: none, or closed */
	struct buf	 data;
	size_t		 off;		/* written so far */
	bool		 eof;		/* close once written */
	bool		 watched;	/* in the loop for POLLOUT */
};

struct child {
	struct loop		*loop;
	pid_t			 pid;
	struct stream		 out, err;
	struct input		 in;
	bool			 exited, abandoned;
	int			 status;
	const struct child_ops	*ops;
	void			*arg;
	struct child		*next;
};

static struct child *children;

pid_t
child_pid(const struct child *c)
{
	return c->pid;
}

static void
unlink_child(struct child *c)
{
	struct child **pp;

	for (pp = &children; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			return;
		}
	}
}

static void
close_stream(struct child *c, struct stream *s)
{
	if (s->fd != -1) {
		loop_del_fd(c->loop, s->fd);
		close(s->fd);
		s->fd = -1;
	}
	buf_release(&s->line);
}

static void
close_input(struct child *c)
{
	if (c->in.fd != -1) {
		if (c->in.watched)
			loop_del_fd(c->loop, c->in.fd);
		close(c->in.fd);
		c->in.fd = -1;
	}
	c->in.watched = false;
	buf_release(&c->in.data);
	c->in.off = 0;
}

/* Complete: both ends read and the status known (what it was still to be
 * given on stdin is dropped: nobody reads it any more). */
static void
maybe_done(struct child *c)
{
	if (!c->exited || c->out.fd != -1 || c->err.fd != -1)
		return;
	unlink_child(c);
	close_input(c);
	if (!c->abandoned && c->ops->done != NULL)
		c->ops->done(c, c->status, c->arg);
	close_stream(c, &c->out);
	close_stream(c, &c->err);
	free(c);
}

static void
emit_line(struct child *c, struct stream *s)
{
	if (!c->abandoned && c->ops->line != NULL)
		c->ops->line(c, s->line.data != NULL ? s->line.data : "",
		    s->line.len, s == &c->err, s->cut, c->arg);
	buf_reset(&s->line);
	s->cut = false;
}

/* Split what arrived into lines; bytes past the cap are dropped. */
static void
take(struct child *c, struct stream *s, const char *p, size_t n)
{
	const char *nl;
	size_t k, room;

	while (n > 0) {
		nl = memchr(p, '\n', n);
		k = nl != NULL ? (size_t)(nl - p) : n;
		room = CHILD_LINE_MAX - s->line.len;
		if (k > room) {
			buf_add(&s->line, p, room);
			s->cut = true;
		} else
			buf_add(&s->line, p, k);
		if (nl == NULL)
			return;
		emit_line(c, s);
		p += k + 1;
		n -= k + 1;
	}
}

/* Read at most this much per wakeup, so that a child flooding its output
 * cannot keep the loop from its other fds and timers; poll() is
 * level-triggered and the rest is read in the next iteration. */
#define CHILD_READ_BURST (1u << 20)

static void
readable(struct loop *l, int fd, short revents, void *arg)
{
	struct child *c = arg;
	struct stream *s = fd == c->out.fd ? &c->out : &c->err;
	char chunk[65536];
	size_t total = 0;
	ssize_t n;

	(void)l;
	(void)revents;
	for (;;) {
		if (total >= CHILD_READ_BURST)
			return;
		n = read(fd, chunk, sizeof chunk);
		if (n > 0) {
			take(c, s, chunk, (size_t)n);
			total += (size_t)n;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		break;		/* end-of-file, or an error that ends it */
	}
	if (s->line.len > 0 || s->cut)
		emit_line(c, s);
	close_stream(c, s);
	maybe_done(c);
}

/* A pipe whose end mine (0 or 1) is the console's: non-blocking, as the
 * loop reads and writes it, while the child's end stays blocking. */
static int
make_pipe(int p[2], int mine, char *err, size_t errlen)
{
	if (pipe2(p, O_CLOEXEC) == -1) {
		errbuf_set(err, errlen, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	if (fileio_set_nonblock(p[mine], true) != 0) {
		errbuf_set(err, errlen, "cannot make a pipe non-blocking: %s",
		    strerror(errno));
		close(p[0]);
		close(p[1]);
		p[0] = p[1] = -1;
		return -1;
	}
	return 0;
}

static void
close_pipe(int p[2])
{
	if (p[0] != -1)
		close(p[0]);
	if (p[1] != -1)
		close(p[1]);
}

/* child_start(), with stdin a pipe (with_input) or /dev/null, or with
 * stdin and stdout both io (not -1), in envp (NULL: ours). */
static struct child *
start(struct loop *l, char *const argv[], char *const envp[],
    const struct child_ops *ops, void *arg, bool with_input, int io,
    char *err, size_t errlen)
{
	posix_spawn_file_actions_t fa;
	int out[2] = { -1, -1 }, errp[2] = { -1, -1 }, in[2] = { -1, -1 };
	int rc;
	struct child *c;
	pid_t pid;

	if ((io == -1 && make_pipe(out, 0, err, errlen) != 0) ||
	    make_pipe(errp, 0, err, errlen) != 0 ||
	    (with_input && make_pipe(in, 1, err, errlen) != 0)) {
		close_pipe(out);
		close_pipe(errp);
		return NULL;
	}
	posix_spawn_file_actions_init(&fa);
	if (with_input)
		posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	else if (io != -1)
		posix_spawn_file_actions_adddup2(&fa, io, 0);
	else
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY,
		    0);
	posix_spawn_file_actions_adddup2(&fa, io != -1 ? io : out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, envp != NULL ?
	    envp : environ);
	posix_spawn_file_actions_destroy(&fa);
	if (out[1] != -1)
		close(out[1]);
	close(errp[1]);
	if (in[0] != -1)
		close(in[0]);
	if (rc != 0) {
		errbuf_set(err, errlen, "cannot run '%s': %s", argv[0],
		    strerror(rc));
		if (out[0] != -1)
			close(out[0]);
		close(errp[0]);
		if (in[1] != -1)
			close(in[1]);
		return NULL;
	}
	c = xcalloc(1, sizeof *c);
	c->loop = l;
	c->pid = pid;
	c->ops = ops;
	c->arg = arg;
	c->out.fd = out[0];
	c->err.fd = errp[0];
	c->in.fd = in[1];
	if (in[1] != -1)
		buf_init(&c->in.data, CHILD_INPUT_MAX);
	buf_init(&c->out.line, CHILD_LINE_MAX);
	buf_init(&c->err.line, CHILD_LINE_MAX);
	if (out[0] != -1)
		loop_add_fd(l, out[0], POLLIN, readable, c);
	loop_add_fd(l, errp[0], POLLIN, readable, c);
	c->next = children;
	children = c;
	return c;
}

struct child *
child_start(struct loop *l, char *const argv[], const struct child_ops *ops,
    void *arg, char *err, size_t errlen)
{
	return start(l, argv, NULL, ops, arg, false, -1, err, errlen);
}

struct child *
child_start_input(struct loop *l, char *const argv[],
    const struct child_ops *ops, void *arg, char *err, size_t errlen)
{
	return start(l, argv, NULL, ops, arg, true, -1, err, errlen);
}

struct child *
child_start_env(struct loop *l, char *const argv[], char *const envp[],
    const struct child_ops *ops, void *arg, char *err, size_t errlen)
{
	return start(l, argv, envp, ops, arg, true, -1, err, errlen);
}

struct child *
child_start_io(struct loop *l, char *const argv[], int io,
    const struct child_ops *ops, void *arg, char *err, size_t errlen)
{
	return start(l, argv, NULL, ops, arg, false, io, err, errlen);
}

static void input_flush(struct child *c);

static void
writable(struct loop *l, int fd, short revents, void *arg)
{
	(void)l;
	(void)fd;
	(void)revents;
	input_flush(arg);
}

/* Write what waits until the pipe is full (then the loop says when it has
 * room) or it is all gone (then stdin is closed, if asked).  A child that
 * closed its stdin (EPIPE) gets nothing more. */
static void
input_flush(struct child *c)
{
	struct input *in = &c->in;
	ssize_t n;

	while (in->fd != -1 && in->off < in->data.len) {
		n = write(in->fd, in->data.data + in->off,
		    in->data.len - in->off);
		if (n > 0) {
			in->off += (size_t)n;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN) {
			if (!in->watched)
				loop_add_fd(c->loop, in->fd, POLLOUT, writable,
				    c);
			in->watched = true;
			return;
		}
		close_input(c);
		return;
	}
	if (in->fd == -1)
		return;
	buf_reset(&in->data);
	in->off = 0;
	if (in->watched)
		loop_del_fd(c->loop, in->fd);
	in->watched = false;
	if (in->eof)
		close_input(c);
}

int
child_input(struct child *c, const void *data, size_t len, bool eof,
    char *err, size_t errlen)
{
	struct input *in = &c->in;

	if (in->fd == -1 || in->eof) {
		errbuf_set(err, errlen, "the command's input is closed");
		return -1;
	}
	if (len > CHILD_INPUT_MAX - in->data.len) {
		errbuf_set(err, errlen, "more than %u KiB waiting for the "
		    "command to read", CHILD_INPUT_MAX >> 10);
		return -1;
	}
	buf_add(&in->data, data, len);
	in->eof = eof;
	input_flush(c);
	return 0;
}

void
child_signal(struct child *c, int sig)
{
	if (!c->exited)
		kill(c->pid, sig);
}

void
child_abandon(struct child *c)
{
	c->abandoned = true;
	child_signal(c, SIGTERM);
}

void
child_reap(struct loop *l)
{
	struct child *c, *next;
	int status;
	pid_t pid;

	(void)l;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (c = children; c != NULL; c = next) {
			next = c->next;
			if (c->pid != pid)
				continue;
			c->exited = true;
			c->status = status;
			maybe_done(c);
			break;
		}
	}
}
