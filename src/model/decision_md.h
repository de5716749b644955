/*
 * decision_md.h: the decision record (decision.h) as Markdown, tables as
 * GitHub and Python-Markdown read them.
 */
#ifndef CALOPS_DECISION_MD_H
#define CALOPS_DECISION_MD_H

#include "calops.h"

#include <jansson.h>

struct buf;

/* The record, appended to b. */
void	 decision_md(struct buf *b, const json_t *d);
/* s sanitised for a document (text_sanitize_doc) and escaped for Markdown
 * text, a table cell's too, appended to b. */
void	 decision_md_text(struct buf *b, const char *s);

#endif
