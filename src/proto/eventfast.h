/*
 * eventfast.h: the fast path of event.h's parser, for the metric events
 * that make up nearly all of a soak.
 *
 * eventfast_parse() is a small, strict parser for a flat JSON object whose
 * values are numbers, strings, booleans or null, with `values` and `labels`
 * as flat objects one level down.  It handles the shape every tool writes
 *
 *	{"v":1,"seq":12,"ts":1.5e9,"type":"metric","chip":0,
 *	 "values":{"ttft_ms":12.5,"request_ok":1},"labels":{"model":"m7"}}
 *
 * and answers EVENT_FALLBACK for anything else that might be valid JSON:
 * arrays, deeper objects, duplicate keys, \u0000, a null or a non-number in
 * `values`, a non-string label, a value or label a struct event does not
 * keep (past event.h's caps), and any syntax it does not accept, so that
 * jansson decides (and words the error).
 * Where it answers, it answers as event_parse_jansson() would on the same
 * line: the same numbers (an integer is strtoll's, a number with '.', 'e'
 * or 'E' is strtod's, and one jansson would refuse as out of range falls
 * back), the same strings (escapes, surrogate pairs, UTF-8 checked as
 * jansson checks it), the same verdict.  tests/fuzz/fuzz_event.c holds it
 * to that.
 */
#ifndef CALOPS_EVENTFAST_H
#define CALOPS_EVENTFAST_H

#include "calops.h"

#include "proto/event.h"

/* EVENT_OK, EVENT_ERROR (ev->err says why) or EVENT_FALLBACK. */
int	eventfast_parse(const char *line, size_t len, struct event *ev);

#endif
