/* fileio.c: whole reads and writes, atomic replacement (see fileio.h). */
#include "calops.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "base/fileio.h"

int
fileio_set_nonblock(int fd, bool on)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags == -1)
		return -1;
	flags = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
	return fcntl(fd, F_SETFL, flags) == -1 ? -1 : 0;
}

int
fileio_free_bytes(int fd, const char *path, unsigned long long *bytes)
{
	struct statvfs sv;

	if ((fd != -1 ? fstatvfs(fd, &sv) : statvfs(path, &sv)) != 0)
		return -1;
	*bytes = (unsigned long long)(geteuid() == 0 ? sv.f_bfree :
	    sv.f_bavail) * sv.f_frsize;
	return 0;
}

int
fileio_write_full(int fd, const void *data, size_t len)
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
fileio_read_full(int fd, void *data, size_t len)
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

/* fileio_replace() and fileio_create(): the rename, over a file or not. */
static int
install(const char *path, const void *data, size_t len, mode_t mode,
    bool sync, bool over, char *err, size_t errlen)
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
	if (fchmod(fd, mode) == 0 && fileio_write_full(fd, data, len) == 0 &&
	    (!sync || fsync(fd) == 0) && close(fd) == 0) {
		fd = -1;
		if ((over ? rename(tmp, path) : renameat2(AT_FDCWD, tmp,
		    AT_FDCWD, path, RENAME_NOREPLACE)) == 0) {
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
	errno = saved;
	return -1;
}

int
fileio_replace(const char *path, const void *data, size_t len, mode_t mode,
    bool sync, char *err, size_t errlen)
{
	return install(path, data, len, mode, sync, true, err, errlen);
}

int
fileio_create(const char *path, const void *data, size_t len, mode_t mode,
    bool sync, char *err, size_t errlen)
{
	return install(path, data, len, mode, sync, false, err, errlen);
}

#define COPY_CHUNK	(64 * 1024)

/* One regular file, the st_size bytes fstat sees once it is open; the
 * permission bits go on last, so that a read-only file can be written. */
static int
copy_file(const char *from, const char *to, char *err, size_t errlen)
{
	unsigned char *chunk = NULL;
	struct stat st;
	off_t left;
	size_t n;
	int in, out = -1, rc = -1;

	/* O_NONBLOCK: should a FIFO have taken the file's place, no wait. */
	if ((in = open(from, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1 || fstat(in, &st) != 0) {
		errbuf_set(err, errlen, "cannot read '%s': %s", from,
		    strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		errbuf_set(err, errlen, "cannot copy '%s': not a regular file "
		    "or folder", from);
		goto out;
	}
	if ((out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600)) == -1) {
		errbuf_set(err, errlen, "cannot create '%s': %s", to,
		    strerror(errno));
		goto out;
	}
	chunk = xmalloc(COPY_CHUNK);
	for (left = st.st_size; left > 0; left -= (off_t)n) {
		n = left > COPY_CHUNK ? COPY_CHUNK : (size_t)left;
		if (fileio_read_full(in, chunk, n) != 0) {
			errbuf_set(err, errlen, "cannot read '%s': %s", from,
			    errno == EIO ? "it shrank while being copied" :
			    strerror(errno));
			goto out;
		}
		if (fileio_write_full(out, chunk, n) != 0) {
			errbuf_set(err, errlen, "cannot write '%s': %s", to,
			    strerror(errno));
			goto out;
		}
	}
	if (fchmod(out, st.st_mode & 07777) != 0 || close(out) != 0) {
		out = -1;
		errbuf_set(err, errlen, "cannot write '%s': %s", to,
		    strerror(errno));
		goto out;
	}
	out = -1;
	rc = 0;
out:
	free(chunk);
	if (out != -1)
		close(out);
	if (in != -1)
		close(in);
	return rc;
}

static int copy_entry(const char *, const char *, int, char *, size_t);

/* Every entry of the folder from into the existing folder to. */
static int
copy_contents(const char *from, const char *to, int depth, char *err,
    size_t errlen)
{
	struct dirent *de;
	char *f, *t;
	DIR *d;
	int rc = 0;

	if ((d = opendir(from)) == NULL) {
		errbuf_set(err, errlen, "cannot read '%s': %s", from,
		    strerror(errno));
		return -1;
	}
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			if (errno != 0) {
				errbuf_set(err, errlen, "cannot read '%s': %s",
				    from, strerror(errno));
				rc = -1;
			}
			break;
		}
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		f = xasprintf("%s/%s", from, de->d_name);
		t = xasprintf("%s/%s", to, de->d_name);
		rc = copy_entry(f, t, depth, err, errlen);
		free(f);
		free(t);
		if (rc != 0)
			break;
	}
	closedir(d);
	return rc;
}

/* A folder: made private, filled, then given the source's bits. */
static int
copy_dir(const char *from, const char *to, mode_t mode, int depth, char *err,
    size_t errlen)
{
	if (depth > FILEIO_COPY_DEPTH) {
		errbuf_set(err, errlen, "cannot copy '%s': folders nested "
		    "deeper than %d", from, FILEIO_COPY_DEPTH);
		return -1;
	}
	if (mkdir(to, 0700) != 0) {
		errbuf_set(err, errlen, "cannot create '%s': %s", to,
		    strerror(errno));
		return -1;
	}
	if (copy_contents(from, to, depth, err, errlen) != 0)
		return -1;
	if (chmod(to, mode & 07777) != 0) {
		errbuf_set(err, errlen, "cannot write '%s': %s", to,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* One entry, by what lstat says it is: never through a link. */
static int
copy_entry(const char *from, const char *to, int depth, char *err,
    size_t errlen)
{
	struct stat st;

	if (lstat(from, &st) != 0) {
		errbuf_set(err, errlen, "cannot read '%s': %s", from,
		    strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		return copy_dir(from, to, st.st_mode, depth + 1, err, errlen);
	if (S_ISREG(st.st_mode))
		return copy_file(from, to, err, errlen);
	if (S_ISLNK(st.st_mode))
		errbuf_set(err, errlen, "cannot copy '%s': a symbolic link",
		    from);
	else
		errbuf_set(err, errlen, "cannot copy '%s': not a regular file "
		    "or folder", from);
	return -1;
}

/* rm -rf, never through a link: folders are opened up first, since a
 * copied read-only folder may be in it.  Best effort. */
static void
remove_tree(const char *path, int depth)
{
	struct dirent *de;
	struct stat st;
	char *p;
	DIR *d;

	if (lstat(path, &st) != 0)
		return;
	if (!S_ISDIR(st.st_mode) || depth > FILEIO_COPY_DEPTH + 1) {
		(void)unlink(path);
		return;
	}
	(void)chmod(path, 0700);
	if ((d = opendir(path)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			p = xasprintf("%s/%s", path, de->d_name);
			remove_tree(p, depth + 1);
			free(p);
		}
		closedir(d);
	}
	(void)rmdir(path);
}

int
fileio_copy_tree(const char *from, const char *to, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(from, &st) != 0) {
		errbuf_set(err, errlen, "cannot read '%s': %s", from,
		    strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		errbuf_set(err, errlen, "cannot copy '%s': %s", from,
		    S_ISLNK(st.st_mode) ? "a symbolic link" : "not a folder");
		return -1;
	}
	if (mkdir(to, 0700) != 0) {
		errbuf_set(err, errlen, "cannot create '%s': %s", to,
		    strerror(errno));
		return -1;
	}
	if (copy_contents(from, to, 1, err, errlen) == 0) {
		if (chmod(to, st.st_mode & 07777) == 0)
			return 0;
		errbuf_set(err, errlen, "cannot write '%s': %s", to,
		    strerror(errno));
	}
	remove_tree(to, 0);
	return -1;
}

void
fileio_remove_tree(const char *path)
{
	remove_tree(path, 0);
}

int
fileio_make_dirs(const char *path, mode_t mode, char *err, size_t errlen)
{
	char *p = xstrdup(path), *s;
	struct stat st;
	int rc = 0;

	for (s = p + 1; rc == 0; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		if (s[-1] != '/') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, mode) != 0 && (errno != EEXIST ||
			    stat(p, &st) != 0 || !S_ISDIR(st.st_mode))) {
				if (errno == EEXIST)
					errno = ENOTDIR;
				errbuf_set(err, errlen, "cannot make '%s': %s",
				    p, strerror(errno));
				rc = -1;
			}
			*s = c;
		}
		if (*s == '\0')
			break;
	}
	free(p);
	return rc;
}

int
fileio_make_parent(const char *path, mode_t mode, char *err, size_t errlen)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int rc = 0;

	if (slash != NULL && slash != dir) {
		*slash = '\0';
		rc = fileio_make_dirs(dir, mode, err, errlen);
	}
	free(dir);
	return rc;
}

char *
fileio_state_path(const char *rel, char *err, size_t errlen)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (state != NULL && state[0] == '/')
		return xasprintf("%s/calops/%s", state, rel);
	if (home != NULL && home[0] == '/')
		return xasprintf("%s/.local/state/calops/%s", home, rel);
	errbuf_set(err, errlen, "neither XDG_STATE_HOME nor HOME is set");
	return NULL;
}

const char *
fileio_config_dir(char *buf, size_t len)
{
	const char *s;
	int n;

	/* The XDG base directory spec ignores a relative XDG_CONFIG_HOME. */
	if ((s = getenv("XDG_CONFIG_HOME")) != NULL && s[0] == '/')
		n = snprintf(buf, len, "%s/calops", s);
	else if ((s = getenv("HOME")) != NULL && s[0] != '\0')
		n = snprintf(buf, len, "%s/.config/calops", s);
	else
		return NULL;
	return n < 0 || (size_t)n >= len ? NULL : buf;
}
