/* faultfiles.c: a host's fault result files, read through `calops cat`
 * (faultfiles.h). */
#include "calops.h"

#include "base/buf.h"
#include "lab/labmodel.h"
#include "model/faultfiles.h"
#include "proto/hostcmd.h"
#include "proto/scenario.h"
#include "remote/transport.h"

#define FAULTFILE_LINES	1000		/* a result is a few lines */
#define FAULTFILE_MAX	(256u << 10)	/* of one file's output */

/* The read of one scenario's file: what came, and what it says. */
struct ffread {
	struct faultfiles *ff;
	struct rstream	*rs;		/* NULL: not running */
	struct buf	 out;
	bool		 cut;
	char		 err[256];	/* its stderr's last line */
	bool		 have;		/* file holds a result */
	struct fold_file file;
	char		 why[300];
};

struct faultfiles {
	struct labmodel	*lm;
	char		*host, *ws;
	void		(*changed)(void *);
	void		*arg;
	struct ffread	 reads[SCENARIO_COUNT];
	struct fold_file files[SCENARIO_COUNT];	/* the ones with a result */
};

struct faultfiles *
faultfiles_new(struct labmodel *lm, void (*changed)(void *), void *arg)
{
	struct faultfiles *ff = xcalloc(1, sizeof *ff);
	size_t i;

	ff->lm = lm;
	ff->changed = changed;
	ff->arg = arg;
	for (i = 0; i < SCENARIO_COUNT; i++) {
		ff->reads[i].ff = ff;
		snprintf(ff->reads[i].why, sizeof ff->reads[i].why,
		    "not read yet");
	}
	return ff;
}

static void
read_cancel(struct ffread *r)
{
	if (r->rs != NULL)
		transport_rstream_cancel(r->rs);
	r->rs = NULL;
	buf_release(&r->out);
	r->cut = false;
}

void
faultfiles_free(struct faultfiles *ff)
{
	size_t i;

	if (ff == NULL)
		return;
	for (i = 0; i < SCENARIO_COUNT; i++)
		read_cancel(&ff->reads[i]);
	free(ff->host);
	free(ff->ws);
	free(ff);
}

/* Stdout is the file (up to FAULTFILE_MAX); stderr's last line says why
 * there is none. */
static void
read_line(struct rstream *rs, const char *line, size_t len,
    bool from_stderr, bool cut, void *arg)
{
	struct ffread *r = arg;

	(void)rs;
	if (from_stderr) {
		snprintf(r->err, sizeof r->err, "%.*s",
		    (int)(len > 200 ? 200 : len), line);
		return;
	}
	if (cut || r->out.len + len + 1 > FAULTFILE_MAX) {
		r->cut = true;
		return;
	}
	buf_add(&r->out, line, len);
	buf_add(&r->out, "\n", 1);
}

/* What the read found: a result, none, or why not. */
static void
read_judge(struct ffread *r, const struct rstream_exit *e)
{
	char why[200];

	r->have = false;
	if (e->code != 0 && strstr(r->err, "does not exist") != NULL)
		snprintf(r->why, sizeof r->why, "none");
	else if (e->code != 0)
		snprintf(r->why, sizeof r->why, "cannot read it: %s", e->err !=
		    NULL ? e->err : r->err[0] != '\0' ? r->err :
		    "calops cat failed");
	else if (r->cut)
		snprintf(r->why, sizeof r->why, "too long to be a result");
	else if (hostcmd_fault_parse(r->out.data, r->out.len, &r->file.r,
	    why, sizeof why) != 0)
		snprintf(r->why, sizeof r->why, "not a result: %s", why);
	else if (strcmp(r->file.r.scenario, scenario_table[r - r->ff->reads]
	    .name) != 0)
		snprintf(r->why, sizeof r->why, "not a result: it is for "
		    "scenario '%s'", r->file.r.scenario);
	else {
		r->have = true;
		r->why[0] = '\0';
		r->file.host = r->ff->host;
		r->file.job[0] = '\0';
	}
}

static void
read_done(struct rstream *rs, const struct rstream_exit *e, void *arg)
{
	struct ffread *r = arg;

	(void)rs;
	r->rs = NULL;
	read_judge(r, e);
	buf_release(&r->out);
	r->cut = false;
	if (r->ff->changed != NULL)
		r->ff->changed(r->ff->arg);
}

static const struct rstream_cb read_cb = { read_line, read_done };

void
faultfiles_load(struct faultfiles *ff, const char *host, const char *ws)
{
	struct transport *t;
	struct strv argv;
	struct ffread *r;
	char *rel, err[256];
	size_t i;

	if (ff->host == NULL || strcmp(ff->host, host) != 0 ||
	    ff->ws == NULL || strcmp(ff->ws, ws) != 0) {
		/* Another host's files are not this one's. */
		for (i = 0; i < SCENARIO_COUNT; i++) {
			read_cancel(&ff->reads[i]);
			ff->reads[i].have = false;
			snprintf(ff->reads[i].why, sizeof ff->reads[i].why,
			    "not read yet");
		}
		free(ff->host);
		free(ff->ws);
		ff->host = xstrdup(host);
		ff->ws = xstrdup(ws);
	}
	t = labmodel_transport(ff->lm, host, err, sizeof err);
	for (i = 0; i < SCENARIO_COUNT; i++) {
		r = &ff->reads[i];
		if (r->rs != NULL)
			continue;
		if (t == NULL) {
			snprintf(r->why, sizeof r->why, "cannot read it: %s",
			    err);
			continue;
		}
		memset(&argv, 0, sizeof argv);
		rel = xasprintf("06-runtime/faults/%s.json",
		    scenario_table[i].name);
		hostcmd_cat(&argv, ws, rel, 1, FAULTFILE_LINES);
		free(rel);
		r->err[0] = '\0';
		buf_release(&r->out);
		r->rs = transport_exec(t, argv.v, &read_cb, r, r->why,
		    sizeof r->why);
		strv_free(&argv);
	}
}

const char *
faultfiles_host(const struct faultfiles *ff)
{
	return ff->host;
}

const char *
faultfiles_ws(const struct faultfiles *ff)
{
	return ff->ws;
}

size_t
faultfiles_pending(const struct faultfiles *ff)
{
	size_t i, n = 0;

	for (i = 0; i < SCENARIO_COUNT; i++)
		n += ff->reads[i].rs != NULL;
	return n;
}

struct fold_file *
faultfiles_files(struct faultfiles *ff, size_t *np)
{
	size_t i, n = 0;

	for (i = 0; i < SCENARIO_COUNT; i++)
		if (ff->reads[i].have) {
			ff->files[n] = ff->reads[i].file;
			ff->files[n++].host = ff->host;
		}
	*np = n;
	return ff->files;
}

const char *
faultfiles_why(const struct faultfiles *ff, size_t s)
{
	return s < SCENARIO_COUNT ? ff->reads[s].why : "";
}
