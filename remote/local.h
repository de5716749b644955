/*
 * local.h: the local transport (transport.h): commands run as children of
 * this process, program being the calops binary (NULL: this very program,
 * /proc/self/exe).  The loop's owner delivers SIGCHLD to child_reap().
 */
#ifndef CALOPS_LOCAL_H
#define CALOPS_LOCAL_H

#include "calops.h"

#include "loop/loop.h"
#include "remote/transport.h"

struct transport	*local_transport_new(struct loop *l, const char *host,
			    const char *program);

#endif
