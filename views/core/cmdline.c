/* cmdline.c: an exact shell command over several rows (cmdline.h). */
#include "calops.h"

#include "base/buf.h"
#include "base/text.h"
#include "views/core/cmdline.h"
#include "views/core/ui.h"

/* Whether the bytes [s, e) leave a shell word in single quotes, starting
 * in them or not (inq), as labcmd_join_argv() quotes: outside quotes a
 * backslash takes the next byte as it is. */
static bool
quoted_after(const char *s, const char *e, bool inq)
{
	for (; s < e; s++) {
		if (inq)
			inq = *s != '\'';
		else if (*s == '\\' && s + 1 < e)
			s++;
		else if (*s == '\'')
			inq = true;
	}
	return inq;
}

int
cmdline_draw(int y, int end, int x, int w, enum role r, const char *s,
    bool paint)
{
	char *clean = text_sanitize_str(s), *p = clean;
	bool last, inq = false, reopen, closes;
	struct buf row;
	size_t n, k;
	int room;

	buf_init(&row, 0);
	while (y < end && *p != '\0') {
		reopen = inq;
		room = w - reopen;
		last = y + 1 == end || (room > 0 && p[ui_fit(p, room)] == '\0');
		/* A continued row keeps two columns: a quote that closes, and
		 * the backslash. */
		n = last ? strlen(p) : room > 2 ? ui_fit(p, room - 2) : 0;
		if (n == 0) {
			/* Too narrow for one character: the rest, clipped. */
			if (paint)
				ui_put(stdscr, y, x, w, r, p, false);
			y++;
			break;
		}
		if (!last) {
			/* After a blank, when one is in the second half. */
			for (k = n; k > n / 2 && p[k - 1] != ' '; k--)
				;
			if (k > n / 2)
				n = k;
			/* Not between a backslash and the byte it escapes. */
			if (n > 1 && p[n - 1] == '\\' &&
			    !quoted_after(p, p + n - 1, inq))
				n--;
		}
		closes = quoted_after(p, p + n, inq);
		/* A blank the break falls on ends this row, where the eye sees
		 * it: the next would start with it, lost in the indent.  The
		 * column the closing quote would take is free. */
		if (!last && !closes && p[n] == ' ')
			n++;
		buf_reset(&row);
		if (reopen)
			buf_addc(&row, '\'');
		buf_add(&row, p, n);
		if (!last)
			buf_adds(&row, closes ? "'\\" : "\\");
		if (paint)
			ui_put(stdscr, y, x, w, r, row.data, false);
		y++;
		inq = closes;
		p += n;
	}
	buf_release(&row);
	free(clean);
	return y;
}
