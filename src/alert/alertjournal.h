/*
 * alertjournal.h: every alert a lab's rules raised, kept across runs
 * (share/doc/alerts.md, "The journal"): a JSON-lines file, journal.jsonl,
 * in the alerts folder of the state ($XDG_STATE_HOME/calops/alerts),
 * opened as src/base/statedir.h opens the state (the user's own, written
 * by nobody else), appended a line per note and read back folded into one
 * entry an alert.
 *
 * A line is an object with "id" and "state": "firing" or "resolved" (a
 * note of alerteval.h: the rule, its kind and severity, the subject, start,
 * end, the value, the threshold, min/avg/max over the breach, the summary,
 * and "t", the wall time it was written), or, with "hook" ("sent",
 * "failed", "gave-up"), what became of running the hook for that state.  An entry is an id's lines
 * folded: its start from the first, its end and min/avg/max from the
 * resolution (NAN end: ongoing).  A line with "baseline" is the gates'
 * statuses a sender last judged on a workspace (struct alertbaseline), so
 * that the next sender compares its first board with them.  A line that is
 * not such an object is
 * counted and skipped; a last line cut short by a crash is cut off before
 * the next is appended.  At most ALERTJOURNAL_MAX entries are kept (the
 * oldest dropped first, counted).
 *
 * Ownership: a struct alertjournal is the caller's (alertjournal_close
 * releases it); its entries and their strings are its own.
 */
#ifndef CALOPS_ALERTJOURNAL_H
#define CALOPS_ALERTJOURNAL_H

#include "calops.h"

#include <jansson.h>

#define ALERTJOURNAL_FILE	"journal.jsonl"
#define ALERTJOURNAL_MAX	100000
#define ALERTJOURNAL_LINE_MAX	(64u << 10)
#define ALERTJOURNAL_BASELINES	4096	/* workspaces kept, oldest dropped */
#define ALERTJOURNAL_GATES	64	/* statuses in one baseline */

struct alertnote;

struct alertentry {
	char	*id, *rule, *kind, *severity;
	char	*host, *job, *workspace, *metric;	/* or NULL */
	int	 chip, gate;			/* or -1 */
	double	 start, end;			/* end NAN: ongoing */
	double	 value, threshold, vmin, vavg, vmax;	/* NAN: none */
	char	*summary;
	bool	 sent_firing, sent_resolved;	/* the hook said so */
	unsigned failures;			/* of the hook */
	bool	 gave_up;			/* it will not be retried */
	char	*hook_error;			/* the last, or NULL */
};

/*
 * The gates' statuses judged last on a workspace of a host (share/doc/
 * alerts.md §5): status[g] is gate g's status name ("pass", "fail"), or
 * NULL when not judged.  seq is how many alerts the journal had made when
 * its line was read (dropped ones too): an entry i came after it when
 * dropped + i >= seq.
 */
struct alertbaseline {
	char	*host, *workspace;
	char	**status;
	size_t	 nstatus;
	double	 t;
	size_t	 seq;
};

struct alertjournal {
	int			 fd;
	char			*path;
	struct alertentry	*e;		/* in order of first line */
	size_t			 n, alloc;
	size_t			 bad;		/* lines skipped */
	size_t			 dropped;	/* entries past the cap */
	struct alertbaseline	*base;		/* one a workspace */
	size_t			 nbase;
};

/*
 * The journal of the state folder, read; made (with its folder) when
 * create, else a missing one is empty.  0, or -1 with err (a folder or
 * file refused, a read error).
 */
int		 alertjournal_open(struct alertjournal *j, bool create,
		    char *err, size_t errlen);
/* The same for the journal file at path (tests, --journal FILE). */
int		 alertjournal_open_path(struct alertjournal *j,
		    const char *path, bool create, char *err, size_t errlen);
void		 alertjournal_close(struct alertjournal *j);
/*
 * Read the journal again, from its start (another process appended to
 * it): its entries are dropped and folded anew.  A torn last line is
 * skipped, and cut off only when cut: by the one that writes it, holding
 * it (share/doc/alerts.md §6).  0, or -1 with err.
 */
int		 alertjournal_reload(struct alertjournal *j, bool cut,
		    char *err, size_t errlen);

/* Append n, written at wall time t, and fold it in: 0, or -1 with err
 * (then not folded: what is shown is what was kept). */
int		 alertjournal_note(struct alertjournal *j,
		    const struct alertnote *n, double t, char *err,
		    size_t errlen);
/*
 * What became of a hook run on the alert id for its firing or its
 * resolution: outcome "sent", "failed" (retried) or "gave-up", why it
 * failed (NULL when sent).  A hook's outcome is kept so that a restart sends
 * what was not sent (at least once) and nothing sent twice.  0, or -1 with
 * err.
 */
int		 alertjournal_hook(struct alertjournal *j, const char *id,
		    bool resolved, const char *outcome, unsigned attempt,
		    const char *why, double t, char *err, size_t errlen);
/*
 * The gates' statuses judged on workspace of host, at wall time t: the
 * names status[0 .. n - 1] (a NULL one: not judged), n at most
 * ALERTJOURNAL_GATES.  0, or -1 with err.
 */
int		 alertjournal_baseline(struct alertjournal *j,
		    const char *host, const char *workspace,
		    const char *const *status, size_t n, double t, char *err,
		    size_t errlen);
/* The last baseline of workspace on host (borrowed), or NULL. */
const struct alertbaseline *alertjournal_find_baseline(
		    const struct alertjournal *j, const char *host,
		    const char *workspace);
/* The entry of id (borrowed), or NULL. */
const struct alertentry *alertjournal_find(const struct alertjournal *j,
		    const char *id);
/* t (seconds since the epoch) as RFC 3339 UTC, Alertmanager's way; NAN
 * is its zero time, "0001-01-01T00:00:00Z".  buf: 32 bytes will do. */
void		 alertjournal_time(double t, char *buf, size_t len);
/* An entry as the JSON of `calops alerts --journal --json`, its duration
 * the time to its end or to now. */
json_t		*alertjournal_entry_json(const struct alertentry *e,
		    double now);
/* For people, as `calops alerts --journal` and the Alerts screen show
 * them: a duration ("3h12m", "4m05s", "12s"); what an alert is about
 * ("lab3 chip 1, /w G9, job 17", sanitised, a new string); what became of
 * its hook ("sent", "waiting", "failed x3", "gave up"). */
void		 alertjournal_duration(char *buf, size_t len, double s);
char		*alertjournal_subject(const struct alertentry *e);
void		 alertjournal_hook_state(const struct alertentry *e,
		    char *buf, size_t len);

#endif
