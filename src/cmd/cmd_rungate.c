/*
 * cmd_rungate.c: `calops run-gate LAB Gn [--host H] [--workspace W]`, the
 * board's r for a script or CI: the job the console would start for gate
 * Gn (G7 golden and the fault scenarios, G9 the soak, any other gate the
 * command the lab file's gates: map gives it; labcmd.h), started as a
 * durable job in one workspace of the lab file, on its host, through the
 * host's transport, and its id printed.  A script says which workspace
 * when the lab has several: nothing is guessed.  The job goes on without
 * this command; `calops tail ID --follow` on that host follows it.
 *
 * The host's running jobs are listed first (`calops jobs --json
 * --running`), and a job of
 * the same gate running in the workspace, from a console or a script,
 * stops this one before it starts (labcmd_job_gate() knows a gate's job
 * by its argv).
 *
 * As every headless command, nobody is there to answer: an unknown host
 * key is refused and an encrypted identity skipped (cmd_hosts.c).  A
 * protected host runs nothing unless --write names it, as in the console.
 */
#include "calops.h"

#include <getopt.h>
#include <signal.h>
#include <unistd.h>

#include "base/buf.h"
#include "cmd/cmd.h"
#include "job/jobstore.h"
#include "lab/labcmd.h"
#include "loop/child.h"
#include "loop/loop.h"
#include "proto/hostcmd.h"
#include "remote/lab.h"
#include "remote/local.h"
#include "remote/ssh.h"
#include "remote/transport.h"
#include "vocab/gateid.h"

#define RUNGATE_TIMEOUT_S	60

static const char rungate_usage[] =
    "usage: calops run-gate [--host H] [--workspace W] [--write H]\n"
    "                       [--timeout S] [--ssh-config FILE] [--again]\n"
    "                       LAB GATE\n"
    "\n"
    "Start gate GATE's lab job (G0 to G10) as the console's r does: G7 runs\n"
    "golden and the fault scenarios, G9 the soak, any other gate the command\n"
    "the lab file LAB's gates: map gives it, in the workspace's root.  It\n"
    "runs as a durable job in a workspace of the lab file, on its host: the\n"
    "one --workspace and --host name, or the lab's only one when they are\n"
    "not needed.  Prints the job's id (follow it with `calops tail ID\n"
    "--follow` there).  G5's command runs as the reproducibility run\n"
    "(calops repro-build): twice, or with --again once more, each build\n"
    "recorded in 04-compiler/builds.json.  Nothing starts while a job of\n"
    "that gate runs in that workspace, whoever started it: its id is said.\n"
    "\n"
    "  --host H         the host to run it on\n"
    "  --workspace W    the workspace, as the lab file gives its path (on a\n"
    "                   local host, any path to that folder)\n"
    "  --write H        let jobs run on H although it is protected\n"
    "  --timeout S      give up after S seconds (default 60)\n"
    "  --ssh-config F   read F instead of ~/.ssh/config\n"
    "  --again          G5: one more build rather than two anew\n"
    "\n"
    "Exit status: 0 when the job started, 1 when it could not (the host, the\n"
    "gate's command, a job of that gate running there, a job list that\n"
    "cannot be read), 2 on a usage error or a lab file that cannot be\n"
    "read.\n";

struct rungate {
	struct loop		*loop;
	struct transport	*t;
	struct rstream		*rs;
	/* First the host's running jobs, then `calops run`. */
	bool			 listing;
	struct buf		 list;		/* what jobs --json printed */
	bool			 list_cut;	/* a line of it over the cap */
	bool			 list_full;	/* more of it than list holds */
	char			 id[JOB_ID_MAX + 1];
	char			 said[512];	/* its last stderr line */
	bool			 printed, done;
	int			 code;
	char			 err[512];
};

static void
on_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct rungate *g = arg;

	(void)rs;
	if (from_stderr)
		snprintf(g->said, sizeof g->said, "%.*s", (int)(len < 400 ?
		    len : 400), line);
	else if (g->listing) {
		/* A list cut short cannot be trusted: said, not parsed. */
		g->list_cut |= cut;
		if (buf_add(&g->list, line, len) != 0 ||
		    buf_addc(&g->list, '\n') != 0)
			g->list_full = true;
	} else if (hostcmd_run_started(line, len, g->id))
		g->printed = true;
}

static void
on_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct rungate *g = arg;

	(void)rs;
	g->rs = NULL;
	g->done = true;
	g->code = ex->code;
	if (ex->err != NULL)
		snprintf(g->err, sizeof g->err, "%s", ex->err);
	loop_stop(g->loop);
}

static const struct rstream_cb rungate_cb = { on_line, on_done };

static void
before_sleep(struct loop *l, void *arg)
{
	(void)l;
	transport_before_sleep(((struct rungate *)arg)->t);
}

/* A host that cannot be reached is said at once, with why (a name that
 * does not resolve, a refused key): a one-shot command does not wait out
 * the transport's reconnection until its timeout. */
static void
changed(struct transport *t, void *arg)
{
	struct rungate *g = arg;
	struct transport_status st;

	transport_status(t, &st);
	if (!transport_state_down(st.state) || g->done)
		return;
	snprintf(g->err, sizeof g->err, "%s", st.error[0] != '\0' ? st.error :
	    "the host cannot be reached");
	loop_stop(g->loop);
}

static void
timeout(struct loop *l, void *arg)
{
	struct rungate *g = arg;

	snprintf(g->err, sizeof g->err, "%s did not answer in time",
	    g->t->host);
	loop_stop(l);
}

static void
on_sigchld(struct loop *l, int sig, void *arg)
{
	(void)sig;
	(void)arg;
	child_reap(l);
}

/* The workspace to run in: the lab file's only one on the host and at the
 * path given (either may be NULL: any).  NULL, said, when there is none
 * or more than one. */
static const struct lab_workspace *
pick_workspace(const struct lab *lab, const char *host, const char *path)
{
	const struct lab_workspace *w;
	size_t n;

	if (host != NULL && lab_host(lab, host) == NULL) {
		fprintf(stderr, "calops: no host '%s' in the lab file\n", host);
		return NULL;
	}
	w = lab_find_workspace(lab, host, path, &n);
	if (n == 1)
		return w;
	if (n == 0 && path != NULL)
		fprintf(stderr, "calops: '%s' is not a workspace%s%s%s in the "
		    "lab file\n", path, host != NULL ? " of host '" : "",
		    host != NULL ? host : "", host != NULL ? "'" : "");
	else if (n == 0)
		fprintf(stderr, "calops: %s%s%s names no workspace\n",
		    host != NULL ? "the lab file on host '" : "the lab file",
		    host != NULL ? host : "", host != NULL ? "'" : "");
	else if (path != NULL && host != NULL)
		fprintf(stderr, "calops: '%s' is %zu workspaces of host '%s': "
		    "give the path as the lab file writes it\n", path, n, host);
	else if (path != NULL)
		fprintf(stderr, "calops: '%s' is %zu workspaces of the lab file: "
		    "say which with --host, or give the path as the lab file "
		    "writes it\n", path, n);
	else
		fprintf(stderr, "calops: %s%s%s has %zu workspaces: say which "
		    "with --workspace%s\n", host != NULL ? "host '" :
		    "the lab file", host != NULL ? host : "", host != NULL ?
		    "'" : "", n, host != NULL ? "" : " (and --host)");
	return NULL;
}

/* A copy of path without its trailing slashes ("/" stays). */
static char *
trim_slashes(const char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		n--;
	return xstrndup(path, n);
}

/* Whether a job's workspace (as its argv writes it, run from cwd) is ws:
 * on this machine, the same folder however either is spelt; else, or when
 * either cannot be resolved, the same path but for trailing slashes (the
 * lab file gives absolute ones on an ssh host). */
static bool
same_workspace(bool local, const char *cwd, const char *job_ws,
    const char *ws)
{
	char *a, *b;
	bool same;

	if (local) {
		a = job_ws[0] != '/' && cwd != NULL ?
		    xasprintf("%s/%s", cwd, job_ws) : xstrdup(job_ws);
		same = lab_same_local_folder(a, ws);
		free(a);
		if (same)
			return true;
	}
	a = trim_slashes(job_ws);
	b = trim_slashes(ws);
	same = strcmp(a, b) == 0;
	free(a);
	free(b);
	return same;
}

/* The id of a running job on the host, in g->list, that is gate's job in
 * ws (labcmd_job_gate), into buf; 1 when there is one, 0 when none, -1
 * with err when the list cannot be read. */
static int
running_gate_job(struct rungate *g, bool local, int gate, const char *ws,
    char *buf, size_t len, char *err, size_t errlen)
{
	struct hostcmd_jobs jobs;
	const struct hostcmd_job *j;
	char *job_ws, why[200];
	size_t i;
	int found = 0;

	if (g->list_cut || g->list_full) {
		errbuf_set(err, errlen, "its running jobs' list has %s",
		    g->list_cut ? "a line over 64 KiB (a job's argument)" :
		    "more than 64 MiB");
		return -1;
	}
	if (hostcmd_jobs_parse(g->list.data, g->list.len, &jobs, why,
	    sizeof why) != 0) {
		errbuf_set(err, errlen, "its job list cannot be read: %s", why);
		return -1;
	}
	for (i = 0; i < jobs.n && !found; i++) {
		j = &jobs.v[i];
		if (strcmp(j->state, "running") != 0 || j->argc == 0)
			continue;
		if (labcmd_job_gate(j->argv, j->argc, &job_ws) == gate &&
		    same_workspace(local, j->cwd, job_ws, ws)) {
			snprintf(buf, len, "%s", j->id);
			found = 1;
		}
		free(job_ws);
	}
	hostcmd_jobs_release(&jobs);
	return found;
}

/* One job per gate and workspace: the host's running jobs first, whoever
 * started them (a console, another script, a calops that took no gate
 * lock), and nothing more when one of them is gate's in ws (said).  0
 * when none is; the overall timer is armed here, for the launch that
 * follows too.  Of two started in the same instant `calops run --gate`
 * lets one go (gatelock.h). */
static int
check_running(struct rungate *g, const struct lab_host *h, const char *label,
    int gate, const char *ws, long secs)
{
	struct strv list = { NULL, 0, 0 };
	char other[JOB_ID_MAX + 1], err[512];

	g->listing = true;
	buf_init(&g->list, 64u << 20);
	hostcmd_jobs(&list, true);
	g->rs = transport_exec(g->t, list.v, &rungate_cb, g, err, sizeof err);
	strv_free(&list);
	if (g->rs == NULL) {
		fprintf(stderr, "calops: %s: %s\n", h->name, err);
		return -1;
	}
	loop_add_timer(g->loop, secs * 1000, timeout, g);
	loop_run(g->loop);
	g->listing = false;
	if (!g->done || g->code != 0) {
		fprintf(stderr, "calops: %s not started on %s: its jobs could "
		    "not be listed: %s\n", label, h->name, g->err[0] != '\0' ?
		    g->err : g->said[0] != '\0' ? g->said :
		    "calops jobs failed there");
		return -1;
	}
	switch (running_gate_job(g, h->transport == LAB_LOCAL, gate, ws,
	    other, sizeof other, err, sizeof err)) {
	case 1:
		fprintf(stderr, "calops: %s not started: G%d's job %s is "
		    "already running in %s on %s (calops kill %s there to stop "
		    "it)\n", label, gate, other, ws, h->name, other);
		return -1;
	case -1:
		fprintf(stderr, "calops: %s not started on %s: %s\n", label,
		    h->name, err);
		return -1;
	}
	g->done = false;
	g->code = 0;
	g->said[0] = '\0';
	return 0;
}

/* Start it and wait for `calops run` there to say the id; the exit. */
static int
launch(struct rungate *g, const struct lab *lab, const struct lab_host *h,
    const char *ws, int gate, bool again, const char *config, long secs)
{
	struct ljob_spec spec = { .host = h->name, .kind = LJOB_GATE,
	    .gate = gate, .again = again };
	struct labcmd_where w = { lab, h, ws, NULL };
	struct strv job, run = { NULL, 0, 0 };
	char label[160], err[512];
	int rc = 1;

	w.selfdir = labcmd_self_dir();
	if (labcmd_build(&w, &spec, &job, label, sizeof label, err,
	    sizeof err) != 0) {
		fprintf(stderr, "calops: %s\n", err);
		free((char *)w.selfdir);
		return 1;
	}
	free((char *)w.selfdir);
	g->loop = loop_new();
	loop_watch_signal(g->loop, SIGCHLD, on_sigchld, NULL);
	loop_set_before_sleep(g->loop, before_sleep, g);
	g->t = h->transport == LAB_LOCAL ? local_transport_new(g->loop,
	    h->name, NULL) : ssh_transport_new(g->loop, h, lab->path, config,
	    err, sizeof err);
	if (g->t == NULL) {
		fprintf(stderr, "calops: %s: %s\n", h->name, err);
		goto out;
	}
	g->t->changed = changed;
	g->t->changed_arg = g;
	if (check_running(g, h, label, gate, ws, secs) != 0)
		goto out;
	/* The id chosen here: a launch retried never starts twice. */
	jobstore_id_generate(g->id, sizeof g->id);
	hostcmd_run(&run, &(struct hostcmd_run_opts){ .id = g->id, .cwd = ws,
	    .gate = gate }, job.v);
	if ((g->rs = transport_exec(g->t, run.v, &rungate_cb, g, err,
	    sizeof err)) == NULL) {
		fprintf(stderr, "calops: %s: %s\n", h->name, err);
		goto out;
	}
	loop_run(g->loop);
	if (g->done && g->code == 0 && g->printed) {
		printf("%s\n", g->id);
		fprintf(stderr, "calops: started %s on %s in %s\n", label,
		    h->name, ws);
		rc = 0;
	} else
		fprintf(stderr, "calops: %s not started on %s: %s\n", label,
		    h->name, g->err[0] != '\0' ? g->err : g->said[0] != '\0' ?
		    g->said : "calops run failed there");
out:
	if (g->rs != NULL)
		transport_rstream_cancel(g->rs);
	if (g->t != NULL)
		transport_close(g->t);
	loop_free(g->loop);
	buf_release(&g->list);
	strv_free(&run);
	strv_free(&job);
	return rc;
}

int
cmd_rungate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "workspace", required_argument, NULL, 'W' },
		{ "write", required_argument, NULL, 'w' },
		{ "timeout", required_argument, NULL, 't' },
		{ "ssh-config", required_argument, NULL, 'F' },
		{ "again", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *host = NULL, *write = NULL, *config = NULL, *path = NULL;
	const struct lab_workspace *ws;
	const struct lab_host *h;
	struct rungate g = { 0 };
	struct lab lab;
	bool again = false;
	char err[1024], *end;
	long secs = RUNGATE_TIMEOUT_S;
	int c, gate, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'H': host = optarg; break;
		case 'W': path = optarg; break;
		case 'w': write = optarg; break;
		case 'F': config = optarg; break;
		case 'a': again = true; break;
		case 't':
			secs = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || secs < 1 ||
			    secs > 3600) {
				fprintf(stderr, "calops: --timeout takes 1 to "
				    "3600 seconds, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h':
			fputs(rungate_usage, stdout);
			return 0;
		default:
			fputs(rungate_usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 2) {
		fputs(rungate_usage, stderr);
		return 2;
	}
	if ((gate = gateid_index(argv[optind + 1])) < 0) {
		fprintf(stderr, "calops: '%s' is not a gate: G0 to G10\n",
		    argv[optind + 1]);
		return 2;
	}
	if (lab_load(&lab, argv[optind], err, sizeof err) != 0) {
		fprintf(stderr, "calops: %s\n", err);
		lab_release(&lab);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if ((ws = pick_workspace(&lab, host, path)) == NULL)
		rc = 1;
	else if ((h = lab_host(&lab, ws->host))->protected && (write == NULL ||
	    strcmp(write, h->name) != 0)) {
		fprintf(stderr, "calops: host '%s' is protected: jobs run there "
		    "only with --write %s\n", h->name, h->name);
		rc = 1;
	} else
		rc = launch(&g, &lab, h, ws->path, gate, again, config, secs);
	lab_release(&lab);
	return fflush(stdout) != 0 ? 1 : rc;
}
