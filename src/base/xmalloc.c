/* xmalloc.c: the allocation family that never returns NULL, and fatal(). */
#include "calops.h"

#include <jansson.h>
#include <unistd.h>

static void (*cleanup_hook)(void);

void
fatal_set_cleanup(void (*hook)(void))
{
	cleanup_hook = hook;
}

void
fatal(const char *fmt, ...)
{
	va_list ap;

	if (cleanup_hook != NULL) {
		void (*hook)(void) = cleanup_hook;

		/* a fatal inside the hook must not loop */
		cleanup_hook = NULL;
		hook();
	}
	fputs("calops: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	_exit(70);
}

void *
xmalloc(size_t size)
{
	void *p = malloc(size == 0 ? 1 : size);

	if (p == NULL)
		fatal("out of memory allocating %zu bytes", size);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb == 0 ? 1 : nmemb, size == 0 ? 1 : size);

	if (p == NULL)
		fatal("out of memory allocating %zu x %zu bytes", nmemb, size);
	return p;
}

void *
xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size == 0 ? 1 : size);

	if (p == NULL)
		fatal("out of memory reallocating %zu bytes", size);
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	if (size != 0 && nmemb > SIZE_MAX / size)
		fatal("allocation of %zu x %zu bytes overflows", nmemb, size);
	return xrealloc(ptr, nmemb * size);
}

/*
 * jansson allocates through xmalloc() from here on, so running out of memory
 * inside it is fatal() as everywhere else, never a NULL that a
 * json_object_set_new() or json_array_append_new() result -- unchecked
 * throughout, as allocation is -- would swallow.  free() stays jansson's
 * free: xmalloc() is malloc().
 */
void
xmalloc_json_init(void)
{
	json_set_alloc_funcs(xmalloc, free);
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xvasprintf(const char *fmt, va_list ap)
{
	char *p;

	if (vasprintf(&p, fmt, ap) < 0)
		fatal("out of memory formatting a string");
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void
errbuf_set(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (buf == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}
