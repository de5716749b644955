/* relcache.c: the audit log's verified prefix, cached (relcache.h). */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include "base/fileio.h"
#include "release/relcache.h"
#include "release/relkey.h"
#include "ws/hash.h"

/* The cache file of the 08-release/ folder open as dirfd: by its device
 * and inode, which a workspace's copy or move does not share; a new
 * string, or NULL. */
static char *
cache_path(int dirfd)
{
	const char *s;
	struct stat sb;

	if (fstat(dirfd, &sb) != 0)
		return NULL;
	if ((s = getenv("XDG_CACHE_HOME")) != NULL && s[0] == '/')
		return xasprintf("%s/calops/audit-verified/%llx-%llx", s,
		    (unsigned long long)sb.st_dev,
		    (unsigned long long)sb.st_ino);
	if ((s = getenv("HOME")) != NULL && s[0] != '\0')
		return xasprintf("%s/.cache/calops/audit-verified/%llx-%llx",
		    s, (unsigned long long)sb.st_dev,
		    (unsigned long long)sb.st_ino);
	return NULL;
}

static int
by_text(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The SHA-256 of the keys of kr, each its name and raw public key, in an
 * order that does not depend on how the folder lists them. */
static void
keys_digest(const struct keyring *kr, char hex[65])
{
	char **v = xreallocarray(NULL, kr->n + 1, sizeof *v), *pub, *all;
	size_t i, len = 0;

	for (i = 0; i < kr->n; i++) {
		pub = relkey_public_b64(kr->keys[i].pkey);
		v[i] = xasprintf("%s %s\n", kr->keys[i].name, pub != NULL ?
		    pub : "-");
		free(pub);
		len += strlen(v[i]);
	}
	qsort(v, kr->n, sizeof *v, by_text);
	all = xmalloc(len + 1);
	all[0] = '\0';
	for (len = 0, i = 0; i < kr->n; i++) {
		memcpy(all + len, v[i], strlen(v[i]) + 1);
		len += strlen(v[i]);
		free(v[i]);
	}
	hash_bytes(all, len, hex);
	free(all);
	free(v);
}

void
relcache_get(int dirfd, const struct keyring *kr, struct relaudit_known *k)
{
	char *path = cache_path(dirfd), line[256], keys[65], want[65];
	unsigned long long n, bytes;
	ssize_t got;
	int fd;

	memset(k, 0, sizeof *k);
	if (path == NULL)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	free(path);
	if (fd == -1)
		return;
	got = read(fd, line, sizeof line - 1);
	close(fd);
	if (got <= 0)
		return;
	line[got] = '\0';
	keys_digest(kr, want);
	if (sscanf(line, "v1 %64[0-9a-f] %llu %llu %64[0-9a-f]\n", keys, &n,
	    &bytes, k->sha256) != 4 || strcmp(keys, want) != 0 ||
	    strlen(k->sha256) != 64) {
		memset(k, 0, sizeof *k);
		return;
	}
	k->records = (size_t)n;
	k->bytes = (size_t)bytes;
}

void
relcache_put(int dirfd, const struct keyring *kr, size_t records,
    const char *data, size_t bytes)
{
	char *path = cache_path(dirfd), *line, keys[65], sum[65], err[256];

	if (path == NULL || records == 0)
		goto out;
	keys_digest(kr, keys);
	hash_bytes(data, bytes, sum);
	line = xasprintf("v1 %s %zu %zu %s\n", keys, records, bytes, sum);
	/* A hint: no fsync (a lost entry costs one whole check). */
	if (fileio_make_parent(path, 0700, err, sizeof err) == 0)
		(void)fileio_replace(path, line, strlen(line), 0600, false,
		    err, sizeof err);
	free(line);
out:
	free(path);
}
