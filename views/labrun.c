/*
 * labrun.c: a gate's lab job started from the board or the gate screen
 * (see labrun.h): the host asked for when the lab has several, then the
 * confirmation screen (confirm.h) shows the job, its exact command, its
 * chips and what it would disturb, and starts it on the typed chips.
 */
#include "calops.h"

#include "base/text.h"
#include "lab/labmodel.h"
#include "remote/lab.h"
#include "views/app/app.h"
#include "views/confirm.h"
#include "views/core/ui.h"
#include "views/labrun.h"
#include "vocab/gateid.h"

/* The one question open at a time (prompt_ask keeps every key until it is
 * answered), so its context needs no allocation. */
static struct {
	int	 gate;
	bool	 again;		/* G5: one more build, not two anew */
	char	 host[128];
} pending;

/* The reachable hosts with a workspace, up to max into out. */
static size_t
run_hosts(struct app *a, const char **out, size_t max)
{
	const struct lab *lab = labmodel_lab(app_labmodel(a));
	size_t i, n = 0;

	for (i = 0; i < lab->nhosts; i++) {
		if (!labmodel_host_usable(app_labmodel(a), lab->hosts[i].name))
			continue;
		if (n < max)
			out[n] = lab->hosts[i].name;
		n++;
	}
	return n;
}

/* Show what would run where, and start it on the typed chips: one job for
 * a gate at a time in a host's workspace. */
static void
confirm(struct app *a)
{
	struct ljob_spec spec = { 0 };
	const char *ws = labrun_workspace(a, pending.host);
	const struct ljob *j;
	char *who;

	/* Whoever started it: the lab model knows every console's (and
	 * script's) jobs from the hosts' lists (labpoll.h), and the host
	 * refuses a second one itself in any case (run --gate). */
	if ((j = labmodel_gate_job(app_labmodel(a), pending.gate,
	    pending.host, ws != NULL ? ws : labmodel_workspace(
	    app_labmodel(a), pending.host))) != NULL) {
		who = text_sanitize_str(j->actor != NULL ? j->actor :
		    "somebody");
		app_message(a, true, "G%d's job %s, started by %s, is already "
		    "running in that workspace on %s", pending.gate,
		    j->id != NULL ? j->id : "(starting)", who, pending.host);
		free(who);
		return;
	}

	spec.host = pending.host;
	spec.workspace = ws;
	spec.kind = LJOB_GATE;
	spec.gate = pending.gate;
	spec.again = pending.again;
	confirm_ask(a, &spec);
}

static void
host_answer(struct app *a, const char *answer, void *arg)
{
	const char *hosts[32];
	size_t i, n;

	(void)arg;
	if (answer == NULL)
		return;
	n = run_hosts(a, hosts, nitems(hosts));
	for (i = 0; i < n && i < nitems(hosts); i++)
		if (strcmp(hosts[i], answer) == 0) {
			/* Refused before the confirmation, which would
			 * show a command that cannot run. */
			if (labmodel_host_protected(app_labmodel(a),
			    answer)) {
				app_message(a, true, "host '%s' is protected: "
				    "jobs run there only from a console "
				    "started with --write %s", answer, answer);
				return;
			}
			snprintf(pending.host, sizeof pending.host, "%s",
			    answer);
			confirm(a);
			return;
		}
	app_message(a, true, "no reachable host '%.64s'", answer);
}

/* Ask which host when there are several, then confirm and start. */
static void
run_gate(struct app *a, int gate, bool again)
{
	const char *hosts[32];
	char q[128];
	size_t n;

	if (app_readonly(a)) {
		app_message(a, true, "read-only: jobs cannot be started");
		return;
	}
	if (!labmodel_gate_has_job(app_labmodel(a), gate)) {
		app_message(a, true, "G%d has no command in the lab file's "
		    "gates: map", gate);
		return;
	}
	pending.gate = gate;
	pending.again = again;
	n = run_hosts(a, hosts, nitems(hosts));
	if (n == 0) {
		app_message(a, true, "no reachable host with a workspace");
		return;
	}
	if (n == 1) {
		snprintf(pending.host, sizeof pending.host, "%s", hosts[0]);
		confirm(a);
		return;
	}
	snprintf(q, sizeof q, "run G%d's job on which host (%s, …)?", gate,
	    hosts[0]);
	prompt_ask(a, q, host_answer, NULL);
}

void
labrun_gate(struct app *a, int gate)
{
	run_gate(a, gate, false);
}

void
labrun_gate_again(struct app *a, int gate)
{
	if (gateid_job(gate) != GATEJOB_REPRO) {
		app_message(a, true, "a is for G5 only (one more build); r "
		    "runs G%d's job", gate);
		return;
	}
	run_gate(a, gate, true);
}

const char *
labrun_board_host(const struct app *a)
{
	return app_workspace_lab_host(a);
}

const char *
labrun_default_host(const struct app *a)
{
	const char *board = labrun_board_host(a);

	return board != NULL && labmodel_host_usable(app_labmodel(a), board) ?
	    board : labmodel_default_host(app_labmodel(a));
}

const char *
labrun_workspace(const struct app *a, const char *host)
{
	const char *board = labrun_board_host(a);

	return board != NULL && host != NULL && strcmp(board, host) == 0 ?
	    labmodel_host_workspace(app_labmodel(a), host, app_workspace(a)) :
	    NULL;
}

bool
labrun_gate_status(struct app *a, int gate, char *buf, size_t len,
    bool narrow)
{
	const struct ljob *j = labmodel_gate_job(app_labmodel(a), gate,
	    labrun_board_host(a), app_workspace(a));

	if (j == NULL)
		return false;
	/* Not running until its host says so: `calops run` has not
	 * answered yet, or the mirror is replayed. */
	if (j->state == LJ_STARTING)
		snprintf(buf, len, "%s starting", ui_glyph("…", "."));
	else if (j->state == LJ_CATCHING_UP)
		snprintf(buf, len, "%s %s", ui_glyph("⟳", "~"),
		    narrow ? "catch-up" : "catching up");
	else if (j->total > 0)
		snprintf(buf, len, "%s %s %.0f%%", ui_glyph("▶", ">"),
		    narrow ? "run" : "running", 100.0 * j->done / j->total);
	else
		snprintf(buf, len, "%s running", ui_glyph("▶", ">"));
	return true;
}
