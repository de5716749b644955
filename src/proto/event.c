/* event.c: protocol event lines: the rules both paths share, the jansson
 * path and the entry point (event.h); the fast path is eventfast.c. */
#include "calops.h"

#include <jansson.h>

#include "proto/event.h"
#include "proto/event_int.h"
#include "proto/eventfast.h"

/* The names of enum field, in its order. */
static const char *const field_names[F_UNKNOWN] = {
	"v", "seq", "ts", "type", "chip", "values", "labels",
};

static const struct {
	const char	*name;
	enum event_type	 type;
} event_types[] = {
	{ "metric", EVENT_METRIC },
	{ "log", EVENT_LOG },
	{ "progress", EVENT_PROGRESS },
	{ "hello", EVENT_HELLO },
	{ "finding", EVENT_FINDING },
	{ "fault", EVENT_FAULT },
	{ "result", EVENT_RESULT },
	{ "end", EVENT_END },
	{ "gap", EVENT_GAP },
	{ "stalled", EVENT_STALLED },
	{ "resumed", EVENT_RESUMED },
};

/* ---- The rules, shared by both paths ---- */

void
event_build_begin(struct event *ev)
{
	ev->has = 0;
	ev->type = EVENT_OTHER;
	ev->type_name[0] = '\0';
	ev->seq = 0;
	ev->ts = 0;
	ev->chip = 0;
	ev->nvalues = ev->nlabels = 0;
	ev->values_not_kept = ev->labels_not_kept = 0;
	ev->err[0] = '\0';
}

/* Keep the first error only: it is the one the line shows first. */
void
event_build_fail(struct event *ev, const char *fmt, ...)
{
	va_list ap;

	if (ev->err[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(ev->err, sizeof ev->err, fmt, ap);
	va_end(ap);
}

enum field
event_field_of(const char *key, size_t len)
{
	enum field f;

	if (len == 0 || len > 6)
		return F_UNKNOWN;
	for (f = 0; f < F_UNKNOWN; f++)
		if (field_names[f][0] == key[0] &&
		    strncmp(field_names[f], key, len) == 0 &&
		    field_names[f][len] == '\0')
			return f;
	return F_UNKNOWN;
}

static void
ev_set_type(struct event *ev, const char *s, size_t len)
{
	size_t i;

	ev->has |= EVENT_HAS_TYPE;
	ev->type = EVENT_OTHER;
	ev->type_name[0] = '\0';
	if (len > EVENT_TYPE_MAX)
		return;
	memcpy(ev->type_name, s, len);
	ev->type_name[len] = '\0';
	for (i = 0; i < nitems(event_types); i++)
		if (strcmp(event_types[i].name, ev->type_name) == 0) {
			ev->type = event_types[i].type;
			break;
		}
}

/* A top-level member whose value is a scalar (or, from jansson, any value). */
void
event_build_field(struct event *ev, enum field f, const struct jv *v)
{
	switch (f) {
	case F_V:
		ev->has |= EVENT_HAS_V;
		if (v->kind != J_INT || v->i != 1)
			event_build_fail(
			    ev, "'v' is not 1 (protocol version 1)");
		break;
	case F_SEQ:
		ev->has |= EVENT_HAS_SEQ;
		if (v->kind != J_INT || v->i < 0)
			event_build_fail(ev, "'seq' is not an integer >= 0");
		else
			ev->seq = v->i;
		break;
	case F_TS:
		ev->has |= EVENT_HAS_TS;
		if (v->kind == J_INT)
			ev->ts = (double)v->i;
		else if (v->kind == J_REAL)
			ev->ts = v->d;
		else
			event_build_fail(ev, "'ts' is not a number");
		if (!(ev->ts >= 0 && ev->ts < EVENT_TS_MAX))
			event_build_fail(ev, "'ts' is not a time from 1970 to "
			    "2100");
		break;
	case F_TYPE:
		if (v->kind != J_STR)
			event_build_fail(ev, "'type' is not a string");
		else
			ev_set_type(ev, v->s, v->len);
		break;
	case F_CHIP:
		ev->has |= EVENT_HAS_CHIP;
		if (v->kind != J_INT || v->i < 0 || v->i > EVENT_CHIP_MAX)
			event_build_fail(ev,
			    "'chip' is not an integer from 0 to %d",
			    EVENT_CHIP_MAX);
		else
			ev->chip = (int)v->i;
		break;
	case F_VALUES:
	case F_LABELS:
		event_build_fail(ev, "'%s' is not an object", field_names[f]);
		break;
	case F_UNKNOWN:
		break;
	}
}

/* Whether a name of len bytes is one a struct event keeps. */
static bool
ev_name_kept(size_t len)
{
	return len > 0 && len <= EVENT_NAME_MAX;
}

/*
 * One member of `values`.  A name or a count past the caps is not kept,
 * only counted: the event is valid, the screens show less of it (event.h).
 */
void
event_build_value(struct event *ev, const char *name, size_t len,
    const struct jv *v)
{
	struct event_value *ev_v;
	double d;

	switch (v->kind) {
	case J_NULL:
		return;		/* no sample */
	case J_BOOL:
		d = v->b ? 1 : 0;
		break;
	case J_INT:
		d = (double)v->i;
		break;
	case J_REAL:
		d = v->d;
		break;
	default:
		event_build_fail(ev, "value '%.*s%s' is not a number",
		    len > 40 ? 40 : (int)len, name, len > 40 ? "..." : "");
		return;
	}
	if (!ev_name_kept(len) || ev->nvalues == EVENT_VALUES_MAX) {
		ev->values_not_kept++;
		return;
	}
	ev_v = &ev->values[ev->nvalues++];
	memcpy(ev_v->name, name, len);
	ev_v->name[len] = '\0';
	ev_v->v = d;
}

/* One member of `labels`: strings are kept, within the caps (counted past
 * them), anything else ignored. */
void
event_build_label(struct event *ev, const char *name, size_t len,
    const struct jv *v)
{
	struct event_label *l;

	if (v->kind != J_STR)
		return;
	if (!ev_name_kept(len) || v->len > EVENT_LABEL_MAX ||
	    ev->nlabels == EVENT_LABELS_MAX) {
		ev->labels_not_kept++;
		return;
	}
	l = &ev->labels[ev->nlabels++];
	memcpy(l->name, name, len);
	l->name[len] = '\0';
	memcpy(l->value, v->s, v->len);
	l->value[v->len] = '\0';
}

int
event_build_finish(struct event *ev)
{
	static const struct {
		unsigned	 bit;
		const char	*name;
	} required[] = {
		{ EVENT_HAS_V, "v" },
		{ EVENT_HAS_SEQ, "seq" },
		{ EVENT_HAS_TS, "ts" },
		{ EVENT_HAS_TYPE, "type" },
	};
	size_t i;

	for (i = 0; i < nitems(required); i++)
		if (!(ev->has & required[i].bit))
			event_build_fail(ev, "missing '%s'", required[i].name);
	if (ev->type == EVENT_METRIC && !(ev->has & EVENT_HAS_VALUES))
		event_build_fail(ev, "a metric event without 'values'");
	return ev->err[0] != '\0' ? EVENT_ERROR : EVENT_OK;
}

bool
event_build_too_long(struct event *ev, size_t len)
{
	if (len <= EVENT_LINE_MAX)
		return false;
	event_build_fail(
	    ev, "line of %zu bytes, longer than %u", len, EVENT_LINE_MAX);
	return true;
}

const struct event_value *
event_value(const struct event *ev, const char *name)
{
	size_t i;

	for (i = 0; i < ev->nvalues; i++)
		if (strcmp(ev->values[i].name, name) == 0)
			return &ev->values[i];
	return NULL;
}

/* ---- The jansson path ---- */

static void
jv_of(const json_t *j, struct jv *v)
{
	memset(v, 0, sizeof *v);
	switch (json_typeof(j)) {
	case JSON_NULL:
		v->kind = J_NULL;
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		v->kind = J_BOOL;
		v->b = json_is_true(j);
		break;
	case JSON_INTEGER:
		v->kind = J_INT;
		v->i = json_integer_value(j);
		v->d = (double)v->i;
		break;
	case JSON_REAL:
		v->kind = J_REAL;
		v->d = json_real_value(j);
		break;
	case JSON_STRING:
		v->kind = J_STR;
		v->s = json_string_value(j);
		v->len = json_string_length(j);
		break;
	default:
		v->kind = J_OTHER;
		break;
	}
}

/* The members of values or labels (obj borrowed). */
static void
j_members(struct event *ev, enum field fld, json_t *obj)
{
	const char *key;
	json_t *val;
	struct jv v;

	ev->has |= fld == F_VALUES ? EVENT_HAS_VALUES : EVENT_HAS_LABELS;
	json_object_foreach(obj, key, val) {
		jv_of(val, &v);
		if (fld == F_VALUES)
			event_build_value(ev, key, strlen(key), &v);
		else
			event_build_label(ev, key, strlen(key), &v);
	}
}

int
event_parse_jansson(const char *line, size_t len, struct event *ev)
{
	json_error_t jerr;
	json_t *root, *val;
	const char *key;
	enum field fld;
	struct jv v;

	event_build_begin(ev);
	if (event_build_too_long(ev, len))
		return EVENT_ERROR;
	/* jansson skips a NUL that follows a number or a word. */
	if (memchr(line, '\0', len) != NULL) {
		event_build_fail(ev, "NUL byte in line");
		return EVENT_ERROR;
	}
	if ((root = json_loadb(line, len, 0, &jerr)) == NULL) {
		event_build_fail(ev, "invalid JSON at column %d: %s",
		    jerr.column, jerr.text);
		return EVENT_ERROR;
	}
	if (!json_is_object(root)) {
		json_decref(root);
		event_build_fail(ev, "not a JSON object");
		return EVENT_ERROR;
	}
	json_object_foreach(root, key, val) {
		fld = event_field_of(key, strlen(key));
		if ((fld == F_VALUES || fld == F_LABELS) && json_is_object(val))
			j_members(ev, fld, val);
		else {
			jv_of(val, &v);
			event_build_field(ev, fld, &v);
		}
	}
	json_decref(root);
	return event_build_finish(ev);
}

int
event_parse(const char *line, size_t len, struct event *ev)
{
	int rc = eventfast_parse(line, len, ev);

	return rc == EVENT_FALLBACK ? event_parse_jansson(line, len, ev) : rc;
}
