/*
 * cmd_ls.c: `calops ls [--json] WS PATH`: what PATH, inside the workspace
 * WS, is and, for a folder, its entries (name, type, size, mtime), sorted
 * by name: the console's listing of an evidence folder (`o` on a finding
 * that names one, share/doc/protocol.md §1), on this machine and on an SSH
 * host alike.  PATH is opened beneath the workspace as cat opens a file
 * (workspace.h): a path that leads out of it, by ".." or a symbolic link,
 * is refused; each entry is looked at beneath the folder opened, its link
 * not followed (type "link"), so nothing outside is ever described.  A
 * folder of more than LS_MAX entries lists the first LS_MAX it reads,
 * sorted, and says how many more there are.  Names go out as the file
 * system has them (JSON; one that is not UTF-8 escaped and marked opaque);
 * the reader makes them safe to show.
 */
#include "calops.h"

#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <time.h>
#include <unistd.h>

#include "base/text.h"
#include "cmd/cmd.h"
#include "proto/hostcmd.h"
#include "ws/workspace.h"

#define LS_MAX	HOSTCMD_LS_MAX	/* entries listed, the rest counted */

static const char ls_usage[] =
    "usage: calops ls [--json] WS PATH\n"
    "\n"
    "Say what PATH, inside the workspace WS (relative to it; \".\" for its\n"
    "root), is, and for a folder list its entries, sorted by name: type,\n"
    "size, modification time, name.  A path that leads outside the\n"
    "workspace, by \"..\" or a symbolic link, is refused; a symbolic link\n"
    "inside is listed as a link, not followed.  At most 5000 entries are\n"
    "listed, and how many more there are said.  --json prints the\n"
    "calops-ls/v1 document the console reads (share/doc/protocol.md).\n"
    "\n"
    "Exit status: 0 when it was said, 1 when PATH is not inside WS or\n"
    "cannot be read, or standard output cannot be written, 2 on a usage\n"
    "error.\n";

struct ls_entry {
	char		*name;
	struct stat	 st;
};

static enum hostcmd_ls_type
type_of(mode_t m)
{
	if (S_ISREG(m))
		return HOSTCMD_LS_FILE;
	if (S_ISDIR(m))
		return HOSTCMD_LS_FOLDER;
	if (S_ISLNK(m))
		return HOSTCMD_LS_LINK;
	return HOSTCMD_LS_OTHER;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(((const struct ls_entry *)a)->name,
	    ((const struct ls_entry *)b)->name);
}

/* The folder fd's entries (fd is taken), up to LS_MAX into *v, sorted;
 * how many in all into *total.  0, or -1 with errno. */
static int
read_folder(int fd, struct ls_entry **v, size_t *n, size_t *total)
{
	struct dirent *d;
	DIR *dir;

	*v = NULL;
	*n = *total = 0;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	*v = xcalloc(LS_MAX, sizeof **v);
	errno = 0;
	while ((d = readdir(dir)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		++*total;
		/* Looked at beneath the folder opened, never followed. */
		if (*n == LS_MAX || fstatat(dirfd(dir), d->d_name, &(*v)[*n].st,
		    AT_SYMLINK_NOFOLLOW) != 0)
			continue;	/* gone meanwhile: not listed */
		(*v)[(*n)++].name = xstrdup(d->d_name);
	}
	if (errno != 0) {
		closedir(dir);
		return -1;
	}
	closedir(dir);
	qsort(*v, *n, sizeof **v, by_name);
	return 0;
}

static json_t *
entry_json(const struct ls_entry *e)
{
	json_t *o = json_pack("{s:o,s:s,s:I,s:I}", "name",
	    text_json(e->name), "type", hostcmd_ls_type_name(type_of(
	    e->st.st_mode)), "size", (json_int_t)e->st.st_size, "mtime",
	    (json_int_t)e->st.st_mtim.tv_sec);

	if (!text_utf8_valid(e->name, strlen(e->name)))
		json_object_set_new(o, "opaque", json_true());
	return o;
}

/* The listing as people read it: type, size, mtime (UTC), name (made safe
 * for a terminal). */
static void
print_text(const char *rel, const struct stat *st, const struct ls_entry *v,
    size_t n, size_t total)
{
	char when[32], *name;
	struct tm tm;
	size_t i;

	if (!S_ISDIR(st->st_mode)) {
		name = text_sanitize_str(rel);
		printf("%s is a %s of %lld bytes\n", name,
		    hostcmd_ls_type_name(type_of(st->st_mode)),
		    (long long)st->st_size);
		free(name);
		return;
	}
	for (i = 0; i < n; i++) {
		gmtime_r(&v[i].st.st_mtim.tv_sec, &tm);
		strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
		name = text_sanitize_str(v[i].name);
		printf("%-6s %12lld  %s  %s\n", hostcmd_ls_type_name(type_of(
		    v[i].st.st_mode)), (long long)v[i].st.st_size, when, name);
		free(name);
	}
	if (total > n)
		printf("(%zu more not listed)\n", total - n);
}

static void
print_json(const char *rel, const struct stat *st, const struct ls_entry *v,
    size_t n, size_t total)
{
	json_t *o, *list = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(list, entry_json(&v[i]));
	o = json_pack("{s:s,s:o,s:s,s:o,s:I}", "schema", "calops-ls/v1",
	    "path", text_json(rel), "type", hostcmd_ls_type_name(type_of(
	    st->st_mode)), "entries", list, "more", (json_int_t)(total - n));
	(void)text_json_print(stdout, o, JSON_INDENT(1));
	json_decref(o);
}

/* PATH judged and listed; the exit status. */
static int
ls_path(const struct workspace *ws, const char *rel, bool json)
{
	struct ls_entry *v = NULL;
	size_t n = 0, total = 0, i;
	struct stat st;
	char err[512];
	int fd, rc = 0;

	/* Beneath the workspace, as cat opens a file: what it is first. */
	if (workspace_open_fd(ws, rel, 0, &fd, &st, err, sizeof err) != WS_OK) {
		fprintf(stderr, "calops: %s\n", err);
		return 1;
	}
	close(fd);
	if (S_ISDIR(st.st_mode)) {
		if (workspace_open_fd(ws, rel, S_IFDIR, &fd, &st, err,
		    sizeof err) != WS_OK) {
			fprintf(stderr, "calops: %s\n", err);
			return 1;
		}
		if (read_folder(fd, &v, &n, &total) != 0) {
			fprintf(stderr, "calops: cannot list '%s': %s\n", rel,
			    strerror(errno));
			rc = 1;
		}
	}
	if (rc == 0 && json)
		print_json(rel, &st, v, n, total);
	else if (rc == 0)
		print_text(rel, &st, v, n, total);
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	if (rc == 0 && fflush(stdout) != 0)
		rc = 1;
	return rc;
}

int
cmd_ls(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct workspace ws;
	bool json = false;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(ls_usage, stdout);
			return 0;
		default:
			fputs(ls_usage, stderr);
			return 2;
		}
	}
	if ((rc = cmd_cat_operands(argc, argv, ls_usage, &ws)) >= 0)
		return rc;
	rc = ls_path(&ws, argv[optind + 1], json);
	workspace_close(&ws);
	return rc;
}
