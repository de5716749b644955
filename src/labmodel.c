/*
 * labmodel.c: the console's model of the lab (labmodel.h): the hosts and
 * their transports, the commands of the gate, soak, fault and golden jobs,
 * starting them as durable jobs, and the replay of the mirrors at start.
 * A job's stream itself is labstream.c's.
 */
#include "calops.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>

#include "alerts.h"
#include "buf.h"
#include "fileio.h"
#include "job.h"
#include "labmodel_int.h"
#include "metrics.h"
#include "transport.h"

#define REPLAY_LINES	20000	/* mirror lines applied per loop turn */

const char *const lab_scenarios[LAB_NSCENARIOS] = {
	"missing-tensor", "bad-csr", "oob-slice", "kv-full", "submit-busy",
	"wait-timeout", "ccu-exception", "reset-warmup",
};

/*
 * G7's whole job: golden, then every fault scenario on one chip, as one
 * durable job so that it outlives the console.  A fixed script given its
 * values as arguments (never spliced into the text): $1 the package, $2
 * the chip, $3 the runner, the rest the runner's own options (which go
 * after its command: lab.h).
 */
static const char g7_script[] =
    "calbin=$1; chip=$2; runner=$3; shift 3; st=0\n"
    "\"$runner\" golden \"$@\" --calbin \"$calbin\" --chips \"$chip\" "
    "|| st=1\n"
    "for s in missing-tensor bad-csr oob-slice kv-full submit-busy "
    "wait-timeout ccu-exception reset-warmup; do\n"
    "\t\"$runner\" fault \"$@\" --calbin \"$calbin\" --chips \"$chip\" "
    "--scenario \"$s\" || st=1\n"
    "done\n"
    "exit $st\n";

double
labmodel_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

char *
labmodel_streams_dir(void)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (state != NULL && state[0] == '/')
		return xasprintf("%s/calops/streams", state);
	if (home != NULL && home[0] == '/')
		return xasprintf("%s/.local/state/calops/streams", home);
	return NULL;
}

const char *
ljob_state_name(enum ljob_state s)
{
	static const char *const names[] = {
		[LJ_STARTING] = "starting", [LJ_RUNNING] = "running",
		[LJ_DONE] = "done", [LJ_FAILED] = "failed",
		[LJ_KILLED] = "killed", [LJ_BROKEN] = "broken",
	};

	return (size_t)s < nitems(names) ? names[s] : "?";
}

bool
ljob_live(const struct ljob *j)
{
	return j->state == LJ_STARTING || j->state == LJ_RUNNING;
}

bool
labmodel_gate_has_job(int gate)
{
	return gate == 7 || gate == 9;
}

/* ---- hosts ---- */

struct lhost *
lm_host(const struct labmodel *lm, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < lm->nhosts; i++)
		if (strcmp(lm->hosts[i].h->name, name) == 0)
			return &lm->hosts[i];
	return NULL;
}

void
lm_changed(struct labmodel *lm)
{
	if (lm->cb.changed != NULL)
		lm->cb.changed(lm, lm->cb.arg);
}

void
lm_warn(struct labmodel *lm, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	lm->nwarnings++;
	if (lm->cb.warn != NULL)
		lm->cb.warn(lm, msg, lm->cb.arg);
}

uint64_t
labmodel_nwarnings(const struct labmodel *lm)
{
	return lm->nwarnings;
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
	struct lhost *h = lm_host(lm, host);

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
	struct lhost *h = lm_host(lm, host);

	return h != NULL ? h->ws : NULL;
}

const char *
labmodel_default_host(const struct labmodel *lm)
{
	size_t i;

	for (i = 0; i < lm->nhosts; i++)
		if (lm->hosts[i].t != NULL && lm->hosts[i].ws != NULL)
			return lm->hosts[i].h->name;
	return NULL;
}

/* Connect what this version can reach: local hosts. */
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
		for (k = 0; k < lab->nworkspaces && h->ws == NULL; k++)
			if (strcmp(lab->workspaces[k].host, h->h->name) == 0)
				h->ws = lab->workspaces[k].path;
		if (h->h->transport != LAB_LOCAL) {
			errbuf_set(h->err, sizeof h->err, "host '%s' is reached "
			    "over ssh, which this version cannot do yet",
			    h->h->name);
			continue;
		}
		h->t = transport_local_new(lm->loop, h->h->name, lm->self);
		if (transport_connect(h->t, h->err, sizeof h->err) != 0) {
			transport_close(h->t);
			h->t = NULL;
		}
	}
}

/* ---- commands ---- */

/* A runner named without a slash that sits beside calops (the bundled
 * simulator) is run from there on a local host; a new string. */
static char *
runner_program(const struct labmodel *lm, const struct lhost *h,
    const char *name)
{
	char *p;

	if (strchr(name, '/') != NULL || h->h->transport != LAB_LOCAL ||
	    lm->selfdir == NULL)
		return xstrdup(name);
	p = xasprintf("%s/%s", lm->selfdir, name);
	if (access(p, X_OK) == 0)
		return p;
	free(p);
	return xstrdup(name);
}

struct strv {
	char	**v;
	size_t	  n, cap;
};

static void
strv_add(struct strv *s, char *owned)
{
	if (s->n + 2 > s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = xreallocarray(s->v, s->cap, sizeof *s->v);
	}
	s->v[s->n++] = owned;
	s->v[s->n] = NULL;
}

static void
strv_free(struct strv *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* The lab's runner with its command: the program, the command (golden,
 * stress, fault), then the runner's own options (lab.h). */
static void
add_runner(const struct labmodel *lm, const struct lhost *h, struct strv *s,
    const char *command)
{
	const struct lab *lab = lm->lab;
	size_t i;

	strv_add(s, runner_program(lm, h, lab->runner_argc > 0 ?
	    lab->runner_argv[0] : LAB_DEFAULT_RUNNER));
	if (command != NULL)
		strv_add(s, xstrdup(command));
	for (i = 1; i < lab->runner_argc; i++)
		strv_add(s, xstrdup(lab->runner_argv[i]));
}

/* "0-3,6" for a list of chips, into buf. */
static void
chips_text(const int *chips, size_t n, char *buf, size_t len)
{
	size_t i, k, off = 0;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i = k + 1) {
		for (k = i; k + 1 < n && chips[k + 1] == chips[k] + 1; k++)
			;
		off += (size_t)snprintf(buf + off, len - off, "%s%d", i ? "," :
		    "", chips[i]);
		if (k > i && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%d",
			    k == i + 1 ? "," : "-", chips[k]);
	}
}

/* "24h", "90m" or seconds, as the runner's --duration takes them. */
static void
duration_text(double s, char *buf, size_t len)
{
	long v = lround(s);

	if (v % 3600 == 0)
		snprintf(buf, len, "%ldh", v / 3600);
	else if (v % 60 == 0)
		snprintf(buf, len, "%ldm", v / 60);
	else
		snprintf(buf, len, "%lds", v);
}

/*
 * The job's argv (what `calops run --` gets) and its label, from a spec.
 * 0, or -1 with err.
 */
static int
build_job(struct labmodel *lm, const struct ljob_spec *spec, struct strv *argv,
    char *label, size_t labellen, char *err, size_t errlen)
{
	struct lhost *h = lm_host(lm, spec->host);
	const struct lab_host *lh;
	char chips[256], dur[32], *calbin;
	int first_chip;
	size_t i;

	memset(argv, 0, sizeof *argv);
	if (h == NULL) {
		errbuf_set(err, errlen, "no host '%s' in the lab file",
		    spec->host != NULL ? spec->host : "");
		return -1;
	}
	if (h->ws == NULL) {
		errbuf_set(err, errlen, "the lab file names no workspace on "
		    "host '%s'", h->h->name);
		return -1;
	}
	lh = h->h;
	first_chip = lh->nchips > 0 ? lh->chips[0] : 0;
	calbin = xasprintf("%s/05-calbin/package", h->ws);
	switch (spec->kind == LJOB_GATE && spec->gate == 9 ? LJOB_SOAK :
	    spec->kind) {
	case LJOB_GATE:
		if (spec->gate != 7) {
			errbuf_set(err, errlen, "G%d has no lab job: its "
			    "evidence is made outside the lab", spec->gate);
			free(calbin);
			return -1;
		}
		strv_add(argv, xstrdup("/bin/sh"));
		strv_add(argv, xstrdup("-c"));
		strv_add(argv, xstrdup(g7_script));
		strv_add(argv, xstrdup("calops-g7"));
		strv_add(argv, xstrdup(calbin));
		strv_add(argv, xasprintf("%d", first_chip));
		add_runner(lm, h, argv, NULL);
		snprintf(label, labellen, "G7 golden + 8 faults · chip %d",
		    first_chip);
		break;
	case LJOB_SOAK:
		if (lh->nchips > 0)
			chips_text(lh->chips, lh->nchips, chips, sizeof chips);
		else
			snprintf(chips, sizeof chips, "0");
		duration_text(spec->duration_s > 0 ? spec->duration_s : 86400,
		    dur, sizeof dur);
		add_runner(lm, h, argv, "stress");
		strv_add(argv, xstrdup("--calbin"));
		strv_add(argv, xstrdup(calbin));
		strv_add(argv, xstrdup("--duration"));
		strv_add(argv, xstrdup(dur));
		strv_add(argv, xstrdup("--chips"));
		strv_add(argv, xstrdup(chips));
		snprintf(label, labellen, "soak %s · chips %s", dur, chips);
		break;
	case LJOB_FAULT:
		for (i = 0; i < LAB_NSCENARIOS; i++)
			if (spec->scenario != NULL &&
			    strcmp(spec->scenario, lab_scenarios[i]) == 0)
				break;
		if (i == LAB_NSCENARIOS || spec->chip < 0) {
			errbuf_set(err, errlen, "no such fault scenario or "
			    "chip");
			free(calbin);
			return -1;
		}
		add_runner(lm, h, argv, "fault");
		strv_add(argv, xstrdup("--calbin"));
		strv_add(argv, xstrdup(calbin));
		strv_add(argv, xstrdup("--chips"));
		strv_add(argv, xasprintf("%d", spec->chip));
		strv_add(argv, xstrdup("--scenario"));
		strv_add(argv, xstrdup(lab_scenarios[i]));
		snprintf(label, labellen, "fault %s · chip %d",
		    lab_scenarios[i], spec->chip);
		break;
	case LJOB_GOLDEN:
		add_runner(lm, h, argv, "golden");
		strv_add(argv, xstrdup("--calbin"));
		strv_add(argv, xstrdup(calbin));
		strv_add(argv, xstrdup("--chips"));
		strv_add(argv, xasprintf("%d", first_chip));
		snprintf(label, labellen, "golden · chip %d", first_chip);
		break;
	}
	free(calbin);
	return 0;
}

/* argv as a person would type it: words quoted for sh where needed. */
static void
join_argv(char *const *argv, struct buf *b)
{
	const char *p;
	size_t i;

	for (i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			buf_addc(b, ' ');
		if (argv[i][0] != '\0' && strspn(argv[i], "abcdefghijklmnopqrs"
		    "tuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./,:=+@%") ==
		    strlen(argv[i])) {
			buf_adds(b, argv[i]);
			continue;
		}
		buf_addc(b, '\'');
		for (p = argv[i]; *p != '\0'; p++) {
			if (*p == '\'')
				buf_adds(b, "'\\''");
			else
				buf_addc(b, *p);
		}
		buf_addc(b, '\'');
	}
}

int
labmodel_command(struct labmodel *lm, const struct ljob_spec *spec,
    char *buf, size_t len, char *err, size_t errlen)
{
	struct strv argv;
	char label[160];
	struct buf b;

	if (build_job(lm, spec, &argv, label, sizeof label, err, errlen) != 0)
		return -1;
	buf_init(&b, 64 << 10);
	join_argv(argv.v, &b);
	snprintf(buf, len, "%.*s", (int)b.len, b.data);
	buf_release(&b);
	strv_free(&argv);
	return 0;
}

/* ---- jobs ---- */

char *
lm_job_path(const struct labmodel *lm, const char *host, const char *id,
    const char *ext)
{
	return xasprintf("%s/%s/%s.%s", lm->streams, host, id, ext);
}

/* A job as the model keeps it: paths, and a metric store for a soak. */
static void
job_setup(struct labmodel *lm, struct ljob_int *j, bool samples)
{
	char *acks;

	j->lm = lm;
	j->mirror_fd = -1;
	j->retry_timer = -1;
	j->pub.exit_code = -1;
	j->pub.last_recv = j->pub.first_ts = j->pub.last_ts = NAN;
	if (lm->streams != NULL && j->pub.id != NULL) {
		j->mirror_path = lm_job_path(lm, j->pub.host, j->pub.id,
		    "jsonl");
		j->meta_path = lm_job_path(lm, j->pub.host, j->pub.id, "json");
	}
	if (j->pub.kind == LJOB_SOAK && samples) {
		j->pub.metrics = metrics_new(0);
		acks = lm->streams != NULL && j->pub.id != NULL ?
		    lm_job_path(lm, j->pub.host, j->pub.id, "acks") : NULL;
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
		if (++n <= LAB_SOAKS_LOADED || ljob_live(&j->pub) ||
		    j->replay != NULL)
			continue;
		alerts_free(j->pub.alerts);
		metrics_free(j->pub.metrics);
		j->pub.alerts = NULL;
		j->pub.metrics = NULL;
	}
}

/* Put a job first; past LAB_JOBS_MAX the oldest ended one goes. */
static void
job_insert(struct labmodel *lm, struct ljob_int *j)
{
	size_t i;

	if (lm->njobs >= LAB_JOBS_MAX) {
		for (i = lm->njobs; i-- > 0;)
			if (!ljob_live(&lm->jobs[i]->pub) &&
			    lm->jobs[i]->replay == NULL) {
				ljob_free(lm->jobs[i]);
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

/* mkdir -p with mode. */
static int
mkdir_parents(const char *path, mode_t mode)
{
	char *dir = xstrdup(path), *p;
	int rc = 0;

	for (p = dir + 1; rc == 0; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(dir, mode) == -1 && errno != EEXIST)
			rc = -1;
		*p = c;
		if (c == '\0')
			break;
	}
	free(dir);
	return rc;
}

/* Make a host's mirror folder (and the streams folder). */
static int
make_host_dir(const struct labmodel *lm, const char *host, char *err,
    size_t errlen)
{
	char *dir;
	int rc = 0;

	if (lm->streams == NULL) {
		errbuf_set(err, errlen, "neither XDG_STATE_HOME nor HOME is "
		    "set");
		return -1;
	}
	dir = xasprintf("%s/%s", lm->streams, host);
	if (mkdir_parents(dir, 0700) != 0) {
		errbuf_set(err, errlen, "cannot make '%s': %s", dir,
		    strerror(errno));
		rc = -1;
	}
	free(dir);
	return rc;
}

/* `calops run` said something: its id on stdout, complaints on stderr. */
static void
run_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct ljob_int *j = arg;

	(void)rs;
	(void)cut;
	if (from_stderr)
		snprintf(j->run_err, sizeof j->run_err, "%.*s",
		    (int)(len > 190 ? 190 : len), line);
	else if (strlen(j->pub.id) == len && memcmp(line, j->pub.id, len) == 0)
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
		ljob_follow(j);
		lm_changed(j->lm);
		return;
	}
	j->pub.state = LJ_BROKEN;
	snprintf(j->pub.err, sizeof j->pub.err, "not started: %s",
	    ex->err != NULL ? ex->err : j->run_err[0] != '\0' ? j->run_err :
	    "calops run failed");
	if (j->meta_path != NULL)
		unlink(j->meta_path);
	if (j->mirror_path != NULL)
		unlink(j->mirror_path);
	ljob_log_action(j, j->pub.err);
	lm_changed(j->lm);
}

static const struct rstream_cb run_cb = {
	.line = run_line,
	.done = run_done,
};

/* The chips a spec's job uses. */
static void
spec_chips(const struct lhost *h, const struct ljob_spec *spec,
    struct ljob *j)
{
	size_t i;

	j->chips = xcalloc(h->h->nchips + 1, sizeof *j->chips);
	if (j->kind == LJOB_FAULT) {
		j->chips[j->nchips++] = spec->chip;
		return;
	}
	if (j->kind != LJOB_SOAK || h->h->nchips == 0) {
		j->chips[j->nchips++] = h->h->nchips > 0 ? h->h->chips[0] : 0;
		return;
	}
	for (i = 0; i < h->h->nchips; i++)
		j->chips[j->nchips++] = h->h->chips[i];
}

const struct ljob *
labmodel_start(struct labmodel *lm, const struct ljob_spec *spec, char *err,
    size_t errlen)
{
	struct lhost *h = lm_host(lm, spec->host);
	struct strv argv, run = { 0 };
	struct ljob_int *j;
	char label[160], id[JOB_ID_MAX + 1], *meta, why[256];
	struct buf b;
	size_t i;

	if (lm->observer) {
		errbuf_set(err, errlen, "another calops console follows this "
		    "lab's jobs: start them there");
		return NULL;
	}
	if (build_job(lm, spec, &argv, label, sizeof label, err, errlen) != 0)
		return NULL;
	if (h->t == NULL || make_host_dir(lm, h->h->name, err, errlen) != 0) {
		if (h->t == NULL)
			errbuf_set(err, errlen, "%s", h->err);
		strv_free(&argv);
		return NULL;
	}
	job_id_generate(id, sizeof id);
	j = xcalloc(1, sizeof *j);
	j->pub.host = xstrdup(h->h->name);
	j->pub.id = xstrdup(id);
	j->pub.kind = spec->kind == LJOB_GATE && spec->gate == 9 ? LJOB_SOAK :
	    spec->kind;
	j->pub.gate = j->pub.kind == LJOB_SOAK ? 9 : 7;
	j->pub.chip = j->pub.kind == LJOB_FAULT ? spec->chip : -1;
	if (j->pub.kind == LJOB_FAULT)
		j->pub.scenario = xstrdup(spec->scenario);
	spec_chips(h, spec, &j->pub);
	if (j->pub.kind == LJOB_SOAK)
		j->pub.target_s = spec->duration_s > 0 ? spec->duration_s :
		    86400;
	buf_init(&b, 64 << 10);
	join_argv(argv.v, &b);
	buf_addc(&b, '\0');
	j->pub.command = buf_detach(&b, NULL);
	j->pub.label = xstrdup(label);
	j->pub.started = labmodel_now();
	j->pub.state = LJ_STARTING;
	if (!isnan(lm->sla[0]) || !isnan(lm->sla[1]) || !isnan(lm->sla[2])) {
		memcpy(j->sla, lm->sla, sizeof j->sla);
		j->own_sla = true;
	}
	job_setup(lm, j, true);

	/* The record first: a console killed right after this still finds
	 * and follows the job. */
	meta = ljob_meta_json(j);
	if (file_replace(j->meta_path, meta, strlen(meta), 0600, false, err,
	    errlen) != 0 || ljob_open_mirror(j, err, errlen) != 0) {
		unlink(j->meta_path);
		free(meta);
		strv_free(&argv);
		ljob_free(j);
		return NULL;
	}
	free(meta);
	strv_add(&run, xstrdup("run"));
	strv_add(&run, xstrdup("--id"));
	strv_add(&run, xstrdup(id));
	strv_add(&run, xstrdup("--"));
	for (i = 0; i < argv.n; i++)
		strv_add(&run, xstrdup(argv.v[i]));
	strv_free(&argv);
	j->run = transport_exec(h->t, run.v, &run_cb, j, why, sizeof why);
	strv_free(&run);
	if (j->run == NULL) {
		errbuf_set(err, errlen, "%s", why);
		unlink(j->meta_path);
		unlink(j->mirror_path);
		ljob_free(j);
		return NULL;
	}
	job_insert(lm, j);
	ljob_log_action(j, NULL);
	lm_changed(lm);
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
		if (j->kind != k || (host != NULL && strcmp(j->host, host)))
			continue;
		if (ljob_live(j))
			return j;
		if (newest == NULL)
			newest = j;
	}
	return newest;
}

const struct ljob *
labmodel_gate_job(const struct labmodel *lm, int gate)
{
	size_t i;

	for (i = 0; i < lm->njobs; i++)
		if (lm->jobs[i]->pub.gate == gate &&
		    ljob_live(&lm->jobs[i]->pub))
			return &lm->jobs[i]->pub;
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
		if (!ljob_live(j) || strcmp(j->host, host) != 0)
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
lm_add_fault(struct labmodel *lm, const struct lfault *f)
{
	struct lfault *d;

	if (lm->nfaults == LAB_FAULTS_MAX) {
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
	d = &lm->faults[lm->nfaults++];
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

/* ---- the replay at start ---- */

static int
by_started(const void *a, const void *b)
{
	const struct ljob_int *x = *(struct ljob_int *const *)a;
	const struct ljob_int *y = *(struct ljob_int *const *)b;

	return (x->pub.started < y->pub.started) - (x->pub.started >
	    y->pub.started);
}

/* Every job record of a host's mirror folder, into *v. */
static void
scan_host(struct labmodel *lm, const char *host, struct ljob_int ***v,
    size_t *n)
{
	char *dir = xasprintf("%s/%s", lm->streams, host), *path, err[512];
	struct ljob_int *j;
	struct dirent *d;
	size_t len;
	DIR *dp;

	if ((dp = opendir(dir)) == NULL) {
		free(dir);
		return;
	}
	while ((d = readdir(dp)) != NULL) {
		len = strlen(d->d_name);
		if (d->d_name[0] == '.' || len < 6 ||
		    strcmp(d->d_name + len - 5, ".json") != 0)
			continue;
		path = xasprintf("%s/%s", dir, d->d_name);
		j = ljob_from_meta(lm, path, err, sizeof err);
		free(path);
		if (j == NULL) {
			lm_warn(lm, "%s", err);
			continue;
		}
		if (strcmp(j->pub.host, host) != 0) {
			ljob_free(j);
			continue;
		}
		*v = xreallocarray(*v, *n + 1, sizeof **v);
		(*v)[(*n)++] = j;
	}
	closedir(dp);
	free(dir);
}

/* Apply up to *budget lines of j's mirror; when done, follow on. */
static bool
replay_one(struct labmodel *lm, struct ljob_int *j, size_t *budget)
{
	if (!ljob_replay_step(j, budget, lm->observer))
		return false;
	if (!j->ended && !lm->observer)
		ljob_follow(j);
	return true;
}

/*
 * Replay the mirrors REPLAY_LINES lines per loop turn, the unfinished jobs
 * first (newest first: their streams resume as soon as they are caught
 * up), then the ended ones oldest first (fault results in their order).
 */
static void
replay_fire(struct loop *l, void *arg)
{
	struct labmodel *lm = arg;
	size_t i, budget = REPLAY_LINES;
	bool all = true;

	lm->replay_timer = -1;
	for (i = 0; i < lm->njobs && all; i++)
		if (lm->jobs[i]->replay != NULL && lm->jobs[i]->unfinished)
			all = replay_one(lm, lm->jobs[i], &budget);
	for (i = lm->njobs; i-- > 0 && all;)
		if (lm->jobs[i]->replay != NULL)
			all = replay_one(lm, lm->jobs[i], &budget);
	lm_changed(lm);
	if (!all)
		lm->replay_timer = loop_add_timer(l, 0, replay_fire, lm);
}

/*
 * The jobs this console (or an earlier one) started, newest first: every
 * one whose mirror has not ended (it may still run), and the newest ended
 * ones up to LAB_JOBS_MAX in all.  Soaks keep their samples when unfinished
 * or among the newest LAB_SOAKS_LOADED.
 */
static void
replay_init(struct labmodel *lm)
{
	struct ljob_int **v = NULL, *j;
	size_t i, n = 0, live = 0, kept = 0, soaks = 0;
	char *path;

	if (lm->streams == NULL)
		return;
	for (i = 0; i < lm->nhosts; i++)
		scan_host(lm, lm->hosts[i].h->name, &v, &n);
	if (n > 1)
		qsort(v, n, sizeof *v, by_started);
	for (i = 0; i < n; i++) {
		path = lm_job_path(lm, v[i]->pub.host, v[i]->pub.id, "jsonl");
		v[i]->unfinished = !mirror_ended(path);
		free(path);
		live += v[i]->unfinished;
		soaks += v[i]->unfinished && v[i]->pub.kind == LJOB_SOAK;
	}
	for (i = 0; i < n; i++) {
		j = v[i];
		if (!j->unfinished && live + kept >= LAB_JOBS_MAX) {
			ljob_free(j);
			continue;
		}
		kept += !j->unfinished;
		job_setup(lm, j, j->pub.kind == LJOB_SOAK && (j->unfinished ||
		    ++soaks <= LAB_SOAKS_LOADED));
		j->pub.state = LJ_RUNNING;
		j->pub.replaying = ljob_replay_open(j) == 0;
		lm->jobs = xreallocarray(lm->jobs, lm->njobs + 1,
		    sizeof *lm->jobs);
		lm->jobs[lm->njobs++] = j;
	}
	free(v);
	/* Jobs without a mirror yet (the console died before the first
	 * event) are followed from the start at once. */
	for (i = 0; i < lm->njobs && !lm->observer; i++)
		if (lm->jobs[i]->replay == NULL)
			ljob_follow(lm->jobs[i]);
	if (lm->njobs > 0)
		lm->replay_timer = loop_add_timer(lm->loop, 0, replay_fire,
		    lm);
}

/* ---- the model ---- */

/*
 * One console follows a state folder's jobs: two appending to the same
 * mirrors, or one cutting a mirror the other appends to, would break the
 * exactly-once promise.  A second console shows what is recorded and
 * starts nothing.
 */
static void
lock_streams(struct labmodel *lm)
{
	char *path;

	if (lm->streams == NULL || mkdir_parents(lm->streams, 0700) != 0)
		return;
	path = xasprintf("%s/.lock", lm->streams);
	lm->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600);
	free(path);
	if (lm->lock_fd == -1)
		return;
	if (flock(lm->lock_fd, LOCK_EX | LOCK_NB) == 0)
		return;
	close(lm->lock_fd);
	lm->lock_fd = -1;
	lm->observer = true;
	lm_warn(lm, "another calops console follows these jobs: this one "
	    "shows what it recorded and starts nothing");
}

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
	lm->replay_timer = -1;
	lm->streams = labmodel_streams_dir();
	lm->lock_fd = -1;
	hosts_init(lm);
	lock_streams(lm);
	replay_init(lm);
	return lm;
}

void
labmodel_free(struct labmodel *lm)
{
	size_t i;

	if (lm == NULL)
		return;
	if (lm->replay_timer != -1)
		loop_del_timer(lm->loop, lm->replay_timer);
	for (i = 0; i < lm->njobs; i++)
		ljob_free(lm->jobs[i]);
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
	free(lm->hosts);
	if (lm->lock_fd != -1)
		close(lm->lock_fd);
	free(lm->streams);
	free(lm->self);
	free(lm->selfdir);
	free(lm);
}
