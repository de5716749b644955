/*
 * decision_md.c: the decision record as Markdown (decision.h), tables as
 * GitHub and Python-Markdown read them.  Every string of the workspace is
 * sanitised, then escaped: '<', '>' and '&' as entities (raw HTML passes
 * through Markdown, so "<script>" must not reach it as such), and the
 * punctuation that would make emphasis, a link, code, a heading or a cell
 * boundary with a backslash ('(' and '!' need none: no '[' is left).
 */
#include "calops.h"

#include "base/buf.h"
#include "base/text.h"
#include "model/decision.h"
#include "model/decision_doc.h"
#include "model/decision_md.h"

void
decision_md_text(struct buf *b, const char *s)
{
	char *t, *p;

	if (s == NULL)
		return;
	t = text_sanitize_doc(s, strlen(s));
	for (p = t; *p != '\0'; p++) {
		if (*p == '<')
			buf_adds(b, "&lt;");
		else if (*p == '>')
			buf_adds(b, "&gt;");
		else if (*p == '&')
			buf_adds(b, "&amp;");
		else {
			if (strchr("\\`*_[]|#", *p) != NULL ||
			    (p == t && strchr("-+=", *p) != NULL))
				buf_addc(b, '\\');
			buf_addc(b, *p);
		}
	}
	free(t);
}

static void
md_raw(struct buf *b, const char *s)
{
	buf_adds(b, s);
}

/* A path or a hash as code when it holds nothing a code span would show
 * raw (a backtick, a markup character): else as escaped text. */
static void
md_code(struct buf *b, const char *s)
{
	if (s[0] != '\0' && strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./_:#-") == strlen(s))
		buf_addf(b, "`%s`", s);
	else
		decision_md_text(b, s);
}

static void
md_heading(struct buf *b, int level, const char *id, const char *text)
{
	(void)id;
	buf_addf(b, "%.*s %s\n\n", level, "###", text);
}

static void
md_para(struct buf *b, const char *id, const char *cls, bool begin)
{
	(void)cls;
	if (id != NULL && strcmp(id, "verdict") == 0)
		buf_adds(b, "**");
	if (!begin)
		buf_adds(b, "\n\n");
}

static void
md_table(struct buf *b, const char *id, const char *const *cols,
    size_t ncols, bool begin)
{
	size_t i;

	(void)id;
	if (!begin) {
		buf_adds(b, "\n");
		return;
	}
	for (i = 0; i < ncols; i++)
		buf_addf(b, "| %s ", cols[i]);
	buf_adds(b, "|\n");
	for (i = 0; i < ncols; i++)
		buf_adds(b, "|---");
	buf_adds(b, "|\n");
}

static void
md_row(struct buf *b, const char *cls, const char *key, bool begin)
{
	(void)cls;
	(void)key;
	buf_adds(b, begin ? "|" : "\n");
}

static void
md_cell(struct buf *b, const char *cls, bool begin)
{
	(void)cls;
	buf_adds(b, begin ? " " : " |");
}

static void
md_item(struct buf *b, bool list, bool begin)
{
	if (list)
		buf_adds(b, begin ? "" : "\n");
	else
		buf_adds(b, begin ? "- " : "\n");
}

static void
md_document(struct buf *b, const json_t *d, bool begin)
{
	/* One line feed at the end, not the blank line a block leaves. */
	if (!begin) {
		while (b->len >= 2 && b->data[b->len - 1] == '\n' &&
		    b->data[b->len - 2] == '\n')
			b->data[--b->len] = '\0';
		return;
	}
	buf_adds(b, "# Release decision: ");
	decision_md_text(b, json_string_value(json_object_get(d, "model_id")));
	buf_adds(b, "\n\n");
}

static const struct decision_fmt md_fmt = {
	.heading = md_heading,
	.para = md_para,
	.text = decision_md_text,
	.raw = md_raw,
	.code = md_code,
	.table = md_table,
	.row = md_row,
	.cell = md_cell,
	.item = md_item,
	.graph = NULL,
	.document = md_document,
};

void
decision_md(struct buf *b, const json_t *d)
{
	decision_doc_write(&md_fmt, b, d);
}
