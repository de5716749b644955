/* hashcache.c: the table of known digests and its file (see hashcache.h). */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "ws/hashcache.h"

#define HC_MAGIC	"CALOPSHC"
#define HC_VERSION	2u
#define HC_PERSIST	0x1u

struct hc_header {
	char		 magic[8];
	uint32_t	 version;
	uint32_t	 entsize;
	uint64_t	 count;
	uint32_t	 check;		/* of the 24 bytes before */
	uint32_t	 zero;
};
_Static_assert(sizeof(struct hc_header) == 32, "hc_header has padding");

/* An entry as the file holds it. */
struct hc_disk {
	struct hashcache_key	 key;
	unsigned char		 md[HASHCACHE_MDLEN];
	uint32_t		 day;	/* last used, in days since the epoch */
	uint32_t		 check;	/* of the 76 bytes before */
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

/* A 32-bit check of len bytes, catching corruption (not an adversary). */
static uint32_t
hc_check(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0x243f6a8885a308d3ULL, w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = mix64(h ^ w);
	}
	if (len > 0) {
		w = 0;
		memcpy(&w, p, len);
		h = mix64(h ^ w ^ ((uint64_t)len << 56));
	}
	return (uint32_t)(h ^ (h >> 32));
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

/* Binary search of the file's entries; a damaged entry is not found. */
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
		if (cmp == 0) {
			if (e->check != hc_check(e, offsetof(struct hc_disk,
			    check)))
				return NULL;
			return e;
		}
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

/* Check a header against the size of its file. */
static bool
hc_header_ok(const struct hc_header *hdr, const struct stat *st)
{
	if (memcmp(hdr->magic, HC_MAGIC, sizeof hdr->magic) != 0 ||
	    hdr->version != HC_VERSION ||
	    hdr->entsize != sizeof(struct hc_disk) ||
	    hdr->count > HASHCACHE_MAX || hdr->zero != 0 ||
	    hdr->check != hc_check(hdr, offsetof(struct hc_header, check)))
		return false;
	return (uint64_t)st->st_size ==
	    sizeof *hdr + hdr->count * sizeof(struct hc_disk);
}

size_t
hashcache_load(struct hashcache *c, const char *path)
{
	struct hc_header hdr;
	struct hc_disk *disk;
	struct stat st;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		return 0;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    fileio_read_full(fd, &hdr, sizeof hdr) != 0 ||
	    !hc_header_ok(&hdr, &st)) {
		close(fd);
		return 0;
	}
	disk = xreallocarray(NULL, hdr.count, sizeof *disk);
	if (fileio_read_full(fd, disk, hdr.count * sizeof *disk) != 0) {
		close(fd);
		free(disk);
		return 0;
	}
	close(fd);
	free(c->disk);
	c->disk = disk;
	c->ndisk = (size_t)hdr.count;
	c->fst = st;
	c->have_file = true;
	return c->ndisk;
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
		if (d->check != hc_check(d, offsetof(struct hc_disk, check)) ||
		    *hc_slot(c, &d->key) != 0)
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

/* The file image: header and checked entries. */
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
	hdr.check = hc_check(&hdr, offsetof(struct hc_header, check));
	*sizep = sizeof hdr + n * sizeof *d;
	data = xmalloc(*sizep);
	memcpy(data, &hdr, sizeof hdr);
	for (i = 0; i < n; i++) {
		d = &out[i].e;
		d->check = hc_check(d, offsetof(struct hc_disk, check));
		memcpy(data + sizeof hdr + i * sizeof *d, d, sizeof *d);
	}
	free(out);
	return data;
}

int
hashcache_save(struct hashcache *c, const char *path, char *err,
    size_t errlen)
{
	struct stat st;
	unsigned char *data;
	size_t size;
	int rc;

	if (!c->dirty)
		return 0;
	/* Another process may have saved since we read: keep its entries. */
	if (stat(path, &st) == 0 && (!c->have_file ||
	    st.st_ino != c->fst.st_ino || st.st_dev != c->fst.st_dev ||
	    st.st_size != c->fst.st_size ||
	    st.st_mtim.tv_sec != c->fst.st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != c->fst.st_mtim.tv_nsec))
		hashcache_load(c, path);
	if (fileio_make_parent(path, 0700, err, errlen) != 0)
		return -1;
	data = hc_image(c, &size);
	rc = fileio_replace(path, data, size, 0600, true, err, errlen);
	free(data);
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
