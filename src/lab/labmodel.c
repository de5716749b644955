/*
 * labmodel.c: the console's model of the lab (labmodel.h): the hosts and
 * their transports, starting jobs as durable jobs, and what the views ask
 * of the model.  The jobs' commands are labcmd.c's, the replay at start
 * labreplay.c's, a job's stream labstream.c's.
 */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/fileio.h"
#include "base/statedir.h"
#include "job/jobevent.h"
#include "job/jobstore.h"
#include "lab/labmodel_int.h"
#include "lab/labpoll.h"
#include "lab/labreplay.h"
#include "lab/labshare.h"
#include "lab/labstream.h"
#include "metrics/alerts.h"
#include "metrics/metrics.h"
#include "proto/hostcmd.h"
#include "remote/local.h"
#include "remote/ssh.h"
#include "remote/transport.h"
#include "vocab/gateid.h"

static char *
labmodel_streams_dir(void)
{
	return fileio_state_path("streams", NULL, 0);
}

const char *
labmodel_job_state_name(enum ljob_state s)
{
	static const char *const names[] = {
		[LJ_STARTING] = "starting", [LJ_RUNNING] = "running",
		[LJ_DONE] = "done", [LJ_FAILED] = "failed",
		[LJ_KILLED] = "killed", [LJ_BROKEN] = "broken",
		[LJ_CATCHING_UP] = "catching up",
	};

	return (size_t)s < nitems(names) ? names[s] : "?";
}

bool
labmodel_job_catchup(const struct ljob *j, char *buf, size_t len, int *pct)
{
	double p;

	*pct = -1;
	/* A stream that broke on the way is broken, not catching up. */
	if (!labmodel_job_live(j))
		return false;
	if (j->catchup_seq > 0 && j->last_seq < j->catchup_seq) {
		p = 100.0 * (double)j->last_seq / (double)j->catchup_seq;
		*pct = p >= 99 ? 99 : p > 0 ? (int)p : 0;
		snprintf(buf, len, "catching up: %" PRId64 " of %" PRId64
		    " events (%d%%)", j->last_seq, j->catchup_seq, *pct);
	} else if (j->state == LJ_CATCHING_UP)
		snprintf(buf, len, "catching up: %" PRId64 " events",
		    j->last_seq);
	else
		return false;
	return true;
}

bool
labmodel_job_live(const struct ljob *j)
{
	return j->state == LJ_STARTING || j->state == LJ_RUNNING ||
	    j->state == LJ_CATCHING_UP;
}

bool
labmodel_gate_has_job(const struct labmodel *lm, int gate)
{
	return gateid_runner(gate) || (gate >= 0 && gate < GATE_COUNT &&
	    lm->lab->gates[gate].argv != NULL);
}

/* ---- hosts ---- */

struct lhost *
labmodel_host_at(const struct labmodel *lm, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < lm->nhosts; i++)
		if (strcmp(lm->hosts[i].h->name, name) == 0)
			return &lm->hosts[i];
	return NULL;
}

void
labmodel_changed(struct labmodel *lm)
{
	if (lm->cb.changed != NULL)
		lm->cb.changed(lm, lm->cb.arg);
}

void
labmodel_warn(struct labmodel *lm, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (lm->cb.warn != NULL)
		lm->cb.warn(lm, msg, lm->cb.arg);
}

bool
labmodel_watching(const struct labmodel *lm)
{
	return lm->observer;
}

const char *
labmodel_start_refused(const struct labmodel *lm)
{
	return lm->observer ? "another calops console follows this lab's "
	    "jobs: start them there, or quit it and this one takes over" :
	    NULL;
}

const struct lab *
labmodel_lab(const struct labmodel *lm)
{
	return lm->lab;
}

struct transport *
labmodel_transport(struct labmodel *lm, const char *host, char *err,
    size_t errlen)
{
	struct lhost *h = labmodel_host_at(lm, host);

	if (h == NULL) {
		errbuf_set(err, errlen, "no host '%s' in the lab file", host);
		return NULL;
	}
	if (h->t == NULL)
		errbuf_set(err, errlen, "%s", h->err);
	return h->t;
}

const char *
labmodel_workspace(const struct labmodel *lm, const char *host)
{
	struct lhost *h = labmodel_host_at(lm, host);

	return h != NULL && h->nws > 0 ? h->ws[0] : NULL;
}

/* Which of h's workspaces ws names (the lab file's path, the path as jobs
 * record it, or on a local host the same folder however spelt), or -1. */
static ssize_t
host_ws_index(const struct labmodel *lm, const struct lhost *h,
    const char *ws)
{
	const struct lab_workspace *w;
	size_t i;

	for (i = 0; i < h->nws; i++)
		if (strcmp(h->ws[i], ws) == 0 || (h->ws_key[i] != NULL &&
		    strcmp(h->ws_key[i], ws) == 0))
			return (ssize_t)i;
	if ((w = lab_find_workspace(lm->lab, h->h->name, ws, NULL)) == NULL)
		return -1;
	for (i = 0; i < h->nws; i++)
		if (h->ws[i] == w->path)
			return (ssize_t)i;
	return -1;
}

const char *
labmodel_host_workspace(const struct labmodel *lm, const char *host,
    const char *ws)
{
	struct lhost *h = labmodel_host_at(lm, host);
	ssize_t i;

	if (h == NULL)
		return NULL;
	if (ws == NULL)
		return h->nws > 0 ? h->ws[0] : NULL;
	return (i = host_ws_index(lm, h, ws)) >= 0 ? h->ws[i] : NULL;
}

static bool
usable(const struct lhost *h)
{
	return h != NULL && h->t != NULL && h->nws > 0;
}

bool
labmodel_host_usable(const struct labmodel *lm, const char *host)
{
	return usable(labmodel_host_at(lm, host));
}

const char *
labmodel_default_host(const struct labmodel *lm)
{
	size_t i;

	for (i = 0; i < lm->nhosts; i++)
		if (usable(&lm->hosts[i]))
			return lm->hosts[i].h->name;
	return NULL;
}

char *
labmodel_ws_key(const struct lhost *h, const char *ws)
{
	char *real;

	if (ws == NULL)
		return NULL;
	if (h->h->transport == LAB_LOCAL && (real = realpath(ws, NULL)) != NULL)
		return real;
	return xstrdup(ws);
}

/* Whether job j ran on one of this lab's workspaces on its host (or says
 * not where). */
static bool
job_here(const struct labmodel *lm, const struct ljob *j)
{
	const struct lhost *h = labmodel_host_at(lm, j->host);
	size_t i;

	if (j->workspace == NULL)
		return true;
	for (i = 0; h != NULL && i < h->nws; i++)
		if (h->ws_key[i] != NULL &&
		    strcmp(h->ws_key[i], j->workspace) == 0)
			return true;
	return false;
}

static const struct rstream_cb run_cb;

/* The launch the connection lost, made again as it was. */
static void
relaunch(struct ljob_int *j)
{
	struct transport *t;
	char why[256];

	if ((t = labmodel_transport(j->lm, j->pub.host, why,
	    sizeof why)) == NULL)
		return;
	j->run_err[0] = '\0';
	j->run = transport_exec(t, j->run_argv.v, &run_cb, j, why,
	    sizeof why);
	if (j->run == NULL)
		snprintf(j->pub.err, sizeof j->pub.err, "launch interrupted: "
		    "%.200s", why);
}

/*
 * A host's connection changed (an SSH host; the local one never does): its
 * jobs are launched or followed again once it is up, a question it asks
 * (an unknown host key, a passphrase) goes to the owner once, and the
 * screens show the new state.
 */
static void
host_changed(struct transport *t, void *arg)
{
	struct lhost *h = arg;
	struct labmodel *lm = h->lm;
	struct transport_status st;
	struct ljob_int *j;
	bool came_up;
	size_t i;

	transport_status(t, &st);
	came_up = st.state == TRANSPORT_UP && !h->up;
	h->up = st.state == TRANSPORT_UP;
	if (st.ask != TRANSPORT_ASK_NONE && h->asked != st.ask_seq) {
		h->asked = st.ask_seq;
		if (lm->cb.ask != NULL)
			lm->cb.ask(lm, h->h->name, lm->cb.arg);
	}
	if (st.state == TRANSPORT_UP)
		for (i = 0; i < lm->njobs; i++) {
			j = lm->jobs[i];
			if (strcmp(j->pub.host, h->h->name) != 0)
				continue;
			if (j->relaunch && j->run == NULL)
				relaunch(j);
			else
				labstream_host_up(j);
		}
	if (came_up)
		labpoll_host_up(h);
	labmodel_changed(lm);
}

/* A transport for every host: local ones run commands as children, ssh
 * ones start connecting now, in the loop. */
static void
hosts_init(struct labmodel *lm)
{
	const struct lab *lab = lm->lab;
	struct lhost *h;
	size_t i, k;

	lm->hosts = xcalloc(lab->nhosts + 1, sizeof *lm->hosts);
	lm->nhosts = lab->nhosts;
	for (i = 0; i < lab->nhosts; i++) {
		h = &lm->hosts[i];
		h->h = &lab->hosts[i];
		h->lm = lm;
		h->ws = xcalloc(lab->nworkspaces + 1, sizeof *h->ws);
		h->ws_key = xcalloc(lab->nworkspaces + 1, sizeof *h->ws_key);
		for (k = 0; k < lab->nworkspaces; k++)
			if (strcmp(lab->workspaces[k].host, h->h->name) == 0) {
				h->ws[h->nws] = lab->workspaces[k].path;
				h->ws_key[h->nws++] = labmodel_ws_key(h,
				    lab->workspaces[k].path);
			}
		if (h->h->transport == LAB_LOCAL)
			h->t = local_transport_new(lm->loop, h->h->name,
			    lm->self);
		else
			h->t = ssh_transport_new(lm->loop, h->h, lab->path,
			    NULL, h->err, sizeof h->err);
		if (h->t == NULL)
			continue;
		h->t->changed = host_changed;
		h->t->changed_arg = h;
		h->t->can_ask = lm->cb.ask != NULL;
		if (transport_connect(h->t, h->err, sizeof h->err) != 0) {
			transport_close(h->t);
			h->t = NULL;
		}
	}
}

int
labmodel_allow_write(struct labmodel *lm, const char *host, char *err,
    size_t errlen)
{
	struct lhost *h = labmodel_host_at(lm, host);

	if (h == NULL) {
		errbuf_set(err, errlen, "--write %s: no host '%s' in the lab "
		    "file", host, host);
		return -1;
	}
	h->writable = true;
	return 0;
}

bool
labmodel_host_protected(const struct labmodel *lm, const char *host)
{
	const struct lhost *h = labmodel_host_at(lm, host);

	return h != NULL && h->h->protected && !h->writable;
}

/* ---- jobs ---- */

char *
labmodel_job_path(const struct labmodel *lm, const char *host, const char *id,
    const char *ext)
{
	return xasprintf("%s/%s/%s.%s", lm->streams, host, id, ext);
}

/* A job as the model keeps it: paths, and a metric store for a soak. */
void
labmodel_job_setup(struct labmodel *lm, struct ljob_int *j, bool samples)
{
	char *acks;

	j->lm = lm;
	j->retry_timer = j->keep_timer = -1;
	j->pub.exit_code = -1;
	j->pub.last_recv = j->pub.first_ts = j->pub.last_ts = NAN;
	j->pub.here = job_here(lm, &j->pub);
	labmirror_init(&j->mirror, lm->streams != NULL && j->pub.id != NULL ?
	    labmodel_job_path(lm, j->pub.host, j->pub.id, "jsonl") : NULL);
	if (lm->streams != NULL && j->pub.id != NULL)
		j->meta_path = labmodel_job_path(lm, j->pub.host, j->pub.id,
		    "json");
	if (j->pub.kind == LJOB_SOAK && samples) {
		j->pub.metrics = metrics_new(0);
		metrics_set_quota(j->pub.metrics, &lm->series);
		acks = lm->streams != NULL && j->pub.id != NULL
		    ? labmodel_job_path(lm, j->pub.host, j->pub.id, "acks")
		    : NULL;
		j->pub.alerts = alerts_new(acks);
		if (j->own_sla)
			alerts_set_sla(j->pub.alerts, j->sla[0], j->sla[1],
			    j->sla[2]);
		else
			alerts_set_sla(j->pub.alerts, lm->sla[0], lm->sla[1],
			    lm->sla[2]);
		free(acks);
	}
}

/*
 * Only the newest LAB_SOAKS_LOADED soaks keep their samples (a few MiB
 * each, whatever their length): an older one that has ended keeps its
 * state, progress and result, and says its samples are not loaded.
 */
static void
unload_old_soaks(struct labmodel *lm)
{
	struct ljob_int *j;
	size_t i, n = 0;

	for (i = 0; i < lm->njobs; i++) {
		j = lm->jobs[i];
		if (j->pub.kind != LJOB_SOAK || j->pub.metrics == NULL)
			continue;
		if (++n <= LAB_SOAKS_LOADED || labmodel_job_live(&j->pub) ||
		    j->mirror.replay != NULL)
			continue;
		alerts_free(j->pub.alerts);
		metrics_free(j->pub.metrics);
		j->pub.alerts = NULL;
		j->pub.metrics = NULL;
	}
}

int
labmodel_job_record(struct ljob_int *j, char *err, size_t errlen)
{
	char *meta = labstream_meta_json(j);
	int rc = 0;

	if (fileio_replace(j->meta_path, meta, strlen(meta), 0600, false, err,
	    errlen) != 0 || labmirror_open(&j->mirror, err, errlen) != 0) {
		unlink(j->meta_path);
		rc = -1;
	}
	free(meta);
	return rc;
}

/* A job being replayed, or still followed (an ended one whose mirror is
 * caught up after a takeover), is not the oldest to go. */
void
labmodel_job_insert(struct labmodel *lm, struct ljob_int *j)
{
	size_t i;

	if (lm->njobs >= LAB_JOBS_MAX) {
		for (i = lm->njobs; i-- > 0;)
			if (!labmodel_job_live(&lm->jobs[i]->pub) &&
			    lm->jobs[i]->mirror.replay == NULL &&
			    lm->jobs[i]->follow == NULL &&
			    lm->jobs[i]->retry_timer == -1) {
				labstream_job_free(lm->jobs[i]);
				memmove(&lm->jobs[i], &lm->jobs[i + 1],
				    (lm->njobs - i - 1) * sizeof *lm->jobs);
				lm->njobs--;
				break;
			}
	}
	lm->jobs = xreallocarray(lm->jobs, lm->njobs + 1, sizeof *lm->jobs);
	memmove(&lm->jobs[1], &lm->jobs[0], lm->njobs * sizeof *lm->jobs);
	lm->jobs[0] = j;
	lm->njobs++;
	unload_old_soaks(lm);
}

int
labmodel_host_dir(const struct labmodel *lm, const char *host, char *err,
    size_t errlen)
{
	char *rel;
	int fd;

	if (lm->streams == NULL) {
		errbuf_set(err, errlen, "neither XDG_STATE_HOME nor HOME is "
		    "set");
		return -1;
	}
	rel = xasprintf("streams/%s", host);
	fd = statedir_open(rel, "the host's mirror folder", true, NULL, err,
	    errlen);
	free(rel);
	if (fd == -1)
		return -1;
	close(fd);
	return 0;
}

/* `calops run` said something: its id on stdout, complaints on stderr. */
static void
run_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct ljob_int *j = arg;

	(void)rs;
	(void)cut;
	if (from_stderr && j->relaunch && hostcmd_run_exists(line, len))
		/* Launched again after the connection was lost: the first
		 * launch got there, and this one started nothing. */
		j->run_printed = true;
	else if (from_stderr)
		snprintf(j->run_err, sizeof j->run_err, "%.*s",
		    (int)(len > 190 ? 190 : len), line);
	else if (hostcmd_run_started(line, len, j->pub.id))
		j->run_printed = true;
	else
		snprintf(j->run_err, sizeof j->run_err, "calops run printed "
		    "'%.*s', not the id asked", (int)(len > 80 ? 80 : len),
		    line);
}

/* `calops run` answered: follow the job it started, or say why not. */
static void
run_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct ljob_int *j = arg;

	(void)rs;
	j->run = NULL;
	if (j->run_printed) {
		strv_free(&j->run_argv);
		j->relaunch = false;
		labstream_follow(j);
		labmodel_changed(j->lm);
		return;
	}
	if (ex->lost) {
		/* The connection went with the answer: the job may or may
		 * not have started.  The same launch goes again once the
		 * host is up; its id makes it start nothing the second time
		 * (`calops run --id` refuses an id that exists). */
		j->relaunch = true;
		snprintf(j->pub.err, sizeof j->pub.err, "launch interrupted "
		    "(%s): made again when %s is up", ex->err, j->pub.host);
		labmodel_changed(j->lm);
		return;
	}
	strv_free(&j->run_argv);
	j->pub.state = LJ_BROKEN;
	snprintf(j->pub.err, sizeof j->pub.err, "not started: %s",
	    ex->err != NULL ? ex->err : j->run_err[0] != '\0' ? j->run_err :
	    "calops run failed");
	if (j->meta_path != NULL)
		unlink(j->meta_path);
	if (j->mirror.path != NULL)
		unlink(j->mirror.path);
	labstream_log_action(j, j->pub.err);
	labmodel_changed(j->lm);
}

static const struct rstream_cb run_cb = {
	.line = run_line,
	.done = run_done,
};

/* The kind of job a spec starts: G9's is a soak. */
static enum ljob_kind
spec_kind(const struct ljob_spec *spec)
{
	return spec->kind == LJOB_GATE &&
	    gateid_job(spec->gate) == GATEJOB_SOAK ? LJOB_SOAK :
	    spec->kind;
}

/* The chips a spec's job uses on host h, up to max into out (max is at
 * least one more than the host's chips: all of them fit). */
static size_t
spec_chips(const struct lhost *h, const struct ljob_spec *spec, int *out,
    size_t max)
{
	size_t i, n = 0;

	/* A gate's own tool (the lab file's gates:) works on files, not a
	 * chip; G8's adapter conformance serves from one. */
	if (spec_kind(spec) == LJOB_GATE &&
	    gateid_job(spec->gate) != GATEJOB_SUITE &&
	    gateid_job(spec->gate) != GATEJOB_CHIP_TOOL)
		return 0;
	if (spec_kind(spec) == LJOB_FAULT || spec_kind(spec) == LJOB_CHIPSTEP)
		out[n++] = spec->chip;
	else if (spec_kind(spec) == LJOB_GATE && spec->nchips > 0 &&
	    gateid_job(spec->gate) == GATEJOB_SUITE)
		out[n++] = spec->chips[0];	/* G7's, picked */
	else if (spec_kind(spec) == LJOB_SOAK && spec->nchips > 0)
		for (i = 0; i < spec->nchips && n < max; i++)
			out[n++] = spec->chips[i];
	else if (spec_kind(spec) != LJOB_SOAK || h->h->nchips == 0)
		out[n++] = h->h->nchips > 0 ? h->h->chips[0] : 0;
	else
		for (i = 0; i < h->h->nchips && n < max; i++)
			out[n++] = h->h->chips[i];
	return n;
}

size_t
labmodel_spec_chips(const struct labmodel *lm, const struct ljob_spec *spec,
    int *out, size_t max)
{
	const struct lhost *h = labmodel_host_at(lm, spec->host);

	return h != NULL && max > 0 ? spec_chips(h, spec, out, max) : 0;
}

/* Where spec runs, for the command builder; the host, or NULL with err. */
static struct lhost *
where(const struct labmodel *lm, const struct ljob_spec *spec,
    struct labcmd_where *w, char *err, size_t errlen)
{
	struct lhost *h = labmodel_host_at(lm, spec->host);

	if (h == NULL) {
		errbuf_set(err, errlen, "no host '%s' in the lab file",
		    spec->host != NULL ? spec->host : "");
		return NULL;
	}
	w->lab = lm->lab;
	w->host = h->h;
	w->ws = labmodel_host_workspace(lm, spec->host, spec->workspace);
	w->selfdir = lm->selfdir;
	if (spec->workspace != NULL && w->ws == NULL) {
		errbuf_set(err, errlen, "'%s' is not a workspace of host '%s' "
		    "in the lab file", spec->workspace, h->h->name);
		return NULL;
	}
	return h;
}

int
labmodel_command(const struct labmodel *lm, const struct ljob_spec *spec,
    char *buf, size_t len, char *err, size_t errlen)
{
	struct labcmd_where w;

	if (where(lm, spec, &w, err, errlen) == NULL)
		return -1;
	return labcmd_text(&w, spec, buf, len, err, errlen);
}

/*
 * On a host with several workspaces, which one, by its folder's name, at
 * the end of label ("G1 calrt-sim · qwen3-8b"): the Jobs screen and the
 * action log tell two workspaces' jobs apart.  At most LABEL_WS_MAX bytes
 * of the name, cut on a whole UTF-8 character.
 */
#define LABEL_WS_MAX	48
static void
label_workspace(const struct lhost *h, const char *ws, char *label,
    size_t len)
{
	const char *base, *end;
	size_t used = strlen(label);
	int n;

	if (h->nws < 2 || ws == NULL || used >= len)
		return;
	end = ws + strlen(ws);
	while (end > ws + 1 && end[-1] == '/')
		end--;
	for (base = end; base > ws && base[-1] != '/'; base--)
		;
	n = end - base > LABEL_WS_MAX ? LABEL_WS_MAX : (int)(end - base);
	while (n > 0 && base + n < end &&
	    ((unsigned char)base[n] & 0xc0) == 0x80)
		n--;
	if (used + n + sizeof " · " > len)
		return;
	snprintf(label + used, len - used, " · %.*s", n, base);
}

int
labmodel_label(const struct labmodel *lm, const struct ljob_spec *spec,
    char *buf, size_t len, char *err, size_t errlen)
{
	struct labcmd_where w;
	struct strv argv;
	struct lhost *h;

	if ((h = where(lm, spec, &w, err, errlen)) == NULL ||
	    labcmd_build(&w, spec, &argv, buf, len, err, errlen) != 0)
		return -1;
	strv_free(&argv);
	label_workspace(h, w.ws, buf, len);
	return 0;
}

const struct ljob *
labmodel_start(struct labmodel *lm, const struct ljob_spec *spec, char *err,
    size_t errlen)
{
	struct labcmd_where w;
	struct lhost *h;
	struct strv argv, run = { NULL, 0, 0 };
	struct ljob_int *j;
	struct hostcmd_run_opts ro;
	char label[160], id[JOB_ID_MAX + 1], why[256];
	struct buf b;
	ssize_t k;

	if (labmodel_start_refused(lm) != NULL) {
		errbuf_set(err, errlen, "%s", labmodel_start_refused(lm));
		return NULL;
	}
	if (labmodel_host_protected(lm, spec->host)) {
		errbuf_set(err, errlen, "host '%s' is protected: jobs and "
		    "faults run there only from a console started with "
		    "--write %s", spec->host, spec->host);
		return NULL;
	}
	if ((h = where(lm, spec, &w, err, errlen)) == NULL ||
	    labcmd_build(&w, spec, &argv, label, sizeof label, err,
	    errlen) != 0)
		return NULL;
	label_workspace(h, w.ws, label, sizeof label);
	if (h->t == NULL ||
	    labmodel_host_dir(lm, h->h->name, err, errlen) != 0) {
		if (h->t == NULL)
			errbuf_set(err, errlen, "%s", h->err);
		strv_free(&argv);
		return NULL;
	}
	jobstore_id_generate(id, sizeof id);
	j = xcalloc(1, sizeof *j);
	j->pub.host = xstrdup(h->h->name);
	j->pub.id = xstrdup(id);
	/* The key the host's list holds for it, not resolved again: a folder
	 * made or a link moved since the console started must not make the
	 * job another workspace's (labmodel_gate_job would miss it, and a
	 * second job for the gate could start there). */
	k = host_ws_index(lm, h, w.ws);
	j->pub.workspace = k >= 0 && h->ws_key[k] != NULL ?
	    xstrdup(h->ws_key[k]) : labmodel_ws_key(h, w.ws);
	j->pub.kind = spec_kind(spec);
	/* A chip step writes no gate's evidence (release.md §6). */
	j->pub.gate = j->pub.kind == LJOB_SOAK ? 9 : j->pub.kind ==
	    LJOB_GATE ? spec->gate : j->pub.kind == LJOB_CHIPSTEP ? -1 : 7;
	j->pub.chip = j->pub.kind == LJOB_FAULT || j->pub.kind ==
	    LJOB_CHIPSTEP ? spec->chip : -1;
	if (j->pub.kind == LJOB_FAULT)
		j->pub.scenario = xstrdup(spec->scenario);
	j->pub.chips = xcalloc(h->h->nchips + 1, sizeof *j->pub.chips);
	j->pub.nchips = spec_chips(h, spec, j->pub.chips, h->h->nchips + 1);
	if (j->pub.kind == LJOB_SOAK)
		j->pub.target_s = spec->duration_s > 0 ? spec->duration_s :
		    86400;
	buf_init(&b, 64 << 10);
	labcmd_join_argv(argv.v, &b);
	buf_addc(&b, '\0');
	j->pub.command = buf_detach(&b, NULL);
	j->pub.label = xstrdup(label);
	j->pub.started = jobevent_now();
	j->pub.state = LJ_STARTING;
	/* Who starts it, in its record too: a console started again still
	 * says who (the Soak screen's list, its header). */
	j->pub.actor = jobstore_default_actor();
	if (!isnan(lm->sla[0]) || !isnan(lm->sla[1]) || !isnan(lm->sla[2])) {
		memcpy(j->sla, lm->sla, sizeof j->sla);
		j->own_sla = true;
	}
	labmodel_job_setup(lm, j, true);

	/* The record first: a console killed right after this still finds
	 * and follows the job. */
	if (labmodel_job_record(j, err, errlen) != 0) {
		strv_free(&argv);
		labstream_job_free(j);
		return NULL;
	}
	/* In the workspace the confirmation showed; a gate's job (G9's soak
	 * too) holds its gate there on the host, whoever asks next. */
	ro.id = id;
	ro.cwd = w.ws;
	ro.gate = j->pub.kind == LJOB_GATE || j->pub.kind == LJOB_SOAK ?
	    j->pub.gate : -1;
	ro.actor = j->pub.actor;
	hostcmd_run(&run, &ro, argv.v);
	strv_free(&argv);
	j->run_argv = run;
	j->run = transport_exec(h->t, run.v, &run_cb, j, why, sizeof why);
	if (j->run == NULL) {
		errbuf_set(err, errlen, "%s", why);
		unlink(j->meta_path);
		unlink(j->mirror.path);
		labstream_job_free(j);
		return NULL;
	}
	labmodel_job_insert(lm, j);
	labstream_log_action(j, NULL);
	labmodel_changed(lm);
	return &j->pub;
}

size_t
labmodel_njobs(const struct labmodel *lm)
{
	return lm->njobs;
}

struct ljob *
labmodel_job(const struct labmodel *lm, size_t i)
{
	return i < lm->njobs ? &lm->jobs[i]->pub : NULL;
}

struct ljob *
labmodel_latest(const struct labmodel *lm, enum ljob_kind k,
    const char *host)
{
	struct ljob *newest = NULL, *j;
	size_t i;

	for (i = 0; i < lm->njobs; i++) {
		j = &lm->jobs[i]->pub;
		if (j->kind != k || !j->here ||
		    (host != NULL && strcmp(j->host, host)))
			continue;
		if (labmodel_job_live(j))
			return j;
		if (newest == NULL)
			newest = j;
	}
	return newest;
}

const struct ljob *
labmodel_find(const struct labmodel *lm, const char *host, const char *id)
{
	const struct ljob *j;
	size_t i;

	for (i = 0; i < lm->njobs; i++) {
		j = &lm->jobs[i]->pub;
		if (j->id != NULL && strcmp(j->id, id) == 0 &&
		    strcmp(j->host, host) == 0)
			return j;
	}
	return NULL;
}

const struct ljob *
labmodel_gate_job(const struct labmodel *lm, int gate, const char *host,
    const char *ws)
{
	const struct lhost *h = labmodel_host_at(lm, host);
	const struct ljob *j;
	const char *key = NULL;
	ssize_t k;
	size_t i;

	/* ws as its jobs record it; a job that says not where ran in the
	 * host's first. */
	if (h != NULL && ws != NULL)
		key = (k = host_ws_index(lm, h, ws)) >= 0 ? h->ws_key[k] : ws;
	for (i = 0; i < lm->njobs; i++) {
		j = &lm->jobs[i]->pub;
		if (j->gate != gate || !j->here || !labmodel_job_live(j) ||
		    (host != NULL && strcmp(j->host, host) != 0))
			continue;
		if (key == NULL || (j->workspace != NULL ?
		    strcmp(j->workspace, key) == 0 : h->nws > 0 &&
		    h->ws_key[0] != NULL && strcmp(h->ws_key[0], key) == 0))
			return j;
	}
	return NULL;
}

size_t
labmodel_jobs_on_chip(const struct labmodel *lm, const char *host, int chip,
    const struct ljob **out, size_t max)
{
	const struct ljob *j;
	size_t i, k, n = 0;

	for (i = 0; i < lm->njobs; i++) {
		j = &lm->jobs[i]->pub;
		if (!labmodel_job_live(j) || strcmp(j->host, host) != 0)
			continue;
		for (k = 0; k < j->nchips; k++)
			if (j->chips[k] == chip)
				break;
		if (k == j->nchips)
			continue;
		if (n < max)
			out[n] = j;
		n++;
	}
	return n;
}

/* ---- fault results ---- */

void
labmodel_add_fault(struct labmodel *lm, const struct lfault *f)
{
	struct lfault *d;
	size_t i;

	if (lm->nfaults == LAB_FAULTS_MAX) {
		/* The oldest goes: this one, when its job started first. */
		if (f->job_started < lm->faults[0].job_started)
			return;
		d = &lm->faults[0];
		free(d->host);
		free(d->job);
		free(d->scenario);
		free(d->error_code);
		memmove(&lm->faults[0], &lm->faults[1],
		    (lm->nfaults - 1) * sizeof *lm->faults);
		lm->nfaults--;
	}
	if (lm->nfaults == 0 || (lm->nfaults & (lm->nfaults - 1)) == 0)
		lm->faults = xreallocarray(lm->faults, lm->nfaults ?
		    lm->nfaults * 2 : 16, sizeof *lm->faults);
	/* After every result of a job started before or with its own: a
	 * restart replays unfinished jobs first, and a result of an older
	 * job replayed after must not pass for the latest. */
	for (i = lm->nfaults; i > 0 &&
	    lm->faults[i - 1].job_started > f->job_started; i--)
		;
	memmove(&lm->faults[i + 1], &lm->faults[i], (lm->nfaults - i) *
	    sizeof *lm->faults);
	lm->nfaults++;
	d = &lm->faults[i];
	*d = *f;
	d->host = xstrdup(f->host);
	d->job = xstrdup(f->job);
	d->scenario = xstrdup(f->scenario);
	d->error_code = xstrdup(f->error_code);
}

size_t
labmodel_nfaults(const struct labmodel *lm)
{
	return lm->nfaults;
}

const struct lfault *
labmodel_fault(const struct labmodel *lm, size_t i)
{
	return i < lm->nfaults ? &lm->faults[i] : NULL;
}

/* ---- the SLA ---- */

void
labmodel_set_sla(struct labmodel *lm, double ttft_ms_p99, double tpot_ms_p99,
    double success_rate_min)
{
	size_t i;

	lm->sla[0] = ttft_ms_p99;
	lm->sla[1] = tpot_ms_p99;
	lm->sla[2] = success_rate_min;
	/* A job started before the SLA was known judges by it from now. */
	for (i = 0; i < lm->njobs; i++)
		if (lm->jobs[i]->pub.alerts != NULL && !lm->jobs[i]->own_sla)
			alerts_set_sla(lm->jobs[i]->pub.alerts, ttft_ms_p99,
			    tpot_ms_p99, success_rate_min);
}

void
labmodel_sla(const struct labmodel *lm, double *ttft_ms_p99,
    double *tpot_ms_p99, double *success_rate_min)
{
	*ttft_ms_p99 = lm->sla[0];
	*tpot_ms_p99 = lm->sla[1];
	*success_rate_min = lm->sla[2];
}

/* ---- the model ---- */

struct labmodel *
labmodel_new(struct loop *l, const struct lab *lab, const char *self,
    const struct labmodel_cb *cb, char *err, size_t errlen)
{
	struct labmodel *lm;
	char *copy;

	(void)err;
	(void)errlen;
	lm = xcalloc(1, sizeof *lm);
	lm->loop = l;
	lm->lab = lab;
	lm->self = self != NULL ? xstrdup(self) : NULL;
	if (self != NULL) {
		copy = xstrdup(self);
		lm->selfdir = xstrdup(dirname(copy));
		free(copy);
	} else {
		char buf[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);

		if (n > 0) {
			buf[n] = '\0';
			lm->selfdir = xstrdup(dirname(buf));
		}
	}
	if (cb != NULL)
		lm->cb = *cb;
	lm->sla[0] = lm->sla[1] = lm->sla[2] = NAN;
	lm->replay_timer = lm->flush_timer = lm->poll_timer = -1;
	lm->streams = labmodel_streams_dir();
	lm->lock_fd = -1;
	lm->series.max = METRICS_CONSOLE_SERIES;
	hosts_init(lm);
	labshare_start(lm);
	labreplay_init(lm);
	labpoll_start(lm);
	return lm;
}

void
labmodel_before_sleep(struct labmodel *lm)
{
	size_t i;

	for (i = 0; i < lm->nhosts; i++)
		if (lm->hosts[i].t != NULL)
			transport_before_sleep(lm->hosts[i].t);
	/* What they handed out is in the mirrors before it is painted. */
	if (lm->flush_timer != -1)
		labstream_flush_all(lm);
}

void
labmodel_free(struct labmodel *lm)
{
	size_t i, k;

	if (lm == NULL)
		return;
	labshare_stop(lm);
	labpoll_stop(lm);
	if (lm->replay_timer != -1)
		loop_del_timer(lm->loop, lm->replay_timer);
	if (lm->flush_timer != -1)
		loop_del_timer(lm->loop, lm->flush_timer);
	for (i = 0; i < lm->njobs; i++)
		labstream_job_free(lm->jobs[i]);
	free(lm->jobs);
	for (i = 0; i < lm->nfaults; i++) {
		free(lm->faults[i].host);
		free(lm->faults[i].job);
		free(lm->faults[i].scenario);
		free(lm->faults[i].error_code);
	}
	free(lm->faults);
	for (i = 0; i < lm->nhosts; i++)
		if (lm->hosts[i].t != NULL)
			transport_close(lm->hosts[i].t);
	for (i = 0; i < lm->nhosts; i++) {
		for (k = 0; k < lm->hosts[i].nws; k++)
			free(lm->hosts[i].ws_key[k]);
		free(lm->hosts[i].ws_key);
		free(lm->hosts[i].ws);
	}
	free(lm->hosts);
	if (lm->lock_fd != -1)
		close(lm->lock_fd);
	free(lm->streams);
	free(lm->self);
	free(lm->selfdir);
	free(lm);
}
