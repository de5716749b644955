/*
 * labcmd.h: the command of a lab job, built from what to start (a spec)
 * and where (a host of the lab file, its workspace, the lab's runner): the
 * argv `calops run --` is given, a label for people, and the command line
 * as a person reads it (words quoted for sh where needed).  A leaf: it
 * knows nothing of the model that starts the jobs (labmodel.h).
 *
 * G7's job is golden then every fault scenario of proto/scenario.h on one
 * chip, as one durable job; G9's is the soak (runner stress); any other
 * gate's is the command of the lab file's gates: map, run in the
 * workspace's root (G5's as its reproducibility run: `calops repro-build`
 * runs it twice, or once more, and records the builds); a fault
 * scenario on one chip and a golden run are jobs of their own.  On a local
 * host, a runner named without a slash that sits beside calops (the
 * bundled simulator) is run from there.
 */
#ifndef CALOPS_LABCMD_H
#define CALOPS_LABCMD_H

#include "calops.h"

#include "base/strv.h"
#include "remote/lab.h"

struct buf;

enum ljob_kind {
	LJOB_GATE,		/* a gate's whole job (G7: golden + faults) */
	LJOB_SOAK,		/* runner stress */
	LJOB_FAULT,		/* runner fault --scenario S on one chip */
	LJOB_GOLDEN,		/* runner golden */
	/* a release's chip step (share/doc/release.md §6): the host's
	 * `calops release chip-step`, which runs the runner's inspect and
	 * golden with the workspace's package on one chip */
	LJOB_CHIPSTEP,
};

/* What to start. */
struct ljob_spec {
	const char	*host;		/* a lab host's name */
	/* one of the host's workspaces in the lab file (a local one however
	 * spelt); NULL: the host's first */
	const char	*workspace;
	enum ljob_kind	 kind;
	int		 gate;		/* LJOB_GATE: its index (7 or 9) */
	int		 chip;		/* LJOB_FAULT, LJOB_CHIPSTEP */
	const char	*scenario;	/* LJOB_FAULT */
	double		 duration_s;	/* LJOB_SOAK (and G9): 0 = 24 h */
	/* LJOB_SOAK: the chips it runs on, each one of the host's; NULL
	 * (nchips 0): every chip of the host.  G7's job: its one chip
	 * (chips[0]); NULL: the host's first */
	const int	*chips;
	size_t		 nchips;
	bool		 again;		/* G5: one more build, not two anew */
	long		 generation;	/* LJOB_CHIPSTEP: the one promoted */
};

/* Where it runs; every pointer borrowed for the call. */
struct labcmd_where {
	const struct lab	*lab;		/* its runner */
	const struct lab_host	*host;
	const char		*ws;		/* its workspace, or NULL */
	const char		*selfdir;	/* calops' folder, or NULL */
};

/* This program's folder, where the bundled simulator sits (a new string;
 * NULL when /proc/self/exe cannot say): labcmd_where's selfdir. */
char	*labcmd_self_dir(void);

/* The job's argv and its label ("soak 24h · chips 0-3"); 0, or -1 with err
 * (no workspace on the host, no such scenario or chip, a gate with no lab
 * job).  argv is empty on error. */
int	 labcmd_build(const struct labcmd_where *w,
	    const struct ljob_spec *spec, struct strv *argv, char *label,
	    size_t labellen, char *err, size_t errlen);
/* "0-3,6" for a list of chips (two in a row: "0,1"), into buf: as the
 * runner's --chips takes them and a job's label shows them. */
void	 labcmd_chips_text(const int *chips, size_t n, char *buf, size_t len);
/* The later gates whose evidence is bound to what gate g's step writes,
 * in words ("G6, G7, G8 (…), G10 (…)"): they go stale when it runs again;
 * NULL when none are. */
const char *labcmd_gate_stales(int g);
/* argv as a person would type it: words quoted for sh where needed. */
void	 labcmd_join_argv(char *const *argv, struct buf *b);
/* labcmd_build()'s argv joined into buf; 0, or -1 with err. */
int	 labcmd_text(const struct labcmd_where *w,
	    const struct ljob_spec *spec, char *buf, size_t len, char *err,
	    size_t errlen);
/* The gate a job's argv (of argc words) produces evidence for, as
 * labcmd_build() makes its jobs (G5 by its reproducibility run, G7 and G9
 * by the runner's command and package, a fault or golden run counting as
 * G7's as in the console, the others by the script's $0 "calops-gN"), and
 * in *ws the workspace as the argv writes it (to free); -1 and NULL for
 * any other job.  How a job started elsewhere (another console, a script)
 * is recognised from the host's job list. */
int	 labcmd_job_gate(char *const *argv, size_t argc, char **ws);

/*
 * What a lab job is, read back from its argv (as `calops jobs` gives it)
 * the way labcmd_build() makes it: how a console learns what a job it did
 * not start is (protocol.md §4).  Strings are the description's own.
 */
#define LABCMD_CHIPS_MAX	64

struct labcmd_job {
	enum ljob_kind	 kind;
	int		 gate;		/* -1: none (a chip step) */
	int		 chip;		/* fault, chip step; else -1 */
	char		*scenario;	/* a fault's, else NULL */
	int		 chips[LABCMD_CHIPS_MAX];
	size_t		 nchips;
	double		 target_s;	/* a soak's --duration, else 0 */
	char		*ws;		/* the workspace, as the argv has it */
	char		 label[160];	/* as labcmd_build() labels it */
};

/* 0 with d filled (labcmd_job_release() frees it), or -1 when argv (of
 * argc words) is not a lab job's. */
int	 labcmd_job_describe(char *const *argv, size_t argc,
	    struct labcmd_job *d);
void	 labcmd_job_release(struct labcmd_job *d);

#endif
