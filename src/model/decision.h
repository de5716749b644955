/*
 * decision.h: the release decision record (share/doc/release.md §8), built
 * from the evidence and never typed: the go/no-go, the board as the gate
 * engine judged it, the open findings, the soak runs as G9 computed them,
 * the fault results as G7 read them and faultfold.h names them, what the
 * candidate changes from its previous generation (reldiff.h), and the
 * audit chain (relstate.h).
 *
 * The record is one JSON object, schema calops-decision/v1, which the
 * writers (decision_md.c, decision_html.c) turn into Markdown or one
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

/* s sanitised for a document (text_sanitize_doc) and escaped: Markdown
 * text (a table cell's too) or HTML text and attribute values.  Appended
 * to b. */
void	 decision_md_text(struct buf *b, const char *s);
void	 decision_html_text(struct buf *b, const char *s);

/* The record as Markdown, and as one HTML page, appended to b. */
void	 decision_md(struct buf *b, const json_t *d);
void	 decision_html(struct buf *b, const json_t *d);

#endif
