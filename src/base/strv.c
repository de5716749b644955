/* strv.c: a NULL-terminated argv that owns its strings (strv.h). */
#include "calops.h"

#include "base/strv.h"

void
strv_add(struct strv *s, char *owned)
{
	if (s->n + 2 > s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = xreallocarray(s->v, s->cap, sizeof *s->v);
	}
	s->v[s->n++] = owned;
	s->v[s->n] = NULL;
}

void
strv_free(struct strv *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}
