/*
 * g10_release.h: what gate G10 lends the release commands (cmd_release.c):
 * its judgement of a generation's bindings to today's artifacts, the one
 * G10 makes of its candidate (relverdict_bindings() with the evaluation's
 * reading of the files), on an evaluation of theirs: with the hash cache
 * for `release status`, every byte hashed for `verify` and the switch.
 */
#ifndef CALOPS_G10_RELEASE_H
#define CALOPS_G10_RELEASE_H

#include "calops.h"

#include <jansson.h>

#include "engine/gate.h"
#include "release/relverdict.h"

/* Judge the bindings of generation n's manifest (its parsed object) into
 * v, reading through ev, which must outlive the call only; nothing is
 * added to ev's findings.  0. */
int	g10_release_bindings(struct eval *ev, long n, const json_t *manifest,
	    struct relverdict *v);

#endif
