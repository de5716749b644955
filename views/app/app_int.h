/*
 * app_int.h: struct app, private to the app module (app.c, frame.c,
 * prompt.c, bench.c).  Screens reach the console through app.h's functions
 * only, so the console can change how it keeps its state without touching
 * them.
 */
#ifndef CALOPS_APP_INT_H
#define CALOPS_APP_INT_H

#include "model/boardsrc.h"
#include "views/app/app.h"
#include "views/app/headless.h"
#include "views/core/config.h"
#include "views/core/termin.h"

#define APP_STACK_MAX 8
#define FRAME_MIN_MS	100	/* 10 frames a second while data streams */

enum app_mode {
	MODE_NORMAL,
	MODE_FILTER,		/* typing after '/' */
	MODE_COMMAND,		/* typing after ':' */
	MODE_ASK,		/* typing an answer to prompt_ask() */
};


/* A status-bar message as it was said; text owned. */
struct app_said {
	char		*text;
	time_t		 at;
	bool		 error;
};

struct app {
	struct loop	*loop;
	struct lab	 lab;		/* the lab file, or one made for it */
	struct labmodel	*labm;		/* hosts, jobs, streams (never NULL
					 * once open) */
	char		*ws;		/* the workspace path as given */
	/* The SSH host the workspace is on (borrowed from the lab), or NULL:
	 * this machine. */
	const char	*ws_host;
	/* The lab host it is on, local or SSH (borrowed from the lab): its
	 * gates' jobs run there, in it. */
	const char	*ws_lab_host;
	/* Its board: evaluated, watched, kept in the history (never NULL
	 * once open). */
	struct boardsrc	*src;
	struct fleet	*fleet;		/* every workspace's board, or NULL
					   until the Workspaces screen */
	bool		 demo, readonly;
	struct config	 config;
	struct theme	 theme;
	struct view	 stack[APP_STACK_MAX];
	int		 depth;
	enum app_mode	 mode;
	char		 input[256];	/* the prompt's text */
	size_t		 input_len;
	char		 ask[600];	/* MODE_ASK: the question */
	bool		 ask_secret;	/* its answer is not shown, and is
					   wiped once answered */
	bool		 ask_path;	/* Tab completes a local path */
	prompt_answer_fn ask_fn;
	void		*ask_arg;
	/* prompt_ask_later(): a question waiting for the line to be free
	 * (later_fn NULL: none). */
	char		 later_q[600];
	prompt_answer_fn later_fn;
	void		*later_arg;
	/* Hosts that asked something (labmodel_cb.ask) and wait until no
	 * other question is open, in the order they asked. */
	char		*host_asks[16];
	size_t		 nhost_asks;
	char		 filter[256];	/* the applied filter, "" for none */
	char		 message[256];	/* shown once in the status bar */
	bool		 message_error;
	bool		 message_eval;	/* it came from the evaluation */
	/* Every status-bar message, whole, the last APP_HISTORY_KEPT in
	 * a ring (`:messages`); nhistory counts them all. */
	struct app_said	 history[APP_HISTORY_KEPT];
	size_t		 nhistory;
	bool		 dirty, relayout;
	struct reportrun *report;	/* `:report` running, or NULL */
	long		 spinner_timer;
	int		 spinner;
	char		*self;		/* this program, for `check --stream` */
	int		 rows, cols;
	/* Where the tab bar drew each tab: columns [tab_x0, tab_x1) of the
	 * title line, tab_x1 0 for one not drawn (frame.c; for clicks). */
	int		 tab_x0[16], tab_x1[16];
	struct termin	 termin;	/* what the terminal sends */
	/* The lab's alert rules, judged here while this console holds the
	 * state's journal, and the journal (model/alertsend.h), or NULL. */
	struct alertsend *alerts;
	/* The open alerts as the last frame counted them (frame.c): the
	 * soaks' and the journal's ongoing; those that ever opened. */
	size_t		 alerts_open, alerts_opened;
	size_t		 journal_open;
	long		 termin_timer;	/* a sequence begun waits for its
					   rest until then */
	struct headless	*headless;	/* the script, or NULL: a terminal */
	/* The frame cap (frame_due): when the last frame was painted, and
	 * whether what waits to be painted came from the operator. */
	int64_t		 painted_ms;
	bool		 keyed;
	long		 frame_timer;
};

/* For the prompt (prompt.c) and the views: evaluate the workspace again
 * (once more after the running evaluation, if one runs); show a top-level
 * screen; tell every view on the stack the filter or the board changed. */
void	 app_evaluate(struct app *a);
void	 app_switch_tab(struct app *a, const struct view_ops *ops);
/* Why a screen holds the console (view.h: holding), or NULL. */
const char *app_holding(const struct app *a);
void	 app_refresh_views(struct app *a);
/* A key as the terminal gave it, and a click at screen cell (y, x), as if
 * the terminal had: what the headless mode's script does (headless.c). */
void	 app_key(struct app *a, int key);
void	 app_click(struct app *a, int y, int x, bool twice);
/* The next host waiting with a question (app.c), once none is open. */
void	 app_ask_next(struct app *a);

#endif
