/*
 * decision_doc.h: how the decision record is written, for its writers.
 * decision_doc.c walks the record once,
 * in the record's order, and says what to write through a struct
 * decision_fmt; decision_md.c and decision_html.c are the two formats, so
 * that Markdown and HTML say the same words and differ only in markup.
 *
 * Text handed to fmt->text is the workspace's (untrusted): the format
 * sanitises and escapes it.  Text handed to fmt->raw is calops' own (a
 * figure it formatted, a word of its own) and needs no escaping in either
 * format: it holds none of < > & and no Markdown punctuation.
 */
#ifndef CALOPS_DECISION_DOC_H
#define CALOPS_DECISION_DOC_H

#include "calops.h"

#include <jansson.h>

struct buf;

struct decision_fmt {
	/* A heading of level 1-3; id may be NULL. */
	void	(*heading)(struct buf *b, int level, const char *id,
		    const char *text);
	/* A paragraph; cls (HTML's class) may be NULL. */
	void	(*para)(struct buf *b, const char *id, const char *cls,
		    bool begin);
	void	(*text)(struct buf *b, const char *s);
	void	(*raw)(struct buf *b, const char *s);
	/* Untrusted text in a monospace font (a path, a hash). */
	void	(*code)(struct buf *b, const char *s);
	/* A table of ncols columns headed by cols (calops' words). */
	void	(*table)(struct buf *b, const char *id,
		    const char *const *cols, size_t ncols, bool begin);
	/* A row: cls names its kind ("gate"), key its subject ("G3"); a cell
	 * with a class that says its status beside the glyph and word. */
	void	(*row)(struct buf *b, const char *cls, const char *key,
		    bool begin);
	void	(*cell)(struct buf *b, const char *cls, bool begin);
	void	(*item)(struct buf *b, bool list, bool begin);
	/* A graph of the soak (HTML only: NULL in Markdown, whose table
	 * already says the figures). */
	void	(*graph)(struct buf *b, const json_t *graphs, const char *key,
		    const char *id, double sla, double scale, const char *unit,
		    const char *what);
	/* The whole document around the walk. */
	void	(*document)(struct buf *b, const json_t *d, bool begin);
};

/* Write record d in format f, numbers with a point whatever LC_NUMERIC
 * says. */
void	 decision_doc_write(const struct decision_fmt *f, struct buf *b,
	    const json_t *d);

#endif
