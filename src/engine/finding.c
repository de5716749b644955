/* finding.c: the findings list. */
#include "calops.h"

#include "engine/finding.h"

static const char *const severity_names[] = {
	[SEV_ERROR] = "error",
	[SEV_BLOCKED] = "blocked",
	[SEV_STALE] = "stale",
	[SEV_WARN] = "warn",
	[SEV_INFO] = "info",
};

const char *
finding_severity_name(enum severity s)
{
	return severity_names[s];
}

int
finding_severity_parse(const char *name, enum severity *out)
{
	size_t i;

	for (i = 0; i < nitems(severity_names); i++) {
		if (strcmp(name, severity_names[i]) == 0) {
			*out = (enum severity)i;
			return 0;
		}
	}
	return -1;
}

void
finding_addv(struct findings *f, enum severity sev, const char *check,
    const char *path, const char *where, const char *fmt, va_list ap)
{
	struct finding *x;

	if (f->n == f->alloc) {
		f->alloc = f->alloc == 0 ? 8 : f->alloc * 2;
		f->v = xreallocarray(f->v, f->alloc, sizeof *f->v);
	}
	x = &f->v[f->n++];
	x->check = xstrdup(check);
	x->severity = sev;
	x->message = xvasprintf(fmt, ap);
	x->path = xstrdup(path != NULL ? path : "");
	x->where = xstrdup(where != NULL ? where : "");
}

void
finding_add(struct findings *f, enum severity sev, const char *check,
    const char *path, const char *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	finding_addv(f, sev, check, path, where, fmt, ap);
	va_end(ap);
}

void
finding_list_release(struct findings *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		free(f->v[i].check);
		free(f->v[i].message);
		free(f->v[i].path);
		free(f->v[i].where);
	}
	free(f->v);
	memset(f, 0, sizeof *f);
}

bool
finding_check_covers(const char *id, const char *check)
{
	size_t n = strlen(id);

	return strncmp(id, check, n) == 0 &&
	    (check[n] == '\0' || check[n] == '.');
}
