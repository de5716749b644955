/* owners.c: owners.yaml, one owner per gate (see owners.h). */
#include "calops.h"

#include <ctype.h>

#include "engine/artifact.h"
#include "engine/gate.h"
#include "engine/owners.h"
#include "engine/query.h"

#define OWNERS_FILE "owners.yaml"

/* The evaluation's artifact loader wants a gate; owners.yaml belongs to
 * none, so it is read through a scratch result whose findings are dropped
 * and reported per gate instead. */
void
owners_load(struct owners *o, struct eval *ev)
{
	struct gate_result scratch;
	const struct artifact *a;

	memset(o, 0, sizeof *o);
	memset(&scratch, 0, sizeof scratch);
	scratch.def = &gate_table[0];
	scratch.ev = ev;
	a = artifact_doc(&scratch, OWNERS_FILE);
	if (a == NULL) {
		if (scratch.findings.n > 0) {
			snprintf(o->problem, sizeof o->problem, "%s",
			    scratch.findings.v[0].message);
			snprintf(o->where, sizeof o->where, "%s",
			    scratch.findings.v[0].where);
		} else
			snprintf(o->problem, sizeof o->problem,
			    "'%s' is missing: no gate has an owner", OWNERS_FILE);
	} else if (!json_is_object(a->doc.root) ||
	    !json_is_object(json_object_get(a->doc.root, "gates"))) {
		snprintf(o->problem, sizeof o->problem,
		    "'%s' has no 'gates' mapping", OWNERS_FILE);
		snprintf(o->where, sizeof o->where, "/gates");
	} else {
		o->file = a;
		o->gates = json_object_get(a->doc.root, "gates");
	}
	finding_list_release(&scratch.findings);
	json_decref(scratch.check_counts);
	while (scratch.ninputs > 0)
		free(scratch.inputs[--scratch.ninputs].rel);
	free(scratch.inputs);
}

void
owners_release(struct owners *o)
{
	memset(o, 0, sizeof *o);
}

/* Lowercase ASCII, trimmed, for comparing labels. */
static char *
fold(const char *s)
{
	size_t n;
	char *p, *q;

	while (isspace((unsigned char)*s))
		s++;
	p = xstrdup(s);
	n = strlen(p);
	while (n > 0 && isspace((unsigned char)p[n - 1]))
		p[--n] = '\0';
	for (q = p; *q != '\0'; q++)
		*q = (char)tolower((unsigned char)*q);
	return p;
}

static bool
owners_is_generic(const char *name)
{
	static const char *const labels[] = {
		"vendor", "vendor support", "the vendor", "厂商支持", "厂商",
		"tbd", "todo", "n/a", "none", "-",
	};
	char *f = fold(name);
	bool generic = f[0] == '\0';
	size_t i;

	for (i = 0; i < nitems(labels) && !generic; i++)
		generic = strcmp(f, labels[i]) == 0;
	free(f);
	return generic;
}

static bool
valid_date(const char *s)
{
	int y, m, d;
	char tail;

	return sscanf(s, "%4d-%2d-%2d%c", &y, &m, &d, &tail) == 3 &&
	    strlen(s) == 10 && m >= 1 && m <= 12 && d >= 1 && d <= 31;
}

void
owners_check(const struct owners *o, struct gate_result *gr)
{
	const char *id = gr->def->id, *owner;
	char *check = xasprintf("%s.owner", id), *ptr = NULL;
	json_t *entry, *due;

	if (o->gates == NULL) {
		gate_add(gr, SEV_ERROR, check, OWNERS_FILE, o->where, "%s",
		    o->problem);
		goto out;
	}
	ptr = xasprintf("/gates/%s", id);
	if ((entry = json_object_get(o->gates, id)) == NULL) {
		query_gate_at(gr, SEV_ERROR, check, o->file, "/gates",
		    "%s has no owner in '%s'", id, OWNERS_FILE);
		goto out;
	}
	owner = query_str(gr, check, o->file, entry, ptr, "owner");
	if (owner != NULL) {
		if (owners_is_generic(owner))
			query_gate_at(gr, SEV_ERROR, check, o->file, ptr,
			    "owner '%s' is not a person or team (runbook §2)",
			    owner);
		else
			gr->owner = xstrdup(owner);
	}
	due = json_is_object(entry) ? json_object_get(entry, "due") : NULL;
	if (due != NULL && !json_is_null(due)) {
		if (json_is_string(due) && valid_date(json_string_value(due)))
			gr->due = xstrdup(json_string_value(due));
		else
			query_gate_at(gr, SEV_WARN, check, o->file, ptr,
			    "'due' is not a date (YYYY-MM-DD)");
	}
out:
	free(ptr);
	free(check);
}
