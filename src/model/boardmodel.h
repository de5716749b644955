/*
 * boardmodel.h: the console's picture of a workspace, built from the event
 * stream of `calops check --stream` (protocol.md §3): finding events, then a
 * result whose summary is the calops-check/v1 report without findings.
 *
 * The board keeps the last complete evaluation while the next one runs, so
 * the screen never shows half an evaluation.  No ncurses here: the model is
 * unit-tested on its own.  A struct board owns everything in it.
 */
#ifndef CALOPS_BOARDMODEL_H
#define CALOPS_BOARDMODEL_H

#include "calops.h"

#include <jansson.h>

#include "engine/finding.h"
#include "engine/gate.h"

struct board_finding {
	int		 gate;		/* 0..10, or -1 for the project */
	enum severity	 severity;
	char		*check, *message, *path, *where;
};

struct board_gate {
	char		 id[8];
	char		*name, *owner, *due, *failback, *role;
	enum gate_status status;
	size_t		 counts[5];	/* by severity */
	/* [{path, present, sha256, size, mtime_ns}] */
	json_t		*inputs;
	/* {"G9.soak": "held" | "failed" | "not_judged", …}, §3's order */
	json_t		*checks;
};

struct board_ticket {
	char		 id[8];
	char		*title, *owner, *state;
	/* 0..1; estimate < 0: none */
	double		 progress, estimate_days;
	bool		 claimed_done_without_evidence;
	/* {"G0.schema": "held" | "failed" | "not_judged", …} */
	json_t		*checks;
};

struct board_eval {
	bool			 valid;
	char			*model_id, *project_status;
	/* The G0 SLA (workspace.md G0.sla); NAN when not known. */
	double			 sla_ttft_ms_p99, sla_tpot_ms_p99,
				 sla_success_rate_min;
	struct board_gate	 gates[GATE_COUNT];
	struct board_ticket	 tickets[13];
	size_t			 ntickets;
	/* project first, then by gate */
	struct board_finding	*findings;
	size_t			 nfindings;
	int64_t			 finished_at;	/* Unix seconds */
};

struct board {
	struct board_eval	 now;	/* the last complete evaluation */
	/* The evaluation in flight. */
	bool			 running;
	uint64_t		 progress_done, progress_total;
	struct board_finding	*incoming;
	size_t			 nincoming;
	json_t			*incoming_inputs;	/* gate id -> [input] */
	/* Why there is no current evaluation (workspace gone, …), or NULL. */
	char			*error;
};

enum {
	BOARD_CHANGED = 1,	/* the evaluation was replaced */
	BOARD_PROGRESS = 2,	/* progress of the running one */
};

void	boardmodel_init(struct board *b);
void	boardmodel_release(struct board *b);
/* An evaluation starts: findings collect until its result. */
void	boardmodel_begin(struct board *b);
/* One line of the stream; returns BOARD_* flags.  Lines that are not
 * events are ignored (they are the child's business, shown as logs). */
int	boardmodel_event(struct board *b, const char *line, size_t len);
/* The evaluation ended without a result (the child died, the workspace
 * vanished): keep the old board and say why. */
void	boardmodel_fail(struct board *b, const char *why);

/* Where a finding points, one way on every screen as in check's output:
 * "file#/json/pointer", "file:row 23", or the file alone; into buf. */
const char		*boardmodel_finding_where(const struct board_finding *f,
			    char *buf, size_t len);
enum gate_status	boardmodel_status_parse(const char *s);
/* Index of gate id ("G7") or -1. */
int			boardmodel_gate_index(const char *id);

#endif
