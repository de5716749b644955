/*
 * labreplay.h: the lab model's mirrors read back when the console starts
 * (labmodel_int.h), a chunk per turn of the loop.
 */
#ifndef CALOPS_LABREPLAY_H
#define CALOPS_LABREPLAY_H

#include "calops.h"

#include "lab/labmodel_int.h"

void		 labreplay_init(struct labmodel *lm);
/* Replay the mirrors of jobs not replayed yet, a chunk per loop turn. */
void		 labreplay_schedule(struct labmodel *lm);
/* Every job record in a host's mirror folder into *v (grown), but those
 * whose id skip() says to leave (NULL: none). */
void		 labreplay_scan_host(struct labmodel *lm, const char *host,
		    bool (*skip)(struct labmodel *, const char *id),
		    struct ljob_int ***v, size_t *n);

#endif
