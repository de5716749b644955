/* buf.c: growable, capped byte buffers. */
#include "calops.h"

#include "base/buf.h"

void
buf_init(struct buf *b, size_t cap)
{
	b->data = NULL;
	b->len = b->alloc = 0;
	b->cap = cap;
}

void
buf_release(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->alloc = 0;
}

void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data != NULL)
		b->data[0] = '\0';
}

static int
buf_grow(struct buf *b, size_t more)
{
	size_t need, n;

	if (more > SIZE_MAX - b->len - 1)
		return -1;
	need = b->len + more + 1;
	if (b->cap != 0 && need - 1 > b->cap)
		return -1;
	if (need <= b->alloc)
		return 0;
	n = b->alloc < 64 ? 64 : b->alloc;
	while (n < need)
		n = n > SIZE_MAX / 2 ? need : n * 2;
	b->data = xrealloc(b->data, n);
	b->alloc = n;
	return 0;
}

int
buf_add(struct buf *b, const void *data, size_t len)
{
	if (buf_grow(b, len) != 0)
		return -1;
	if (len != 0)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int
buf_addc(struct buf *b, char c)
{
	return buf_add(b, &c, 1);
}

int
buf_adds(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int
buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int rc;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	rc = buf_adds(b, s);
	free(s);
	return rc;
}

char *
buf_detach(struct buf *b, size_t *len)
{
	char *p;

	if (buf_grow(b, 0) != 0 && b->data == NULL)
		b->data = xcalloc(1, 1);
	b->data[b->len] = '\0';	/* new memory is unterminated */
	p = b->data;
	if (len != NULL)
		*len = b->len;
	b->data = NULL;
	b->len = b->alloc = 0;
	return p;
}
