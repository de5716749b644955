/* statedir.c: the state folder, opened a folder at a time (statedir.h). */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/fileio.h"
#include "base/text.h"
#include "base/statedir.h"

static char *
path_join(const char *dir, const char *name)
{
	if (strcmp(dir, "/") == 0)
		return xasprintf("/%s", name);
	return xasprintf("%s/%s", dir, name);
}

/* s made visible by the sanitiser and quoted for sh, so that a message
 * can show it and the command that fixes it alike; a new string. */
static char *
shell_word(const char *s)
{
	char *vis = text_sanitize_str(s), *p;
	struct buf b = BUF_INIT;

	buf_addc(&b, '\'');
	for (p = vis; *p != '\0'; p++) {
		if (*p == '\'')
			buf_adds(&b, "'\\''");
		else
			buf_addc(&b, *p);
	}
	buf_addc(&b, '\'');
	free(vis);
	return buf_detach(&b, NULL);
}

/* Who uid is, for a person: "alice, uid 1001"; a new string. */
static char *
user_text(uid_t uid)
{
	struct passwd *pw = getpwuid(uid);

	if (pw != NULL && pw->pw_name != NULL && pw->pw_name[0] != '\0')
		return xasprintf("%s, uid %u", pw->pw_name, (unsigned)uid);
	return xasprintf("uid %u", (unsigned)uid);
}

/* Why what at p (quoted) is another user's, and what to do about it. */
static void
refuse_owner(const struct stat *st, const char *subject, const char *p,
    char *err, size_t errlen)
{
	char *owner = user_text(st->st_uid), *me = user_text(geteuid());

	errbuf_set(err, errlen, "refusing %s: it belongs to another user "
	    "(%s), not to you (%s), so nothing in it can be trusted; move it "
	    "aside (as its owner or root): mv %s %.*s.untrusted'", subject,
	    owner, me, p, (int)strlen(p) - 1, p);
	free(owner);
	free(me);
}

/*
 * Whether the entry st describes (lstat's view) may not be used as the
 * state's folder (dir) or file; err says why and how to fix it.  The link
 * target, when it is a link, is read from dirfd and name.
 */
static bool
refused(const struct stat *st, bool dir, int dirfd, const char *name,
    const char *path, const char *what, char *err, size_t errlen)
{
	char target[PATH_MAX], *p = shell_word(path), *subject, *t;
	mode_t w = st->st_mode & 022;
	bool bad = true;
	ssize_t n;

	subject = what != NULL ? xasprintf("%s %s", what, p) : xstrdup(p);
	if (S_ISLNK(st->st_mode)) {
		n = dirfd == -1 ? -1 : readlinkat(dirfd, name, target,
		    sizeof target - 1);
		target[n < 0 ? 0 : n] = '\0';
		t = shell_word(target);
		errbuf_set(err, errlen, "refusing %s: it is a symbolic link "
		    "(to %s), and calops follows none in its state; remove "
		    "it: rm %s", subject, t, p);
		free(t);
	} else if (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
		errbuf_set(err, errlen, "refusing %s: it is not a %s; move "
		    "it aside: mv %s %.*s.old'", subject, dir ? "folder" :
		    "regular file", p, (int)strlen(p) - 1, p);
	else if (st->st_uid != geteuid())
		refuse_owner(st, subject, p, err, errlen);
	else if (w != 0)
		errbuf_set(err, errlen, "refusing %s: it is writable by %s "
		    "(mode %04o); run: chmod go-w %s", subject, w == 022 ?
		    "its group and others" : w == 020 ? "its group" : "others",
		    (unsigned)(st->st_mode & 07777), p);
	else
		bad = false;
	free(subject);
	free(p);
	return bad;
}

/* err for a failed open of path (what may be NULL): errno EACCES when what
 * is there is refused, else the open's. */
static void
open_failed(int dirfd, const char *name, const char *path, bool dir,
    const char *what, char *err, size_t errlen)
{
	struct stat st;
	char *p;
	int e = errno;

	if (e != ENOENT && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) ==
	    0 && refused(&st, dir, dirfd, name, path, what, err, errlen)) {
		errno = EACCES;
		return;
	}
	p = shell_word(path);
	errbuf_set(err, errlen, "cannot open %s%s%s: %s", what != NULL ? what :
	    "", what != NULL ? " " : "", p, strerror(e));
	free(p);
	errno = e;
}

int
statedir_check_dir(int fd, const char *path, const char *what, char *err,
    size_t errlen)
{
	struct stat st;
	char *p;

	if (fstat(fd, &st) != 0) {
		p = shell_word(path);
		errbuf_set(err, errlen, "cannot read %s %s: %s", what, p,
		    strerror(errno));
		free(p);
		return -1;
	}
	if (refused(&st, true, -1, NULL, path, what, err, errlen)) {
		errno = EACCES;
		return -1;
	}
	return 0;
}

int
statedir_open_dir(int dirfd, const char *dir, const char *name,
    const char *what, bool create, char *err, size_t errlen)
{
	char *path = path_join(dir, name), *p;
	int fd, tries, e;

	/* Made where missing; a rival that makes it first is judged too. */
	for (tries = 0;; tries++) {
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		if (fd != -1 || errno != ENOENT || !create || tries == 2)
			break;
		if (mkdirat(dirfd, name, 0700) == -1 && errno != EEXIST) {
			e = errno;
			p = shell_word(path);
			errbuf_set(err, errlen, "cannot make %s %s: %s", what,
			    p, strerror(e));
			free(p);
			free(path);
			errno = e;
			return -1;
		}
	}
	if (fd == -1)
		open_failed(dirfd, name, path, true, what, err, errlen);
	else if (statedir_check_dir(fd, path, what, err, errlen) != 0) {
		close(fd);
		fd = -1;
	}
	free(path);
	return fd;
}

/* The folder above top (followed: it is the operator's) and top's own
 * name; *parentp a new string.  top "a/b/" gives "a" and "b". */
static char *
split_top(const char *top, char **parentp)
{
	char *copy = xstrdup(top), *slash, *base, *real;
	size_t n = strlen(copy);

	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = '\0';
	base = (slash = strrchr(copy, '/')) != NULL ? slash + 1 : copy;
	if ((strcmp(base, ".") == 0 || strcmp(base, "..") == 0) &&
	    (real = realpath(copy, NULL)) != NULL) {
		free(copy);
		copy = real;
		base = (slash = strrchr(copy, '/')) != NULL ? slash + 1 : copy;
	}
	if (slash == NULL)
		*parentp = xstrdup(".");
	else if (slash == copy)
		*parentp = xstrdup("/");
	else
		*parentp = xstrndup(copy, (size_t)(slash - copy));
	base = xstrdup(base);
	free(copy);
	return base;
}

int
statedir_open_top(const char *top, const char *what, bool create,
    char **pathp, char *err, size_t errlen)
{
	char *parent, *base = split_top(top, &parent), *real = NULL;
	int pfd = -1, fd = -1, e;

	if (base[0] == '\0' || strcmp(base, "/") == 0) {
		errbuf_set(err, errlen, "cannot use '/' as %s", what);
		errno = EINVAL;
		goto out;
	}
	if (create && fileio_make_dirs(parent, 0700, err, errlen) != 0)
		goto out;
	if ((pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    (real = realpath(parent, NULL)) == NULL) {
		e = errno;
		errbuf_set(err, errlen, "cannot open %s: %s", what,
		    strerror(e));
		errno = e;
		goto out;
	}
	free(parent);
	parent = real;
	fd = statedir_open_dir(pfd, parent, base, what, create, err, errlen);
	if (fd != -1 && pathp != NULL)
		*pathp = path_join(parent, base);
out:
	e = errno;
	if (pfd != -1)
		close(pfd);
	free(parent);
	free(base);
	errno = e;
	return fd;
}

int
statedir_open(const char *rel, const char *what, bool create, char **pathp,
    char *err, size_t errlen)
{
	char *top, *copy, *path = NULL, *name, *next, *save = NULL;
	int fd, nfd, e;

	if ((top = fileio_state_path("", err, errlen)) == NULL) {
		errno = EINVAL;
		return -1;
	}
	fd = statedir_open_top(top, rel[0] == '\0' ? what : "the state folder",
	    create, &path, err, errlen);
	free(top);
	copy = xstrdup(rel);
	for (name = strtok_r(copy, "/", &save); fd != -1 && name != NULL;
	    name = next) {
		next = strtok_r(NULL, "/", &save);
		nfd = statedir_open_dir(fd, path, name, next == NULL ? what :
		    "the folder", create, err, errlen);
		e = errno;
		close(fd);
		fd = nfd;
		top = path;
		path = path_join(top, name);
		free(top);
		errno = e;
	}
	e = errno;
	free(copy);
	if (fd != -1 && pathp != NULL)
		*pathp = path;
	else
		free(path);
	errno = e;
	return fd;
}

int
statedir_open_file(int dirfd, const char *dir, const char *name, int flags,
    mode_t mode, char *err, size_t errlen)
{
	char *path = path_join(dir, name);
	struct stat st;
	int fd;

	/* O_NONBLOCK: a FIFO in the file's place does not hold the open. */
	fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK, mode);
	if (fd == -1)
		open_failed(dirfd, name, path, false, NULL, err, errlen);
	else if (fstat(fd, &st) != 0 ||
	    refused(&st, false, -1, NULL, path, NULL, err, errlen)) {
		close(fd);
		fd = -1;
		errno = EACCES;
	} else if ((flags & O_NONBLOCK) == 0 &&
	    fileio_set_nonblock(fd, false) != 0) {
		/* as if the open had failed: fd is not what was asked for */
		close(fd);
		fd = -1;
		open_failed(dirfd, name, path, false, NULL, err, errlen);
	}
	free(path);
	return fd;
}

int
statedir_open_path(const char *path, int flags, mode_t mode, char *err,
    size_t errlen)
{
	char *dir, *name = split_top(path, &dir);
	int dfd, fd = -1, e;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd == -1) {
		open_failed(AT_FDCWD, dir, dir, true, "the folder", err,
		    errlen);
		e = errno;
	} else {
		fd = statedir_open_file(dfd, dir, name, flags, mode, err,
		    errlen);
		e = errno;
		close(dfd);
	}
	free(dir);
	free(name);
	errno = e;
	return fd;
}

int
statedir_check_file(int dirfd, const char *dir, const char *name, char *err,
    size_t errlen)
{
	char *path;
	struct stat st;
	int rc = 0;

	path = path_join(dir, name);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		rc = errno == ENOENT ? 1 : -1;
		if (rc == -1)
			open_failed(dirfd, name, path, false, NULL, err,
			    errlen);
	} else if (refused(&st, false, dirfd, name, path, NULL, err,
	    errlen)) {
		errno = EACCES;
		rc = -1;
	}
	free(path);
	return rc;
}
