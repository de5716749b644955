/* view.c: the registry of screens (see view.h). */
#include "calops.h"

#include "views/view.h"

const struct view_ops *const view_tabs[] = {
	&board_view,
	&tickets_view,
	&findings_view,
	&jobs_view,
	&soak_view,
	&faults_view,
};
const size_t view_ntabs = nitems(view_tabs);

const struct view_ops *
view_by_name(const char *name)
{
	static const struct view_ops *const all[] = { &board_view,
	    &tickets_view, &findings_view, &jobs_view, &soak_view, &faults_view,
	    &help_view };
	size_t i;

	for (i = 0; i < nitems(all); i++)
		if (strcmp(all[i]->name, name) == 0)
			return all[i];
	return NULL;
}
