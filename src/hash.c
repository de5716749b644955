/*
 * hash.c: streaming, parallel and cached SHA-256 of files and trees.
 *
 * How bytes reach the digest, chosen per file by measurement on page-cached
 * data (2 GiB file, SHA-NI core at ~1.75 GB/s):
 * - below SMALL_FILE, read() into a per-worker buffer: one copy is cheaper
 *   than setting up and tearing down a mapping;
 * - otherwise the whole file is mapped read-only with MADV_SEQUENTIAL and
 *   hashed in place; page faults (with fault-around) cost ~5% of the hash,
 *   a read() copy ~15%;
 * - a file of BIG_FILE or more, when a core would otherwise idle, is read by
 *   a helper thread in WINDOW blocks into a ring while this thread hashes:
 *   the hashing core then does nothing but hash;
 * - when mmap() is refused (/proc, some FUSE or network file systems) or the
 *   file shrinks under the mapping (SIGBUS, caught below), read() is used.
 *
 * Files are spread over a pool of threads, largest first so that the pool
 * finishes together.  Results are kept in a table keyed by (device, inode,
 * size, mtime ns, ctime ns): the hasher's memo for its whole life, and the
 * persistent cache between runs.  A result goes to the persistent cache only
 * when the file did not change while it was read and its timestamps are at
 * least RACY_NS older than the read: a file rewritten in place within the
 * same timestamp tick, keeping its size, would otherwise keep a stale entry
 * (git's "racily clean" problem).  The memo does trust such results for the
 * hasher's life: a hasher is a snapshot, and callers wanting a fresh look
 * at a file that changes under them make a new hasher.
 *
 * With use_cache false the cache file is neither read nor written: a run
 * that does not trust the cache does not rewrite it either, and the cost of
 * a cold run is only hashing.
 */
#include "calops.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "buf.h"
#include "hash.h"
#include "hashcache.h"

#define SMALL_FILE	(128u << 10)	/* below: read() */
#define READ_BUF	(256u << 10)	/* each worker's read() buffer */
#define WINDOW		(8u << 20)	/* hashing step and ring block */
#define RING_N		4		/* ring blocks read ahead */
#define BIG_FILE	(32u << 20)	/* worth a reader thread */
#define MAX_THREADS	256
#define MAX_WALKERS	16		/* threads listing one tree */
#define RACY_NS		1000000000LL
#define PROGRESS_NS	50000000LL	/* at most 20 progress calls a second */

enum { CACHE_NONE, CACHE_MEMO, CACHE_PERSIST };

struct hasher {
	struct hashcache	*table;
	char			*cache_path;	/* NULL: no persistent cache */
	bool			 loaded;	/* cache_path was read */
	int			 threads;
	void			(*progress)(void *, uint64_t, uint64_t);
	void			*progress_arg;
};

/* One file to hash, and what came of it. */
struct job {
	int			 dirfd;		/* AT_FDCWD or a tree's root */
	const char		*path;
	int			 oflags;	/* O_NOFOLLOW inside trees */
	uint64_t		 size;		/* from stat: sets the order */
	struct hash_result	*res;
	struct hashcache_key	 key;
	unsigned char		 md[HASHCACHE_MDLEN];
	int			 cache;		/* CACHE_* */
};

/* The jobs of one batch, shared by its workers. */
struct pool {
	struct job		**jobs;		/* largest first */
	size_t			 njobs;
	atomic_size_t		 next;
	atomic_int		 active;	/* workers still taking jobs */
	int			 threads;	/* cores we may keep busy */
	atomic_uint_fast64_t	 done;		/* bytes hashed so far */
	atomic_size_t		 finished;	/* jobs complete */
	pthread_mutex_t		 mu;		/* for cv */
	pthread_cond_t		 cv;		/* signalled when all are */
};

/* A worker's digest context and read() buffer. */
struct hashctx {
	EVP_MD_CTX		*ctx;
	unsigned char		*buf;
};

static EVP_MD *sha256;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;

static _Thread_local sigjmp_buf *volatile bus_guard;
static struct sigaction bus_old;
static pthread_mutex_t bus_lock = PTHREAD_MUTEX_INITIALIZER;

static void
sha256_fetch(void)
{
	if ((sha256 = EVP_MD_fetch(NULL, "SHA256", NULL)) == NULL)
		fatal("OpenSSL provides no SHA-256");
}

/* The SHA-256 implementation, fetched once for the process. */
static const EVP_MD *
sha256_md(void)
{
	pthread_once(&sha256_once, sha256_fetch);
	return sha256;
}

/*
 * A mapped file that shrinks under us raises SIGBUS on access: a thread
 * hashing a mapping jumps back to its guard and rereads the file with
 * read().  Any other SIGBUS gets the previous disposition back and happens
 * again, as it would have without us.
 */
static void
bus_handler(int sig, siginfo_t *si, void *uc)
{
	sigjmp_buf *jb = bus_guard;

	(void)si;
	(void)uc;
	if (jb != NULL)
		siglongjmp(*jb, 1);
	sigaction(sig, &bus_old, NULL);
}

/* Put the handler in place unless it is: checked by each hasher_new(), as
 * someone (a test harness) may have replaced it since. */
static void
bus_install(void)
{
	struct sigaction sa, cur;

	pthread_mutex_lock(&bus_lock);
	if (sigaction(SIGBUS, NULL, &cur) == 0 &&
	    (!(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != bus_handler)) {
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = bus_handler;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGBUS, &sa, &bus_old) != 0)
			fatal("cannot install a SIGBUS handler: %s",
			    strerror(errno));
	}
	pthread_mutex_unlock(&bus_lock);
}

static void
md_hex(const unsigned char *md, char hex[HASH_HEX_LEN + 1])
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < HASHCACHE_MDLEN; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 0xf];
	}
	hex[HASH_HEX_LEN] = '\0';
}

void
hash_bytes(const void *data, size_t len, char hex[HASH_HEX_LEN + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];

	if (EVP_Digest(data, len, md, NULL, sha256_md(), NULL) != 1)
		fatal("SHA-256 failed");
	md_hex(md, hex);
}

bool
hash_is_hex(const char *s)
{
	size_t i;

	for (i = 0; i < HASH_HEX_LEN; i++) {
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	}
	return s[HASH_HEX_LEN] == '\0';
}

struct hasher *
hasher_new(const struct hasher_opts *opts)
{
	struct hasher *h = xcalloc(1, sizeof *h);
	long n;

	bus_install();
	h->table = hashcache_new();
	if (opts != NULL && opts->threads > 0)
		n = opts->threads;
	else
		n = sysconf(_SC_NPROCESSORS_ONLN);
	h->threads = n < 1 ? 1 : (int)(n < MAX_THREADS ? n : MAX_THREADS);
	if (opts != NULL && opts->use_cache) {
		if (opts->cache_path != NULL)
			h->cache_path = xstrdup(opts->cache_path);
		else
			h->cache_path = hashcache_default_path();
	}
	if (opts != NULL) {
		h->progress = opts->progress;
		h->progress_arg = opts->progress_arg;
	}
	return h;
}

/* Failing to save is not reported: the cache only saves time. */
void
hasher_free(struct hasher *h)
{
	char err[256];

	if (h == NULL)
		return;
	if (h->cache_path != NULL && h->loaded)
		(void)hashcache_save(h->table, h->cache_path, err, sizeof err);
	hashcache_free(h->table);
	free(h->cache_path);
	free(h);
}

/* The table, with the cache file merged in on first use. */
static struct hashcache *
hasher_table(struct hasher *h)
{
	if (h->cache_path != NULL && !h->loaded) {
		hashcache_load(h->table, h->cache_path);
		h->loaded = true;
	}
	return h->table;
}

static int64_t
ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static void
stat_key(const struct stat *st, struct hashcache_key *k)
{
	memset(k, 0, sizeof *k);
	k->dev = (uint64_t)st->st_dev;
	k->ino = (uint64_t)st->st_ino;
	k->size = (uint64_t)st->st_size;
	k->mtime_ns = ts_ns(&st->st_mtim);
	k->ctime_ns = ts_ns(&st->st_ctim);
}

/* Whether two stat() results name the same version of the same file. */
static bool
same_version(const struct stat *a, const struct stat *b)
{
	struct hashcache_key ka, kb;

	stat_key(a, &ka);
	stat_key(b, &kb);
	return memcmp(&ka, &kb, sizeof ka) == 0;
}

/* Hash from the current offset to the end of file with read(). */
static int
hash_read(struct pool *p, struct hashctx *hc, int fd, uint64_t *bytes)
{
	ssize_t n;

	for (;;) {
		n = read(fd, hc->buf, READ_BUF);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			return 0;
		if (EVP_DigestUpdate(hc->ctx, hc->buf, (size_t)n) != 1)
			fatal("SHA-256 failed");
		*bytes += (uint64_t)n;
		atomic_fetch_add(&p->done, (uint64_t)n);
	}
}

/* Hash a mapping of the whole file; -1 when it cannot be mapped or
 * shrank while hashed (nothing is then known about the digest state). */
static int
hash_mmap(struct pool *p, struct hashctx *hc, int fd, size_t size)
{
	sigjmp_buf jb;
	unsigned char *base;
	size_t off, n;

	base = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return -1;
	(void)madvise(base, size, MADV_SEQUENTIAL);
	if (sigsetjmp(jb, 0) != 0) {
		bus_guard = NULL;
		munmap(base, size);
		return -1;
	}
	bus_guard = &jb;
	for (off = 0; off < size; off += n) {
		n = size - off < WINDOW ? size - off : WINDOW;
		if (EVP_DigestUpdate(hc->ctx, base + off, n) != 1)
			fatal("SHA-256 failed");
		atomic_fetch_add(&p->done, n);
	}
	bus_guard = NULL;
	munmap(base, size);
	return 0;
}

/* Blocks read ahead by a helper thread, hashed by the caller. */
struct ring {
	int		 fd;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	unsigned char	*buf[RING_N];
	size_t		 len[RING_N];
	uint64_t	 head;		/* blocks filled */
	uint64_t	 tail;		/* blocks hashed */
	bool		 eof;		/* no block after head */
	int		 err;
};

/* Fill up to WINDOW bytes; short only at end of file. */
static ssize_t
read_block(int fd, unsigned char *b)
{
	size_t got = 0;
	ssize_t n;

	while (got < WINDOW) {
		n = read(fd, b + got, WINDOW - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* The helper thread: fill free blocks until end of file (the consumer
 * always drains the ring to the end). */
static void *
ring_reader(void *arg)
{
	struct ring *r = arg;
	unsigned char *b;
	ssize_t n;
	bool end;
	int err;

	for (;;) {
		pthread_mutex_lock(&r->mu);
		while (r->head - r->tail == RING_N)
			pthread_cond_wait(&r->cv, &r->mu);
		b = r->buf[r->head % RING_N];
		pthread_mutex_unlock(&r->mu);
		n = read_block(r->fd, b);
		err = n < 0 ? errno : 0;
		pthread_mutex_lock(&r->mu);
		r->err = err;
		if (n > 0)
			r->len[r->head++ % RING_N] = (size_t)n;
		end = r->eof = n < (ssize_t)WINDOW;
		pthread_cond_signal(&r->cv);
		pthread_mutex_unlock(&r->mu);
		if (end)
			return NULL;
	}
}

/* Hash the blocks as the reader fills them; returns 0 or an errno. */
static int
ring_consume(struct pool *p, struct hashctx *hc, struct ring *r,
    uint64_t *bytes)
{
	size_t i;

	for (;;) {
		pthread_mutex_lock(&r->mu);
		while (r->head == r->tail && !r->eof)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->head == r->tail) {
			pthread_mutex_unlock(&r->mu);
			return r->err;
		}
		i = r->tail % RING_N;
		pthread_mutex_unlock(&r->mu);
		if (EVP_DigestUpdate(hc->ctx, r->buf[i], r->len[i]) != 1)
			fatal("SHA-256 failed");
		*bytes += r->len[i];
		atomic_fetch_add(&p->done, r->len[i]);
		pthread_mutex_lock(&r->mu);
		r->tail++;
		pthread_cond_signal(&r->cv);
		pthread_mutex_unlock(&r->mu);
	}
}

/* Hash a big file with a reader thread; -1 when none can be started. */
static int
hash_ring(struct pool *p, struct hashctx *hc, int fd, uint64_t *bytes)
{
	struct ring r;
	pthread_t tid;
	int i, err;

	memset(&r, 0, sizeof r);
	r.fd = fd;
	pthread_mutex_init(&r.mu, NULL);
	pthread_cond_init(&r.cv, NULL);
	for (i = 0; i < RING_N; i++)
		r.buf[i] = xmalloc(WINDOW);
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	if (pthread_create(&tid, NULL, ring_reader, &r) != 0)
		err = -1;
	else {
		err = ring_consume(p, hc, &r, bytes);
		pthread_join(tid, NULL);
	}
	for (i = 0; i < RING_N; i++)
		free(r.buf[i]);
	pthread_cond_destroy(&r.cv);
	pthread_mutex_destroy(&r.mu);
	return err;
}

/* Hash an open regular file into md, choosing how (see the top of the
 * file); returns 0 or an errno. */
static int
hash_fd(struct pool *p, struct hashctx *hc, int fd, uint64_t size,
    unsigned char *md, uint64_t *bytes)
{
	int err = -1;
	bool tried = false;

	*bytes = 0;
	if (EVP_DigestInit_ex(hc->ctx, sha256_md(), NULL) != 1)
		fatal("SHA-256 failed");
	if (size >= BIG_FILE && atomic_load(&p->active) < p->threads) {
		err = hash_ring(p, hc, fd, bytes);
		tried = true;
	}
	if (err == -1 && size >= SMALL_FILE && size <= SIZE_MAX) {
		if ((err = hash_mmap(p, hc, fd, (size_t)size)) == 0)
			*bytes = size;
		tried = true;
	}
	if (err == -1 && tried) {
		/* Start again: a mapping may have been hashed in part. */
		if (lseek(fd, 0, SEEK_SET) != 0)
			return errno;
		if (EVP_DigestInit_ex(hc->ctx, sha256_md(), NULL) != 1)
			fatal("SHA-256 failed");
		*bytes = 0;
	}
	if (err == -1)
		err = hash_read(p, hc, fd, bytes);
	if (err == 0 && EVP_DigestFinal_ex(hc->ctx, md, NULL) != 1)
		fatal("SHA-256 failed");
	return err;
}

static void
job_fail(struct job *j, int err)
{
	j->res->hex[0] = '\0';
	j->res->size = 0;
	j->res->err = err;
	j->cache = CACHE_NONE;
}

/* Open, hash and judge whether the result may be cached. */
static void
job_run(struct pool *p, struct job *j, struct hashctx *hc)
{
	struct stat before, after;
	struct timespec t0;
	uint64_t bytes = 0;
	int fd, err;

	clock_gettime(CLOCK_REALTIME, &t0);
	fd = openat(j->dirfd, j->path,
	    O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | j->oflags);
	if (fd == -1) {
		job_fail(j, errno);
		return;
	}
	if (fstat(fd, &before) != 0)
		err = errno;
	else if (!S_ISREG(before.st_mode))
		err = S_ISDIR(before.st_mode) ? EISDIR : EINVAL;
	else if ((err = hash_fd(p, hc, fd, (uint64_t)before.st_size, j->md,
	    &bytes)) == 0 && fstat(fd, &after) != 0)
		err = errno;
	close(fd);
	if (err != 0) {
		job_fail(j, err);
		return;
	}
	stat_key(&before, &j->key);
	md_hex(j->md, j->res->hex);
	j->res->size = bytes;
	j->res->err = 0;
	if (!same_version(&before, &after) || bytes != (uint64_t)before.st_size)
		j->cache = CACHE_NONE;
	else if (j->key.mtime_ns > ts_ns(&t0) - RACY_NS ||
	    j->key.ctime_ns > ts_ns(&t0) - RACY_NS)
		j->cache = CACHE_MEMO;
	else
		j->cache = CACHE_PERSIST;
}

/* A pool thread: take the next job until none is left. */
static void *
pool_worker(void *arg)
{
	struct pool *p = arg;
	struct hashctx hc;
	size_t i;

	if ((hc.ctx = EVP_MD_CTX_new()) == NULL)
		fatal("out of memory allocating a digest context");
	hc.buf = xmalloc(READ_BUF);
	while ((i = atomic_fetch_add(&p->next, 1)) < p->njobs) {
		job_run(p, p->jobs[i], &hc);
		if (atomic_fetch_add(&p->finished, 1) + 1 == p->njobs) {
			pthread_mutex_lock(&p->mu);
			pthread_cond_signal(&p->cv);
			pthread_mutex_unlock(&p->mu);
		}
	}
	atomic_fetch_sub(&p->active, 1);
	free(hc.buf);
	EVP_MD_CTX_free(hc.ctx);
	return NULL;
}

/* Largest first: the pool's threads then finish at about the same time. */
static int
job_cmp_size(const void *a, const void *b)
{
	const struct job *x = *(const struct job *const *)a;
	const struct job *y = *(const struct job *const *)b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return 0;
}

/* Tell the caller how far we are (a file may grow: never past total). */
static void
report(struct hasher *h, uint64_t done, uint64_t total)
{
	if (h->progress != NULL)
		h->progress(h->progress_arg,
		    total != 0 && done > total ? total : done, total);
}

/* Wait for the workers, reporting progress from the caller's thread. */
static void
pool_wait(struct hasher *h, struct pool *p, uint64_t done0, uint64_t total)
{
	struct timespec now, until;
	int64_t last = 0;

	pthread_mutex_lock(&p->mu);
	while (atomic_load(&p->finished) < p->njobs) {
		if (h->progress == NULL) {
			pthread_cond_wait(&p->cv, &p->mu);
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += PROGRESS_NS;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->cv, &p->mu, &until);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (ts_ns(&now) - last < PROGRESS_NS)
			continue;
		last = ts_ns(&now);
		pthread_mutex_unlock(&p->mu);
		report(h, done0 + atomic_load(&p->done), total);
		pthread_mutex_lock(&p->mu);
	}
	pthread_mutex_unlock(&p->mu);
}

/* Hash the jobs on up to h->threads threads, largest file first. */
static void
pool_run(struct hasher *h, struct job **jobs, size_t n, uint64_t done0,
    uint64_t total)
{
	struct pool p;
	pthread_t *tids;
	size_t i, want, started = 0;

	memset(&p, 0, sizeof p);
	qsort(jobs, n, sizeof *jobs, job_cmp_size);
	p.jobs = jobs;
	p.njobs = n;
	p.threads = h->threads;
	want = n < (size_t)h->threads ? n : (size_t)h->threads;
	atomic_init(&p.next, 0);
	atomic_init(&p.active, (int)want);
	atomic_init(&p.done, 0);
	atomic_init(&p.finished, 0);
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	tids = xcalloc(want, sizeof *tids);
	if (want > 1 || h->progress != NULL) {
		for (; started < want; started++) {
			if (pthread_create(&tids[started], NULL, pool_worker,
			    &p) != 0)
				break;
		}
	}
	atomic_fetch_sub(&p.active, (int)(want - started));
	if (started == 0) {
		atomic_fetch_add(&p.active, 1);
		pool_worker(&p);
	}
	pool_wait(h, &p, done0, total);
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	report(h, done0 + atomic_load(&p.done), total);
	free(tids);
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
}

/* Answer a job from the memo or the cache; true on a hit. */
static bool
job_lookup(struct hasher *h, struct job *j, const struct stat *st)
{
	unsigned char md[HASHCACHE_MDLEN];

	j->size = (uint64_t)st->st_size;
	stat_key(st, &j->key);
	if (!hashcache_get(hasher_table(h), &j->key, md))
		return false;
	md_hex(md, j->res->hex);
	j->res->size = (uint64_t)st->st_size;
	j->res->err = 0;
	return true;
}

/* Hash the jobs that missed, then remember what they gave. */
static void
jobs_finish(struct hasher *h, struct job **todo, size_t n, uint64_t done0,
    uint64_t total)
{
	size_t i;

	if (n == 0) {
		report(h, done0, total);
		return;
	}
	pool_run(h, todo, n, done0, total);
	for (i = 0; i < n; i++) {
		if (todo[i]->res->err != 0 || todo[i]->cache == CACHE_NONE)
			continue;
		hashcache_put(h->table, &todo[i]->key, todo[i]->md,
		    todo[i]->cache == CACHE_PERSIST && h->cache_path != NULL);
	}
}

size_t
hasher_files(struct hasher *h, size_t n, const char *const *paths,
    struct hash_result *res)
{
	struct job *jobs = xcalloc(n, sizeof *jobs), **todo;
	struct stat st;
	uint64_t done = 0, total = 0;
	size_t i, m = 0, failed = 0;

	todo = xcalloc(n, sizeof *todo);
	for (i = 0; i < n; i++) {
		jobs[i].dirfd = AT_FDCWD;
		jobs[i].path = paths[i];
		jobs[i].res = &res[i];
		memset(&res[i], 0, sizeof res[i]);
		if (stat(paths[i], &st) != 0)
			job_fail(&jobs[i], errno);
		else if (!S_ISREG(st.st_mode))
			job_fail(&jobs[i],
			    S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
		else {
			total += (uint64_t)st.st_size;
			if (job_lookup(h, &jobs[i], &st))
				done += (uint64_t)st.st_size;
			else
				todo[m++] = &jobs[i];
		}
	}
	jobs_finish(h, todo, m, done, total);
	for (i = 0; i < n; i++)
		failed += res[i].err != 0;
	free(todo);
	free(jobs);
	return failed;
}

int
hasher_file(struct hasher *h, const char *path, struct hash_result *res)
{
	return hasher_files(h, 1, &path, res) == 0 ? 0 : -1;
}

/*
 * Trees are listed by a few threads at once (the stat() of every file is
 * most of the cost of a warm check): a shared stack of directories still to
 * list, each thread keeping what it finds; the findings are merged and
 * sorted afterwards, so the result does not depend on the scheduling.
 */

/* A regular file met by the walk. */
struct walk_file {
	char		*path;		/* relative to the root */
	struct stat	 st;
};

/* What one walking thread found. */
struct walker {
	struct walk		*w;
	struct walk_file	*files;
	size_t			 nfiles;
	size_t			 filealloc;
	struct tree_link	*links;
	size_t			 nlinks;
	size_t			 linkalloc;
	char			*errpath;	/* the failure first in order */
	const char		*errwhat;
	int			 err;
};

/* The state shared by the threads walking one tree. */
struct walk {
	const char		*dir;		/* as given by the caller */
	char			*within;	/* links must stay under it */
	int			 rootfd;
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;
	char			**stack;	/* directories to list */
	size_t			 nstack;
	size_t			 stackalloc;
	size_t			 pending;	/* stacked or being listed */
};

/* dir/rel, or dir alone when rel is empty; a new string. */
static char *
path_join(const char *dir, const char *rel)
{
	size_t len = strlen(dir);

	if (rel[0] == '\0')
		return xstrdup(dir);
	if (len > 0 && dir[len - 1] == '/')
		return xasprintf("%s%s", dir, rel);
	return xasprintf("%s/%s", dir, rel);
}

/* Keep the failure whose path sorts first, so the report is stable. */
static void
walker_error(struct walker *k, const char *what, const char *rel, int err)
{
	if (k->errpath != NULL && strcmp(rel, k->errpath) >= 0)
		return;
	free(k->errpath);
	k->errpath = xstrdup(rel);
	k->errwhat = what;
	k->err = err;
}

/* Whether the real path `real` is dir or lies below it. */
static bool
path_under(const char *real, const char *dir)
{
	size_t len = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(real, dir, len) == 0 &&
	    (real[len] == '\0' || real[len] == '/');
}

/* Record a symbolic link and whether it leads outside w->within; one that
 * dangles or loops cannot be shown to stay inside, so it counts as out. */
static void
walker_link(struct walker *k, int dfd, const char *name, char *rel)
{
	struct tree_link *l;
	char target[PATH_MAX + 1], *full, *real;
	ssize_t n;

	if ((n = readlinkat(dfd, name, target, sizeof target - 1)) < 0)
		n = 0;
	target[n] = '\0';
	full = path_join(k->w->dir, rel);
	real = realpath(full, NULL);
	if (k->nlinks == k->linkalloc) {
		k->linkalloc = k->linkalloc == 0 ? 16 : k->linkalloc * 2;
		k->links = xreallocarray(k->links, k->linkalloc, sizeof *l);
	}
	l = &k->links[k->nlinks++];
	l->path = rel;
	l->target = xstrdup(target);
	l->outside = real == NULL || !path_under(real, k->w->within);
	free(real);
	free(full);
}

static void
walker_file(struct walker *k, char *rel, const struct stat *st)
{
	if (k->nfiles == k->filealloc) {
		k->filealloc = k->filealloc == 0 ? 256 : k->filealloc * 2;
		k->files = xreallocarray(k->files, k->filealloc,
		    sizeof *k->files);
	}
	k->files[k->nfiles].path = rel;
	k->files[k->nfiles++].st = *st;
}

/* Stack a directory to be listed by whichever thread is free. */
static void
walk_push(struct walk *w, char *rel)
{
	pthread_mutex_lock(&w->mu);
	if (w->nstack == w->stackalloc) {
		w->stackalloc = w->stackalloc == 0 ? 64 : w->stackalloc * 2;
		w->stack = xreallocarray(w->stack, w->stackalloc,
		    sizeof *w->stack);
	}
	w->stack[w->nstack++] = rel;
	w->pending++;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

/* Sort one directory entry into files, links and subdirectories, like
 * find -type f: nothing else counts and no link is followed. */
static void
walker_entry(struct walker *k, int dfd, const char *name, unsigned char type,
    char *rel)
{
	struct stat st;

	if (type == DT_UNKNOWN || type == DT_REG) {
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			walker_error(k, "read", rel, errno);
			free(rel);
			return;
		}
		type = IFTODT(st.st_mode);
	}
	if (type == DT_REG)
		walker_file(k, rel, &st);
	else if (type == DT_LNK)
		walker_link(k, dfd, name, rel);
	else if (type == DT_DIR)
		walk_push(k->w, rel);
	else
		free(rel);
}

/* List one directory, relative to the root. */
static void
walker_dir(struct walker *k, const char *rel)
{
	struct dirent *de;
	DIR *d;
	int fd;

	fd = openat(k->w->rootfd, rel[0] == '\0' ? "." : rel,
	    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1 || (d = fdopendir(fd)) == NULL) {
		walker_error(k, "open", rel, errno);
		if (fd != -1)
			close(fd);
		return;
	}
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL)
			break;
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		walker_entry(k, dirfd(d), de->d_name, de->d_type,
		    rel[0] == '\0' ? xstrdup(de->d_name) :
		    xasprintf("%s/%s", rel, de->d_name));
	}
	if (errno != 0)
		walker_error(k, "list", rel, errno);
	closedir(d);
}

/* A walking thread: list directories until none is left or pending. */
static void *
walker_run(void *arg)
{
	struct walker *k = arg;
	struct walk *w = k->w;
	char *rel;

	for (;;) {
		pthread_mutex_lock(&w->mu);
		while (w->nstack == 0 && w->pending > 0)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->nstack == 0) {
			pthread_mutex_unlock(&w->mu);
			return NULL;
		}
		rel = w->stack[--w->nstack];
		pthread_mutex_unlock(&w->mu);
		walker_dir(k, rel);
		free(rel);
		pthread_mutex_lock(&w->mu);
		if (--w->pending == 0)
			pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
	}
}

/* Walk from the root on up to n threads (the caller's among them). */
static void
walk_run(struct walk *w, struct walker *ks, size_t n)
{
	pthread_t *tids = xcalloc(n, sizeof *tids);
	size_t i, started = 0;

	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	walk_push(w, xstrdup(""));
	for (i = 0; i < n; i++)
		ks[i].w = w;
	for (i = 1; i < n; i++) {
		if (pthread_create(&tids[i], NULL, walker_run, &ks[i]) != 0)
			break;
		started++;
	}
	walker_run(&ks[0]);
	for (i = 1; i <= started; i++)
		pthread_join(tids[i], NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w->stack);
	free(tids);
}

static int
walk_file_cmp(const void *a, const void *b)
{
	const struct walk_file *x = a, *y = b;

	return strcmp(x->path, y->path);
}

static int
tree_link_cmp(const void *a, const void *b)
{
	const struct tree_link *x = a, *y = b;

	return strcmp(x->path, y->path);
}

/* Merge what the walkers found into one sorted list of files (returned)
 * and t->links; report the first failure in path order. */
static struct walk_file *
walk_merge(struct walk *w, struct walker *ks, size_t n, struct tree *t,
    size_t *nfiles)
{
	struct walk_file *files;
	struct walker *bad = NULL;
	size_t i, nf = 0, nl = 0;
	char *full;

	for (i = 0; i < n; i++) {
		nf += ks[i].nfiles;
		nl += ks[i].nlinks;
		if (ks[i].errpath != NULL && (bad == NULL ||
		    strcmp(ks[i].errpath, bad->errpath) < 0))
			bad = &ks[i];
	}
	files = xcalloc(nf, sizeof *files);
	t->links = xcalloc(nl, sizeof *t->links);
	for (i = 0, nf = 0; i < n; i++) {
		if (ks[i].nfiles != 0)
			memcpy(files + nf, ks[i].files,
			    ks[i].nfiles * sizeof *files);
		nf += ks[i].nfiles;
		if (ks[i].nlinks != 0)
			memcpy(t->links + t->nlinks, ks[i].links,
			    ks[i].nlinks * sizeof *t->links);
		t->nlinks += ks[i].nlinks;
	}
	qsort(files, nf, sizeof *files, walk_file_cmp);
	qsort(t->links, t->nlinks, sizeof *t->links, tree_link_cmp);
	if (bad != NULL) {
		full = path_join(w->dir, bad->errpath);
		errbuf_set(t->err, sizeof t->err, "cannot %s '%s': %s",
		    bad->errwhat, full, strerror(bad->err));
		free(full);
	}
	*nfiles = nf;
	return files;
}

/* The tree hash: SHA-256 of the canonical listing, fed in large pieces. */
static void
tree_digest(struct tree *t)
{
	EVP_MD_CTX *ctx;
	unsigned char md[EVP_MAX_MD_SIZE];
	struct buf b;
	size_t i;

	if ((ctx = EVP_MD_CTX_new()) == NULL)
		fatal("out of memory allocating a digest context");
	if (EVP_DigestInit_ex(ctx, sha256_md(), NULL) != 1)
		fatal("SHA-256 failed");
	buf_init(&b, 0);
	for (i = 0; i < t->nfiles; i++) {
		if (buf_add(&b, t->files[i].hash.hex, HASH_HEX_LEN) != 0 ||
		    buf_add(&b, "  ", 2) != 0 ||
		    buf_adds(&b, t->files[i].path) != 0 ||
		    buf_addc(&b, '\n') != 0)
			fatal("tree listing too long");
		if (b.len < (64u << 10) && i + 1 < t->nfiles)
			continue;
		if (EVP_DigestUpdate(ctx, b.data, b.len) != 1)
			fatal("SHA-256 failed");
		buf_reset(&b);
	}
	if (EVP_DigestFinal_ex(ctx, md, NULL) != 1)
		fatal("SHA-256 failed");
	buf_release(&b);
	EVP_MD_CTX_free(ctx);
	md_hex(md, t->hex);
}

/* Hash the sorted files relative to the open root; -1 when one fails. */
static int
tree_hash_files(struct hasher *h, struct walk *w, struct walk_file *files,
    struct tree *t)
{
	struct job *jobs, **todo;
	uint64_t done = 0, total = 0;
	size_t i, m = 0;
	char *full;
	int rc = 0;

	jobs = xcalloc(t->nfiles, sizeof *jobs);
	todo = xcalloc(t->nfiles, sizeof *todo);
	for (i = 0; i < t->nfiles; i++) {
		t->files[i].path = files[i].path;
		jobs[i].dirfd = w->rootfd;
		jobs[i].path = t->files[i].path;
		jobs[i].oflags = O_NOFOLLOW;
		jobs[i].res = &t->files[i].hash;
		total += (uint64_t)files[i].st.st_size;
		if (job_lookup(h, &jobs[i], &files[i].st))
			done += (uint64_t)files[i].st.st_size;
		else
			todo[m++] = &jobs[i];
	}
	jobs_finish(h, todo, m, done, total);
	for (i = 0; i < t->nfiles && rc == 0; i++) {
		if (t->files[i].hash.err == 0)
			continue;
		rc = -1;
		if (t->err[0] != '\0')
			break;
		full = path_join(w->dir, t->files[i].path);
		errbuf_set(t->err, sizeof t->err, "cannot read '%s': %s",
		    full, strerror(t->files[i].hash.err));
		free(full);
	}
	free(todo);
	free(jobs);
	return rc;
}

/* Open the root and settle `within`; -1 with t->err set. */
static int
walk_open(struct walk *w, const char *dir, const char *within,
    struct tree *t)
{
	size_t len;

	memset(w, 0, sizeof *w);
	w->dir = dir;
	if ((w->rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    (within == NULL && (w->within = realpath(dir, NULL)) == NULL)) {
		errbuf_set(t->err, sizeof t->err, "cannot open '%s': %s", dir,
		    strerror(errno));
		if (w->rootfd != -1)
			close(w->rootfd);
		return -1;
	}
	if (within != NULL)
		w->within = xstrdup(within);
	len = strlen(w->within);
	while (len > 1 && w->within[len - 1] == '/')
		w->within[--len] = '\0';
	return 0;
}

int
hasher_tree(struct hasher *h, const char *dir, const char *within,
    struct tree *t)
{
	struct walk w;
	struct walker *ks;
	struct walk_file *files;
	size_t i, n;
	int rc;

	n = h->threads < MAX_WALKERS ? (size_t)h->threads : MAX_WALKERS;
	memset(t, 0, sizeof *t);
	if (walk_open(&w, dir, within, t) != 0)
		return -1;
	ks = xcalloc(n, sizeof *ks);
	walk_run(&w, ks, n);
	files = walk_merge(&w, ks, n, t, &t->nfiles);
	for (i = 0; i < n; i++) {
		free(ks[i].files);
		free(ks[i].links);
		free(ks[i].errpath);
	}
	free(ks);
	t->files = xcalloc(t->nfiles, sizeof *t->files);
	rc = tree_hash_files(h, &w, files, t);
	if (t->err[0] != '\0')
		rc = -1;
	if (rc == 0)
		tree_digest(t);
	close(w.rootfd);
	free(w.within);
	free(files);
	return rc;
}

void
tree_release(struct tree *t)
{
	size_t i;

	for (i = 0; i < t->nfiles; i++)
		free(t->files[i].path);
	for (i = 0; i < t->nlinks; i++) {
		free(t->links[i].path);
		free(t->links[i].target);
	}
	free(t->files);
	free(t->links);
	memset(t, 0, sizeof *t);
}
