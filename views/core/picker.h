/*
 * picker.h: choosing one of a few things from a list (a lab host, a chip)
 * instead of typing its name blind: each choice in a row with its state
 * beside it ("up 12 ms", "idle", "soak 24h · chips 0-1 (job 7f3a)"),
 * the selection starting on a default, moved by the arrow keys,
 * taken by Enter or a double click, selected by a click.  A choice that
 * cannot be taken now (a host that is down) stays in the list, dimmed,
 * and Enter on it says why instead.  The owner (a screen, views/pick.c)
 * fills the rows again whenever what they show may have changed; the
 * selection stays on the same choice.
 */
#ifndef CALOPS_PICKER_H
#define CALOPS_PICKER_H

#include "calops.h"

#include "views/core/action.h"
#include "views/core/list.h"

struct picker_item {
	char	*name;		/* what is chosen: a host's name, "chip 1" */
	char	*state;		/* beside it, in words */
	int	 role;		/* enum role of the state */
	char	*refused;	/* why it cannot be taken now, or NULL */
};

struct picker {
	struct picker_item	*items;
	size_t			 n, alloc;
	size_t			 def;	/* the default choice */
	char			*keep;	/* the name selected before
					   picker_clear(), or NULL */
	bool			 placed;	/* the selection was set */
	struct list		 list;
};

enum picker_result {
	PICKER_NONE,		/* not the picker's key */
	PICKER_MOVED,		/* the selection moved (or did not): redraw */
	PICKER_CHOSEN,		/* picker_selected() is taken */
	PICKER_REFUSED,		/* Enter on a choice that cannot be taken */
	PICKER_CANCEL,		/* Esc, q */
};

/* Start the rows over; the selection is kept by name (a struct picker
 * starts zeroed). */
void	 picker_clear(struct picker *p);
void	 picker_release(struct picker *p);
/* Add a choice: its name (untrusted: drawn through the sanitiser), its
 * state in words with role, and why it cannot be taken (NULL: it can). */
void	 picker_add(struct picker *p, const char *name, int role,
	    const char *refused, const char *fmt, ...) PRINTFLIKE(5, 6);
/* Make the last choice added the default: the first selected. */
void	 picker_default(struct picker *p);
/* Rows added: the list is rebuilt, the selection on the default the first
 * time, else on the choice it was on. */
void	 picker_done(struct picker *p);
/* Draw the choices in rows [top, top + rows), columns [x, x + cols): a
 * header row, then a row each. */
void	 picker_draw(struct picker *p, int top, int rows, int x, int cols);
enum picker_result picker_action(struct picker *p, enum action a);
/* A click at screen cell (y, x): selects the choice there; twice, takes it
 * as Enter does.  PICKER_NONE when not on a choice. */
enum picker_result picker_click(struct picker *p, int y, int x, bool twice);
/* The selected choice, or NULL when there is none. */
const struct picker_item *picker_selected(const struct picker *p);
/* Its index among the choices added, or SIZE_MAX. */
size_t	 picker_index(const struct picker *p);

#endif
