/*
 * joblist.h: the durable jobs of every host of the lab (protocol.md §2,
 * §4), for the Jobs screen: one `calops jobs --json` per reachable host,
 * all at once, each through the lab model's transport for that host
 * (borrowed: the list never makes or closes one), each host's
 * calops-jobs/v1 output read into rows, and every host's rows merged
 * newest first by when each job started on the console's clock (a host's
 * own clock may differ), corrupt ones last.  It also kills a job on its
 * host (`calops kill ID`).  No ncurses: the owner draws and asks.
 *
 * Ownership: struct joblist is made by joblist_new() and freed by
 * joblist_free(), which cancels what is still running; it borrows the lab
 * model (which must outlive it).  Host names, in rows and hosts alike, are
 * borrowed from the lab.  Rows and their strings are the list's: valid
 * until the next replaced hook or joblist_free(), never to be kept past
 * them (copy an id to find its job again).  Strings returned are the
 * list's too, valid until it next changes.
 */
#ifndef CALOPS_JOBLIST_H
#define CALOPS_JOBLIST_H

#include "calops.h"

#include <jansson.h>

struct labmodel;
struct joblist;

/* One job of one host, as its `jobs --json` said last. */
struct joblist_row {
	const char	*host;		/* borrowed from the lab */
	char		*id, *state;	/* "" when not given */
	char		*cmd;		/* argv joined by spaces, (reason) */
	double		 age;		/* seconds, as of fetched */
	double		 fetched;	/* when age was true (jobevent_now) */
	int		 exit_code;	/* -1: none */
	int		 sig;		/* 0: none */
	/* running, but its supervisor cannot write its events (the
	 * entry's "degraded": since when and why) */
	bool		 degraded;
	/* The host's whole entry for the job: job.json's members and age
	 * (or id, state, reason when corrupt), as untrusted as the host. */
	json_t		*record;
};

/* What the list tells its owner; any hook may be NULL. */
struct joblist_cb {
	/* A host's rows are about to be replaced; the merged rows are still
	 * valid (note which job is selected). */
	void	(*replacing)(struct joblist *, void *arg);
	/* They were: every merged row may have moved. */
	void	(*replaced)(struct joblist *, void *arg);
	/* A kill ended: ok, or err says why not. */
	void	(*killed)(struct joblist *, const char *host, const char *id,
		    bool ok, const char *err, void *arg);
	/* Something shown changed (listings started, a command ended). */
	void	(*changed)(struct joblist *, void *arg);
	void	*arg;
};

/* A list of the hosts of lm's lab, none listed yet: joblist_reload lists
 * them. */
struct joblist	*joblist_new(struct labmodel *lm, const struct joblist_cb *cb);
void		 joblist_free(struct joblist *jl);

/* List the jobs of every reachable host not being listed already; a host
 * not reachable is marked down (joblist_host_down says why). */
void		 joblist_reload(struct joblist *jl);

/*
 * What host i's listing printed (len bytes; cut: some was dropped), read
 * as calops-jobs/v1: the host's rows are replaced and merged again, or its
 * err says why not.  The listing calls it as it ends well; tests may.
 */
void		 joblist_feed(struct joblist *jl, size_t i, const char *out,
		    size_t len, bool cut);

/* Every host's rows, merged: newest first, corrupt ones last. */
size_t		 joblist_nrows(const struct joblist *jl);
const struct joblist_row *joblist_row(const struct joblist *jl, size_t i);

/* The hosts, in the lab file's order. */
size_t		 joblist_nhosts(const struct joblist *jl);
const char	*joblist_host(const struct joblist *jl, size_t i);
/* Why host i is not reachable, or "". */
const char	*joblist_host_down(const struct joblist *jl, size_t i);
/* Why host i's last listing failed, or "". */
const char	*joblist_host_err(const struct joblist *jl, size_t i);
/* Whether host i has been listed at least once. */
bool		 joblist_host_loaded(const struct joblist *jl, size_t i);

/*
 * Run `calops kill ID` on host (a lab host's name, borrowed until the
 * killed hook); false with err when it cannot start.  One kill at a time:
 * ask joblist_killing whether one is under way before starting another.
 */
bool		 joblist_kill(struct joblist *jl, const char *host,
		    const char *id, char *err, size_t errlen);
bool		 joblist_killing(const struct joblist *jl);

#endif
