/*
 * faultfold.h: what a fault scenario did on each chip, said in one line
 * (issue 4 §7): the latest result per chip is classified, and chips with the
 * same outcome are folded into ranges,
 *
 *	chip[0-2,4-7] recovered 5.0 s · chip3 aborted
 *
 * Pure logic: no I/O, no ncurses, nothing kept.  The expected error
 * code of each scenario is the real runner's (runbook §11.3, the table in
 * share/sim/README.md); a structured error with another code is a mismatch.
 */
#ifndef CALOPS_FAULTFOLD_H
#define CALOPS_FAULTFOLD_H

#include "calops.h"

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

#endif
