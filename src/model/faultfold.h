/*
 * faultfold.h: what a fault scenario did on each chip, said in one line
 * (the Faults screen, README.md): the latest result per chip is
 * classified, and chips with the same outcome are folded into ranges,
 *
 *	chip[0-2,4-7] recovered 5.0 s · chip3 aborted
 *
 * and, for the faults screen, what each cell of a host's grid (scenario ×
 * chip) shows and the past of one cell, from the lab model's results and
 * jobs.  Pure logic: no I/O, no ncurses, nothing kept.  The expected error
 * code of each scenario is the real runner's (runbook §11.3, the table in
 * share/sim/README.md); a structured error with another code is a mismatch.
 *
 * Which is the latest.  Results count in the order the lab model keeps
 * them: by their jobs' starts (the console's clock), then in the order each
 * job reported them.  Their timestamps are the tool's clock (a remote
 * host's, or a simulator's scaled one), so they cannot be sorted against
 * each other across jobs.  A fault job that ended without a result (the
 * runner crashed, was killed, or the job never started) stands just above
 * the results of the jobs started before it, so a result from a later job
 * still covers it.
 */
#ifndef CALOPS_FAULTFOLD_H
#define CALOPS_FAULTFOLD_H

#include "calops.h"

#include <jansson.h>

#include "proto/hostcmd.h"

struct labmodel;
struct lfault;
struct ljob;

/* From best to worst; a chip's outcome is the worst thing its result says. */
enum fold_outcome {
	FO_NEVER,		/* no result and no job */
	FO_PENDING,		/* a job is starting */
	FO_RUNNING,		/* a job is running */
	FO_RECOVERED,		/* structured, expected code, recovered */
	FO_NOT_RECOVERED,	/* the runner gave up */
	FO_CODE_MISMATCH,	/* structured, but not the scenario's code */
	FO_UNSTRUCTURED,	/* a bare -1, no error code */
	FO_ABORTED,		/* the runner called abort() */
	FO_NO_RESULT,		/* its job ended without a result */
	FO_DISAGREES,		/* the host's result file and the job that
				   wrote it say different things */
	FO_COUNT
};

/* One chip's cell of a scenario. */
struct fold_cell {
	int			 chip;
	enum fold_outcome	 outcome;
	double			 recover_ms;	/* time spent recovering */
};

/* The error code the real runner reports for a scenario, or NULL for a
 * scenario it does not know. */
const char	*faultfold_expected_code(const char *scenario);

/* Classify one result of scenario. */
enum fold_outcome faultfold_classify(const char *scenario, bool structured,
		    const char *error_code, bool aborted, bool recovered);

/* The outcome's words: "recovered", "not recovered", "aborted", … */
const char	*faultfold_word(enum fold_outcome o);

/* Whether an outcome is a failure of G7.faults (not recovered, code
 * mismatch, unstructured, aborted). */
bool		 faultfold_failed(enum fold_outcome o);

/* Chips as ranges, "0-2,4-7", into buf (the chips need not be sorted;
 * duplicates are shown once).  Returns buf. */
char		*faultfold_ranges(const int *chips, size_t n, char *buf,
		    size_t len);

/*
 * The folded line for a scenario's cells into buf: one group per outcome,
 * "chipN word" or "chip[ranges] word", joined by sep, in the order of each
 * group's lowest chip.  Recovered chips say how long recovery took, "5.0 s"
 * when their times agree to a tenth of a second, else the range
 * "4.6-5.4 s" (recovery times jitter; the outcome is what is identical);
 * in milliseconds when all are under a second, "3-4 ms".
 * Empty when n is 0.  Always NUL-terminated, cut to fit; returns buf.
 */
char		*faultfold_format(const struct fold_cell *cells, size_t n,
		    const char *sep, char *buf, size_t len);

/*
 * A result file a host's workspace holds (06-runtime/faults/<S>.json: the
 * newest result of scenario S there, whoever ran it), with the job of the
 * host's that wrote it as far as the host's job list tells
 * (faultfold_file_job): the newest job there that ran S on the file's chip
 * in the workspace, a fault job or G7's whole job.  Times are the host's
 * clock, Unix seconds.
 */
struct fold_file {
	const char		*host;		/* borrowed */
	struct hostcmd_fault	 r;
	char			 job[72];	/* "" when none is listed */
	char			 actor[128];	/* who started it, or "" */
	char			 state[16];	/* the host's word for it */
	int			 exit_code;	/* -1: none */
	bool			 suite;		/* G7's whole job */
	double			 started, ended;	/* NAN: not said */
};

/*
 * The job of f among the host's job records (calops-jobs/v1 entries, in
 * any order; borrowed) whose argv runs f's scenario on f's chip with the
 * calbin of workspace ws (as labcmd.c builds them): the newest by
 * "started" fills f's job members; none leaves job "".
 */
void		 faultfold_file_job(struct fold_file *f, const char *ws,
		    json_t *const *records, size_t n);

/*
 * Whether a file and its job disagree: the job ended well (exit 0) but the
 * file says the scenario failed, or a fault job failed, was killed or is
 * lost but the file says it recovered.  A running job, or none, disagrees
 * with nothing.  G7's whole job fails when any scenario does, so its
 * failure says nothing of one file.
 */
bool		 faultfold_file_disagrees(const struct fold_file *f);

/*
 * The lab model's results and jobs, as the functions below read them (both
 * borrowed from labmodel.h, valid until its next callbacks): faults in
 * arrival order (labmodel_fault), jobs newest first (labmodel_job).
 */
struct fold_src {
	const struct lfault	**faults;
	size_t			  nfaults;
	const struct ljob	**jobs;
	size_t			  njobs;
	/* the result files of the host shown (borrowed), or none */
	const struct fold_file	 *files;
	size_t			  nfiles;
};

/* What one cell of a host's grid shows; pointers borrowed from the src. */
struct fold_state {
	const struct lfault	*last;	/* the latest result, or NULL */
	const struct ljob	*live;	/* a job on it now, or NULL */
	const struct ljob	*ended;	/* a fault job later than last that
					 * ended without a result, or NULL */
	/* the host's result file of the scenario, when it is for this
	 * chip: the newest result there, which the model's give way to */
	const struct fold_file	*file;
	enum fold_outcome	 o;	/* of live, else file, else ended,
					   else last */
};

/*
 * Every cell of host's grid, scenario_table × chips, into
 * cells[scenario * nchips + chip index].  A live fault job on a cell is
 * shown running; a live G7 job runs every scenario on its first chip, so it
 * is shown on each of those cells it has not answered yet.  Otherwise a
 * cell the host's result file is for shows the file (FO_DISAGREES when
 * its job says otherwise), whatever events this console saw: the file is
 * the lab's newest result, the events only what this console followed.
 */
void		 faultfold_grid(const struct fold_src *src, const char *host,
		    const int *chips, size_t nchips, struct fold_state *cells);

/* One line of a cell's past: a result, or a fault job that left none (it
 * is running, or it ended without one). */
struct fold_entry {
	const struct lfault	*f;	/* NULL for a job */
	const struct ljob	*j;	/* NULL for a result */
};

/* The past of the cell (host, scenario, chip), newest first: a new array
 * (free it), its length in *np. */
struct fold_entry *faultfold_history(const struct fold_src *src,
		    const char *host, const char *scenario, int chip,
		    size_t *np);

/* faultfold_format() of one scenario's row of a grid, cells[0, nchips). */
char		*faultfold_format_row(const struct fold_state *cells,
		    const int *chips, size_t nchips, const char *sep,
		    char *buf, size_t len);

/* A time to recover as a cell shows it, "4ms", "5.0s", "412s", or "-"
 * when not known, into buf; returns buf. */
char		*faultfold_ms(double ms, char *buf, size_t len);

/*
 * A cell's words without its glyph into buf, long ("recovered 5.0s",
 * "never run") or short ("5.0s", "never").  A job that ended without a
 * result says what it did instead: "failed exit 1", "killed SIGTERM",
 * "done, no result", "broken" (short: "exit 1", "killed", "exit 0",
 * "broken").  Returns buf.
 */
char		*faultfold_cell_words(const struct fold_state *c, bool lng,
		    char *buf, size_t len);

/* src filled from the model (its arrays grown as needed; release them with
 * faultfold_src_release); refill it after the model's callbacks. */
void		 faultfold_src_load(struct fold_src *src,
		    const struct labmodel *lm);
void		 faultfold_src_release(struct fold_src *src);

#endif
