/*
 * event.h: one protocol event line (protocol.md §3) into a struct event,
 * with a fast path for the metric events that make up nearly all of a soak.
 *
 * The fast path is eventfast_parse() (eventfast.h).
 *
 * event_parse() is the entry point: the fast path, then jansson.
 *
 * The rules, the same on both paths: the line is at most EVENT_LINE_MAX
 * bytes, without NUL (jansson would skip one after a number); `v` (the
 * integer 1), `seq` (an integer >= 0), `ts` (a number from 0 to
 * EVENT_TS_MAX) and `type` (a string) are required; `chip` is an integer in [0,
 * EVENT_CHIP_MAX]; a metric event needs `values`, an object whose members
 * are numbers (true and false count as 1 and 0; null is no sample);
 * `labels` is an object whose string members are kept (others ignored).
 * Other fields, and other types' fields, are ignored (protocol.md: tools
 * may add to them); a type longer than EVENT_TYPE_MAX is kept as
 * EVENT_OTHER with an empty name.  Order is the caller's business: seq and
 * ts are reported as they are.
 *
 * What a struct event keeps is capped, and the caps are not rules: a line
 * past them is an event all the same (the mirror keeps it whole, and a
 * reader that refused it would drop a valid event).  Kept are the first
 * EVENT_VALUES_MAX values with names of 1 to EVENT_NAME_MAX bytes, and the
 * first EVENT_LABELS_MAX labels with such names and values of at most
 * EVENT_LABEL_MAX bytes; the others are counted in values_not_kept and
 * labels_not_kept, for the screens to say that they show less.
 *
 * Strings in a struct event come from a host and are untrusted: they are
 * valid UTF-8 without NUL, and nothing else; sanitise before showing.
 */
#ifndef CALOPS_EVENT_H
#define CALOPS_EVENT_H

#include "calops.h"

#define EVENT_LINE_MAX		(64u << 10)
#define EVENT_NAME_MAX		64
#define EVENT_VALUES_MAX	64
#define EVENT_LABELS_MAX	16
#define EVENT_LABEL_MAX		128
#define EVENT_TYPE_MAX		32
#define EVENT_CHIP_MAX		4095
/* A ts is a time from 1970 to 2100 (a tool's 1e300 is not one). */
#define EVENT_TS_MAX		4102444800.0

/* What event_parse*() return. */
#define EVENT_OK		0
#define EVENT_ERROR		(-1)
#define EVENT_FALLBACK		1	/* the fast path only: ask jansson */

enum event_type {
	EVENT_OTHER,
	EVENT_HELLO,
	EVENT_LOG,
	EVENT_PROGRESS,
	EVENT_METRIC,
	EVENT_FINDING,
	EVENT_FAULT,
	EVENT_RESULT,
	EVENT_END,
	EVENT_GAP,	/* lines the supervisor could not store (v2) */
	EVENT_STALLED,	/* it cannot write them now (a full disk) */
	EVENT_RESUMED,	/* it can again */
};

/* Which fields were present (struct event's has). */
#define EVENT_HAS_V		0x01
#define EVENT_HAS_SEQ		0x02
#define EVENT_HAS_TS		0x04
#define EVENT_HAS_TYPE		0x08
#define EVENT_HAS_CHIP		0x10
#define EVENT_HAS_VALUES	0x20
#define EVENT_HAS_LABELS	0x40

struct event_value {
	char		 name[EVENT_NAME_MAX + 1];
	double		 v;
};

struct event_label {
	char		 name[EVENT_NAME_MAX + 1];
	char		 value[EVENT_LABEL_MAX + 1];
};

/*
 * Owned by the caller (about 8 KiB: a stack variable reused line after line
 * is the intended use).  Only the fields `has` names are meaningful, and
 * only the first nvalues and nlabels entries; the values keep the line's
 * order.  err holds the message of an EVENT_ERROR.
 */
struct event {
	unsigned		 has;
	enum event_type		 type;
	char			 type_name[EVENT_TYPE_MAX + 1];
	int64_t			 seq;
	double			 ts;
	int			 chip;
	size_t			 nvalues;
	size_t			 nlabels;
	struct event_value	 values[EVENT_VALUES_MAX];
	struct event_label	 labels[EVENT_LABELS_MAX];
	/* values and labels of the line past the caps (not an error) */
	size_t			 values_not_kept;
	size_t			 labels_not_kept;
	char			 err[160];
};

/* EVENT_OK or EVENT_ERROR, through jansson. */
int	event_parse_jansson(const char *line, size_t len, struct event *ev);
/* EVENT_OK or EVENT_ERROR: the fast path, else jansson. */
int	event_parse(const char *line, size_t len, struct event *ev);
/* The value named name, or NULL. */
const struct event_value *event_value(const struct event *ev,
	    const char *name);

#endif
