/*
 * boardsrc.h: where a workspace's board comes from, with no ncurses: the
 * console's own board and each row of the Workspaces screen (fleet.h)
 * read their boards through one, and so can a headless follower.
 *
 * An evaluation is `calops check --stream -- WS` (proto/hostcmd.h): a
 * child of this program for the console's workspace on this machine
 * (opts.self), else through the lab host's transport (an exec channel on
 * an SSH host, the local transport's child here).  Its events are folded
 * by boardmodel.h, which keeps the last complete evaluation while the next
 * one runs.  One runs at a time: asked for while one runs, it runs once
 * more after.  An evaluation that breaks with its host's link, or cannot
 * start there, runs again once the host is up (boardsrc_host_changed).
 *
 * Watched (opts.watch, from boardsrc_start on), a change of the workspace
 * evaluates it again once it has been quiet for opts.debounce_ms: on this
 * machine by an inotify or polling watch (loop/watchloop.h), which an
 * evaluation starting rebases (it reads every change made until then); on
 * an SSH host by `calops watch` there, whose `watching` event evaluates it
 * once more (what changed before the watch was in place), started again
 * when the host comes up on a new connection.
 *
 * With opts.history > 0, each complete evaluation is appended to the
 * workspace's history (history.h), at most that many kept, so that a red
 * gate can say what changed since it was last green.
 *
 * Ownership: made by boardsrc_new() and freed by boardsrc_free(), which
 * stops what runs; the loop and the lab model are borrowed and outlive
 * it; opts' strings are copied.  The board returned is the source's,
 * valid until boardsrc_free().  No callback may free the source.
 */
#ifndef CALOPS_BOARDSRC_H
#define CALOPS_BOARDSRC_H

#include "calops.h"

#include "model/boardmodel.h"

struct boardsrc;
struct labmodel;
struct loop;

/* What changed, for the changed hook: BOARD_CHANGED and BOARD_PROGRESS
 * (boardmodel.h), and these. */
enum {
	BOARDSRC_BEGAN = 0x10,	/* an evaluation began (or failed to) */
	BOARDSRC_ENDED = 0x20,	/* it ended; board.error: it gave none */
	BOARDSRC_WATCH = 0x40,	/* the watch started, or stopped */
};

/* What the source tells its owner; either hook may be NULL. */
struct boardsrc_cb {
	void	(*changed)(struct boardsrc *, int what, void *arg);
	/* A line for the operator: the evaluation's own complaint on its
	 * stderr (eval: what the next evaluation makes stale), or the
	 * watch's, or why the history was not kept.  Untrusted text. */
	void	(*said)(struct boardsrc *, bool eval, const char *msg,
		    void *arg);
	void	*arg;
};

struct boardsrc_opts {
	const char	*host;		/* the lab host it is on */
	const char	*ws;		/* its path, as the lab file gives it */
	/* This program, to run the check as its child when host is this
	 * machine's; NULL: through the host's transport. */
	const char	*self;
	bool		 watch;		/* evaluate again on a change */
	int		 debounce_ms;	/* of a burst of changes */
	int		 history;	/* evaluations kept; 0: none */
};

struct boardsrc	*boardsrc_new(struct loop *l, struct labmodel *lm,
		    const struct boardsrc_opts *opts,
		    const struct boardsrc_cb *cb);
void		 boardsrc_free(struct boardsrc *s);

/* Watch the workspace (when opts.watch) and evaluate it. */
void		 boardsrc_start(struct boardsrc *s);
/* Evaluate it again (once more after the one running, if one runs). */
void		 boardsrc_evaluate(struct boardsrc *s);
/* A host of the lab changed state: call on every change (cheap unless
 * this source waits for its host). */
void		 boardsrc_host_changed(struct boardsrc *s);

const struct board *boardsrc_board(const struct boardsrc *s);
/* Whether a check runs now. */
bool		 boardsrc_evaluating(const struct boardsrc *s);
/* Whether the board is settled: none runs, none is asked for. */
bool		 boardsrc_idle(const struct boardsrc *s);
/* loop_now_ms() when the last evaluation ended, and when one last gave
 * a board; 0: never. */
int64_t		 boardsrc_done_ms(const struct boardsrc *s);
int64_t		 boardsrc_valid_ms(const struct boardsrc *s);
/* How the workspace is watched, in words: the local watch's ("inotify"),
 * "watched on HOST", "starting a watch on HOST", or "not watching". */
void		 boardsrc_watch_text(const struct boardsrc *s, char *buf,
		    size_t len);

#endif
