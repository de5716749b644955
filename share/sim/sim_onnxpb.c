/*
 * sim_onnxpb.c: an ONNX model's operators and external data, read from its
 * protobuf bytes (sim_onnxpb.h).  The field numbers are onnx.proto3's:
 *
 *	ModelProto		1 ir_version, 7 graph, 8 opset_import
 *	OperatorSetIdProto	1 domain, 2 version
 *	GraphProto		1 node, 5 initializer
 *	NodeProto		4 op_type, 7 domain
 *	TensorProto		8 name, 13 external_data, 14 data_location
 *	StringStringEntryProto	1 key, 2 value
 *
 * Offsets in messages are the file's, so that a person can find the byte
 * with xxd.
 */
#include "calops.h"

#include <inttypes.h>
#include <stdarg.h>

#include "base/text.h"
#include "sim_onnxpb.h"

enum wire {
	WIRE_VARINT = 0,
	WIRE_I64 = 1,
	WIRE_LEN = 2,
	WIRE_I32 = 5,
};

/* A message being read: its bytes and where they are in the file; what
 * is wrong with it as a whole is said at its field's key, which is inside
 * the file even when the message is empty and last. */
struct pb {
	const unsigned char	*p;
	size_t			 n, at;
	size_t			 base;
	size_t			 key;
};

struct pb_field {
	uint32_t	 num;
	int		 wire;
	uint64_t	 v;		/* WIRE_VARINT */
	struct pb	 sub;		/* WIRE_LEN: its bytes */
	size_t		 at;		/* its key's offset in the file */
};

static int PRINTFLIKE(4, 5)
pb_fail(size_t at, char *err, size_t len, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	errbuf_set(err, len, "byte %zu: %s", at, msg);
	return -1;
}

/* A varint at b's cursor; an error is said at byte `at` of the file (the
 * field it belongs to). */
static int
pb_varint(struct pb *b, size_t at, uint64_t *v, char *err, size_t len)
{
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < 10; i++) {
		if (b->at == b->n)
			return pb_fail(at, err, len, "a number is cut short");
		x |= (uint64_t)(b->p[b->at] & 0x7f) << (7 * i);
		if ((b->p[b->at++] & 0x80) == 0) {
			if (i == 9 && b->p[b->at - 1] > 1)
				break;
			*v = x;
			return 0;
		}
	}
	return pb_fail(at, err, len, "a number longer than 64 bits");
}

/* The next field of b into f: 1, 0 at the message's end, or -1. */
static int
pb_next(struct pb *b, struct pb_field *f, char *err, size_t len)
{
	/* Set by pb_varint() when it succeeds; gcc -O3 cannot see that. */
	uint64_t key = 0, n = 0;
	size_t skip;

	if (b->at == b->n)
		return 0;
	f->at = b->base + b->at;
	if (pb_varint(b, f->at, &key, err, len) != 0)
		return -1;
	f->num = (uint32_t)(key >> 3);
	f->wire = (int)(key & 7);
	if (key >> 3 == 0 || key >> 3 > 0x1fffffff)
		return pb_fail(f->at, err, len, "field number %" PRIu64 " is "
		    "not one", key >> 3);
	switch (f->wire) {
	case WIRE_VARINT:
		return pb_varint(b, f->at, &f->v, err, len) == 0 ? 1 : -1;
	case WIRE_I64:
	case WIRE_I32:
		skip = f->wire == WIRE_I64 ? 8 : 4;
		if (b->n - b->at < skip)
			return pb_fail(f->at, err, len, "field %u is cut short",
			    f->num);
		b->at += skip;
		return 1;
	case WIRE_LEN:
		if (pb_varint(b, f->at, &n, err, len) != 0)
			return -1;
		if (n > b->n - b->at)
			return pb_fail(f->at, err, len, "field %u says %" PRIu64
			    " bytes, %zu are left", f->num, n, b->n - b->at);
		f->sub.p = b->p + b->at;
		f->sub.n = (size_t)n;
		f->sub.at = 0;
		f->sub.base = b->base + b->at;
		f->sub.key = f->at;
		b->at += (size_t)n;
		return 1;
	default:
		/* 3 and 4 are proto2's groups, which onnx.proto never uses;
		 * 6 and 7 are no wire type at all. */
		return pb_fail(f->at, err, len, "field %u has wire type %d, "
		    "which an ONNX model never uses", f->num, f->wire);
	}
}

/* f is what field name of msg must be; -1 said when it is not. */
static int
pb_want(const struct pb_field *f, int wire, const char *msg,
    const char *name, char *err, size_t len)
{
	static const char *const wires[] = { "a number", "8 bytes", "bytes",
	    "", "", "4 bytes" };

	if (f->wire == wire)
		return 0;
	return pb_fail(f->at, err, len, "%s.%s (field %u) is %s, not %s", msg,
	    name, f->num, wires[f->wire], wires[wire]);
}

/* A number field that must fit an int64: 0, or -1 said. */
static int
pb_int64(const struct pb_field *f, const char *msg, const char *name,
    int64_t *v, char *err, size_t len)
{
	if (pb_want(f, WIRE_VARINT, msg, name, err, len) != 0)
		return -1;
	if (f->v > INT64_MAX)
		return pb_fail(f->at, err, len, "%s.%s is %" PRIu64 ", over "
		    "2^63 - 1", msg, name, f->v);
	*v = (int64_t)f->v;
	return 0;
}

int
onnx_clip(const char *s, int max)
{
	int n = 0;

	while (n < max && s[n] != '\0')
		n++;
	/* Back to the start of a character cut by max. */
	if (s[n] != '\0')
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	return n;
}

/* A string field, copied: UTF-8 with no control character, or for a
 * name (name set) only [A-Za-z0-9_.-]. */
static int
pb_string(const struct pb_field *f, const char *msg, const char *field,
    bool name, char **out, char *err, size_t len)
{
	const unsigned char *s = f->sub.p;
	uint32_t cp = 0;
	size_t i, k;
	bool ok;

	if (pb_want(f, WIRE_LEN, msg, field, err, len) != 0)
		return -1;
	for (i = 0; i < f->sub.n; i += k) {
		if (name) {
			k = 1;
			ok = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' &&
			    s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
			    s[i] == '_' || s[i] == '.' || s[i] == '-';
		} else {
			k = text_utf8_decode(s + i, f->sub.n - i, &cp);
			ok = k != 0 && cp != 0 && !text_cp_unsafe(cp);
		}
		if (!ok)
			return pb_fail(f->sub.base + i, err, len, "%s.%s is "
			    "not %s", msg, field, name ? "a name "
			    "([A-Za-z0-9_.-])" : "text (UTF-8, no control "
			    "characters)");
	}
	free(*out);
	*out = xmalloc(f->sub.n + 1);
	memcpy(*out, s, f->sub.n);
	(*out)[f->sub.n] = '\0';
	return 0;
}

/* A decimal int64 of an external_data entry ("offset", "length"). */
static int
pb_decimal(const struct pb_field *f, const char *key, int64_t *v, char *err,
    size_t len)
{
	char *text = NULL, *end;
	long long n;
	int rc = 0;

	if (pb_string(f, "external_data", key, false, &text, err, len) != 0)
		return -1;
	errno = 0;
	n = strtoll(text, &end, 10);
	if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0 ||
	    n < 0)
		rc = pb_fail(f->at, err, len, "external_data %s '%.*s' is "
		    "not a byte count", key, onnx_clip(text, 32), text);
	else
		*v = n;
	free(text);
	return rc;
}

static int
read_opset(struct pb *b, struct onnx_model *m, char *err, size_t len)
{
	struct onnx_opset *o;
	struct pb_field f;
	int rc;

	if (m->nopsets == ONNX_OPSETS_MAX)
		return pb_fail(b->key, err, len, "more than %d opset imports",
		    ONNX_OPSETS_MAX);
	if (m->nopsets == m->opsets_cap) {
		m->opsets_cap = m->opsets_cap == 0 ? 8 : 2 * m->opsets_cap;
		m->opsets = xreallocarray(m->opsets, m->opsets_cap,
		    sizeof *m->opsets);
	}
	o = &m->opsets[m->nopsets++];
	o->domain = xstrdup("");
	o->version = -1;
	while ((rc = pb_next(b, &f, err, len)) == 1) {
		if (f.num == 1 && pb_string(&f, "opset_import", "domain", true,
		    &o->domain, err, len) != 0)
			return -1;
		if (f.num == 2 && pb_int64(&f, "opset_import", "version",
		    &o->version, err, len) != 0)
			return -1;
	}
	if (rc == 0 && o->version < 0)
		return pb_fail(b->key, err, len, "an opset_import names no "
		    "version");
	return rc;
}

/* The slot of (op_type, domain) in m's table: the operator's, or the
 * empty one where it would go (FNV-1a, linear probing; the table is twice
 * ONNX_OPS_MAX, so it never fills). */
static size_t
op_slot(const struct onnx_model *m, const char *op_type, const char *domain)
{
	const struct onnx_op *o;
	uint64_t h = 14695981039346656037u;
	const char *c;
	size_t i;

	for (c = op_type; *c != '\0'; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211u;
	h = (h ^ 0xff) * 1099511628211u;	/* no name byte: a separator */
	for (c = domain; *c != '\0'; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211u;
	for (i = h % ONNX_OPS_SLOTS;; i = (i + 1) % ONNX_OPS_SLOTS) {
		if (m->op_slots[i] == 0)
			return i;
		o = &m->ops[m->op_slots[i] - 1];
		if (strcmp(o->op_type, op_type) == 0 &&
		    strcmp(o->domain, domain) == 0)
			return i;
	}
}

static int
read_node(struct pb *b, struct onnx_model *m, char *err, size_t len)
{
	char *op_type = NULL, *domain = xstrdup("");
	struct pb_field f;
	struct onnx_op *o;
	size_t i = 0, slot;
	int rc;

	while ((rc = pb_next(b, &f, err, len)) == 1)
		if ((f.num == 4 && pb_string(&f, "node", "op_type", true,
		    &op_type, err, len) != 0) || (f.num == 7 &&
		    pb_string(&f, "node", "domain", true, &domain, err,
		    len) != 0)) {
			rc = -1;
			break;
		}
	if (rc == 0 && (op_type == NULL || op_type[0] == '\0'))
		rc = pb_fail(b->key, err, len, "node %zu has no op_type",
		    m->nnodes);
	if (rc == 0 && strcmp(domain, "ai.onnx") == 0)
		domain[0] = '\0';
	if (rc == 0 && m->op_slots == NULL)
		m->op_slots = xcalloc(ONNX_OPS_SLOTS, sizeof *m->op_slots);
	if (rc == 0) {
		slot = op_slot(m, op_type, domain);
		i = m->op_slots[slot] != 0 ? m->op_slots[slot] - 1 : m->nops;
	}
	if (rc == 0 && i == m->nops) {
		if (m->nops == ONNX_OPS_MAX)
			rc = pb_fail(b->key, err, len, "more than %d "
			    "operator types", ONNX_OPS_MAX);
		else {
			if (m->nops == m->ops_cap) {
				m->ops_cap = m->ops_cap == 0 ? 32 :
				    2 * m->ops_cap;
				m->ops = xreallocarray(m->ops, m->ops_cap,
				    sizeof *m->ops);
			}
			m->op_slots[slot] = m->nops + 1;
			o = &m->ops[m->nops++];
			o->op_type = op_type;
			o->domain = domain;
			o->count = 0;
			o->first = m->nnodes;
			op_type = domain = NULL;
		}
	}
	if (rc == 0) {
		m->ops[i].count++;
		m->nnodes++;
	}
	free(op_type);
	free(domain);
	return rc;
}

/* One external_data entry of a tensor: location, offset, length. */
static int
read_entry(struct pb *b, struct onnx_extern *e, char *err, size_t len)
{
	struct pb_field f, value = { 0 };
	char *key = NULL;
	bool have_value = false;
	int rc;

	while ((rc = pb_next(b, &f, err, len)) == 1) {
		if (f.num == 1 && pb_string(&f, "external_data", "key", false,
		    &key, err, len) != 0)
			rc = -1;
		if (f.num == 2) {
			value = f;
			have_value = true;
		}
		if (rc == -1)
			break;
	}
	if (rc == 0 && key != NULL && have_value) {
		if (strcmp(key, "location") == 0)
			rc = pb_string(&value, "external_data", "location",
			    false, &e->location, err, len);
		else if (strcmp(key, "offset") == 0)
			rc = pb_decimal(&value, "offset", &e->offset, err, len);
		else if (strcmp(key, "length") == 0)
			rc = pb_decimal(&value, "length", &e->length, err, len);
	}
	free(key);
	return rc;
}

static int
read_initializer(struct pb *b, struct onnx_model *m, char *err, size_t len)
{
	struct onnx_extern e = { NULL, NULL, 0, -1 };
	bool external = false, entries = false;
	struct pb_field f;
	int rc;

	m->ninit++;
	while ((rc = pb_next(b, &f, err, len)) == 1) {
		if (f.num == 8)
			rc = pb_string(&f, "initializer", "name", false,
			    &e.tensor, err, len) == 0 ? 1 : -1;
		else if (f.num == 13) {
			entries = true;
			rc = pb_want(&f, WIRE_LEN, "initializer",
			    "external_data", err, len) == 0 &&
			    read_entry(&f.sub, &e, err, len) == 0 ? 1 : -1;
		} else if (f.num == 14) {
			rc = pb_want(&f, WIRE_VARINT, "initializer",
			    "data_location", err, len) == 0 ? 1 : -1;
			external = f.v == 1;
		}
		if (rc == -1)
			break;
	}
	if (rc == 0 && external && m->next == ONNX_EXTERN_MAX)
		rc = pb_fail(b->key, err, len, "more than %u initializers kept "
		    "as external data", ONNX_EXTERN_MAX);
	if (rc == 0 && external) {
		if (e.tensor == NULL)
			e.tensor = xstrdup("");
		if (m->next == m->ext_cap) {
			m->ext_cap = m->ext_cap == 0 ? 64 : 2 * m->ext_cap;
			m->ext = xreallocarray(m->ext, m->ext_cap,
			    sizeof *m->ext);
		}
		m->ext[m->next++] = e;
		return 0;
	}
	if (rc == 0 && entries)
		rc = pb_fail(b->key, err, len, "initializer '%.*s' has "
		    "external_data but its data_location is not EXTERNAL",
		    onnx_clip(e.tensor != NULL ? e.tensor : "", 64),
		    e.tensor != NULL ? e.tensor : "");
	free(e.tensor);
	free(e.location);
	return rc;
}

static int
read_graph(struct pb *b, struct onnx_model *m, char *err, size_t len)
{
	struct pb_field f;
	int rc;

	m->has_graph = true;
	while ((rc = pb_next(b, &f, err, len)) == 1) {
		if (f.num == 1)
			rc = pb_want(&f, WIRE_LEN, "graph", "node", err,
			    len) == 0 && read_node(&f.sub, m, err, len) == 0 ?
			    1 : -1;
		else if (f.num == 5)
			rc = pb_want(&f, WIRE_LEN, "graph", "initializer", err,
			    len) == 0 && read_initializer(&f.sub, m, err,
			    len) == 0 ? 1 : -1;
		if (rc == -1)
			return -1;
	}
	return rc;
}

int
onnx_parse(const unsigned char *p, size_t n, struct onnx_model *m, char *err,
    size_t len)
{
	struct pb b = { p, n, 0, 0, 0 };
	struct pb_field f;
	int rc;

	memset(m, 0, sizeof *m);
	if (n == 0)
		return pb_fail(0, err, len, "the file is empty");
	while ((rc = pb_next(&b, &f, err, len)) == 1) {
		if (f.num == 1) {
			if (pb_int64(&f, "model", "ir_version",
			    &m->ir_version, err, len) != 0)
				return -1;
		} else if (f.num == 7) {
			if (m->has_graph)
				return pb_fail(f.at, err, len, "a second graph");
			if (pb_want(&f, WIRE_LEN, "model", "graph", err,
			    len) != 0 || read_graph(&f.sub, m, err, len) != 0)
				return -1;
		} else if (f.num == 8) {
			if (pb_want(&f, WIRE_LEN, "model", "opset_import", err,
			    len) != 0 || read_opset(&f.sub, m, err, len) != 0)
				return -1;
		}
	}
	return rc;
}

int64_t
onnx_opset(const struct onnx_model *m, const char *domain)
{
	size_t i;

	if (strcmp(domain, "ai.onnx") == 0)
		domain = "";
	for (i = 0; i < m->nopsets; i++)
		if (strcmp(m->opsets[i].domain, domain) == 0 ||
		    (domain[0] == '\0' && strcmp(m->opsets[i].domain,
		    "ai.onnx") == 0))
			return m->opsets[i].version;
	return -1;
}

void
onnx_release(struct onnx_model *m)
{
	size_t i;

	for (i = 0; i < m->nopsets; i++)
		free(m->opsets[i].domain);
	for (i = 0; i < m->nops; i++) {
		free(m->ops[i].op_type);
		free(m->ops[i].domain);
	}
	for (i = 0; i < m->next; i++) {
		free(m->ext[i].tensor);
		free(m->ext[i].location);
	}
	free(m->opsets);
	free(m->ops);
	free(m->op_slots);
	free(m->ext);
	memset(m, 0, sizeof *m);
}
