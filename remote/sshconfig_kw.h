/*
 * sshconfig_kw.h: ssh's keyword table and the values calops reads
 * (sshconfig_kw.c), for sshconfig.c (sshconfig.h says what each keyword
 * does); sshconfig_kw_jump_cut for ssh.c too, which cuts a ProxyJump list
 * again as it follows it.
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
 * sshconfig_kw_jump_cut: one jump host of a ProxyJump list,
 * "[user@]host[:port]" or "ssh://[user@]host[:port]", cut in place into s
 * (user NULL and port 0 when not given); 0, or -1 when it is not one.
 */
size_t	 sshconfig_kw_find(const char *word);
int	 sshconfig_kw_line(struct scparse *p, struct scfile *f,
	    struct scline *l);
size_t	 sshconfig_kw_count(void);
int	 sshconfig_kw_jump_cut(char *s, char **user, char **host, int *port);

/*
 * sshconfig_kw_convtime: ssh's convtime(), seconds from "30", "1m30s", ...;
 * -1 when s is not one.  sshconfig_kw_a2port: ssh's a2port(), a number
 * from 0 to 65535 or a service name; -1 when neither.
 */
int	 sshconfig_kw_convtime(const char *s);
int	 sshconfig_kw_a2port(const char *s);

#endif
