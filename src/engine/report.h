/*
 * report.h: an evaluation as calops-check/v1 JSON (workspace.md §8) and as
 * a readable board on a terminal.  The text form shows every untrusted
 * string through the sanitiser.
 */
#ifndef CALOPS_REPORT_H
#define CALOPS_REPORT_H

#include "engine/gate.h"
#include "engine/tickets.h"

/* Which gates a report covers: all when n == 0. */
struct gate_filter {
	bool	want[GATE_COUNT];
	size_t	n;
};

bool	 report_filter_has(const struct gate_filter *f, int index);

/* One input a gate read as JSON; gate may be NULL to omit the member. */
json_t	*report_input_json(const struct gate_input *in, const char *gate);
/* One finding as JSON; gate may be NULL to omit the member. */
json_t	*report_finding_json(const struct finding *f, const char *gate);

/* The calops-check/v1 object; without findings and inputs when
 * with_findings is false (the --stream result: they went out as events, so
 * that no line grows past the protocol's 64 KiB). */
json_t	*report_json(const struct eval *ev, const struct ticket *t,
	    const struct gate_filter *f, bool with_findings);

/* A status's glyph ("✔" for pass), or its ASCII stand-in ("+"): a status
 * is never told by colour alone. */
const char	*report_status_glyph(enum gate_status s, bool utf8);

/* The board as text; colour with ANSI SGR when asked. */
void	 report_text(FILE *out, const struct eval *ev, const struct ticket *t,
	    const struct gate_filter *f, bool colour);

#endif
