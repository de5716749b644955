/*
 * labshare.h: two consoles on one state folder (labmodel_int.h).  The
 * first holds the lock and follows the jobs; another watches: it follows
 * the same streams without writing, sees the jobs the first starts, and
 * takes over when the first quits.
 */
#ifndef CALOPS_LABSHARE_H
#define CALOPS_LABSHARE_H

#include "calops.h"

#include "lab/labmodel_int.h"

void		 labshare_start(struct labmodel *lm);
void		 labshare_stop(struct labmodel *lm);

#endif
