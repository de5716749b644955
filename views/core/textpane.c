/* textpane.c: styled lines over the list engine (textpane.h). */
#include "calops.h"

#include "base/buf.h"
#include "base/text.h"
#include "views/core/textpane.h"
#include "views/core/ui.h"

void
textpane_clear(struct textpane *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->lines[i].text);
	free(p->lines);
	p->lines = NULL;
	p->n = 0;
}

void
textpane_release(struct textpane *p)
{
	textpane_clear(p);
	list_release(&p->list);
}

static void
add_line(struct textpane *p, int role, int tag, char *text)
{
	p->lines = xreallocarray(p->lines, p->n + 1, sizeof *p->lines);
	p->lines[p->n].text = text;
	p->lines[p->n].role = role;
	p->lines[p->n].tag = tag;
	p->n++;
}

void
textpane_add(struct textpane *p, int role, int tag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_line(p, role, tag, xvasprintf(fmt, ap));
	va_end(ap);
}

void
textpane_add_wrapped(struct textpane *p, int role, int tag, int indent,
    const char *text)
{
	char *clean = text_sanitize_str(text), *m = clean;
	/* Before the first draw the width is not known: 80 columns. */
	int w = (p->cols > indent + 12 ? p->cols : 80) - indent - 4;
	size_t n;

	do {
		if ((n = ui_fit_words(m, w)) == 0)
			n = strlen(m);
		add_line(p, role, tag, xasprintf("%*s%.*s", indent, "", (int)n,
		    m));
		m += n;
		while (*m == ' ')	/* a new row starts with a word */
			m++;
	} while (*m != '\0');
	free(clean);
}

void
textpane_done(struct textpane *p, bool *placed)
{
	size_t i;

	list_rebuild(&p->list, p->n, NULL, NULL);
	for (i = 0; !*placed && i < p->n; i++)
		if (p->lines[i].tag >= 0) {
			p->list.sel = i;
			*placed = true;
		}
}

static void
draw_row(const void *arg, size_t rec, int y, int x, int cols, bool sel)
{
	const struct textpane_line *l = &((const struct textpane *)arg)->
	    lines[rec];

	ui_put(stdscr, y, x + 1, cols - 2, sel ? ROLE_SELECTION :
	    (enum role)l->role, l->text, false);
}

bool
textpane_draw(struct textpane *p, int top, int rows, int cols)
{
	if (cols != p->cols) {
		p->cols = cols;
		return true;
	}
	list_draw(&p->list, top, rows, 0, cols, NULL, draw_row, p, NULL);
	return false;
}

int
textpane_selected_tag(const struct textpane *p)
{
	size_t i = list_selected(&p->list);

	return i == SIZE_MAX ? -1 : p->lines[i].tag;
}

char *
textpane_copy(const struct textpane *p, bool md)
{
	struct buf b;
	char *clean;
	size_t i;

	buf_init(&b, 0);
	for (i = 0; i < p->n; i++) {
		clean = text_sanitize_doc(p->lines[i].text,
		    strlen(p->lines[i].text));
		if (md && p->lines[i].role == ROLE_HEADER)
			buf_addf(&b, "\n### %s\n\n", clean);
		else
			buf_addf(&b, "%s\n", clean);
		free(clean);
	}
	return buf_detach(&b, NULL);
}
