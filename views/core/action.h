/*
 * action.h: what keys mean.  Keys map to actions in tables (tig's REQ_*):
 * one global table, and one per view for the keys only it has.  The help
 * screen is generated from these same tables, so it cannot drift.
 */
#ifndef CALOPS_ACTION_H
#define CALOPS_ACTION_H

#include "calops.h"

enum action {
	ACT_NONE,
	ACT_UP, ACT_DOWN, ACT_PAGE_UP, ACT_PAGE_DOWN, ACT_HOME, ACT_END,
	    ACT_LEFT, ACT_RIGHT,
	ACT_ENTER, ACT_BACK, ACT_ESCAPE, ACT_QUIT, ACT_HELP, ACT_FILTER,
	    ACT_COMMAND,
	ACT_NEXT_VIEW, ACT_PREV_VIEW,
	ACT_VIEW_TAB,		/* a digit: that tab (the registry, view.h) */
	ACT_REDRAW, ACT_REFRESH, ACT_SUSPEND,
	/* view-specific */
	ACT_OPEN, ACT_SORT, ACT_SORT_BACK, ACT_WHY,
	ACT_KILL, ACT_DESCRIBE, ACT_FOLLOW, ACT_LEVEL, ACT_WRAP,
	ACT_SEARCH_NEXT, ACT_SEARCH_PREV,
	ACT_RUN, ACT_RUN_AGAIN, ACT_TRIGGER, ACT_HOST, ACT_CHIP, ACT_WINDOW,
	ACT_ZOOM_IN, ACT_ZOOM_OUT, ACT_LIVE, ACT_ACK, ACT_ALERTS, ACT_ACTIONS,
	ACT_RECONNECT, ACT_ACCEPT_KEY,
	ACT_PROMOTE, ACT_ROLLBACK, ACT_BASE,
	ACT_NEWEST_ALERT,	/* global: the Soak screen on it */
	ACT_SOAK, ACT_NEXT_SOAK,
	ACT_COPY, ACT_COPY_MD,
	ACT_MARK, ACT_PARENT,
	ACT_COUNT
};

struct keybinding {
	int		 key;		/* a curses key code or a character */
	enum action	 action;
	const char	*keyname;	/* as the help screen shows it */
};

struct action_info {
	const char	*name;		/* for :commands and the help screen */
	const char	*help;
};

extern const struct action_info action_info[ACT_COUNT];
/* The keys every view has; ended by a zero key. */
extern const struct keybinding action_global_keys[];

#define KEY_CTRL(c) ((c) & 0x1f)

/*
 * A table's keys by action, as the help screen and calops(1) list them:
 * action_first() says whether k is the first entry of table t with a name
 * bound to k's action (that action's one row), and action_keynames() joins
 * the names of k and of every later entry bound to the same action with
 * sep (a new string: "Up k").
 */
bool	action_first(const struct keybinding *t, const struct keybinding *k);
char   *action_keynames(const struct keybinding *k, const char *sep);

/* The action for key: the view's table first, then the global one. */
enum action	action_for_key(const struct keybinding *view_keys, int key);

#endif
