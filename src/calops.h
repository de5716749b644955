/*
 * calops.h: the prelude, included first by every source file.
 *
 * It carries what every module needs and nothing more: the standard headers,
 * the allocation family that never returns NULL (xmalloc.c), fatal(), and a
 * few attribute macros.  Module contracts live in their own headers.
 *
 * Comments cite the project's reference in share/doc/: "workspace.md §3",
 * "protocol.md §2", "release.md", "json.md" and "architecture.md" (the
 * layers, the loop, an event's path) are the files of that name there, and
 * "runbook §11.3" is share/doc/runbook.md, which summarises the
 * porting runbook section by section under the runbook's own numbers.
 */
#ifndef CALOPS_H
#define CALOPS_H

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRINTFLIKE(f, a) __attribute__((format(printf, f, a)))
#define NORETURN __attribute__((noreturn))
#define UNUSED __attribute__((unused))
#define nitems(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Allocation never fails from the caller's point of view: running out of
 * memory is a broken invariant, reported by fatal().  Every pointer returned
 * is owned by the caller and released with free().
 */
void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) PRINTFLIKE(1, 2);
char *xvasprintf(const char *fmt, va_list ap) PRINTFLIKE(1, 0);
/* Make jansson allocate through xmalloc(): called once, first thing in the
 * main() of every program that builds JSON (src/main.c, calrt-sim, the
 * tests' programs). */
void xmalloc_json_init(void);

/*
 * fatal() is for broken invariants only: it runs the registered cleanup hook
 * (the console restores the terminal there), prints "calops: <msg>" and exits
 * with status 70.  Operational errors are returned, never fatal.
 */
void fatal(const char *fmt, ...) PRINTFLIKE(1, 2) NORETURN;
void fatal_set_cleanup(void (*hook)(void));

/* Bounded formatting into a caller's buffer; always NUL-terminates. */
void errbuf_set(char *buf, size_t len, const char *fmt, ...) PRINTFLIKE(3, 4);

#endif
