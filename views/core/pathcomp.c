/*
 * pathcomp.c: a typed path completed from its folder's entries, as a shell's
 * Tab does (pathcomp.h).  Only the local filesystem: the console's machine.
 */
#include "calops.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>

#include "base/text.h"
#include "views/core/config.h"
#include "views/core/pathcomp.h"

/* The folder to list for path's last part (its first cut bytes): dir
 * (the caller's, of len bytes), "~" standing for $HOME as it does for a
 * path the config names; -1 when it does not fit or HOME is not set. */
static int
folder_of(const char *path, size_t cut, char *dir, size_t len)
{
	char *typed = xasprintf("%.*s", (int)cut, path), *full;
	int n = -1;

	if (cut == 0)
		n = snprintf(dir, len, ".");
	else if ((full = config_expand_path(typed)) != NULL) {
		n = snprintf(dir, len, "%s", full);
		free(full);
	}
	free(typed);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static int
name_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The matching names of dir, sorted, in *namesp (the caller frees each and
 * the array); their count, or -1 with err. */
static ssize_t
matches(const char *dir, const char *part, char ***namesp, char *err,
    size_t errlen)
{
	size_t len = strlen(part), n = 0, cap = 0;
	char **names = NULL;
	struct dirent *e;
	DIR *d;

	if ((d = opendir(dir)) == NULL) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (e->d_name[0] == '.' && part[0] != '.')
			continue;
		if (strncmp(e->d_name, part, len) != 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			names = xreallocarray(names, cap, sizeof *names);
		}
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof *names, name_cmp);
	*namesp = names;
	return (ssize_t)n;
}

/* How many bytes the sorted names share, never cutting a UTF-8
 * character. */
static size_t
common_prefix(char **names, size_t n)
{
	const char *a = names[0], *b = names[n - 1];
	size_t i = 0;

	while (a[i] != '\0' && a[i] == b[i])
		i++;
	while (i > 0 && ((unsigned char)a[i] & 0xc0) == 0x80)
		i--;
	return i;
}

/* The names, sanitised, into pc->list; cut with "…" past its size. */
static void
list_names(char **names, size_t n, struct pathcomp *pc)
{
	size_t i, used = 0, room = sizeof pc->list - sizeof "…";
	char *s;

	pc->list[0] = '\0';
	for (i = 0; i < n; i++) {
		if ((s = text_sanitize_str(names[i])) == NULL)
			break;
		if (used + strlen(s) + 1 > room) {
			free(s);
			break;
		}
		used += (size_t)snprintf(pc->list + used, sizeof pc->list -
		    used, "%s%s", used ? " " : "", s);
		free(s);
	}
	if (i < n)
		snprintf(pc->list + used, sizeof pc->list - used, "%s…",
		    used ? " " : "");
}

int
pathcomp_complete(char *path, size_t size, struct pathcomp *pc, char *err,
    size_t errlen)
{
	char dir[PATH_MAX + 1], full[PATH_MAX + 1], **names = NULL;
	const char *slash = strrchr(path, '/'), *part;
	size_t cut, keep, i;
	ssize_t n;
	struct stat sb;
	int rc = 0;

	memset(pc, 0, sizeof *pc);
	if (strcmp(path, "~") == 0) {
		/* As a shell does: "~" is a folder, so it gets its '/'. */
		if (size < 3) {
			snprintf(err, errlen, "the path is too long");
			return -1;
		}
		memcpy(path, "~/", sizeof "~/");
		pc->n = 1;
		return 0;
	}
	cut = slash != NULL ? (size_t)(slash - path) + 1 : 0;
	part = path + cut;
	if (folder_of(path, cut, dir, sizeof dir) == -1) {
		snprintf(err, errlen, "the path is too long, or HOME is "
		    "not set for its '~'");
		return -1;
	}
	if ((n = matches(dir, part, &names, err, errlen)) == -1)
		return -1;
	pc->n = (size_t)n;
	if (n == 0)
		goto out;
	/* Never shorter than typed (the prefix can stop inside the half of
	 * a character typed so far). */
	if ((keep = common_prefix(names, (size_t)n)) < strlen(part))
		keep = strlen(part);
	if (cut + keep + 2 > size) {
		snprintf(err, errlen, "the path is too long");
		rc = -1;
		goto out;
	}
	memcpy(path + cut, names[0], keep);
	path[cut + keep] = '\0';
	if (n == 1) {
		/* A folder (or a link to one) is gone into next. */
		if (snprintf(full, sizeof full, "%s/%s", dir, names[0]) <
		    (int)sizeof full && stat(full, &sb) == 0 &&
		    S_ISDIR(sb.st_mode))
			memcpy(path + cut + keep, "/", sizeof "/");
	} else
		list_names(names, (size_t)n, pc);
out:
	for (i = 0; i < (size_t)n; i++)
		free(names[i]);
	free(names);
	return rc;
}
