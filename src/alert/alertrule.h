/*
 * alertrule.h: the alert rules of a lab (share/doc/alerts.md): what is
 * judged, how bad it is, how long it must hold and how often it may speak.
 *
 * They are written under `alerts:` in the lab file (or the config file):
 *
 *	alerts:
 *	  hook: [curl, -s, --data-binary, "@-", http://alerts.example/hook]
 *	  rules:
 *	    - {name: slow-first-token, kind: sla.ttft_p99, for: 120}
 *	    - {kind: host.down, for: 300, severity: critical}
 *
 * hook: is the team's command, read by the lab file (remote/lab.h) as its
 * runner: is.  rules: is optional: without it every default rule
 * (alertrule_defaults) is in force.  A rule has a kind (the table in
 * alertrule.c, ALERT_KIND_COUNT of them) and optionally a name (the kind
 * when not given; 1 to 64 of [A-Za-z0-9._-], unique in the lab), a
 * severity (critical, warning or info), for: (seconds the condition must
 * hold before the alert fires, 0 to ALERTRULE_FOR_MAX), repeat: (the least
 * seconds between two firings of the rule on one subject: a breach that
 * comes back sooner waits, 0 to ALERTRULE_FOR_MAX) and threshold: (a
 * number, for the kinds that compare one: the SLA kinds take the
 * workspace's SLA when it is not given, the rate kinds their default).
 * Unknown keys, an unknown kind and a value out of range are errors
 * "FILE:LINE:COL: message".
 *
 * A struct alertconf owns every string in it; alertrule_release frees them.
 */
#ifndef CALOPS_ALERTRULE_H
#define CALOPS_ALERTRULE_H

#include "calops.h"

#include <jansson.h>

#define ALERTRULE_NAME_MAX	64
#define ALERTRULE_FOR_MAX	(7 * 86400)	/* a week */
#define ALERTRULE_MAX		64		/* rules in one lab */

enum alert_kind {
	ALERT_SLA_TTFT,		/* TTFT P99 over 1 min above the SLA (ms) */
	ALERT_SLA_TPOT,		/* TPOT P99 over 1 min above the SLA (ms) */
	ALERT_SLA_SUCCESS,	/* success rate over 10 min below the SLA */
	ALERT_LEAK,		/* G9's leak rule says growing (bytes) */
	ALERT_ERRORS,		/* a chip's errors per minute over threshold */
	ALERT_RESETS,		/* a chip's resets per minute over threshold */
	ALERT_JOB,		/* a job failed, was killed or was lost */
	ALERT_HOST,		/* a host disconnected or refused */
	ALERT_DISK,		/* a disk-full gap on a host */
	ALERT_GATE_RED,		/* a gate of a workspace turned red */
	ALERT_GATE_CHANGED,	/* a gate of a workspace changed status */
};
#define ALERT_KIND_COUNT 11

enum alert_severity {
	ALERT_CRITICAL,
	ALERT_WARNING,
	ALERT_INFO,
};

struct alertrule {
	char			*name;
	enum alert_kind		 kind;
	enum alert_severity	 severity;
	double			 for_s;
	double			 repeat_s;
	double			 threshold;	/* NAN: the kind's default */
};

/* The hook's timing: the defaults are alerthook.h's. */
#define ALERTRULE_TIMEOUT_MAX	3600	/* seconds a hook may run */
#define ALERTRULE_TRIES_MAX	100

struct alertconf {
	struct alertrule *rules;
	size_t		  nrules;
	/* timeout:, backoff: (seconds) and tries: of alerts: */
	double		  timeout_s, backoff_s;
	unsigned	  tries;
	/* What the file gave (not a default): rules:, and of the timing
	 * ALERTCONF_TIMEOUT | ALERTCONF_BACKOFF | ALERTCONF_TRIES. */
	bool		  rules_given;
	unsigned	  timing_given;
};
#define ALERTCONF_TIMEOUT	0x1
#define ALERTCONF_BACKOFF	0x2
#define ALERTCONF_TRIES		0x4

/* The name of a kind as written ("sla.ttft_p99"), and of a severity. */
const char	*alertrule_kind_name(enum alert_kind k);
const char	*alertrule_severity_name(enum alert_severity s);
/* Whether k is an event (fires once, at once, and has no resolution):
 * a job's end and a gate's change. */
bool		 alertrule_kind_event(enum alert_kind k);
/* Whether k is judged on the samples' time (the metric kinds), not on
 * the wall clock: a tick of the wall clock does not fire it. */
bool		 alertrule_kind_tool_time(enum alert_kind k);
/* Whether a breach of k is a value below its threshold. */
bool		 alertrule_kind_below(enum alert_kind k);
/* The threshold k compares with when a rule gives none (NAN: the SLA's,
 * or none compared). */
double		 alertrule_kind_threshold(enum alert_kind k);

/* Every default rule into conf, replacing its rules. */
void		 alertrule_defaults(struct alertconf *conf);

struct doc;
/*
 * The `rules:` node v (NULL: not given, every default rule) at pointer ptr
 * of the document d read from source, into conf (zeroed first).  0, or -1 with "SOURCE:LINE:COL: message" in
 * err; conf is then empty.  The caller calls alertrule_release either way.
 */
int		 alertrule_parse(struct alertconf *conf, const struct doc *d,
		    const char *source, json_t *v, const char *ptr, char *err,
		    size_t errlen);
/*
 * The hook's timeout:, backoff: and tries: members of the `alerts:`
 * mapping v at ptr, into conf (the defaults where absent): how long a hook
 * may run before it is killed (1 to ALERTRULE_TIMEOUT_MAX s), the first
 * wait before a retry (0.1 s to alerthook.h's most), how many runs in all
 * (1 to ALERTRULE_TRIES_MAX).  0, or -1 with "SOURCE:LINE:COL: message".
 */
int		 alertrule_parse_timing(struct alertconf *conf,
		    const struct doc *d, const char *source, json_t *v,
		    const char *ptr, char *err, size_t errlen);
void		 alertrule_release(struct alertconf *conf);
/*
 * The rules and timing of over (the lab file's) put over those of under
 * (the config file's), into over: a rule of over replaces the rule of
 * under of its name, under's other rules are added (under's rules replace
 * the defaults when over gave no rules:), and a timing over gave wins.
 * under is left empty.
 */
void		 alertrule_merge(struct alertconf *over,
		    struct alertconf *under);
/* The rule named name (borrowed), or NULL. */
const struct alertrule *alertrule_find(const struct alertconf *conf,
		    const char *name);

#endif
