/* boardmodel.c: the board, built from `check --stream` events. */
#include "calops.h"

#include <math.h>
#include <time.h>

#include "model/boardmodel.h"

static char *
dup_or_null(json_t *v)
{
	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

/* A count from the stream: a negative one would wrap around. */
static uint64_t
count_value(json_t *v)
{
	json_int_t n = json_integer_value(v);

	return n > 0 ? (uint64_t)n : 0;
}

enum gate_status
boardmodel_status_parse(const char *s)
{
	static const char *const names[] = { "pending", "fail", "blocked",
	    "stale", "pass", "running" };
	size_t i;

	for (i = 0; s != NULL && i < nitems(names); i++)
		if (strcmp(s, names[i]) == 0)
			return (enum gate_status)i;
	return GS_PENDING;
}

int
boardmodel_gate_index(const char *id)
{
	size_t i;

	for (i = 0; id != NULL && i < GATE_COUNT; i++)
		if (strcmp(gate_table[i].id, id) == 0)
			return (int)i;
	return -1;
}

static void
finding_free(struct board_finding *f)
{
	free(f->check);
	free(f->message);
	free(f->path);
	free(f->where);
}

static void
findings_free(struct board_finding *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		finding_free(&v[i]);
	free(v);
}

static void
eval_free(struct board_eval *e)
{
	size_t i;

	free(e->model_id);
	free(e->project_status);
	for (i = 0; i < GATE_COUNT; i++) {
		free(e->gates[i].name);
		free(e->gates[i].owner);
		free(e->gates[i].due);
		free(e->gates[i].failback);
		free(e->gates[i].role);
		json_decref(e->gates[i].inputs);
		json_decref(e->gates[i].checks);
	}
	for (i = 0; i < e->ntickets; i++) {
		free(e->tickets[i].title);
		free(e->tickets[i].owner);
		free(e->tickets[i].state);
		json_decref(e->tickets[i].checks);
	}
	findings_free(e->findings, e->nfindings);
	memset(e, 0, sizeof *e);
}

void
boardmodel_init(struct board *b)
{
	memset(b, 0, sizeof *b);
}

void
boardmodel_release(struct board *b)
{
	eval_free(&b->now);
	findings_free(b->incoming, b->nincoming);
	json_decref(b->incoming_inputs);
	free(b->error);
	memset(b, 0, sizeof *b);
}

void
boardmodel_begin(struct board *b)
{
	findings_free(b->incoming, b->nincoming);
	b->incoming = NULL;
	b->nincoming = 0;
	json_decref(b->incoming_inputs);
	b->incoming_inputs = json_object();
	b->running = true;
	b->progress_done = b->progress_total = 0;
}

void
boardmodel_fail(struct board *b, const char *why)
{
	b->running = false;
	free(b->error);
	b->error = xstrdup(why);
}

static void
add_finding(struct board *b, json_t *o)
{
	struct board_finding *f;
	const char *gate = json_string_value(json_object_get(o, "gate"));
	enum severity sev;

	if (finding_severity_parse(
		json_string_value(json_object_get(o, "severity"))
		    ? json_string_value(json_object_get(o, "severity"))
		    : "",
		&sev) != 0)
		sev = SEV_ERROR;	/* an unknown severity must not pass */
	b->incoming = xreallocarray(b->incoming, b->nincoming + 1,
	    sizeof *b->incoming);
	f = &b->incoming[b->nincoming++];
	f->gate = boardmodel_gate_index(gate);
	f->severity = sev;
	f->check = dup_or_null(json_object_get(o, "check"));
	f->message = dup_or_null(json_object_get(o, "message"));
	f->path = dup_or_null(json_object_get(o, "path"));
	f->where = dup_or_null(json_object_get(o, "where"));
	if (f->check == NULL)
		f->check = xstrdup("?");
	if (f->message == NULL)
		f->message = xstrdup("");
	if (f->path == NULL)
		f->path = xstrdup("");
	if (f->where == NULL)
		f->where = xstrdup("");
}

/* An input a gate read, kept by gate until the result. */
static void
add_input(struct board *b, json_t *o)
{
	const char *gate = json_string_value(json_object_get(o, "gate"));
	json_t *list;

	if (boardmodel_gate_index(gate) < 0 ||
	    !json_is_string(json_object_get(o, "path")))
		return;
	if (b->incoming_inputs == NULL)
		b->incoming_inputs = json_object();
	if ((list = json_object_get(b->incoming_inputs, gate)) == NULL) {
		list = json_array();
		json_object_set_new(b->incoming_inputs, gate, list);
	}
	json_object_del(o, "gate");
	json_object_del(o, "v");
	json_object_del(o, "seq");
	json_object_del(o, "ts");
	json_object_del(o, "type");
	json_array_append(list, o);
}

static void
read_gate(struct board_gate *g, json_t *o, json_t *inputs)
{
	json_t *counts = json_object_get(o, "counts");
	static const char *const sev[] = { "error", "blocked", "stale", "warn",
	    "info" };
	size_t i;

	snprintf(g->id, sizeof g->id, "%s",
	    json_string_value(json_object_get(o, "id")));
	g->name = dup_or_null(json_object_get(o, "name"));
	g->owner = dup_or_null(json_object_get(o, "owner"));
	g->due = dup_or_null(json_object_get(o, "due"));
	g->failback = dup_or_null(json_object_get(o, "failback"));
	g->role = dup_or_null(json_object_get(o, "role"));
	g->status = boardmodel_status_parse(json_string_value(json_object_get(o,
	    "status")));
	for (i = 0; i < nitems(sev); i++)
		g->counts[i] = (size_t)count_value(json_object_get(counts,
		    sev[i]));
	/* The stream sends inputs as events; --json output inlines them. */
	g->inputs = json_incref(json_object_get(o, "inputs"));
	if (g->inputs == NULL && json_is_string(json_object_get(o, "id")))
		g->inputs = json_incref(json_object_get(inputs,
		    json_string_value(json_object_get(o, "id"))));
	if (g->inputs == NULL)
		g->inputs = json_array();
	g->checks = json_incref(json_object_get(o, "checks"));
	if (!json_is_object(g->checks)) {
		json_decref(g->checks);
		g->checks = json_object();
	}
}

static void
read_ticket(struct board_ticket *t, json_t *o)
{
	json_t *est = json_object_get(o, "estimate_days");
	const char *id = json_string_value(json_object_get(o, "id"));

	snprintf(t->id, sizeof t->id, "%s", id != NULL ? id : "?");
	t->title = dup_or_null(json_object_get(o, "title"));
	t->owner = dup_or_null(json_object_get(o, "owner"));
	t->state = dup_or_null(json_object_get(o, "state"));
	t->progress = json_number_value(json_object_get(o, "progress"));
	if (!(t->progress >= 0))
		t->progress = 0;
	else if (t->progress > 1)
		t->progress = 1;
	t->estimate_days = json_is_number(est) ? json_number_value(est) : -1;
	t->claimed_done_without_evidence = json_is_true(json_object_get(o,
	    "claimed_done_without_evidence"));
	t->checks = json_incref(json_object_get(o, "checks"));
}

/* Order the findings project first, then gate by gate, each gate's in the
 * order they came (its first failing check first).  Not qsort: it is not
 * stable everywhere (glibc 2.37 on, musl). */
static void
sort_findings(struct board *b)
{
	struct board_finding *v;
	size_t i, n = 0;
	int g;

	if (b->nincoming == 0)
		return;
	v = xreallocarray(NULL, b->nincoming, sizeof *v);
	for (g = -1; g < GATE_COUNT; g++)
		for (i = 0; i < b->nincoming; i++)
			if (b->incoming[i].gate == g)
				v[n++] = b->incoming[i];
	free(b->incoming);
	b->incoming = v;
}

/* The G0 SLA from the result's "sla" object: NAN for what is missing. */
static void
read_sla(struct board_eval *e, const json_t *sla)
{
	const json_t *v;

	e->sla_ttft_ms_p99 = e->sla_tpot_ms_p99 = e->sla_success_rate_min = NAN;
	if ((v = json_object_get(sla, "ttft_ms_p99")) != NULL &&
	    json_is_number(v))
		e->sla_ttft_ms_p99 = json_number_value(v);
	if ((v = json_object_get(sla, "tpot_ms_p99")) != NULL &&
	    json_is_number(v))
		e->sla_tpot_ms_p99 = json_number_value(v);
	if ((v = json_object_get(sla, "success_rate_min")) != NULL &&
	    json_is_number(v))
		e->sla_success_rate_min = json_number_value(v);
}

static int
on_result(struct board *b, json_t *o)
{
	json_t *sum = json_object_get(o, "summary"), *v;
	const char *status = json_string_value(json_object_get(o, "status"));
	struct board_eval e;
	size_t i;
	int k;

	b->running = false;
	if (status == NULL || strcmp(status, "error") == 0 ||
	    !json_is_object(sum)) {
		v = json_object_get(sum, "message");
		boardmodel_fail(b, json_is_string(v) ? json_string_value(v) :
		    "the evaluation ended in an error");
		return BOARD_CHANGED;
	}
	memset(&e, 0, sizeof e);
	e.valid = true;
	e.model_id = dup_or_null(json_object_get(sum, "model_id"));
	e.project_status = dup_or_null(json_object_get(sum, "project_status"));
	read_sla(&e, json_object_get(sum, "sla"));
	json_array_foreach(json_object_get(sum, "gates"), i, v) {
		k = boardmodel_gate_index(
		    json_string_value(json_object_get(v, "id")));
		if (k >= 0 && e.gates[k].id[0] == '\0')	/* the first wins */
			read_gate(&e.gates[k], v, b->incoming_inputs);
	}
	for (k = 0; k < GATE_COUNT; k++)
		if (e.gates[k].id[0] == '\0')
			snprintf(e.gates[k].id, sizeof e.gates[k].id, "%s",
			    gate_table[k].id);
	json_array_foreach(json_object_get(sum, "tickets"), i, v) {
		if (e.ntickets == nitems(e.tickets))
			break;
		read_ticket(&e.tickets[e.ntickets++], v);
	}
	sort_findings(b);
	e.findings = b->incoming;
	e.nfindings = b->nincoming;
	e.finished_at = (int64_t)time(NULL);
	b->incoming = NULL;
	b->nincoming = 0;
	eval_free(&b->now);
	b->now = e;
	free(b->error);
	b->error = NULL;
	return BOARD_CHANGED;
}

int
boardmodel_event(struct board *b, const char *line, size_t len)
{
	const char *type;
	json_t *o;
	int rc = 0;

	if ((o = json_loadb(line, len, 0, NULL)) == NULL)
		return 0;
	type = json_string_value(json_object_get(o, "type"));
	if (type == NULL)
		rc = 0;
	else if (strcmp(type, "finding") == 0)
		add_finding(b, o);
	else if (strcmp(type, "input") == 0)
		add_input(b, o);
	else if (strcmp(type, "progress") == 0) {
		b->progress_done = count_value(json_object_get(o, "done"));
		b->progress_total = count_value(json_object_get(o, "total"));
		if (b->progress_done > b->progress_total)
			b->progress_done = b->progress_total;
		rc = BOARD_PROGRESS;
	} else if (strcmp(type, "result") == 0)
		rc = on_result(b, o);
	json_decref(o);
	return rc;
}

const char *
boardmodel_finding_where(const struct board_finding *f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", f->path, f->where[0] == '\0' ? "" :
	    f->where[0] == '/' ? "#" : ":", f->where);
	return buf;
}
