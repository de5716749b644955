/* doc.c: YAML and JSON into one jansson tree, with positions (see doc.h). */
#include "calops.h"

#include <yaml.h>

#include "base/buf.h"
#include "base/doc.h"
#include "base/text.h"

void
doc_release(struct doc *d)
{
	json_decref(d->root);
	json_decref(d->pos);
	d->root = d->pos = NULL;
}

static void
err_set(struct doc_error *err, size_t line, size_t col, const char *fmt, ...)
    PRINTFLIKE(4, 5);

static void
err_set(struct doc_error *err, size_t line, size_t col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	if (line == 0)
		err->where[0] = '\0';
	else
		snprintf(err->where, sizeof err->where, "%zu:%zu", line, col);
}

size_t
doc_tree_budget(size_t len)
{
	size_t cap = len < DOC_TREE_MAX / 2 ? DOC_TREE_MAX - 2 * len : 0;
	size_t want = len < SIZE_MAX / DOC_TREE_FACTOR ? DOC_TREE_FACTOR * len :
	    SIZE_MAX;

	if (want > cap)
		want = cap;
	return want < DOC_TREE_MIN ? DOC_TREE_MIN : want;
}

/* What jansson's tree of the JSON text will cost, counted over the text
 * (values by their separators, members by their colons, strings by their
 * bytes): a bound close above the measured cost, found before any of it
 * is allocated. */
static size_t
json_tree_cost(const char *p, size_t len)
{
	size_t values = 1, members = 0, i;
	bool in_string = false;

	for (i = 0; i < len; i++) {
		if (in_string) {
			if (p[i] == '\\')
				i++;
			else if (p[i] == '"')
				in_string = false;
			continue;
		}
		switch (p[i]) {
		case '"':
			in_string = true;
			break;
		case ',':
		case '[':
		case '{':
			values++;
			break;
		case ':':
			members++;
			break;
		}
	}
	return values * DOC_JSON_NODE_COST + members * DOC_JSON_MEMBER_COST +
	    len;
}

int
doc_parse_json(struct doc *d, const char *data, size_t len,
    struct doc_error *err)
{
	json_error_t je;
	size_t skip, cost;

	memset(d, 0, sizeof *d);
	d->kind = DOC_JSON;
	if (len > DOC_MAX_BYTES) {
		err_set(err, 0, 0, "document is larger than %u MiB",
		    DOC_MAX_BYTES >> 20);
		return -1;
	}
	/* A leading UTF-8 BOM is ignored (workspace.md §2); libyaml does the
	 * same for YAML. */
	skip = text_bom_len(data, len);
	data += skip;
	len -= skip;
	if ((cost = json_tree_cost(data, len)) > doc_tree_budget(len)) {
		err_set(err, 1, 1, "document would take %zu MiB in memory, over "
		    "the %zu MiB calops keeps for a file of %zu bytes: refused",
		    cost >> 20, doc_tree_budget(len) >> 20, len);
		return -1;
	}
	d->root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
	if (d->root == NULL) {
		err_set(err, je.line > 0 ? (size_t)je.line : 1,
		    je.column > 0 ? (size_t)je.column : 1, "%s", je.text);
		return -1;
	}
	return 0;
}

char *
doc_ptr_key(const char *base, const char *key)
{
	struct buf b = BUF_INIT;
	const char *p;

	buf_adds(&b, strcmp(base, "/") == 0 ? "" : base);
	buf_addc(&b, '/');
	for (p = key; *p != '\0'; p++) {
		if (*p == '~')
			buf_adds(&b, "~0");
		else if (*p == '/')
			buf_adds(&b, "~1");
		else
			buf_addc(&b, *p);
	}
	return buf_detach(&b, NULL);
}

char *
doc_ptr_index(const char *base, size_t index)
{
	return xasprintf("%s/%zu", strcmp(base, "/") == 0 ? "" : base, index);
}

const char *
doc_where(const struct doc *d, const char *pointer, char *buf, size_t len)
{
	json_t *v;

	if (d != NULL && d->pos != NULL &&
	    (v = json_object_get(d->pos, pointer)) != NULL) {
		uint64_t lc = (uint64_t)json_integer_value(v);

		snprintf(buf, len, "%llu:%llu", (unsigned long long)(lc >> 32),
		    (unsigned long long)(lc & 0xffffffffu));
		return buf;
	}
	snprintf(buf, len, "%s", pointer[0] == '\0' ? "/" : pointer);
	return buf;
}

/* ---- YAML ---- */

/* One open collection while building the tree from libyaml's events. */
struct frame {
	json_t	*node;		/* the array or object being filled */
	char	*ptr;		/* its JSON pointer */
	char	*anchor;	/* its anchor, registered when it closes */
	char	*key;		/* a mapping's key awaiting its value */
	size_t	 key_line, key_col;
	size_t	 count;	/* nodes in this subtree, for the alias budget */
};

struct builder {
	struct doc	*d;
	struct frame	 stack[DOC_MAX_DEPTH];
	size_t		 depth;
	json_t		*anchors;	/* name -> [node, count] */
	size_t		 budget;
	size_t		 cost, max_cost;	/* of the tree so far (doc.h) */
	struct doc_error *err;
};

static bool
match_all(const char *s, const char *set)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (strchr(set, *s) == NULL)
			return false;
	return true;
}

static bool
looks_float(const char *s)
{
	const char *p = s;
	bool digits = false;

	if (*p == '-' || *p == '+')
		p++;
	while (*p >= '0' && *p <= '9')
		p++, digits = true;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9')
			p++, digits = true;
	}
	if (!digits)
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}

/* The core schema's .inf and .nan spellings, which JSON cannot hold. */
static bool
is_nonfinite(const char *s)
{
	static const char *const names[] = { ".inf", ".Inf", ".INF", ".nan",
	    ".NaN", ".NAN" };
	bool sign = *s == '-' || *s == '+';
	size_t i;

	for (i = 0; i < nitems(names); i++)
		if (strcmp(s + sign, names[i]) == 0)
			/* the schema has no signed .nan */
			return !sign || i < 3;
	return false;
}

/* Type a plain scalar by the YAML 1.2 core schema; NULL with err set when it
 * is a number that cannot be represented. */
static json_t *
resolve_plain(const char *s, size_t len, const yaml_mark_t *m,
    struct doc_error *err)
{
	const char *digits = s;
	char *end;
	long long ll;
	double dv;
	int base = 10;

	if (len == 0 || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
	    strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0)
		return json_null();
	if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0 ||
	    strcmp(s, "TRUE") == 0)
		return json_true();
	if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0 ||
	    strcmp(s, "FALSE") == 0)
		return json_false();
	if (*digits == '-' || *digits == '+')
		digits++;
	if (strncmp(s, "0x", 2) == 0 && match_all(s + 2, "0123456789abcdefABCDEF"))
		base = 16, digits = s + 2;
	else if (strncmp(s, "0o", 2) == 0 && match_all(s + 2, "01234567"))
		base = 8, digits = s + 2;
	if (base != 10 || match_all(digits, "0123456789")) {
		errno = 0;
		ll = strtoll(digits == s + 2 && base != 10 ? digits : s, &end,
		    base);
		if (errno == ERANGE) {
			err_set(err, m->line + 1, m->column + 1,
			    "integer '%.40s' is out of range", s);
			return NULL;
		}
		return json_integer(ll);
	}
	if (is_nonfinite(s)) {
		err_set(err, m->line + 1, m->column + 1,
		    "non-finite number '%s' is not supported", s);
		return NULL;
	}
	if (looks_float(s)) {
		errno = 0;
		dv = strtod(s, &end);
		if (errno == ERANGE && (dv > 1 || dv < -1)) {
			err_set(err, m->line + 1, m->column + 1,
			    "number '%.40s' is out of range", s);
			return NULL;
		}
		return json_real(dv);
	}
	return json_stringn(s, len);
}

/* The core schema's tags (YAML 1.2 §10.3), as libyaml expands "!!int". */
static json_t *
tagged_value(const char *tag, const char *s, size_t len, const yaml_mark_t *m,
    struct doc_error *err)
{
	static const struct {
		const char	*tag, *name;
		json_type	 type;
	} core[] = {
		{ YAML_INT_TAG, "!!int", JSON_INTEGER },
		{ YAML_FLOAT_TAG, "!!float", JSON_REAL },
		{ YAML_BOOL_TAG, "!!bool", JSON_TRUE },
		{ YAML_NULL_TAG, "!!null", JSON_NULL },
	};
	json_t *v;
	size_t i;

	for (i = 0; i < nitems(core); i++)
		if (strcmp(tag, core[i].tag) == 0)
			break;
	if (i == nitems(core)) {
		err_set(err, m->line + 1, m->column + 1, "tag '%.60s' is not "
		    "one of the core schema's (!!str !!int !!float !!bool "
		    "!!null)", tag);
		return NULL;
	}
	/* The tag decides the type, whatever the quotes: the value must be
	 * spelt as the core schema spells that type. */
	if ((v = resolve_plain(s, len, m, err)) == NULL)
		return NULL;
	if (core[i].type == JSON_REAL && json_is_integer(v)) {
		json_t *r = json_real((double)json_integer_value(v));

		json_decref(v);
		return r;
	}
	if (json_typeof(v) == core[i].type || (core[i].type == JSON_TRUE &&
	    json_is_boolean(v)))
		return v;
	json_decref(v);
	err_set(err, m->line + 1, m->column + 1, "'%.40s' is not a valid %s",
	    s, core[i].name);
	return NULL;
}

static json_t *
scalar_value(const yaml_event_t *ev, struct doc_error *err)
{
	const char *s = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	const char *tag = (const char *)ev->data.scalar.tag;
	json_t *v;

	if (strlen(s) != len) {
		/* A "\0" escape; JSON documents may not hold one either. */
		err_set(err, ev->start_mark.line + 1, ev->start_mark.column + 1,
		    "scalar contains a NUL character");
		return NULL;
	}
	/* "!" (non-specific) and "!!str" are strings; no tag on a plain
	 * scalar lets the core schema resolve it; any other tag decides. */
	if (tag != NULL && strcmp(tag, "!") != 0 &&
	    strcmp(tag, YAML_STR_TAG) != 0)
		return tagged_value(tag, s, len, &ev->start_mark, err);
	if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && tag == NULL)
		return resolve_plain(s, len, &ev->start_mark, err);
	v = json_stringn(s, len);
	if (v == NULL)
		err_set(err, ev->start_mark.line + 1, ev->start_mark.column + 1,
		    "scalar is not valid UTF-8");
	return v;
}

/* Every node is noted here as it is made: its position, and its cost
 * against the document's budget (doc.h); -1 past it. */
static int
note_pos(struct builder *b, const char *ptr, size_t line, size_t col)
{
	b->cost += DOC_YAML_NODE_COST;
	if (b->depth > 0 && json_is_object(b->stack[b->depth - 1].node))
		b->cost += DOC_YAML_MEMBER_COST;
	if (b->cost > b->max_cost) {
		err_set(b->err, line, col, "document would take more than %zu "
		    "MiB in memory, the most calops keeps for a file of its "
		    "size: refused", b->max_cost >> 20);
		return -1;
	}
	json_object_set_new(b->d->pos, ptr,
	    json_integer((json_int_t)((uint64_t)line << 32 | col)));
	return 0;
}

/* The JSON pointer the next value of the top frame will have. */
static char *
next_ptr(struct builder *b)
{
	struct frame *f;

	if (b->depth == 0)
		return xstrdup("");
	f = &b->stack[b->depth - 1];
	if (json_is_array(f->node))
		return doc_ptr_index(f->ptr, json_array_size(f->node));
	return doc_ptr_key(f->ptr, f->key);
}

/* Hang a finished value (stolen) under the top frame, or make it the root. */
static int
attach(struct builder *b, json_t *v, size_t count, const yaml_mark_t *m)
{
	struct frame *f;

	if (b->depth == 0) {
		if (b->d->root != NULL) {
			json_decref(v);
			err_set(b->err, m->line + 1, m->column + 1,
			    "more than one document");
			return -1;
		}
		b->d->root = v;
		return 0;
	}
	f = &b->stack[b->depth - 1];
	f->count += count;
	if (json_is_array(f->node))
		return json_array_append_new(f->node, v) == 0 ? 0 : -1;
	if (json_object_get(f->node, f->key) != NULL) {
		err_set(b->err, f->key_line, f->key_col,
		    "duplicate key '%.60s'", f->key);
		json_decref(v);
		return -1;
	}
	json_object_set_new(f->node, f->key, v);
	free(f->key);
	f->key = NULL;
	return 0;
}

static bool
expecting_key(struct builder *b)
{
	struct frame *f;

	if (b->depth == 0)
		return false;
	f = &b->stack[b->depth - 1];
	return json_is_object(f->node) && f->key == NULL;
}

static void
register_anchor(struct builder *b, const char *anchor, json_t *v, size_t count)
{
	if (anchor != NULL)
		json_object_set_new(b->anchors, anchor,
		    json_pack("[OI]", v, (json_int_t)count));
}

static int
on_scalar(struct builder *b, const yaml_event_t *ev)
{
	const yaml_mark_t *m = &ev->start_mark;
	struct frame *f;
	json_t *v;
	char *ptr;

	if (expecting_key(b)) {
		f = &b->stack[b->depth - 1];
		if (strlen((const char *)ev->data.scalar.value) !=
		    ev->data.scalar.length) {
			err_set(b->err, m->line + 1, m->column + 1,
			    "mapping key contains a NUL character");
			return -1;
		}
		if (ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
		    strcmp((const char *)ev->data.scalar.value, "<<") == 0) {
			err_set(b->err, m->line + 1, m->column + 1, "merge keys "
			    "('<<') are not part of YAML 1.2's core schema: write "
			    "the members out");
			return -1;
		}
		if (ev->data.scalar.tag != NULL && strcmp((const char *)
		    ev->data.scalar.tag, YAML_STR_TAG) != 0 && strcmp(
		    (const char *)ev->data.scalar.tag, "!") != 0) {
			err_set(b->err, m->line + 1, m->column + 1, "a mapping "
			    "key is a string: tag '%.60s' cannot apply",
			    (const char *)ev->data.scalar.tag);
			return -1;
		}
		f->key = xstrdup((const char *)ev->data.scalar.value);
		f->key_line = m->line + 1;
		f->key_col = m->column + 1;
		if (ev->data.scalar.anchor != NULL) {
			/* Keys are strings, so an alias of a key is one too. */
			v = json_string(f->key);
			register_anchor(b, (const char *)ev->data.scalar.anchor,
			    v, 1);
			json_decref(v);
		}
		return 0;
	}
	if ((v = scalar_value(ev, b->err)) == NULL)
		return -1;
	ptr = next_ptr(b);
	if (note_pos(b, ptr, m->line + 1, m->column + 1) != 0) {
		free(ptr);
		json_decref(v);
		return -1;
	}
	free(ptr);
	register_anchor(b, (const char *)ev->data.scalar.anchor, v, 1);
	return attach(b, v, 1, m);
}

static int
on_alias(struct builder *b, const yaml_event_t *ev)
{
	const yaml_mark_t *m = &ev->start_mark;
	const char *name = (const char *)ev->data.alias.anchor;
	json_t *a;
	size_t count;
	char *ptr;
	int rc;

	if (expecting_key(b)) {
		err_set(b->err, m->line + 1, m->column + 1,
		    "an alias cannot be a mapping key");
		return -1;
	}
	if ((a = json_object_get(b->anchors, name)) == NULL) {
		err_set(b->err, m->line + 1, m->column + 1,
		    "alias '*%.60s' names no finished anchor", name);
		return -1;
	}
	count = (size_t)json_integer_value(json_array_get(a, 1));
	if (count > b->budget) {
		err_set(b->err, m->line + 1, m->column + 1,
		    "aliases expand to more than %d nodes (alias bomb?)",
		    DOC_ALIAS_BUDGET);
		return -1;
	}
	b->budget -= count;
	ptr = next_ptr(b);
	rc = note_pos(b, ptr, m->line + 1, m->column + 1);
	free(ptr);
	if (rc != 0)
		return -1;
	return attach(b, json_incref(json_array_get(a, 0)), count, m);
}

static int
on_open(struct builder *b, const yaml_event_t *ev, bool is_map)
{
	const yaml_mark_t *m = &ev->start_mark;
	const yaml_char_t *anchor = is_map ? ev->data.mapping_start.anchor :
	    ev->data.sequence_start.anchor;
	const char *tag = (const char *)(is_map ? ev->data.mapping_start.tag :
	    ev->data.sequence_start.tag);
	struct frame *f;

	if (tag != NULL && strcmp(tag, "!") != 0 &&
	    strcmp(tag, is_map ? YAML_MAP_TAG : YAML_SEQ_TAG) != 0) {
		err_set(b->err, m->line + 1, m->column + 1, "tag '%.60s' does "
		    "not fit a %s", tag, is_map ? "mapping" : "sequence");
		return -1;
	}

	if (expecting_key(b)) {
		err_set(b->err, m->line + 1, m->column + 1,
		    "mapping keys must be scalars");
		return -1;
	}
	if (b->depth == DOC_MAX_DEPTH) {
		err_set(b->err, m->line + 1, m->column + 1,
		    "nesting deeper than %d levels", DOC_MAX_DEPTH);
		return -1;
	}
	f = &b->stack[b->depth];
	f->ptr = next_ptr(b);
	if (note_pos(b, f->ptr, m->line + 1, m->column + 1) != 0) {
		free(f->ptr);
		return -1;
	}
	f->node = is_map ? json_object() : json_array();
	f->anchor = anchor != NULL ? xstrdup((const char *)anchor) : NULL;
	f->key = NULL;
	f->count = 1;
	b->depth++;
	return 0;
}

static int
on_close(struct builder *b, const yaml_event_t *ev)
{
	struct frame f = b->stack[--b->depth];
	int rc;

	register_anchor(b, f.anchor, f.node, f.count);
	rc = attach(b, f.node, f.count, &ev->start_mark);
	free(f.ptr);
	free(f.anchor);
	free(f.key);
	return rc;
}

static int
on_event(struct builder *b, const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		return on_scalar(b, ev);
	case YAML_ALIAS_EVENT:
		return on_alias(b, ev);
	case YAML_SEQUENCE_START_EVENT:
		return on_open(b, ev, false);
	case YAML_MAPPING_START_EVENT:
		return on_open(b, ev, true);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return on_close(b, ev);
	case YAML_DOCUMENT_START_EVENT:
		if (b->d->root == NULL)
			return 0;
		err_set(b->err, ev->start_mark.line + 1,
		    ev->start_mark.column + 1, "more than one document");
		return -1;
	default:
		return 0;
	}
}

static void
builder_unwind(struct builder *b)
{
	while (b->depth > 0) {
		struct frame *f = &b->stack[--b->depth];

		json_decref(f->node);
		free(f->ptr);
		free(f->anchor);
		free(f->key);
	}
	json_decref(b->anchors);
}

/*
 * libyaml's reader (bad UTF-8, control characters) gives a byte offset
 * rather than a mark; count lines and characters up to it.
 */
static void
parse_error(const yaml_parser_t *p, const char *data, size_t len,
    struct doc_error *err)
{
	yaml_mark_t m = p->problem_mark;
	size_t i;

	if (p->error == YAML_READER_ERROR) {
		m.line = m.column = 0;
		for (i = 0; i < p->problem_offset && i < len; i++) {
			if (data[i] == '\n')
				m.line++, m.column = 0;
			else if ((data[i] & 0xc0) != 0x80)
				m.column++;
		}
	}
	err_set(err, m.line + 1, m.column + 1, "%s%s%s",
	    p->problem != NULL ? p->problem : "syntax error",
	    p->context != NULL ? " " : "",
	    p->context != NULL ? p->context : "");
}

int
doc_parse_yaml(struct doc *d, const char *data, size_t len,
    struct doc_error *err)
{
	struct builder b;
	yaml_parser_t parser;
	yaml_event_t ev;
	int rc = 0;
	bool done = false;

	memset(d, 0, sizeof *d);
	d->kind = DOC_YAML;
	if (len > DOC_MAX_BYTES) {
		err_set(err, 0, 0, "document is larger than %u MiB",
		    DOC_MAX_BYTES >> 20);
		return -1;
	}
	memset(&b, 0, sizeof b);
	b.d = d;
	b.err = err;
	b.anchors = json_object();
	b.budget = DOC_ALIAS_BUDGET;
	b.max_cost = doc_tree_budget(len);
	d->pos = json_object();
	if (!yaml_parser_initialize(&parser))
		fatal("cannot initialise the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	while (!done && rc == 0) {
		if (!yaml_parser_parse(&parser, &ev)) {
			parse_error(&parser, data, len, err);
			rc = -1;
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		rc = on_event(&b, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	builder_unwind(&b);
	if (rc == 0 && d->root == NULL)
		d->root = json_null();	/* an empty file is a null document */
	if (rc != 0)
		doc_release(d);
	return rc;
}
