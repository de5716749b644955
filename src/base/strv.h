/*
 * strv.h: a NULL-terminated argv that owns its strings, grown a word at a
 * time: a lab job's command (lab/labcmd.h) and the command lines sent to
 * a host (proto/hostcmd.h) are built in one.
 *
 * A struct strv is owned by whoever declared it, zeroed ({ NULL, 0, 0 })
 * before the first strv_add(); strv_free() frees its words and leaves it
 * empty, ready for more.  v is NULL until a word is added.
 */
#ifndef CALOPS_STRV_H
#define CALOPS_STRV_H

#include "calops.h"

struct strv {
	char	**v;
	size_t	  n, cap;
};

/* Append owned (xmalloc'd; the strv frees it). */
void	 strv_add(struct strv *s, char *owned);
void	 strv_free(struct strv *s);

#endif
