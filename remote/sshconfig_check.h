/*
 * sshconfig_check.h: the values ssh acts on and calops does not, checked
 * as OpenSSH 9.2 checks them (sshconfig_check.c), for sshconfig_kw.c; and
 * the host key algorithms ssh asks a server for, for sshhost.c and `calops
 * hosts` (sshconfig.h says what each keyword does).
 */
#ifndef CALOPS_SSHCONFIG_CHECK_H
#define CALOPS_SSHCONFIG_CHECK_H

#include "calops.h"

struct scparse;
struct scfile;
struct scline;

/*
 * sshconfig_check_value: the value of keyword name on line l, one ssh acts
 * on and calops does not, checked as ssh checks it; 0, or -1 with err set
 * (sshconfig_int.h's parse state).
 */
int	 sshconfig_check_value(struct scparse *p, struct scfile *f,
	    struct scline *l, const char *name);

/*
 * sshconfig_check_hostkey_algs: a HostKeyAlgorithms value (NULL: not given)
 * made the list ssh asks the server for, as kex.c's kex_assemble_names()
 * makes it from ssh 9.2's default ("+NAMES" added, "-PATTERNS" taken out,
 * "^NAMES" first, patterns expanded against ssh's key algorithms); NULL
 * when ssh refuses it (a "!" outside a "-" list, nothing left).  The
 * caller frees it.
 */
char	*sshconfig_check_hostkey_algs(const char *spec);

#endif
