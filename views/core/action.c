/* action.c: the action table and the global keys (see action.h). */
#include "calops.h"

#include <curses.h>

#include "views/core/action.h"

const struct action_info action_info[ACT_COUNT] = {
	[ACT_NONE] = { "none", "" },
	[ACT_UP] = { "up", "move up" },
	[ACT_DOWN] = { "down", "move down" },
	[ACT_PAGE_UP] = { "page-up", "one page up" },
	[ACT_PAGE_DOWN] = { "page-down", "one page down" },
	[ACT_HOME] = { "first", "to the first line" },
	[ACT_END] = { "last", "to the last line" },
	[ACT_LEFT] = { "left", "scroll left / previous" },
	[ACT_RIGHT] = { "right", "scroll right / next" },
	[ACT_ENTER] = { "enter", "open the selected line" },
	[ACT_BACK] = { "back", "close this screen; quit from the first" },
	[ACT_ESCAPE] = { "escape", "back out: filter, pane, then screen; never "
	    "quits" },
	[ACT_QUIT] = { "quit", "quit calops (Q asks first while jobs stream "
	    "here; ^C never asks)" },
	[ACT_HELP] = { "help", "this help" },
	[ACT_FILTER] = { "filter", "filter the lines (Esc clears)" },
	[ACT_COMMAND] = { "command", "command line: a screen's name, :theme NAME, "
	    ":refresh, :report, :q (Tab completes)" },
	[ACT_NEXT_VIEW] = { "next-view", "next screen" },
	[ACT_PREV_VIEW] = { "prev-view", "previous screen" },
	[ACT_VIEW_TAB] = { "tab", "the tab of that number (Screens, below)" },
	[ACT_REDRAW] = { "redraw", "redraw the screen" },
	[ACT_REFRESH] = { "refresh", "evaluate the workspace again now (the jobs: "
	    "list them again)" },
	[ACT_SUSPEND] = { "suspend", "suspend calops (fg to return)" },
	[ACT_OPEN] = { "open", "open the finding's file in $EDITOR/$PAGER (remote: "
	    "here); a folder is listed, to open what is in it" },
	[ACT_SORT] = { "sort", "sort by the next column" },
	[ACT_SORT_BACK] = { "sort-back", "sort by the previous column" },
	[ACT_WHY] = { "why", "why is this gate not green?" },
	[ACT_KILL] = { "kill", "kill the selected running job (type its id to "
	    "confirm)" },
	[ACT_DESCRIBE] = { "describe", "describe the selected job: its command, "
	    "host, times, job.json" },
	[ACT_FOLLOW] = { "follow", "follow the end of the log (toggle)" },
	[ACT_LEVEL] = { "level", "cycle the least severity shown: all, then "
	    "each one and up (findings, a job's log)" },
	[ACT_WRAP] = { "wrap", "wrap long lines (toggle)" },
	[ACT_SEARCH_NEXT] = { "search-next", "next line matching the filter" },
	[ACT_SEARCH_PREV] = { "search-prev", "previous line matching the filter" },
	[ACT_RUN] = { "run", "start this screen's job on a host picked: the "
	    "gate's lab job (board, gate), a soak (soak)" },
	[ACT_RUN_AGAIN] = { "run-again", "G5: one more build of its "
	    "reproducibility run (a third on demand), added to those listed" },
	[ACT_TRIGGER] = { "trigger", "trigger the scenario on a chip picked "
	    "(type the chip id; a job runs there: its id or disturb)" },
	[ACT_HOST] = { "host", "choose the host" },
	[ACT_CHIP] = { "chip", "cycle the chip shown: merged, then each chip" },
	[ACT_WINDOW] = { "window", "cycle the window: 1 min, 10 min, 1 h, whole run" },
	[ACT_ZOOM_IN] = { "zoom-in", "zoom the graphs in" },
	[ACT_ZOOM_OUT] = { "zoom-out", "zoom the graphs out" },
	[ACT_LIVE] = { "live", "back to live (the cursor to now)" },
	[ACT_ACK] = { "ack", "acknowledge the selected alert" },
	[ACT_ALERTS] = { "alerts", "show or hide the alerts journal" },
	[ACT_ACTIONS] = { "actions", "show or hide the action log" },
	[ACT_RECONNECT] = { "reconnect", "connect to the selected host again "
	    "now (also :reconnect HOST), or ask its passphrase again" },
	[ACT_ACCEPT_KEY] = { "accept-key", "trust the unknown host key the "
	    "selected host was refused over (type yes)" },
	[ACT_PROMOTE] = { "promote", "promote the candidate: shows what "
	    "changes, verifies it, asks its number, your key and passphrase, "
	    "then runs its chip step on a host and chip picked" },
	[ACT_ROLLBACK] = { "rollback", "roll back to the selected earlier "
	    "generation (from current: to its previous_generation)" },
	[ACT_BASE] = { "diff-base", "compare the other generations with the "
	    "selected one (again: with current)" },
	[ACT_NEWEST_ALERT] = { "newest-alert", "the newest open alert, on "
	    "the Alerts screen (else the Soak screen's)" },
	[ACT_SOAK] = { "soak", "open the selected soak job in the Soak "
	    "screen, whoever started it (Enter does too)" },
	[ACT_NEXT_SOAK] = { "next-soak", "show the lab's next soak, running "
	    "or recent, whoever started it" },
	[ACT_COPY] = { "copy", "copy the selection as text: the terminal's "
	    "clipboard (OSC 52) and a file, its path said" },
	[ACT_COPY_MD] = { "copy-markdown", "the same as Markdown" },
	[ACT_MARK] = { "mark", "mark or unmark the selected chip (a soak: any "
	    "of them; on all chips, every one or none)" },
	[ACT_PARENT] = { "parent", "the folder above, as h and Left (never "
	    "above the workspace's root)" },
};

const struct keybinding action_global_keys[] = {
	{ KEY_UP, ACT_UP, "Up" }, { 'k', ACT_UP, "k" },
	{ KEY_DOWN, ACT_DOWN, "Down" }, { 'j', ACT_DOWN, "j" },
	{ KEY_PPAGE, ACT_PAGE_UP, "PgUp" }, { KEY_CTRL('b'), ACT_PAGE_UP, "^B" },
	{ KEY_NPAGE, ACT_PAGE_DOWN, "PgDn" }, { KEY_CTRL('f'), ACT_PAGE_DOWN, "^F" },
	{ ' ', ACT_PAGE_DOWN, "Space" },
	{ KEY_HOME, ACT_HOME, "Home" }, { 'g', ACT_HOME, "g" },
	{ KEY_END, ACT_END, "End" }, { 'G', ACT_END, "G" },
	{ KEY_LEFT, ACT_LEFT, "Left" }, { 'h', ACT_LEFT, "h" },
	{ KEY_RIGHT, ACT_RIGHT, "Right" }, { 'l', ACT_RIGHT, "l" },
	{ '\r', ACT_ENTER, "Enter" }, { '\n', ACT_ENTER, NULL },
	{ KEY_ENTER, ACT_ENTER, NULL },
	{ 'q', ACT_BACK, "q" }, { 27, ACT_ESCAPE, "Esc" },
	{ 'Q', ACT_QUIT, "Q" }, { KEY_CTRL('c'), ACT_QUIT, "^C" },
	{ '?', ACT_HELP, "?" }, { KEY_F(1), ACT_HELP, "F1" },
	{ '/', ACT_FILTER, "/" },
	{ ':', ACT_COMMAND, ":" },
	{ '\t', ACT_NEXT_VIEW, "Tab" }, { KEY_BTAB, ACT_PREV_VIEW, "S-Tab" },
	/* The help screen lists the tabs with their digits (view.h). */
	{ '1', ACT_VIEW_TAB, "digit" }, { '2', ACT_VIEW_TAB, NULL },
	{ '3', ACT_VIEW_TAB, NULL }, { '4', ACT_VIEW_TAB, NULL },
	{ '5', ACT_VIEW_TAB, NULL }, { '6', ACT_VIEW_TAB, NULL },
	{ '7', ACT_VIEW_TAB, NULL }, { '8', ACT_VIEW_TAB, NULL },
	{ '9', ACT_VIEW_TAB, NULL },
	{ KEY_CTRL('l'), ACT_REDRAW, "^L" },
	{ 'R', ACT_REFRESH, "R" },
	{ KEY_CTRL('z'), ACT_SUSPEND, "^Z" },
	{ '!', ACT_NEWEST_ALERT, "!" },
	{ 0, ACT_NONE, NULL },
};

bool
action_first(const struct keybinding *t, const struct keybinding *k)
{
	if (k->keyname == NULL)
		return false;
	for (; t < k; t++)
		if (t->action == k->action && t->keyname != NULL)
			return false;
	return true;
}

char *
action_keynames(const struct keybinding *k, const char *sep)
{
	const struct keybinding *j;
	char *keys = xstrdup(""), *more;

	for (j = k; j->key != 0; j++) {
		if (j->action != k->action || j->keyname == NULL)
			continue;
		more = xasprintf("%s%s%s", keys, keys[0] != '\0' ? sep : "",
		    j->keyname);
		free(keys);
		keys = more;
	}
	return keys;
}

enum action
action_for_key(const struct keybinding *view_keys, int key)
{
	const struct keybinding *k;

	for (k = view_keys; k != NULL && k->key != 0; k++)
		if (k->key == key)
			return k->action;
	for (k = action_global_keys; k->key != 0; k++)
		if (k->key == key)
			return k->action;
	return ACT_NONE;
}
