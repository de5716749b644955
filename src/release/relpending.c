/* relpending.c: a promote in progress (relpending.h). */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/text.h"
#include "release/relpending.h"
#include "release/relstate.h"

#define PENDING_TMP	".promote-pending.json.tmp"
#define PENDING_MAX	(16u << 10)

json_t *
relpending_json(const struct relpending *p)
{
	return json_pack("{s:I, s:s, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:f}",
	    "generation", (json_int_t)p->generation, "action", p->action,
	    "job", text_json(p->job),
	    "host", text_json(p->host), "chip", (json_int_t)p->chip,
	    "key_id", text_json(p->key_id), "actor", text_json(p->actor),
	    "by", text_json(p->by), "lab", p->lab[0] != '\0' ?
	    text_json(p->lab) : json_null(), "since", p->since);
}

int
relpending_write(int dirfd, const struct relpending *p, char *err,
    size_t errlen)
{
	json_t *j = json_pack("{s:s, s:o}", "schema",
	    "calops-promote-pending/v1", "promote", relpending_json(p));
	char *text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	int fd, rc = -1;

	json_decref(j);
	(void)unlinkat(dirfd, PENDING_TMP, 0);
	fd = openat(dirfd, PENDING_TMP, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd == -1 || fileio_write_full(fd, text, strlen(text)) != 0 ||
	    fileio_write_full(fd, "\n", 1) != 0 || fsync(fd) != 0 ||
	    renameat(dirfd, PENDING_TMP, dirfd, RELPENDING_FILE) != 0 ||
	    fsync(dirfd) != 0)
		errbuf_set(err, errlen, "cannot write 08-release/"
		    RELPENDING_FILE ": %s", strerror(errno));
	else
		rc = 0;
	if (fd != -1)
		close(fd);
	if (rc != 0)
		(void)unlinkat(dirfd, PENDING_TMP, 0);
	free(text);
	return rc;
}

/* s (a member of the file) into buf, or "" */
static void
member(json_t *o, const char *name, char *buf, size_t len)
{
	const char *s = json_string_value(json_object_get(o, name));

	snprintf(buf, len, "%s", s != NULL ? s : "");
}

int
relpending_read(int dirfd, struct relpending *p, char *err, size_t errlen)
{
	char buf[PENDING_MAX];
	json_error_t je;
	json_t *j, *o;
	ssize_t n;
	int fd;

	memset(p, 0, sizeof *p);
	p->generation = p->chip = -1;
	fd = openat(dirfd, RELPENDING_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK);
	if (fd == -1 && errno == ENOENT)
		return 0;
	n = fd == -1 ? -1 : read(fd, buf, sizeof buf - 1);
	if (fd != -1)
		close(fd);
	if (n < 0) {
		errbuf_set(err, errlen, "08-release/" RELPENDING_FILE ": %s",
		    strerror(errno));
		return -1;
	}
	j = json_loadb(buf, (size_t)n, 0, &je);
	o = json_object_get(j, "promote");
	if (!json_is_integer(json_object_get(o, "generation"))) {
		errbuf_set(err, errlen, "08-release/" RELPENDING_FILE " is not "
		    "calops-promote-pending/v1");
		json_decref(j);
		return -1;
	}
	p->generation = (long)json_integer_value(json_object_get(o,
	    "generation"));
	p->chip = json_is_integer(json_object_get(o, "chip")) ?
	    (long)json_integer_value(json_object_get(o, "chip")) : -1;
	p->since = json_number_value(json_object_get(o, "since"));
	member(o, "action", p->action, sizeof p->action);
	if (strcmp(p->action, "rollback") != 0)
		snprintf(p->action, sizeof p->action, "promote");
	member(o, "job", p->job, sizeof p->job);
	member(o, "host", p->host, sizeof p->host);
	member(o, "key_id", p->key_id, sizeof p->key_id);
	member(o, "actor", p->actor, sizeof p->actor);
	member(o, "by", p->by, sizeof p->by);
	member(o, "lab", p->lab, sizeof p->lab);
	json_decref(j);
	return 1;
}

int
relpending_clear(int dirfd, char *err, size_t errlen)
{
	if (unlinkat(dirfd, RELPENDING_FILE, 0) != 0 && errno != ENOENT) {
		errbuf_set(err, errlen, "cannot remove 08-release/"
		    RELPENDING_FILE ": %s", strerror(errno));
		return -1;
	}
	if (fsync(dirfd) != 0) {
		errbuf_set(err, errlen, "cannot fsync 08-release/: %s",
		    strerror(errno));
		return -1;
	}
	return 0;
}

void
relpending_words(const struct relpending *p, char *buf, size_t len)
{
	char when[32], *job = text_sanitize_str(p->job);
	char *host = text_sanitize_str(p->host);
	char *key = text_sanitize_str(p->key_id);
	char *by = text_sanitize_str(p->by);

	relstate_iso(p->since, when, sizeof when);
	errbuf_set(buf, len, "the %s to generation %ld was cut short during "
	    "its chip step (job %s on %s, chip %ld; approved with key %s by "
	    "%s, %s)", p->action, p->generation, job, host, p->chip, key, by,
	    when);
	free(job);
	free(host);
	free(key);
	free(by);
}
