/* view.c: the registry of screens, made from VIEW_REGISTRY (view.h). */
#include "calops.h"

#include "views/view.h"

#define VIEW_ENTRY(name, kind, help) { #name, &name##_view, kind, help },
const struct view_entry view_registry[] = { VIEW_REGISTRY(VIEW_ENTRY) };
#undef VIEW_ENTRY
const size_t view_count = nitems(view_registry);

size_t
view_ntabs(void)
{
	size_t i, n = 0;

	for (i = 0; i < view_count; i++)
		n += view_registry[i].kind == VIEW_TAB;
	return n;
}

const struct view_ops *
view_tab(size_t i)
{
	size_t k;

	for (k = 0; k < view_count; k++)
		if (view_registry[k].kind == VIEW_TAB && i-- == 0)
			return view_registry[k].ops;
	return NULL;
}

size_t
view_tab_index(const struct view_ops *ops)
{
	size_t k, i = 0;

	for (k = 0; k < view_count; k++) {
		if (view_registry[k].kind != VIEW_TAB)
			continue;
		if (view_registry[k].ops == ops)
			return i;
		i++;
	}
	return SIZE_MAX;
}

const struct view_ops *
view_by_name(const char *name)
{
	size_t k;

	for (k = 0; k < view_count; k++)
		if (view_registry[k].kind != VIEW_DRILL &&
		    strcmp(view_registry[k].name, name) == 0)
			return view_registry[k].ops;
	return NULL;
}

const struct view_entry *
view_entry(const struct view_ops *ops)
{
	size_t k;

	for (k = 0; k < view_count; k++)
		if (view_registry[k].ops == ops)
			return &view_registry[k];
	return NULL;
}
