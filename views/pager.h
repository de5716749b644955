/*
 * pager.h: what the pager screen (pager.c) opens: a file of a workspace on
 * a lab host, at a line.
 */
#ifndef CALOPS_PAGER_H
#define CALOPS_PAGER_H

struct pager_arg {
	const char	*host;		/* a lab host's name */
	const char	*ws;		/* the workspace's path there */
	const char	*rel;		/* the file, relative to it */
	long		 line;		/* the line to show, or 0 */
	const char	*pointer;	/* or a JSON pointer to it, or NULL */
};

#endif
