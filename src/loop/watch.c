/* watch.c: workspace change notification, inotify with a polling fallback. */
#include "calops.h"

#include <sys/inotify.h>
#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "loop/watch.h"
#include "ws/workspace.h"

/* Writes are seen when the file is closed, not per write(): an appending
 * writer must not keep an idle console awake. */
#define WATCH_MASK	(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM |	\
	IN_CREATE | IN_DELETE | IN_ATTRIB | IN_DELETE_SELF |		\
	IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)

/* Reads per watch_read: a storm of events cannot hold the loop; what is
 * left keeps the fd readable for the next round. */
#define WATCH_READS	64
#define WATCH_MIN_MS	10

enum watch_mode {
	WATCH_INOTIFY,
	WATCH_POLLING,
};

/* One watched folder: its inotify descriptor and absolute path. */
struct watch_dir {
	int	 wd;
	char	*path;
};

/* What a polling walk saw. */
struct watch_sig {
	uint64_t hash;
	size_t	 entries;
	bool	 truncated;
};

struct watch {
	char		*root;		/* realpath of the root */
	int		 rootfd;	/* the root (O_PATH) during a walk:
					 * folders open beneath it */
	enum watch_mode	 mode;
	unsigned	 gen;	/* bumped whenever the inotify fd goes */

	int		 fd;
	int		 root_wd;
	struct watch_dir *dirs;		/* sorted by wd */
	size_t		 ndirs;
	size_t		 adirs;
	size_t		 max_dirs;

	char		 reason[128];	/* why polling */
	bool		 retry;		/* polling until the root is back */
	int		 interval_ms;
	int64_t		 next_ms;
	size_t		 max_entries;
	struct watch_sig sig;

	char		 desc[224];

	/* What changed since watch_take_paths() (root-relative, capped),
	 * and whether more did than they say. */
	char		*paths[WATCH_PATHS_MAX];
	size_t		 npaths;
	bool		 paths_more;
};

/* The test hook's caps; 0 means the default. */
static size_t	 limit_dirs;
static size_t	 limit_entries;

static void	 to_polling(struct watch *, const char *, bool);

void
watch_set_limits(size_t max_dirs, size_t max_entries)
{
	limit_dirs = max_dirs;
	limit_entries = max_entries;
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Editor droppings: Emacs locks (".#x") and backups ("x~"), Vim swap files
 * (".x.swp", ".swo", ".swx"). */
static bool
is_dropping(const char *name)
{
	return strncmp(name, ".#", 2) == 0 || ends_with(name, "~") ||
	    ends_with(name, ".swp") || ends_with(name, ".swo") ||
	    ends_with(name, ".swx");
}

static void
describe_update(struct watch *w)
{
	char every[32];

	if (w->mode == WATCH_INOTIFY) {
		errbuf_set(w->desc, sizeof w->desc, "inotify (%zu folder%s)",
		    w->ndirs, w->ndirs == 1 ? "" : "s");
		return;
	}
	if (w->interval_ms % 1000 == 0)
		errbuf_set(every, sizeof every, "%d s", w->interval_ms / 1000);
	else
		errbuf_set(every, sizeof every, "%d ms", w->interval_ms);
	if (w->sig.truncated)
		errbuf_set(w->desc, sizeof w->desc,
		    "polling every %s (%s; first %zu entries only)", every,
		    w->reason, w->max_entries);
	else
		errbuf_set(w->desc, sizeof w->desc, "polling every %s (%s)",
		    every, w->reason);
}

/* Where wd is in the sorted table, or where it would go. */
static size_t
dir_pos(const struct watch *w, int wd, bool *found)
{
	size_t lo = 0, hi = w->ndirs, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (w->dirs[mid].wd == wd) {
			*found = true;
			return mid;
		}
		if (w->dirs[mid].wd < wd)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

/* Record wd for path; the same folder reached again (a rename seen late)
 * keeps its wd and takes the new path. */
static void
dir_put(struct watch *w, int wd, const char *path)
{
	bool found;
	size_t i = dir_pos(w, wd, &found);

	if (found) {
		if (strcmp(w->dirs[i].path, path) != 0) {
			free(w->dirs[i].path);
			w->dirs[i].path = xstrdup(path);
		}
		return;
	}
	if (w->ndirs == w->adirs) {
		w->adirs = w->adirs == 0 ? 64 : w->adirs * 2;
		w->dirs = xreallocarray(w->dirs, w->adirs, sizeof *w->dirs);
	}
	memmove(&w->dirs[i + 1], &w->dirs[i],
	    (w->ndirs - i) * sizeof *w->dirs);
	w->dirs[i].wd = wd;
	w->dirs[i].path = xstrdup(path);
	w->ndirs++;
}

static void
dir_remove_at(struct watch *w, size_t i)
{
	free(w->dirs[i].path);
	memmove(&w->dirs[i], &w->dirs[i + 1],
	    (w->ndirs - i - 1) * sizeof *w->dirs);
	w->ndirs--;
}

static bool
dir_watched(const struct watch *w, const char *path)
{
	size_t i;

	for (i = 0; i < w->ndirs; i++) {
		if (strcmp(w->dirs[i].path, path) == 0)
			return true;
	}
	return false;
}

/* Stop watching path and everything under it (moved away or deleted). */
static void
dir_drop_tree(struct watch *w, const char *path)
{
	size_t i, j = 0, n = strlen(path);
	const char *p;

	for (i = 0; i < w->ndirs; i++) {
		p = w->dirs[i].path;
		if (strncmp(p, path, n) == 0 && (p[n] == '\0' || p[n] == '/')) {
			inotify_rm_watch(w->fd, w->dirs[i].wd);
			free(w->dirs[i].path);
			continue;
		}
		w->dirs[j++] = w->dirs[i];
	}
	w->ndirs = j;
}

/* Close the inotify side: later events of the old fd must not be read. */
static void
inotify_stop(struct watch *w)
{
	size_t i;

	if (w->fd != -1)
		close(w->fd);
	w->fd = -1;
	w->root_wd = -1;
	for (i = 0; i < w->ndirs; i++)
		free(w->dirs[i].path);
	free(w->dirs);
	w->dirs = NULL;
	w->ndirs = w->adirs = 0;
	w->gen++;
}

/*
 * Open the folder path (absolute, under the root) beneath the root with no
 * link followed on the way nor at its end (workspace.h): a folder swapped
 * for a link to elsewhere, even one a few steps up, is not followed out of
 * the workspace.  A descriptor, or -1 with errno.
 */
static int
open_dir_fd(const struct watch *w, const char *path)
{
	const char *rel = path + strlen(w->root);

	rel += strspn(rel, "/");
	return workspace_openat_nolinks(w->rootfd, rel, O_RDONLY |
	    O_DIRECTORY);
}

/* Open the root itself for the folders to open beneath, for one walk: held
 * longer, it would keep a deleted root's IN_DELETE_SELF from coming. */
static int
root_open(struct watch *w)
{
	if (w->rootfd != -1)
		close(w->rootfd);
	w->rootfd = open(w->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return w->rootfd;
}

static void
root_close(struct watch *w)
{
	if (w->rootfd != -1)
		close(w->rootfd);
	w->rootfd = -1;
}

/* A stream over a folder open_dir_fd() opened; the descriptor is taken. */
static DIR *
open_dir(int fd)
{
	DIR *d;

	if (fd == -1)
		return NULL;
	if ((d = fdopendir(fd)) == NULL)
		close(fd);
	return d;
}

static bool
entry_is_dir(DIR *d, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode);
}

static void
push(char ***stack, size_t *n, size_t *alloc, char *path)
{
	if (*n == *alloc) {
		*alloc = *alloc == 0 ? 16 : *alloc * 2;
		*stack = xreallocarray(*stack, *alloc, sizeof **stack);
	}
	(*stack)[(*n)++] = path;
}

/* Queue the subfolders of path (not links to folders), listed on fd (taken),
 * on the stack. */
static void
push_subdirs(int fd, const char *path, char ***stack, size_t *n,
    size_t *alloc)
{
	struct dirent *de;
	size_t len = strlen(path);
	DIR *d;

	if ((d = open_dir(fd)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (len + 1 + strlen(de->d_name) >= PATH_MAX)
			continue;
		if (entry_is_dir(d, de))
			push(stack, n, alloc, xasprintf("%s/%s", path,
			    de->d_name));
	}
	closedir(d);
}

/*
 * Watch the folder path, open on fd: inotify is given the descriptor's
 * /proc name, so what it watches is what was opened beneath the root and
 * not whatever the path leads to by then.  Returns 0 when it is watched, 1
 * when it cannot be and does not matter (gone, replaced by a file or a
 * link, unreadable), -1 with why when inotify cannot go on.
 */
static int
add_one(struct watch *w, int fd, const char *path, char *why, size_t len)
{
	char proc[64];
	bool found;
	int wd = -1;

	if (fd != -1) {
		errbuf_set(proc, sizeof proc, "/proc/self/fd/%d", fd);
		wd = inotify_add_watch(w->fd, proc, WATCH_MASK);
	}
	if (wd == -1) {
		if (errno == ENOSPC)
			errbuf_set(why, len, "inotify watch limit reached");
		else if (errno == EMFILE || errno == ENFILE || errno == ENOMEM)
			errbuf_set(why, len, "inotify: %s", strerror(errno));
		else if (w->root_wd == -1)
			errbuf_set(why, len, "cannot watch the root: %s",
			    strerror(errno));
		else
			return 1;
		return -1;
	}
	if (w->root_wd == -1)
		w->root_wd = wd;
	dir_pos(w, wd, &found);
	if (!found && w->ndirs >= w->max_dirs) {
		inotify_rm_watch(w->fd, wd);
		errbuf_set(why, len, "more than %zu folders", w->max_dirs);
		return -1;
	}
	dir_put(w, wd, path);
	return 0;
}

/*
 * Watch path and every folder under it.  Each folder is watched before it
 * is listed, so a subfolder made meanwhile is either listed or reported;
 * both on one descriptor opened beneath the root.
 */
static int
add_tree(struct watch *w, const char *path, char *why, size_t len)
{
	char **stack = NULL, *p;
	size_t n = 0, alloc = 0;
	int r = 0, fd;

	if (root_open(w) == -1 && w->root_wd == -1) {
		errbuf_set(why, len, "cannot watch the root: %s",
		    strerror(errno));
		return -1;
	}
	push(&stack, &n, &alloc, xstrdup(path));
	while (n > 0) {
		p = stack[--n];
		if (r != -1) {
			fd = open_dir_fd(w, p);
			if ((r = add_one(w, fd, p, why, len)) == 0)
				push_subdirs(fd, p, &stack, &n, &alloc);
			else if (fd != -1)
				close(fd);
		}
		free(p);
	}
	free(stack);
	root_close(w);
	return r == -1 ? -1 : 0;
}

/* Start (or restart) inotify over the whole tree. */
static int
inotify_start(struct watch *w, char *why, size_t len)
{
	inotify_stop(w);
	if ((w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1) {
		errbuf_set(why, len, "inotify unavailable: %s",
		    strerror(errno));
		return -1;
	}
	if (add_tree(w, w->root, why, len) == -1) {
		inotify_stop(w);
		return -1;
	}
	w->mode = WATCH_INOTIFY;
	w->retry = false;
	describe_update(w);
	return 0;
}

static uint64_t
mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h;
}

static uint64_t
fnv(uint64_t h, const char *s)
{
	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* One entry's share of the signature: a rename, a rewrite of the same size
 * or a replacement by another inode all change it.  Folders leave out their
 * times, which change with their entries (editor droppings included). */
static uint64_t
entry_hash(const char *rel, const char *name, const struct stat *st)
{
	uint64_t h;

	h = fnv(fnv(fnv(0xcbf29ce484222325ULL, rel), "/"), name);
	h = mix(h, (uint64_t)st->st_ino);
	h = mix(h, (uint64_t)st->st_mode);
	if (S_ISDIR(st->st_mode))
		return h;
	h = mix(h, (uint64_t)st->st_size);
	h = mix(h, (uint64_t)st->st_mtim.tv_sec);
	h = mix(h, (uint64_t)st->st_mtim.tv_nsec);
	h = mix(h, (uint64_t)st->st_ctim.tv_sec);
	h = mix(h, (uint64_t)st->st_ctim.tv_nsec);
	return h;
}

/* Add the entries of one folder to s (summed, so listing order does not
 * matter) and queue its subfolders; false once the cap is reached. */
static bool
sig_dir(struct watch *w, struct watch_sig *s, const char *path,
    char ***stack, size_t *n, size_t *alloc)
{
	const char *rel = path + strlen(w->root);
	struct dirent *de;
	struct stat st;
	DIR *d;

	if ((d = open_dir(open_dir_fd(w, path))) == NULL) {
		s->hash += mix(fnv(0xcbf29ce484222325ULL, rel), errno);
		return true;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
		    -1)
			continue;
		if (!S_ISDIR(st.st_mode) && is_dropping(de->d_name))
			continue;
		if (s->entries == w->max_entries) {
			s->truncated = true;
			break;
		}
		s->entries++;
		s->hash += entry_hash(rel, de->d_name, &st);
		if (S_ISDIR(st.st_mode) &&
		    strlen(path) + 1 + strlen(de->d_name) < PATH_MAX)
			push(stack, n, alloc, xasprintf("%s/%s", path,
			    de->d_name));
	}
	closedir(d);
	return !s->truncated;
}

/* Walk the tree without following links, at most max_entries entries. */
static void
sig_walk(struct watch *w, struct watch_sig *s)
{
	char **stack = NULL, *p;
	size_t n = 0, alloc = 0;
	struct stat st;
	bool more = true;

	memset(s, 0, sizeof *s);
	if (stat(w->root, &st) == -1) {
		s->hash = mix(0x6d697373696e67ULL, errno);
		return;
	}
	s->hash = entry_hash("", "", &st);
	if (root_open(w) == -1) {
		s->hash += mix(0x726f6f74ULL, errno);
		return;
	}
	push(&stack, &n, &alloc, xstrdup(w->root));
	while (n > 0) {
		p = stack[--n];
		if (more)
			more = sig_dir(w, s, p, &stack, &n, &alloc);
		free(p);
	}
	free(stack);
	root_close(w);
}

/* Fall back to polling, with the reason for the status line. */
static void
to_polling(struct watch *w, const char *reason, bool retry)
{
	inotify_stop(w);
	w->mode = WATCH_POLLING;
	w->retry = retry;
	errbuf_set(w->reason, sizeof w->reason, "%s", reason);
	sig_walk(w, &w->sig);
	w->next_ms = now_ms() + w->interval_ms;
	describe_update(w);
}

/* Start over from the root's path (it was deleted or moved, or events were
 * lost): watch whatever is there now, or poll until something is. */
static void
restart(struct watch *w)
{
	char why[128];

	if (!watch_root_ok(w)) {
		to_polling(w, "the workspace folder is gone", true);
		return;
	}
	if (inotify_start(w, why, sizeof why) == -1)
		to_polling(w, why, false);
}

/* A folder appeared under a watched one (or changed its permissions). */
static void
subdir_added(struct watch *w, const char *path)
{
	char why[128];

	if (add_tree(w, path, why, sizeof why) == -1)
		to_polling(w, why, false);
}

/* Remember that path (absolute, under the root) changed. */
static void
note_path(struct watch *w, const char *path)
{
	size_t n = strlen(w->root), i;
	const char *rel;

	rel = strncmp(path, w->root, n) == 0 && path[n] == '/' ? path + n + 1 :
	    path;
	for (i = 0; i < w->npaths; i++)
		if (strcmp(w->paths[i], rel) == 0)
			return;
	if (w->npaths == WATCH_PATHS_MAX)
		w->paths_more = true;
	else
		w->paths[w->npaths++] = xstrdup(rel);
}

/* One event; true when it is a change worth re-evaluating for. */
static bool
on_event(struct watch *w, const struct inotify_event *ev)
{
	bool found, is_root;
	char *path;
	size_t i;

	if (ev->mask & IN_Q_OVERFLOW) {
		restart(w);
		w->paths_more = true;	/* what overflowed is not known */
		return true;
	}
	i = dir_pos(w, ev->wd, &found);
	if (!found)
		return false;	/* a folder no longer watched */
	is_root = ev->wd == w->root_wd;
	if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED |
	    IN_UNMOUNT)) {
		if (is_root) {
			restart(w);
			w->paths_more = true;
			return true;
		}
		if (ev->mask & IN_IGNORED)
			dir_remove_at(w, i);
		return false;	/* the parent reports the folder itself */
	}
	if (ev->len == 0 || ev->name[0] == '\0')
		return is_root;	/* the folder's own attributes */
	if (!(ev->mask & IN_ISDIR)) {
		if (is_dropping(ev->name))
			return false;
		path = xasprintf("%s/%s", w->dirs[i].path, ev->name);
		note_path(w, path);
		free(path);
		return true;
	}
	path = xasprintf("%s/%s", w->dirs[i].path, ev->name);
	note_path(w, path);
	if (ev->mask & (IN_MOVED_FROM | IN_DELETE))
		dir_drop_tree(w, path);
	if ((ev->mask & (IN_CREATE | IN_MOVED_TO)) ||
	    ((ev->mask & IN_ATTRIB) && !dir_watched(w, path)))
		subdir_added(w, path);
	free(path);
	return true;
}

bool
watch_read(struct watch *w)
{
	char buf[16384]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	unsigned gen = w->gen;
	bool changed = false;
	ssize_t n, off;
	int i;

	for (i = 0; i < WATCH_READS && w->gen == gen; i++) {
		if (w->mode != WATCH_INOTIFY)
			break;
		if ((n = read(w->fd, buf, sizeof buf)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				errbuf_set(buf, sizeof buf, "inotify: %s",
				    strerror(errno));
				to_polling(w, buf, false);
				changed = true;
			}
			break;
		}
		if (n == 0)
			break;
		for (off = 0; off < n && w->gen == gen;
		    off += sizeof *ev + ev->len) {
			ev = (const struct inotify_event *)(buf + off);
			if (on_event(w, ev))
				changed = true;
		}
	}
	describe_update(w);
	return changed;
}

bool
watch_poll(struct watch *w)
{
	struct watch_sig s;
	char why[128];
	bool changed;

	if (w->mode != WATCH_POLLING || now_ms() < w->next_ms)
		return false;
	sig_walk(w, &s);
	w->next_ms = now_ms() + w->interval_ms;
	changed = s.hash != w->sig.hash || s.entries != w->sig.entries ||
	    s.truncated != w->sig.truncated;
	/* A walk's signature says that, not where. */
	if (changed)
		w->paths_more = true;
	w->sig = s;
	if (w->retry && watch_root_ok(w)) {
		if (inotify_start(w, why, sizeof why) == -1)
			to_polling(w, why, false);
		changed = true;
	}
	describe_update(w);
	return changed;
}

void
watch_rebase(struct watch *w)
{
	if (w->mode == WATCH_INOTIFY)
		(void)watch_read(w);
	else if (!w->retry) {
		sig_walk(w, &w->sig);
		describe_update(w);
	}
}

struct watch *
watch_new(const char *root, char *err, size_t errlen)
{
	struct watch *w;
	struct stat st;
	const char *env;
	char why[128], *real;
	DIR *d;

	if (stat(root, &st) == -1) {
		errbuf_set(err, errlen, "cannot watch '%s': %s", root,
		    strerror(errno));
		return NULL;
	}
	if (!S_ISDIR(st.st_mode)) {
		errbuf_set(err, errlen, "cannot watch '%s': %s", root,
		    strerror(ENOTDIR));
		return NULL;
	}
	if ((real = realpath(root, NULL)) == NULL ||
	    (d = opendir(real)) == NULL) {
		errbuf_set(err, errlen, "cannot read '%s': %s", root,
		    strerror(errno));
		free(real);
		return NULL;
	}
	closedir(d);

	w = xcalloc(1, sizeof *w);
	w->root = real;
	w->fd = w->root_wd = w->rootfd = -1;
	w->interval_ms = WATCH_INTERVAL_MS;
	w->max_dirs = limit_dirs != 0 ? limit_dirs : WATCH_MAX_DIRS;
	w->max_entries = limit_entries != 0 ? limit_entries :
	    WATCH_MAX_ENTRIES;
	env = getenv("CALOPS_WATCH_POLL");
	if (env != NULL && *env != '\0' && strcmp(env, "0") != 0)
		to_polling(w, "CALOPS_WATCH_POLL is set", false);
	else if (inotify_start(w, why, sizeof why) == -1)
		to_polling(w, why, false);
	return w;
}

void
watch_free(struct watch *w)
{
	if (w == NULL)
		return;
	inotify_stop(w);
	root_close(w);
	while (w->npaths > 0)
		free(w->paths[--w->npaths]);
	free(w->root);
	free(w);
}

size_t
watch_take_paths(struct watch *w, char **paths, size_t max, bool *more)
{
	size_t i, n = w->npaths < max ? w->npaths : max;

	*more = w->paths_more || w->npaths > max;
	for (i = 0; i < w->npaths; i++) {
		if (i < n)
			paths[i] = w->paths[i];
		else
			free(w->paths[i]);
	}
	w->npaths = 0;
	w->paths_more = false;
	return n;
}

int
watch_fd(const struct watch *w)
{
	return w->mode == WATCH_INOTIFY ? w->fd : -1;
}

int
watch_timeout_ms(const struct watch *w)
{
	int64_t left;

	if (w->mode != WATCH_POLLING)
		return -1;
	left = w->next_ms - now_ms();
	if (left < 0)
		return 0;
	return left > INT_MAX ? INT_MAX : (int)left;
}

void
watch_set_interval_ms(struct watch *w, int ms)
{
	w->interval_ms = ms < WATCH_MIN_MS ? WATCH_MIN_MS : ms;
	w->next_ms = now_ms() + w->interval_ms;
	describe_update(w);
}

bool
watch_root_ok(const struct watch *w)
{
	struct stat st;

	return stat(w->root, &st) == 0 && S_ISDIR(st.st_mode) &&
	    access(w->root, R_OK | X_OK) == 0;
}

const char *
watch_describe(const struct watch *w)
{
	return w->desc;
}
