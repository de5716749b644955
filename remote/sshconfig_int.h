/*
 * sshconfig_int.h: what sshconfig.c (the files and their lines, the two
 * passes), sshconfig_match.c (Host and Match) and sshconfig_kw.c (ssh's
 * keyword table and each value) share.  Not
 * for other files: sshconfig.h is the contract.
 */
#ifndef CALOPS_SSHCONFIG_INT_H
#define CALOPS_SSHCONFIG_INT_H

#include "calops.h"

#include "remote/sshconfig.h"

/* A lookup under way, over one or two passes. */
struct scparse {
	struct sshconfig	*sc;
	unsigned		 nfiles;
	bool			 final;		/* the second pass */
	bool			 want_final;	/* a "Match final" was seen */
	bool			*seen;		/* per keyword: listed, noted */
	char			*err;
	size_t			 errlen;
};

/* The file being read, the line in it and the block the line is in. */
struct scfile {
	const char	*path;
	unsigned	 line;
	int		 depth;		/* of Include */
	bool		 system;	/* /etc/ssh/ssh_config and its own */
	bool		 nevermatch;	/* included from a block not applied */
	bool		*active;	/* the block applies to the host */
};

/* One line cut as ssh cuts it. */
struct scline {
	const char	*word;		/* the keyword as written */
	char		**argv;
	size_t		 argc;
	char		*buf;		/* argv's strings */
	size_t		 kw;		/* its index in the keyword table */
};

/* "FILE:LINE: message" (made safe to show) into the parse's err; -1.  f
 * NULL: the message alone. */
int	 sshconfig_err(struct scparse *p, const struct scfile *f,
	    const char *fmt, ...) PRINTFLIKE(3, 4);
/* A note "FILE:LINE: message" for the console. */
void	 sshconfig_note(struct scparse *p, const struct scfile *f,
	    const char *fmt, ...) PRINTFLIKE(3, 4);
/* sshconfig_match.c.  ssh's match_pattern() and match_pattern_list(): 1
 * a pattern matched, 0 none, -1 a negated one did; dolower lowercases the
 * patterns. */
bool	 sshconfig_match(const char *s, const char *pat);
int	 sshconfig_match_list(const char *s, const char *list, bool dolower);

/* The block keywords: Host and Match (sshconfig_match.c), Include
 * (sshconfig.c). */
int	 sshconfig_match_host(struct scparse *p, struct scfile *f,
	    struct scline *l);
int	 sshconfig_match_line(struct scparse *p, struct scfile *f,
	    struct scline *l);
int	 sshconfig_include_line(struct scparse *p, struct scfile *f,
	    struct scline *l);

/*
 * sshconfig_kw.c.  sshconfig_kw_find: the keyword's index in ssh's table,
 * or SIZE_MAX when ssh does not know it.  sshconfig_kw_line: read a line
 * whose keyword is l->kw.  sshconfig_kw_count: the table's size, for
 * scparse's seen.
 */
size_t	 sshconfig_kw_find(const char *word);
int	 sshconfig_kw_line(struct scparse *p, struct scfile *f,
	    struct scline *l);
size_t	 sshconfig_kw_count(void);

#endif
