/*
 * gateid.h: the gates as every layer names them: their ids (G0 … G10),
 * how many there are, and the kind of lab job that makes each one's
 * evidence.  A leaf, below every other layer and depending on none, so that
 * the lab file's parser (remote/), the gate engine, the lab model, the
 * screens and the simulator read one table instead of each writing "G7 and
 * G9 are the runner's jobs" as bare numbers.
 *
 * A gate's index is its number: gateid_table[7] is G7.  What a gate checks
 * is the engine's (engine/gate.h, gate_table); how a job is started is the
 * lab's (lab/labcmd.h); this table only says which kind of job it is
 * (share/doc/lab.md, "gates"; share/doc/architecture.md, "Adding a gate").
 */
#ifndef CALOPS_GATEID_H
#define CALOPS_GATEID_H

#include "calops.h"

#define GATE_COUNT	11	/* G0 … G10 */

/* The lab job that makes a gate's evidence. */
enum gatejob {
	GATEJOB_TOOL,		/* the lab file's gates: command, run in the
				   workspace's root */
	GATEJOB_CHIP_TOOL,	/* the same, serving from the host's first
				   chip (G8's adapter conformance) */
	GATEJOB_REPRO,		/* the gates: command as the reproducibility
				   run, compiled twice (G5, calops
				   repro-build) */
	GATEJOB_SUITE,		/* the runner's: golden, then every fault
				   scenario on one chip (G7) */
	GATEJOB_SOAK,		/* the runner's: the soak on every chip
				   (G9) */
};

struct gateid {
	const char	*id;		/* "G7" */
	enum gatejob	 job;
};

extern const struct gateid gateid_table[GATE_COUNT];

/* The index of "G0" … "G10" as written (no "g6", "G01" or "G6x"), else
 * -1 (also for NULL). */
int		 gateid_index(const char *id);
/* The job kind of gate g; GATEJOB_TOOL for any g that is not an index (0
 * to GATE_COUNT - 1). */
enum gatejob	 gateid_job(int g);
/* Whether gate g's job is the runner's (GATEJOB_SUITE, GATEJOB_SOAK), so
 * that the lab file gives it no command of its own; false for any g that
 * is not an index. */
bool		 gateid_runner(int g);
/* The gate whose job is of kind job (each kind but GATEJOB_TOOL has one),
 * else -1. */
int		 gateid_of(enum gatejob job);

#endif
