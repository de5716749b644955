/*
 * soak.h: what the Soak screen (soak.c) tells other screens: the unit a
 * metric of the stream is drawn in, so that a job's log gives its values
 * as the graphs do.
 */
#ifndef CALOPS_SOAK_H
#define CALOPS_SOAK_H

#include "calops.h"

#include "views/core/graph.h"

struct labmodel;

/* The unit of a metric by its name in the stream ("ttft_ms": GU_MS);
 * GU_NONE for one the screen does not draw. */
enum graph_unit	 soak_unit(const char *metric);

/* The alerts of every soak the lab model holds, for every screen: how many
 * are open, and how many have opened in all (the bell rings when that
 * grows). */
struct soak_alert_count {
	size_t	open;
	size_t	opened;
};
void		 soak_alerts(struct labmodel *lm, struct soak_alert_count *c);

#endif
