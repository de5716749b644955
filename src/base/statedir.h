/*
 * statedir.h: the state folder trusts nothing it finds.
 *
 * calops keeps its state under $XDG_STATE_HOME/calops (fileio_state_path):
 * the jobs folder, the action log, the stream mirrors, the history and the
 * demo lab.  Another local user who could write there could plant a
 * symbolic link, so that calops appends its records to a file of their
 * choosing, or a job whose forged record names a process to kill.  So the
 * state is opened a folder at a time, with openat(2) and O_DIRECTORY |
 * O_NOFOLLOW from the folder above, each one made (0700) where it is
 * missing, and a folder is refused unless it is a real folder of the
 * effective user that neither its group nor others may write; a file in it
 * is opened with O_NOFOLLOW and refused unless it is a regular file of the
 * user's that neither its group nor others may write.  A folder that passed
 * holds nothing another user put there, so what its caller then does in it
 * by path stays the user's.  A refusal's message names the path (made
 * visible by the sanitiser) and the command that fixes it; errno is then
 * EACCES.
 *
 * Above the state folder -- $XDG_STATE_HOME itself or ~/.local/state, and
 * the folders holding a jobs folder named with --jobs or CALOPS_JOBS_DIR --
 * the path is the operator's and is followed as the system follows it.
 *
 * Paths returned are new strings owned by the caller; descriptors are the
 * caller's to close.
 */
#ifndef CALOPS_STATEDIR_H
#define CALOPS_STATEDIR_H

#include "calops.h"

#include <sys/types.h>

/*
 * The folder rel under the state folder ("" for the state folder itself,
 * "streams/lab3" a folder two deep), what naming it in messages ("the jobs
 * folder").  An O_DIRECTORY descriptor and its path in *pathp (unless
 * NULL); or -1 with err, and errno ENOENT when a folder is missing and
 * create is false.
 */
int	 statedir_open(const char *rel, const char *what, bool create,
	    char **pathp, char *err, size_t errlen);

/*
 * The same for a folder the operator named (the jobs folder of --jobs):
 * top's last component is the state's and is checked (and made, with the
 * folders above it, when create), those above it are followed.  *pathp is
 * absolute.
 */
int	 statedir_open_top(const char *top, const char *what, bool create,
	    char **pathp, char *err, size_t errlen);

/* One folder, name, in the state's folder dirfd whose path is dir: opened
 * as above (made when create); a descriptor or -1 with err (ENOENT). */
int	 statedir_open_dir(int dirfd, const char *dir, const char *name,
	    const char *what, bool create, char *err, size_t errlen);

/* Whether the open folder fd at path may be trusted: 0, or -1 with err. */
int	 statedir_check_dir(int fd, const char *path, const char *what,
	    char *err, size_t errlen);

/*
 * The file name in the state's folder dirfd whose path is dir, opened with
 * flags | O_NOFOLLOW | O_CLOEXEC (mode when it is made) and refused when
 * it is a symbolic link, not a regular file, another user's, or writable
 * by its group or others.  A descriptor, or -1 with err (errno ENOENT when
 * it is missing and flags do not make it).  A FIFO planted there does not
 * block the open.
 */
int	 statedir_open_file(int dirfd, const char *dir, const char *name,
	    int flags, mode_t mode, char *err, size_t errlen);

/* The same for the file at path, in a folder of the state made or opened
 * before (its last folder is opened O_NOFOLLOW, those above followed). */
int	 statedir_open_path(const char *path, int flags, mode_t mode,
	    char *err, size_t errlen);

/* The same judgement without opening: 0 when name is fine, 1 when it is
 * not there, -1 with err when it is refused. */
int	 statedir_check_file(int dirfd, const char *dir, const char *name,
	    char *err, size_t errlen);

#endif
