/*
 * gatelock.c: the lock of a gate in a workspace, taken by `calops run
 * --gate` and held by the job's supervisor (gatelock.h).
 */
#include "calops.h"

#include <sys/file.h>

#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/statedir.h"
#include "job/gatelock.h"
#include "job/jobevent.h"

/* A workspace's real path as a file name's part: 64-bit FNV-1a in hex.
 * Two workspaces that collide would share their gates' locks: a refusal
 * that names the other's job, never two jobs in one workspace. */
static void
ws_hash(const char *ws, char out[17])
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const unsigned char *p;

	for (p = (const unsigned char *)ws; *p != '\0'; p++) {
		h ^= *p;
		h *= 0x100000001b3ULL;
	}
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* What the lock file fd names into holder ("" members when it names
 * nothing yet or cannot be read). */
static void
read_holder(int fd, struct gatelock_holder *holder)
{
	json_error_t je;
	json_t *o;
	const char *s;

	memset(holder, 0, sizeof *holder);
	if (lseek(fd, 0, SEEK_SET) == -1 ||
	    (o = json_loadfd(fd, 0, &je)) == NULL)
		return;
	if ((s = json_string_value(json_object_get(o, "job"))) != NULL)
		snprintf(holder->job, sizeof holder->job, "%s", s);
	if ((s = json_string_value(json_object_get(o, "actor"))) != NULL)
		snprintf(holder->actor, sizeof holder->actor, "%s", s);
	holder->started = json_number_value(json_object_get(o, "started"));
	json_decref(o);
}

/* Name the job in the lock file fd, which we hold; 0 or -1 with err. */
static int
write_holder(int fd, int gate, const char *ws, const char *id,
    const char *actor, char *err, size_t errlen)
{
	json_t *o = json_pack("{s:s, s:s, s:i, s:s, s:f}", "job", id,
	    "actor", actor != NULL ? actor : "", "gate", gate, "workspace", ws,
	    "started", jobevent_now());
	char *text = json_dumps(o, JSON_COMPACT);
	size_t len = strlen(text);
	int rc = 0;

	json_decref(o);
	if (ftruncate(fd, 0) == -1 || pwrite(fd, text, len, 0) !=
	    (ssize_t)len) {
		errbuf_set(err, errlen, "cannot write G%d's lock: %s", gate,
		    strerror(errno));
		rc = -1;
	}
	free(text);
	return rc;
}

/* Whether the job holder names has ended: a name the file kept from a job
 * before, which the one holding the lock now has not yet written over.
 * A job with no folder yet is the holder's own, being made. */
static bool
holder_ended(const char *root, const struct gatelock_holder *holder)
{
	struct job_record r;
	char err[256];
	int state = jobstore_look(root, holder->job, &r, err, sizeof err);

	jobstore_record_release(&r);
	return state == JOB_DONE || state == JOB_FAILED ||
	    state == JOB_KILLED || state == JOB_LOST;
}

/*
 * Held by another: who, as its file says once the holder has named its
 * job, which it does right after taking the lock.  A launch refused in
 * between would say "a job is starting", or name the job before it: so the
 * name is waited for, at most GATELOCK_NAME_WAIT_MS, the lock tried again
 * meanwhile (the holder may die, or its job end).  0 when the lock was
 * taken after all, 1 when held (holder named, or empty when it never was),
 * -1 with err.
 */
static int
wait_holder(const char *root, int fd, int gate, const char *ws,
    struct gatelock_holder *holder, char *err, size_t errlen)
{
	const struct timespec pause = { 0, 10 * 1000 * 1000 };
	int waited;

	for (waited = 0;; waited += 10) {
		read_holder(fd, holder);
		if (holder->job[0] != '\0' && !holder_ended(root, holder))
			return 1;
		if (waited >= GATELOCK_NAME_WAIT_MS) {
			memset(holder, 0, sizeof *holder);
			return 1;
		}
		(void)nanosleep(&pause, NULL);
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK) {
			errbuf_set(err, errlen, "cannot lock G%d in '%s': %s",
			    gate, ws, strerror(errno));
			return -1;
		}
	}
}

int
gatelock_take(const char *root, int gate, const char *ws, const char *id,
    const char *actor, int *fd, struct gatelock_holder *holder, char *err,
    size_t errlen)
{
	char name[64], hash[17], *dir;
	int rootfd, dfd, rc;

	*fd = -1;
	if ((rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		errbuf_set(err, errlen, "cannot open '%s': %s", root,
		    strerror(errno));
		return -1;
	}
	dfd = statedir_open_dir(rootfd, root, ".gates", "the gates' locks",
	    true, err, errlen);
	close(rootfd);
	if (dfd == -1)
		return -1;
	ws_hash(ws, hash);
	snprintf(name, sizeof name, "G%d-%s.lock", gate, hash);
	dir = xasprintf("%s/.gates", root);
	*fd = statedir_open_file(dfd, dir, name, O_RDWR | O_CREAT, 0600, err,
	    errlen);
	free(dir);
	close(dfd);
	if (*fd == -1)
		return -1;
	if (flock(*fd, LOCK_EX | LOCK_NB) == -1) {
		if (errno != EWOULDBLOCK) {
			errbuf_set(err, errlen, "cannot lock G%d in '%s': %s",
			    gate, ws, strerror(errno));
			rc = -1;
		} else
			rc = wait_holder(root, *fd, gate, ws, holder, err,
			    errlen);
		if (rc != 0) {
			close(*fd);
			*fd = -1;
			return rc;
		}
	}
	if (write_holder(*fd, gate, ws, id, actor, err, errlen) != 0) {
		close(*fd);
		*fd = -1;
		return -1;
	}
	return 0;
}
