/*
 * fleet.h: every workspace of the lab with its board, for the Workspaces
 * screen.  Each is a board source (boardsrc.h) with neither a watch nor a
 * history: `calops check --stream -- WS` run on its own host through that
 * host's transport -- a child for the local host, an exec channel for an
 * SSH one: one path -- its events folded exactly as the console's own
 * board's are, so a row says what that workspace's board would.
 *
 * A board is kept until the next evaluation of it completes; one whose
 * check broke with its host's link is evaluated again once the host is up
 * (fleet_hosts_changed), others when the owner asks (fleet_refresh).  A
 * host that is not up keeps its last board, and its age says how old it
 * is.  No ncurses here.
 */
#ifndef CALOPS_FLEET_H
#define CALOPS_FLEET_H

#include "calops.h"

#include "model/boardsrc.h"

struct fleet;
struct labmodel;
struct loop;

struct fleet_ws {
	const char	*host;		/* borrowed from the lab */
	const char	*path;
	struct boardsrc	*src;		/* its board: boardsrc_board() */
};

/* changed (may be NULL) hears of every new board, failure or start, from
 * the loop. */
struct fleet	*fleet_new(struct loop *l, struct labmodel *lm,
		    void (*changed)(void *arg), void *arg);
void		 fleet_free(struct fleet *f);
size_t		 fleet_count(const struct fleet *f);
const struct fleet_ws *fleet_at(const struct fleet *f, size_t i);
/* Evaluate workspace i again (after the one running, if one runs). */
void		 fleet_evaluate(struct fleet *f, size_t i);
/* Evaluate every workspace whose last evaluation ended more than
 * max_age_ms ago, or never ran (max_age_ms 0: every one). */
void		 fleet_refresh(struct fleet *f, int64_t max_age_ms);
/* A host changed state: checks lost with a link go again once it is up. */
void		 fleet_hosts_changed(struct fleet *f);
/* The first gate that is not green (pass), or -1 when all are. */
int		 fleet_first_open_gate(const struct board_eval *ev);

#endif
