/* jobcursor.c: what changed in a jobs folder since a list (jobcursor.h). */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <time.h>

#include "job/jobcursor.h"

#define NS	1000000000LL

int64_t
jobcursor_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

void
jobcursor_format(int64_t ns, char *buf, size_t len)
{
	if (ns <= 0)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%lld.%09lld", (long long)(ns / NS),
		    (long long)(ns % NS));
}

int
jobcursor_parse(const char *s, int64_t *ns)
{
	long long sec = 0, frac = 0;
	size_t i, n;

	if (strcmp(s, "0") == 0) {
		*ns = 0;
		return 0;
	}
	/* SECONDS.NANOSECONDS, nine digits after the point, as written. */
	for (n = 0; s[n] >= '0' && s[n] <= '9'; n++)
		if (n < 12)
			sec = sec * 10 + (s[n] - '0');
	if (n == 0 || n > 12 || s[n] != '.')
		return -1;
	for (i = 1; i <= 9; i++) {
		if (s[n + i] < '0' || s[n + i] > '9')
			return -1;
		frac = frac * 10 + (s[n + i] - '0');
	}
	if (s[n + 10] != '\0')
		return -1;
	*ns = (int64_t)sec * NS + frac;
	return 0;
}

/* Whether path exists and its ctime is at or after t (ns). */
static bool
newer(const char *path, int64_t t)
{
	struct stat st;

	return lstat(path, &st) == 0 &&
	    (int64_t)st.st_ctim.tv_sec * NS + st.st_ctim.tv_nsec >= t;
}

bool
jobcursor_changed(const char *root, const char *name, int64_t ns)
{
	int64_t t = ns - JOBCURSOR_SLACK_NS;
	char *path = xasprintf("%s/%s", root, name);
	char *rec = xasprintf("%s/job.json", path);
	char *last = xasprintf("%s/job.json.last", path);
	struct stat st;
	bool changed;

	changed = ns <= 0 || newer(path, t) || newer(rec, t) ||
	    lstat(last, &st) == 0;
	free(last);
	free(rec);
	free(path);
	return changed;
}
