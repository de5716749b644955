/*
 * labrun.c: a gate's lab job started from the board or the gate screen
 * (see labrun.h).  The question names the job and the host; the exact
 * command goes to the status bar once it runs, and to the action log.
 */
#include "calops.h"

#include "views/app/app.h"
#include "views/core/ui.h"
#include "views/labrun.h"

/* The one question open at a time (prompt_ask keeps every key until it is
 * answered), so its context needs no allocation. */
static struct {
	int	 gate;
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

static void
start(struct app *a)
{
	struct ljob_spec spec = { 0 };
	const struct ljob *j;
	char err[256];

	spec.host = pending.host;
	spec.kind = LJOB_GATE;
	spec.gate = pending.gate;
	if ((j = labmodel_start(app_labmodel(a), &spec, err,
	    sizeof err)) == NULL) {
		app_message(a, true, "G%d: %s", pending.gate, err);
		return;
	}
	app_message(a, false, "started %s on %s: %s", j->label, j->host,
	    j->command);
}

static void
confirm_answer(struct app *a, const char *answer, void *arg)
{
	(void)arg;
	if (answer == NULL || (strcmp(answer, "y") != 0 &&
	    strcmp(answer, "yes") != 0)) {
		app_message(a, false, "G%d's job not started", pending.gate);
		return;
	}
	start(a);
}

/* Ask for a yes, naming what would run where. */
static void
confirm(struct app *a)
{
	struct ljob_spec spec = { 0 };
	char q[128], cmd[4096], err[256];

	spec.host = pending.host;
	spec.kind = LJOB_GATE;
	spec.gate = pending.gate;
	if (labmodel_command(app_labmodel(a), &spec, cmd, sizeof cmd, err,
	    sizeof err) != 0) {
		app_message(a, true, "G%d: %s", pending.gate, err);
		return;
	}
	snprintf(q, sizeof q, "run G%d's %s on %.64s? [y/N]", pending.gate,
	    pending.gate == 9 ? "24 h soak" : "golden + 8 faults",
	    pending.host);
	prompt_ask(a, q, confirm_answer, NULL);
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
			snprintf(pending.host, sizeof pending.host, "%s",
			    answer);
			confirm(a);
			return;
		}
	app_message(a, true, "no reachable host '%.64s'", answer);
}

void
labrun_gate(struct app *a, int gate)
{
	const char *hosts[32];
	char q[128];
	size_t n;

	if (app_readonly(a)) {
		app_message(a, true, "read-only: jobs cannot be started");
		return;
	}
	if (labmodel_start_refused(app_labmodel(a)) != NULL) {
		app_message(a, true, "%s", labmodel_start_refused(app_labmodel(a)));
		return;
	}
	if (!labmodel_gate_has_job(gate)) {
		app_message(a, true, "G%d has no lab job: its evidence is made "
		    "outside the lab", gate);
		return;
	}
	if (labmodel_gate_job(app_labmodel(a), gate) != NULL) {
		app_message(a, true, "G%d's job is already running", gate);
		return;
	}
	pending.gate = gate;
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

bool
labrun_gate_status(struct app *a, int gate, char *buf, size_t len,
    bool narrow)
{
	const struct ljob *j = labmodel_gate_job(app_labmodel(a), gate);

	if (j == NULL)
		return false;
	if (j->total > 0)
		snprintf(buf, len, "%s %s %.0f%%", ui_glyph("▶", ">"),
		    narrow ? "run" : "running", 100.0 * j->done / j->total);
	else
		snprintf(buf, len, "%s running", ui_glyph("▶", ">"));
	return true;
}
