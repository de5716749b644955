/*
 * cmd_hosts.c: `calops hosts LAB`, the Hosts screen without a terminal:
 * every host of the lab file connected to at once through its transport
 * (remote/transport.h), each shown with its state (protocol.md §6) and
 * how long it has been in it, the round trip, the calops it runs, its
 * chips, its running jobs (`calops jobs --json` run there) and its last
 * error; under a host reached through jump hosts (ProxyJump), each jump
 * with its own state, round trip and error.  For a script or CI: "are my
 * lab hosts reachable, and by keys I trust?"
 *
 * Nobody is there to answer a question: an unknown host key is refused,
 * never added (unless the lab says accept_new), and an encrypted identity
 * is skipped with a word on ssh-agent.  A host that is not up when its
 * first attempt ends is shown as it is then; nothing is retried.
 */
#include "calops.h"

#include <sys/socket.h>

#include <getopt.h>
#include <signal.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/text.h"
#include "cmd/cmd.h"
#include "loop/child.h"
#include "loop/loop.h"
#include "proto/hostcmd.h"
#include "remote/lab.h"
#include "remote/local.h"
#include "remote/ssh.h"
#include "remote/sshconfig_check.h"
#include "remote/sshhost.h"
#include "remote/transport.h"

#define HOSTS_TIMEOUT_S	30

#ifndef CALOPS_VERSION
#define CALOPS_VERSION "0.0.0"
#endif

static const char hosts_usage[] =
    "usage: calops hosts [--json] [--timeout S] [--ssh-config FILE] LAB\n"
    "\n"
    "Connect to every host of the lab file LAB at once and print, for each:\n"
    "its state (up, refused, disconnected, connecting), how long it has been\n"
    "in it, the round-trip time, the calops it runs, its chips, its running\n"
    "jobs, and why it is not up; under it, each jump host (ProxyJump) on\n"
    "its way, then, for an ssh host, where it goes (address, port, user,\n"
    "identities), its host key policy, its compression (asked for and\n"
    "agreed on) and the ssh_config keywords calops ignores for it.  An\n"
    "unknown host key is refused, never added (unless accept-new); an\n"
    "encrypted identity file is skipped (load it into ssh-agent).\n"
    "\n"
    "  --json           one JSON object (schema calops-hosts/v1)\n"
    "  --timeout S      give up on a host after S seconds (default 30)\n"
    "  --ssh-config F   read F instead of ~/.ssh/config\n"
    "\n"
    "Exit status: 0 when every host is up, 1 when one is not, 2 on a usage\n"
    "error or a lab file that cannot be read.\n";

struct hrow {
	struct hosts		*hs;
	const struct lab_host	*h;
	struct transport	*t;
	char			 err[2048];	/* could not even start */
	struct rstream		*jobs;		/* `calops jobs --json` */
	struct buf		 jobs_out;
	int			 running;	/* -1: not known */
	char			 jobs_err[200];
	bool			 settled;
	struct transport_status	 st;		/* when it settled */
};

struct hosts {
	struct loop	*loop;
	struct hrow	*rows;
	size_t		 nrows;
};

static bool
all_settled(const struct hosts *hs)
{
	size_t i;

	for (i = 0; i < hs->nrows; i++)
		if (!hs->rows[i].settled)
			return false;
	return true;
}

/* Stop the loop once every host has its answer. */
static void
check_all(struct hosts *hs)
{
	if (all_settled(hs))
		loop_stop(hs->loop);
}

static void
settle(struct hrow *r)
{
	if (r->settled)
		return;
	r->settled = true;
	if (r->t != NULL)
		transport_status(r->t, &r->st);
	/* The local host runs this very calops. */
	if (r->h->transport == LAB_LOCAL && r->st.version[0] == '\0')
		snprintf(r->st.version, sizeof r->st.version, "%s",
		    CALOPS_VERSION);
	check_all(r->hs);
}

static void
jobs_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct hrow *r = arg;

	(void)rs;
	(void)cut;
	if (from_stderr) {
		if (r->jobs_err[0] == '\0')
			snprintf(r->jobs_err, sizeof r->jobs_err, "%.*s",
			    (int)(len < 199 ? len : 199), line);
		return;
	}
	buf_add(&r->jobs_out, line, len);
}

/* Count the running jobs in what `calops jobs --json` printed. */
static void
jobs_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct hrow *r = arg;
	struct hostcmd_jobs jobs;
	char why[160];
	size_t i;

	(void)rs;
	r->jobs = NULL;
	if (ex->err != NULL || ex->code != 0 || r->jobs_out.len == 0) {
		if (r->jobs_err[0] == '\0')
			snprintf(r->jobs_err, sizeof r->jobs_err, "%s",
			    ex->err != NULL ? ex->err :
			    "calops jobs said nothing");
	} else if (hostcmd_jobs_parse(r->jobs_out.data, r->jobs_out.len,
	    &jobs, why, sizeof why) != 0)
		snprintf(r->jobs_err, sizeof r->jobs_err, "its job list "
		    "cannot be read: %s", why);
	else {
		r->running = 0;
		for (i = 0; i < jobs.n; i++)
			r->running += strcmp(jobs.v[i].state, "running") == 0;
		hostcmd_jobs_release(&jobs);
	}
	settle(r);
}

static const struct rstream_cb jobs_cb = {
	.line = jobs_line,
	.done = jobs_done,
};

/* A host's state changed: up asks for its jobs; any other state but the
 * first attempt's is its answer. */
static void
changed(struct transport *t, void *arg)
{
	struct hrow *r = arg;
	struct transport_status st;
	struct strv argv = { NULL, 0, 0 };

	if (r->settled || r->jobs != NULL)
		return;
	transport_status(t, &st);
	switch (st.state) {
	case TRANSPORT_UP:
		hostcmd_jobs(&argv, false);
		r->jobs = transport_exec(t, argv.v, &jobs_cb, r, r->jobs_err,
		    sizeof r->jobs_err);
		strv_free(&argv);
		if (r->jobs == NULL)
			settle(r);
		break;
	case TRANSPORT_CONNECTING:
		break;
	default:
		settle(r);
	}
}

static void
before_sleep(struct loop *l, void *arg)
{
	struct hosts *hs = arg;
	size_t i;

	(void)l;
	for (i = 0; i < hs->nrows; i++)
		if (hs->rows[i].t != NULL)
			transport_before_sleep(hs->rows[i].t);
}

static void
timeout(struct loop *l, void *arg)
{
	struct hosts *hs = arg;
	size_t i;

	for (i = 0; i < hs->nrows; i++) {
		if (hs->rows[i].jobs != NULL) {
			transport_rstream_cancel(hs->rows[i].jobs);
			hs->rows[i].jobs = NULL;
			snprintf(hs->rows[i].jobs_err,
			    sizeof hs->rows[i].jobs_err, "no answer in time");
		}
		settle(&hs->rows[i]);
	}
	/* The end, whatever was settled before: settle() stops the loop
	 * only for the host it settles. */
	loop_stop(l);
}

static void
on_sigchld(struct loop *l, int sig, void *arg)
{
	(void)sig;
	(void)arg;
	child_reap(l);
}

static const char *
state_word(const struct hrow *r)
{
	return r->t == NULL ? "refused" : transport_state_name(r->st.state);
}

static const char *
row_error(const struct hrow *r)
{
	if (r->t == NULL)
		return r->err;
	if (r->st.error[0] != '\0')
		return r->st.error;
	/* What the jobs command said on stderr matters only when it
	 * failed: a login shell may chatter. */
	return r->running < 0 ? r->jobs_err : "";
}

/* The jump hosts on a host's way, the first hop first. */
static json_t *
jumps_json(const struct transport_status *st, int64_t now)
{
	const struct transport_jump *j;
	json_t *a = json_array(), *o;
	size_t i;

	for (i = 0; i < st->njumps; i++) {
		j = &st->jumps[i];
		o = json_pack("{s:o,s:s,s:o}", "name", text_json(j->name),
		    "state", transport_state_name(j->state), "for_s",
		    json_real((double)(now - j->since_ms) / 1000.0));
		if (j->rtt_us >= 0)
			json_object_set_new(o, "rtt_ms",
			    json_real((double)j->rtt_us / 1000.0));
		if (j->error[0] != '\0')
			json_object_set_new(o, "error", text_json(j->error));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *
strings_json(char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, text_json(v[i]));
	return a;
}

static const char *
family_word(int family)
{
	return family == AF_INET ? "inet" : family == AF_INET6 ? "inet6" :
	    "any";
}

static const char *
strict_word(enum sshconfig_strict s)
{
	return s == SSHCONFIG_STRICT_YES ? "yes" : s == SSHCONFIG_STRICT_ASK ?
	    "ask" : "accept-new";
}

/*
 * The jump hosts on t's way, the first hop first, each where it goes after
 * its own ssh config lookup (its ProxyJump entry's user and port winning,
 * as ssh's -l and -p do); null when t goes without one.
 */
static json_t *
proxy_jump_json(struct transport *t)
{
	const struct sshhost *j;
	const char *spec;
	json_t *a;
	size_t n;

	if (ssh_transport_jump(t, 0, &spec) == NULL)
		return json_null();
	a = json_array();
	for (n = 0; (j = ssh_transport_jump(t, n, &spec)) != NULL; n++)
		json_array_append_new(a, json_pack("{s:o,s:o,s:i,s:o}",
		    "jump", text_json(spec), "hostname", text_json(j->hostname),
		    "port", j->port, "user", text_json(j->user)));
	return a;
}

/* Where an ssh host goes, the way there and how it judges its host key
 * (sshhost.h). */
static json_t *
hostkey_algs_json(const struct sshhost *sh)
{
	char *list = sh->hostkey_algs != NULL ? xstrdup(sh->hostkey_algs) :
	    sshconfig_check_hostkey_algs(NULL);
	json_t *j = text_json(list);

	free(list);
	return j;
}

/* Compression: asked for or not and by what, and what the handshake
 * agreed on each way (null before one). */
static json_t *
compress_json(const struct sshhost *sh, const struct transport_status *st)
{
	char from[PATH_MAX + 32];

	return json_pack("{s:b,s:o,s:o,s:o}", "asked", sh->compress, "from",
	    text_json(sshconfig_origin_str(&sh->compress_from, from,
	    sizeof from)), "client_to_server", st->comp_cs[0] != '\0' ?
	    json_string(st->comp_cs) : json_null(), "server_to_client",
	    st->comp_sc[0] != '\0' ? json_string(st->comp_sc) : json_null());
}

static json_t *
ssh_json(struct transport *t, const struct sshhost *sh,
    const struct transport_status *st)
{
	json_t *o, *ids = json_array();
	size_t i;

	for (i = 0; i < sh->nids; i++)
		json_array_append_new(ids, text_json(sh->ids[i].value));
	o = json_pack("{s:o,s:i,s:o,s:o,s:o,s:b,s:b,s:s}",
	    "hostname", text_json(sh->hostname), "port", sh->port,
	    "user", text_json(sh->user), "identities", ids,
	    "identity_files", strings_json(sh->ids_written,
	    sh->nids_written), "default_identities", sh->default_ids,
	    "identities_only", sh->ids_only, "address_family",
	    family_word(sh->family));
	json_object_set_new(o, "identity_agent", sh->agent == NULL ?
	    json_null() : text_json(sh->agent));
	json_object_set_new(o, "connect_timeout_s", json_integer(
	    sh->connect_s));
	json_object_set_new(o, "keepalive_s", json_integer(sh->keepalive_s));
	json_object_set_new(o, "alive_count_max", json_integer(
	    sh->alive_max));
	json_object_set_new(o, "known_hosts_files", strings_json(
	    sh->kh_files, sh->nkh));
	json_object_set_new(o, "known_hosts_name", text_json(sh->kh_name));
	json_object_set_new(o, "known_hosts_port", json_integer(
	    sh->kh_port));
	json_object_set_new(o, "known_hosts_write", sh->known_hosts == NULL ?
	    json_null() : text_json(sh->known_hosts));
	json_object_set_new(o, "strict_host_key_checking", json_string(
	    strict_word(sh->strict)));
	json_object_set_new(o, "strict_why", text_json(sh->strict_why));
	json_object_set_new(o, "proxy_jump", proxy_jump_json(t));
	json_object_set_new(o, "hostkey_algorithms", hostkey_algs_json(sh));
	json_object_set_new(o, "proxy_command", sh->proxy_command == NULL ?
	    json_null() : text_json(sh->proxy_command));
	json_object_set_new(o, "compression", compress_json(sh, st));
	json_object_set_new(o, "notes", strings_json(sh->notes.v,
	    sh->notes.n));
	return o;
}

static json_t *
row_json(const struct hrow *r, int64_t now)
{
	json_t *o, *chips = json_array();
	const struct sshhost *sh;
	size_t i;

	for (i = 0; i < r->h->nchips; i++)
		json_array_append_new(chips, json_integer(r->h->chips[i]));
	o = json_pack("{s:o,s:s,s:s,s:o}", "name", text_json(r->h->name),
	    "transport", r->h->transport == LAB_LOCAL ? "local" : "ssh",
	    "state", state_word(r), "chips", chips);
	if (r->t != NULL)
		json_object_set_new(o, "for_s", json_real((double)(now -
		    r->st.since_ms) / 1000.0));
	if (r->st.rtt_us >= 0 && r->t != NULL)
		json_object_set_new(o, "rtt_ms",
		    json_real((double)r->st.rtt_us / 1000.0));
	if (r->st.version[0] != '\0')
		json_object_set_new(o, "version", text_json(r->st.version));
	if (r->running >= 0)
		json_object_set_new(o, "jobs_running",
		    json_integer(r->running));
	if (*row_error(r) != '\0')
		json_object_set_new(o, "error", text_json(row_error(r)));
	if (r->st.ask == TRANSPORT_ASK_KEY)
		json_object_set_new(o, "unknown_host_key", json_true());
	if ((sh = ssh_transport_host(r->t)) != NULL) {
		json_object_set_new(o, "ssh", ssh_json(r->t, sh, &r->st));
		json_object_set_new(o, "ignored", strings_json(sh->ignored.v,
		    sh->ignored.n));
	}
	if (r->t != NULL && r->st.njumps > 0)
		json_object_set_new(o, "jumps", jumps_json(&r->st, now));
	return o;
}

/* Under an ssh host's row: where it goes, its host key policy, and each
 * keyword of the ssh config calops ignores for it. */
static void
print_ssh(const struct sshhost *sh, const struct transport_status *st)
{
	char *line, *safe, comp[PATH_MAX + 128];
	size_t i;

	line = xasprintf("%s@%s port %d, %zu identit%s%s", sh->user,
	    sh->hostname, sh->port, sh->nids, sh->nids == 1 ? "y" : "ies",
	    sh->default_ids ? " (ssh's default files)" : "");
	safe = text_sanitize_str(line);
	printf("  ssh: %s\n  host keys: %s\n", safe, sh->strict_why);
	printf("  compression: %s\n", sshhost_compress_str(sh, st->comp_cs,
	    st->comp_sc, comp, sizeof comp));
	free(safe);
	free(line);
	for (i = 0; i < sh->notes.n; i++)
		printf("  note: %s\n", sh->notes.v[i]);
	for (i = 0; i < sh->ignored.n; i++)
		printf("  ignored: %s\n", sh->ignored.v[i]);
	if (sh->ignored.dropped > 0)
		printf("  ignored: %zu more\n", sh->ignored.dropped);
}

/* A row under the host for each jump host on its way. */
static void
print_jumps(const struct transport_status *st, int64_t now)
{
	const struct transport_jump *j;
	char rtt[32], name[sizeof st->jumps[0].name + 8];
	size_t i;

	for (i = 0; i < st->njumps; i++) {
		j = &st->jumps[i];
		if (j->rtt_us >= 0)
			snprintf(rtt, sizeof rtt, "%.2fms",
			    (double)j->rtt_us / 1000.0);
		else
			snprintf(rtt, sizeof rtt, "-");
		snprintf(name, sizeof name, " via %s", j->name);
		printf("%-16s %-12s %5llds %9s %-10s %4s  %s\n", name,
		    transport_state_name(j->state),
		    (long long)((now - j->since_ms) / 1000), rtt, "-", "-",
		    j->error);
	}
}

static void
print_text(const struct hosts *hs, int64_t now)
{
	const struct hrow *r;
	char rtt[32], jobs[12], *safe;
	size_t i;

	printf("%-16s %-12s %6s %9s %-10s %4s  %s\n", "HOST", "STATE", "FOR",
	    "RTT", "VERSION", "JOBS", "ERROR");
	for (i = 0; i < hs->nrows; i++) {
		r = &hs->rows[i];
		if (r->st.rtt_us >= 0 && r->t != NULL)
			snprintf(rtt, sizeof rtt, "%.2fms",
			    (double)r->st.rtt_us / 1000.0);
		else
			snprintf(rtt, sizeof rtt, "-");
		if (r->running >= 0)
			snprintf(jobs, sizeof jobs, "%d", r->running);
		else
			snprintf(jobs, sizeof jobs, "-");
		/* What a host said (its stderr) is untrusted. */
		safe = text_sanitize_str(row_error(r));
		printf("%-16s %-12s %5llds %9s %-10s %4s  %s\n", r->h->name,
		    state_word(r), r->t != NULL ? (long long)((now -
		    r->st.since_ms) / 1000) : 0LL, rtt, r->st.version[0] !=
		    '\0' ? r->st.version : "-", jobs, safe);
		free(safe);
		if (r->t != NULL)
			print_jumps(&r->st, now);
		if (ssh_transport_host(r->t) != NULL)
			print_ssh(ssh_transport_host(r->t), &r->st);
	}
}

int
cmd_hosts(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 't' },
		{ "ssh-config", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hosts hs = { NULL, NULL, 0 };
	const char *config = NULL;
	struct lab lab;
	struct hrow *r;
	bool json = false, all_up = true;
	char err[1024], *end;
	long secs = HOSTS_TIMEOUT_S;
	int c, rc;
	size_t i;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jt:F:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 't':
			secs = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || secs < 1 ||
			    secs > 3600) {
				fprintf(stderr, "calops: --timeout takes 1 to "
				    "3600 seconds, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'F':
			config = optarg;
			break;
		case 'h':
			fputs(hosts_usage, stdout);
			return 0;
		default:
			fputs(hosts_usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(hosts_usage, stderr);
		return 2;
	}
	if (lab_load(&lab, argv[optind], err, sizeof err) != 0) {
		fprintf(stderr, "calops: %s\n", err);
		lab_release(&lab);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	hs.loop = loop_new();
	hs.rows = xcalloc(lab.nhosts + 1, sizeof *hs.rows);
	hs.nrows = lab.nhosts;
	loop_watch_signal(hs.loop, SIGCHLD, on_sigchld, NULL);
	loop_set_before_sleep(hs.loop, before_sleep, &hs);
	for (i = 0; i < lab.nhosts; i++) {
		r = &hs.rows[i];
		r->hs = &hs;
		r->h = &lab.hosts[i];
		r->running = -1;
		buf_init(&r->jobs_out, 1u << 20);
		if (r->h->transport == LAB_LOCAL)
			r->t = local_transport_new(hs.loop, r->h->name, NULL);
		else
			r->t = ssh_transport_new(hs.loop, r->h, lab.path,
			    config, r->err, sizeof r->err);
		if (r->t == NULL) {
			r->settled = true;
			continue;
		}
		r->t->changed = changed;
		r->t->changed_arg = r;
		changed(r->t, r);
	}
	loop_add_timer(hs.loop, secs * 1000, timeout, &hs);
	/* Every host may have failed before connecting (a config error):
	 * loop_run() would forget a stop asked for before it runs. */
	if (!all_settled(&hs))
		loop_run(hs.loop);

	if (json) {
		json_t *o = json_object(), *rows = json_array();
		int64_t now = loop_now_ms();

		for (i = 0; i < hs.nrows; i++)
			json_array_append_new(rows, row_json(&hs.rows[i], now));
		json_object_set_new(o, "schema", json_string(
		    "calops-hosts/v1"));
		json_object_set_new(o, "hosts", rows);
		/* Times are measured in ms and µs: 15 digits say them as
		 * measured (0.303, not 0.30299999999999999). */
		text_json_print(stdout, o, JSON_INDENT(2) |
		    JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
		json_decref(o);
	} else
		print_text(&hs, loop_now_ms());
	for (i = 0; i < hs.nrows; i++) {
		r = &hs.rows[i];
		if (r->t == NULL || r->st.state != TRANSPORT_UP)
			all_up = false;
		if (r->jobs != NULL)
			transport_rstream_cancel(r->jobs);
		if (r->t != NULL)
			transport_close(r->t);
		buf_release(&r->jobs_out);
	}
	free(hs.rows);
	loop_free(hs.loop);
	lab_release(&lab);
	rc = all_up ? 0 : 1;
	return fflush(stdout) != 0 ? 1 : rc;
}
