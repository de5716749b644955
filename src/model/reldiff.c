/* reldiff.c: two release manifests, field by field (reldiff.h). */
#include "calops.h"

#include "model/reldiff.h"

static void
add(struct reldiff *d, enum reldiff_kind kind, const char *field,
    char *from, char *to)
{
	struct reldiff_line *l;

	if (d->n == d->alloc) {
		d->alloc = d->alloc == 0 ? 16 : d->alloc * 2;
		d->v = xreallocarray(d->v, d->alloc, sizeof *d->v);
	}
	l = &d->v[d->n++];
	l->kind = kind;
	l->field = xstrdup(field);
	l->from = from;
	l->to = to;
}

/* A value as one line: a string as it is, anything else as compact JSON
 * (a new string). */
static char *
text_of(const json_t *v)
{
	char *s;

	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
	if (s == NULL)
		return xstrdup("?");
	/* jansson's allocation, ours from here. */
	{
		char *copy = xstrdup(s);

		free(s);
		return copy;
	}
}

static bool
strings_only(const json_t *a)
{
	size_t i;
	json_t *v;

	if (!json_is_array(a))
		return false;
	json_array_foreach(a, i, v)
		if (!json_is_string(v))
			return false;
	return true;
}

/* Lists longer than this are compared on their first items only: a
 * host's manifest could hold 10^5 of them, and each is looked for in the
 * other (a limitation list is a dozen lines). */
#define LIST_MAX	1000

static bool
has_string(const json_t *a, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v) {
		if (i >= LIST_MAX)
			break;
		if (json_is_string(v) && strcmp(json_string_value(v), s) == 0)
			return true;
	}
	return false;
}

/* Lists of strings (limitations, features): items removed, then added. */
static void
diff_strings(struct reldiff *d, const char *field, const json_t *a,
    const json_t *b)
{
	size_t i, before = d->n;
	json_t *v;

	json_array_foreach(a, i, v)
		if (i < LIST_MAX && (b == NULL ||
		    !has_string(b, json_string_value(v))))
			add(d, RD_REMOVED, field, text_of(v), NULL);
	json_array_foreach(b, i, v)
		if (i < LIST_MAX && (a == NULL ||
		    !has_string(a, json_string_value(v))))
			add(d, RD_ADDED, field, NULL, text_of(v));
	if (d->n == before && a != NULL && b != NULL)
		d->same++;
}

/* A list of {path, sha256}: the reports a generation binds. */
static bool
by_path(const json_t *a)
{
	size_t i;
	json_t *v;

	if (!json_is_array(a) || json_array_size(a) == 0)
		return false;
	json_array_foreach(a, i, v)
		if (!json_is_string(json_object_get(v, "path")))
			return false;
	return true;
}

static const json_t *
find_path(const json_t *a, const char *path)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v) {
		if (i >= LIST_MAX)
			break;
		if (strcmp(json_string_value(json_object_get(v, "path")),
		    path) == 0)
			return v;
	}
	return NULL;
}

/* "reports 02-onnx/onnx-report.json": a report's path as the manifest
 * gives it, relative to its generation's folder, without the "../"s that
 * climb to the workspace (the part that says which report it is stays on
 * a narrow screen). */
static char *
path_field(const char *field, const char *path)
{
	while (strncmp(path, "../", 3) == 0)
		path += 3;
	return xasprintf("%s %s", field, path);
}

static void
diff_paths(struct reldiff *d, const char *field, const json_t *a,
    const json_t *b)
{
	const json_t *other;
	size_t i, before = d->n;
	char *name;
	json_t *v;

	json_array_foreach(a, i, v) {
		if (i >= LIST_MAX)
			break;
		name = path_field(field, json_string_value(json_object_get(v,
		    "path")));
		other = b != NULL ? find_path(b, json_string_value(
		    json_object_get(v, "path"))) : NULL;
		if (other == NULL)
			add(d, RD_REMOVED, name, text_of(json_object_get(v,
			    "sha256") != NULL ? json_object_get(v, "sha256") :
			    v), NULL);
		else if (!json_equal(v, (json_t *)other))
			add(d, RD_CHANGED, name, text_of(json_object_get(v,
			    "sha256") != NULL ? json_object_get(v, "sha256") :
			    v), text_of(json_object_get(other, "sha256") !=
			    NULL ? json_object_get(other, "sha256") : other));
		free(name);
	}
	json_array_foreach(b, i, v) {
		if (i >= LIST_MAX)
			break;
		if (a != NULL && find_path(a, json_string_value(
		    json_object_get(v, "path"))) != NULL)
			continue;
		name = path_field(field, json_string_value(json_object_get(v,
		    "path")));
		add(d, RD_ADDED, name, NULL, text_of(json_object_get(v,
		    "sha256") != NULL ? json_object_get(v, "sha256") : v));
		free(name);
	}
	if (d->n == before && a != NULL && b != NULL)
		d->same++;
}

static void	diff_objects(struct reldiff *d, const char *prefix,
		    const json_t *a, const json_t *b);

static void
diff_member(struct reldiff *d, const char *field, const json_t *va,
    const json_t *vb)
{
	if ((va == NULL || json_is_object(va)) &&
	    (vb == NULL || json_is_object(vb)))
		diff_objects(d, field, va, vb);
	else if ((va == NULL || strings_only(va)) &&
	    (vb == NULL || strings_only(vb)))
		diff_strings(d, field, va, vb);
	else if ((va == NULL || by_path(va)) && (vb == NULL || by_path(vb)))
		diff_paths(d, field, va, vb);
	else if (va == NULL)
		add(d, RD_ADDED, field, NULL, text_of(vb));
	else if (vb == NULL)
		add(d, RD_REMOVED, field, text_of(va), NULL);
	else if (json_equal((json_t *)va, (json_t *)vb))
		d->same++;
	else
		add(d, RD_CHANGED, field, text_of(va), text_of(vb));
}

/* a's members in its order, then those only b has. */
static void
diff_objects(struct reldiff *d, const char *prefix, const json_t *a,
    const json_t *b)
{
	const char *key;
	char *field;
	json_t *v;

	if (a != NULL)
		json_object_foreach((json_t *)a, key, v) {
			if (prefix == NULL && (strcmp(key, "generation") == 0 ||
			    strcmp(key, "previous_generation") == 0))
				continue;
			field = prefix != NULL ? xasprintf("%s.%s", prefix,
			    key) : xstrdup(key);
			diff_member(d, field, v, b != NULL ?
			    json_object_get(b, key) : NULL);
			free(field);
		}
	if (b != NULL)
		json_object_foreach((json_t *)b, key, v) {
			if ((a != NULL && json_object_get(a, key) != NULL) ||
			    (prefix == NULL && (strcmp(key, "generation") == 0 ||
			    strcmp(key, "previous_generation") == 0)))
				continue;
			field = prefix != NULL ? xasprintf("%s.%s", prefix,
			    key) : xstrdup(key);
			diff_member(d, field, NULL, v);
			free(field);
		}
}

/* The reports last: dozens of hashes that move with every build would
 * push what a release owner reads first (compat, limitations, features)
 * off a screen.  Stable: each side keeps the manifest's order. */
static void
reports_last(struct reldiff *d)
{
	struct reldiff_line *v = xreallocarray(NULL, d->n + 1, sizeof *v);
	size_t i, k = 0;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < d->n; i++)
			if ((strncmp(d->v[i].field, "reports ", 8) == 0) == pass)
				v[k++] = d->v[i];
	free(d->v);
	d->v = v;
	d->alloc = d->n + 1;
}

void
reldiff_make(struct reldiff *d, const json_t *a, const json_t *b)
{
	memset(d, 0, sizeof *d);
	diff_objects(d, NULL, json_is_object(a) ? a : NULL,
	    json_is_object(b) ? b : NULL);
	reports_last(d);
}

void
reldiff_release(struct reldiff *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->v[i].field);
		free(d->v[i].from);
		free(d->v[i].to);
	}
	free(d->v);
	memset(d, 0, sizeof *d);
}
