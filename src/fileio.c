/* fileio.c: whole reads and writes, atomic replacement (see fileio.h). */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include "fileio.h"

int
write_full(int fd, const void *data, size_t len)
{
	const unsigned char *p = data;
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
read_full(int fd, void *data, size_t len)
{
	unsigned char *p = data;
	ssize_t n;

	while (len > 0) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			errno = EIO;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Flush the folder holding path, so that a rename survives a crash. */
static void
sync_parent(const char *path)
{
	char *dir = xstrdup(path), *s;
	int fd;

	if ((s = strrchr(dir, '/')) == NULL) {
		free(dir);
		dir = xstrdup(".");
	} else
		*(s == dir ? s + 1 : s) = '\0';
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
}

int
file_replace(const char *path, const void *data, size_t len, mode_t mode,
    bool sync, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char *tmp;
	int fd, saved;

	/* Hidden, so that nothing listing the folder takes it for a file. */
	if (slash == NULL)
		tmp = xasprintf(".%s.XXXXXX", path);
	else
		tmp = xasprintf("%.*s/.%s.XXXXXX", (int)(slash - path), path,
		    slash + 1);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1) {
		errbuf_set(err, errlen, "cannot write '%s': %s", path,
		    strerror(errno));
		free(tmp);
		return -1;
	}
	if (fchmod(fd, mode) == 0 && write_full(fd, data, len) == 0 &&
	    (!sync || fsync(fd) == 0) && close(fd) == 0) {
		fd = -1;
		if (rename(tmp, path) == 0) {
			if (sync)
				sync_parent(path);
			free(tmp);
			return 0;
		}
	}
	saved = errno;
	if (fd != -1)
		close(fd);
	unlink(tmp);
	errbuf_set(err, errlen, "cannot write '%s': %s", path, strerror(saved));
	free(tmp);
	return -1;
}
