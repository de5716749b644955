/* eventfast.c: the metric event fast path, a small strict parser that
 * answers as jansson would or falls back to it (event.h). */
#include "calops.h"

#include <float.h>
#include <math.h>

#include "proto/event.h"
#include "proto/event_int.h"
#include "proto/eventfast.h"

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

/* A number's decimal digits, as many as are kept exactly. */
struct digits {
	uint64_t	 w;	/* the first 19 significant digits */
	int		 sig;	/* how many of them */
	int		 frac;	/* of those, how many after the point */
	bool		 many;	/* more digits than w holds */
};

static const unsigned char *
fp_digits(const unsigned char *p, const unsigned char *end, struct digits *d,
    bool frac)
{
	for (; p < end && is_digit(*p); p++) {
		if (d->sig < 19) {
			d->w = d->w * 10 + (uint64_t)(*p - '0');
			d->sig += d->w != 0;
			d->frac += frac;
		} else
			d->many = true;
	}
	return p;
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
	struct digits d = { 0, 0, 0, false };
	bool neg = false, real = false;
	long e = 0, e10, esign = 1;

	if (*p == '-') {
		neg = true;
		p++;
	}
	if (p >= end || !is_digit(*p))
		return FB;
	p = *p == '0' ? p + 1 : fp_digits(p, end, &d, false);
	if (p < end && *p == '.') {
		real = true;
		if (++p >= end || !is_digit(*p))
			return FB;
		p = fp_digits(p, end, &d, true);
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
	if (!real && !d.many && d.sig <= 18) {
		v->i = neg ? -(int64_t)d.w : (int64_t)d.w;
		v->d = (double)v->i;
		return 0;
	}
	e10 = esign * e - d.frac;
	if (CLINGER && real && !d.many && d.w <= (UINT64_C(1) << 53) &&
	    e10 >= -22 && e10 <= 22) {
		v->d = e10 >= 0 ? (double)d.w * pow10_exact[e10] :
		    (double)d.w / pow10_exact[-e10];
		v->d = neg ? -v->d : v->d;
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

/*
 * One member of values or labels, f->p after its key's colon.  One that
 * would not be kept (a name of 0 or more than EVENT_NAME_MAX bytes, past
 * the count, a long label) falls back: the fast path does not know a
 * duplicate among those it does not keep, and a soak's lines have none.
 */
static int
fp_member(struct fp *f, enum field fld, const char *key, size_t klen)
{
	struct event *ev = f->ev;
	char lval[EVENT_LABEL_MAX + 1];
	struct jv v;

	if (klen == 0 || klen > EVENT_NAME_MAX)
		return FB;
	if (fld == F_VALUES) {
		if (fp_value(f, &v, NULL, 0) != 0 ||
		    (v.kind != J_INT && v.kind != J_REAL && v.kind != J_BOOL) ||
		    ev->nvalues == EVENT_VALUES_MAX ||
		    fp_dup_value(ev, key, klen))
			return FB;
		event_build_value(ev, key, klen, &v);
		return 0;
	}
	fp_ws(f);
	if (f->p >= f->end || *f->p != '"' ||
	    fp_value(f, &v, lval, EVENT_LABEL_MAX) != 0 ||
	    v.len > EVENT_LABEL_MAX || ev->nlabels == EVENT_LABELS_MAX ||
	    fp_dup_label(ev, key, klen))
		return FB;
	event_build_label(ev, key, klen, &v);
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
	fld = klen <= EVENT_NAME_MAX ? event_field_of(key, klen) : F_UNKNOWN;
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
	event_build_field(f->ev, fld, &v);
	return 0;
}

int
eventfast_parse(const char *line, size_t len, struct event *ev)
{
	struct fp f;
	unsigned seen = 0;
	int more;

	event_build_begin(ev);
	if (event_build_too_long(ev, len))
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
	return event_build_finish(ev);
}
