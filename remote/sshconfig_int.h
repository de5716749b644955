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

#define SC_BLANKS	" \t\r\n"	/* ssh's WHITESPACE */

/* A lookup under way, over one or two passes. */
struct scparse {
	struct sshconfig	*sc;
	unsigned		 nfiles;
	bool			 final;		/* the second pass */
	bool			 want_final;	/* a "Match final" was seen */
	bool			*seen;		/* per keyword: listed, noted */
	const struct sshconfig_resolver *rs;	/* NULL: getaddrinfo */
	char			*err;
	size_t			 errlen;
	/* ssh reads on past a bad line and stops at the end of the file
	 * it is in (readconf.c, read_config_file_depth): the bad lines
	 * so far, their messages, and whether to stop now (a file
	 * refused, or an included file that had bad lines). */
	unsigned		 nbad;
	char			*bad;
	bool			 stop;
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
	const char	*rest;		/* the line after it, unsplit */
	char		**argv;
	size_t		 argc;
	char		*buf;		/* argv's strings */
	size_t		 kw;		/* its index in the keyword table */
};

/* "FILE:LINE: message" (made safe to show) into the parse's err; -1.  f
 * NULL: the message alone.  sshconfig_stop: the same, and no line is read
 * after it, as where ssh calls fatal() (a file it refuses to read). */
int	 sshconfig_stop(struct scparse *p, const struct scfile *f,
	    const char *fmt, ...) PRINTFLIKE(3, 4);
int	 sshconfig_err(struct scparse *p, const struct scfile *f,
	    const char *fmt, ...) PRINTFLIKE(3, 4);
/* A note "FILE:LINE: message" for the console. */
void	 sshconfig_note(struct scparse *p, const struct scfile *f,
	    const char *fmt, ...) PRINTFLIKE(3, 4);
/* Include, read by sshconfig.c. */
int	 sshconfig_include_line(struct scparse *p, struct scfile *f,
	    struct scline *l);

#endif
