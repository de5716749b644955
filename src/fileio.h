/*
 * fileio.h: whole-buffer reads and writes, and replacing a file so that a
 * reader (or a crash) sees the old contents or the new, never half of them.
 * Shared by every module that keeps a file of its own: the hash cache, the
 * history, the follower's state, the simulator's artifacts, job records.
 */
#ifndef CALOPS_FILEIO_H
#define CALOPS_FILEIO_H

#include "calops.h"

#include <sys/types.h>

/* Write or read exactly len bytes, retrying on EINTR and short counts;
 * 0, or -1 with errno (EIO for an early end of file on read). */
int	 write_full(int fd, const void *data, size_t len);
int	 read_full(int fd, void *data, size_t len);

/*
 * Replace path with data: a hidden temporary file in the same folder,
 * written whole, chmod'ed to mode, renamed over path.  With sync the file
 * and then its folder are fsync'ed, so the switch survives a crash; without
 * (state that is only a hint, written from the console's one thread) no
 * call waits on the disk.  0, or -1 with err set and no temporary left.
 */
int	 file_replace(const char *path, const void *data, size_t len,
	    mode_t mode, bool sync, char *err, size_t errlen);

#endif
