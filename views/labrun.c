/*
 * labrun.c: a gate's lab job started from the board or the gate screen
 * (see labrun.h): the host picked when the lab has several (pick.h; the
 * board's is selected first), for G7 its chip (the host's first idle one
 * selected first), then the confirmation screen (confirm.h)
 * shows the job, its exact command, its chips and what it would disturb,
 * and starts it on the typed chips.
 */
#include "calops.h"

#include "base/text.h"
#include "lab/labmodel.h"
#include "remote/lab.h"
#include "views/app/app.h"
#include "views/confirm.h"
#include "views/core/ui.h"
#include "views/labrun.h"
#include "views/pick.h"
#include "vocab/gateid.h"

/* The one choice open at a time (the picker's screen, then the
 * confirmation, take every key until answered), so its context needs no
 * allocation. */
static struct {
	int	 gate;
	bool	 again;		/* G5: one more build, not two anew */
	char	 host[128];
	int	 chip;		/* G7's, picked; -1: none */
} pending;

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
	if (pending.chip >= 0) {
		spec.chips = &pending.chip;
		spec.nchips = 1;
	}
	confirm_ask(a, &spec);
}

/* G7's chip picked: then the confirmation, which shows it. */
static void
chip_picked(struct app *a, const char *host, int chip, void *arg)
{
	(void)arg;
	if (host == NULL) {
		app_message(a, false, "G%d's job not started", pending.gate);
		return;
	}
	pending.chip = chip;
	confirm(a);
}

/* The host picked (pick.h): protected ones are refused there, before
 * the confirmation, which would show a command that cannot run. */
static void
host_picked(struct app *a, const char *host, int chip, void *arg)
{
	char what[32];

	(void)chip;
	(void)arg;
	if (host == NULL) {
		app_message(a, false, "G%d's job not started", pending.gate);
		return;
	}
	snprintf(pending.host, sizeof pending.host, "%s", host);
	/* G7's golden and faults run on one chip: which, asked. */
	if (gateid_job(pending.gate) == GATEJOB_SUITE) {
		snprintf(what, sizeof what, "G%d's job", pending.gate);
		pick_chip(a, what, host, pick_idle_chip(a, host), chip_picked,
		    NULL);
		return;
	}
	confirm(a);
}

/* Ask which host (the board's first), then confirm and start. */
static void
run_gate(struct app *a, int gate, bool again)
{
	char what[32];

	if (app_readonly(a)) {
		app_message(a, true, "read-only: jobs cannot be started");
		return;
	}
	if (!labmodel_gate_has_job(app_labmodel(a), gate)) {
		app_message(a, true, "G%d has no command in the lab file's "
		    "gates: map", gate);
		return;
	}
	if (labmodel_default_host(app_labmodel(a)) == NULL) {
		app_message(a, true, "no reachable host with a workspace");
		return;
	}
	pending.gate = gate;
	pending.again = again;
	pending.chip = -1;
	snprintf(what, sizeof what, "G%d's job", gate);
	pick_host(a, what, labrun_default_host(a), host_picked, NULL);
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
	char words[96];
	int pct;

	if (j == NULL)
		return false;
	/* Not running until its host says so: `calops run` has not
	 * answered yet, or the mirror is replayed. */
	if (j->state == LJ_STARTING)
		snprintf(buf, len, "%s starting", ui_glyph("…", "."));
	else if (j->state == LJ_CATCHING_UP &&
	    labmodel_job_catchup(j, words, sizeof words, &pct) && pct >= 0)
		snprintf(buf, len, "%s %s %d%%", ui_glyph("⟳", "~"),
		    narrow ? "catch-up" : "catching up", pct);
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
