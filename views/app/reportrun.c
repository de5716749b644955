/*
 * reportrun.c: `:report`, the release decision record written from the
 * console (share/doc/release.md §8).  `calops report --write` runs where
 * the workspace is, through its host's transport (this machine's own for
 * a local one: one path), never in the console's loop: the evaluation it
 * needs reads and hashes the whole workspace.  The status bar says where
 * the record went and its go/no-go line; a decision.md that is there
 * already is asked about first and written over only on "yes".
 */
#include "calops.h"

#include "lab/labmodel.h"
#include "proto/hostcmd.h"
#include "remote/transport.h"
#include "views/app/app_int.h"
#include "views/app/reportrun.h"

/* One run of the command; a->report while it runs. */
struct reportrun {
	struct app	*a;
	struct rstream	*rs;
	char		 said[320];	/* its standard output's line */
	char		 err[320];	/* its standard error's last line */
};

static void	start(struct app *a, bool force);

static void
run_line(struct rstream *rs, const char *line, size_t len,
    bool from_stderr, bool cut, void *arg)
{
	struct reportrun *r = arg;

	(void)rs;
	(void)cut;
	if (len == 0)
		return;
	/* The status bar draws it through the sanitiser (ui.h). */
	if (from_stderr)
		snprintf(r->err, sizeof r->err, "%.*s", (int)len, line);
	else
		snprintf(r->said, sizeof r->said, "%.*s", (int)len, line);
}

static void
answer(struct app *a, const char *yes, void *arg)
{
	(void)arg;
	if (yes != NULL && (strcasecmp(yes, "y") == 0 ||
	    strcasecmp(yes, "yes") == 0))
		start(a, true);
	else
		app_message(a, false, "decision.md left as it was");
}

static void
run_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct reportrun *r = arg;
	struct app *a = r->a;

	(void)rs;
	a->report = NULL;
	if (ex->err != NULL)
		app_message(a, true, "report on %s: %s", a->ws_lab_host,
		    ex->err);
	else if (ex->code == 0)
		app_message(a, false, "%s", r->said);
	else if (ex->code == 1 && hostcmd_report_exists(r->err,
	    strlen(r->err)))
		prompt_ask_later(a, "08-release/decision.md is there already: "
		    "write the record over it? (yes/no)", answer, NULL);
	else
		app_message(a, true, "report: %s", r->err[0] != '\0' ? r->err :
		    "calops report failed");
	free(r);
	a->dirty = true;
}

static const struct rstream_cb run_cb = { run_line, run_done };

static void
start(struct app *a, bool force)
{
	struct strv argv = { NULL, 0, 0 };
	struct reportrun *r;
	struct transport *t;
	char err[256];

	if (a->readonly) {
		app_message(a, true, "--readonly: the decision record is not "
		    "written (calops report WS prints it)");
		return;
	}
	if (a->report != NULL) {
		app_message(a, false, "the decision record is being written");
		return;
	}
	r = xcalloc(1, sizeof *r);
	r->a = a;
	hostcmd_report(&argv, a->ws, force);
	if ((t = labmodel_transport(a->labm, a->ws_lab_host, err,
	    sizeof err)) == NULL ||
	    (r->rs = transport_exec(t, argv.v, &run_cb, r, err,
	    sizeof err)) == NULL) {
		app_message(a, true, "report: %s", err);
		free(r);
	} else {
		a->report = r;
		app_message(a, false, "writing the decision record…");
	}
	strv_free(&argv);
}

void
reportrun_start(struct app *a)
{
	start(a, false);
}

void
reportrun_stop(struct app *a)
{
	if (a->report == NULL)
		return;
	transport_rstream_cancel(a->report->rs);
	free(a->report);
	a->report = NULL;
}
