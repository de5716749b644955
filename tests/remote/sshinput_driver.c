/*
 * sshinput_driver.c: the side of tests/remote/sshinput_test.sh that writes
 * to commands' stdin over one SSH session (remote/ssh.c chan_write).
 *
 *	sshinput_driver LAB HOST N [SSH_CONFIG]
 *
 * Connects to HOST of the lab file LAB with calops' own SSH transport (on
 * the one poll loop, as the console does), then starts N commands at
 * once, `PROGRAM sum` (PROGRAM the host's calops:, which the test makes a
 * script printing the SHA-256 of its stdin for `sum`), and queues each a
 * different 256 KiB (CHILD_INPUT_MAX) with its end: N channels writing
 * together, so that libssh2 is left with packets half sent.  Each command
 * must print the digest of exactly what it was given and exit 0; prints
 * "ok N" or what went wrong, one line per command, and exits 1 then.
 * SSH_CONFIG is read as --ssh-config FILE is (the test's ProxyCommand).
 */
#include "calops.h"

#include <openssl/evp.h>
#include <signal.h>

#include "loop/child.h"
#include "loop/loop.h"
#include "remote/lab.h"
#include "remote/ssh.h"
#include "remote/transport.h"

#define DRV_MAX		16

struct drv;

struct cmd {
	struct drv		*d;
	int			 i;
	struct rstream		*rs;
	unsigned char		*in;
	char			 want[2 * EVP_MAX_MD_SIZE + 1];
	char			 got[256];
	char			 err[512];
	int			 status;
	bool			 done;
};

struct drv {
	struct loop		*loop;
	struct transport	*t;
	struct cmd		 c[DRV_MAX];
	int			 n, ended;
	bool			 started;
	char			 err[512];
};

static void
on_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct cmd *c = arg;

	(void)rs;
	(void)cut;
	snprintf(from_stderr ? c->err : c->got, sizeof c->got, "%.*s",
	    (int)(len > 200 ? 200 : len), line);
}

static void
on_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct cmd *c = arg;

	(void)rs;
	c->status = ex->err != NULL ? -1 : ex->code;
	if (ex->err != NULL)
		snprintf(c->err, sizeof c->err, "%s", ex->err);
	c->done = true;
	c->rs = NULL;
	if (++c->d->ended == c->d->n)
		loop_stop(c->d->loop);
}

static const struct rstream_cb cb = { on_line, on_done };

/* Command i's input, different from every other's, and its digest. */
static void
cmd_fill(struct cmd *c)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen, k;
	size_t j;

	c->in = xmalloc(CHILD_INPUT_MAX);
	for (j = 0; j < CHILD_INPUT_MAX; j++)
		c->in[j] = (unsigned char)((j * 31 + (j >> 9) +
		    (size_t)c->i * 7) & 0xff);
	if (EVP_Digest(c->in, CHILD_INPUT_MAX, md, &mdlen, EVP_sha256(),
	    NULL) != 1)
		fatal("sshinput_driver: no SHA-256");
	for (k = 0; k < mdlen; k++)
		snprintf(c->want + 2 * k, 3, "%02x", md[k]);
}

static void
start_all(struct drv *d)
{
	char *argv[] = { "sum", NULL };
	struct cmd *c;
	int i;

	for (i = 0; i < d->n; i++) {
		c = &d->c[i];
		c->rs = transport_exec_input(d->t, argv, &cb, c, c->err,
		    sizeof c->err);
		if (c->rs == NULL || transport_input(c->rs, c->in,
		    CHILD_INPUT_MAX, true, c->err, sizeof c->err) != 0) {
			c->status = -1;
			c->done = true;
			if (++d->ended == d->n)
				loop_stop(d->loop);
		}
	}
}

static void
changed(struct transport *t, void *arg)
{
	struct drv *d = arg;
	struct transport_status st;

	transport_status(t, &st);
	if (st.state == TRANSPORT_REFUSED) {
		snprintf(d->err, sizeof d->err, "%s", st.error);
		loop_stop(d->loop);
		return;
	}
	if (st.state != TRANSPORT_UP || d->started)
		return;
	d->started = true;
	start_all(d);
}

static void
before_sleep(struct loop *l, void *arg)
{
	(void)l;
	transport_before_sleep(((struct drv *)arg)->t);
}

/* Each command's verdict, one line; how many failed. */
static int
report(struct drv *d)
{
	struct cmd *c;
	int i, bad = 0;

	for (i = 0; i < d->n; i++) {
		c = &d->c[i];
		if (c->done && c->status == 0 && strncmp(c->got, c->want,
		    strlen(c->want)) == 0)
			continue;
		bad++;
		printf("command %d: %s, status %d, printed '%s' for '%s' "
		    "(%s)\n", i, c->done ? "ended" : "never ended",
		    c->status, c->got, c->want, c->err);
	}
	if (bad == 0)
		printf("ok %d\n", d->n);
	return bad;
}

int
main(int argc, char **argv)
{
	struct drv d;
	const struct lab_host *h;
	struct lab lab;
	char *end = NULL;
	int i, bad;

	memset(&d, 0, sizeof d);
	if (argc == 4 || argc == 5)
		d.n = (int)strtol(argv[3], &end, 10);
	if ((argc != 4 && argc != 5) || *end != '\0' || d.n < 1 ||
	    d.n > DRV_MAX) {
		fprintf(stderr, "usage: sshinput_driver LAB HOST N (1-%d) "
		    "[SSH_CONFIG]\n", DRV_MAX);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (lab_load(&lab, argv[1], d.err, sizeof d.err) != 0 ||
	    (h = lab_host(&lab, argv[2])) == NULL) {
		fprintf(stderr, "sshinput_driver: %s\n", d.err[0] != '\0' ?
		    d.err : "no such host");
		return 2;
	}
	for (i = 0; i < d.n; i++) {
		d.c[i].d = &d;
		d.c[i].i = i;
		cmd_fill(&d.c[i]);
	}
	d.loop = loop_new();
	d.t = ssh_transport_new(d.loop, h, lab.path, argc == 5 ? argv[4] :
	    NULL, d.err, sizeof d.err);
	if (d.t == NULL) {
		fprintf(stderr, "sshinput_driver: %s\n", d.err);
		return 2;
	}
	d.t->changed = changed;
	d.t->changed_arg = &d;
	loop_set_before_sleep(d.loop, before_sleep, &d);
	loop_run(d.loop);
	if (!d.started)
		printf("never up: %s\n", d.err);
	bad = d.started ? report(&d) : 1;
	transport_close(d.t);
	loop_free(d.loop);
	lab_release(&lab);
	for (i = 0; i < d.n; i++)
		free(d.c[i].in);
	return bad == 0 ? 0 : 1;
}
