/* knownhosts_add.c: a new key added to a known_hosts file, atomically and
 * with every byte of it kept (see knownhosts.h). */
#include "calops.h"

#include <sys/stat.h>

#include <openssl/rand.h>

#include "base/docfile.h"
#include "base/fileio.h"
#include "remote/knownhosts.h"
#include "remote/knownhosts_add.h"
#include "remote/knownhosts_int.h"

#define ADD_TRIES	5		/* reads of a file others change */

/* "NAME TYPE BASE64\n" for a new key, NAME hashed when hash; NULL with
 * err when OpenSSL fails. */
static char *
entry_text(const char *name, bool hash, const struct khtype *t,
    const void *blob, size_t len, char *err, size_t errlen)
{
	unsigned char salt[HASH_LEN], md[HASH_LEN];
	char *key, *s64, *h64, *line, *hashed = NULL;

	if (hash) {
		if (RAND_bytes(salt, HASH_LEN) != 1 ||
		    !knownhosts_hmac_sha1(salt, name, md)) {
			errbuf_set(err, errlen, "cannot hash the host name: "
			    "OpenSSL failed");
			return NULL;
		}
		s64 = knownhosts_b64_encode(salt, HASH_LEN);
		h64 = knownhosts_b64_encode(md, HASH_LEN);
		hashed = xasprintf(HASH_MAGIC "%s|%s", s64, h64);
		free(s64);
		free(h64);
	}
	key = knownhosts_b64_encode(blob, len);
	line = xasprintf("%s %s %s\n", hashed != NULL ? hashed : name,
	    t->name, key);
	free(key);
	free(hashed);
	return line;
}

/* Whether the file at path is still the one st described. */
static bool
unchanged(const char *path, bool existed, const struct stat *st)
{
	struct stat now;

	if (lstat(path, &now) == -1)
		return !existed && errno == ENOENT;
	return existed && now.st_dev == st->st_dev &&
	    now.st_ino == st->st_ino && now.st_size == st->st_size &&
	    now.st_mtim.tv_sec == st->st_mtim.tv_sec &&
	    now.st_mtim.tv_nsec == st->st_mtim.tv_nsec;
}

/* path as it is, for knownhosts_add: 1 a regular file (in *st), 0 none
 * yet (its folders made), 3 the null device (UserKnownHostsFile
 * /dev/null: ssh "adds" the key there, which keeps nothing), -1 refused
 * with err. */
static int
add_target(const char *path, struct stat *st, char *err, size_t errlen)
{
	if (lstat(path, st) == -1) {
		if (errno != ENOENT) {
			knownhosts_errf(err, errlen, "cannot add to '%s': %s",
			    path, strerror(errno));
			return -1;
		}
		return fileio_make_parent(path, 0700, err, errlen);
	}
	if (S_ISLNK(st->st_mode)) {
		knownhosts_errf(err, errlen, "'%s' is a symbolic link: calops "
		    "does not write a known_hosts file through one", path);
		return -1;
	}
	if (docfile_is_null(st))
		return 3;
	if (!S_ISREG(st->st_mode)) {
		knownhosts_errf(err, errlen, "'%s' is not a regular file",
		    path);
		return -1;
	}
	return 1;
}

/*
 * One attempt of knownhosts_add: 0 added, 1 known already, -1 with err,
 * 2 when the file changed under it.
 */
static int
add_once(const char *path, const char *host, int port, const char *name,
    const struct khtype *t, const void *blob, size_t len, char *err,
    size_t errlen)
{
	struct knownhosts kh;
	struct knownhosts_result r;
	struct stat st;
	char *line = NULL, *data = NULL, msg[1024];
	size_t n;
	int existed, rc = -1;

	if ((existed = add_target(path, &st, err, errlen)) == -1)
		return -1;
	if (existed == 3)
		return 0;
	if (knownhosts_load(&kh, path, err, errlen) == -1)
		goto out;
	knownhosts_judge(&kh, name, blob, len, t, &r);
	if (r.verdict == KNOWNHOSTS_MATCH) {
		rc = 1;
		goto out;
	}
	/* A @cert-authority line for the host: the host is meant to be
	 * trusted by its certificate, which calops cannot check, so a key
	 * pinned here would step around that CA (knownhosts.h). */
	if (r.verdict != KNOWNHOSTS_UNKNOWN || r.ca_line != 0) {
		knownhosts_explain(&kh, &r, host, port, msg, sizeof msg);
		errbuf_set(err, errlen, "not adding the key: %s", msg);
		goto out;
	}
	if ((line = entry_text(name, kh.any_hashed, t, blob, len, err,
	    errlen)) == NULL)
		goto out;
	n = kh.len;
	data = xmalloc(n + 1 + strlen(line) + 1);
	memcpy(data, kh.data, n);
	if (n > 0 && data[n - 1] != '\n')
		data[n++] = '\n';
	memcpy(data + n, line, strlen(line) + 1);
	n += strlen(line);
	if (!unchanged(path, existed, &st))
		rc = 2;
	else if (fileio_replace(path, data, n, existed ? st.st_mode & 07777 :
	    0600, true, err, errlen) == 0)
		rc = 0;
out:
	free(data);
	free(line);
	knownhosts_release(&kh);
	return rc;
}

int
knownhosts_add(const char *path, const char *host, int port,
    const void *blob, size_t len, char *err, size_t errlen)
{
	const struct khtype *t;
	char name[NAME_SIZE];
	int tries, rc = 2;

	if ((t = knownhosts_prepare(host, port, blob, len, "writes in",
	    name, err, errlen)) == NULL)
		return -1;
	for (tries = 0; tries < ADD_TRIES && rc == 2; tries++)
		rc = add_once(path, host, port, name, t, blob, len, err,
		    errlen);
	if (rc == 2)
		knownhosts_errf(err, errlen, "'%s' kept changing while calops "
		    "added a key to it", path);
	else if (rc == -1)
		knownhosts_errsafe(err, errlen);
	return rc == 2 ? -1 : rc;
}
