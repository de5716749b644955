/*
 * glyph.h: how a state is marked on every screen: a glyph (UTF-8, or its
 * ASCII stand-in when the terminal wants one: ui_glyph) and a theme role,
 * for a gate's status, a job's state, a check's verdict and a finding's
 * severity.  A state is never told by colour alone.  The glyphs returned
 * are static strings.
 */
#ifndef CALOPS_GLYPH_H
#define CALOPS_GLYPH_H

#include "calops.h"

#include "engine/finding.h"
#include "engine/gate.h"
#include "views/core/theme.h"

/* Glyph and role for a gate's status. */
const char *glyph_status(enum gate_status s);
int	 glyph_status_role(enum gate_status s);
/* Glyph and role for a job's state by name, as `calops jobs` and the lab
 * model say it (running, done, failed, killed, lost, corrupt, starting,
 * broken); "?" and ROLE_DIM for another. */
const char *glyph_job(const char *state, enum role *r);
int	 glyph_severity_role(enum severity s);
/* Glyph and role for a check's verdict ("held", "failed", "not_judged" as
 * check --json says it): not judged is neither ✔ nor ✘. */
const char *glyph_verdict(const char *verdict, enum role *r);

#endif
