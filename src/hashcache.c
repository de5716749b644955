/* hashcache.c: the table of known digests and its file (see hashcache.h). */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "hashcache.h"

#define HC_MAGIC	"CALOPSHC"
#define HC_VERSION	1u
#define HC_PERSIST	0x1u

struct hc_entry {
	struct hashcache_key	 key;
	unsigned char		 md[HASHCACHE_MDLEN];
	uint32_t		 day;	/* last used, in days since the epoch */
	uint32_t		 flags;	/* HC_PERSIST in memory, 0 on disk */
};
_Static_assert(sizeof(struct hc_entry) == 80, "hc_entry has padding");

struct hc_header {
	char		 magic[8];
	uint32_t	 version;
	uint32_t	 entsize;
	uint64_t	 count;
};
_Static_assert(sizeof(struct hc_header) == 24, "hc_header has padding");

struct hashcache {
	const EVP_MD	*md;
	struct hc_entry	*ents;
	size_t		 n;
	size_t		 alloc;
	uint32_t	*slots;		/* entry index + 1; 0 is a free slot */
	size_t		 nslots;	/* a power of two, at least 2 n */
	uint32_t	 today;
	bool		 dirty;		/* persistent entries changed */
	bool		 loaded;	/* lstat below is valid */
	struct stat	 lstat;		/* the file as it was when last read */
};

struct hashcache *
hashcache_new(const EVP_MD *md)
{
	struct hashcache *c = xcalloc(1, sizeof *c);

	c->md = md;
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
	free(c);
}

size_t
hashcache_count(const struct hashcache *c)
{
	return c->n;
}

/* A well-mixed 64-bit hash of a key (the splitmix64 finaliser). */
static uint64_t
hc_hash(const struct hashcache_key *k)
{
	uint64_t h;

	h = k->ino * 0x9e3779b97f4a7c15ULL;
	h ^= k->dev + (h << 6) + (h >> 2);
	h ^= k->size * 0xc2b2ae3d27d4eb4fULL;
	h ^= (uint64_t)k->mtime_ns * 0x165667b19e3779f9ULL;
	h ^= (uint64_t)k->ctime_ns * 0x27d4eb2f165667c5ULL;
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h;
}

/* The slot holding key k, or the free slot where it belongs. */
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

/* Double the slot array when it would become more than half full. */
static void
hc_grow(struct hashcache *c)
{
	size_t i;

	if (c->n + 1 <= c->nslots / 2)
		return;
	if (c->n >= UINT32_MAX - 1)
		fatal("hash cache table overflow");
	free(c->slots);
	c->nslots *= 2;
	c->slots = xcalloc(c->nslots, sizeof *c->slots);
	for (i = 0; i < c->n; i++)
		*hc_slot(c, &c->ents[i].key) = (uint32_t)(i + 1);
}

/* Append an entry known to be absent. */
static void
hc_add(struct hashcache *c, const struct hc_entry *e)
{
	hc_grow(c);
	if (c->n == c->alloc) {
		c->alloc = c->alloc == 0 ? 1024 : c->alloc * 2;
		c->ents = xreallocarray(c->ents, c->alloc, sizeof *c->ents);
	}
	c->ents[c->n] = *e;
	*hc_slot(c, &e->key) = (uint32_t)(c->n + 1);
	c->n++;
}

bool
hashcache_get(struct hashcache *c, const struct hashcache_key *k,
    unsigned char md[HASHCACHE_MDLEN])
{
	uint32_t *s = hc_slot(c, k);
	struct hc_entry *e;

	if (*s == 0)
		return false;
	e = &c->ents[*s - 1];
	memcpy(md, e->md, HASHCACHE_MDLEN);
	/* Refresh the age used for eviction at most once a day, so that a
	 * warm run does not rewrite the file. */
	if ((e->flags & HC_PERSIST) && e->day < c->today) {
		e->day = c->today;
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
			if (e->flags & HC_PERSIST)
				c->dirty = true;
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
	if (persist)
		c->dirty = true;
}

/* Read exactly len bytes; -1 on error or early end of file. */
static int
read_full(int fd, void *data, size_t len)
{
	unsigned char *p = data;
	ssize_t n;

	while (len > 0) {
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Check a whole cache file image: header, size and trailing checksum. */
static bool
hc_valid(const struct hashcache *c, const unsigned char *data, size_t size)
{
	struct hc_header hdr;
	unsigned char sum[EVP_MAX_MD_SIZE];
	unsigned int sumlen;

	if (size < sizeof hdr + HASHCACHE_MDLEN)
		return false;
	memcpy(&hdr, data, sizeof hdr);
	if (memcmp(hdr.magic, HC_MAGIC, sizeof hdr.magic) != 0 ||
	    hdr.version != HC_VERSION ||
	    hdr.entsize != sizeof(struct hc_entry) ||
	    hdr.count > HASHCACHE_MAX ||
	    size != sizeof hdr + hdr.count * sizeof(struct hc_entry) +
	    HASHCACHE_MDLEN)
		return false;
	if (EVP_Digest(data, size - HASHCACHE_MDLEN, sum, &sumlen, c->md,
	    NULL) != 1 || sumlen != HASHCACHE_MDLEN)
		return false;
	return memcmp(sum, data + size - HASHCACHE_MDLEN, HASHCACHE_MDLEN) == 0;
}

size_t
hashcache_load(struct hashcache *c, const char *path)
{
	struct stat st;
	struct hc_header hdr;
	struct hc_entry e;
	unsigned char *data;
	size_t size, i, max;
	int fd;

	max = sizeof hdr + (size_t)HASHCACHE_MAX * sizeof e + HASHCACHE_MDLEN;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		return 0;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
	    (uint64_t)st.st_size > max) {
		close(fd);
		return 0;
	}
	size = (size_t)st.st_size;
	data = xmalloc(size);
	if (read_full(fd, data, size) != 0 || !hc_valid(c, data, size)) {
		close(fd);
		free(data);
		return 0;
	}
	close(fd);
	c->lstat = st;
	c->loaded = true;
	memcpy(&hdr, data, sizeof hdr);
	for (i = 0; i < hdr.count; i++) {
		memcpy(&e, data + sizeof hdr + i * sizeof e, sizeof e);
		e.flags = HC_PERSIST;
		if (*hc_slot(c, &e.key) == 0)
			hc_add(c, &e);
	}
	free(data);
	return (size_t)hdr.count;
}

/* Most recently used first, then by key so the order is total. */
static int
hc_cmp_age(const void *a, const void *b)
{
	const struct hc_entry *x = a, *y = b;

	if (x->day != y->day)
		return x->day > y->day ? -1 : 1;
	return memcmp(&x->key, &y->key, sizeof x->key);
}

/* Create the directories above path (mode 0700), like mkdir -p. */
static int
mkdir_parents(const char *path)
{
	char *p = xstrdup(path), *s;

	for (s = p + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(p, 0700) != 0 && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	free(p);
	return 0;
}

/* Write len bytes; -1 on error. */
static int
write_full(int fd, const void *data, size_t len)
{
	const unsigned char *p = data;
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The persistent entries as a file image: header, entries, checksum. */
static unsigned char *
hc_image(const struct hashcache *c, size_t *sizep)
{
	struct hc_header hdr;
	struct hc_entry *ents;
	unsigned char *data;
	size_t i, n = 0, size;

	ents = xreallocarray(NULL, c->n, sizeof *ents);
	for (i = 0; i < c->n; i++) {
		if (c->ents[i].flags & HC_PERSIST) {
			ents[n] = c->ents[i];
			ents[n++].flags = 0;
		}
	}
	if (n > HASHCACHE_MAX) {
		qsort(ents, n, sizeof *ents, hc_cmp_age);
		n = HASHCACHE_MAX;
	}
	memset(&hdr, 0, sizeof hdr);
	memcpy(hdr.magic, HC_MAGIC, sizeof hdr.magic);
	hdr.version = HC_VERSION;
	hdr.entsize = sizeof *ents;
	hdr.count = n;
	size = sizeof hdr + n * sizeof *ents + HASHCACHE_MDLEN;
	data = xmalloc(size);
	memcpy(data, &hdr, sizeof hdr);
	if (n != 0)
		memcpy(data + sizeof hdr, ents, n * sizeof *ents);
	free(ents);
	if (EVP_Digest(data, size - HASHCACHE_MDLEN,
	    data + size - HASHCACHE_MDLEN, NULL, c->md, NULL) != 1)
		fatal("SHA-256 failed");
	*sizep = size;
	return data;
}

/* Flush the directory holding path, so that a rename survives a crash. */
static void
sync_parent(const char *path)
{
	char *dir = xstrdup(path), *s;
	int fd;

	if ((s = strrchr(dir, '/')) != NULL)
		*(s == dir ? s + 1 : s) = '\0';
	else {
		free(dir);
		dir = xstrdup(".");
	}
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
}

int
hashcache_save(struct hashcache *c, const char *path, char *err,
    size_t errlen)
{
	struct stat st;
	unsigned char *data;
	char *tmp;
	size_t size;
	int fd, rc, saved;

	if (!c->dirty)
		return 0;
	/* Another process may have saved since we read: keep its entries. */
	if (stat(path, &st) == 0 && (!c->loaded ||
	    st.st_ino != c->lstat.st_ino || st.st_dev != c->lstat.st_dev ||
	    st.st_size != c->lstat.st_size ||
	    st.st_mtim.tv_sec != c->lstat.st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != c->lstat.st_mtim.tv_nsec))
		hashcache_load(c, path);
	if (mkdir_parents(path) != 0) {
		errbuf_set(err, errlen, "cannot create the folder of '%s': %s",
		    path, strerror(errno));
		return -1;
	}
	tmp = xasprintf("%s.XXXXXX", path);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1) {
		errbuf_set(err, errlen, "cannot create '%s': %s", tmp,
		    strerror(errno));
		free(tmp);
		return -1;
	}
	data = hc_image(c, &size);
	rc = write_full(fd, data, size) == 0 && fsync(fd) == 0 ? 0 : -1;
	saved = errno;
	if (close(fd) != 0 && rc == 0) {
		rc = -1;
		saved = errno;
	}
	if (rc == 0 && rename(tmp, path) != 0) {
		rc = -1;
		saved = errno;
	}
	if (rc == 0) {
		sync_parent(path);
		c->dirty = false;
	} else {
		errbuf_set(err, errlen, "cannot write '%s': %s", path,
		    strerror(saved));
		unlink(tmp);
	}
	free(data);
	free(tmp);
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
