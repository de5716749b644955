/* workspace.c: file access inside a workspace, with path safety. */
#include "calops.h"

#include <sys/syscall.h>

#include <fcntl.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/jsonptr.h"
#include "ws/workspace.h"

/* What ELOOP means, for a person: a loop, or a chain of links longer than
 * the system follows (40), which cannot be told apart and are refused
 * alike. */
#define LOOP_WORDS	"a symlink loop (or a chain of links too deep to follow)"

/* openat2(2) answers EAGAIN when a rename raced its ".."; tried again. */
#define OPENAT2_TRIES	8

/* Set once openat2(2) is known missing (a kernel before 5.6, ENOSYS), or
 * CALOPS_TEST_NO_OPENAT2 asks the tests for the way without it. */
static atomic_bool no_openat2;
static pthread_once_t openat2_once = PTHREAD_ONCE_INIT;

int
workspace_open(struct workspace *ws, const char *path, char *err, size_t len)
{
	struct stat st, rst;

	memset(ws, 0, sizeof *ws);
	ws->rootfd = -1;
	if (stat(path, &st) == -1) {
		errbuf_set(err, len, "cannot open workspace '%s': %s", path,
		    errno == ELOOP ? LOOP_WORDS : strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		errbuf_set(err, len, "workspace '%s' is not a directory", path);
		return -1;
	}
	if ((ws->root = realpath(path, NULL)) == NULL) {
		errbuf_set(err, len, "cannot resolve workspace '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	if (access(ws->root, R_OK | X_OK) == -1) {
		errbuf_set(err, len, "cannot read workspace '%s': %s", path,
		    strerror(errno));
		free(ws->root);
		ws->root = NULL;
		return -1;
	}
	/* Once: every file is then opened beneath this very folder. */
	if ((ws->rootfd = open(ws->root, O_PATH | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || fstat(ws->rootfd, &rst) == -1 ||
	    rst.st_dev != st.st_dev || rst.st_ino != st.st_ino) {
		errbuf_set(err, len, "cannot open workspace '%s': %s", path,
		    ws->rootfd == -1 ? strerror(errno) :
		    "it changed while it was opened");
		if (ws->rootfd != -1)
			close(ws->rootfd);
		free(ws->root);
		ws->root = NULL;
		return -1;
	}
	ws->given = xstrdup(path);
	return 0;
}

void
workspace_close(struct workspace *ws)
{
	if (ws->root != NULL)
		close(ws->rootfd);
	free(ws->root);
	free(ws->given);
	memset(ws, 0, sizeof *ws);
}

char *
workspace_abs(const struct workspace *ws, const char *rel)
{
	if (rel[0] == '\0' || strcmp(rel, ".") == 0)
		return xstrdup(ws->root);
	return xasprintf("%s/%s", ws->root, rel);
}

static bool
within(const char *root, const char *real)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return true;
	return strncmp(real, root, n) == 0 &&
	    (real[n] == '\0' || real[n] == '/');
}

/* An absolute path with "." and ".." applied by name; a new string. */
static char *
normalise(const char *path)
{
	char *copy = xstrdup(path), *tok, *save = NULL, **parts = NULL;
	struct buf out = BUF_INIT;
	size_t n = 0, i;

	for (tok = strtok_r(copy, "/", &save); tok != NULL;
	    tok = strtok_r(NULL, "/", &save)) {
		if (strcmp(tok, ".") == 0)
			continue;
		if (strcmp(tok, "..") == 0) {
			if (n > 0)
				n--;
			continue;
		}
		parts = xreallocarray(parts, n + 1, sizeof *parts);
		parts[n++] = tok;
	}
	for (i = 0; i < n; i++) {
		buf_addc(&out, '/');
		buf_adds(&out, parts[i]);
	}
	if (n == 0)
		buf_addc(&out, '/');
	free(parts);
	free(copy);
	return buf_detach(&out, NULL);
}

/*
 * Where an absolute path that does not exist would be: the real path of its
 * longest existing prefix, with the rest applied by name.  NULL when not
 * even that resolves, or when a prefix is a symlink loop (*loop set): what
 * lies past a loop has no place to be.
 */
static char *
resolve_missing(const char *path, bool *loop)
{
	char *prefix = xstrdup(path), *real, *slash, *joined, *out = NULL;

	while ((real = realpath(prefix, NULL)) == NULL) {
		if ((*loop = errno == ELOOP) ||
		    (slash = strrchr(prefix, '/')) == NULL ||
		    strcmp(prefix, "/") == 0)
			break;
		slash[slash == prefix ? 1 : 0] = '\0';
	}
	if (real != NULL) {
		joined = xasprintf("%s/%s", real, path + strlen(prefix));
		out = normalise(joined);
		free(joined);
		free(real);
	}
	free(prefix);
	return out;
}

/*
 * A path that does not resolve: follow its chain of links by hand to where
 * it ends, which may be outside the workspace even though nothing is there.
 */
static enum ws_status
locate_missing(const struct workspace *ws, const char *rel, const char *abs,
    char *err, size_t len)
{
	char target[PATH_MAX], *cur = xstrdup(abs), *next, *slash, *end;
	struct stat lst;
	ssize_t n;
	int hops = 0;
	bool loop = false;
	enum ws_status s = WS_ABSENT;

	while (lstat(cur, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		if (++hops > 40) {
			errbuf_set(err, len, "'%s' is " LOOP_WORDS, rel);
			free(cur);
			return WS_LOOP;
		}
		if ((n = readlink(cur, target, sizeof target - 1)) < 0)
			break;
		target[n] = '\0';
		if (target[0] == '/')
			next = xstrdup(target);
		else {
			if ((slash = strrchr(cur, '/')) != NULL)
				*slash = '\0';
			next = xasprintf("%s/%s", cur, target);
		}
		free(cur);
		cur = next;
	}
	end = resolve_missing(cur, &loop);
	if (loop) {
		s = WS_LOOP;
		errbuf_set(err, len, "'%s' is " LOOP_WORDS, rel);
	} else if (end == NULL || !within(ws->root, end)) {
		s = WS_OUTSIDE;
		errbuf_set(err, len, "%s'%s' leads outside the workspace",
		    hops > 0 ? "symbolic link " : "", rel);
	} else if (hops > 0)
		errbuf_set(err, len, "'%s' is a dangling symbolic link", rel);
	else
		errbuf_set(err, len, "'%s' does not exist", rel);
	free(end);
	free(cur);
	return s;
}

/*
 * Why rel could not be opened beneath the root, said as it resolves by
 * name (realpath(3)): WS_ABSENT, WS_OUTSIDE, WS_LOOP... with err set; or
 * WS_OK when by name it is fine now (it changed meanwhile).
 */
static enum ws_status
diagnose(const struct workspace *ws, const char *rel, char *err, size_t len)
{
	char *abs = workspace_abs(ws, rel), *real;
	enum ws_status s = WS_OK;

	real = realpath(abs, NULL);
	if (real == NULL) {
		if (errno == ENOENT || errno == ENOTDIR)
			s = locate_missing(ws, rel, abs, err, len);
		else if (errno == ELOOP) {
			errbuf_set(err, len, "'%s' is " LOOP_WORDS, rel);
			s = WS_LOOP;
		} else {
			errbuf_set(err, len, "cannot resolve '%s': %s", rel,
			    strerror(errno));
			s = WS_UNREADABLE;
		}
	} else if (!within(ws->root, real)) {
		/* A link is to blame only when, by name, the path stays
		 * inside: "../rel/x" climbs out with no link on the way. */
		char *named = normalise(abs);

		errbuf_set(err, len, "'%s' leads outside the workspace%s", rel,
		    within(ws->root, named) ? " (through a symbolic link)" : "");
		free(named);
		s = WS_OUTSIDE;
	}
	free(real);
	free(abs);
	return s;
}

static void
openat2_probe(void)
{
	const char *s = getenv("CALOPS_TEST_NO_OPENAT2");

	if (s != NULL && s[0] != '\0' && strcmp(s, "0") != 0)
		atomic_store(&no_openat2, true);
}

/* openat2(2) from dirfd with resolve; -2 when the kernel has none, or a
 * sandbox refuses the call (EPERM: the way without it then says what an
 * open of that file says). */
static int
openat2_try(int dirfd, const char *rel, int flags, uint64_t resolve)
{
	struct open_how how;
	int fd = -1, tries;

	pthread_once(&openat2_once, openat2_probe);
	if (atomic_load(&no_openat2))
		return -2;
	memset(&how, 0, sizeof how);
	how.flags = (uint64_t)flags;
	how.resolve = resolve;
	for (tries = 0; tries < OPENAT2_TRIES; tries++) {
		fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
		if (fd != -1 || errno != EAGAIN)
			break;
	}
	if (fd == -1 && errno == ENOSYS)
		atomic_store(&no_openat2, true);
	return fd == -1 && (errno == ENOSYS || errno == EPERM) ? -2 : fd;
}

/* The flags every open here adds; O_PATH takes no others. */
static int
open_flags(int flags)
{
	return flags | O_CLOEXEC | ((flags & O_PATH) ? 0 : O_NOCTTY);
}

/*
 * Without openat2(2): one component at a time from dirfd, each folder
 * opened O_PATH | O_NOFOLLOW and looked at before going on, the last with
 * O_NOFOLLOW.
 */
static int
walk_nolinks(int dirfd, const char *rel, int flags)
{
	char *copy = xstrdup(rel), *name, *next, *save = NULL;
	struct stat st;
	int fd = dirfd, nfd = -1, e = 0;

	name = strtok_r(copy, "/", &save);
	for (; name != NULL && e == 0; name = next) {
		next = strtok_r(NULL, "/", &save);
		if (strcmp(name, "..") == 0) {
			e = EXDEV;
			break;
		}
		if (next == NULL)
			break;
		if (strcmp(name, ".") == 0)
			continue;
		if ((nfd = openat(fd, name, O_PATH | O_NOFOLLOW |
		    O_CLOEXEC)) == -1 || fstat(nfd, &st) == -1)
			e = errno;
		else if (!S_ISDIR(st.st_mode))
			e = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
		if (fd != dirfd)
			close(fd);
		fd = nfd;
		nfd = -1;
	}
	if (e == 0) {
		nfd = openat(fd, name != NULL ? name : ".", flags | O_NOFOLLOW);
		if (nfd == -1 || fstat(nfd, &st) == -1)
			e = errno;
		else if (S_ISLNK(st.st_mode))	/* O_PATH opens the link */
			e = ELOOP;
	}
	if (e != 0 && nfd != -1) {
		close(nfd);
		nfd = -1;
	}
	if (fd != dirfd && fd != -1)
		close(fd);
	free(copy);
	errno = e;
	return nfd;
}

int
workspace_openat_nolinks(int dirfd, const char *rel, int flags)
{
	int fd;

	flags = open_flags(flags);
	fd = openat2_try(dirfd, rel[0] != '\0' ? rel : ".", flags,
	    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	return fd != -2 ? fd : walk_nolinks(dirfd, rel, flags);
}

/*
 * The way for what the kernel would not follow beneath the root: an
 * absolute link, or a relative one that goes up past the root and comes
 * back.  Its real path is checked inside, and that path opened with no
 * link followed: one met there was swapped in since realpath(3) looked,
 * and the open is refused (EXDEV).
 */
static int
open_real(const struct workspace *ws, const char *rel, int flags)
{
	char *abs = workspace_abs(ws, rel), *real = realpath(abs, NULL);
	const char *sub;
	int fd = -1, e;

	e = errno;
	if (real == NULL)
		errno = e;
	else if (!within(ws->root, real))
		errno = EXDEV;
	else {
		sub = real + strlen(ws->root);
		sub += strspn(sub, "/");
		if ((fd = workspace_openat_nolinks(ws->rootfd, sub, flags)) ==
		    -1 && (errno == ELOOP || errno == ENOTDIR))
			errno = EXDEV;
	}
	e = errno;
	free(real);
	free(abs);
	errno = e;
	return fd;
}

int
workspace_openat(const struct workspace *ws, const char *rel, int flags)
{
	int fd;

	rel += strspn(rel, "/");	/* relative to the root, as _abs() */
	flags = open_flags(flags);
	fd = openat2_try(ws->rootfd, rel[0] != '\0' ? rel : ".", flags,
	    RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
	if (fd >= 0 || (fd == -1 && errno != EXDEV && errno != EAGAIN))
		return fd;
	return open_real(ws, rel, flags);
}

/* The status and message of a failed open of rel (errno e). */
static enum ws_status
open_failed(const struct workspace *ws, const char *rel, int e, char *err,
    size_t len)
{
	enum ws_status s;

	if ((s = diagnose(ws, rel, err, len)) != WS_OK)
		return s;
	if (e == EXDEV || e == ELOOP)
		errbuf_set(err, len, "cannot read '%s': it changed while it "
		    "was opened", rel);
	else
		errbuf_set(err, len, "cannot read '%s': %s", rel, strerror(e));
	return WS_UNREADABLE;
}

enum ws_status
workspace_open_fd(const struct workspace *ws, const char *rel, mode_t type,
    int *fdp, struct stat *st, char *err, size_t len)
{
	struct stat ost;
	int fd;

	*fdp = -1;
	if ((fd = workspace_openat(ws, rel, O_PATH)) == -1)
		return open_failed(ws, rel, errno, err, len);
	if (fstat(fd, &ost) == -1) {
		errbuf_set(err, len, "cannot stat '%s': %s", rel,
		    strerror(errno));
		close(fd);
		return WS_UNREADABLE;
	}
	*st = ost;
	if (type == 0) {
		*fdp = fd;
		return WS_OK;
	}
	close(fd);
	if ((ost.st_mode & S_IFMT) != type) {
		errbuf_set(err, len, "'%s' is not a %s", rel, type == S_IFDIR ?
		    "folder" : "regular file");
		return WS_NOT_FILE;
	}
	/* Opened again to read: it must be the file judged just now. */
	fd = workspace_openat(ws, rel, O_RDONLY | (type == S_IFDIR ?
	    O_DIRECTORY : O_NONBLOCK));
	if (fd == -1)
		return open_failed(ws, rel, errno, err, len);
	if (fstat(fd, st) == -1 || st->st_dev != ost.st_dev ||
	    st->st_ino != ost.st_ino) {
		errbuf_set(err, len, "cannot read '%s': it changed while it "
		    "was opened", rel);
		close(fd);
		return WS_UNREADABLE;
	}
	*fdp = fd;
	return WS_OK;
}

enum ws_status
workspace_locate(const struct workspace *ws, const char *rel, struct stat *st,
    char *err, size_t len)
{
	enum ws_status s;
	int fd;

	if ((s = workspace_open_fd(ws, rel, 0, &fd, st, err, len)) == WS_OK)
		close(fd);
	return s;
}

/* Read everything from fd, up to max bytes. */
static int
read_all(int fd, size_t max, struct buf *b)
{
	char chunk[65536];
	ssize_t n;

	buf_init(b, max);
	for (;;) {
		n = read(fd, chunk, sizeof chunk);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0)
			return 0;
		if (buf_add(b, chunk, (size_t)n) != 0) {
			errno = EFBIG;
			return -1;
		}
	}
}

enum ws_status
workspace_read(const struct workspace *ws, const char *rel, size_t max,
    char **data, size_t *size, char *err, size_t len)
{
	struct stat st;
	enum ws_status s;
	struct buf b;
	int fd, e;

	*data = NULL;
	*size = 0;
	if ((s = workspace_open_fd(ws, rel, S_IFREG, &fd, &st, err, len)) !=
	    WS_OK)
		return s;
	if ((uint64_t)st.st_size > max) {
		errbuf_set(err, len, "'%s' is larger than %zu bytes", rel, max);
		close(fd);
		return WS_TOO_BIG;
	}
	if (read_all(fd, max, &b) == -1) {
		e = errno;
		errbuf_set(err, len, "cannot read '%s': %s", rel, strerror(e));
		buf_release(&b);
		close(fd);
		return e == EFBIG ? WS_TOO_BIG : WS_UNREADABLE;
	}
	close(fd);
	*data = buf_detach(&b, size);
	return WS_OK;
}

bool
workspace_is_uri(const char *ref)
{
	static const char *const schemes[] = {
		"sha256:", "oci://", "s3://", "https://", "http://", "gs://",
	};
	size_t i;

	for (i = 0; i < nitems(schemes); i++)
		if (strncmp(ref, schemes[i], strlen(schemes[i])) == 0)
			return true;
	return false;
}

/*
 * Before ".." pops the last component of cur (workspace-relative), resolve
 * it when it is a symbolic link: ".." goes up from the link's target, as
 * the file system does, never from the folder that holds the link.  cur is
 * replaced by the target's workspace-relative path; -1 with err set when
 * the link dangles or leads outside; 1 when cur does not exist, so that
 * the kernel would not go up from it either.
 */
static int
resolve_before_up(const struct workspace *ws, struct buf *cur, const char *ref,
    char *err, size_t len)
{
	char *abs, *real;
	struct stat st;
	int rc = 0;

	if (ws == NULL || cur->len == 0)
		return 0;
	abs = workspace_abs(ws, cur->data);
	if (lstat(abs, &st) == -1)
		rc = 1;		/* nothing there to go up from */
	else if (S_ISLNK(st.st_mode)) {
		if ((real = realpath(abs, NULL)) == NULL) {
			errbuf_set(err, len, "path '%s' does not resolve: '%s' "
			    "is %s", ref, cur->data, errno == ELOOP ?
			    LOOP_WORDS : "a dangling symbolic link");
			rc = -1;
		} else if (!within(ws->root, real)) {
			errbuf_set(err, len, "path '%s' leads outside the "
			    "workspace through the symbolic link '%s'", ref,
			    cur->data);
			rc = -1;
		} else {
			cur->len = 0;
			buf_adds(cur, real + strlen(ws->root) +
			    (real[strlen(ws->root)] == '/'));
		}
		free(real);
	}
	free(abs);
	return rc;
}

/*
 * Whether cur/.. followed by the rest of the path (strtok_r's save: the
 * components not read yet) climbs above the workspace when taken by names
 * alone, as it would once the missing folders of cur were made.
 */
static bool
climbs_out(const struct buf *cur, const char *rest)
{
	long depth = 0;
	size_t i, n;

	for (i = 0; i < cur->len; i++)
		depth += i == 0 || cur->data[i - 1] == '/';
	depth--;				/* the ".." at hand */
	for (; depth >= 0 && rest != NULL && *rest != '\0'; rest += n) {
		rest += strspn(rest, "/");
		n = strcspn(rest, "/");
		if (n == 2 && strncmp(rest, "..", 2) == 0)
			depth--;
		else if (n > 0 && !(n == 1 && rest[0] == '.'))
			depth++;
	}
	return depth < 0;
}

int
workspace_join(const struct workspace *ws, const char *from_file,
    const char *ref, char **rel, char *err, size_t len)
{
	char *joined, *tok, *save = NULL, *dir, *slash;
	struct buf cur = BUF_INIT;
	int rc = 0;

	*rel = NULL;
	if (workspace_is_uri(ref))
		return 1;
	if (ref[0] == '\0') {
		errbuf_set(err, len, "empty path");
		return -1;
	}
	if (ref[0] == '/') {
		errbuf_set(err, len, "path '%s' is absolute", ref);
		return -1;
	}
	dir = xstrdup(from_file);
	slash = strrchr(dir, '/');
	if (slash != NULL)
		*slash = '\0';
	else
		dir[0] = '\0';
	joined = dir[0] != '\0' ? xasprintf("%s/%s", dir, ref) : xstrdup(ref);
	free(dir);
	buf_adds(&cur, "");
	/* One component at a time, as the kernel walks a path. */
	for (tok = strtok_r(joined, "/", &save); tok != NULL && rc == 0;
	    tok = strtok_r(NULL, "/", &save)) {
		if (strcmp(tok, ".") == 0)
			continue;
		if (strcmp(tok, "..") != 0) {
			if (cur.len > 0)
				buf_addc(&cur, '/');
			buf_adds(&cur, tok);
			continue;
		}
		if ((rc = resolve_before_up(ws, &cur, ref, err, len)) == 1) {
			/* The rest as written: locating it finds nothing.  A
			 * tool that makes the missing folder (mkdir -p) would
			 * then go where the names say: that must stay in. */
			if (climbs_out(&cur, save)) {
				errbuf_set(err, len, "path '%s' climbs out of "
				    "the workspace", ref);
				rc = -1;
				break;
			}
			buf_addc(&cur, '/');
			buf_adds(&cur, tok);
			for (tok = strtok_r(NULL, "", &save); tok != NULL;
			    tok = NULL) {
				buf_addc(&cur, '/');
				buf_adds(&cur, tok);
			}
			rc = 0;
			break;
		}
		if (rc != 0)
			break;
		if (cur.len == 0) {
			errbuf_set(err, len, "path '%s' climbs out of the "
			    "workspace", ref);
			rc = -1;
			break;
		}
		slash = memrchr(cur.data, '/', cur.len);
		cur.len = slash != NULL ? (size_t)(slash - cur.data) : 0;
		cur.data[cur.len] = '\0';
	}
	if (rc == 0)
		*rel = buf_detach(&cur, NULL);
	else
		buf_release(&cur);
	free(joined);
	return rc;
}

long
workspace_pointer_line(const struct workspace *ws, const char *rel,
    const char *pointer, char *err, size_t len)
{
	char *data;
	size_t size;
	long line;

	if (workspace_read(ws, rel, WORKSPACE_JSON_MAX, &data, &size, err,
	    len) != WS_OK)
		return 0;
	line = jsonptr_line(data, size, pointer);
	free(data);
	if (line == 0)
		errbuf_set(err, len, "'%s' names nothing in '%s'", pointer,
		    rel);
	return line;
}
