/*
 * gatelock.c: the lock of a gate in a workspace, taken by `calops run
 * --gate` and held by the job's supervisor (gatelock.h).
 */
#include "calops.h"

#include <sys/file.h>

#include <fcntl.h>
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

int
gatelock_take(const char *root, int gate, const char *ws, const char *id,
    const char *actor, int *fd, struct gatelock_holder *holder, char *err,
    size_t errlen)
{
	char name[64], hash[17], *dir;
	int rootfd, dfd;
	bool held;

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
		held = errno == EWOULDBLOCK;
		if (held)
			read_holder(*fd, holder);
		else
			errbuf_set(err, errlen, "cannot lock G%d in '%s': %s",
			    gate, ws, strerror(errno));
		close(*fd);
		*fd = -1;
		return held ? 1 : -1;
	}
	if (write_holder(*fd, gate, ws, id, actor, err, errlen) != 0) {
		close(*fd);
		*fd = -1;
		return -1;
	}
	return 0;
}
