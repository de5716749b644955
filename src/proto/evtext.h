/*
 * evtext.h: what the job log shows of an event (views/joblog.c), and what
 * `calops tail --find` looks in on the host (cmd_tail.c): one text for
 * both, so that a search of a run finds beyond the lines the console holds
 * what it finds among them (protocol.md §1, calops tail).
 *
 * The words are the event's type, a log line's level, then its message:
 * a log, stalled or resumed event's msg, a fault's scenario, or for the
 * others a summary ("exit 3", "decode 40/100 tokens", "chip 1 ttft_ms=12",
 * "829 lines lost on the host between 14:03:05 and 14:03:10", "job started
 * by calrt-sim 0.3 on lab3"; times local to where it is written), after
 * "[cut at 64 KiB] " when the supervisor cut the line.  Untrusted: the
 * event's strings as they are (sanitise before display).
 */
#ifndef CALOPS_EVTEXT_H
#define CALOPS_EVTEXT_H

#include "calops.h"

#include <jansson.h>

struct buf;

/* How a metric's value v (borrowed; NULL when absent) is written into b:
 * the console in the unit its graph draws it in. */
typedef void	(*evtext_value_fn)(struct buf *b, const char *metric,
		    const json_t *v);

/* A value as the event has it: a number with %g, "-" when absent,
 * anything else as JSON flagged "(not a number)" (never 0). */
void	 evtext_value(struct buf *b, const char *metric, const json_t *v);
/* The message of event o (an object; type its "type") into b, metric
 * values through value (NULL: evtext_value). */
void	 evtext_message(json_t *o, const char *type, evtext_value_fn value,
	    struct buf *b);
/* "TYPE LEVEL MESSAGE" (the level a log line's only) into b: what a
 * search looks in. */
void	 evtext_words(json_t *o, const char *type, evtext_value_fn value,
	    struct buf *b);

#endif
