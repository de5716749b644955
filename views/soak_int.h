/*
 * soak_int.h: what the soak view's three files share: soak.c (the view, its
 * keys and timer, the grid of graphs), soakpane.c (the header rows, the
 * alert journal, starting a soak) and soaklist.c (which soak is shown, and
 * the list of the lab's soaks).  Not a public contract: only those three
 * include it.
 *
 * soak.c owns struct soak and the tables behind it (zooms, windows, the
 * graphs); soakpane.c reads them through the functions below and only
 * draws (what it draws for soak.c is soakpane.h's); soaklist.c sets which
 * soak struct soak shows, and draws the list.
 */
#ifndef CALOPS_SOAK_INT_H
#define CALOPS_SOAK_INT_H

#include "calops.h"

#include "lab/labmodel.h"
#include "metrics/sketch.h"
#include "views/core/action.h"
#include "views/core/graph.h"
#include "views/core/list.h"
#include "views/soak.h"

#define SOAK_CHIPS_MAX	64
#define SOAK_SERIES_MAX	256
#define SOAK_ZOOM_DEFAULT 2		/* an index in soak.c's zooms */

struct app;
struct mseries;

struct soak {
	struct app	*app;
	char		*job;		/* "host/id" of the job shown */
	int		 chip;		/* -1 merged, else an index in chips */
	int		 chips[SOAK_CHIPS_MAX];
	size_t		 nchips;
	size_t		 win;		/* index in soak.c's windows */
	size_t		 zoom;		/* index in soak.c's zooms */
	double		 cursor;	/* tool time, NAN: live */
	bool		 pane;		/* the alert journal shown */
	struct list	 alerts;
	long		 timer;
	struct sketch	 sk;
	struct mseries	*sel[SOAK_SERIES_MAX];
	int		 link;		/* soakpane_link() as of this draw */
	/* "host/id" of the soak asked for (Jobs, n, the list), or NULL: the
	 * newest */
	char		*pin;
	/* A soak was chosen (pushed from Jobs, Enter on the list, s, n):
	 * watched rather than listed (soaklist.c) */
	bool		 chosen;
	bool		 drilled;	/* pushed by another screen (Jobs) */
	/* soaklist.c: the lab's soaks as of the last draw, the list of them
	 * and the selected one's "host/id" */
	struct ljob	*rows[LAB_JOBS_MAX];
	size_t		 nrows;
	struct list	 soaks;
	char		*list_sel;
};

/* soakpane.c.  Whether the job's figures are news: its host is up and
 * heard since it came back (live; an ended job is as live as it gets),
 * down, or replaying what it held (catching up).  Nothing is extrapolated
 * past the last event while not live: no ETA, no sliding window. */
enum soak_link {
	SOAK_LINK_LIVE,
	SOAK_LINK_DOWN,
	SOAK_LINK_CATCHING_UP,
};

enum soak_link	 soakpane_link(struct soak *v, const struct ljob *j);

/* soak.c.  The job's chips into v->chips, from the job or else from its
 * series. */
void		 soak_find_chips(struct soak *v, const struct ljob *j);
/* The job's "now" in tool time (NAN before its first sample). */
double		 soak_job_now(const struct soak *v, const struct ljob *j);
/* The series of a metric for the chip shown into v->sel, how many; derived
 * (a percentile series) takes its own merged one when merged. */
size_t		 soak_select(struct soak *v, const struct ljob *j,
		    const char *name, bool derived);
/* The zoom's span in seconds; the headlines' window by name (the whole
 * run once the run has ended). */
double		 soak_zoom(const struct soak *v);
const char	*soak_window_name(const struct soak *v, const struct ljob *j);
/* The whole run so far against the SLA and the leak rule, merged over
 * every chip, as G9 judges it: 1 it holds, 0 it does not (why says how),
 * -1 not known (no SLA, no samples).  A run that failed or was killed
 * does not hold. */
int		 soak_run_verdict(struct soak *v, const struct ljob *j,
		    char *why, size_t len);

/* soaklist.c.  A soak's "host/id" (a new string). */
char		*soaklist_key(const struct ljob *j);
/* The soak shown: the one asked for while the model holds it, else the
 * newest running, else the newest (borrowed, or NULL: none); the view is
 * set as that soak was last looked at. */
struct ljob	*soaklist_current(struct soak *v);
/* How the soak shown is looked at, kept for when it is shown again (the
 * console's lifetime, the oldest of 16 forgotten first). */
void		 soaklist_remember(const struct soak *v);
/* The lab's soaks into out (soaklist_soaks), and the index of the one
 * shown in *at. */
size_t		 soaklist_at(struct soak *v, size_t *at, struct ljob **out,
		    size_t max);
/* n: the lab's next soak, round; q or Esc on a soak chosen on the Soak
 * tab: back to the list, when there is more than one (R_NONE: not). */
int		 soaklist_next(struct app *a, struct soak *v);
int		 soaklist_back(struct soak *v);
/* The lab's soaks the model holds, newest first, up to max into out: how
 * many (borrowed: valid until the model next changes). */
size_t		 soaklist_soaks(struct soak *v, struct ljob **out, size_t max);
/* Whether the list is shown rather than a soak: more than one, none
 * chosen. */
bool		 soaklist_showing(struct soak *v);
/* The list in rows from top; its keys (Enter chooses), a click, and the
 * status line. */
void		 soaklist_draw(struct soak *v, int top, int rows, int cols);
int		 soaklist_action(struct app *a, struct soak *v,
		    enum action act);
int		 soaklist_click(struct soak *v, int y, int x, bool twice);
void		 soaklist_status(struct soak *v, char *buf, size_t len);

#endif
