/*
 * watch.h: tells the console when a workspace's files changed, so that the
 * board re-evaluates by itself.
 *
 * A watch covers the tree under a root folder.  It uses inotify when it can:
 * every folder is watched (up to a cap), folders created later are added as
 * they appear and removed ones are dropped, symbolic links are never
 * followed.  When inotify is unavailable, its watch limit is hit or the tree
 * has too many folders, the watch falls back to polling: every interval it
 * walks the tree (up to a cap of entries) and compares a signature of names,
 * sizes, times and inodes.  Nothing here blocks or sleeps; the caller's
 * poll() loop drives it:
 *
 *	fd = watch_fd(w)		POLLIN on it → watch_read(w)
 *	ms = watch_timeout_ms(w)	when it expires → watch_poll(w)
 *
 * Both may change after watch_read or watch_poll (a switch to polling, or
 * back to inotify once a vanished root reappears), so the caller asks again
 * before each poll().  A change is only a hint: the caller debounces and
 * then reads the tree itself.  Files that look like editor droppings (".#x",
 * "x~", "x.swp") are not changes; a temporary file renamed onto its final
 * name is.  Reading files (as an evaluation does) is never a change.
 *
 * When the root is deleted or moved away the watch reports a change and
 * watch_root_ok turns false; it then polls for the root to come back.
 *
 * A struct watch is owned by its creator, used by one thread and released
 * with watch_free; strings it returns are borrowed and valid until the next
 * call on it.
 */
#ifndef CALOPS_WATCH_H
#define CALOPS_WATCH_H

#include "calops.h"

#define WATCH_INTERVAL_MS	2000	/* polling: the default interval */
#define WATCH_MAX_DIRS		10000	/* inotify: folders watched at most */
#define WATCH_MAX_ENTRIES	200000	/* polling: entries walked per poll */
#define WATCH_PATHS_MAX		64	/* changed paths kept between takes */

struct watch;

/*
 * Watch the tree under root.  Uses inotify unless CALOPS_WATCH_POLL is set
 * (to anything but "" or "0") or inotify cannot cover the tree.  Returns
 * NULL with a message in err when root cannot be read at all.
 */
struct watch	*watch_new(const char *root, char *err, size_t errlen);
void		 watch_free(struct watch *w);

/* The fd to poll for POLLIN in inotify mode, or -1 in polling mode. */
int		 watch_fd(const struct watch *w);

/* Polling mode: milliseconds until watch_poll is due (0 when it is); -1 in
 * inotify mode. */
int		 watch_timeout_ms(const struct watch *w);

/* Polling mode: the interval between walks (at least 10 ms). */
void		 watch_set_interval_ms(struct watch *w, int ms);

/* Drain the inotify fd without blocking; true when something relevant
 * changed.  False in polling mode. */
bool		 watch_read(struct watch *w);

/* Polling mode, once due: walk the tree and compare its signature; true when
 * it changed.  False before it is due and in inotify mode. */
bool		 watch_poll(struct watch *w);

/* Take the tree as it is now as seen: what changed before this call is no
 * longer a change (an evaluation that starts now reads it).  Polling mode
 * walks the tree at once; inotify mode drains what is queued. */
void		 watch_rebase(struct watch *w);
/*
 * The root-relative paths that changed since the last take (inotify mode:
 * files and folders named by an event, at most WATCH_PATHS_MAX), up to max
 * of them into paths (new strings, the caller's); *more is true when more
 * changed than that, or something whose path is not known (polling mode,
 * an overflowed queue, the root itself).  The count; both are reset.
 */
size_t		 watch_take_paths(struct watch *w, char **paths, size_t max,
		    bool *more);
/* Whether root still exists as a readable folder (checked now). */
bool		 watch_root_ok(const struct watch *w);

/* For the status line: "inotify (N folders)" or "polling every 2 s
 * (reason)". */
const char	*watch_describe(const struct watch *w);

/* Tests only: caps for watches made afterwards (0 restores a default). */
void		 watch_set_limits(size_t max_dirs, size_t max_entries);

#endif
