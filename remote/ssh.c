/*
 * ssh.c: the SSH transport (transport.h; protocol.md §4 and §6), on
 * libssh2 1.10, non-blocking from the TCP connect on and driven by the one
 * poll loop.
 *
 * The settings (sshhost.h) are read when the transport is made; when the
 * config makes the name canonical (CanonicalizeHostname), the names it
 * tries are looked up by a thread, as the address is below, and the
 * settings read again with each answer (PH_CONFIG meanwhile): the loop
 * never waits for a resolver.
 *
 * One session per host.  An attempt goes: resolve the address (a thread:
 * getaddrinfo blocks), a non-blocking connect to each address in turn, the
 * SSH handshake with the host key types known_hosts holds for the host
 * asked for first, the host key judged by our own reader (knownhosts.h)
 * before any authentication, then public key authentication (ssh-agent's
 * keys, then each identity file, asking the console for a passphrase), one
 * idle session channel (below), and `calops version --json` on the host
 * (protocol.md §6): the host is up.  Every libssh2 call that says EAGAIN
 * is made again, with the same arguments, when the socket is ready in the
 * directions libssh2_session_block_directions() gives.
 *
 * Each command is one exec channel, its command line the program and its
 * arguments single-quoted for the remote shell (ssh_quote_argv).  Channels
 * are opened one after the other (libssh2 keeps one channel-open state per
 * session) and run side by side, at most CHANNELS_MAX at once: sshd allows
 * ten a connection (MaxSessions) and one is the idle channel.  A command
 * asked for before the host is up waits in a queue, across reconnects; an
 * open channel that the connection loses ends with an error, and its owner
 * (the lab model) follows it again from where its mirror ends once the
 * host is up.
 *
 * Liveness.  libssh2 reads the socket only when a channel is read, so the
 * idle channel -- a session channel with nothing run on it -- is read
 * whenever the socket is readable, and keepalive replies are taken in with
 * no command running.  The time of the last byte received (the recv
 * callback) makes the state: stale after 2 x keepalive, lost after 3 x
 * keepalive; then reconnecting with jittered exponential backoff, 1 s to
 * 60 s.  Refused (a changed, revoked or unknown host key, failed
 * authentication, calops missing or speaking another protocol on the host)
 * is final until the operator acts.
 *
 * The way there.  A host behind a jump host (ProxyJump) or a command
 * (ProxyCommand) speaks SSH over one end of a socketpair instead of a TCP
 * socket.  A jump host is a struct ssh of its own with no command run on
 * it, shared by every host (or jump) behind it: each of them has a tunnel
 * (sshtunnel.h), a direct-tcpip channel of the jump's session pumped to and
 * from the socketpair's other end by the jump's rounds.  A jump that
 * fails ends its tunnels, so the hosts behind it see their socket close,
 * and say why via the jump; a host's new attempt starts its jump's at
 * once.  A ProxyCommand is a child (child_start_io) whose stdin and
 * stdout are the other end.
 *
 * Data read into libssh2 for one channel while another was being read
 * makes no socket event: every round reads the channels again until none
 * gives anything, and pending() asks libssh2 whether a channel has data
 * waiting (redis's beforeSleep), so that the loop does not sleep on it.
 */
#include "calops.h"

#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <linux/sockios.h>

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libssh2.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "base/buf.h"
#include "base/docfile.h"
#include "base/fileio.h"
#include "base/text.h"
#include "loop/child.h"
#include "proto/hostcmd.h"
#include "remote/knownhosts.h"
#include "remote/knownhosts_add.h"
#include "remote/lab.h"
#include "remote/ssh.h"
#include "remote/sshconfig_kw.h"
#include "remote/sshhost.h"
#include "remote/sshkey.h"
#include "remote/sshtunnel.h"
#include "remote/transport.h"

#define ATTEMPT_MS	15000	/* from the TCP connect to up */
#define BACKOFF_MIN_MS	1000
#define BACKOFF_MAX_MS	60000
#define CHANNELS_MAX	9	/* sshd's MaxSessions, 10, less the idle one */
#define READ_BURST	(1u << 20)	/* bytes handed out per round */
#define SSH_HEAP_KEEP	(8 << 20)	/* free heap kept: 4 channel windows */
#define SSH_HEAP_MMAP	(4 << 20)	/* blocks this big or more: mmap */
#define BATCH_MS	40	/* a trickling host is read this often */
#define BATCH_BYTES	(64u << 10)	/* less in BATCH_MS is a trickle */
#define GRID_IDLE_MAX	3	/* ticks with nothing before a trickle ends */
#define CMDLINE_MAX	(256u << 10)
#define JUMPS_MAX	TRANSPORT_JUMPS_MAX	/* jump hosts on one way */

enum phase {
	PH_IDLE,		/* no connection: waiting, or refused */
	PH_CONFIG,		/* the settings wait for a canonical name */
	PH_RESOLVE,
	PH_TCP,
	PH_HANDSHAKE,
	PH_AUTHLIST,
	PH_AGENT,
	PH_KEYFILE,
	PH_ASK,			/* waiting for the operator's passphrase */
	PH_IDLECHAN,
	PH_VERSION,
	PH_UP,
};

enum chan_state {
	CH_QUEUED,
	CH_OPENING,
	CH_EXEC,
	CH_OPEN,
	CH_CLOSING,
	CH_WAITCLOSED,		/* for the exit status, sent before CLOSE */
	CH_FREEING,
};

struct ssh;

struct ssh_chan {
	struct rstream		 base;	/* first: transport_rstream_cancel */
	struct ssh		*s;
	struct ssh_chan		*next;
	enum chan_state		 st;
	LIBSSH2_CHANNEL		*ch;
	char			*cmdline;
	const struct rstream_cb	*cb;
	void			*arg;
	struct buf		 line[2];	/* stdout, stderr */
	bool			 cut[2];
	bool			 eof[2];
	bool			 cancelled;	/* no callbacks; reaped */
	bool			 exec_sent;	/* exec called: finish it */
	/* exec_input(): what waits to go to the command's stdin, and
	 * whether to end it (EOF) once it has gone. */
	bool			 has_input;
	struct buf		 in;
	size_t			 in_off;
	bool			 in_eof, in_eof_sent;
	int			 code, sig;
	char			*err;		/* ends with it once freed */
};

/* A name looked up by a thread; the transport may be gone when it ends,
 * so the request is shared and freed by whichever side lets go last. */
struct resolve {
	pthread_mutex_t	 lock;
	int		 refs;
	int		 pipe[2];
	char		*name;
	char		 port[8];	/* "": no service */
	int		 family;	/* AddressFamily */
	int		 flags;		/* getaddrinfo's hints */
	struct addrinfo	*res;
	int		 rc;
};

/* Whether a name canonicalization tried resolves, as the thread said. */
struct canon_answer {
	char		*name;
	int		 family;
	bool		 resolves;
};

struct ssh {
	struct transport	*t;
	struct sshhost		 sh;
	/* The settings are read when the transport is made; a host whose
	 * config has a name made canonical (CanonicalizeHostname) waits in
	 * PH_CONFIG for a thread's answers, then reads them all again (the
	 * host's, and its jumps'), keeping for it the lab host and files
	 * they come from.  configured: sh and the way there are read. */
	bool			 configured;
	struct lab_host		 lh;		/* strings owned; no chips */
	char			*labfile;
	char			*config;
	struct canon_answer	*answers;
	size_t			 nanswers;
	struct resolve		*lookup;	/* under way, or NULL */
	bool			 lookup_failed;	/* no thread to ask */
	char			*program;	/* calops on the host */
	bool			 accept_new;	/* strict: accept-new */
	char			*known_hosts;	/* a new key goes there, or
						   NULL */

	enum transport_state	 state;
	int64_t			 since;
	int64_t			 last_rx;
	unsigned		 attempt;	/* attempts since last up */
	int64_t			 next_try;
	char			 error[512];
	char			 version[64];
	char			 comp[2][24];	/* agreed: client to server,
						   server to client */
	enum transport_ask	 ask;
	char			 ask_text[512];
	unsigned		 ask_seq;	/* one more per question */

	enum phase		 phase;
	int			 fd;
	struct resolve		*rv;
	struct addrinfo		*addrs, *ai;
	char			 peer[80];	/* "127.0.0.1 port 2222" */
	LIBSSH2_SESSION		*sess;
	LIBSSH2_AGENT		*agent;
	struct libssh2_agent_publickey *agent_key;
	struct knownhosts	*kh;		/* sh.kh_files, read */
	size_t			 nkh;
	unsigned char		*new_key;	/* refused as unknown */
	size_t			 new_key_len;
	struct buf		 notes;		/* why each key failed */
	size_t			 id;		/* identity file tried */
	char			*pass;		/* the operator's, for id */
	size_t			 pass_id;	/* the key of pass, skip */
	bool			 skip_pass;	/* the operator declined */
	bool			 wrong_pass;
	bool			 ask_lost;	/* the host hung up meanwhile */
	LIBSSH2_CHANNEL		*idle;
	struct ssh_chan		*probe;
	struct buf		 probe_out;
	char			 probe_err[200];

	struct ssh_chan		*chans;		/* in the order asked */
	bool			 opening;	/* a channel is opening */
	size_t			 nopen;
	size_t			 chan_cap;	/* at most open: CHANNELS_MAX,
						   less when the host said so */
	uint64_t		 rx_bytes;	/* received, ever */
	bool			 more;		/* a read burst ran out */
	bool			 reap;		/* cancelled ones to free */
	bool			 driving;

	long			 attempt_timer, retry_timer, tick_timer;
	long			 notify_timer;
	/* Trickling: the socket is not watched until then (ssh_events);
	 * what the current BATCH_MS window has brought, from when. */
	int64_t			 hold_until;
	int64_t			 win_start;
	size_t			 win_bytes;
	long			 hold_timer;
	int			 grid_idle;	/* ticks that brought nothing */
	/* The socket said EAGAIN in this drive(): every other read of this
	 * round is told so without asking the kernel again. */
	bool			 dry;

	/* Reached through a jump host (ProxyJump: jump, shared and counted,
	 * and our tunnel in its list) or a command's stdin and stdout
	 * (ProxyCommand): fd is then one end of a socketpair. */
	struct ssh		*jump;
	struct sshtunnel	*tun;		/* borrowed from jump */
	char			*proxy_cmd;
	struct child		*proxy;
	char			 proxy_err[200];	/* what it said last */
	/* A jump host: the registry's key and next, the hosts (or jumps)
	 * behind it, and the tunnels carried for them. */
	bool			 is_jump;
	char			*jump_key;
	struct ssh		*jump_next;
	struct ssh		**users;
	size_t			 nusers;
	struct sshtunnel	**tuns;
	size_t			 ntuns;
	/* What the channels of the session share, ours and a jump's
	 * tunnels: which call holds the half-sent packet (sess_busy). */
	struct sshtunnel_sess	 tsess;
};

/* The jump hosts in use, each shared by every host behind it. */
static struct ssh *jumps;

static void	drive(struct ssh *s);
static void	lost(struct ssh *s, const char *fmt, ...) PRINTFLIKE(2, 3);
static void	refuse(struct ssh *s, const char *fmt, ...) PRINTFLIKE(2, 3);
static void	attempt_start(struct ssh *s);
static void	tick_arm(struct ssh *s);
static long	send_room(struct ssh *s);
static bool	tuns_run(struct ssh *s, size_t *budget);
static void	tuns_fail(struct ssh *s);
static void	way_start(struct ssh *s);
static void	host_up(struct ssh *s);
static void	asks_through(struct ssh *s);
static void	setup_again(struct ssh *s);
static void	setup_release(struct ssh *s);

/* ---- the shell's quoting ---- */

static void
quote_word(struct buf *b, const char *w)
{
	const char *p;

	buf_addc(b, '\'');
	for (p = w; *p != '\0'; p++) {
		if (*p == '\'')
			buf_adds(b, "'\\''");
		else
			buf_addc(b, *p);
	}
	buf_addc(b, '\'');
}

void
ssh_quote_argv(struct buf *b, char *const argv[])
{
	size_t i;

	for (i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			buf_addc(b, ' ');
		/* "~/bin/calops": the remote home, the rest quoted. */
		if (i == 0 && strncmp(argv[0], "~/", 2) == 0) {
			buf_adds(b, "\"$HOME\"/");
			quote_word(b, argv[0] + 2);
		} else
			quote_word(b, argv[i]);
	}
}

/* ---- the state, and telling the owner ---- */

static void
notify_fire(struct loop *l, void *arg)
{
	struct ssh *s = arg;

	(void)l;
	s->notify_timer = -1;
	if (s->t->changed != NULL)
		s->t->changed(s->t, s->t->changed_arg);
}

/* The owner hears of a change from a timer of its own, never from inside
 * a call it made into the transport. */
static void
notify(struct ssh *s)
{
	if (s->notify_timer == -1)
		s->notify_timer = loop_add_timer(s->t->loop, 0, notify_fire, s);
}

static void
set_state(struct ssh *s, enum transport_state st)
{
	if (s->state != st) {
		s->state = st;
		s->since = loop_now_ms();
	}
	notify(s);
}

/* A message for the screens: what libssh2 says made safe. */
static const char *
ssh_errmsg(struct ssh *s)
{
	char *msg = NULL;

	if (s->sess == NULL)
		return "no session";
	libssh2_session_last_error(s->sess, &msg, NULL, 0);
	return msg != NULL && *msg != '\0' ? msg : "unknown error";
}

static void
verrorf(struct ssh *s, const char *fmt, va_list ap)
{
	char *safe;

	vsnprintf(s->error, sizeof s->error, fmt, ap);
	safe = text_sanitize_str(s->error);
	snprintf(s->error, sizeof s->error, "%s", safe);
	free(safe);
}

/* The error the screens show, with no change of state. */
static void	errorf(struct ssh *s, const char *fmt, ...) PRINTFLIKE(2, 3);

static void
errorf(struct ssh *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verrorf(s, fmt, ap);
	va_end(ap);
}

static bool
is_socket_error(int rc)
{
	return rc == LIBSSH2_ERROR_SOCKET_SEND ||
	    rc == LIBSSH2_ERROR_SOCKET_RECV ||
	    rc == LIBSSH2_ERROR_SOCKET_DISCONNECT ||
	    rc == LIBSSH2_ERROR_SOCKET_TIMEOUT ||
	    rc == LIBSSH2_ERROR_TIMEOUT;
}

/* ---- channels ---- */

/*
 * One half-sent packet per session (sshtunnel.h says why): after a call on
 * a channel says EAGAIN with a packet left to send, that call alone is
 * made on the session until it goes -- the guard is the one a jump's
 * tunnels keep, so that our channels and theirs wait for each other.
 */
static bool
sess_busy(const struct ssh *s, const struct ssh_chan *c,
    enum sshtunnel_op op)
{
	return sshtunnel_sess_busy(&s->tsess, c, op);
}

static void
sess_after(struct ssh *s, struct ssh_chan *c, enum sshtunnel_op op, long rc)
{
	sshtunnel_sess_after(&s->tsess, c, op, rc);
}

static void
chan_free(struct ssh_chan *c)
{
	buf_release(&c->line[0]);
	buf_release(&c->line[1]);
	buf_release(&c->in);
	free(c->cmdline);
	free(c->err);
	free(c);
}

static void
chan_unlink(struct ssh *s, struct ssh_chan *c)
{
	struct ssh_chan **pp;

	sshtunnel_sess_forget(&s->tsess, c);

	for (pp = &s->chans; *pp != NULL; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			return;
		}
}

static void
emit_line(struct ssh_chan *c, int k)
{
	if (!c->cancelled && c->cb->line != NULL)
		c->cb->line(&c->base, c->line[k].data != NULL ?
		    c->line[k].data : "", c->line[k].len, k == 1, c->cut[k],
		    c->arg);
	buf_reset(&c->line[k]);
	c->cut[k] = false;
}

/* Split what arrived into lines, as child.c does.  A whole line with
 * nothing held before it is handed over where it lies, its newline made
 * the NUL a line ends with: a bulk read (a stream caught up after a
 * reconnect) copies no byte twice. */
static void
take(struct ssh_chan *c, int k, char *p, size_t n)
{
	char *nl;
	size_t len, room;

	while (n > 0) {
		nl = memchr(p, '\n', n);
		len = nl != NULL ? (size_t)(nl - p) : n;
		if (nl != NULL && c->line[k].len == 0 && !c->cut[k] &&
		    len <= CHILD_LINE_MAX) {
			*nl = '\0';
			if (!c->cancelled && c->cb->line != NULL)
				c->cb->line(&c->base, p, len, k == 1, false,
				    c->arg);
			p += len + 1;
			n -= len + 1;
			continue;
		}
		room = CHILD_LINE_MAX - c->line[k].len;
		if (len > room) {
			buf_add(&c->line[k], p, room);
			c->cut[k] = true;
		} else
			buf_add(&c->line[k], p, len);
		if (nl == NULL)
			return;
		emit_line(c, k);
		p += len + 1;
		n -= len + 1;
	}
}

/* The command ended (err: the transport failed it; lost: because the
 * connection went): its last partial lines, then done, then it is gone. */
static void
chan_done(struct ssh *s, struct ssh_chan *c, const char *err, bool lost)
{
	struct rstream_exit ex = { .code = c->code, .sig = c->sig,
	    .err = err, .lost = lost };
	int k;

	chan_unlink(s, c);
	if (c->st >= CH_OPENING && c->st <= CH_WAITCLOSED && c->ch != NULL)
		s->nopen--;
	for (k = 0; k < 2; k++)
		if (c->line[k].len > 0 || c->cut[k])
			emit_line(c, k);
	if (err != NULL)
		ex.code = -1, ex.sig = 0;
	if (!c->cancelled && c->cb->done != NULL)
		c->cb->done(&c->base, &ex, c->arg);
	chan_free(c);
}

/* The signal an exit-signal names, or SIGTERM's number when unknown. */
static int
signal_number(const char *name)
{
	static const struct {
		const char	*name;
		int		 sig;
	} sigs[] = {
		{ "HUP", 1 }, { "INT", 2 }, { "QUIT", 3 }, { "ILL", 4 },
		{ "ABRT", 6 }, { "FPE", 8 }, { "KILL", 9 }, { "SEGV", 11 },
		{ "PIPE", 13 }, { "ALRM", 14 }, { "TERM", 15 }, { "USR1", 10 },
		{ "USR2", 12 },
	};
	size_t i;

	for (i = 0; i < nitems(sigs); i++)
		if (strcmp(sigs[i].name, name) == 0)
			return sigs[i].sig;
	return 15;
}

/* Read a channel until EAGAIN or its end: whether it gave anything. */
static bool
chan_read(struct ssh *s, struct ssh_chan *c, size_t *budget)
{
	char chunk[32768];
	bool any = false;
	ssize_t n;
	int k;

	for (k = 0; k < 2; k++) {
		while (!c->eof[k]) {
			if (*budget == 0) {
				s->more = true;
				return any;
			}
			if (sess_busy(s, c, SSHTUNNEL_READ))
				return any;
			n = libssh2_channel_read_ex(c->ch, k, chunk,
			    sizeof chunk);
			sess_after(s, c, SSHTUNNEL_READ, n);
			if (n == LIBSSH2_ERROR_EAGAIN)
				break;
			if (n < 0) {
				lost(s, "reading from %s: %s", s->t->host,
				    ssh_errmsg(s));
				return false;
			}
			if (n == 0) {
				if (libssh2_channel_eof(c->ch))
					c->eof[k] = true;
				break;
			}
			any = true;
			*budget -= (size_t)n < *budget ? (size_t)n : *budget;
			take(c, k, chunk, (size_t)n);
		}
	}
	return any;
}

/* Send what waits for the command's stdin, and its end once asked, as far
 * as the channel takes it now: whether anything went.  libssh2 wants the
 * same call again after EAGAIN, and gets it: the bytes stay here. */
static bool
chan_write(struct ssh *s, struct ssh_chan *c)
{
	bool any = false;
	ssize_t n;
	int rc;

	while (c->in_off < c->in.len) {
		if (sess_busy(s, c, SSHTUNNEL_WRITE))
			return any;
		n = libssh2_channel_write(c->ch, c->in.data + c->in_off,
		    c->in.len - c->in_off);
		sess_after(s, c, SSHTUNNEL_WRITE, n);
		/* BAD_USE: another's packet waits (a call this file does not
		 * make on a channel): the bytes wait too. */
		if (n == LIBSSH2_ERROR_EAGAIN || n == LIBSSH2_ERROR_BAD_USE)
			return any;
		if (n < 0) {
			if (is_socket_error((int)n))
				lost(s, "writing to %s: %s", s->t->host,
				    ssh_errmsg(s));
			else {
				/* The host closed the channel's input. */
				c->in_off = c->in.len;
				c->in_eof_sent = true;
			}
			return any;
		}
		c->in_off += (size_t)n;
		any = true;
	}
	if (c->in.len > 0) {
		buf_reset(&c->in);
		c->in_off = 0;
	}
	if (c->in_eof && !c->in_eof_sent) {
		if (sess_busy(s, c, SSHTUNNEL_EOF))
			return any;
		rc = libssh2_channel_send_eof(c->ch);
		sess_after(s, c, SSHTUNNEL_EOF, rc);
		if (rc == LIBSSH2_ERROR_EAGAIN || rc == LIBSSH2_ERROR_BAD_USE)
			return any;
		if (rc < 0 && is_socket_error(rc)) {
			lost(s, "writing to %s: %s", s->t->host, ssh_errmsg(s));
			return any;
		}
		c->in_eof_sent = true;
		any = true;
	}
	return any;
}

/* The command could not run: its channel goes, then it ends with why. */
static bool
chan_fail(struct ssh *s, struct ssh_chan *c, const char *what)
{
	free(c->err);
	c->err = xasprintf("%s %s: %s", s->t->host, what, ssh_errmsg(s));
	c->st = CH_FREEING;
	return true;
}

/* One step of a channel's life; true when it moved. */
static bool
chan_step(struct ssh *s, struct ssh_chan *c, size_t *budget)
{
	char *signame = NULL;
	size_t namelen = 0;
	int rc;

	switch (c->st) {
	case CH_QUEUED:
		if (c->cancelled) {
			chan_unlink(s, c);
			chan_free(c);
			return true;
		}
		if (s->opening || s->nopen >= s->chan_cap ||
		    (s->phase != PH_UP && c != s->probe) ||
		    sess_busy(s, c, SSHTUNNEL_OPEN))
			return false;
		c->st = CH_OPENING;
		s->opening = true;
		/* FALLTHROUGH */
	case CH_OPENING:
		if (sess_busy(s, c, SSHTUNNEL_OPEN))
			return false;
		c->ch = libssh2_channel_open_session(s->sess);
		rc = c->ch == NULL ? libssh2_session_last_errno(s->sess) : 0;
		sess_after(s, c, SSHTUNNEL_OPEN, rc);
		if (c->ch == NULL) {
			if (rc == LIBSSH2_ERROR_EAGAIN)
				return false;
			s->opening = false;
			c->st = CH_QUEUED;
			if (rc == LIBSSH2_ERROR_CHANNEL_FAILURE &&
			    s->nopen > 0) {
				/* The host allows fewer at once (sshd's
				 * MaxSessions): no more than are open now,
				 * for as long as this connection lasts; the
				 * next opens when one ends. */
				s->chan_cap = s->nopen;
				return false;
			}
			if (is_socket_error(rc)) {
				lost(s, "opening a channel on %s: %s",
				    s->t->host, ssh_errmsg(s));
				return false;
			}
			{
				char err[300];

				snprintf(err, sizeof err, "%s refused a "
				    "channel: %s", s->t->host, ssh_errmsg(s));
				chan_done(s, c, err, false);
			}
			return true;
		}
		s->opening = false;
		s->nopen++;
		c->st = CH_EXEC;
		/* FALLTHROUGH */
	case CH_EXEC:
		if (c->cancelled && !c->exec_sent) {
			/* Cancelled while its channel opened: nothing runs.
			 * Once the request went (in part, even: libssh2 keeps
			 * a half-sent packet and refuses any other until it
			 * goes), it is finished, and closed as it opens. */
			c->st = CH_FREEING;
			return true;
		}
		if (sess_busy(s, c, SSHTUNNEL_EXEC))
			return false;
		c->exec_sent = true;
		rc = libssh2_channel_exec(c->ch, c->cmdline);
		sess_after(s, c, SSHTUNNEL_EXEC, rc);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return false;
		if (rc < 0 && is_socket_error(rc)) {
			lost(s, "starting a command on %s: %s", s->t->host,
			    ssh_errmsg(s));
			return false;
		}
		if (rc < 0)
			return chan_fail(s, c, "refused the command");
		c->st = CH_OPEN;
		/* FALLTHROUGH */
	case CH_OPEN:
		/* Its own call half sent is made again before it closes. */
		if (c->cancelled && s->tsess.sender != c) {
			c->st = CH_CLOSING;
			return true;
		}
		if (c->has_input && chan_write(s, c))
			return true;
		if (s->phase < PH_IDLECHAN)
			return false;	/* lost while writing */
		if (chan_read(s, c, budget))
			return true;
		if (s->phase == PH_IDLE || !c->eof[0] || !c->eof[1])
			return false;
		c->st = CH_CLOSING;
		/* FALLTHROUGH */
	case CH_CLOSING:
		if (sess_busy(s, c, SSHTUNNEL_CLOSE))
			return false;
		rc = libssh2_channel_close(c->ch);
		sess_after(s, c, SSHTUNNEL_CLOSE, rc);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return false;
		if (rc != 0 || c->cancelled) {
			c->st = CH_FREEING;
			return true;
		}
		c->st = CH_WAITCLOSED;
		/* FALLTHROUGH */
	case CH_WAITCLOSED:
		/* close() may return with the host's CLOSE, and the exit
		 * status before it, still to come: 1.10 would then say 0. */
		rc = libssh2_channel_wait_closed(c->ch);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return false;
		if (rc < 0 && is_socket_error(rc)) {
			lost(s, "reading from %s: %s", s->t->host,
			    ssh_errmsg(s));
			return false;
		}
		if (rc == 0) {
			c->code = libssh2_channel_get_exit_status(c->ch);
			if (libssh2_channel_get_exit_signal(c->ch, &signame,
			    &namelen, NULL, NULL, NULL, NULL) == 0 &&
			    signame != NULL) {
				c->sig = signal_number(signame);
				c->code = -1;
				libssh2_free(s->sess, signame);
			}
		}
		c->st = CH_FREEING;
		/* FALLTHROUGH */
	case CH_FREEING:
		if (libssh2_channel_free(c->ch) == LIBSSH2_ERROR_EAGAIN)
			return false;
		c->ch = NULL;
		s->nopen--;
		chan_done(s, c, c->err, false);
		return true;
	}
	return false;
}

/* Every channel until none moves (data for one may have been read while
 * reading another), or the burst is spent. */
static void
chans_run(struct ssh *s)
{
	struct ssh_chan *c, *next;
	size_t budget = READ_BURST;
	char chunk[4096];
	int64_t now;
	uint64_t rx;
	bool moved;
	ssize_t n;

	s->more = false;
	do {
		moved = false;
		/* Bytes that came in while reading one channel may be
		 * another's (its end, its exit status) already passed by. */
		rx = s->rx_bytes;
		/* The idle channel takes in what no command asked for. */
		if (s->idle != NULL) {
			n = libssh2_channel_read(s->idle, chunk, sizeof chunk);
			if (n < 0 && n != LIBSSH2_ERROR_EAGAIN) {
				lost(s, "%s: %s", s->t->host, ssh_errmsg(s));
				return;
			}
		}
		for (c = s->chans; c != NULL && s->sess != NULL; c = next) {
			next = c->next;
			if (chan_step(s, c, &budget))
				moved = true;
			if (s->phase == PH_IDLE)
				return;
		}
		if (s->ntuns > 0 && tuns_run(s, &budget))
			moved = true;
		if (s->phase == PH_IDLE)
			return;
	} while ((moved || rx != s->rx_bytes) && budget > 0);
	if (budget == 0)
		s->more = true;
	/* A trickle is held (a bulk transfer reads on at full speed), on one
	 * grid for every host: they are read again together. */
	now = loop_now_ms();
	if (now - s->win_start >= BATCH_MS) {
		s->win_start = now;
		s->win_bytes = 0;
	}
	s->win_bytes += READ_BURST - budget;
	if (budget < READ_BURST && s->win_bytes < BATCH_BYTES &&
	    s->phase == PH_UP && !s->is_jump)
		s->hold_until = (now / BATCH_MS + 1) * BATCH_MS;
}

/* The connection is gone: every channel on it ends with why, the queued
 * stay for the next connection (refused: they end too, and were not lost
 * with a connection). */
static void
chans_drop(struct ssh *s, const char *why, bool refused)
{
	bool queued_too = refused, was_open;

	struct ssh_chan *c, *next;

	for (c = s->chans; c != NULL; c = next) {
		next = c->next;
		if (c->st == CH_QUEUED && !queued_too && !c->cancelled)
			continue;
		if (c->st != CH_QUEUED && c->ch != NULL)
			s->nopen--;
		c->ch = NULL;	/* freed with the session */
		was_open = c->st != CH_QUEUED;
		c->st = CH_QUEUED;
		chan_done(s, c, why, was_open || !refused);
	}
	s->nopen = 0;
	s->opening = false;
}

/* ---- the connection's teardown ---- */

static void
timer_stop(struct ssh *s, long *id)
{
	if (*id != -1) {
		loop_del_timer(s->t->loop, *id);
		*id = -1;
	}
}

static void
pass_wipe(struct ssh *s)
{
	if (s->pass != NULL) {
		sshkey_wipe(s->pass, strlen(s->pass));
		s->pass = NULL;
	}
}

static void
resolve_unref(struct resolve *rv)
{
	int refs;

	pthread_mutex_lock(&rv->lock);
	refs = --rv->refs;
	pthread_mutex_unlock(&rv->lock);
	if (refs > 0)
		return;
	if (rv->res != NULL)
		freeaddrinfo(rv->res);
	close(rv->pipe[0]);
	close(rv->pipe[1]);
	pthread_mutex_destroy(&rv->lock);
	free(rv->name);
	free(rv);
}


/* The known_hosts files read for an attempt, let go. */
static void
kh_release(struct ssh *s)
{
	size_t i;

	for (i = 0; i < s->nkh; i++)
		knownhosts_release(&s->kh[i]);
	free(s->kh);
	s->kh = NULL;
	s->nkh = 0;
}

/* How long an attempt may take, from the TCP connect to up:
 * ConnectTimeout when the config gives one, else calops' own. */
static long
attempt_ms(const struct ssh *s)
{
	return s->sh.connect_s > 0 ? (long)s->sh.connect_s * 1000 :
	    ATTEMPT_MS;
}

/* Drop the session and the socket, without a word to the host when
 * polite is false (the link is dead: nothing would get through). */
static void
teardown(struct ssh *s, bool polite)
{
	int i;

	timer_stop(s, &s->attempt_timer);
	timer_stop(s, &s->tick_timer);
	timer_stop(s, &s->hold_timer);
	s->hold_until = 0;
	if (s->rv != NULL) {
		loop_del_fd(s->t->loop, s->rv->pipe[0]);
		resolve_unref(s->rv);
		s->rv = NULL;
	}
	if (s->agent != NULL) {
		libssh2_agent_disconnect(s->agent);
		libssh2_agent_free(s->agent);
		s->agent = NULL;
		s->agent_key = NULL;
	}
	if (s->sess != NULL) {
		if (polite)
			libssh2_session_disconnect(s->sess, "calops closes");
		/* A dead socket makes every send fail at once, so freeing
		 * the channels with the session cannot wait for it. */
		if (s->fd != -1)
			shutdown(s->fd, SHUT_RDWR);
		for (i = 0; i < 16 && libssh2_session_free(s->sess) ==
		    LIBSSH2_ERROR_EAGAIN; i++)
			;
		s->sess = NULL;
	}
	s->comp[0][0] = s->comp[1][0] = '\0';	/* no session, none agreed */
	s->idle = NULL;
	tuns_fail(s);
	memset(&s->tsess, 0, sizeof s->tsess);
	if (s->tun != NULL) {
		sshtunnel_orphan(s->tun);
		s->tun = NULL;
		s->jump->more = true;	/* its channel to close */
	}
	if (s->proxy != NULL) {
		child_abandon(s->proxy);
		s->proxy = NULL;
	}
	if (s->fd != -1) {
		loop_del_fd(s->t->loop, s->fd);
		close(s->fd);
		s->fd = -1;
	}
	if (s->addrs != NULL) {
		freeaddrinfo(s->addrs);
		s->addrs = s->ai = NULL;
	}
	kh_release(s);
	buf_reset(&s->notes);
	buf_reset(&s->probe_out);
	s->probe = NULL;
	s->phase = PH_IDLE;
}

static void
retry_fire(struct loop *l, void *arg)
{
	struct ssh *s = arg;

	(void)l;
	s->retry_timer = -1;
	s->next_try = 0;
	attempt_start(s);
}

/* The attempt's version probe goes with it, never to run on the next
 * connection nor to answer for it (its channel is reaped, unheard). */
static void
probe_forget(struct ssh *s)
{
	if (s->probe != NULL)
		s->probe->cancelled = true;
	s->probe = NULL;
}

/*
 * A failure behind a jump host or a ProxyCommand is the way's: the
 * session only sees its socket close, so the error says what the jump or
 * the command said instead.
 */
static void
way_error(struct ssh *s)
{
	const char *why;
	char *msg = NULL, *safe;

	if (s->tun != NULL && (why = sshtunnel_error(s->tun)) != NULL)
		msg = xasprintf("%s: via %s: %s", s->t->host, s->jump->t->host,
		    why);
	else if (s->jump != NULL && s->jump->state != TRANSPORT_UP &&
	    s->jump->error[0] != '\0')
		msg = xasprintf("%s: via %s", s->t->host, s->jump->error);
	else if (s->proxy_cmd != NULL && s->proxy_err[0] != '\0')
		msg = xasprintf("%s (its ProxyCommand said: %s)", s->error,
		    s->proxy_err);
	if (msg == NULL)
		return;
	safe = text_sanitize_str(msg);
	snprintf(s->error, sizeof s->error, "%s", safe);
	free(safe);
	free(msg);
}

/* The link is lost or an attempt failed: try again later. */
static void
lost(struct ssh *s, const char *fmt, ...)
{
	unsigned shift;
	va_list ap;
	long ms;

	va_start(ap, fmt);
	verrorf(s, fmt, ap);
	va_end(ap);
	way_error(s);
	if (s->jump != NULL && s->jump->state == TRANSPORT_REFUSED) {
		char why[sizeof s->error];

		memcpy(why, s->error, sizeof why);
		refuse(s, "%s", why);
		return;
	}
	probe_forget(s);
	teardown(s, false);
	/* A passphrase is asked again rather than kept in memory while the
	 * link is down (the agent is the way not to be asked). */
	pass_wipe(s);
	/* The state first: a stream ending here sees the host is down. */
	set_state(s, s->state == TRANSPORT_RECONNECTING ?
	    TRANSPORT_RECONNECTING : TRANSPORT_DISCONNECTED);
	chans_drop(s, s->error, false);
	/* 1 s, 2 s, 4 s … 60 s, each between half and all of it. */
	shift = s->attempt < 7 ? s->attempt : 6;
	ms = (long)BACKOFF_MIN_MS << shift;
	if (ms > BACKOFF_MAX_MS)
		ms = BACKOFF_MAX_MS;
	ms = ms / 2 + (long)arc4random_uniform((uint32_t)(ms / 2) + 1);
	s->next_try = loop_now_ms() + ms;
	timer_stop(s, &s->retry_timer);
	s->retry_timer = loop_add_timer(s->t->loop, ms, retry_fire, s);
}

/* Final until the operator acts: the queued commands end too. */
static void
refuse(struct ssh *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verrorf(s, fmt, ap);
	va_end(ap);
	probe_forget(s);
	teardown(s, true);
	pass_wipe(s);
	timer_stop(s, &s->retry_timer);
	s->next_try = 0;
	set_state(s, TRANSPORT_REFUSED);
	chans_drop(s, s->error, true);
}

/* ---- an attempt: resolve, connect, handshake ---- */

static void
attempt_timeout(struct loop *l, void *arg)
{
	struct ssh *s = arg;
	static const char *const doing[] = {
		[PH_RESOLVE] = "looking up its address",
		[PH_TCP] = "connecting",
		[PH_HANDSHAKE] = "waiting for its SSH handshake",
		[PH_AUTHLIST] = "authenticating",
		[PH_AGENT] = "authenticating",
		[PH_KEYFILE] = "authenticating",
		[PH_IDLECHAN] = "opening a channel",
		[PH_VERSION] = "running calops version",
	};

	(void)l;
	s->attempt_timer = -1;
	if (s->jump != NULL && s->jump->state != TRANSPORT_UP) {
		lost(s, "%s: no answer in %ld s: %s is %s", s->t->host,
		    attempt_ms(s) / 1000, s->jump->t->host,
		    transport_state_name(s->jump->state));
		return;
	}
	lost(s, "%s: no answer in %ld s while %s", s->t->host,
	    attempt_ms(s) / 1000, s->phase < nitems(doing) &&
	    doing[s->phase] != NULL ? doing[s->phase] : "connecting");
}

static void
on_socket(struct loop *l, int fd, short revents, void *arg)
{
	struct ssh *s = arg;

	(void)revents;
	if (s->phase == PH_ASK) {
		/* The host tired of waiting for the operator (sshd's
		 * LoginGraceTime), or spoke: nothing is read until the
		 * passphrase comes, and a readable socket would wake the loop
		 * for ever.  The passphrase then starts a new attempt. */
		loop_del_fd(l, fd);
		s->ask_lost = true;
		return;
	}
	drive(s);
}

/* The next address, or the attempt fails with the last one's error. */
static void
tcp_next(struct ssh *s, const char *why)
{
	char host[64], port[8];
	int fd;

	for (; s->ai != NULL; s->ai = s->ai->ai_next) {
		if (getnameinfo(s->ai->ai_addr, s->ai->ai_addrlen, host,
		    sizeof host, port, sizeof port,
		    NI_NUMERICHOST | NI_NUMERICSERV) != 0)
			snprintf(host, sizeof host, "?");
		snprintf(s->peer, sizeof s->peer, "%s port %d", host,
		    s->sh.port);
		fd = socket(s->ai->ai_family, s->ai->ai_socktype |
		    SOCK_NONBLOCK | SOCK_CLOEXEC, s->ai->ai_protocol);
		if (fd == -1) {
			why = strerror(errno);
			continue;
		}
		if (connect(fd, s->ai->ai_addr, s->ai->ai_addrlen) == -1 &&
		    errno != EINPROGRESS) {
			why = strerror(errno);
			close(fd);
			continue;
		}
		s->fd = fd;
		s->phase = PH_TCP;
		loop_add_fd(s->t->loop, fd, POLLOUT, on_socket, s);
		return;
	}
	lost(s, "%s: connect to %s: %s", s->t->host, s->peer[0] != '\0' ?
	    s->peer : s->sh.hostname, why);
}

static void *
resolve_thread(void *arg)
{
	struct resolve *rv = arg;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
	    .ai_flags = rv->flags, .ai_family = rv->family };

	rv->rc = getaddrinfo(rv->name, rv->port[0] != '\0' ? rv->port : NULL,
	    &hints, &rv->res);
	(void)!write(rv->pipe[1], "", 1);
	resolve_unref(rv);
	return NULL;
}

static void
resolved(struct loop *l, int fd, short revents, void *arg)
{
	struct ssh *s = arg;
	struct resolve *rv = s->rv;

	(void)revents;
	loop_del_fd(l, fd);
	s->rv = NULL;
	if (rv->rc != 0) {
		int rc = rv->rc;	/* rv may go with the unref */

		resolve_unref(rv);
		lost(s, "%s: cannot resolve '%s': %s", s->t->host,
		    s->sh.hostname, gai_strerror(rc));
		return;
	}
	s->addrs = s->ai = rv->res;
	rv->res = NULL;
	resolve_unref(rv);
	tcp_next(s, "no address");
}

/*
 * getaddrinfo(name, port ("": none), family, flags) in a thread, which
 * writes a byte to the request's pipe when it is done: the loop watches
 * it with cb.  NULL with why in err.
 */
static struct resolve *
resolve_ask(struct ssh *s, const char *name, const char *port, int family,
    int flags, loop_fd_fn cb, char *err, size_t errlen)
{
	struct resolve *rv;
	pthread_t th;

	rv = xcalloc(1, sizeof *rv);
	if (pipe2(rv->pipe, O_CLOEXEC | O_NONBLOCK) == -1) {
		errbuf_set(err, errlen, "%s", strerror(errno));
		free(rv);
		return NULL;
	}
	pthread_mutex_init(&rv->lock, NULL);
	rv->refs = 2;
	rv->name = xstrdup(name);
	rv->family = family;
	rv->flags = flags;
	snprintf(rv->port, sizeof rv->port, "%s", port);
	if (pthread_create(&th, NULL, resolve_thread, rv) != 0) {
		rv->refs = 1;
		resolve_unref(rv);
		errbuf_set(err, errlen, "cannot start a resolver thread");
		return NULL;
	}
	pthread_detach(th);
	loop_add_fd(s->t->loop, rv->pipe[0], POLLIN, cb, s);
	return rv;
}

/* An address as written is used at once; a name is looked up by a
 * thread. */
static void
resolve_start(struct ssh *s)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
	    .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
	    .ai_family = s->sh.family };
	char port[8], err[128];

	if (s->jump != NULL || s->proxy_cmd != NULL) {
		way_start(s);
		return;
	}
	snprintf(port, sizeof port, "%d", s->sh.port);
	if (getaddrinfo(s->sh.hostname, port, &hints, &s->addrs) == 0) {
		s->ai = s->addrs;
		tcp_next(s, "no address");
		return;
	}
	if ((s->rv = resolve_ask(s, s->sh.hostname, port, s->sh.family,
	    AI_ADDRCONFIG, resolved, err, sizeof err)) == NULL) {
		lost(s, "%s: %s", s->t->host, err);
		return;
	}
	s->phase = PH_RESOLVE;
}

/* libssh2 reads through this, so that the last byte from the host is
 * known; the agent's socket is read through it too, and does not count. */
static ssize_t
ssh_recv(libssh2_socket_t fd, void *buf, size_t len, int flags,
    void **abstract)
{
	struct ssh *s = *abstract;
	ssize_t n;

	/* 1.10 asks the socket once for every channel it is asked to read,
	 * both streams: ten calls a round for nothing, on each host. */
	if (s->dry && fd == s->fd)
		return -EAGAIN;
	if ((n = recv(fd, buf, len, flags)) == -1) {
		if (errno == EAGAIN && fd == s->fd && s->phase == PH_UP &&
		    s->driving)
			s->dry = true;
		return -errno;
	}
	if (n > 0 && fd == s->fd) {
		s->last_rx = loop_now_ms();
		s->rx_bytes += (uint64_t)n;
		if (s->state == TRANSPORT_STALE) {
			set_state(s, TRANSPORT_UP);
			tick_arm(s);
		}
	}
	return n;
}

/*
 * The ciphers, AES-128 in CTR mode first (as OpenSSH orders its CTR
 * ciphers), then the rest as libssh2 orders them: a host streams
 * megabytes of events a second, libssh2 1.10 has neither GCM nor
 * ChaCha20, and its default, aes256-ctr, costs 14 rounds where 10 will do
 * (events over loopback: 194 MiB/s with it, 259 with aes128-ctr).
 */
static void
cipher_pref(LIBSSH2_SESSION *sess, int method)
{
	static const char first[] = "aes128-ctr";
	const char **algs;
	struct buf b = BUF_INIT;
	int i, n;

	if ((n = libssh2_session_supported_algs(sess, method, &algs)) <= 0)
		return;
	buf_init(&b, 4096);
	for (i = 0; i < n; i++)
		if (strcmp(algs[i], first) == 0)
			buf_adds(&b, first);
	for (i = 0; i < n; i++)
		if (strcmp(algs[i], first) != 0) {
			if (b.len > 0)
				buf_addc(&b, ',');
			buf_adds(&b, algs[i]);
		}
	if (b.len > 0)
		(void)libssh2_session_method_pref(sess, method, b.data);
	buf_release(&b);
	libssh2_free(sess, algs);
}

/*
 * Compression asked for (sshhost.h): zlib@openssh.com first, as ssh asks
 * for it (it starts once authenticated, so nothing before that goes
 * through the server's zlib), then zlib; none last, so that a server
 * that will not compress is still reached, and the Hosts screen says so.
 */
static void
compress_ask(LIBSSH2_SESSION *sess)
{
	static const char pref[] = "zlib@openssh.com,zlib,none";

	if (libssh2_session_flag(sess, LIBSSH2_FLAG_COMPRESS, 1) != 0)
		return;
	(void)libssh2_session_method_pref(sess, LIBSSH2_METHOD_COMP_CS, pref);
	(void)libssh2_session_method_pref(sess, LIBSSH2_METHOD_COMP_SC, pref);
}

/* What the handshake agreed on each way, for the status. */
static void
compress_agreed(struct ssh *s)
{
	static const int dir[2] = { LIBSSH2_METHOD_COMP_CS,
	    LIBSSH2_METHOD_COMP_SC };
	const char *m;
	size_t i;

	for (i = 0; i < nitems(dir); i++) {
		m = libssh2_session_methods(s->sess, dir[i]);
		snprintf(s->comp[i], sizeof s->comp[i], "%s", m != NULL ? m :
		    "none");
	}
}

/*
 * Read every known_hosts file of the host (sshhost.h: ssh's files in
 * ssh's order, then the lab's) and gather the key types they know for
 * it, each once, in the order of their first line.  -1 when a file
 * cannot be read (err set): its revocations would be missed.
 */
static int
kh_load(struct ssh *s, const char **known, size_t max, size_t *nknown,
    char *err, size_t errlen)
{
	const char *types[KNOWNHOSTS_TYPES_MAX];
	size_t i, j, k, n;

	*nknown = 0;
	s->kh = xcalloc(s->sh.nkh + 1, sizeof *s->kh);
	for (i = 0; i < s->sh.nkh; i++) {
		s->nkh = i + 1;
		if (knownhosts_load(&s->kh[i], s->sh.kh_files[i], err,
		    errlen) < 0)
			return -1;
		n = knownhosts_known_types(&s->kh[i], s->sh.kh_name,
		    s->sh.kh_port, types, nitems(types));
		for (j = 0; j < n; j++) {
			for (k = 0; k < *nknown && known[k] != types[j]; k++)
				;
			if (k == *nknown && *nknown < max)
				known[(*nknown)++] = types[j];
		}
	}
	return 0;
}

/*
 * HostKeyAlgorithms given: the list ssh would ask for (sshhost.h), as it
 * is, less what libssh2 cannot check (certificates, sk- keys), in its
 * order; none left is refused.  -1 refused.
 */
static int
hostkey_pref(struct ssh *s)
{
	struct buf b = BUF_INIT, have = BUF_INIT;
	const char **algs = NULL, *c, *e;
	char from[300];
	int i, n, rc = 0;

	if ((n = libssh2_session_supported_algs(s->sess,
	    LIBSSH2_METHOD_HOSTKEY, &algs)) <= 0)
		n = 0;
	buf_init(&b, 8192);
	buf_init(&have, 8192);
	for (c = s->sh.hostkey_algs; *c != '\0'; c = *e == ',' ? e + 1 : e) {
		e = c + strcspn(c, ",");
		for (i = 0; i < n; i++)
			if (strlen(algs[i]) == (size_t)(e - c) &&
			    strncmp(algs[i], c, (size_t)(e - c)) == 0) {
				if (b.len > 0)
					buf_addc(&b, ',');
				buf_adds(&b, algs[i]);
			}
	}
	for (i = 0; i < n; i++) {
		if (have.len > 0)
			buf_addc(&have, ',');
		buf_adds(&have, algs[i]);
	}
	if (b.len == 0 || libssh2_session_method_pref(s->sess,
	    LIBSSH2_METHOD_HOSTKEY, b.data) != 0) {
		refuse(s, "%s: HostKeyAlgorithms (%s) names no key type "
		    "libssh2 can check (it has %s)", s->t->host,
		    sshconfig_origin_str(&s->sh.hostkey_algs_from, from,
		    sizeof from), have.len > 0 ? have.data : "none");
		rc = -1;
	}
	buf_release(&b);
	buf_release(&have);
	if (algs != NULL)
		libssh2_free(s->sess, algs);
	return rc;
}

static void
session_start(struct ssh *s)
{
	const char **algs = NULL, *known[KNOWNHOSTS_TYPES_MAX];
	char err[512], *pref;
	size_t nknown;
	int n;

	s->sess = libssh2_session_init_ex(NULL, NULL, NULL, s);
	if (s->sess == NULL) {
		lost(s, "%s: cannot start an SSH session", s->t->host);
		return;
	}
	libssh2_session_set_blocking(s->sess, 0);
	s->tsess.sess = s->sess;
	s->chan_cap = CHANNELS_MAX;
	libssh2_session_callback_set(s->sess, LIBSSH2_CALLBACK_RECV,
	    (void *)ssh_recv);
	if (kh_load(s, known, nitems(known), &nknown, err, sizeof err) < 0) {
		refuse(s, "%s", err);
		return;
	}
	/* HostKeyAlgorithms: asked for as it is, as ssh does.  Else ask for
	 * a key of a type the files know for the host, so that a host with
	 * keys of several types is not refused as unknown (ssh's
	 * order_hostkeyalgs()). */
	if (s->sh.hostkey_algs != NULL) {
		if (hostkey_pref(s) != 0)
			return;
	} else if (nknown > 0 && (n = libssh2_session_supported_algs(s->sess,
	    LIBSSH2_METHOD_HOSTKEY, &algs)) > 0) {
		pref = knownhosts_types_pref(known, nknown, algs, (size_t)n,
		    NULL);
		if (pref != NULL)
			libssh2_session_method_pref(s->sess,
			    LIBSSH2_METHOD_HOSTKEY, pref);
		free(pref);
		libssh2_free(s->sess, algs);
	}
	cipher_pref(s->sess, LIBSSH2_METHOD_CRYPT_SC);
	cipher_pref(s->sess, LIBSSH2_METHOD_CRYPT_CS);
	if (s->sh.compress)
		compress_ask(s->sess);
	libssh2_keepalive_config(s->sess, 1, (unsigned)s->sh.keepalive_s);
	s->phase = PH_HANDSHAKE;
}

/* A key no file knows: added (accept-new), refused with the question
 * for the operator (ask), or refused (StrictHostKeyChecking yes). */
static bool
hostkey_new(struct ssh *s, const struct knownhosts_result *r,
    const char *blob, size_t len, const char *why)
{
	char err[512];

	/* A @cert-authority line for the host, in any file: calops cannot
	 * check the certificate and will not pin a key around the CA. */
	if (r->ca_line != 0) {
		refuse(s, "%s: %s", s->t->host, why);
		return false;
	}
	if (s->accept_new && s->known_hosts == NULL) {
		refuse(s, "%s: %s; no UserKnownHostsFile to add it to (%s)",
		    s->t->host, why, s->sh.strict_why);
		return false;
	}
	if (s->accept_new) {
		if (knownhosts_add(s->known_hosts, s->sh.kh_name,
		    s->sh.kh_port, blob, len, err, sizeof err) < 0) {
			refuse(s, "%s", err);
			return false;
		}
		return true;
	}
	if (s->sh.strict == SSHCONFIG_STRICT_YES) {
		refuse(s, "%s: %s; StrictHostKeyChecking %s: an unknown key "
		    "is refused, never asked about", s->t->host, why,
		    s->sh.strict_why);
		return false;
	}
	free(s->new_key);
	s->new_key = xmalloc(len);
	memcpy(s->new_key, blob, len);
	s->new_key_len = len;
	refuse(s, "%s: %s", s->t->host, why);
	s->ask = TRANSPORT_ASK_KEY;
	s->ask_seq++;
	snprintf(s->ask_text, sizeof s->ask_text, "%s: new host key %s %s",
	    s->t->host, r->label, r->fp);
	return false;
}

/* The host key, judged before any authentication, against every file. */
static bool
hostkey_ok(struct ssh *s)
{
	struct knownhosts_result r;
	struct knownhosts none;
	const char *blob;
	char err[512], why[600];
	size_t len, which;
	int type;

	blob = libssh2_session_hostkey(s->sess, &len, &type);
	if (blob == NULL) {
		refuse(s, "%s showed no host key", s->t->host);
		return false;
	}
	if (knownhosts_check_all(s->kh, s->nkh, s->sh.kh_name, s->sh.kh_port,
	    blob, len, &r, &which, err, sizeof err) != 0) {
		refuse(s, "%s: %s", s->t->host, err);
		return false;
	}
	memset(&none, 0, sizeof none);
	knownhosts_explain(s->nkh > 0 ? &s->kh[which] : &none, &r,
	    s->sh.kh_name, s->sh.kh_port, why, sizeof why);
	switch (r.verdict) {
	case KNOWNHOSTS_MATCH:
		return true;
	case KNOWNHOSTS_UNKNOWN:
		return hostkey_new(s, &r, blob, len, why);
	case KNOWNHOSTS_MISMATCH:
	case KNOWNHOSTS_REVOKED:
		refuse(s, "%s: %s", s->t->host, why);
		return false;
	}
	return false;
}

/* ---- authentication ---- */

static void
note(struct ssh *s, const char *fmt, ...) PRINTFLIKE(2, 3);

static void
note(struct ssh *s, const char *fmt, ...)
{
	va_list ap;
	char line[400];

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (s->notes.len > 0)
		buf_adds(&s->notes, "; ");
	buf_adds(&s->notes, line);
}

/* Whether libssh2 could not read a key file it was given (for an
 * encrypted one: a wrong passphrase); 1.10 says so in four ways, before
 * anything is sent to the host. */
static bool
key_unreadable(int rc)
{
	return rc == LIBSSH2_ERROR_FILE ||
	    rc == LIBSSH2_ERROR_KEYFILE_AUTH_FAILED ||
	    rc == LIBSSH2_ERROR_DECRYPT || rc == LIBSSH2_ERROR_PROTO;
}

/* What an authentication call's rc means: 1 in, -1 wait (EAGAIN) or the
 * link is lost (the attempt is over), 0 this key was refused. */
static int
auth_result(struct ssh *s, int rc)
{
	if (rc == 0)
		return 1;
	if (rc == LIBSSH2_ERROR_EAGAIN)
		return -1;
	if (is_socket_error(rc)) {
		lost(s, "%s: %s", s->t->host, ssh_errmsg(s));
		return -1;
	}
	return 0;
}

static void
authenticated(struct ssh *s)
{
	pass_wipe(s);
	s->skip_pass = false;
	s->phase = PH_IDLECHAN;
}

/* Whether the agent's key k may be offered: with IdentitiesOnly, only
 * one an identity file names (its public half, PATH.pub, as ssh reads
 * it); otherwise any. */
static bool
agent_key_allowed(const struct ssh *s,
    const struct libssh2_agent_publickey *k)
{
	char *want, *pub, *data, msg[256];
	size_t i, len, wlen;
	bool ok = false;

	if (!s->sh.ids_only)
		return true;
	want = xmalloc(4 * ((k->blob_len + 2) / 3) + 1);
	wlen = (size_t)EVP_EncodeBlock((unsigned char *)want, k->blob,
	    (int)k->blob_len);
	for (i = 0; !ok && i < s->sh.nids; i++) {
		pub = xasprintf("%s.pub", s->sh.ids[i].value);
		if (docfile_read(pub, SSHKEY_MAX_BYTES, &data, &len, msg,
		    sizeof msg) == 0) {
			/* "TYPE BASE64 [COMMENT]" */
			const char *b = strchr(data, ' ');

			ok = b != NULL && strncmp(b + 1, want, wlen) == 0 &&
			    (b[1 + wlen] == ' ' || b[1 + wlen] == '\n' ||
			    b[1 + wlen] == '\0');
			free(data);
		}
		free(pub);
	}
	free(want);
	return ok;
}

/* The agent to ask: IdentityAgent's socket, else $SSH_AUTH_SOCK; NULL:
 * none ("IdentityAgent none", or nothing set). */
static const char *
agent_socket(const struct ssh *s)
{
	if (s->sh.agent != NULL)
		return s->sh.agent[0] != '\0' ? s->sh.agent : NULL;
	return getenv("SSH_AUTH_SOCK");
}

/* ssh-agent's keys, one after the other; 1 authenticated, 0 go on to the
 * files, -1 EAGAIN or the attempt ended. */
static int
auth_agent(struct ssh *s)
{
	struct libssh2_agent_publickey *k;
	const char *sock;
	int rc;

	if (s->agent == NULL) {
		if ((sock = agent_socket(s)) == NULL)
			return 0;
		if ((s->agent = libssh2_agent_init(s->sess)) == NULL) {
			note(s, "ssh-agent: cannot connect to it");
			return 0;
		}
		libssh2_agent_set_identity_path(s->agent, sock);
		if (libssh2_agent_connect(s->agent) != 0) {
			note(s, "ssh-agent: cannot connect to it");
			return 0;
		}
		if (libssh2_agent_list_identities(s->agent) != 0) {
			note(s, "ssh-agent: cannot list its keys");
			return 0;
		}
		rc = libssh2_agent_get_identity(s->agent, &k, NULL);
		if (rc != 0) {
			note(s, "ssh-agent holds no keys");
			return 0;
		}
		s->agent_key = k;
	}
	while (s->agent_key != NULL) {
		if (agent_key_allowed(s, s->agent_key)) {
			rc = libssh2_agent_userauth(s->agent, s->sh.user,
			    s->agent_key);
			if ((rc = auth_result(s, rc)) != 0)
				return rc;
			note(s, "ssh-agent key '%s' refused",
			    s->agent_key->comment != NULL ?
			    s->agent_key->comment : "?");
		}
		if (libssh2_agent_get_identity(s->agent, &k,
		    s->agent_key) != 0)
			k = NULL;
		s->agent_key = k;
	}
	return 0;
}

static void
ask_passphrase(struct ssh *s, const char *path, bool again)
{
	timer_stop(s, &s->attempt_timer);
	s->phase = PH_ASK;
	s->ask = TRANSPORT_ASK_PASSPHRASE;
	s->ask_seq++;
	snprintf(s->ask_text, sizeof s->ask_text, "%s%s: passphrase for %s",
	    again ? "wrong passphrase; " : "", s->t->host, path);
	{
		char *safe = text_sanitize_str(s->ask_text);

		snprintf(s->ask_text, sizeof s->ask_text, "%s", safe);
		free(safe);
	}
	notify(s);
}

/* The identity files in order; 1 authenticated, 0 none left, -1 EAGAIN,
 * asking, or the attempt ended. */
static int
auth_files(struct ssh *s)
{
	struct sshkey_info info;
	const char *path;
	char err[400], *data;
	size_t len;
	int rc;

	for (; s->id < s->sh.nids; s->id++, s->wrong_pass = false) {
		path = s->sh.ids[s->id].value;
		/* ssh's default files may well be missing. */
		if (s->sh.default_ids && access(path, F_OK) != 0 &&
		    errno == ENOENT)
			continue;
		if (sshkey_read(path, &data, &len, &info, err,
		    sizeof err) != 0) {
			note(s, "%s", err);
			continue;
		}
		if (info.encrypted && s->skip_pass && s->pass_id == s->id) {
			sshkey_wipe(data, len + 1);
			continue;
		}
		if (info.encrypted && (s->pass == NULL ||
		    s->pass_id != s->id)) {
			sshkey_wipe(data, len + 1);
			if (!s->t->can_ask) {
				note(s, "%s is encrypted, and nobody is there "
				    "to type its passphrase: add it to "
				    "ssh-agent (ssh-add)", path);
				continue;
			}
			ask_passphrase(s, path, s->wrong_pass);
			return -1;
		}
		/* Never NULL: OpenSSL would ask the terminal for it. */
		rc = libssh2_userauth_publickey_frommemory(s->sess,
		    s->sh.user, strlen(s->sh.user), NULL, 0, data, len,
		    info.encrypted ? s->pass : "");
		sshkey_wipe(data, len + 1);
		if (rc == LIBSSH2_ERROR_EAGAIN || rc == 0 ||
		    is_socket_error(rc))
			return auth_result(s, rc);
		if (info.encrypted && key_unreadable(rc)) {
			/* The key did not decrypt: ask again. */
			pass_wipe(s);
			s->wrong_pass = true;
			ask_passphrase(s, path, true);
			return -1;
		}
		pass_wipe(s);
		if (info.rsa)
			note(s, "%s is an RSA key: this libssh2 (1.10) signs "
			    "only with ssh-rsa (SHA-1), which OpenSSH 8.8 and "
			    "later refuse; use an Ed25519 or ECDSA key", path);
		else if (key_unreadable(rc))
			note(s, "%s: %s", path, ssh_errmsg(s));
		else
			note(s, "%s refused", path);
	}
	return 0;
}

static void
auth_failed(struct ssh *s)
{
	refuse(s, "%s: authentication as '%s' failed: %s", s->t->host,
	    s->sh.user, s->notes.len > 0 ? s->notes.data :
	    "no key to offer (no ssh-agent, no identity file)");
}

/* ---- the version probe ---- */

/* The attempt succeeded. */
static void
host_up(struct ssh *s)
{
	timer_stop(s, &s->attempt_timer);
	s->phase = PH_UP;
	s->attempt = 0;
	s->error[0] = '\0';
	s->ask = TRANSPORT_ASK_NONE;
	set_state(s, TRANSPORT_UP);
	tick_arm(s);
	if (s->is_jump)
		s->more = true;		/* the tunnels waiting to open */
}

static void
probe_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct ssh *s = arg;

	(void)rs;
	(void)cut;
	if (from_stderr) {
		if (s->probe_err[0] == '\0')
			snprintf(s->probe_err, sizeof s->probe_err, "%.*s",
			    (int)(len < 199 ? len : 199), line);
		return;
	}
	if (s->probe_out.len == 0)
		buf_add(&s->probe_out, line, len);
}

static void
probe_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct ssh *s = arg;
	struct hostcmd_version v;
	char why[200], *safe;
	const char *first;

	(void)rs;
	s->probe = NULL;
	if (ex->lost)
		return;		/* the attempt is over already */
	if (ex->err != NULL) {
		lost(s, "%s", ex->err);
		return;
	}
	if (ex->code == 127) {
		refuse(s, "%s: calops is not there ('%s': %s); set calops: in "
		    "the lab file to its path on the host", s->t->host,
		    s->program, s->probe_err[0] != '\0' ? s->probe_err :
		    "command not found");
	} else if (hostcmd_version_parse(s->probe_out.data, s->probe_out.len,
	    &v, why, sizeof why) != 0) {
		first = s->probe_out.len > 0 ? s->probe_out.data :
		    s->probe_err;
		refuse(s, "%s: '%s version --json' did not say its version "
		    "(exit %d: %.120s)", s->t->host, s->program, ex->code,
		    *first != '\0' ? first : "no output");
	} else if (v.protocol != HOSTCMD_PROTOCOL) {
		refuse(s, "%s: its calops %.32s speaks protocol %lld, this "
		    "console %d: install the same calops there", s->t->host,
		    v.version, v.protocol, HOSTCMD_PROTOCOL);
	} else {
		safe = text_sanitize_str(v.version);
		snprintf(s->version, sizeof s->version, "%s", safe);
		free(safe);
		host_up(s);
	}
}

static const struct rstream_cb probe_cb = {
	.line = probe_line,
	.done = probe_done,
};

static struct ssh_chan *
chan_new(struct ssh *s, char *const argv[], const struct rstream_cb *cb,
    void *arg, bool with_input, char *err, size_t errlen)
{
	struct ssh_chan *c, **pp;
	struct buf cmd = BUF_INIT;
	char *args[66];
	size_t n;

	args[0] = s->program;
	for (n = 0; argv[n] != NULL; n++) {
		if (n + 2 >= nitems(args)) {
			errbuf_set(err, errlen, "too many arguments");
			return NULL;
		}
		args[n + 1] = argv[n];
	}
	args[n + 1] = NULL;
	buf_init(&cmd, CMDLINE_MAX);
	ssh_quote_argv(&cmd, args);
	if (cmd.len >= CMDLINE_MAX - 1) {
		buf_release(&cmd);
		errbuf_set(err, errlen, "a command line longer than %u KiB",
		    CMDLINE_MAX >> 10);
		return NULL;
	}
	c = xcalloc(1, sizeof *c);
	c->base.t = s->t;
	c->s = s;
	c->cb = cb;
	c->arg = arg;
	c->code = -1;
	c->cmdline = buf_detach(&cmd, NULL);
	buf_init(&c->line[0], CHILD_LINE_MAX);
	buf_init(&c->line[1], CHILD_LINE_MAX);
	c->has_input = with_input;
	buf_init(&c->in, CHILD_INPUT_MAX);
	for (pp = &s->chans; *pp != NULL; pp = &(*pp)->next)
		;
	*pp = c;
	return c;
}

/* ---- driving it all ---- */

static void
drive_connect(struct ssh *s)
{
	const char *list;
	int rc, err;
	socklen_t len = sizeof err;

	switch (s->phase) {
	case PH_IDLE:
	case PH_CONFIG:
	case PH_RESOLVE:
	case PH_ASK:
	case PH_UP:
		return;
	case PH_TCP:
		if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
			err = errno;
		if (err == 0 && s->ai != NULL && connect(s->fd,
		    s->ai->ai_addr, s->ai->ai_addrlen) == -1 &&
		    errno != EISCONN)
			err = errno;
		if (err == EALREADY || err == EINPROGRESS)
			return;
		if (err != 0 && s->ai == NULL) {
			lost(s, "%s: %s", s->t->host, strerror(err));
			return;
		}
		if (err != 0) {
			loop_del_fd(s->t->loop, s->fd);
			close(s->fd);
			s->fd = -1;
			s->ai = s->ai->ai_next;
			tcp_next(s, strerror(err));
			return;
		}
		session_start(s);
		if (s->phase != PH_HANDSHAKE)
			return;
		/* FALLTHROUGH */
	case PH_HANDSHAKE:
		rc = libssh2_session_handshake(s->sess, s->fd);
		if (rc == LIBSSH2_ERROR_EAGAIN)
			return;
		if (rc != 0) {
			lost(s, "%s: SSH handshake with %s failed: %s",
			    s->t->host, s->peer, ssh_errmsg(s));
			return;
		}
		compress_agreed(s);
		if (!hostkey_ok(s))
			return;
		s->phase = PH_AUTHLIST;
		/* FALLTHROUGH */
	case PH_AUTHLIST:
		list = libssh2_userauth_list(s->sess, s->sh.user,
		    (unsigned)strlen(s->sh.user));
		if (list == NULL) {
			if (libssh2_userauth_authenticated(s->sess)) {
				authenticated(s);
				break;
			}
			rc = libssh2_session_last_errno(s->sess);
			if (rc == LIBSSH2_ERROR_EAGAIN)
				return;
			lost(s, "%s: %s", s->t->host, ssh_errmsg(s));
			return;
		}
		if (strstr(list, "publickey") == NULL) {
			refuse(s, "%s offers no public key authentication to "
			    "'%s' (it offers: %s)", s->t->host, s->sh.user,
			    list);
			return;
		}
		s->phase = PH_AGENT;
		s->id = 0;
		/* FALLTHROUGH */
	case PH_AGENT:
		if ((rc = auth_agent(s)) < 0)
			return;
		if (rc == 1) {
			authenticated(s);
			break;
		}
		s->phase = PH_KEYFILE;
		/* FALLTHROUGH */
	case PH_KEYFILE:
		if ((rc = auth_files(s)) < 0)
			return;
		if (rc == 0) {
			auth_failed(s);
			return;
		}
		authenticated(s);
		break;
	case PH_IDLECHAN:
	case PH_VERSION:
		break;
	}
	if (s->phase == PH_IDLECHAN) {
		s->idle = libssh2_channel_open_session(s->sess);
		if (s->idle == NULL) {
			rc = libssh2_session_last_errno(s->sess);
			if (rc == LIBSSH2_ERROR_EAGAIN)
				return;
			if (s->is_jump && !is_socket_error(rc)) {
				/* A bastion may allow no session (sshd's
				 * MaxSessions 0) and still forward: the
				 * tunnels read what comes. */
				host_up(s);
				return;
			}
			lost(s, "%s: cannot open a channel: %s", s->t->host,
			    ssh_errmsg(s));
			return;
		}
		if (s->is_jump) {
			/* Nothing to run there: calops need not be on it. */
			host_up(s);
			return;
		}
		s->phase = PH_VERSION;
		{
			struct strv argv = { NULL, 0, 0 };
			char why[200];

			s->probe_err[0] = '\0';
			buf_reset(&s->probe_out);
			hostcmd_version(&argv);
			s->probe = chan_new(s, argv.v, &probe_cb, s, false,
			    why, sizeof why);
			strv_free(&argv);
		}
	}
}

/* Cancelled commands never opened go at once, whatever the connection. */
static void
reap_queued(struct ssh *s)
{
	struct ssh_chan *c, *next;

	s->reap = false;
	for (c = s->chans; c != NULL; c = next) {
		next = c->next;
		if (c->cancelled && c->st == CH_QUEUED && c != s->probe) {
			chan_unlink(s, c);
			chan_free(c);
		} else if (c->cancelled)
			s->more = true;		/* to be closed */
	}
}

static void
drive(struct ssh *s)
{
	if (s->driving)
		return;
	s->driving = true;
	reap_queued(s);
	drive_connect(s);
	if (s->sess != NULL && s->phase >= PH_IDLECHAN)
		chans_run(s);
	s->driving = s->dry = false;
}

/* ---- liveness ---- */

static void
tick_fire(struct loop *l, void *arg)
{
	struct ssh *s = arg;
	int64_t quiet = loop_now_ms() - s->last_rx;
	int64_t k = (int64_t)s->sh.keepalive_s * 1000;
	int64_t n = s->sh.alive_max;
	int next = 0;

	(void)l;
	s->tick_timer = -1;
	if (s->phase != PH_UP)
		return;
	if (quiet >= n * k) {
		lost(s, "%s: no byte received for %lld s", s->t->host,
		    (long long)(quiet / 1000));
		return;
	}
	if (n >= 2 && quiet >= (n - 1) * k && s->state == TRANSPORT_UP)
		set_state(s, TRANSPORT_STALE);
	/* Only to a quiet host, never over a packet half sent, and only
	 * where the socket has room for the whole of it: were the keepalive
	 * itself half sent, 1.10 would keep it (its bytes on a stack gone)
	 * as the one to finish, refuse every other send until it is, and
	 * say EAGAIN to nobody.  A send that fails shows as silence, which
	 * the next tick judges. */
	if (quiet >= k && !(libssh2_session_block_directions(s->sess) &
	    LIBSSH2_SESSION_BLOCK_OUTBOUND) && send_room(s) >= 4096)
		(void)libssh2_keepalive_send(s->sess, &next);
	tick_arm(s);
}

/* Free bytes in the socket's send buffer (0 when not known). */
static long
send_room(struct ssh *s)
{
	int size, queued;
	socklen_t len = sizeof size;

	if (getsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &size, &len) != 0 ||
	    ioctl(s->fd, SIOCOUTQ, &queued) != 0)
		return 0;
	return (long)size - queued;
}

/*
 * Wake at the next moment something is due: a keepalive (sent when the
 * host has been quiet for keepalive_s), going stale (one keepalive before
 * lost), or lost (ServerAliveCountMax keepalives unanswered, 3 unless the
 * config says).
 */
static void
tick_arm(struct ssh *s)
{
	int64_t now = loop_now_ms(), k = (int64_t)s->sh.keepalive_s * 1000;
	int64_t due, quiet = now - s->last_rx, n = s->sh.alive_max;

	if (s->phase != PH_UP)
		return;
	/* The next multiple of k: a keepalive, stale or lost. */
	due = quiet < n * k ? k - quiet % k : 0;
	if (due > k)
		due = k;
	if (due < 100)
		due = 100;
	timer_stop(s, &s->tick_timer);
	s->tick_timer = loop_add_timer(s->t->loop, (long)due, tick_fire, s);
}

/* ---- the attempt ---- */

static void
attempt_start(struct ssh *s)
{
	teardown(s, false);
	s->ask_lost = false;
	s->ask = TRANSPORT_ASK_NONE;
	s->ask_text[0] = '\0';
	s->peer[0] = '\0';
	s->wrong_pass = false;
	s->version[0] = '\0';
	if (s->state == TRANSPORT_DISCONNECTED ||
	    s->state == TRANSPORT_RECONNECTING ||
	    s->state == TRANSPORT_REFUSED) {
		s->attempt++;
		set_state(s, TRANSPORT_RECONNECTING);
	} else
		set_state(s, TRANSPORT_CONNECTING);
	s->last_rx = 0;
	s->attempt_timer = loop_add_timer(s->t->loop, attempt_ms(s),
	    attempt_timeout, s);
	resolve_start(s);
}

/* ---- the way there: ProxyJump and ProxyCommand ---- */

static void
on_tunnel(struct loop *l, int fd, short revents, void *arg)
{
	(void)l;
	(void)fd;
	(void)revents;
	drive(arg);
}

/* A jump's tunnels, each one round; the orphans whose channel is gone are
 * freed.  Whether anything moved. */
static bool
tuns_run(struct ssh *s, size_t *budget)
{
	bool moved = false;
	size_t i;

	for (i = 0; i < s->ntuns && s->phase == PH_UP; i++) {
		switch (sshtunnel_run(s->tuns[i], &s->tsess, budget)) {
		case SSHTUNNEL_LOST:
			lost(s, "%s: %s", s->t->host, ssh_errmsg(s));
			return false;
		case SSHTUNNEL_MOVED:
			moved = true;
			break;
		case SSHTUNNEL_IDLE:
			break;
		}
	}
	for (i = 0; i < s->ntuns; i++) {
		if (!sshtunnel_done(s->tuns[i]))
			continue;
		sshtunnel_free(s->tuns[i]);
		s->tuns[i--] = s->tuns[--s->ntuns];
	}
	return moved;
}

/* The jump's session is gone: every tunnel in it ends with why, so that
 * the hosts behind see their connection go. */
static void
tuns_fail(struct ssh *s)
{
	const char *why = s->error;
	size_t i, n = strlen(s->t->host);

	if (s->ntuns == 0)
		return;
	/* "bastion: connect to …" is said "via bastion: connect to …". */
	if (strncmp(why, s->t->host, n) == 0 && strncmp(why + n, ": ", 2) == 0)
		why += n + 2;
	for (i = 0; i < s->ntuns; i++)
		sshtunnel_fail(s->tuns[i], *why != '\0' ? why : "closed");
	for (i = 0; i < s->ntuns; i++) {
		if (!sshtunnel_done(s->tuns[i]))
			continue;
		sshtunnel_free(s->tuns[i]);
		s->tuns[i--] = s->tuns[--s->ntuns];
	}
}

/* Start the jump's next attempt now rather than at its backoff's end: a
 * host behind it is trying. */
static void
jump_kick(struct ssh *j)
{
	if (j->phase != PH_IDLE || j->state == TRANSPORT_REFUSED)
		return;
	timer_stop(j, &j->retry_timer);
	j->retry_timer = loop_add_timer(j->t->loop, 0, retry_fire, j);
}

static void
proxy_line(struct child *c, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct ssh *s = arg;

	(void)c;
	(void)from_stderr;
	(void)cut;
	if (len > 0)
		snprintf(s->proxy_err, sizeof s->proxy_err, "%.*s",
		    (int)(len < 199 ? len : 199), line);
}

/* The command ended: its end of the socket with it, which the session
 * sees; the status says more when it said nothing. */
static void
proxy_done(struct child *c, int status, void *arg)
{
	struct ssh *s = arg;

	if (s->proxy == c)
		s->proxy = NULL;
	if (s->proxy_err[0] == '\0' && WIFEXITED(status))
		snprintf(s->proxy_err, sizeof s->proxy_err, "it exited with "
		    "status %d", WEXITSTATUS(status));
	else if (s->proxy_err[0] == '\0' && WIFSIGNALED(status))
		snprintf(s->proxy_err, sizeof s->proxy_err, "it was killed by "
		    "signal %d", WTERMSIG(status));
}

static const struct child_ops proxy_ops = {
	.line = proxy_line,
	.done = proxy_done,
};

/* Run the ProxyCommand as ssh runs it (sshconnect.c
 * ssh_proxy_connect): "exec COMMAND" by $SHELL -c, /bin/sh when SHELL is
 * unset or empty, its stdin and stdout the socketpair's other end.  0, or
 * -1 (refused). */
static int
proxy_spawn(struct ssh *s, int fd)
{
	char *cmd, *argv[4], err[300];
	const char *shell = getenv("SHELL");

	cmd = xasprintf("exec %s", s->proxy_cmd);
	argv[0] = (char *)(shell != NULL && shell[0] != '\0' ? shell :
	    "/bin/sh");
	argv[1] = "-c";
	argv[2] = cmd;
	argv[3] = NULL;
	s->proxy_err[0] = '\0';
	s->proxy = child_start_io(s->t->loop, argv, fd, &proxy_ops, s, err,
	    sizeof err);
	free(cmd);
	if (s->proxy == NULL) {
		refuse(s, "%s: ProxyCommand: %s", s->t->host, err);
		return -1;
	}
	return 0;
}

/*
 * A socketpair in place of the TCP connection: one end the session's
 * socket, the other a tunnel through the jump host (opened once the jump
 * is up; what the session sends meanwhile waits in the socket) or the
 * ProxyCommand's stdin and stdout.  The ends this process reads are
 * non-blocking; the command's stays blocking, as a program expects its
 * stdin and stdout to be.
 */
static void
way_start(struct ssh *s)
{
	int sv[2], e;

	if (s->jump != NULL && s->jump->state == TRANSPORT_REFUSED) {
		refuse(s, "%s: via %s", s->t->host, s->jump->error);
		return;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
		lost(s, "%s: cannot make a socketpair: %s", s->t->host,
		    strerror(errno));
		return;
	}
	if (fileio_set_nonblock(sv[0], true) != 0 || (s->jump != NULL &&
	    fileio_set_nonblock(sv[1], true) != 0)) {
		e = errno;
		close(sv[0]);
		close(sv[1]);
		lost(s, "%s: cannot make a socket non-blocking: %s",
		    s->t->host, strerror(e));
		return;
	}
	if (s->jump != NULL) {
		snprintf(s->peer, sizeof s->peer, "%s port %d via %s",
		    s->sh.hostname, s->sh.port, s->jump->t->host);
		s->jump->tuns = xreallocarray(s->jump->tuns,
		    s->jump->ntuns + 1, sizeof *s->jump->tuns);
		s->tun = sshtunnel_new(s->t->loop, s->sh.hostname, s->sh.port,
		    sv[1], on_tunnel, s->jump);
		s->jump->tuns[s->jump->ntuns++] = s->tun;
		s->jump->more = true;
		jump_kick(s->jump);
	} else {
		snprintf(s->peer, sizeof s->peer, "its ProxyCommand");
		if (proxy_spawn(s, sv[1]) != 0) {
			close(sv[0]);
			close(sv[1]);
			return;
		}
		close(sv[1]);
	}
	s->fd = sv[0];
	s->phase = PH_TCP;
	loop_add_fd(s->t->loop, s->fd, POLLOUT, on_socket, s);
}

/* A jump's hosts (or the jumps behind it) hear of its changes. */
static void
jump_changed(struct transport *t, void *arg)
{
	struct ssh *j = arg;
	size_t i;

	(void)t;
	for (i = 0; i < j->nusers; i++)
		notify(j->users[i]);
}

static void	ssh_close(struct transport *t);

/* s no longer goes through its jump; the last one behind closes it. */
static void
jump_release(struct ssh *s)
{
	struct ssh *j = s->jump, **pp;
	size_t i;

	if (j == NULL)
		return;
	s->jump = NULL;
	for (i = 0; i < j->nusers; i++)
		if (j->users[i] == s)
			j->users[i--] = j->users[--j->nusers];
	if (j->nusers > 0)
		return;
	for (pp = &jumps; *pp != NULL; pp = &(*pp)->jump_next)
		if (*pp == j) {
			*pp = j->jump_next;
			break;
		}
	ssh_close(j->t);
}

static int ssh_new(struct loop *l, const char *name,
    const struct lab_host *h, const char *labfile, const char *config,
    const struct sshconfig_resolver *rs, struct ssh **out, char *err,
    size_t errlen);
static int way_setup(struct ssh *s, const char *chain,
    const struct lab_host *h, const char *labfile, const char *config,
    const struct sshconfig_resolver *rs, int depth, char *err,
    size_t errlen);

/* What makes two jumps one: where, as whom, how checked, and the way. */
static char *
jump_key(const struct ssh *j, const char *config)
{
	return xasprintf("%s|%s|%s|%d|%s|%s|%d|%d|%d|%s|%s|%s", j->sh.alias,
	    j->sh.user, j->sh.hostname, j->sh.port, j->known_hosts != NULL ?
	    j->known_hosts : "", j->sh.kh_name, j->sh.kh_port, j->sh.strict,
	    j->sh.keepalive_s, config != NULL ? config : "",
	    j->jump != NULL ? j->jump->jump_key : "",
	    j->proxy_cmd != NULL ? j->proxy_cmd : "");
}

/*
 * The jump host spec ("[user@]host[:port]") for h, resolved through the
 * ssh config as any host is (user and port as given override it, as ssh's
 * -l and -p do), reached in turn through chain (the jump hosts before it
 * in a ProxyJump list) or, with none, its own ProxyJump or ProxyCommand;
 * names made canonical asked of rs.  The one already in use for the same
 * is shared.  0 with *out, -1 with err, or SSHCONFIG_WAIT.
 */
static int
jump_get(struct loop *l, const char *spec, const char *chain,
    const struct lab_host *h, const char *labfile, const char *config,
    const struct sshconfig_resolver *rs, int depth, struct ssh **out,
    char *err, size_t errlen)
{
	struct sshconfig_resolver jrs = *rs;
	struct lab_host jh;
	struct ssh *s, *j;
	char *cut, msg[512];
	int rc;

	memset(&jh, 0, sizeof jh);
	cut = xstrdup(spec);
	if (sshconfig_kw_jump_cut(cut, &jh.user, &jh.address, &jh.port) != 0) {
		errbuf_set(err, errlen, "'%s' is not a jump host such as "
		    "[user@]host[:port]", spec);
		free(cut);
		return -1;
	}
	jh.name = (char *)(uintptr_t)spec;
	jh.transport = LAB_SSH;
	jh.known_hosts = h->known_hosts;
	jh.keepalive_s = h->keepalive_s;
	jh.accept_new = h->accept_new;
	/* ssh reaches a hop with the ones before it as its -J. */
	jrs.jumped = chain != NULL;
	rc = ssh_new(l, spec, &jh, labfile, config, &jrs, &s, msg, sizeof msg);
	free(cut);
	if (rc == 0 && (rc = way_setup(s, chain, h, labfile, config, rs,
	    depth, msg, sizeof msg)) != 0)
		ssh_close(s->t);
	if (rc == -1)
		errbuf_set(err, errlen, "jump host '%s': %s", spec, msg);
	if (rc != 0)
		return rc;
	s->jump_key = jump_key(s, config);
	for (j = jumps; j != NULL; j = j->jump_next)
		if (j->t->loop == l && strcmp(j->jump_key, s->jump_key) == 0) {
			ssh_close(s->t);
			*out = j;
			return 0;
		}
	s->is_jump = true;
	s->jump_next = jumps;
	jumps = s;
	s->t->changed = jump_changed;
	s->t->changed_arg = s;
	s->configured = true;
	attempt_start(s);
	*out = s;
	return 0;
}

/*
 * The way to s's host: chain (jump hosts given before it: ssh's -J) or
 * else its ProxyJump, the last jump host the one next to the host, the
 * others the way to that one; else its ProxyCommand.  0, -1 with err, or
 * SSHCONFIG_WAIT (a jump's name made canonical, asked of rs).
 */
static int
way_setup(struct ssh *s, const char *chain, const struct lab_host *h,
    const char *labfile, const char *config,
    const struct sshconfig_resolver *rs, int depth, char *err,
    size_t errlen)
{
	const char *list = chain != NULL ? chain : s->sh.proxy_jump;
	char *rest, *spec;
	int rc;

	if (list == NULL) {
		if (s->sh.proxy_command != NULL)
			s->proxy_cmd = xstrdup(s->sh.proxy_command);
		return 0;
	}
	if (depth >= JUMPS_MAX) {
		errbuf_set(err, errlen, "the way there goes through more than "
		    "%d jump hosts (does a jump host's ProxyJump lead back to "
		    "itself?)", JUMPS_MAX);
		return -1;
	}
	rest = xstrdup(list);
	if ((spec = strrchr(rest, ',')) != NULL)
		*spec++ = '\0';
	rc = jump_get(s->t->loop, spec != NULL ? spec : rest, spec != NULL ?
	    rest : NULL, h, labfile, config, rs, depth + 1, &s->jump, err,
	    errlen);
	free(rest);
	if (rc != 0)
		return rc;
	s->jump->users = xreallocarray(s->jump->users, s->jump->nusers + 1,
	    sizeof *s->jump->users);
	s->jump->users[s->jump->nusers++] = s;
	return 0;
}

/* The jumps on s's way, the first hop first, for the screens. */
static long	ssh_rtt(struct ssh *s);

static void
status_jumps(struct ssh *s, struct transport_status *st)
{
	struct transport_jump *tj;
	struct ssh *j;
	size_t n = 0;
	char *safe;

	for (j = s->jump; j != NULL && n < JUMPS_MAX; j = j->jump)
		n++;
	st->njumps = n;
	for (j = s->jump; j != NULL && n > 0; j = j->jump) {
		tj = &st->jumps[--n];
		safe = text_sanitize_str(j->t->host);
		snprintf(tj->name, sizeof tj->name, "%s", safe);
		free(safe);
		tj->state = j->state;
		tj->since_ms = j->since;
		tj->rtt_us = ssh_rtt(j);
		snprintf(tj->error, sizeof tj->error, "%.*s",
		    (int)sizeof tj->error - 1, j->error);
	}
}

/* ---- the transport's operations ---- */

static int
ssh_connect(struct transport *t, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	/* The jumps on the way ask through the hosts behind them. */
	asks_through(t->data);
	return 0;
}

static struct rstream *
start(struct transport *t, char *const argv[], const struct rstream_cb *cb,
    void *arg, bool with_input, char *err, size_t errlen)
{
	struct ssh *s = t->data;
	struct ssh_chan *c;

	if (s->state == TRANSPORT_REFUSED) {
		errbuf_set(err, errlen, "%s", s->error);
		return NULL;
	}
	if ((c = chan_new(s, argv, cb, arg, with_input, err, errlen)) == NULL)
		return NULL;
	s->more = true;		/* opened at the next round when up */
	return &c->base;
}

static struct rstream *
ssh_exec(struct transport *t, char *const argv[], const struct rstream_cb *cb,
    void *arg, char *err, size_t errlen)
{
	return start(t, argv, cb, arg, false, err, errlen);
}

static struct rstream *
ssh_exec_input(struct transport *t, char *const argv[],
    const struct rstream_cb *cb, void *arg, char *err, size_t errlen)
{
	return start(t, argv, cb, arg, true, err, errlen);
}

/* Queued here, sent by chan_step() at the next round (ssh_pending). */
static int
ssh_input(struct rstream *rs, const void *data, size_t len, bool eof,
    char *err, size_t errlen)
{
	struct ssh_chan *c = (struct ssh_chan *)rs;

	if (!c->has_input || c->in_eof) {
		errbuf_set(err, errlen, "the command's input is closed");
		return -1;
	}
	if (len > CHILD_INPUT_MAX - c->in.len) {
		errbuf_set(err, errlen, "more than %u KiB waiting for %s to "
		    "read", CHILD_INPUT_MAX >> 10, c->s->t->host);
		return -1;
	}
	buf_add(&c->in, data, len);
	c->in_eof = eof;
	c->s->more = true;
	return 0;
}

static void
ssh_cancel(struct rstream *rs)
{
	struct ssh_chan *c = (struct ssh_chan *)rs;

	c->cancelled = true;
	c->s->reap = true;
}

static void
hold_over(struct loop *l, void *arg)
{
	struct ssh *s = arg;

	uint64_t rx = s->rx_bytes;

	(void)l;
	s->hold_timer = -1;
	if (s->phase != PH_UP)
		return;
	/*
	 * Read at the tick whether the socket is readable or not.  A host
	 * whose events come every BATCH_MS or so (calops tail holds them
	 * that long) would else find nothing at one tick, wake the loop on
	 * its own when they come, and again at every tick after: 16 wakeups
	 * a tick, not one.  Once it has sent nothing for GRID_IDLE_MAX ticks
	 * it is watched again (ssh_events): an idle console sleeps.
	 */
	drive(s);
	if (s->phase != PH_UP)
		return;
	if (s->rx_bytes != rx || ++s->grid_idle >= GRID_IDLE_MAX)
		s->grid_idle = 0;
	else
		s->hold_until = (loop_now_ms() / BATCH_MS + 1) * BATCH_MS;
}

/*
 * What to wait for on the socket.  A host that trickles (less than
 * BATCH_BYTES in BATCH_MS: events as they happen, not a catch-up or a bulk
 * transfer) is read at most every BATCH_MS, every host at the same ticks of
 * the clock: what comes meanwhile waits in the kernel and is read in one
 * go, so that 16 hosts writing 200 events a second each wake the console 25
 * times a second, not thousands (the lag this adds is under BATCH_MS, far
 * below the 250 ms the issue asks for).  Data already inside libssh2 is
 * pending() and never held; a send that would block is never held either.
 */
static int
ssh_events(struct transport *t, short *events)
{
	struct ssh *s = t->data;
	int64_t now;
	int dirs = 0;
	size_t i;

	*events = 0;
	if (s->jump != NULL)
		transport_before_sleep(s->jump->t);
	for (i = 0; i < s->ntuns; i++)
		sshtunnel_poll(s->tuns[i]);
	if (s->fd == -1 || s->ask_lost)
		return -1;
	if (s->phase == PH_TCP) {
		*events = POLLOUT;
		return s->fd;
	}
	if (s->sess != NULL)
		dirs = libssh2_session_block_directions(s->sess);
	now = loop_now_ms();
	if (s->phase == PH_UP && now < s->hold_until &&
	    !(dirs & LIBSSH2_SESSION_BLOCK_OUTBOUND)) {
		if (s->hold_timer == -1)
			s->hold_timer = loop_add_timer(s->t->loop,
			    (long)(s->hold_until - now), hold_over, s);
		return s->fd;	/* a hangup or an error still wakes */
	}
	*events = POLLIN;
	if (dirs & LIBSSH2_SESSION_BLOCK_OUTBOUND)
		*events |= POLLOUT;
	return s->fd;
}

static size_t
ssh_pending(struct transport *t)
{
	struct ssh *s = t->data;
	struct ssh_chan *c;
	size_t i;

	if (s->reap)
		return 1;
	if (s->sess == NULL || s->phase < PH_IDLECHAN)
		return 0;
	if (s->more)
		return 1;
	for (c = s->chans; c != NULL; c = c->next) {
		if (c->st == CH_QUEUED && !s->opening &&
		    (s->phase == PH_UP || c == s->probe) &&
		    s->nopen < s->chan_cap)
			return 1;
		/* Only > 0 is data: 1.10 keeps the keepalive replies it
		 * does not handle on its packet list, and the poll then
		 * says -38 for ever. */
		if (c->st == CH_OPEN && c->ch != NULL &&
		    (libssh2_poll_channel_read(c->ch, 0) > 0 ||
		    libssh2_poll_channel_read(c->ch, 1) > 0))
			return 1;
	}
	for (i = 0; i < s->ntuns; i++)
		if (sshtunnel_pending(s->tuns[i]))
			return 1;
	return 0;
}

static void
ssh_deliver(struct transport *t)
{
	drive(t->data);
}

static void
ssh_close(struct transport *t)
{
	struct ssh *s = t->data;
	struct ssh_chan *c;
	size_t i;

	teardown(s, true);
	setup_release(s);
	jump_release(s);
	while ((c = s->chans) != NULL) {
		s->chans = c->next;
		chan_free(c);
	}
	for (i = 0; i < s->ntuns; i++)
		sshtunnel_free(s->tuns[i]);
	free(s->tuns);
	free(s->users);
	free(s->jump_key);
	free(s->proxy_cmd);
	timer_stop(s, &s->retry_timer);
	timer_stop(s, &s->notify_timer);
	pass_wipe(s);
	free(s->new_key);
	buf_release(&s->notes);
	buf_release(&s->probe_out);
	sshhost_release(&s->sh);
	free(s->program);
	free(s->known_hosts);
	free(s);
	free(t->host);
	free(t);
}

/* The kernel's smoothed round trip of a TCP connection; -1 for none (a
 * socketpair: the way's jumps have theirs). */
static long
ssh_rtt(struct ssh *s)
{
	struct tcp_info ti;
	socklen_t len = sizeof ti;

	if (s->fd != -1 && s->phase > PH_TCP && s->jump == NULL &&
	    s->proxy_cmd == NULL &&
	    getsockopt(s->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0)
		return (long)ti.tcpi_rtt;
	return -1;
}

/*
 * The jump host on s's way that asks the operator something (its unknown
 * host key, its identity's passphrase), the nearest first, when s itself
 * asks nothing: a jump is no transport of the console's, so its question
 * is put, and answered, through each host behind it.  NULL: none.
 */
static struct ssh *
asking_jump(struct ssh *s, enum transport_ask ask)
{
	struct ssh *j;

	if (s->ask != TRANSPORT_ASK_NONE)
		return NULL;
	for (j = s->jump; j != NULL; j = j->jump)
		if (j->ask != TRANSPORT_ASK_NONE)
			return ask == TRANSPORT_ASK_NONE || j->ask == ask ? j :
			    NULL;
	return NULL;
}

static void
ssh_status(struct transport *t, struct transport_status *st)
{
	struct ssh *s = t->data, *j;

	memset(st, 0, sizeof *st);
	st->state = s->state;
	st->since_ms = s->since;
	st->last_rx_ms = s->last_rx;
	st->attempt = s->attempt;
	st->next_try_ms = s->next_try;
	st->rtt_us = ssh_rtt(s);
	status_jumps(s, st);
	snprintf(st->version, sizeof st->version, "%s", s->version);
	snprintf(st->error, sizeof st->error, "%s", s->error);
	snprintf(st->comp_cs, sizeof st->comp_cs, "%s", s->comp[0]);
	snprintf(st->comp_sc, sizeof st->comp_sc, "%s", s->comp[1]);
	st->ask = s->ask;
	st->ask_seq = s->ask_seq;
	snprintf(st->ask_text, sizeof st->ask_text, "%s", s->ask_text);
	if ((j = asking_jump(s, TRANSPORT_ASK_NONE)) != NULL) {
		st->ask = j->ask;
		snprintf(st->ask_text, sizeof st->ask_text, "%s", j->ask_text);
	}
	/* A new question on the way is a new one here too. */
	for (j = s->jump; j != NULL; j = j->jump)
		st->ask_seq += j->ask_seq;
}

static void
ssh_reconnect(struct transport *t)
{
	struct ssh *s = t->data;

	/* The operator acts on the host: on the jumps on its way too. */
	if (s->jump != NULL)
		ssh_reconnect(s->jump->t);
	if (s->phase != PH_IDLE && s->phase != PH_ASK)
		return;
	if (!s->configured) {
		/* Its settings failed: read them again (fixed meanwhile). */
		timer_stop(s, &s->retry_timer);
		setup_again(s);
		return;
	}
	timer_stop(s, &s->retry_timer);
	s->next_try = 0;
	s->skip_pass = false;	/* the operator acts: ask again */
	attempt_start(s);
}

/* The key the operator accepts, judged again against every file as they
 * are now: a revocation, a key or a @cert-authority line added meanwhile
 * wins over a yes given to the older verdict (knownhosts_add checks its
 * own file again too).  0 still unknown, -1 with err. */
static int
hostkey_still_new(struct ssh *s, char *err, size_t errlen)
{
	struct knownhosts *kh = xcalloc(s->sh.nkh + 1, sizeof *kh);
	struct knownhosts_result r;
	char why[600];
	size_t i, which;
	int rc = 0;

	for (i = 0; rc == 0 && i < s->sh.nkh; i++)
		if (knownhosts_load(&kh[i], s->sh.kh_files[i], err,
		    errlen) < 0)
			rc = -1;
	if (rc == 0)
		rc = knownhosts_check_all(kh, s->sh.nkh, s->sh.kh_name,
		    s->sh.kh_port, s->new_key, s->new_key_len, &r, &which, err,
		    errlen);
	if (rc == 0 && (r.verdict != KNOWNHOSTS_UNKNOWN || r.ca_line != 0)) {
		knownhosts_explain(&kh[which], &r, s->sh.kh_name,
		    s->sh.kh_port, why, sizeof why);
		errbuf_set(err, errlen, "not adding the key: %s", why);
		rc = -1;
	}
	for (i = 0; i < s->sh.nkh; i++)
		knownhosts_release(&kh[i]);
	free(kh);
	return rc;
}

static int
ssh_accept_key(struct transport *t, char *err, size_t errlen)
{
	struct ssh *s = t->data, *j;
	int rc;

	if ((j = asking_jump(s, TRANSPORT_ASK_KEY)) != NULL) {
		if (ssh_accept_key(j->t, err, errlen) != 0)
			return -1;
		ssh_reconnect(t);
		return 0;
	}
	if (s->ask != TRANSPORT_ASK_KEY || s->new_key == NULL) {
		errbuf_set(err, errlen, "%s has no unknown host key to accept",
		    t->host);
		return -1;
	}
	if (s->known_hosts == NULL) {
		errbuf_set(err, errlen, "%s: no UserKnownHostsFile to add the "
		    "key to", t->host);
		return -1;
	}
	if (hostkey_still_new(s, err, errlen) != 0)
		return -1;
	rc = knownhosts_add(s->known_hosts, s->sh.kh_name, s->sh.kh_port,
	    s->new_key, s->new_key_len, err, errlen);
	if (rc < 0)
		return -1;
	free(s->new_key);
	s->new_key = NULL;
	s->attempt = 0;
	ssh_reconnect(t);
	return 0;
}

static void
ssh_passphrase(struct transport *t, const char *pass)
{
	struct ssh *s = t->data, *j;

	if ((j = asking_jump(s, TRANSPORT_ASK_PASSPHRASE)) != NULL) {
		ssh_passphrase(j->t, pass);
		return;
	}
	if (s->phase != PH_ASK)
		return;
	pass_wipe(s);
	s->pass_id = s->id;
	s->skip_pass = pass == NULL;
	if (pass != NULL)
		s->pass = xstrdup(pass);
	s->ask = TRANSPORT_ASK_NONE;
	s->ask_text[0] = '\0';
	if (s->ask_lost) {
		/* Gone meanwhile: a new attempt, which comes to this key
		 * again with the passphrase in hand. */
		attempt_start(s);
		return;
	}
	s->phase = PH_KEYFILE;
	s->attempt_timer = loop_add_timer(s->t->loop, attempt_ms(s),
	    attempt_timeout, s);
	drive(s);
	notify(s);
}

static const struct transport_ops ssh_ops = {
	.name = "ssh",
	.connect = ssh_connect,
	.exec = ssh_exec,
	.exec_input = ssh_exec_input,
	.input = ssh_input,
	.cancel = ssh_cancel,
	.events = ssh_events,
	.pending = ssh_pending,
	.deliver = ssh_deliver,
	.close = ssh_close,
	.status = ssh_status,
	.reconnect = ssh_reconnect,
	.accept_key = ssh_accept_key,
	.passphrase = ssh_passphrase,
};

/*
 * Where neither the lab nor ~/.ssh/config names an identity, ssh's own
 * files, in ssh's order, after the agent (those ssh reads and libssh2 can
 * use: no security keys, no DSA); a missing one is passed over quietly.
 */
static void
default_identities(struct sshhost *sh)
{
	static const char *const names[] = { "id_rsa", "id_ecdsa",
	    "id_ed25519" };
	const char *home = getenv("HOME");
	size_t i;

	if (home == NULL || *home != '/')
		return;
	free(sh->ids);		/* the empty list sshhost_merge made */
	sh->ids = xcalloc(nitems(names), sizeof *sh->ids);
	for (i = 0; i < nitems(names); i++)
		sh->ids[i].value = xasprintf("%s/.ssh/%s", home, names[i]);
	sh->nids = nitems(names);
	sh->default_ids = true;
}

/* libssh2 started, once for the process. */
static int
ssh_init(char *err, size_t errlen)
{
	static bool inited;

	if (inited)
		return 0;
	if (libssh2_init(0) != 0) {
		errbuf_set(err, errlen, "libssh2 cannot start");
		return -1;
	}
	/* libssh2 takes in up to a channel window (2 MiB) of packets, each
	 * its own malloc, before they are read, and frees them all after:
	 * with glibc's 128 KiB trim threshold the heap's top went back to
	 * the kernel and came again, page by page, on every window of a bulk
	 * read (a page fault per 4 KiB received, 11 % of a 1 GiB catch-up:
	 * tests/bench/bench_ssh.sh).  Keep that much.  Setting it freezes
	 * glibc's mmap threshold, which it would otherwise raise as big
	 * blocks are freed: set that too, so that a buffer of up to
	 * SSH_HEAP_MMAP is not an mmap and munmap each time. */
	(void)mallopt(M_TRIM_THRESHOLD, SSH_HEAP_KEEP);
	(void)mallopt(M_MMAP_THRESHOLD, SSH_HEAP_MMAP);
	inited = true;
	return 0;
}

/* A transport named name, its settings not read yet. */
static struct ssh *
ssh_alloc(struct loop *l, const char *name)
{
	struct transport *t;
	struct ssh *s;

	s = xcalloc(1, sizeof *s);
	t = xcalloc(1, sizeof *t);
	t->ops = &ssh_ops;
	t->loop = l;
	t->host = xstrdup(name);
	t->data = s;
	s->t = t;
	s->fd = -1;
	s->attempt_timer = s->retry_timer = s->tick_timer = -1;
	s->notify_timer = s->hold_timer = -1;
	s->state = TRANSPORT_CONNECTING;
	s->since = loop_now_ms();
	buf_init(&s->notes, 4096);
	buf_init(&s->probe_out, 4096);
	return s;
}

/* s's settings, h's (an ssh host of labfile) with config's merged in,
 * names made canonical asked of rs: 0, -1 with err, or SSHCONFIG_WAIT. */
static int
host_read(struct ssh *s, const struct lab_host *h, const char *labfile,
    const char *config, const struct sshconfig_resolver *rs, char *err,
    size_t errlen)
{
	int rc;

	if ((rc = sshhost_resolve(&s->sh, h, labfile, config, rs, err,
	    errlen)) != 0) {
		sshhost_release(&s->sh);
		return rc;
	}
	if (s->sh.default_ids)
		default_identities(&s->sh);
	s->program = xstrdup(h->calops != NULL ? h->calops :
	    LAB_DEFAULT_CALOPS);
	s->accept_new = s->sh.strict == SSHCONFIG_STRICT_ACCEPT_NEW;
	s->known_hosts = s->sh.known_hosts != NULL ?
	    xstrdup(s->sh.known_hosts) : NULL;
	return 0;
}

/* What host_read and way_setup read, let go, to be read again. */
static void
host_unread(struct ssh *s)
{
	jump_release(s);
	free(s->proxy_cmd);
	s->proxy_cmd = NULL;
	sshhost_release(&s->sh);
	free(s->program);
	s->program = NULL;
	free(s->known_hosts);
	s->known_hosts = NULL;
}

/* A jump host's transport named name, its settings read (see host_read):
 * 0 with *out, -1 with err, or SSHCONFIG_WAIT. */
static int
ssh_new(struct loop *l, const char *name, const struct lab_host *h,
    const char *labfile, const char *config,
    const struct sshconfig_resolver *rs, struct ssh **out, char *err,
    size_t errlen)
{
	struct ssh *s;
	int rc;

	*out = NULL;
	s = ssh_alloc(l, name);
	if ((rc = host_read(s, h, labfile, config, rs, err, errlen)) != 0) {
		ssh_close(s->t);
		return rc;
	}
	*out = s;
	return 0;
}

/* ---- the settings: a canonical name looked up off the loop ---- */

/* The jumps on s's way ask the operator through it when it may ask. */
static void
asks_through(struct ssh *s)
{
	struct ssh *j;

	for (j = s->jump; j != NULL && s->t->can_ask; j = j->jump)
		j->t->can_ask = true;
}

static void
answers_clear(struct ssh *s)
{
	size_t i;

	for (i = 0; i < s->nanswers; i++)
		free(s->answers[i].name);
	free(s->answers);
	s->answers = NULL;
	s->nanswers = 0;
	s->lookup_failed = false;
}

static void
lookup_stop(struct ssh *s)
{
	if (s->lookup == NULL)
		return;
	loop_del_fd(s->t->loop, s->lookup->pipe[0]);
	resolve_unref(s->lookup);
	s->lookup = NULL;
}

/* The thread's answer for a name canonicalization tried: the settings
 * are read again, this time with it. */
static void
lookup_done(struct loop *l, int fd, short revents, void *arg)
{
	struct ssh *s = arg;
	struct resolve *rv = s->lookup;

	(void)revents;
	loop_del_fd(l, fd);
	s->lookup = NULL;
	s->answers = xreallocarray(s->answers, s->nanswers + 1,
	    sizeof *s->answers);
	s->answers[s->nanswers].name = xstrdup(rv->name);
	s->answers[s->nanswers].family = rv->family;
	s->answers[s->nanswers++].resolves = rv->rc == 0;
	resolve_unref(rv);
	setup_again(s);
}

/*
 * The resolver the settings are read with (sshconfig.h): an answer the
 * thread gave, else the name asked of a thread, as ssh's resolve_host()
 * asks getaddrinfo (no AI_ADDRCONFIG), and SSHCONFIG_WAIT.
 */
static int
lookup_resolves(void *arg, const char *name, int family)
{
	struct ssh *s = arg;
	char err[128];
	size_t i;

	for (i = 0; i < s->nanswers; i++)
		if (s->answers[i].family == family &&
		    strcmp(s->answers[i].name, name) == 0)
			return s->answers[i].resolves;
	if (s->lookup != NULL)
		return SSHCONFIG_WAIT;
	s->lookup = resolve_ask(s, name, "", family, 0, lookup_done, err,
	    sizeof err);
	if (s->lookup == NULL) {
		s->lookup_failed = true;
		errorf(s, "%s: cannot look up '%s' (CanonicalizeHostname): %s",
		    s->t->host, name, err);
	} else
		errorf(s, "%s: looking up '%s' (CanonicalizeHostname)",
		    s->t->host, name);
	return SSHCONFIG_WAIT;
}

/*
 * Read the host's settings and the way there, the names made canonical
 * asked of the thread (PH_CONFIG until it answers): 0 (configured), -1
 * with err, or SSHCONFIG_WAIT.
 */
static int
setup_run(struct ssh *s, char *err, size_t errlen)
{
	struct sshconfig_resolver rs = { lookup_resolves, s, false };
	int rc;

	rc = host_read(s, &s->lh, s->labfile, s->config, &rs, err, errlen);
	if (rc == 0 && (rc = way_setup(s, NULL, &s->lh, s->labfile,
	    s->config, &rs, 0, err, errlen)) != 0)
		host_unread(s);
	if (rc == SSHCONFIG_WAIT && !s->lookup_failed) {
		s->phase = PH_CONFIG;
		return rc;
	}
	if (rc == SSHCONFIG_WAIT) {
		errbuf_set(err, errlen, "%s", s->error);
		rc = -1;
	}
	answers_clear(s);
	s->phase = PH_IDLE;
	if (rc != 0)
		return rc;
	s->configured = true;
	s->error[0] = '\0';
	asks_through(s);
	return 0;
}

/* An answer came, or the operator asks again after a config error. */
static void
setup_again(struct ssh *s)
{
	char err[1024];
	int rc;

	if ((rc = setup_run(s, err, sizeof err)) == SSHCONFIG_WAIT) {
		/* Asked again after a refusal: trying, not refused. */
		if (s->state == TRANSPORT_REFUSED)
			set_state(s, TRANSPORT_RECONNECTING);
		notify(s);
		return;
	}
	if (rc != 0) {
		refuse(s, "%s", err);
		return;
	}
	attempt_start(s);
}

/* The lab host h, its strings copied, for the settings read later. */
static void
setup_keep(struct ssh *s, const struct lab_host *h, const char *labfile,
    const char *config)
{
	s->lh = *h;
	s->lh.name = xstrdup(h->name);
	s->lh.address = h->address != NULL ? xstrdup(h->address) : NULL;
	s->lh.user = h->user != NULL ? xstrdup(h->user) : NULL;
	s->lh.identity = h->identity != NULL ? xstrdup(h->identity) : NULL;
	s->lh.known_hosts = h->known_hosts != NULL ?
	    xstrdup(h->known_hosts) : NULL;
	s->lh.calops = h->calops != NULL ? xstrdup(h->calops) : NULL;
	s->lh.chips = NULL;
	s->lh.nchips = 0;
	s->labfile = labfile != NULL ? xstrdup(labfile) : NULL;
	s->config = config != NULL ? xstrdup(config) : NULL;
}

static void
setup_release(struct ssh *s)
{
	lookup_stop(s);
	answers_clear(s);
	free(s->lh.name);
	free(s->lh.address);
	free(s->lh.user);
	free(s->lh.identity);
	free(s->lh.known_hosts);
	free(s->lh.calops);
	free(s->labfile);
	free(s->config);
	memset(&s->lh, 0, sizeof s->lh);
	s->labfile = s->config = NULL;
}

struct transport *
ssh_transport_new(struct loop *l, const struct lab_host *h,
    const char *labfile, const char *config, char *err, size_t errlen)
{
	struct ssh *s;
	int rc;

	if (ssh_init(err, errlen) != 0)
		return NULL;
	s = ssh_alloc(l, h->name);
	setup_keep(s, h, labfile, config);
	if ((rc = setup_run(s, err, errlen)) == -1) {
		ssh_close(s->t);
		return NULL;
	}
	if (rc == 0)
		attempt_start(s);
	return s->t;
}

const struct sshhost *
ssh_transport_host(struct transport *t)
{
	struct ssh *s;

	if (t == NULL || t->ops != &ssh_ops)
		return NULL;
	s = t->data;
	return s->configured ? &s->sh : NULL;
}

const struct sshhost *
ssh_transport_jump(struct transport *t, size_t n, const char **spec)
{
	struct ssh *j;
	size_t hops = 0;

	if (t == NULL || t->ops != &ssh_ops)
		return NULL;
	for (j = ((struct ssh *)t->data)->jump; j != NULL; j = j->jump)
		hops++;
	if (n >= hops)
		return NULL;
	/* The chain runs from the host back to the first hop. */
	for (j = ((struct ssh *)t->data)->jump; ++n < hops; j = j->jump)
		;
	*spec = j->t->host;
	return &j->sh;
}
