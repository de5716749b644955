/*
 * workspace.h: file access inside a workspace, with path safety.
 *
 * Gate code names files by workspace-relative paths ("02-onnx/model.onnx").
 * Every access goes through here so that nothing is read from outside the
 * workspace: a path named inside an artifact must be relative, must not climb
 * out through "..", and a file reached through a symbolic link must resolve
 * inside the workspace (workspace.md §1).
 *
 * A file is judged on the open itself, never by a path looked at before:
 * the kernel resolves it beneath a descriptor of the root, opened once,
 * and refuses a way out met on the way (openat2(2), RESOLVE_BENEATH), so
 * that a link swapped in between a check and an open cannot lead a reader
 * out.  What the caller then trusts is the descriptor and its fstat().
 */
#ifndef CALOPS_WORKSPACE_H
#define CALOPS_WORKSPACE_H

#include "calops.h"

#include <sys/stat.h>

struct workspace {
	char	*root;		/* realpath of the workspace folder */
	char	*given;		/* the path as the user gave it */
	int	 rootfd;	/* the root (O_PATH): files open beneath it */
};

enum ws_status {
	WS_OK,
	WS_ABSENT,		/* no such file (or a dangling link inside) */
	WS_OUTSIDE,		/* resolves outside the workspace */
	WS_LOOP,		/* a symbolic link loop */
	WS_UNREADABLE,		/* permission or I/O error */
	WS_NOT_FILE,		/* not a regular file (or a folder) where one
				 * is needed */
	WS_TOO_BIG,		/* larger than the caller's limit */
};

/* Opens the workspace at path; returns 0, or -1 with a message in err. */
int	 workspace_open(struct workspace *ws, const char *path, char *err,
	    size_t len);
void	 workspace_close(struct workspace *ws);

/* root + "/" + rel, a new string owned by the caller. */
char	*workspace_abs(const struct workspace *ws, const char *rel);

/*
 * Where rel is and what it is.  On WS_OK *st describes the file (following
 * links inside the workspace).  err receives a message for any other status
 * ("symbolic link '…' leads outside the workspace", "'…' is a symlink loop
 * …": a loop, or a chain of links deeper than the system follows, is
 * WS_LOOP and never taken for a way out).
 */
enum ws_status workspace_locate(const struct workspace *ws, const char *rel,
	    struct stat *st, char *err, size_t len);

/*
 * Open rel beneath the workspace's root, the kernel judging every step of
 * the open (workspace.md §1): a symbolic link is followed only as long as
 * it stays inside, an absolute one that points inside too (resolved to
 * its real path, which is then opened with no link followed: a link met
 * there was swapped in meanwhile).  flags are open(2)'s; O_CLOEXEC is
 * added, and O_NOCTTY unless O_PATH.  A descriptor, or -1 with errno:
 * EXDEV when rel leads outside (or changed while it was opened), ELOOP,
 * ENOENT...  Safe from several threads at once.
 */
int	 workspace_openat(const struct workspace *ws, const char *rel,
	    int flags);

/*
 * Open rel beneath the folder dirfd without following a symbolic link
 * anywhere, on the way or at its end (ELOOP, or ENOTDIR for a folder
 * wanted), nor going up through ".." (EXDEV): how a walk that follows no
 * link opens what it listed, so that a folder swapped for a link meanwhile
 * does not take it elsewhere.  Same contract as workspace_openat().
 */
int	 workspace_openat_nolinks(int dirfd, const char *rel, int flags);

/*
 * workspace_openat() with the statuses and messages of workspace_locate().
 * type is S_IFREG (a regular file, opened for reading, O_NONBLOCK: never
 * blocking on a FIFO swapped in), S_IFDIR (a folder, opened for listing
 * and openat()) or 0 (anything, opened O_PATH).  A file of another type
 * is WS_NOT_FILE without being opened for reading.  On WS_OK *fd (the
 * caller's to close) and *st, its fstat(); else *fd is -1.
 */
enum ws_status workspace_open_fd(const struct workspace *ws, const char *rel,
	    mode_t type, int *fd, struct stat *st, char *err, size_t len);

/* Read a whole regular file of at most max bytes; *data (NUL-terminated)
 * is owned by the caller.  Returns the status, with err set when not WS_OK. */
enum ws_status workspace_read(const struct workspace *ws, const char *rel,
	    size_t max,
	    char **data, size_t *size, char *err, size_t len);

/*
 * Resolve a path named inside the artifact `from_file` (workspace-relative):
 * relative to that file's folder, one component at a time as the file
 * system does, so that a ".." after a symbolic link goes up from the link's
 * target (with ws NULL, by name only).  Returns 0 with *rel (owned by the
 * caller), 1 when ref is a content URI (sha256:…, oci://…, s3://…,
 * https://…) that is not resolved, or -1 with a message when ref is empty,
 * absolute, climbs out of the workspace or leaves it through a link.
 */
int	 workspace_join(const struct workspace *ws, const char *from_file,
	    const char *ref, char **rel, char *err, size_t len);

/* True for a content URI as above. */
bool	 workspace_is_uri(const char *ref);

/* The line on which the JSON pointer names a value in rel (a finding's
 * "#/findings/1", jsonptr.h), read whole up to WORKSPACE_JSON_MAX; 0 with
 * err when rel cannot be read or the pointer names nothing in it. */
#define WORKSPACE_JSON_MAX	(256u << 20)
long	 workspace_pointer_line(const struct workspace *ws, const char *rel,
	    const char *pointer, char *err, size_t len);

#endif
