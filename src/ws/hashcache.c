/* hashcache.c: the table of known digests and its file (see hashcache.h). */
#include "calops.h"

#include <sys/random.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "base/fileio.h"
#include "base/statedir.h"
#include "ws/hashcache.h"

#define HC_MAGIC	"CALOPSHC"
#define HC_VERSION	3u
#define HC_PERSIST	0x1u
#define HC_KEYLEN	32
#define HC_TAGLEN	32
#define HC_FOLDER	"the hash cache folder"

struct hc_header {
	char		 magic[8];
	uint32_t	 version;
	uint32_t	 entsize;
	uint64_t	 count;
	uint64_t	 zero;
};
_Static_assert(sizeof(struct hc_header) == 32, "hc_header has padding");

/* An entry as the file holds it. */
struct hc_disk {
	struct hashcache_key	 key;
	unsigned char		 md[HASHCACHE_MDLEN];
	uint32_t		 day;	/* last used, in days since the epoch */
	uint32_t		 zero;
};
_Static_assert(sizeof(struct hc_disk) == 80, "hc_disk has padding");

/* An entry held in memory: put, or refreshed from the file. */
struct hc_entry {
	struct hashcache_key	 key;
	unsigned char		 md[HASHCACHE_MDLEN];
	uint32_t		 day;
	uint32_t		 flags;	/* HC_PERSIST */
};

/* An entry being saved, with its hash for sorting. */
struct hc_out {
	uint64_t		 hash;
	struct hc_disk		 e;
};

struct hashcache {
	struct hc_entry	*ents;
	size_t		 n;
	size_t		 alloc;
	uint32_t	*slots;		/* entry index + 1; 0 is a free slot */
	size_t		 nslots;	/* a power of two, at least 2 n */
	struct hc_disk	*disk;		/* the file's entries, sorted */
	size_t		 ndisk;
	bool		 have_file;	/* fst is the file disk came from */
	struct stat	 fst;
	uint32_t	 today;
	bool		 dirty;		/* persistent entries changed */
	int		 keyed;		/* 0 not read yet, 1 read, -1 none */
	unsigned char	 key[HC_KEYLEN];
	char		 problem[640];	/* what the last load refused, or "" */
};

struct hashcache *
hashcache_new(void)
{
	struct hashcache *c = xcalloc(1, sizeof *c);

	c->nslots = 1024;
	c->slots = xcalloc(c->nslots, sizeof *c->slots);
	c->today = (uint32_t)(time(NULL) / 86400);
	return c;
}

void
hashcache_free(struct hashcache *c)
{
	if (c == NULL)
		return;
	free(c->ents);
	free(c->slots);
	free(c->disk);
	OPENSSL_cleanse(c->key, sizeof c->key);
	free(c);
}

/* The splitmix64 finaliser: every input bit moves every output bit. */
static uint64_t
mix64(uint64_t h)
{
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h;
}

/* The hash of a key: one round of mixing, as lookups compute it often. */
static uint64_t
hc_hash(const struct hashcache_key *k)
{
	return mix64(k->ino * 0x9e3779b97f4a7c15ULL ^
	    k->dev * 0xc2b2ae3d27d4eb4fULL ^ k->size * 0x165667b19e3779f9ULL ^
	    (uint64_t)k->mtime_ns * 0x27d4eb2f165667c5ULL ^
	    (uint64_t)k->ctime_ns * 0xd6e8feb86659fd93ULL);
}

/* The order of the file: by key hash, then by key bytes. */
static int
hc_order(uint64_t ha, const struct hashcache_key *a, uint64_t hb,
    const struct hashcache_key *b)
{
	if (ha != hb)
		return ha < hb ? -1 : 1;
	return memcmp(a, b, sizeof *a);
}

/* The slot holding key k in memory, or the free slot where it belongs. */
static uint32_t *
hc_slot(const struct hashcache *c, const struct hashcache_key *k)
{
	size_t mask = c->nslots - 1, i = hc_hash(k) & mask;
	uint32_t *s;

	for (;;) {
		s = &c->slots[i];
		if (*s == 0 ||
		    memcmp(&c->ents[*s - 1].key, k, sizeof *k) == 0)
			return s;
		i = (i + 1) & mask;
	}
}

/* Add an entry known to be absent from memory. */
static void
hc_add(struct hashcache *c, const struct hc_entry *e)
{
	size_t i;

	if (c->n + 1 > c->nslots / 2) {
		if (c->n >= UINT32_MAX / 4)
			fatal("hash cache table overflow");
		free(c->slots);
		c->nslots *= 2;
		c->slots = xcalloc(c->nslots, sizeof *c->slots);
		for (i = 0; i < c->n; i++)
			*hc_slot(c, &c->ents[i].key) = (uint32_t)(i + 1);
	}
	if (c->n == c->alloc) {
		c->alloc = c->alloc == 0 ? 256 : c->alloc * 2;
		c->ents = xreallocarray(c->ents, c->alloc, sizeof *c->ents);
	}
	c->ents[c->n] = *e;
	*hc_slot(c, &e->key) = (uint32_t)(c->n + 1);
	c->n++;
}

/* Binary search of the file's entries (authenticated as a whole). */
static const struct hc_disk *
hc_disk_find(const struct hashcache *c, const struct hashcache_key *k)
{
	const struct hc_disk *e;
	uint64_t h = hc_hash(k);
	size_t lo = 0, hi = c->ndisk, mid;
	int cmp;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		e = &c->disk[mid];
		cmp = hc_order(h, k, hc_hash(&e->key), &e->key);
		if (cmp == 0)
			return e;
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

bool
hashcache_get(struct hashcache *c, const struct hashcache_key *k,
    unsigned char md[HASHCACHE_MDLEN])
{
	const struct hc_disk *d;
	struct hc_entry e;
	uint32_t *s = hc_slot(c, k);

	if (*s != 0) {
		memcpy(md, c->ents[*s - 1].md, HASHCACHE_MDLEN);
		return true;
	}
	if ((d = hc_disk_find(c, k)) == NULL)
		return false;
	memcpy(md, d->md, HASHCACHE_MDLEN);
	/* Refresh the age used for eviction at most once a day, so that a
	 * warm run does not rewrite the file. */
	if (d->day < c->today) {
		e.key = d->key;
		memcpy(e.md, d->md, HASHCACHE_MDLEN);
		e.day = c->today;
		e.flags = HC_PERSIST;
		hc_add(c, &e);
		c->dirty = true;
	}
	return true;
}

void
hashcache_put(struct hashcache *c, const struct hashcache_key *k,
    const unsigned char md[HASHCACHE_MDLEN], bool persist)
{
	uint32_t *s = hc_slot(c, k);
	struct hc_entry *e, ne;

	if (*s != 0) {
		e = &c->ents[*s - 1];
		if (memcmp(e->md, md, HASHCACHE_MDLEN) != 0) {
			memcpy(e->md, md, HASHCACHE_MDLEN);
			c->dirty |= (e->flags & HC_PERSIST) != 0;
		}
		if (persist && !(e->flags & HC_PERSIST)) {
			e->flags |= HC_PERSIST;
			c->dirty = true;
		}
		return;
	}
	memset(&ne, 0, sizeof ne);
	ne.key = *k;
	memcpy(ne.md, md, HASHCACHE_MDLEN);
	ne.day = c->today;
	ne.flags = persist ? HC_PERSIST : 0;
	hc_add(c, &ne);
	c->dirty |= persist;
}

/* HMAC-SHA256, under the user's key, of a file's header and entries. */
static void
hc_mac(const unsigned char *key, const struct hc_header *hdr,
    const void *ents, size_t entlen, unsigned char tag[HC_TAGLEN])
{
	OSSL_PARAM params[2];
	EVP_MAC_CTX *ctx = NULL;
	EVP_MAC *mac;
	size_t n = 0;

	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
	    "SHA256", 0);
	params[1] = OSSL_PARAM_construct_end();
	if ((mac = EVP_MAC_fetch(NULL, "HMAC", NULL)) == NULL ||
	    (ctx = EVP_MAC_CTX_new(mac)) == NULL ||
	    EVP_MAC_init(ctx, key, HC_KEYLEN, params) != 1 ||
	    EVP_MAC_update(ctx, (const void *)hdr, sizeof *hdr) != 1 ||
	    (entlen > 0 && EVP_MAC_update(ctx, ents, entlen) != 1) ||
	    EVP_MAC_final(ctx, tag, &n, HC_TAGLEN) != 1 || n != HC_TAGLEN)
		fatal("OpenSSL cannot compute an HMAC-SHA256");
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
}

/*
 * Make the key: random bytes written aside, then linked into place, so
 * that of two processes making one at once, one wins whole and the other
 * reads it.  0, or -1 with err.
 */
static int
hc_key_make(int dfd, const char *dir, char *err, size_t errlen)
{
	unsigned char key[HC_KEYLEN];
	char *tmp = xasprintf(".%s.%ld", HASHCACHE_KEY, (long)getpid());
	int fd = -1, rc = -1, e = 0;

	(void)unlinkat(dfd, tmp, 0);		/* left by a crash */
	if (getrandom(key, sizeof key, 0) != (ssize_t)sizeof key ||
	    (fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1 ||
	    fileio_write_full(fd, key, sizeof key) != 0 || fsync(fd) != 0)
		e = errno;
	else if (linkat(dfd, tmp, dfd, HASHCACHE_KEY, 0) == 0 ||
	    errno == EEXIST)
		rc = 0;
	else
		e = errno;
	if (rc != 0)
		errbuf_set(err, errlen, "cannot make the hash cache key "
		    "'%s/%s': %s", dir, HASHCACHE_KEY, strerror(e));
	if (fd != -1) {
		close(fd);
		(void)unlinkat(dfd, tmp, 0);
	}
	OPENSSL_cleanse(key, sizeof key);
	free(tmp);
	return rc;
}

/*
 * Read the user's key from the state folder (made on first use), trusted
 * as the state is (statedir.h) and only when neither its group nor others
 * may read it.  0, or -1 with err.
 */
static int
hc_key_read(unsigned char key[HC_KEYLEN], char *err, size_t errlen)
{
	struct stat st;
	char *dir = NULL, *path;
	int dfd, fd, rc = -1;

	if ((dfd = statedir_open("", "the state folder", true, &dir, err,
	    errlen)) == -1)
		return -1;
	fd = statedir_open_file(dfd, dir, HASHCACHE_KEY, O_RDONLY, 0, err,
	    errlen);
	if (fd == -1 && errno == ENOENT &&
	    hc_key_make(dfd, dir, err, errlen) == 0)
		fd = statedir_open_file(dfd, dir, HASHCACHE_KEY, O_RDONLY, 0,
		    err, errlen);
	close(dfd);
	path = xasprintf("%s/%s", dir, HASHCACHE_KEY);
	if (fd == -1)
		;				/* err says why */
	else if (fstat(fd, &st) != 0)
		errbuf_set(err, errlen, "cannot read the hash cache key '%s': "
		    "%s", path, strerror(errno));
	else if ((st.st_mode & 077) != 0)
		errbuf_set(err, errlen, "refusing the hash cache key '%s': "
		    "its group or others may read it (mode %04o); run: chmod "
		    "600 '%s'", path, (unsigned)(st.st_mode & 07777), path);
	else if (st.st_size != HC_KEYLEN ||
	    fileio_read_full(fd, key, HC_KEYLEN) != 0)
		errbuf_set(err, errlen, "refusing the hash cache key '%s': it "
		    "is not %d bytes of key; remove it (a new one is made): rm "
		    "'%s'", path, HC_KEYLEN, path);
	else
		rc = 0;
	if (fd != -1)
		close(fd);
	free(path);
	free(dir);
	return rc;
}

/* Whether the key is at hand, read once; err says why not. */
static bool
hc_key(struct hashcache *c, char *err, size_t errlen)
{
	if (c->keyed == 0)
		c->keyed = hc_key_read(c->key, err, errlen) == 0 ? 1 : -1;
	else if (c->keyed < 0)
		errbuf_set(err, errlen, "no hash cache key");
	return c->keyed > 0;
}

/* The folder holding path (a new string), and *name its last component
 * (a new string). */
static char *
hc_split(const char *path, char **name)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL) {
		*name = xstrdup(path);
		return xstrdup(".");
	}
	*name = xstrdup(slash + 1);
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/*
 * Open the cache file at path as the state is opened (statedir.h): its
 * folder a real folder of the user's that neither group nor others may
 * write, the file likewise, no link followed.  fd, or -1 with err and
 * errno (ENOENT: nothing there).
 */
static int
hc_open(const char *path, char *err, size_t errlen)
{
	char *name, *dir = hc_split(path, &name), *real = NULL;
	int dfd, fd = -1, e;

	dfd = statedir_open_top(dir, HC_FOLDER, false, &real, err, errlen);
	if (dfd != -1) {
		fd = statedir_open_file(dfd, real, name, O_RDONLY, 0, err,
		    errlen);
		e = errno;
		close(dfd);
		errno = e;
	}
	e = errno;
	free(real);
	free(dir);
	free(name);
	errno = e;
	return fd;
}

/* Read the file's entries and check them against its header, size and
 * HMAC; NULL with *why (static), or with c->problem set by the key. */
static struct hc_disk *
hc_read(struct hashcache *c, int fd, const struct stat *st,
    struct hc_header *hdr, const char **why)
{
	unsigned char tag[HC_TAGLEN], want[HC_TAGLEN];
	struct hc_disk *disk;
	char err[512];

	*why = NULL;
	if (fileio_read_full(fd, hdr, sizeof *hdr) != 0 ||
	    memcmp(hdr->magic, HC_MAGIC, sizeof hdr->magic) != 0) {
		*why = "it is not a hash cache";
		return NULL;
	}
	if (hdr->version != HC_VERSION)
		return NULL;	/* another calops's: replaced when saved */
	if (hdr->entsize != sizeof *disk || hdr->count > HASHCACHE_MAX ||
	    hdr->zero != 0 || (uint64_t)st->st_size != sizeof *hdr +
	    hdr->count * sizeof *disk + HC_TAGLEN) {
		*why = "its header or size is wrong";
		return NULL;
	}
	disk = xreallocarray(NULL, hdr->count, sizeof *disk);
	if (fileio_read_full(fd, disk, hdr->count * sizeof *disk) != 0 ||
	    fileio_read_full(fd, tag, sizeof tag) != 0)
		*why = "it cannot be read";
	else if (!hc_key(c, err, sizeof err))
		errbuf_set(c->problem, sizeof c->problem, "not using the hash "
		    "cache: %s", err);
	else {
		hc_mac(c->key, hdr, disk, hdr->count * sizeof *disk, want);
		if (CRYPTO_memcmp(tag, want, sizeof tag) == 0)
			return disk;
		*why = "its authentication code does not match your key "
		    "(it was changed since calops wrote it, or written by "
		    "someone else)";
	}
	free(disk);
	return NULL;
}

size_t
hashcache_load(struct hashcache *c, const char *path)
{
	struct hc_header hdr;
	struct hc_disk *disk;
	struct stat st;
	const char *why = NULL;
	char err[512];
	int fd;

	c->problem[0] = '\0';
	if ((fd = hc_open(path, err, sizeof err)) == -1) {
		if (errno != ENOENT)
			errbuf_set(c->problem, sizeof c->problem, "not using "
			    "the hash cache: %s", err);
		return 0;
	}
	if (fstat(fd, &st) != 0)
		why = "it cannot be read";
	disk = why == NULL ? hc_read(c, fd, &st, &hdr, &why) : NULL;
	close(fd);
	if (why != NULL)
		errbuf_set(c->problem, sizeof c->problem, "ignoring the hash "
		    "cache '%s': %s; its files are hashed again", path, why);
	if (disk == NULL)
		return 0;
	free(c->disk);
	c->disk = disk;
	c->ndisk = (size_t)hdr.count;
	c->fst = st;
	c->have_file = true;
	return c->ndisk;
}

const char *
hashcache_problem(const struct hashcache *c)
{
	return c->problem;
}

static int
hc_out_order(const void *a, const void *b)
{
	const struct hc_out *x = a, *y = b;

	return hc_order(x->hash, &x->e.key, y->hash, &y->e.key);
}

/* Most recently used first, then in file order so the choice is stable. */
static int
hc_out_age(const void *a, const void *b)
{
	const struct hc_out *x = a, *y = b;

	if (x->e.day != y->e.day)
		return x->e.day > y->e.day ? -1 : 1;
	return hc_out_order(a, b);
}

/* The entries to save: the file's that memory does not replace, and the
 * persistent ones in memory; the most recent HASHCACHE_MAX, sorted. */
static struct hc_out *
hc_collect(struct hashcache *c, size_t *np)
{
	struct hc_out *out;
	const struct hc_disk *d;
	size_t i, n = 0;

	out = xreallocarray(NULL, c->ndisk + c->n, sizeof *out);
	for (i = 0; i < c->ndisk; i++) {
		d = &c->disk[i];
		if (*hc_slot(c, &d->key) != 0)
			continue;
		out[n].hash = hc_hash(&d->key);
		out[n++].e = *d;
	}
	for (i = 0; i < c->n; i++) {
		if (!(c->ents[i].flags & HC_PERSIST))
			continue;
		memset(&out[n].e, 0, sizeof out[n].e);
		out[n].e.key = c->ents[i].key;
		memcpy(out[n].e.md, c->ents[i].md, HASHCACHE_MDLEN);
		out[n].e.day = c->ents[i].day;
		out[n].hash = hc_hash(&out[n].e.key);
		n++;
	}
	if (n > HASHCACHE_MAX) {
		qsort(out, n, sizeof *out, hc_out_age);
		n = HASHCACHE_MAX;
	}
	qsort(out, n, sizeof *out, hc_out_order);
	*np = n;
	return out;
}

/* The file image: header, entries and their HMAC under the user's key. */
static unsigned char *
hc_image(struct hashcache *c, size_t *sizep)
{
	struct hc_header hdr;
	struct hc_out *out;
	struct hc_disk *d;
	unsigned char *data;
	size_t i, n;

	out = hc_collect(c, &n);
	memset(&hdr, 0, sizeof hdr);
	memcpy(hdr.magic, HC_MAGIC, sizeof hdr.magic);
	hdr.version = HC_VERSION;
	hdr.entsize = sizeof *d;
	hdr.count = n;
	*sizep = sizeof hdr + n * sizeof *d + HC_TAGLEN;
	data = xmalloc(*sizep);
	memcpy(data, &hdr, sizeof hdr);
	for (i = 0; i < n; i++) {
		d = &out[i].e;
		d->zero = 0;
		memcpy(data + sizeof hdr + i * sizeof *d, d, sizeof *d);
	}
	hc_mac(c->key, &hdr, data + sizeof hdr, n * sizeof *d,
	    data + sizeof hdr + n * sizeof *d);
	free(out);
	return data;
}

int
hashcache_save(struct hashcache *c, const char *path, char *err,
    size_t errlen)
{
	struct stat st;
	unsigned char *data;
	char *name, *dir, *real = NULL, *full;
	size_t size;
	int dfd, rc = -1;

	if (!c->dirty)
		return 0;
	/* Another process may have saved since we read: keep its entries. */
	if (stat(path, &st) == 0 && (!c->have_file ||
	    st.st_ino != c->fst.st_ino || st.st_dev != c->fst.st_dev ||
	    st.st_size != c->fst.st_size ||
	    st.st_mtim.tv_sec != c->fst.st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != c->fst.st_mtim.tv_nsec))
		hashcache_load(c, path);
	if (!hc_key(c, err, errlen))
		return -1;
	/* Written only in a folder that passes, over a file that does (a
	 * file refused stays, and is said when read). */
	dir = hc_split(path, &name);
	if ((dfd = statedir_open_top(dir, HC_FOLDER, true, &real, err,
	    errlen)) != -1 && statedir_check_file(dfd, real, name, err,
	    errlen) != -1) {
		data = hc_image(c, &size);
		full = xasprintf("%s/%s", real, name);
		rc = fileio_replace(full, data, size, 0600, true, err, errlen);
		free(full);
		free(data);
	}
	if (dfd != -1)
		close(dfd);
	free(real);
	free(dir);
	free(name);
	if (rc == 0)
		c->dirty = false;
	return rc;
}

char *
hashcache_default_path(void)
{
	const char *s;

	if ((s = getenv("XDG_CACHE_HOME")) != NULL && s[0] == '/')
		return xasprintf("%s/calops/hashes", s);
	if ((s = getenv("HOME")) != NULL && s[0] != '\0')
		return xasprintf("%s/.cache/calops/hashes", s);
	return NULL;
}
