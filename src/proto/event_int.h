/*
 * event_int.h: what event.c (the rules, the jansson path) and eventfast.c
 * (the fast path) share: one set of rules that both parsers feed with the
 * same scalars, so they cannot drift apart.  Not a public contract: only
 * those two files include it.
 */
#ifndef CALOPS_EVENT_INT_H
#define CALOPS_EVENT_INT_H

#include "proto/event.h"

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

/* A scalar as either parser hands it to the rules. */
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
	/* J_STR: the first bytes, up to the reader's cap */
	const char	*s;
	size_t		 len;	/* J_STR: the whole decoded length */
};

/*
 * The rules (event.c).  Errors are recorded, the first one kept, and
 * parsing goes on: the fast path may still fall back, and then its verdict
 * does not count.
 */
void		event_build_begin(struct event *);
void		event_build_fail(struct event *, const char *,
	    ...) PRINTFLIKE(2, 3);
bool		event_build_too_long(struct event *, size_t);
enum field	event_field_of(const char *, size_t);
/* A top-level member whose value is a scalar (from jansson: any value). */
void		event_build_field(struct event *, enum field,
	    const struct jv *);
/* One member of `values`, of `labels` (strings kept, others ignored). */
void		event_build_value(struct event *, const char *, size_t,
	    const struct jv *);
void		event_build_label(struct event *, const char *, size_t,
	    const struct jv *);
/* EVENT_OK, or EVENT_ERROR for any error recorded or a missing field. */
int		event_build_finish(struct event *);

#endif
