/* tickets.c: ticket progress derived from evidence (see tickets.h). */
#include "calops.h"

#include "engine/artifact.h"
#include "engine/tickets.h"

const struct ticket_def tickets_table[TICKET_COUNT] = {
	{ "M01", "source/tokenizer freeze", { "G0.schema", "G0.model_id",
	    "G0.license", "G0.files", "G0.tokenizer" } },
	{ "M02", "reference harness", { "G1.prompts", "G1.coverage",
	    "G1.outputs", "G1.golden" } },
	{ "M03", "ONNX exporter", { "G2.*" } },
	{ "M04", "op support matrix", { "G3.csv", "G3.coverage",
	    "G3.row_owner" } },
	{ "M05", "quant calibration", { "G4.*" } },
	/* One check: the SBOM (a warning for the gate) is part of it here. */
	{ "M06", "compiler container", { "G5.manifest!" } },
	{ "M07", "reproducible compile", { "G5.config", "G5.script",
	    "G5.builds" } },
	{ "M08", "package validator", { "G6.*" } },
	{ "M09", "CalRT runner", { "G7.golden", "G7.faults" } },
	{ "M10", "async/stable adapter", { "G8.*", "G9.duration" } },
	{ "M11", "service conformance", { "G9.api" } },
	{ "M12", "performance report", { "G9.perf", "G9.soak" } },
	{ "M13", "release/rollback", { "G10.signature", "G10.rollback",
	    "G10.audit" } },
};

enum check_verdict
tickets_check_verdict(const struct eval *ev, const char *spec)
{
	int g = gate_index_of_check(spec);
	size_t len = strlen(spec);
	enum check_verdict v;
	bool strict;
	char *id;

	if (g < 0)
		return CV_NOT_JUDGED;
	strict = len > 0 && spec[len - 1] == '!';
	id = xstrndup(spec, strict ? len - 1 : len);
	v = gate_check_verdict(&ev->gates[g], id, strict);
	free(id);
	return v;
}

bool
tickets_check_holds(const struct eval *ev, const char *spec)
{
	return tickets_check_verdict(ev, spec) == CV_HELD;
}

/* tickets.yaml's entry for one ticket: owner, estimate, state. */
static void
read_entry(struct ticket *t, json_t *tickets, const struct artifact *a)
{
	static const char *const states[] = { "todo", "doing", "done",
	    "blocked" };
	json_t *e = json_object_get(tickets, t->def->id), *v;
	char *ptr = xasprintf("/tickets/%s", t->def->id), where[64];
	size_t i;

	if (!json_is_object(e)) {
		t->problem = xasprintf("%s has no entry in tickets.yaml",
		    t->def->id);
		goto out;
	}
	if (json_is_string(v = json_object_get(e, "owner")))
		t->owner = xstrdup(json_string_value(v));
	if (json_is_number(v = json_object_get(e, "estimate_days")))
		t->estimate_days = json_number_value(v);
	if (json_is_string(v = json_object_get(e, "state"))) {
		for (i = 0; i < nitems(states); i++)
			if (strcmp(json_string_value(v), states[i]) == 0)
				t->state = xstrdup(states[i]);
		if (t->state == NULL)
			t->problem = xasprintf("state '%s' is not todo, doing, "
			    "done or blocked", json_string_value(v));
	}
out:
	if (t->problem != NULL)
		t->problem_where = xstrdup(a != NULL ? doc_where(&a->doc, ptr,
		    where, sizeof where) : "");
	free(ptr);
}

void
tickets_derive(struct eval *ev, struct ticket out[TICKET_COUNT])
{
	struct artifact *a = artifact_eval(ev, "tickets.yaml", true);
	json_t *tickets = NULL;
	size_t i, k;

	if (a->parsed)
		tickets = json_object_get(a->doc.root, "tickets");
	for (i = 0; i < TICKET_COUNT; i++) {
		struct ticket *t = &out[i];

		memset(t, 0, sizeof *t);
		t->def = &tickets_table[i];
		t->estimate_days = -1;
		if (tickets != NULL)
			read_entry(t, tickets, a);
		else if (a->status != WS_ABSENT || i == 0)
			t->problem = xstrdup(a->status == WS_ABSENT ?
			    "tickets.yaml is missing" : a->parsed ?
			    "tickets.yaml has no 'tickets' mapping" : a->msg);
		for (k = 0; k < TICKET_MAX_CHECKS && t->def->checks[k]; k++) {
			t->verdict[k] = tickets_check_verdict(
			    ev, t->def->checks[k]);
			t->holding += t->verdict[k] == CV_HELD;
			t->total++;
		}
		t->progress = t->total > 0 ? (double)t->holding / t->total : 0;
		t->claimed_done_without_evidence = t->state != NULL &&
		    strcmp(t->state, "done") == 0 && t->holding < t->total;
	}
}

void
tickets_release(struct ticket t[TICKET_COUNT])
{
	size_t i;

	for (i = 0; i < TICKET_COUNT; i++) {
		free(t[i].owner);
		free(t[i].state);
		free(t[i].problem);
		free(t[i].problem_where);
	}
}
