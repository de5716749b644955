/* jsonptr.c: a JSON pointer to a line of the text (see jsonptr.h). */
#include "calops.h"

#include "base/jsonptr.h"

#define JSONPTR_DEPTH	256	/* deeper than that is not looked into */
#define KEY_MAX		1024	/* a longer member name matches nothing */

struct scan {
	const char	*p, *end;
	long		 line;
};

static void
blanks(struct scan *s)
{
	for (; s->p < s->end && (*s->p == ' ' || *s->p == '\t' ||
	    *s->p == '\n' || *s->p == '\r'); s->p++)
		s->line += *s->p == '\n';
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* cp (below 0x10000) as UTF-8 at out[*n] (a surrogate half as it is: such
 * a name matches no pointer); *n past max when it does not fit. */
static void
put_utf8(char *out, size_t max, size_t *n, unsigned cp)
{
	unsigned char b[3];
	size_t k = 0, i;

	if (cp < 0x800) {
		b[k++] = (unsigned char)(0xc0 | cp >> 6);
	} else {
		b[k++] = (unsigned char)(0xe0 | cp >> 12);
		b[k++] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
	}
	b[k++] = (unsigned char)(0x80 | (cp & 0x3f));
	if (out == NULL || *n + k > max) {
		*n = max + 1;
		return;
	}
	for (i = 0; i < k; i++)
		out[(*n)++] = (char)b[i];
}

/*
 * Past the string at s->p (its opening quote), its text decoded into out
 * (at most max bytes; *outlen is SIZE_MAX when it did not fit), when out is
 * not NULL.  false when it does not end.
 */
static bool
string(struct scan *s, char *out, size_t max, size_t *outlen)
{
	size_t n = 0;
	unsigned cp;
	char c;
	int i, h;

	for (s->p++; s->p < s->end; ) {
		c = *s->p++;
		if (c == '"') {
			if (outlen != NULL)
				*outlen = n <= max ? n : SIZE_MAX;
			return true;
		}
		if (c == '\n')
			return false;	/* not JSON: no raw newline in one */
		if (c == '\\') {
			if (s->p == s->end)
				return false;
			c = *s->p++;
			switch (c) {
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u':
				for (cp = 0, i = 0; i < 4; i++) {
					if (s->p == s->end ||
					    (h = hexval(*s->p++)) < 0)
						return false;
					cp = cp << 4 | (unsigned)h;
				}
				if (cp >= 0x80) {
					put_utf8(out, max, &n, cp);
					continue;
				}
				c = (char)cp;
				break;
			default:
				break;	/* \" \\ \/ as themselves */
			}
		}
		if (out != NULL && n < max)
			out[n] = c;
		n += n <= max;
	}
	return false;
}

static bool	value(struct scan *s, int depth);

/* Past an object's or an array's members; false when it does not end. */
static bool
container(struct scan *s, int depth)
{
	char close = *s->p == '{' ? '}' : ']';

	if (depth >= JSONPTR_DEPTH)
		return false;
	s->p++;
	blanks(s);
	if (s->p < s->end && *s->p == close) {
		s->p++;
		return true;
	}
	for (;;) {
		blanks(s);
		if (close == '}') {
			if (s->p == s->end || *s->p != '"' ||
			    !string(s, NULL, 0, NULL))
				return false;
			blanks(s);
			if (s->p == s->end || *s->p++ != ':')
				return false;
		}
		if (!value(s, depth + 1))
			return false;
		blanks(s);
		if (s->p == s->end)
			return false;
		if (*s->p == close) {
			s->p++;
			return true;
		}
		if (*s->p++ != ',')
			return false;
	}
}

/* Past the value at s->p (after blanks); false when it does not end. */
static bool
value(struct scan *s, int depth)
{
	blanks(s);
	if (s->p == s->end)
		return false;
	if (*s->p == '"')
		return string(s, NULL, 0, NULL);
	if (*s->p == '{' || *s->p == '[')
		return container(s, depth);
	/* a number, true, false or null: up to what ends it */
	while (s->p < s->end && strchr(",]} \t\r\n", *s->p) == NULL)
		s->p++;
	return true;
}

/* Past a member's value or an element, and the comma after it: false when
 * there is no comma (the last one: what is looked for is not there). */
static bool
skip_item(struct scan *s, int depth)
{
	if (!value(s, depth))
		return false;
	blanks(s);
	return s->p < s->end && *s->p++ == ',';
}

/* The next reference token of the pointer at *ptr, decoded (~1 is '/',
 * ~0 is '~') into tok; false when the pointer is done. */
static bool
token(const char **ptr, char *tok, size_t max, size_t *len)
{
	const char *p = *ptr;
	size_t n = 0;

	if (*p != '/')
		return false;
	for (p++; *p != '\0' && *p != '/'; p++) {
		if (*p == '~' && (p[1] == '0' || p[1] == '1')) {
			p++;
			if (n < max)
				tok[n] = *p == '1' ? '/' : '~';
		} else if (n < max)
			tok[n] = *p;
		n++;
	}
	*ptr = p;
	*len = n;
	return true;
}

long
jsonptr_line(const char *json, size_t len, const char *pointer)
{
	struct scan s = { json, json + len, 1 };
	char tok[KEY_MAX], key[KEY_MAX];
	size_t toklen, keylen, i, index;
	int depth = 0;

	if (pointer == NULL || (*pointer != '\0' && *pointer != '/'))
		return 0;
	for (;;) {
		blanks(&s);
		if (s.p == s.end)
			return 0;
		if (!token(&pointer, tok, sizeof tok, &toklen))
			return s.line;		/* the value is here */
		if (toklen > sizeof tok || ++depth > JSONPTR_DEPTH)
			return 0;
		if (*s.p == '[') {
			/* An index: digits, no leading zero ("-" is past
			 * the end: nothing). */
			if (toklen == 0 || (tok[0] == '0' && toklen > 1))
				return 0;
			for (index = 0, i = 0; i < toklen; i++) {
				if (tok[i] < '0' || tok[i] > '9' ||
				    index > SIZE_MAX / 10 - 1)
					return 0;
				index = index * 10 + (size_t)(tok[i] - '0');
			}
			s.p++;
			for (i = 0; ; i++) {
				blanks(&s);
				if (s.p == s.end || *s.p == ']')
					return 0;
				if (i == index)
					break;
				if (!skip_item(&s, depth))
					return 0;
			}
			continue;
		}
		if (*s.p != '{')
			return 0;
		s.p++;
		for (;;) {
			blanks(&s);
			if (s.p == s.end || *s.p != '"' ||
			    !string(&s, key, sizeof key, &keylen))
				return 0;
			blanks(&s);
			if (s.p == s.end || *s.p++ != ':')
				return 0;
			if (keylen == toklen && memcmp(key, tok, toklen) == 0)
				break;
			if (!skip_item(&s, depth))
				return 0;
		}
	}
}
