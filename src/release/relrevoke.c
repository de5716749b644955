/* relrevoke.c: revoking a generation (relrevoke.h). */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/fileio.h"
#include "release/relkey.h"
#include "release/relrevoke.h"
#include "release/relswitch.h"

#define REVOCATIONS	"revocations.json"
#define SIGNATURE	"revocations.json.sig"

/* name under dirfd made anew with data and fsynced; 0 or -1 with errno. */
static int
write_new(int dirfd, const char *name, const void *data, size_t len)
{
	int fd, e;

	(void)unlinkat(dirfd, name, 0);
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644);
	if (fd == -1)
		return -1;
	if (fileio_write_full(fd, data, len) != 0 || fsync(fd) != 0) {
		e = errno;
		close(fd);
		(void)unlinkat(dirfd, name, 0);
		errno = e;
		return -1;
	}
	return close(fd);
}

int
relrevoke_finish(struct relstate *st, char *msg, size_t msglen)
{
	char *data, *sig;
	size_t len, siglen;
	struct stat sb;
	bool ok;

	if (fstatat(st->dirfd, REVOCATIONS ".new", &sb,
	    AT_SYMLINK_NOFOLLOW) == 0) {
		/* Cut before the first rename: the old pair stands. */
		(void)unlinkat(st->dirfd, REVOCATIONS ".new", 0);
		(void)unlinkat(st->dirfd, SIGNATURE ".new", 0);
		errbuf_set(msg, msglen, "a revocation cut short before it was "
		    "written was undone");
		return fsync(st->dirfd) == 0 ? 1 : -1;
	}
	if (fstatat(st->dirfd, SIGNATURE ".new", &sb,
	    AT_SYMLINK_NOFOLLOW) != 0)
		return 0;
	/* Cut between the renames: the new manifest is in, its signature
	 * beside it. */
	data = relstate_read(st, REVOCATIONS, &len);
	sig = relstate_read(st, SIGNATURE ".new", &siglen);
	ok = data != NULL && sig != NULL && keyring_verify(&st->kr, NULL,
	    data, len, sig, siglen) != NULL;
	free(data);
	free(sig);
	if (ok && renameat(st->dirfd, SIGNATURE ".new", st->dirfd,
	    SIGNATURE) != 0) {
		errbuf_set(msg, msglen, "cannot complete the revocation cut "
		    "short: %s", strerror(errno));
		return -1;
	}
	if (!ok)
		(void)unlinkat(st->dirfd, SIGNATURE ".new", 0);
	errbuf_set(msg, msglen, ok ? "a revocation cut short was completed" :
	    "a stray signature of a revocation was removed");
	if (fsync(st->dirfd) != 0)
		return -1;
	(void)relstate_reload(st, NULL, 0);
	return 1;
}

/* The revocations to write: the trusted ones there are, and n; NULL when
 * the file there is not, now, one that verifies (never a shorter list). */
static json_t *
new_list(const struct relstate *st, long n, const char *reason)
{
	char *data = NULL, *sig = NULL;
	size_t len = 0, siglen = 0;
	json_t *o = NULL;

	if (st->revocations_present) {
		data = relstate_read(st, REVOCATIONS, &len);
		sig = relstate_read(st, SIGNATURE, &siglen);
		if (data != NULL && sig != NULL && keyring_verify(&st->kr,
		    NULL, data, len, sig, siglen) != NULL)
			o = json_loadb(data, len, JSON_REJECT_DUPLICATES, NULL);
		free(data);
		free(sig);
		if (o == NULL || !json_is_array(json_object_get(o, "revoked"))) {
			json_decref(o);
			return NULL;
		}
	} else
		o = json_pack("{s:s, s:[]}", "schema",
		    "calops-revocations/v1", "revoked");
	/* n is not in it: a trusted list naming n made it revoked. */
	json_array_append_new(json_object_get(o, "revoked"), json_pack(
	    "{s:I, s:s, s:I}", "generation", (json_int_t)n, "reason", reason,
	    "ts", (json_int_t)time(NULL)));
	return o;
}

int
relrevoke_write(struct relstate *st, const void *key, long n,
    const char *reason, char *msg, size_t msglen)
{
	const struct relgen *g = relstate_gen(st, n);
	char *text, *sig, when[32];
	double until;
	long kept;
	json_t *o;

	if (g == NULL) {
		errbuf_set(msg, msglen, "there is no generation %ld", n);
		return 1;
	}
	if (g->revoked) {
		errbuf_set(msg, msglen, "generation %ld is revoked already", n);
		return 1;
	}
	if (n == st->current) {
		errbuf_set(msg, msglen, "generation %ld is current: roll back "
		    "or promote off it first, then revoke it", n);
		return 1;
	}
	/* The generation current replaced is kept through its observation
	 * window (release.md §6): a rollback may need it. */
	if (relstate_kept(st, (double)time(NULL), &kept, &until) &&
	    kept == n) {
		relstate_iso(until, when, sizeof when);
		errbuf_set(msg, msglen, "generation %ld is kept until %s: "
		    "generation %ld's observation window is not over; revoke "
		    "it after that", n, when, st->current);
		return 1;
	}
	if (st->revocations_present && !st->revocations_ok) {
		errbuf_set(msg, msglen, "%s: it is not written over; put back "
		    "a signed one first", st->revocations_problem);
		return 1;
	}
	if ((o = new_list(st, n, reason)) == NULL) {
		errbuf_set(msg, msglen, "revocations.json changed and no longer "
		    "verifies: nothing written");
		return 1;
	}
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (text == NULL) {
		errbuf_set(msg, msglen, "the reason is not UTF-8 text");
		return 1;
	}
	/* One line feed at the end, as an editor leaves it. */
	sig = text;
	text = xasprintf("%s\n", sig);
	free(sig);
	if ((sig = relkey_sign(key, text, strlen(text))) == NULL) {
		free(text);
		errbuf_set(msg, msglen, "cannot sign the revocations");
		return -1;
	}
	/* Both new files on disk, by name too, before either is renamed:
	 * a power cut then leaves the old pair and the two .new. */
	if (write_new(st->dirfd, REVOCATIONS ".new", text, strlen(text)) != 0 ||
	    write_new(st->dirfd, SIGNATURE ".new", sig, strlen(sig)) != 0 ||
	    fsync(st->dirfd) != 0 || renameat(st->dirfd, REVOCATIONS ".new", st->dirfd,
	    REVOCATIONS) != 0 || (relswitch_fault_kill("revocations-rename"),
	    relswitch_fault_fail("revocations-rename")) ||
	    renameat(st->dirfd, SIGNATURE ".new", st->dirfd, SIGNATURE) != 0 ||
	    fsync(st->dirfd) != 0) {
		char undo[256];

		errbuf_set(msg, msglen, "cannot write %s: %s", REVOCATIONS,
		    strerror(errno));
		free(text);
		free(sig);
		/* What was renamed is completed, what was not undone. */
		if (relrevoke_finish(st, undo, sizeof undo) == 1 &&
		    (g = relstate_gen(st, n)) != NULL && g->revoked) {
			errbuf_set(msg, msglen, "generation %ld is revoked (%s "
			    "once: %s)", n, "the signature's rename failed",
			    undo);
			return 0;
		}
		return -1;
	}
	free(text);
	free(sig);
	errbuf_set(msg, msglen, "generation %ld is revoked: it is never "
	    "promoted or rolled back to", n);
	(void)relstate_reload(st, NULL, 0);
	return 0;
}
