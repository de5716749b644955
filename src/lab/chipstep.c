/* chipstep.c: a release's chip step, the approver's side (chipstep.h). */
#include "calops.h"

#include <signal.h>
#include <unistd.h>

#include <jansson.h>

#include "base/strv.h"
#include "base/text.h"
#include "lab/chipstep.h"
#include "lab/labcmd.h"
#include "loop/child.h"
#include "loop/loop.h"
#include "proto/hostcmd.h"
#include "release/relswitch.h"
#include "remote/local.h"
#include "remote/ssh.h"
#include "remote/transport.h"

/* How long `calops kill` has to end the job before it counts as lost. */
#define KILL_GRACE_MS	30000

void
chipstep_init(struct chipstep *cs)
{
	memset(cs, 0, sizeof *cs);
	cs->exit_code = -1;
}

/* s (the host's) into buf as safe text. */
static void
keep_text(char *buf, size_t len, const char *s)
{
	char *safe;

	if (s == NULL)
		return;
	safe = text_sanitize(s, strlen(s), len - 1);
	snprintf(buf, len, "%s", safe);
	free(safe);
}

static bool
hex64(const char *s)
{
	return s != NULL && strlen(s) == 64 &&
	    strspn(s, "0123456789abcdef") == 64;
}

static void
on_chip_step(struct chipstep *cs, json_t *e)
{
	const char *sum = json_string_value(json_object_get(e,
	    "golden_sha256"));
	const char *tree = json_string_value(json_object_get(e,
	    "calbin_tree_sha256"));

	cs->said = true;
	cs->passed = json_is_true(json_object_get(e, "passed"));
	keep_text(cs->golden, sizeof cs->golden, json_string_value(
	    json_object_get(e, "golden")));
	snprintf(cs->golden_sha256, sizeof cs->golden_sha256, "%s",
	    hex64(sum) ? sum : "");
	snprintf(cs->calbin_tree, sizeof cs->calbin_tree, "%s",
	    hex64(tree) ? tree : "");
	if (!cs->passed)
		keep_text(cs->last_error, sizeof cs->last_error,
		    json_string_value(json_object_get(e, "problem")));
}

void
chipstep_event(struct chipstep *cs, const char *line, size_t len)
{
	const char *type, *level;
	json_t *e = json_loadb(line, len, 0, NULL);

	cs->events++;
	type = json_string_value(json_object_get(e, "type"));
	if (type == NULL) {
		json_decref(e);
		return;
	}
	if (strcmp(type, "progress") == 0) {
		keep_text(cs->phase, sizeof cs->phase, json_string_value(
		    json_object_get(e, "phase")));
		cs->done = json_number_value(json_object_get(e, "done"));
		cs->total = json_number_value(json_object_get(e, "total"));
	} else if (strcmp(type, "chip_step") == 0)
		on_chip_step(cs, e);
	else if (strcmp(type, "log") == 0 &&
	    (level = json_string_value(json_object_get(e, "level"))) !=
	    NULL && (strcmp(level, "error") == 0 ||
	    strcmp(level, "warn") == 0) && !cs->said)
		keep_text(cs->last_error, sizeof cs->last_error,
		    json_string_value(json_object_get(e, "msg")));
	else if (strcmp(type, "end") == 0) {
		cs->ended = true;
		keep_text(cs->state, sizeof cs->state, json_string_value(
		    json_object_get(e, "state")));
		if (json_is_integer(json_object_get(e, "exit_code")))
			cs->exit_code = (int)json_integer_value(
			    json_object_get(e, "exit_code"));
		if (json_is_integer(json_object_get(e, "signal")))
			cs->sig = (int)json_integer_value(json_object_get(e,
			    "signal"));
	}
	json_decref(e);
}

bool
chipstep_judge(struct chipstep *cs, const char *tree)
{
	const char *cut_why = cs->cut[0] != '\0' ? cs->cut : NULL;
	const char *job = cs->job[0] != '\0' ? cs->job : "(not started)";

	cs->ok = false;
	if (cut_why != NULL)
		errbuf_set(cs->problem, sizeof cs->problem, "the chip step "
		    "(job %s) was cut short: %s", job, cut_why);
	else if (!cs->ended)
		errbuf_set(cs->problem, sizeof cs->problem, "the chip step "
		    "(job %s) did not end", job);
	else if (cs->sig > 0 || strcmp(cs->state, "killed") == 0)
		errbuf_set(cs->problem, sizeof cs->problem, "the chip step "
		    "(job %s) was cut short: it was killed%s%s", job,
		    cs->phase[0] != '\0' ? " during " : "", cs->phase);
	else if (cs->said && !cs->passed)
		errbuf_set(cs->problem, sizeof cs->problem, "golden failed on "
		    "the chip (job %s): %s", job, cs->last_error[0] != '\0' ?
		    cs->last_error : "a case did not match");
	else if (cs->exit_code != 0 || !cs->said)
		errbuf_set(cs->problem, sizeof cs->problem, "the chip step "
		    "(job %s) failed%s%s (exit %d)", job, cs->last_error[0] !=
		    '\0' ? ": " : "", cs->last_error, cs->exit_code);
	else if (cs->golden_sha256[0] == '\0')
		errbuf_set(cs->problem, sizeof cs->problem, "the chip step "
		    "(job %s) names no result hash", job);
	else if (tree != NULL && strcmp(tree, cs->calbin_tree) != 0)
		errbuf_set(cs->problem, sizeof cs->problem, "golden ran "
		    "another package (tree %.12s…) than the generation binds "
		    "(%.12s…): the package changed", cs->calbin_tree, tree);
	else {
		cs->ok = true;
		cs->problem[0] = '\0';
	}
	return cs->ok;
}

/* ---- headless: start, follow, stop ---- */

struct csrun {
	struct loop		*loop;
	struct transport	*t;
	struct rstream		*rs, *kill;
	struct chipstep		*cs;
	chipstep_progress_fn	 fn;
	void			*arg;
	bool			 tailing;
	bool			 printed;	/* run said the id */
	bool			 done;
	int			 code;
	char			 said[400];	/* its last stderr line */
	char			 err[512];
	char			 cut[256];	/* why it is stopped, or "" */
	long			 grace;		/* the kill's timer */
};

static void
on_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct csrun *r = arg;

	(void)rs;
	(void)cut;
	if (from_stderr)
		snprintf(r->said, sizeof r->said, "%.*s", (int)(len < 300 ?
		    len : 300), line);
	else if (!r->tailing)
		r->printed |= hostcmd_run_started(line, len, r->cs->job);
	else {
		chipstep_event(r->cs, line, len);
		if (r->fn != NULL)
			r->fn(r->cs, r->arg);
	}
}

static void
on_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct csrun *r = arg;

	(void)rs;
	r->rs = NULL;
	r->done = true;
	r->code = ex->code;
	if (ex->err != NULL)
		snprintf(r->err, sizeof r->err, "%s", ex->err);
	loop_stop(r->loop);
}

static const struct rstream_cb csrun_cb = { on_line, on_done };

static void
on_kill_line(struct rstream *rs, const char *line, size_t len,
    bool from_stderr, bool cut, void *arg)
{
	(void)rs;
	(void)line;
	(void)len;
	(void)from_stderr;
	(void)cut;
	(void)arg;
}

static void
on_kill_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	(void)rs;
	(void)ex;
	((struct csrun *)arg)->kill = NULL;
}

static const struct rstream_cb kill_cb = { on_kill_line, on_kill_done };

static void
grace_over(struct loop *l, void *arg)
{
	struct csrun *r = arg;

	r->grace = -1;
	loop_stop(l);
}

/* Stop the job (`calops kill` there); its end event still ends the tail. */
static void
stop_job(struct csrun *r, const char *why)
{
	struct strv s = { NULL, 0, 0 };
	char err[256];

	if (r->cut[0] != '\0')
		return;
	snprintf(r->cut, sizeof r->cut, "%s", why);
	hostcmd_kill(&s, r->cs->job);
	r->kill = transport_exec(r->t, s.v, &kill_cb, r, err, sizeof err);
	strv_free(&s);
	r->grace = loop_add_timer(r->loop, KILL_GRACE_MS, grace_over, r);
}

static void
on_signal(struct loop *l, int sig, void *arg)
{
	(void)l;
	stop_job(arg, sig == SIGINT ? "interrupted (SIGINT)" :
	    "terminated (SIGTERM)");
}

static void
on_sigchld(struct loop *l, int sig, void *arg)
{
	(void)sig;
	(void)arg;
	child_reap(l);
}

static void
on_timeout(struct loop *l, void *arg)
{
	(void)l;
	stop_job(arg, "it took longer than the time allowed (--timeout)");
}

static void
before_sleep(struct loop *l, void *arg)
{
	(void)l;
	transport_before_sleep(((struct csrun *)arg)->t);
}

/* Start the job and wait for `calops run` there to say its id; 0, or -1
 * with err. */
static int
launch(struct csrun *r, const struct lab *lab, const struct lab_host *h,
    const char *ws, long gen, int chip, char *err, size_t errlen)
{
	struct ljob_spec spec = { .host = h->name, .kind = LJOB_CHIPSTEP,
	    .chip = chip, .generation = gen };
	struct labcmd_where w = { lab, h, ws, NULL };
	struct strv job, run = { NULL, 0, 0 };
	char label[160];
	int rc = -1;

	w.selfdir = labcmd_self_dir();
	rc = labcmd_build(&w, &spec, &job, label, sizeof label, err, errlen);
	free((char *)w.selfdir);
	if (rc != 0)
		return -1;
	hostcmd_run(&run, &(struct hostcmd_run_opts){ .id = r->cs->job,
	    .cwd = ws, .gate = -1 }, job.v);
	strv_free(&job);
	r->rs = transport_exec(r->t, run.v, &csrun_cb, r, err, errlen);
	strv_free(&run);
	if (r->rs == NULL)
		goto fail;
	loop_run(r->loop);
	if (r->done && r->code == 0 && r->printed)
		return 0;
	errbuf_set(err, errlen, "the chip step did not start on %s: %s",
	    h->name, r->err[0] != '\0' ? r->err : r->said[0] != '\0' ?
	    r->said : "calops run failed there");
fail:
	r->cs->job[0] = '\0';
	return -1;
}

/* Follow the job to its end event; the cut-short reason, or NULL. */
static const char *
follow(struct csrun *r, const struct lab_host *h, long timeout_s)
{
	struct strv s = { NULL, 0, 0 };
	char err[256];

	r->tailing = true;
	r->done = false;
	hostcmd_tail(&s, r->cs->job, 1, true);
	r->rs = transport_exec(r->t, s.v, &csrun_cb, r, err, sizeof err);
	strv_free(&s);
	if (r->rs == NULL) {
		errbuf_set(r->cut, sizeof r->cut, "its events cannot be "
		    "followed on %s: %s", h->name, err);
		return r->cut;
	}
	(void)loop_add_timer(r->loop, timeout_s * 1000, on_timeout, r);
	loop_run(r->loop);
	if (r->cut[0] != '\0')
		return r->cut;
	if (!r->cs->ended) {
		errbuf_set(r->cut, sizeof r->cut, "its events stopped before "
		    "its end (%s): the job may still run on %s", r->err[0] !=
		    '\0' ? r->err : "the tail ended", h->name);
		return r->cut;
	}
	return NULL;
}

/* r's loop, and its transport to h; 0, or -1 with err (the loop made
 * all the same: loop_free() it). */
static int
open_host(struct csrun *r, const struct lab *lab, const struct lab_host *h,
    const char *config, char *err, size_t errlen)
{
	r->loop = loop_new();
	loop_watch_signal(r->loop, SIGCHLD, on_sigchld, NULL);
	loop_set_before_sleep(r->loop, before_sleep, r);
	r->t = h->transport == LAB_LOCAL ? local_transport_new(r->loop,
	    h->name, NULL) : ssh_transport_new(r->loop, h, lab->path, config,
	    err, errlen);
	return r->t != NULL ? 0 : -1;
}

int
chipstep_run(const struct lab *lab, const struct lab_host *h, const char *ws,
    long gen, int chip, const char *job, const char *config, long timeout_s,
    chipstep_progress_fn fn, void *arg, struct chipstep *cs, char *err,
    size_t errlen)
{
	struct csrun r = { .cs = cs, .fn = fn, .arg = arg, .grace = -1 };
	const char *cut;
	int rc = -1;

	chipstep_init(cs);
	snprintf(cs->job, sizeof cs->job, "%s", job);
	if (open_host(&r, lab, h, config, err, errlen) != 0)
		goto out;
	loop_watch_signal(r.loop, SIGINT, on_signal, &r);
	loop_watch_signal(r.loop, SIGTERM, on_signal, &r);
	if (launch(&r, lab, h, ws, gen, chip, err, errlen) != 0)
		goto out;
	if (fn != NULL)
		fn(cs, arg);
	relswitch_fault_kill("chip-start");
	if ((cut = follow(&r, h, timeout_s)) != NULL)
		snprintf(cs->cut, sizeof cs->cut, "%s", cut);
	(void)chipstep_judge(cs, NULL);
	rc = 0;
out:
	if (r.rs != NULL)
		transport_rstream_cancel(r.rs);
	if (r.kill != NULL)
		transport_rstream_cancel(r.kill);
	if (r.t != NULL)
		transport_close(r.t);
	loop_free(r.loop);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	return rc;
}


int
chipstep_stop(const struct lab *lab, const struct lab_host *h,
    const char *job, const char *config, char *err, size_t errlen)
{
	struct chipstep cs;
	struct csrun r = { .cs = &cs, .grace = -1 };
	struct strv s = { NULL, 0, 0 };
	int rc = -1;

	/* The run's callbacks: its stderr's last line is what it said. */
	chipstep_init(&cs);
	if (open_host(&r, lab, h, config, err, errlen) != 0)
		goto out;
	hostcmd_kill(&s, job);
	r.rs = transport_exec(r.t, s.v, &csrun_cb, &r, err, errlen);
	strv_free(&s);
	if (r.rs == NULL)
		goto out;
	r.grace = loop_add_timer(r.loop, KILL_GRACE_MS, grace_over, &r);
	loop_run(r.loop);
	if (r.done && r.code == 0)
		rc = 0;
	else
		errbuf_set(err, errlen, "%s", !r.done ? "`calops kill` had "
		    "no answer in time" : strncmp(r.said, "calops: ", 8) == 0 ?
		    r.said + 8 : r.said[0] != '\0' ? r.said :
		    r.err[0] != '\0' ? r.err : "`calops kill` failed there");
out:
	if (r.rs != NULL)
		transport_rstream_cancel(r.rs);
	if (r.t != NULL)
		transport_close(r.t);
	loop_free(r.loop);
	return rc;
}
