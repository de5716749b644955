/*
 * app.h: the console itself.  One struct app owns the event loop, the board
 * model, the view stack, the evaluation child (`calops check --stream`), the
 * workspace watcher and the prompt.  Screens reach them through the
 * functions below; the struct is the app module's own (app_int.h).
 */
#ifndef CALOPS_APP_H
#define CALOPS_APP_H

#include "calops.h"

#include "lab/labmodel.h"
#include "loop/loop.h"
#include "model/boardmodel.h"
#include "remote/lab.h"
/* The prompt's questions and ':' commands are the screens' too. */
#include "views/app/prompt.h"
#include "views/core/theme.h"
#include "views/view.h"

struct alertsend;
struct app;

struct app_opts {
	const char	*path;		/* workspace (or lab file, later) */
	const char	*theme;		/* NULL: the config's */
	const char	*config_path;	/* NULL: the default */
	bool		 demo;		/* showing the bundled demo */
	bool		 readonly;
	bool		 ascii;
	int		 colour;	/* -1 auto, 0 never, 1 always */
	/* No terminal: a virtual screen this size, driven by the script
	 * (headless.h). */
	const char	*script;
	int		 cols, rows;
	/* Protected hosts jobs may run on (--write HOST). */
	const char	*write[16];
	size_t		 nwrite;
};

/* Run the console until the user quits; returns the exit status. */
int	 app_main(const struct app_opts *o);

/* What screens read of the console (the rest of struct app is the app
 * module's own, app_int.h): the board as last evaluated, the lab model
 * (never NULL once open), the loop for their timers, the workspace path as
 * given, the applied filter ("" for none), and --readonly. */
const struct board *app_board(const struct app *a);
/* Where that board comes from: evaluated and watched, with its age. */
struct boardsrc;
const struct boardsrc *app_boardsrc(const struct app *a);
struct labmodel	*app_labmodel(const struct app *a);
struct loop	*app_loop(const struct app *a);
/* The alert journal's sender of the state folder (model/alertsend.h): this
 * console's, which sends while it holds the journal; NULL when the state's
 * alerts folder was refused. */
struct alertsend *app_alerts(const struct app *a);
const char	*app_workspace(const struct app *a);
/* The SSH host the workspace is on, or NULL: this machine. */
const char	*app_workspace_host(const struct app *a);
/* The lab host the workspace is on, local or SSH: a gate's job from the
 * board runs there, in it. */
const char	*app_workspace_lab_host(const struct app *a);
/* Every workspace of the lab with its board (the Workspaces screen's),
 * made when first asked for and kept while the console runs. */
struct fleet	*app_fleet(struct app *a);
/* Make workspace path on host (a lab host's name) the one the board,
 * tickets and findings show, evaluated and watched from now on, and show
 * the board. */
void		 app_open_workspace(struct app *a, const char *host,
		    const char *path);
const char	*app_filter(const struct app *a);
/* The config file's options, as read (never NULL). */
struct config;
const struct config *app_config(const struct app *a);
/* Evaluate the workspace again now (a release switched it). */
void		 app_reevaluate(struct app *a);
bool		 app_readonly(const struct app *a);
/* Paint again before the next sleep: what a screen shows changed outside
 * its handlers (a timer, the lab model). */
void		 app_redraw(struct app *a);
/* Whether data is the top screen's, the one the terminal shows. */
bool		 app_on_top(const struct app *a, const void *data);

/* For views. */
void	 app_next_tab(struct app *a);
void	 app_push(struct app *a, const struct view_ops *ops, const void *arg);
/* Close the screen whose data is data when it is the top one (a screen
 * done with itself from an answer to prompt_ask); data is freed. */
void	 app_close(struct app *a, const void *data);
void	 app_message(struct app *a, bool error, const char *fmt, ...)
	    PRINTFLIKE(3, 4);
/* Copy text out (y, Y; views/core/clip.h): to the terminal's clipboard
 * where it takes OSC 52, and always to the state folder's copied/NAME;
 * the status bar says where, what naming what was copied ("the
 * finding"). */
void	 app_copy(struct app *a, const char *what, const char *name,
	    const char *text);

#define APP_HISTORY_KEPT 200

/* The status-bar messages kept, whole (the bar shows what fits): how many,
 * and the i-th, oldest first, with when it was said and whether it was an
 * error; borrowed until the next app_message(). */
size_t	 app_history(const struct app *a);
const char *app_history_at(const struct app *a, size_t i, time_t *at,
	    bool *error);
/* Put the question a lab host asks (an unknown host key to trust, a
 * passphrase) to the operator now, or after the one open. */
void	 app_ask_host(struct app *a, const char *host);
/* Case-insensitive substring match against the current filter. */
bool	 app_filter_match(const struct app *a, const char *s);
/* Open rel (workspace-relative) at a line in $EDITOR, or $PAGER; on a
 * workspace of an SSH host, in the pager screen (pager.c), its lines
 * fetched from there.  A folder is listed in the folder screen
 * (folder.c), to open what is in it. */
void	 app_open_file(struct app *a, const char *rel, const char *where);
/* The same for rel known to be no folder (the folder screen's file). */
void	 app_open_regular(struct app *a, const char *rel, const char *where);

#endif
