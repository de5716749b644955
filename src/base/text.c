/* text.c: the one sanitiser for untrusted text (see text.h). */
#include "calops.h"

#include <ctype.h>

#include <jansson.h>

#include <langinfo.h>
#include <unistd.h>
#include <wchar.h>

#include "base/buf.h"
#include "base/fileio.h"
#include "base/text.h"

size_t
text_utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	uint32_t c;
	size_t n, i;

	if (len == 0)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07;
	} else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

size_t
text_bom_len(const char *s, size_t len)
{
	return len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
}

bool
text_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	size_t i = 0, n;

	while (i < len) {
		if (p[i] == 0)
			return false;
		if ((n = text_utf8_decode(p + i, len - i, &cp)) == 0)
			return false;
		i += n;
	}
	return true;
}

static bool
is_bidi_control(uint32_t cp)
{
	return (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f ||
	    cp == 0x061c;
}

/* Characters that print as nothing or move what follows: shown as <U+XXXX>
 * by the sanitiser, written as \uXXXX in the JSON we write. */
static bool
is_hidden(uint32_t cp)
{
	return (cp >= 0x80 && cp < 0xa0) || is_bidi_control(cp) ||
	    cp == 0xfeff || cp == 0x2028 || cp == 0x2029;
}

bool
text_cp_unsafe(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || is_hidden(cp);
}

bool
text_plain_line(const char *s, char *why, size_t whylen)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0, n;
	uint32_t cp;

	while (i < len) {
		if ((n = text_utf8_decode(p + i, len - i, &cp)) == 0) {
			errbuf_set(why, whylen, "a byte that is not UTF-8 at "
			    "byte %zu", i + 1);
			return false;
		}
		if (text_cp_unsafe(cp)) {
			errbuf_set(why, whylen, "U+%04X, %s, at byte %zu",
			    (unsigned)cp, cp < 0x20 || (cp >= 0x7f &&
			    cp <= 0x9f) ? "a control character" :
			    is_bidi_control(cp) ? "a bidirectional control" :
			    "an invisible format character", i + 1);
			return false;
		}
		i += n;
	}
	return true;
}

/*
 * Eight bytes at a time (the SWAR tests of Hacker's Delight, 6-1): a word
 * in which some byte is zero, is below n (n <= 128), or has its top bit.
 */
#define SWAR_ONES	0x0101010101010101ull
#define SWAR_HIGH	0x8080808080808080ull
#define SWAR_ZERO(x)	(((x) - SWAR_ONES) & ~(x) & SWAR_HIGH)
#define SWAR_BELOW(x, n) (((x) - SWAR_ONES * (n)) & ~(x) & SWAR_HIGH)

static uint64_t
swar_load(const unsigned char *p)
{
	uint64_t x;

	memcpy(&x, p, sizeof x);
	return x;
}

/* How many bytes from p are ASCII other than DEL, a word at a time (then
 * byte by byte). */
static size_t
ascii_run(const unsigned char *p, size_t n)
{
	size_t i = 0;
	uint64_t x;

	for (; i + 8 <= n; i += 8) {
		x = swar_load(p + i);
		if ((x & SWAR_HIGH) || SWAR_ZERO(x ^ (SWAR_ONES * 0x7f)))
			break;
	}
	while (i < n && p[i] < 0x7f)
		i++;
	return i;
}

/* How many bytes from p need no second look inside a JSON string: not a
 * quote, a backslash, a control or a byte of a UTF-8 sequence. */
static size_t
string_run(const unsigned char *p, size_t n)
{
	size_t i = 0;
	uint64_t x;

	for (; i + 8 <= n; i += 8) {
		x = swar_load(p + i);
		if ((x & SWAR_HIGH) || SWAR_BELOW(x, 0x20) ||
		    SWAR_ZERO(x ^ (SWAR_ONES * '"')) ||
		    SWAR_ZERO(x ^ (SWAR_ONES * '\\')))
			break;
	}
	while (i < n && p[i] >= 0x20 && p[i] < 0x80 && p[i] != '"' &&
	    p[i] != '\\')
		i++;
	return i;
}

char *
text_json_harden(const char *json, size_t len, size_t *outlen)
{
	const unsigned char *p = (const unsigned char *)json;
	struct buf b = BUF_INIT;
	size_t i = 0, n, from = 0;
	char esc[8];
	uint32_t cp;

	while (i < len) {
		if (p[i] < 0x7f) {
			i += ascii_run(p + i, len - i);
			continue;
		}
		if ((n = text_utf8_decode(p + i, len - i, &cp)) == 0)
			n = 1;
		else if (cp == 0x7f || is_hidden(cp)) {
			buf_add(&b, json + from, i - from);
			snprintf(esc, sizeof esc, "\\u%04x", (unsigned)cp);
			buf_add(&b, esc, 6);
			from = i + n;
		}
		i += n;
	}
	if (from == 0)
		return NULL;
	buf_add(&b, json + from, len - from);
	return buf_detach(&b, outlen);
}

int
text_json_print(FILE *f, const json_t *o, size_t flags)
{
	char *s = json_dumps(o, flags), *hard;
	size_t len;

	if (s == NULL)
		return -1;
	len = strlen(s);
	if ((hard = text_json_harden(s, len, &len)) != NULL) {
		free(s);
		s = hard;
	}
	fwrite(s, 1, len, f);
	fputc('\n', f);
	free(s);
	return 0;
}

/* How a character that must not reach a terminal raw is shown, into tmp:
 * ^X for C0 controls and DEL, <U+XXXX> for the hidden ones; its length, or
 * 0 when cp may pass as it is. */
static int
control_form(uint32_t cp, char *tmp, size_t len)
{
	if (cp < 0x20 || cp == 0x7f)
		return snprintf(tmp, len, "^%c", cp == 0x7f ? '?' :
		    (char)(cp + '@'));
	if (is_hidden(cp))
		return snprintf(tmp, len, "<U+%04X>", (unsigned)cp);
	return 0;
}

static bool ascii_ellipsis;

void
text_ascii_ellipsis(bool on)
{
	ascii_ellipsis = on;
}

static bool
locale_is_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs != NULL && strcmp(cs, "UTF-8") == 0;
}

/* Append one visible piece of `cols` columns unless it would pass the limit. */
static bool
emit(struct buf *out, const char *piece, size_t n, size_t cols, size_t *width,
    const size_t *limit)
{
	if (limit != NULL && *width + cols > *limit)
		return false;
	buf_add(out, piece, n);
	*width += cols;
	return true;
}

/*
 * Sanitise len bytes into out, stopping before the first piece that would
 * take the width past *limit (no limit when NULL).  Returns false when it
 * stopped early.
 */
static bool
sanitize_into(struct buf *out, const unsigned char *p, size_t len,
    const size_t *limit, bool utf8)
{
	size_t i = 0, n, width = 0;
	char tmp[16];
	uint32_t cp;
	bool fits = true;
	int k;

	while (i < len && fits) {
		n = text_utf8_decode(p + i, len - i, &cp);
		if (n == 0) {
			snprintf(tmp, sizeof tmp, "\\x%02x", p[i]);
			fits = emit(out, tmp, 4, 4, &width, limit);
			i++;
			continue;
		}
		if (cp == '\t') {
			size_t sp = 8 - width % 8;

			/* Blanks can be cut: fill up to the limit. */
			if (!(fits = emit(out, "        ", sp, sp, &width, limit)))
				emit(out, "        ", *limit - width,
				    *limit - width, &width, limit);
		} else if ((k = control_form(cp, tmp, sizeof tmp)) > 0) {
			fits = emit(out, tmp, (size_t)k, (size_t)k, &width,
			    limit);
		} else if (cp < 0x80) {
			fits = emit(out, (const char *)p + i, 1, 1, &width,
			    limit);
		} else if (!utf8) {
			fits = emit(out, "?", 1, 1, &width, limit);
		} else {
			int w = wcwidth((wchar_t)cp);

			if (w < 0) {
				k = snprintf(tmp, sizeof tmp, "<U+%04X>",
				    (unsigned)cp);
				fits = emit(out, tmp, (size_t)k, (size_t)k,
				    &width, limit);
			} else
				fits = emit(out, (const char *)p + i, n,
				    (size_t)w, &width, limit);
		}
		if (fits)
			i += n;
	}
	return fits;
}

char *
text_sanitize(const char *s, size_t len, size_t max_width)
{
	const unsigned char *p = (const unsigned char *)s;
	bool utf8 = locale_is_utf8();
	struct buf out = BUF_INIT;
	size_t limit;

	/*
	 * When the whole text does not fit, start again with one column less
	 * and end with the ellipsis in that column.
	 */
	if (!sanitize_into(&out, p, len, max_width != 0 ? &max_width : NULL,
	    utf8)) {
		limit = max_width - 1;
		buf_reset(&out);
		sanitize_into(&out, p, len, &limit, utf8);
		buf_adds(&out, utf8 && !ascii_ellipsis ? "\xe2\x80\xa6" : "~");
	}
	return buf_detach(&out, NULL);
}

char *
text_sanitize_str(const char *s)
{
	return text_sanitize(s, strlen(s), 0);
}

char *
text_sanitize_doc(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	struct buf out = BUF_INIT;
	char tmp[16];
	uint32_t cp;
	size_t i, n;
	int k;

	buf_add(&out, "", 0);
	for (i = 0; i < len; i += n) {
		if ((n = text_utf8_decode(p + i, len - i, &cp)) == 0) {
			n = 1;
			k = snprintf(tmp, sizeof tmp, "\\x%02x", p[i]);
			buf_add(&out, tmp, (size_t)k);
		} else if (cp == '\t')
			buf_add(&out, " ", 1);
		else if ((k = control_form(cp, tmp, sizeof tmp)) > 0)
			buf_add(&out, tmp, (size_t)k);
		else
			buf_add(&out, p + i, n);
	}
	return buf_detach(&out, NULL);
}

/*
 * One write to stderr made safe for a terminal that shows it as it comes:
 * tabs pass, and valid UTF-8 whatever the locale (a terminal that cannot
 * draw it is no worse for it); controls, the hidden characters and bytes
 * that are not UTF-8 become what text_sanitize() shows for them.  A write
 * is one message, whose line feed ends it: one inside came from what it
 * quotes and is shown as ^J, lest a value forge a line of its own.  Only
 * the usage texts hold more than one line by design, and each begins
 * "usage: ".
 */
static void
visible_into(struct buf *out, const unsigned char *p, size_t len)
{
	bool lines = len >= 7 && memcmp(p, "usage: ", 7) == 0;
	char tmp[16];
	uint32_t cp;
	size_t i, n;
	int k;

	for (i = 0; i < len; i += n) {
		if ((n = text_utf8_decode(p + i, len - i, &cp)) == 0) {
			n = 1;
			k = snprintf(tmp, sizeof tmp, "\\x%02x", p[i]);
			buf_add(out, tmp, (size_t)k);
		} else if (cp == '\n' && (lines || i == len - 1))
			buf_add(out, "\n", 1);
		else if (cp != '\t' &&
		    (k = control_form(cp, tmp, sizeof tmp)) > 0)
			buf_add(out, tmp, (size_t)k);
		else
			buf_add(out, p + i, n);
	}
}

/* stderr's writes, made visible, to whatever fd 2 is now. */
static ssize_t
guard_write(void *cookie, const char *data, size_t len)
{
	struct buf b = BUF_INIT;
	int rc;

	(void)cookie;
	buf_add(&b, "", 0);
	visible_into(&b, (const unsigned char *)data, len);
	rc = fileio_write_full(STDERR_FILENO, b.data, b.len);
	buf_release(&b);
	return rc == 0 ? (ssize_t)len : -1;
}

int
text_guard_stderr(void)
{
	static const cookie_io_functions_t io = { .write = guard_write };
	FILE *f;

	if ((f = fopencookie(NULL, "w", io)) == NULL)
		return -1;
	/* Unbuffered, as stderr is: a message is out before an _exit(). */
	setvbuf(f, NULL, _IONBF, 0);
	stderr = f;
	return 0;
}

char *
text_utf8_escape(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	struct buf b = BUF_INIT;
	size_t i = 0, run, n;
	uint32_t cp;
	char hex[8];

	buf_add(&b, "", 0);
	while (i < len) {
		for (run = i; run < len && p[run] != 0; run += n)
			if ((n = text_utf8_decode(p + run, len - run, &cp)) ==
			    0)
				break;
		buf_add(&b, s + i, run - i);
		if ((i = run) < len) {
			snprintf(hex, sizeof hex, "\\x%02x", p[i]);
			buf_add(&b, hex, 4);
			i++;
		}
	}
	return buf_detach(&b, NULL);
}

/*
 * A JSON string that stays valid JSON whatever s holds.  Only the bytes
 * jansson refuses are rewritten, the same way in every locale: a control
 * or a bidirectional override is JSON's to escape (and text_json_print's
 * to harden), not ours to change into something else.
 */
json_t *
text_json(const char *s)
{
	json_t *v;
	char *clean;

	if (s == NULL)
		return json_null();
	if ((v = json_string(s)) != NULL)
		return v;
	clean = text_utf8_escape(s, strlen(s));
	v = json_string(clean);
	free(clean);
	return v;
}

#define PLAIN_DEPTH	64

/* Past a plain JSON string at p (after its opening quote); NULL when it is
 * not one. */
static const unsigned char *
plain_string(const unsigned char *p, const unsigned char *end)
{
	uint32_t cp;
	size_t n;
	int i, v;

	while (p < end) {
		p += string_run(p, (size_t)(end - p));
		if (p == end)
			break;
		if (*p == '"')
			return p + 1;
		if (*p < 0x20)
			return NULL;
		if (*p >= 0x80) {
			if ((n = text_utf8_decode(p, (size_t)(end - p),
			    &cp)) == 0)
				return NULL;
			p += n;
			continue;
		}
		if (*p++ != '\\')
			continue;
		if (p == end)
			return NULL;
		if (strchr("\"\\/bfnrt", *p) != NULL && *p != '\0') {
			p++;
			continue;
		}
		if (*p++ != 'u' || end - p < 4)
			return NULL;
		for (v = 0, i = 0; i < 4; i++, p++) {
			if (!isxdigit(*p))
				return NULL;
			v = v * 16 + (isdigit(*p) ? *p - '0' :
			    (tolower(*p) - 'a' + 10));
		}
		if (v == 0 || (v >= 0xd800 && v <= 0xdfff))
			return NULL;
	}
	return NULL;
}

/* Past a plain JSON number at p; NULL when it is not one: more than 18
 * digits before the point may not fit jansson's integer (long long) nor,
 * with hundreds, a double; an exponent may overflow one. */
static const unsigned char *
plain_number(const unsigned char *p, const unsigned char *end)
{
	int digits = 0;

	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0') {
		p++;
		digits++;
	} else if (p < end && *p >= '1' && *p <= '9')
		for (; p < end && isdigit(*p); p++)
			digits++;
	else
		return NULL;
	if (digits > 18)
		return NULL;
	if (p < end && *p == '.') {
		if (++p == end || !isdigit(*p))
			return NULL;
		while (p < end && isdigit(*p))
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E'))
		return NULL;
	return p;
}

bool
text_json_plain(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	char stack[PLAIN_DEPTH];
	int depth = 0;
	enum { VALUE, VALUE_OR_END, KEY, KEY_OR_END, COLON, NEXT } want;

	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' ||
	    *p == '\r'))
		p++;
	if (p == end || (*p != '{' && *p != '['))
		return false;
	want = VALUE;
	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' ||
		    *p == '\r'))
			p++;
		if (p == end)
			return depth == 0 && want == NEXT;
		if (depth == 0 && want == NEXT)
			return false;	/* something after the value */
		switch (want) {
		case KEY_OR_END:
		case VALUE_OR_END:
			if (*p == (want == KEY_OR_END ? '}' : ']')) {
				p++;
				depth--;
				want = NEXT;
				continue;
			}
			if (want == VALUE_OR_END)
				break;		/* to VALUE */
			/* FALLTHROUGH */
		case KEY:
			if (*p != '"' || (p = plain_string(p + 1, end)) ==
			    NULL)
				return false;
			want = COLON;
			continue;
		case COLON:
			if (*p++ != ':')
				return false;
			want = VALUE;
			continue;
		case NEXT:
			if (*p == ',') {
				p++;
				want = stack[depth - 1] == '{' ? KEY : VALUE;
			} else if (*p == (stack[depth - 1] == '{' ? '}' :
			    ']')) {
				p++;
				depth--;
			} else
				return false;
			continue;
		case VALUE:
			break;
		}
		/* A value. */
		if (*p == '{' || *p == '[') {
			if (depth == PLAIN_DEPTH)
				return false;
			stack[depth++] = (char)*p;
			want = *p++ == '{' ? KEY_OR_END : VALUE_OR_END;
			continue;
		}
		if (*p == '"')
			p = plain_string(p + 1, end);
		else if (*p == '-' || isdigit(*p))
			p = plain_number(p, end);
		else if ((size_t)(end - p) >= 4 && (memcmp(p, "true", 4) == 0 ||
		    memcmp(p, "null", 4) == 0))
			p += 4;
		else if ((size_t)(end - p) >= 5 && memcmp(p, "false", 5) == 0)
			p += 5;
		else
			return false;
		if (p == NULL)
			return false;
		want = NEXT;
	}
}

size_t
text_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, row[64], prev, t;

	if (la >= nitems(row) || lb >= nitems(row))
		return 9;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			t = row[j];
			row[j] = a[i - 1] == b[j - 1] ? prev : 1 + (prev <
			    row[j] ? (prev < row[j - 1] ? prev : row[j - 1]) :
			    (row[j] < row[j - 1] ? row[j] : row[j - 1]));
			prev = t;
		}
	}
	return row[lb] < 9 ? row[lb] : 9;
}
