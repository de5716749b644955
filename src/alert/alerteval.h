/*
 * alerteval.h: the rules of a lab judged over time (share/doc/alerts.md):
 * what is fed in is a kind's value or condition on one subject (a host, a
 * chip, a job, a workspace's gate) at a time; what comes out is a queue of
 * notes, each an alert firing or resolved, for the journal and the hooks.
 * Pure model: no I/O, no clock of its own (every time is the caller's, in
 * seconds since the epoch), so a test or a replay drives it.
 *
 * Each rule of the fed kind judges each subject apart.  A breach opens
 * when first seen and the alert fires once it has held for the rule's
 * for: (on the feed that shows it, or on alerteval_tick(), so that a host
 * that says nothing more while it is down still fires), and not sooner
 * than repeat: after the rule's last firing on that subject; it resolves
 * on the first clear judgement.  A value that is NAN (unknown: no sample,
 * no SLA) changes nothing.  The kinds that are events
 * (alertrule_kind_event) fire at once and have no resolution: their note
 * is firing with end equal to start.
 *
 * An alert's id is the same for its firing and its resolution and on any
 * run that sees the same breach start: 16 hex digits of a hash of the
 * rule's name, the subject and the start to the millisecond.  A receiver
 * de-duplicates on it and the state.  alerteval_restore() takes back an
 * alert a previous run left firing (from the journal), so that a restart
 * neither fires it again nor forgets to resolve it.
 *
 * Ownership: the evaluator borrows conf, which must outlive it; a note
 * from alerteval_next() owns its strings (alerteval_note_release), but its rule
 * is borrowed from conf.
 */
#ifndef CALOPS_ALERTEVAL_H
#define CALOPS_ALERTEVAL_H

#include "calops.h"

#include "alert/alertrule.h"

#define ALERT_NONE	(-1)	/* chip or gate: not part of the subject */
#define ALERTEVAL_TRACKERS_MAX	65536	/* subjects followed at once */

/* What a rule judges: any string may be NULL (not part of it). */
struct alert_subject {
	const char	*host;
	int		 chip;		/* ALERT_NONE */
	const char	*job;
	const char	*workspace;
	int		 gate;		/* ALERT_NONE */
	/* The series judged ("rss_bytes": a chip's two memories leak
	 * apart), or NULL. */
	const char	*metric;
};

enum alert_state {
	ALERT_FIRING,
	ALERT_RESOLVED,
};

struct alertnote {
	char			*id;
	const struct alertrule	*rule;		/* borrowed */
	enum alert_state	 state;
	char			*host, *job, *workspace;	/* or NULL */
	char			*metric;	/* or NULL */
	int			 chip, gate;	/* or ALERT_NONE */
	double			 start, end;	/* end NAN while firing */
	double			 value;		/* the last judged */
	double			 threshold;	/* NAN: none compared */
	double			 vmin, vavg, vmax;	/* over the breach */
	char			*summary;	/* one line, not sanitised */
};

struct alerteval;

struct alerteval *alerteval_new(const struct alertconf *conf);
void		 alerteval_free(struct alerteval *ae);

/*
 * The value v of kind on subject at ts, compared by each rule of the kind
 * with its threshold, or deflt when it gives none (the SLA's); a rule with
 * neither does not judge.  what says the value for people ("TTFT P99
 * 412 ms"; NULL: the kind's name and the value).
 */
void		 alerteval_value(struct alerteval *ae, enum alert_kind kind,
		    const struct alert_subject *subj, double v, double deflt,
		    const char *what, double ts);
/* A condition judged by the caller (a host disconnected, a gate red),
 * v its value (the seconds down, the status) for the journal. */
void		 alerteval_cond(struct alerteval *ae, enum alert_kind kind,
		    const struct alert_subject *subj, bool breach, double v,
		    const char *what, double ts);
/* An event of an event kind (a job failed, a gate changed). */
void		 alerteval_event(struct alerteval *ae, enum alert_kind kind,
		    const struct alert_subject *subj, double v,
		    const char *what, double ts);
/* Wall time passed with no feed: the breaches held long enough fire
 * (not those of the metric kinds, whose time is the samples'). */
void		 alerteval_tick(struct alerteval *ae, double ts);

/* An alert of rule (by name) on subj left firing since start: 0, or -1
 * when the lab has no such rule any more (it is then not followed). */
int		 alerteval_restore(struct alerteval *ae, const char *rule,
		    const struct alert_subject *subj, double start,
		    double last);

/* The oldest note not taken into *out (the caller's), or false. */
bool		 alerteval_next(struct alerteval *ae, struct alertnote *out);
void		 alerteval_note_release(struct alertnote *n);
/* The id of an alert of rule on subj that started at start, into buf
 * (at least 17 bytes). */
void		 alerteval_id(const char *rule,
		    const struct alert_subject *subj, double start, char *buf,
		    size_t len);
/* How many alerts are firing now. */
size_t		 alerteval_nfiring(const struct alerteval *ae);

#endif
