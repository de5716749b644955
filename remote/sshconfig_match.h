/*
 * sshconfig_match.h: the blocks of an ssh config, Host and Match, and the
 * patterns they match (sshconfig_match.c), for sshconfig.c and
 * sshconfig_kw.c (sshconfig.h says what they do).
 */
#ifndef CALOPS_SSHCONFIG_MATCH_H
#define CALOPS_SSHCONFIG_MATCH_H

#include "calops.h"

#include "remote/sshconfig_int.h"

/* ssh's match_pattern() and match_pattern_list(): 1 a pattern matched, 0
 * none, -1 a negated one did; dolower lowercases the patterns. */
bool	 sshconfig_match(const char *s, const char *pat);
int	 sshconfig_match_list(const char *s, const char *list, bool dolower);

/* A Host line and a Match line of file f: they set *f->active, whether
 * the lines after them apply; 0, or -1 with err set (a Match ssh refuses,
 * "Match exec" where ssh would run it). */
int	 sshconfig_match_host(struct scparse *p, struct scfile *f,
	    struct scline *l);
int	 sshconfig_match_line(struct scparse *p, struct scfile *f,
	    struct scline *l);

#endif
