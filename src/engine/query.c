/* query.c: typed access to artifact members, reporting what is wrong. */
#include "calops.h"

#include "engine/artifact.h"
#include "engine/gate.h"
#include "engine/query.h"

void
query_gate_at(struct gate_result *gr, enum severity sev, const char *check,
    const struct artifact *a, const char *ptr, const char *fmt, ...)
{
	char where[64], *msg;
	va_list ap;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	gate_add(gr, sev, check, a != NULL ? a->rel : "",
	    a != NULL ? doc_where(&a->doc, ptr, where, sizeof where) : ptr,
	    "%s", msg);
	free(msg);
}

json_t *
query_member(struct gate_result *gr, const char *check,
    const struct artifact *a, json_t *obj, const char *ptr, const char *key)
{
	json_t *v;

	if (!json_is_object(obj)) {
		query_gate_at(
		    gr, SEV_ERROR, check, a, ptr, "expected an object");
		return NULL;
	}
	if ((v = json_object_get(obj, key)) == NULL || json_is_null(v)) {
		query_gate_at(
		    gr, SEV_ERROR, check, a, ptr, "'%s' is missing", key);
		return NULL;
	}
	return v;
}

/* The member, or NULL with "'key' must be <what>" reported. */
static json_t *
typed(struct gate_result *gr, const char *check, const struct artifact *a,
    json_t *obj, const char *ptr, const char *key, bool (*is)(const json_t *),
    const char *what)
{
	json_t *v = query_member(gr, check, a, obj, ptr, key);
	char *p;

	if (v == NULL)
		return NULL;
	if (!is(v)) {
		p = doc_ptr_key(ptr, key);
		query_gate_at(
		    gr, SEV_ERROR, check, a, p, "'%s' must be %s", key, what);
		free(p);
		return NULL;
	}
	return v;
}

static bool is_string(const json_t *v) { return json_is_string(v); }
static bool is_integer(const json_t *v) { return json_is_integer(v); }
static bool is_number(const json_t *v) { return json_is_number(v); }
static bool is_boolean(const json_t *v) { return json_is_boolean(v); }
static bool is_array(const json_t *v) { return json_is_array(v); }
static bool is_object(const json_t *v) { return json_is_object(v); }

const char *
query_str(struct gate_result *gr, const char *check, const struct artifact *a,
    json_t *obj, const char *ptr, const char *key)
{
	json_t *v = typed(gr, check, a, obj, ptr, key, is_string, "a string");

	return v != NULL ? json_string_value(v) : NULL;
}

bool
query_int(struct gate_result *gr, const char *check, const struct artifact *a,
    json_t *obj, const char *ptr, const char *key, json_int_t *out)
{
	json_t *v = typed(gr, check, a, obj, ptr, key, is_integer,
	    "an integer");

	if (v != NULL)
		*out = json_integer_value(v);
	return v != NULL;
}

bool
query_num(struct gate_result *gr, const char *check, const struct artifact *a,
    json_t *obj, const char *ptr, const char *key, double *out)
{
	json_t *v = typed(gr, check, a, obj, ptr, key, is_number, "a number");

	if (v != NULL)
		*out = json_number_value(v);
	return v != NULL;
}

bool
query_bool(struct gate_result *gr, const char *check, const struct artifact *a,
    json_t *obj, const char *ptr, const char *key, bool *out)
{
	json_t *v = typed(gr, check, a, obj, ptr, key, is_boolean,
	    "true or false");

	if (v != NULL)
		*out = json_is_true(v);
	return v != NULL;
}

json_t *
query_array(struct gate_result *gr, const char *check, const struct artifact *a,
    json_t *obj, const char *ptr, const char *key)
{
	return typed(gr, check, a, obj, ptr, key, is_array, "an array");
}

json_t *
query_object(struct gate_result *gr, const char *check,
    const struct artifact *a, json_t *obj, const char *ptr, const char *key)
{
	return typed(gr, check, a, obj, ptr, key, is_object, "an object");
}

bool
query_empty(struct gate_result *gr, const char *check,
    const struct artifact *a, json_t *list, const char *ptr,
    const char *fmt, ...)
{
	char where[64], *msg;
	va_list ap;

	if (json_array_size(list) > 0 || json_object_size(list) > 0)
		return false;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	gate_skip(gr, check, a->rel, doc_where(&a->doc, ptr, where,
	    sizeof where), "nothing to judge: %s", msg);
	free(msg);
	return true;
}
