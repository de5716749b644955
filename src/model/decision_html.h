/*
 * decision_html.h: the decision record (decision.h) as one HTML page that
 * needs nothing else.
 */
#ifndef CALOPS_DECISION_HTML_H
#define CALOPS_DECISION_HTML_H

#include "calops.h"

#include <jansson.h>

struct buf;

/* The record, appended to b. */
void	 decision_html(struct buf *b, const json_t *d);
/* s sanitised for a document (text_sanitize_doc) and escaped for HTML
 * text and attribute values, appended to b. */
void	 decision_html_text(struct buf *b, const char *s);

#endif
