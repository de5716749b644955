/*
 * joblist.c: the jobs of every host of the lab, listed through the lab
 * model's transports and merged newest first (joblist.h).
 */
#include "calops.h"

#include <jansson.h>

#include "base/buf.h"
#include "job/jobevent.h"
#include "lab/labmodel.h"
#include "model/joblist.h"
#include "proto/hostcmd.h"
#include "remote/transport.h"

#define JOBS_OUT_MAX	(8u << 20)	/* of `jobs --json` output */

/* `calops ARGS` run on one host: its output (capped) and why it failed. */
struct hcmd {
	struct joblist	*jl;
	const char	*host;		/* borrowed from the lab */
	const char	*what;		/* "calops jobs", for messages */
	struct rstream	*rs;		/* NULL: not running */
	struct buf	 out;
	bool		 cut;
	char		 err[256];	/* its last stderr line, or why not */
	void		(*done)(struct hcmd *, bool ok);
};

/* One host of the lab: the listing (first, so that its done hook finds
 * the host) and the rows it gave last. */
struct host_jobs {
	struct hcmd	 list;
	struct joblist_row *rows;
	size_t		 nrows;
	bool		 loaded;
	char		 down[256];	/* why it is not reachable, or "" */
};

struct joblist {
	struct labmodel	*lm;
	struct joblist_cb cb;
	struct host_jobs *hosts;	/* one per host of the lab */
	size_t		 nhosts;
	const struct joblist_row **rows; /* every host's, merged */
	size_t		 nrows;
	struct hcmd	 kill;		/* `kill ID` */
	char		*kill_id;
};

static void
rows_free(struct joblist_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(rows[i].id);
		free(rows[i].state);
		free(rows[i].cmd);
		json_decref(rows[i].record);
	}
	free(rows);
}

/* Newest first across the hosts, by when each job started on the
 * console's clock (a host's own clock may differ); corrupt ones last. */
static int
row_cmp(const void *pa, const void *pb)
{
	const struct joblist_row *a = *(const struct joblist_row *const *)pa;
	const struct joblist_row *b = *(const struct joblist_row *const *)pb;
	double sa = a->fetched - a->age, sb = b->fetched - b->age;
	bool ca = strcmp(a->state, "corrupt") == 0;
	int c;

	if (ca != (strcmp(b->state, "corrupt") == 0))
		return ca ? 1 : -1;
	if (!ca && sa != sb)
		return sa > sb ? -1 : 1;
	if ((c = strcmp(a->host, b->host)) != 0)
		return c;
	return strcmp(a->id, b->id);
}

/* One job of `jobs --json` into a row, taking its strings and record. */
static void
row_from_job(struct joblist_row *r, struct hostcmd_job *j)
{
	struct buf b = BUF_INIT;
	size_t i;

	r->id = j->id;
	r->state = j->state;
	r->degraded = j->degraded;
	r->age = j->age;
	r->exit_code = j->exit_code;
	r->sig = j->sig;
	buf_add(&b, "", 0);
	for (i = 0; i < j->argc; i++)
		buf_addf(&b, "%s%s", i > 0 ? " " : "", j->argv[i]);
	if (j->reason != NULL)
		buf_addf(&b, "(%s)", j->reason);
	r->cmd = buf_detach(&b, NULL);
	r->record = j->record;
	j->id = j->state = NULL;
	j->record = NULL;
}

/* Host h's rows become rows (n of them) and every host's are merged
 * again, with the owner told before and after. */
static void
set_rows(struct host_jobs *h, struct joblist_row *rows, size_t n)
{
	struct joblist *jl = h->list.jl;
	size_t i, k, total = 0;

	if (jl->cb.replacing != NULL)
		jl->cb.replacing(jl, jl->cb.arg);
	rows_free(h->rows, h->nrows);
	h->rows = rows;
	h->nrows = n;
	h->loaded = true;
	for (k = 0; k < jl->nhosts; k++)
		total += jl->hosts[k].nrows;
	jl->rows = xreallocarray(jl->rows, total + 1, sizeof *jl->rows);
	jl->nrows = 0;
	for (k = 0; k < jl->nhosts; k++)
		for (i = 0; i < jl->hosts[k].nrows; i++)
			jl->rows[jl->nrows++] = &jl->hosts[k].rows[i];
	qsort(jl->rows, jl->nrows, sizeof *jl->rows, row_cmp);
	if (jl->cb.replaced != NULL)
		jl->cb.replaced(jl, jl->cb.arg);
}

void
joblist_feed(struct joblist *jl, size_t k, const char *out, size_t len,
    bool cut)
{
	struct host_jobs *h = &jl->hosts[k];
	struct hcmd *c = &h->list;
	struct hostcmd_jobs jobs;
	struct joblist_row *rows;
	char why[200];
	size_t i;

	if (cut || hostcmd_jobs_parse(out, len, &jobs, why, sizeof why) != 0) {
		snprintf(c->err, sizeof c->err, "cannot read the job list: %s",
		    cut ? "too long" : why);
		return;
	}
	rows = xcalloc(jobs.n + 1, sizeof *rows);
	for (i = 0; i < jobs.n; i++) {
		row_from_job(&rows[i], &jobs.v[i]);
		rows[i].host = c->host;
		rows[i].fetched = jobevent_now();
	}
	c->err[0] = '\0';
	set_rows(h, rows, jobs.n);
	hostcmd_jobs_release(&jobs);
}

/* The listing ended: the host's rows are replaced, or its err says why
 * not. */
static void
list_done(struct hcmd *c, bool ok)
{
	struct joblist *jl = c->jl;

	if (ok)
		joblist_feed(jl, (size_t)((struct host_jobs *)c - jl->hosts),
		    c->out.data, c->out.len, c->cut);
}

/* The kill ended: the owner says how it went. */
static void
kill_done(struct hcmd *c, bool ok)
{
	struct joblist *jl = c->jl;

	if (jl->cb.killed != NULL)
		jl->cb.killed(jl, c->host, jl->kill_id, ok, c->err,
		    jl->cb.arg);
}

static void
changed(struct joblist *jl)
{
	if (jl->cb.changed != NULL)
		jl->cb.changed(jl, jl->cb.arg);
}

/* Stdout is kept (up to JOBS_OUT_MAX); stderr's last line says why. */
static void
hcmd_line(struct rstream *rs, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct hcmd *c = arg;

	(void)rs;
	(void)cut;
	if (from_stderr) {
		if (len > 0)
			snprintf(c->err, sizeof c->err, "%.*s",
			    (int)(len > 200 ? 200 : len), line);
		return;
	}
	if (c->out.len + len + 1 > JOBS_OUT_MAX) {
		c->cut = true;
		return;
	}
	buf_add(&c->out, line, len);
	buf_add(&c->out, "\n", 1);
}

/* The command ended: its done hook first, then the owner redraws. */
static void
hcmd_end(struct rstream *rs, const struct rstream_exit *e, void *arg)
{
	struct hcmd *c = arg;

	(void)rs;
	c->rs = NULL;
	if (e->code != 0 && c->err[0] == '\0')
		snprintf(c->err, sizeof c->err, "%s failed: %s", c->what,
		    e->err != NULL ? e->err : "exit status not 0");
	c->done(c, e->code == 0);
	buf_release(&c->out);
	c->cut = false;
	changed(c->jl);
}

static const struct rstream_cb hcmd_cb = { hcmd_line, hcmd_end };

/* Run `calops ARGV` on c's host through the lab model's transport (argv
 * is freed); false with c->err saying why when it cannot start. */
static bool
hcmd_start(struct hcmd *c, struct strv *argv)
{
	struct transport *t;
	struct rstream *rs = NULL;

	buf_release(&c->out);
	c->cut = false;
	if ((t = labmodel_transport(c->jl->lm, c->host, c->err,
	    sizeof c->err)) != NULL)
		rs = c->rs = transport_exec(t, argv->v, &hcmd_cb, c, c->err,
		    sizeof c->err);
	strv_free(argv);
	return rs != NULL;
}

static void
hcmd_release(struct hcmd *c)
{
	if (c->rs != NULL)
		transport_rstream_cancel(c->rs);
	buf_release(&c->out);
}

struct joblist *
joblist_new(struct labmodel *lm, const struct joblist_cb *cb)
{
	struct joblist *jl = xcalloc(1, sizeof *jl);
	const struct lab *lab = labmodel_lab(lm);
	struct hcmd *c;
	size_t i;

	jl->lm = lm;
	if (cb != NULL)
		jl->cb = *cb;
	jl->hosts = xcalloc(lab->nhosts + 1, sizeof *jl->hosts);
	jl->nhosts = lab->nhosts;
	for (i = 0; i < jl->nhosts; i++) {
		c = &jl->hosts[i].list;
		c->jl = jl;
		c->host = lab->hosts[i].name;
		c->what = "calops jobs";
		c->done = list_done;
	}
	jl->kill.jl = jl;
	jl->kill.what = "calops kill";
	jl->kill.done = kill_done;
	return jl;
}

void
joblist_free(struct joblist *jl)
{
	size_t i;

	if (jl == NULL)
		return;
	for (i = 0; i < jl->nhosts; i++) {
		hcmd_release(&jl->hosts[i].list);
		rows_free(jl->hosts[i].rows, jl->hosts[i].nrows);
	}
	hcmd_release(&jl->kill);
	free(jl->hosts);
	free(jl->rows);
	free(jl->kill_id);
	free(jl);
}

void
joblist_reload(struct joblist *jl)
{
	struct strv argv = { NULL, 0, 0 };
	struct transport_status st;
	struct host_jobs *h;
	struct transport *t;
	size_t i;

	for (i = 0; i < jl->nhosts; i++) {
		h = &jl->hosts[i];
		if ((t = labmodel_transport(jl->lm, h->list.host, h->down,
		    sizeof h->down)) == NULL)
			continue;
		/* A host not up is said so, with why; its list is asked for
		 * all the same (it waits in the transport until the host is
		 * up), but from a refused one, which would refuse it. */
		transport_status(t, &st);
		h->down[0] = '\0';
		if (!transport_state_up(st.state))
			snprintf(h->down, sizeof h->down, "%s%s%.200s",
			    transport_state_name(st.state),
			    st.error[0] != '\0' ? ": " : "", st.error);
		if (h->list.rs == NULL && st.state != TRANSPORT_REFUSED) {
			hostcmd_jobs(&argv, false);
			hcmd_start(&h->list, &argv);
		}
	}
	changed(jl);
}

size_t
joblist_nrows(const struct joblist *jl)
{
	return jl->nrows;
}

const struct joblist_row *
joblist_row(const struct joblist *jl, size_t i)
{
	return jl->rows[i];
}

size_t
joblist_nhosts(const struct joblist *jl)
{
	return jl->nhosts;
}

const char *
joblist_host(const struct joblist *jl, size_t i)
{
	return jl->hosts[i].list.host;
}

const char *
joblist_host_down(const struct joblist *jl, size_t i)
{
	return jl->hosts[i].down;
}

const char *
joblist_host_err(const struct joblist *jl, size_t i)
{
	return jl->hosts[i].list.err;
}

bool
joblist_host_loaded(const struct joblist *jl, size_t i)
{
	return jl->hosts[i].loaded;
}

bool
joblist_kill(struct joblist *jl, const char *host, const char *id, char *err,
    size_t errlen)
{
	struct strv argv = { NULL, 0, 0 };

	free(jl->kill_id);
	jl->kill_id = xstrdup(id);
	jl->kill.host = host;
	jl->kill.err[0] = '\0';
	hostcmd_kill(&argv, id);
	if (hcmd_start(&jl->kill, &argv))
		return true;
	snprintf(err, errlen, "%s", jl->kill.err);
	return false;
}

bool
joblist_killing(const struct joblist *jl)
{
	return jl->kill.rs != NULL;
}
