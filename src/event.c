/* event.c: protocol event lines, a fast path and jansson (event.h). */
#include "calops.h"

#include <float.h>
#include <math.h>

#include <jansson.h>

#include "event.h"

/* The top-level fields we know; their bits make the fast path's seen mask. */
enum field {
	F_V,
	F_SEQ,
	F_TS,
	F_TYPE,
	F_CHIP,
	F_VALUES,
	F_LABELS,
	F_UNKNOWN,
};

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
};

/* A scalar as either parser hands it to the rules below. */
enum jkind {
	J_NULL,
	J_BOOL,
	J_INT,
	J_REAL,
	J_STR,
	J_OTHER,		/* an array or an object */
};

struct jv {
	enum jkind	 kind;
	bool		 b;
	int64_t		 i;
	double		 d;
	const char	*s;	/* J_STR: the first bytes, up to the reader's cap */
	size_t		 len;	/* J_STR: the whole decoded length */
};

/* ---- The rules, shared by both paths ---- */

static void
ev_begin(struct event *ev)
{
	ev->has = 0;
	ev->type = EVENT_OTHER;
	ev->type_name[0] = '\0';
	ev->seq = 0;
	ev->ts = 0;
	ev->chip = 0;
	ev->nvalues = ev->nlabels = 0;
	ev->err[0] = '\0';
}

/* Record the first error; parsing goes on (the fast path may still fall back). */
static void PRINTFLIKE(2, 3)
ev_fail(struct event *ev, const char *fmt, ...)
{
	va_list ap;

	if (ev->err[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(ev->err, sizeof ev->err, fmt, ap);
	va_end(ap);
}

static enum field
field_of(const char *key, size_t len)
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
static void
ev_field(struct event *ev, enum field f, const struct jv *v)
{
	switch (f) {
	case F_V:
		ev->has |= EVENT_HAS_V;
		if (v->kind != J_INT || v->i != 1)
			ev_fail(ev, "'v' is not 1 (protocol version 1)");
		break;
	case F_SEQ:
		ev->has |= EVENT_HAS_SEQ;
		if (v->kind != J_INT || v->i < 0)
			ev_fail(ev, "'seq' is not an integer >= 0");
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
			ev_fail(ev, "'ts' is not a number");
		break;
	case F_TYPE:
		if (v->kind != J_STR)
			ev_fail(ev, "'type' is not a string");
		else
			ev_set_type(ev, v->s, v->len);
		break;
	case F_CHIP:
		ev->has |= EVENT_HAS_CHIP;
		if (v->kind != J_INT || v->i < 0 || v->i > EVENT_CHIP_MAX)
			ev_fail(ev, "'chip' is not an integer from 0 to %d",
			    EVENT_CHIP_MAX);
		else
			ev->chip = (int)v->i;
		break;
	case F_VALUES:
	case F_LABELS:
		ev_fail(ev, "'%s' is not an object", field_names[f]);
		break;
	case F_UNKNOWN:
		break;
	}
}

static bool
ev_name_ok(struct event *ev, const char *what, const char *name, size_t len)
{
	if (len == 0) {
		ev_fail(ev, "empty %s name", what);
		return false;
	}
	if (len > EVENT_NAME_MAX) {
		ev_fail(ev, "%s name '%.20s...' longer than %d bytes", what,
		    name, EVENT_NAME_MAX);
		return false;
	}
	return true;
}

/* One member of `values`. */
static void
ev_value(struct event *ev, const char *name, size_t len, const struct jv *v)
{
	struct event_value *ev_v;
	double d;

	if (!ev_name_ok(ev, "value", name, len))
		return;
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
		ev_fail(ev, "value '%.*s' is not a number", (int)len, name);
		return;
	}
	if (ev->nvalues == EVENT_VALUES_MAX) {
		ev_fail(ev, "more than %d values", EVENT_VALUES_MAX);
		return;
	}
	ev_v = &ev->values[ev->nvalues++];
	memcpy(ev_v->name, name, len);
	ev_v->name[len] = '\0';
	ev_v->v = d;
}

/* One member of `labels`: strings are kept, anything else ignored. */
static void
ev_label(struct event *ev, const char *name, size_t len, const struct jv *v)
{
	struct event_label *l;

	if (v->kind != J_STR || !ev_name_ok(ev, "label", name, len))
		return;
	if (v->len > EVENT_LABEL_MAX) {
		ev_fail(ev, "label '%.*s' longer than %d bytes", (int)len, name,
		    EVENT_LABEL_MAX);
		return;
	}
	if (ev->nlabels == EVENT_LABELS_MAX) {
		ev_fail(ev, "more than %d labels", EVENT_LABELS_MAX);
		return;
	}
	l = &ev->labels[ev->nlabels++];
	memcpy(l->name, name, len);
	l->name[len] = '\0';
	memcpy(l->value, v->s, v->len);
	l->value[v->len] = '\0';
}

static int
ev_finish(struct event *ev)
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
			ev_fail(ev, "missing '%s'", required[i].name);
	if (ev->type == EVENT_METRIC && !(ev->has & EVENT_HAS_VALUES))
		ev_fail(ev, "a metric event without 'values'");
	return ev->err[0] != '\0' ? EVENT_ERROR : EVENT_OK;
}

static bool
ev_too_long(struct event *ev, size_t len)
{
	if (len <= EVENT_LINE_MAX)
		return false;
	ev_fail(ev, "line of %zu bytes, longer than %u", len, EVENT_LINE_MAX);
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

/* ---- The fast path ---- */

#define FB	EVENT_FALLBACK

struct fp {
	const unsigned char	*p, *end;
	struct event		*ev;
};

/* Decoded string bytes, kept up to a cap; len counts them all. */
struct sout {
	char		*dst;
	size_t		 cap, len;
};

static void
sout_add(struct sout *o, const void *b, size_t n)
{
	size_t k;

	if (o->dst != NULL && o->len < o->cap) {
		k = n < o->cap - o->len ? n : o->cap - o->len;
		memcpy(o->dst + o->len, b, k);
	}
	o->len += n;
}

static bool
is_ws(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool
is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static inline void
fp_ws(struct fp *f)
{
	while (f->p < f->end && is_ws(*f->p))
		f->p++;
}

/* Skip blanks, then take c if it is next. */
static bool
fp_eat(struct fp *f, unsigned char c)
{
	fp_ws(f);
	if (f->p < f->end && *f->p == c) {
		f->p++;
		return true;
	}
	return false;
}

/* The length of the UTF-8 sequence at p if jansson's utf.c takes it, else 0. */
static size_t
utf8_seq(const unsigned char *p, const unsigned char *end)
{
	uint32_t cp;
	size_t n, i;

	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		cp = p[0] & 0x07;
	} else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
	    (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000))
		return 0;
	return n;
}

static int32_t
hex4(const unsigned char *p, const unsigned char *end)
{
	int32_t v = 0;
	int i;

	if (end - p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		v <<= 4;
		if (is_digit(p[i]))
			v += p[i] - '0';
		else if (p[i] >= 'a' && p[i] <= 'f')
			v += p[i] - 'a' + 10;
		else if (p[i] >= 'A' && p[i] <= 'F')
			v += p[i] - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static void
put_utf8(struct sout *o, uint32_t cp)
{
	unsigned char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		b[0] = (unsigned char)(0xf0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		b[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	sout_add(o, b, n);
}

/*
 * The escape at *pp (its backslash); \u0000 and broken surrogates fall back
 * (jansson refuses them, with its own words).
 */
static int
fp_escape(const unsigned char **pp, const unsigned char *end, struct sout *o)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const unsigned char *p = *pp + 1;
	const char *c;
	int32_t cp, lo;

	if (p >= end)
		return FB;
	if (*p != 'u') {
		if (*p == '\0' || (c = strchr(from, *p)) == NULL)
			return FB;
		sout_add(o, &to[c - from], 1);
		*pp = p + 1;
		return 0;
	}
	if ((cp = hex4(p + 1, end)) <= 0 || (cp >= 0xdc00 && cp <= 0xdfff))
		return FB;
	p += 5;
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (end - p < 2 || p[0] != '\\' || p[1] != 'u' ||
		    (lo = hex4(p + 2, end)) < 0xdc00 || lo > 0xdfff)
			return FB;
		cp = ((cp - 0xd800) << 10) + (lo - 0xdc00) + 0x10000;
		p += 6;
	}
	put_utf8(o, (uint32_t)cp);
	*pp = p;
	return 0;
}

/*
 * The string at f->p (its opening quote), decoded into dst (cap bytes kept
 * and NUL-terminated; dst may be NULL to check it only); *len is its whole
 * decoded length.
 */
static int
fp_string(struct fp *f, char *dst, size_t cap, size_t *len)
{
	const unsigned char *p = f->p + 1, *q, *end = f->end;
	struct sout o = { dst, cap, 0 };
	size_t n;

	for (;;) {
		for (q = p; q < end && *q >= 0x20 && *q < 0x80 && *q != '"' &&
		    *q != '\\'; q++)
			;
		if (q > p)
			sout_add(&o, p, (size_t)(q - p));
		p = q;
		if (p >= end || *p < 0x20)
			return FB;
		if (*p == '"')
			break;
		if (*p == '\\') {
			if (fp_escape(&p, end, &o) != 0)
				return FB;
			continue;
		}
		if ((n = utf8_seq(p, end)) == 0)
			return FB;
		sout_add(&o, p, n);
		p += n;
	}
	if (dst != NULL)
		dst[o.len < cap ? o.len : cap] = '\0';
	*len = o.len;
	f->p = p + 1;
	return 0;
}

#if FLT_EVAL_METHOD == 0
#define CLINGER 1
#else
#define CLINGER 0
#endif

static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* strtoll or strtod on the number's own text, as jansson does. */
static int
fp_number_slow(const unsigned char *s, size_t len, bool real, struct jv *v)
{
	char buf[64], *end;

	if (len >= sizeof buf)
		return FB;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	if (!real) {
		v->i = strtoll(buf, &end, 10);
		if (errno == ERANGE || end != buf + len)
			return FB;	/* jansson: "too big integer" */
		v->d = (double)v->i;
		return 0;
	}
	v->d = strtod(buf, &end);
	/* A locale whose decimal point is not '.' stops strtod short. */
	if (end != buf + len || ((v->d == HUGE_VAL || v->d == -HUGE_VAL) &&
	    errno == ERANGE))
		return FB;
	return 0;
}

/*
 * A JSON number: an integer when it has no '.', 'e' or 'E' (jansson's
 * rule).  Up to 18 digits of integer, and decimals of at most 2^53 with a
 * power of ten up to 22, are computed exactly here (Clinger's fast path:
 * both operands exact, one rounding, so the same double strtod gives);
 * anything else goes through the C library on the same text.
 */
static int
fp_number(struct fp *f, struct jv *v)
{
	const unsigned char *s = f->p, *p = s, *end = f->end;
	uint64_t w = 0;
	int sig = 0, frac = 0, esign = 1;
	long e = 0, e10;
	bool neg = false, real = false, many = false;

	if (*p == '-') {
		neg = true;
		p++;
	}
	if (p >= end || !is_digit(*p))
		return FB;
	if (*p == '0')
		p++;
	else
		for (; p < end && is_digit(*p); p++) {
			if (sig < 19) {
				w = w * 10 + (uint64_t)(*p - '0');
				sig += w != 0;
			} else
				many = true;
		}
	if (p < end && *p == '.') {
		real = true;
		if (++p >= end || !is_digit(*p))
			return FB;
		for (; p < end && is_digit(*p); p++) {
			if (sig < 19) {
				w = w * 10 + (uint64_t)(*p - '0');
				sig += w != 0;
				frac++;
			} else
				many = true;
		}
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		real = true;
		if (++p < end && (*p == '+' || *p == '-'))
			esign = *p++ == '-' ? -1 : 1;
		if (p >= end || !is_digit(*p))
			return FB;
		for (; p < end && is_digit(*p); p++)
			if (e < 100000)
				e = e * 10 + (*p - '0');
	}
	f->p = p;
	v->kind = real ? J_REAL : J_INT;
	if (!real && !many && sig <= 18) {
		v->i = neg ? -(int64_t)w : (int64_t)w;
		v->d = (double)v->i;
		return 0;
	}
	e10 = esign * e - frac;
	if (CLINGER && real && !many && w <= (UINT64_C(1) << 53) &&
	    e10 >= -22 && e10 <= 22) {
		v->d = (double)w;
		v->d = e10 >= 0 ? v->d * pow10_exact[e10] :
		    v->d / pow10_exact[-e10];
		if (neg)
			v->d = -v->d;
		return 0;
	}
	return fp_number_slow(s, (size_t)(p - s), real, v);
}

static int
fp_literal(struct fp *f, const char *word, enum jkind kind, bool b,
    struct jv *v)
{
	size_t n = strlen(word);

	if ((size_t)(f->end - f->p) < n || memcmp(f->p, word, n) != 0)
		return FB;
	f->p += n;
	v->kind = kind;
	v->b = b;
	return 0;
}

/* A scalar (strings decoded into dst as fp_string does); objects fall back. */
static int
fp_value(struct fp *f, struct jv *v, char *dst, size_t cap)
{
	fp_ws(f);
	if (f->p >= f->end)
		return FB;
	switch (*f->p) {
	case '"':
		v->kind = J_STR;
		v->s = dst;
		return fp_string(f, dst, cap, &v->len);
	case 't':
		return fp_literal(f, "true", J_BOOL, true, v);
	case 'f':
		return fp_literal(f, "false", J_BOOL, false, v);
	case 'n':
		return fp_literal(f, "null", J_NULL, false, v);
	default:
		if (*f->p == '-' || is_digit(*f->p))
			return fp_number(f, v);
		return FB;
	}
}

/* After a member: ',' (1, another follows), '}' (0) or anything else. */
static int
fp_next(struct fp *f)
{
	if (fp_eat(f, ','))
		return 1;
	if (f->p < f->end && *f->p == '}') {
		f->p++;
		return 0;
	}
	return -1;
}

static int
fp_key(struct fp *f, char *key, size_t *len)
{
	fp_ws(f);
	if (f->p >= f->end || *f->p != '"' ||
	    fp_string(f, key, EVENT_NAME_MAX, len) != 0 || !fp_eat(f, ':'))
		return FB;
	return 0;
}

static bool
fp_dup_value(const struct event *ev, const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < ev->nvalues; i++)
		if (memcmp(ev->values[i].name, key, len) == 0 &&
		    ev->values[i].name[len] == '\0')
			return true;
	return false;
}

static bool
fp_dup_label(const struct event *ev, const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < ev->nlabels; i++)
		if (memcmp(ev->labels[i].name, key, len) == 0 &&
		    ev->labels[i].name[len] == '\0')
			return true;
	return false;
}

/* One member of values or labels, f->p after its key's colon. */
static int
fp_member(struct fp *f, enum field fld, const char *key, size_t klen)
{
	struct event *ev = f->ev;
	char lval[EVENT_LABEL_MAX + 1];
	struct jv v;

	if (fld == F_VALUES) {
		if (fp_value(f, &v, NULL, 0) != 0 ||
		    (v.kind != J_INT && v.kind != J_REAL && v.kind != J_BOOL) ||
		    ev->nvalues == EVENT_VALUES_MAX ||
		    (klen <= EVENT_NAME_MAX && fp_dup_value(ev, key, klen)))
			return FB;
		ev_value(ev, key, klen, &v);
		return 0;
	}
	fp_ws(f);
	if (f->p >= f->end || *f->p != '"' ||
	    fp_value(f, &v, lval, EVENT_LABEL_MAX) != 0 ||
	    v.len > EVENT_LABEL_MAX || ev->nlabels == EVENT_LABELS_MAX ||
	    (klen <= EVENT_NAME_MAX && fp_dup_label(ev, key, klen)))
		return FB;
	ev_label(ev, key, klen, &v);
	return 0;
}

/* The flat object of values or labels, f->p at its '{'. */
static int
fp_members(struct fp *f, enum field fld)
{
	char key[EVENT_NAME_MAX + 1];
	size_t klen;
	int more;

	f->ev->has |= fld == F_VALUES ? EVENT_HAS_VALUES : EVENT_HAS_LABELS;
	f->p++;
	fp_ws(f);
	if (f->p < f->end && *f->p == '}') {
		f->p++;
		return 0;
	}
	do {
		if (fp_key(f, key, &klen) != 0 ||
		    fp_member(f, fld, key, klen) != 0)
			return FB;
	} while ((more = fp_next(f)) == 1);
	return more == 0 ? 0 : FB;
}

/* One top-level member; *seen holds the known fields met so far. */
static int
fp_top_member(struct fp *f, unsigned *seen)
{
	char key[EVENT_NAME_MAX + 1], sval[EVENT_TYPE_MAX + 1];
	enum field fld;
	size_t klen;
	struct jv v;

	if (fp_key(f, key, &klen) != 0)
		return FB;
	fld = klen <= EVENT_NAME_MAX ? field_of(key, klen) : F_UNKNOWN;
	if (fld != F_UNKNOWN) {
		if (*seen & 1u << fld)
			return FB;	/* jansson keeps the last one */
		*seen |= 1u << fld;
	}
	fp_ws(f);
	if (f->p < f->end && *f->p == '{' &&
	    (fld == F_VALUES || fld == F_LABELS))
		return fp_members(f, fld);
	if (fp_value(f, &v, fld == F_TYPE ? sval : NULL,
	    fld == F_TYPE ? EVENT_TYPE_MAX : 0) != 0)
		return FB;
	ev_field(f->ev, fld, &v);
	return 0;
}

int
event_parse_fast(const char *line, size_t len, struct event *ev)
{
	struct fp f;
	unsigned seen = 0;
	int more;

	ev_begin(ev);
	if (ev_too_long(ev, len))
		return EVENT_ERROR;
	f.p = (const unsigned char *)line;
	f.end = f.p + len;
	f.ev = ev;
	if (!fp_eat(&f, '{'))
		return FB;
	fp_ws(&f);
	if (f.p < f.end && *f.p == '}')
		f.p++;
	else {
		do {
			if (fp_top_member(&f, &seen) != 0)
				return FB;
		} while ((more = fp_next(&f)) == 1);
		if (more != 0)
			return FB;
	}
	fp_ws(&f);
	if (f.p != f.end)
		return FB;
	return ev_finish(ev);
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
			ev_value(ev, key, strlen(key), &v);
		else
			ev_label(ev, key, strlen(key), &v);
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

	ev_begin(ev);
	if (ev_too_long(ev, len))
		return EVENT_ERROR;
	/* jansson skips a NUL that follows a number or a word. */
	if (memchr(line, '\0', len) != NULL) {
		ev_fail(ev, "NUL byte in line");
		return EVENT_ERROR;
	}
	if ((root = json_loadb(line, len, 0, &jerr)) == NULL) {
		ev_fail(ev, "invalid JSON at column %d: %s", jerr.column,
		    jerr.text);
		return EVENT_ERROR;
	}
	if (!json_is_object(root)) {
		json_decref(root);
		ev_fail(ev, "not a JSON object");
		return EVENT_ERROR;
	}
	json_object_foreach(root, key, val) {
		fld = field_of(key, strlen(key));
		if ((fld == F_VALUES || fld == F_LABELS) && json_is_object(val))
			j_members(ev, fld, val);
		else {
			jv_of(val, &v);
			ev_field(ev, fld, &v);
		}
	}
	json_decref(root);
	return ev_finish(ev);
}

int
event_parse(const char *line, size_t len, struct event *ev)
{
	int rc = event_parse_fast(line, len, ev);

	return rc == EVENT_FALLBACK ? event_parse_jansson(line, len, ev) : rc;
}
