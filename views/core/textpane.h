/*
 * textpane.h: a screen of styled lines over the list engine, as the drill
 * screens (one gate, one ticket) are made: lines added in order, untrusted
 * text wrapped at the width drawn, each line tagged with what Enter on it
 * opens (a finding, a gate), or -1 when it is text only.
 */
#ifndef CALOPS_TEXTPANE_H
#define CALOPS_TEXTPANE_H

#include "calops.h"

#include "views/core/list.h"

struct textpane_line {
	char	*text;		/* drawn by ui_put(): through the sanitiser */
	int	 role;		/* enum role */
	int	 tag;		/* the screen's: what the line opens, or -1 */
};

struct textpane {
	struct textpane_line	*lines;
	size_t			 n;
	int			 cols;	/* the width last drawn (0: not yet) */
	struct list		 list;
};

/* Start the lines over (the selection is kept by textpane_done). */
void	 textpane_clear(struct textpane *p);
void	 textpane_release(struct textpane *p);
void	 textpane_add(struct textpane *p, int role, int tag, const char *fmt,
	    ...) PRINTFLIKE(4, 5);
/* Untrusted text, sanitised, over as many lines as it needs at the width
 * drawn, broken after a blank where it can, each line indented by indent
 * blanks. */
void	 textpane_add_wrapped(struct textpane *p, int role, int tag,
	    int indent, const char *text);
/* The lines are complete: rebuild the list; the first time, the cursor
 * goes to the first line with a tag. */
void	 textpane_done(struct textpane *p, bool *placed);
/* Draw; returns true when the width changed since the lines were made (the
 * screen makes them again, for the wrapping, and draws once more). */
bool	 textpane_draw(struct textpane *p, int top, int rows, int cols);
/* The tag of the selected line, or -1. */
int	 textpane_selected_tag(const struct textpane *p);

/* The lines for y and Y (views/core/clip.h): one a line, through the
 * sanitiser as a document; as Markdown a header line is a "### " heading.
 * A new string. */
char	*textpane_copy(const struct textpane *p, bool md);

#endif
