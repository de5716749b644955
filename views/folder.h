/*
 * folder.h: what the folder screen (folder.c) opens: a path of the
 * workspace the board shows, on its host, this machine's or an SSH one.
 */
#ifndef CALOPS_FOLDER_H
#define CALOPS_FOLDER_H

#include "calops.h"

struct folder_arg {
	const char	*rel;		/* relative to the workspace; "" its
					   root */
	/* probe: rel may be a file (a finding's path on an SSH host), then
	 * opened at where (a finding's position, or NULL) in place of the
	 * screen */
	const char	*where;
	bool		 probe;
};

#endif
