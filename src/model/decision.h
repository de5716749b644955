/*
 * decision.h: the release decision record (share/doc/release.md §8), built
 * from the evidence and never typed: the go/no-go, the board as the gate
 * engine judged it, the open findings, the soak runs as G9 computed them,
 * the fault results as G7 read them and faultfold.h names them, what the
 * candidate changes from its previous generation (reldiff.h), and the
 * audit chain (relstate.h).
 *
 * The record is one JSON object, schema calops-decision/v1, which the
 * writers (decision_md.h, decision_html.h) turn into Markdown or one
 * self-contained HTML page.  It holds the workspace's strings as they are;
 * every writer sanitises them (text_sanitize_doc()) and escapes them for
 * its format.  Nothing in it comes from a clock or from where the
 * workspace lies: the same workspace gives the same record, byte for byte.
 */
#ifndef CALOPS_DECISION_H
#define CALOPS_DECISION_H

#include "calops.h"

#include <jansson.h>

struct buf;
struct eval;
struct relstate;

/* How many points a soak graph has at most: its run cut into as many
 * equal windows, each window's P99 (RSS: median) a point. */
#define DECISION_GRAPH_POINTS	96

/*
 * The record of evaluation ev (run with eval_opts.soak_series) and of the
 * release state st (NULL when the workspace has no 08-release/ to read:
 * why says so).  A new object.
 */
json_t	*decision_build(struct eval *ev, const struct relstate *st,
	    const char *why);

/* Whether the record says go; and its one line ("GO: …", "NO-GO: …"). */
bool	 decision_go(const json_t *d);
const char *decision_line(const json_t *d);

/*
 * Words the writers share (decision_doc.c), so that Markdown and HTML say
 * the same: each formats one member of the record into buf and returns
 * buf (or a constant).
 *
 * A soak run's span, "24.0 h", "12.5 min", "40 s"; "no sample".
 */
const char	*decision_span(const json_t *span_s, char *buf, size_t len);
/* A leak verdict with its glyph: "✔ no growth", "✘ grows 3.20 MiB",
 * "· too few samples". */
const char	*decision_leak(const json_t *leak, char *buf, size_t len);
/* A manifest field's change: "~ changed", "+ added", "- removed". */
const char	*decision_change(const char *kind);
/* Unix seconds as "2026-09-21 00:00:00" (UTC); "-" when not a number. */
const char	*decision_utc(const json_t *ts, char *buf, size_t len);

#endif
