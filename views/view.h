/*
 * view.h: one screen behind one small interface.  A view is a const struct
 * view_ops (one per file in views/) and its data; views sit on a stack (a
 * drill-down or the help screen is a push).  Handlers change state and
 * return a reaction; they never draw or sleep: the app paints once per loop
 * iteration by calling the top view's draw().
 *
 * Adding a screen is its own file and one line of VIEW_REGISTRY below.
 */
#ifndef CALOPS_VIEW_H
#define CALOPS_VIEW_H

#include "calops.h"

#include <curses.h>

#include "views/core/action.h"

struct app;

enum reaction {
	R_NONE = 0,
	R_REDRAW = 1,
	R_POP = 2,
	R_QUIT = 4,
};

/* What a word on a screen means, for its help: { term, meaning }. */
struct view_note {
	const char	*term;
	const char	*text;
};

struct view_ops {
	const char		*title;		/* in the tab bar and help */
	const struct keybinding	*keys;		/* its own keys, or NULL */
	/* What its words and marks mean, NULL-ended, or NULL. */
	const struct view_note	*notes;
	/* Make the view's data; arg is the opener's (a gate index, …). */
	void	*(*open)(struct app *, const void *arg);
	void	 (*close)(void *data);
	/* Paint rows [top, top + rows) of stdscr. */
	void	 (*draw)(struct app *, void *data, int top, int rows, int cols);
	int	 (*action)(struct app *, void *data, enum action a);
	/* The board was re-evaluated or the filter changed. */
	void	 (*update)(struct app *, void *data);
	/* A mouse click on screen cell (y, x), which is inside the view's
	 * area; the list engine (list_click()) knows what it drew there.  May
	 * be NULL. */
	int	 (*click)(struct app *, void *data, int y, int x, bool twice);
	/* On top again: the screen above it closed (a list it shows may be
	 * stale by then).  May be NULL. */
	void	 (*resume)(struct app *, void *data);
	/* One line for the status bar (counts, sort order) into buf; may be
	 * NULL. */
	void	 (*status)(struct app *, void *data, char *buf, size_t len);
	/* What closing the screen now would drop that must not be dropped
	 * silently (a release's chip step, which must end in a signed
	 * record), said as the reason the console stays on it; NULL when it
	 * may close.  May be NULL. */
	const char *(*holding)(void *data);
	/* Tab while the screen's own question is open in the status bar:
	 * show more of what it asks about (the confirmation: the exact
	 * command).  May be NULL. */
	void	 (*ask_tab)(struct app *, void *data);
};

struct view {
	const struct view_ops	*ops;
	void			*data;
};

/* How a screen is reached. */
enum view_kind {
	VIEW_TAB,		/* a tab: Tab, its digit key and :name */
	VIEW_COMMAND,		/* :name only (help) */
	VIEW_DRILL,		/* only from another screen (a gate, a log) */
};

/*
 * Every screen, once: X(name, kind, what it shows).  name_view is the
 * screen's view_ops (views/name.c) and `:name` opens it; the tabs come in
 * this order, digit keys 1 to 9.  The tab bar, the digit keys, the `:`
 * commands and their completion, and the help screen's list of screens
 * all come from this table.
 */
#define VIEW_REGISTRY(X)						\
	X(board, VIEW_TAB, "the gate board, G0-G10")			\
	X(tickets, VIEW_TAB, "tickets M01-M13 and their checks")	\
	X(findings, VIEW_TAB, "every finding of every gate")		\
	X(jobs, VIEW_TAB, "the durable jobs of the lab's hosts")	\
	X(soak, VIEW_TAB, "the live soak: graphs, SLA, leak, alerts")	\
	X(faults, VIEW_TAB, "fault scenarios x chips, action log")	\
	X(hosts, VIEW_TAB, "the lab's hosts: state, round trip, calops")	\
	X(workspaces, VIEW_TAB, "every workspace of the lab, its gates")	\
	X(release, VIEW_TAB, "generations, audit log, promote and rollback") \
	X(help, VIEW_COMMAND, "the keys of every screen")		\
	X(messages, VIEW_COMMAND, "every status-bar message, whole")	\
	X(alerts, VIEW_COMMAND, "the alert journal, who sends; ! when one "	\
	    "is ongoing")							\
	X(gate, VIEW_DRILL, "one gate: its checks and findings")	\
	X(ticket, VIEW_DRILL, "one ticket: its checks and evidence")	\
	X(joblog, VIEW_DRILL, "one job's log, live")			\
	X(describe, VIEW_DRILL, "one job: command, host, times, job.json") \
	X(confirm, VIEW_DRILL, "what a job will run and disturb, first") \
	X(pick, VIEW_DRILL, "which host or chip a job runs on, with states") \
	X(pager, VIEW_DRILL, "a file of a workspace on a lab host")	\
	X(folder, VIEW_DRILL, "a folder of the workspace: its files, to open")

#define VIEW_DECLARE(name, kind, help) extern const struct view_ops name##_view;
VIEW_REGISTRY(VIEW_DECLARE)
#undef VIEW_DECLARE

struct view_entry {
	const char		*name;
	const struct view_ops	*ops;
	enum view_kind		 kind;
	const char		*help;
};

/* The registry, in its order. */
extern const struct view_entry view_registry[];
extern const size_t view_count;

/* How many tabs there are, the i-th (0-based) and where ops stands among
 * them (SIZE_MAX: it is not a tab). */
size_t			 view_ntabs(void);
const struct view_ops	*view_tab(size_t i);
size_t			 view_tab_index(const struct view_ops *ops);
/* The screen `:name` opens (a tab or a command), or NULL. */
const struct view_ops	*view_by_name(const char *name);
/* The registry entry of ops, or NULL. */
const struct view_entry	*view_entry(const struct view_ops *ops);

#endif
