/*
 * query.h: typed reads of an artifact's JSON members for the gate files,
 * each reporting a located finding of the gate when a member is missing or
 * of the wrong type (workspace.md §2), and the rule "a list with nothing in
 * it judges nothing" (workspace.md §6).  Returned values are borrowed from
 * the artifact.
 */
#ifndef CALOPS_QUERY_H
#define CALOPS_QUERY_H

#include "calops.h"

#include <jansson.h>

#include "engine/artifact.h"
#include "engine/finding.h"
#include "engine/gate.h"

/* Typed members of a JSON object at pointer `ptr` in artifact a.  Each
 * reports an error for check when the member is missing or mistyped and
 * then returns NULL/false. */
json_t		*query_member(struct gate_result *gr, const char *check,
		    const struct artifact *a, json_t *obj, const char *ptr,
		    const char *key);
const char	*query_str(struct gate_result *gr, const char *check,
		    const struct artifact *a, json_t *obj, const char *ptr,
		    const char *key);
bool		 query_int(struct gate_result *gr, const char *check,
		    const struct artifact *a, json_t *obj, const char *ptr,
		    const char *key, json_int_t *out);
bool		 query_num(struct gate_result *gr, const char *check,
		    const struct artifact *a, json_t *obj, const char *ptr,
		    const char *key, double *out);
bool		 query_bool(struct gate_result *gr, const char *check,
		    const struct artifact *a, json_t *obj, const char *ptr,
		    const char *key, bool *out);
json_t		*query_array(struct gate_result *gr, const char *check,
		    const struct artifact *a, json_t *obj, const char *ptr,
		    const char *key);
json_t		*query_object(struct gate_result *gr, const char *check,
		    const struct artifact *a, json_t *obj, const char *ptr,
		    const char *key);
/* A finding at a JSON pointer of an artifact (where from doc_where). */
void		 query_gate_at(struct gate_result *gr, enum severity sev,
		    const char *check, const struct artifact *a,
		    const char *ptr,
		    const char *fmt, ...) PRINTFLIKE(6, 7);
/* A rule of check over every member of list (an array or an object at
 * ptr, NULL when absent): is the list empty?  Then nothing was judged
 * (workspace.md §6, v3) and check is skipped with a warning at ptr,
 * "nothing to judge: <fmt>". */
bool		 query_empty(struct gate_result *gr, const char *check,
		    const struct artifact *a, json_t *list, const char *ptr,
		    const char *fmt, ...) PRINTFLIKE(6, 7);

#endif
