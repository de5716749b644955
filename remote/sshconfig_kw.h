/*
 * sshconfig_kw.h: ssh's keyword table and the values calops reads
 * (sshconfig_kw.c), for sshconfig.c (sshconfig.h says what each keyword
 * does).
 */
#ifndef CALOPS_SSHCONFIG_KW_H
#define CALOPS_SSHCONFIG_KW_H

#include "calops.h"

#include "remote/sshconfig_int.h"

/*
 * sshconfig_kw_find: the keyword's index in ssh's table (case does not
 * matter), or SIZE_MAX when ssh does not know it.  sshconfig_kw_line:
 * read a line whose keyword is l->kw; 0, or -1 with err set.
 * sshconfig_kw_count: the table's size, for scparse's seen.
 */
size_t	 sshconfig_kw_find(const char *word);
int	 sshconfig_kw_line(struct scparse *p, struct scfile *f,
	    struct scline *l);
size_t	 sshconfig_kw_count(void);

#endif
