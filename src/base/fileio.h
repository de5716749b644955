/*
 * fileio.h: whole-buffer reads and writes, and replacing a file so that a
 * reader (or a crash) sees the old contents or the new, never half of them.
 * Shared by every module that keeps a file of its own: the hash cache, the
 * history, the follower's state, the simulator's artifacts, job records.
 * And copying a folder of regular files, as the console does to give the
 * demo lab a private, writable workspace.
 */
#ifndef CALOPS_FILEIO_H
#define CALOPS_FILEIO_H

#include "calops.h"

#include <sys/types.h>

/* Write or read exactly len bytes, retrying on EINTR and short counts;
 * 0, or -1 with errno (EIO for an early end of file on read). */
int	 fileio_write_full(int fd, const void *data, size_t len);
int	 fileio_read_full(int fd, void *data, size_t len);

/* Turn O_NONBLOCK on or off for fd, keeping its other status flags (a
 * bare F_SETFL would clear O_APPEND and the rest).  0, or -1 with errno. */
int	 fileio_set_nonblock(int fd, bool on);

/* The bytes free on the file system of fd (of path when fd is -1) that
 * this process may use: root the blocks kept for it too.  0, or -1 with
 * errno. */
int	 fileio_free_bytes(int fd, const char *path, unsigned long long *bytes);

/*
 * Replace path with data: a hidden temporary file in the same folder,
 * written whole, chmod'ed to mode, renamed over path.  With sync the file
 * and then its folder are fsync'ed, so the switch survives a crash; without
 * (state that is only a hint, written from the console's one thread) no
 * call waits on the disk.  0, or -1 with err set and no temporary left.
 */
int	 fileio_replace(const char *path, const void *data, size_t len,
	    mode_t mode, bool sync, char *err, size_t errlen);
/* The same, but never over a file already at path: then -1 with errno
 * EEXIST (and err set), and nothing written. */
int	 fileio_create(const char *path, const void *data, size_t len,
	    mode_t mode, bool sync, char *err, size_t errlen);

/*
 * Copy the folder from to to, which must not exist yet: regular files
 * (contents and permission bits) and folders (permission bits, applied once
 * the folder is filled), nothing else -- a symlink, socket, FIFO or device
 * anywhere in from, from itself included, is an error naming it, and so is
 * a tree more than FILEIO_COPY_DEPTH folders deep.  Ownership and times are
 * not kept.  0, or -1 with err set; then to is removed again with whatever
 * had been copied into it, so a failed copy leaves nothing behind.  Not
 * atomic: to appear whole, copy into a temporary folder and rename it.
 */
#define FILEIO_COPY_DEPTH	64
int	 fileio_copy_tree(const char *from, const char *to, char *err,
	    size_t errlen);

/* rm -rf path, for a tree this process made (a failed copy, a temporary
 * folder): a symlink in it is removed, not followed; folders are made
 * writable first.  Best effort, silent. */
void	 fileio_remove_tree(const char *path);

/* mkdir -p path, each missing folder made with mode; 0, or -1 with err. */
int	 fileio_make_dirs(const char *path, mode_t mode, char *err,
	    size_t errlen);
/* The same for the folder holding path. */
int	 fileio_make_parent(const char *path, mode_t mode, char *err,
	    size_t errlen);

/*
 * Where the console and the lab side keep their state: rel under
 * $XDG_STATE_HOME/calops, else ~/.local/state/calops (an XDG_STATE_HOME
 * that is not absolute is ignored, as the spec says).  A new string, or
 * NULL with err when neither XDG_STATE_HOME nor HOME is set.
 */
char	*fileio_state_path(const char *rel, char *err, size_t errlen);
/* The user's calops config folder, $XDG_CONFIG_HOME/calops (~/.config/
 * calops), into buf; NULL when neither is set or buf is too short.  The
 * console's (views/core/config.h) and `calops alerts`'s. */
const char *fileio_config_dir(char *buf, size_t len);

#endif
