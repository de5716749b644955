/*
 * app.h: the console itself.  One struct app owns the event loop, the board
 * model, the view stack, the evaluation child (`calops check --stream`), the
 * workspace watcher and the prompt.  Views reach the model through it.
 */
#ifndef CALOPS_APP_H
#define CALOPS_APP_H

#include "calops.h"

#include "lab/labmodel.h"
#include "loop/child.h"
#include "loop/loop.h"
#include "loop/watch.h"
#include "loop/watchloop.h"
#include "model/boardmodel.h"
#include "remote/lab.h"
#include "views/core/config.h"
#include "views/core/theme.h"
#include "views/view.h"

#define APP_STACK_MAX 8

enum app_mode {
	MODE_NORMAL,
	MODE_FILTER,		/* typing after '/' */
	MODE_COMMAND,		/* typing after ':' */
	MODE_ASK,		/* typing an answer to prompt_ask() */
};

/* What prompt_ask() calls with the answer typed, or NULL when it was
 * cancelled (Esc, ^C); arg is prompt_ask()'s. */
typedef void (*app_answer_fn)(struct app *, const char *answer, void *arg);

struct app_opts {
	const char	*path;		/* workspace (or lab file, later) */
	const char	*theme;		/* NULL: the config's */
	const char	*config_path;	/* NULL: the default */
	bool		 demo;		/* showing the bundled demo */
	bool		 readonly;
	bool		 ascii;
};

struct app {
	struct loop	*loop;
	struct board	 board;
	struct lab	 lab;		/* the lab file, or one made for a workspace */
	struct labmodel	*labm;		/* hosts, jobs, streams (never NULL once open) */
	char		*ws;		/* the workspace path as given */
	bool		 demo, readonly;
	struct config	 config;
	struct theme	 theme;
	struct view	 stack[APP_STACK_MAX];
	int		 depth;
	enum app_mode	 mode;
	char		 input[256];	/* the prompt's text */
	size_t		 input_len;
	char		 ask[128];	/* MODE_ASK: the question */
	app_answer_fn	 ask_fn;
	void		*ask_arg;
	char		 filter[256];	/* the applied filter, "" for none */
	char		 message[256];	/* shown once in the status bar */
	bool		 message_error;
	bool		 message_eval;	/* it came from the evaluation child */
	bool		 dirty, relayout;
	struct child	*eval;
	bool		 eval_again;	/* a change arrived while evaluating */
	struct watchloop *watch;	/* the workspace's, or NULL */
	long		 debounce_timer, spinner_timer;
	int		 spinner;
	char		*self;		/* this program, to run `check --stream` */
	int		 rows, cols;
};

/* Run the console until the user quits; returns the exit status. */
int	 app_main(const struct app_opts *o);

/* Mark dirty, paint once: the frame and the top view, if anything changed
 * (frame.c; called before every sleep). */
void	 frame_paint(struct app *a);

/* For the prompt (prompt.c) and the views: evaluate the workspace again
 * (once more after the running evaluation, if one runs); show a top-level
 * screen; tell every view on the stack the filter or the board changed. */
void	 app_evaluate(struct app *a);
void	 app_switch_tab(struct app *a, const struct view_ops *ops);
void	 app_refresh_views(struct app *a);
/* A key while the prompt is open (prompt.c); returns a reaction. */
int	 prompt_key(struct app *a, int key);

/* For views. */
void	 app_next_tab(struct app *a);
void	 app_push(struct app *a, const struct view_ops *ops, const void *arg);
void	 app_message(struct app *a, bool error, const char *fmt, ...)
	    PRINTFLIKE(3, 4);
/* Ask a question in the status bar; fn gets the answer (see app_answer_fn).
 * Every key goes to the prompt until then, so the asking view is still
 * there when fn runs (unless the console quits: fn is not called). */
void	 prompt_ask(struct app *a, const char *question, app_answer_fn fn,
	    void *arg);
/* Case-insensitive substring match against the current filter. */
bool	 app_filter_match(const struct app *a, const char *s);
/* Open rel (workspace-relative) at a line in $EDITOR, or $PAGER. */
void	 app_open_file(struct app *a, const char *rel, const char *where);
/* Glyph and role for a status (status is never told by colour alone). */
const char *app_status_glyph(enum gate_status s);
int	 app_status_role(enum gate_status s);
/* Glyph and role for a job's state by name, as `calops jobs` and the lab
 * model say it (running, done, failed, killed, lost, corrupt, starting,
 * broken); "?" and ROLE_DIM for another. */
const char *app_job_glyph(const char *state, enum role *r);
int	 app_severity_role(enum severity s);

#endif
