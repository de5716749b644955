/*
 * hash.c: streaming, parallel and cached SHA-256 of files and trees.
 *
 * How bytes reach the digest, chosen by measurement (tests/bench/
 * bench_hash.sh and bench_release.sh, on a 2-core VM whose SHA-NI core
 * hashes ~1.7 GB/s): read() into a per-worker buffer of READ_BUF, small
 * enough to stay in the core's cache while it is hashed, on the thread
 * that hashes.  Two ways to spare the hashing core the copy were tried and
 * dropped, as each cost more than the copy:
 * - hashing a mapping in place: its loads miss the cache (and, in a VM,
 *   the TLB) on every line of page cache.  A release verify of 2077 MiB in
 *   2500 files took 1.07 s warm and 1.40 s cold, against read()'s 0.84 s
 *   and 1.04 s;
 * - a second thread reading a big file into a ring of blocks while the
 *   first hashes: every block then crosses from one core's cache to the
 *   other's.  A 2 GiB file took 1.85 s warm, 1.97 s cold, against 1.42 s
 *   and 1.56 s (openssl dgst: 1.49 s and 1.62 s).
 * The kernel's readahead (POSIX_FADV_SEQUENTIAL) keeps the disk busy while
 * a thread hashes, and across files:
 * - from a cold disk, one file per thread keeps too few reads in flight: a
 *   virtual disk here read 945 MiB/s with 2 readers and 1318 with 32.  So
 *   the files up to AHEAD bytes past the one a worker takes are announced
 *   with POSIX_FADV_WILLNEED, which queues their reads and returns: by the
 *   time a worker opens one it is (mostly) in the page cache.  Only once a
 *   file's first page was found not cached (preadv2 RWF_NOWAIT): announcing
 *   files already in the cache cost a warm run 5%.
 *
 * Whatever the file's size, a hashing thread holds READ_BUF of it: a 2 GiB
 * file once mapped whole was 2 GiB of RSS against a container's memory
 * limit (tests/hash/memory_test.sh measures the peak).
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

#include <sys/stat.h>
#include <sys/uio.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "base/buf.h"
#include "ws/hash_int.h"
#include "ws/workspace.h"

#define READ_BUF	(256u << 10)	/* each worker's read() buffer */
#define AHEAD		(64u << 20)	/* asked of the disk ahead of hashing */
#define AHEAD_FILES	256		/* and at most so many files */
#define MAX_THREADS	256
#define RACY_NS		1000000000LL
#define PROGRESS_NS	50000000LL	/* at most 20 progress calls a second */

/* The jobs of one batch, shared by its workers. */
struct pool {
	struct job		**jobs;		/* largest first */
	size_t			 njobs;
	atomic_size_t		 next;
	/* Readahead: jobs[0..asked) were announced to the kernel; cum[i] is
	 * the bytes of jobs[0..i). */
	atomic_size_t		 asked;
	uint64_t		*cum;
	atomic_bool		 cold;	/* a file was not in the cache */
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


static void
sha256_fetch(void)
{
	if ((sha256 = EVP_MD_fetch(NULL, "SHA256", NULL)) == NULL)
		fatal("OpenSSL provides no SHA-256");
}

/* The SHA-256 implementation, fetched once for the process. */
const EVP_MD *
hash_sha256_md(void)
{
	pthread_once(&sha256_once, sha256_fetch);
	return sha256;
}

void
hash_md_hex(const unsigned char *md, char hex[HASH_HEX_LEN + 1])
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

	if (EVP_Digest(data, len, md, NULL, hash_sha256_md(), NULL) != 1)
		fatal("SHA-256 failed");
	hash_md_hex(md, hex);
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

const char *
hash_file_kind(mode_t mode)
{
	static const struct {
		mode_t		 type;
		const char	*name;
	} kinds[] = {
		{ S_IFREG, "a regular file" }, { S_IFDIR, "a folder" },
		{ S_IFLNK, "a symbolic link" }, { S_IFIFO, "a FIFO" },
		{ S_IFSOCK, "a socket" }, { S_IFCHR, "a character device" },
		{ S_IFBLK, "a block device" },
	};
	size_t i;

	for (i = 0; i < nitems(kinds); i++)
		if ((mode & S_IFMT) == kinds[i].type)
			return kinds[i].name;
	return "an unknown kind of file";
}

struct hasher *
hash_new(const struct hasher_opts *opts)
{
	struct hasher *h = xcalloc(1, sizeof *h);
	long n;

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
hash_free(struct hasher *h)
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

/* The table, with the cache file merged in on first use.  A cache not
 * used for what it is (refused, forged, damaged) is said, once: a check
 * that then hashes every byte is slower, and the user may fix it. */
static struct hashcache *
hasher_table(struct hasher *h)
{
	const char *why;

	if (h->cache_path != NULL && !h->loaded) {
		hashcache_load(h->table, h->cache_path);
		h->loaded = true;
		if (*(why = hashcache_problem(h->table)) != '\0')
			fprintf(stderr, "calops: %s\n", why);
	}
	return h->table;
}

static int64_t
ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

void
hash_stat_key(const struct stat *st, struct hashcache_key *k)
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

	hash_stat_key(a, &ka);
	hash_stat_key(b, &kb);
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

/* Hash an open regular file into md (see the top of the file for how);
 * returns 0 or an errno. */
static int
hash_fd(struct pool *p, struct hashctx *hc, int fd, uint64_t size,
    unsigned char *md, uint64_t *bytes)
{
	int err;

	*bytes = 0;
	if (EVP_DigestInit_ex(hc->ctx, hash_sha256_md(), NULL) != 1)
		fatal("SHA-256 failed");
	/* A bigger readahead window; a small file is read in one go. */
	if (size > READ_BUF)
		(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	err = hash_read(p, hc, fd, bytes);
	if (err == 0 && EVP_DigestFinal_ex(hc->ctx, md, NULL) != 1)
		fatal("SHA-256 failed");
	return err;
}

/* Open a job's file as its caller named it: a path as given, a tree's
 * file beneath the tree with no link followed, or a workspace's file
 * beneath the workspace. */
static int
job_open(const struct job *j)
{
	int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;

	if (j->ws != NULL)
		return workspace_openat(j->ws, j->path, flags);
	if (j->nolinks)
		return workspace_openat_nolinks(j->dirfd, j->path, flags);
	return openat(j->dirfd, j->path, flags);
}

static void
job_fail(struct job *j, int err)
{
	j->res->hex[0] = '\0';
	j->res->size = 0;
	j->res->err = err;
	j->cache = CACHE_NONE;
}

/*
 * Ask the kernel to start reading the jobs that follow job i, up to AHEAD
 * bytes or AHEAD_FILES files past it, that no worker announced yet.  A
 * worker claims a range with one compare-and-swap, so each file is
 * announced once, and never one a worker has taken (those up to i).
 */
static void
read_ahead(struct pool *p, size_t i)
{
	size_t from = atomic_load(&p->asked), to = i + 1;
	const struct job *j;
	int fd;

	while (to < p->njobs && to - i <= AHEAD_FILES &&
	    p->cum[to + 1] - p->cum[i + 1] <= AHEAD)
		to++;
	do {
		if (from >= to)
			return;
	} while (!atomic_compare_exchange_weak(&p->asked, &from, to));
	/* What was taken meanwhile is being read already. */
	if (from < i + 1)
		from = i + 1;
	for (; from < to; from++) {
		j = p->jobs[from];
		if ((fd = job_open(j)) == -1)
			continue;	/* its job will say why */
		(void)posix_fadvise(fd, 0, (off_t)j->size,
		    POSIX_FADV_WILLNEED);
		close(fd);
	}
}

/* Whether the start of an open file is not in the page cache: a read
 * that may not wait says so (a kernel that cannot tell: as if not). */
static bool
uncached(int fd)
{
	unsigned char c;
	struct iovec iov = { &c, 1 };

	return preadv2(fd, &iov, 1, 0, RWF_NOWAIT) == -1 &&
	    errno != EINTR;
}

/* Open, hash and judge whether the result may be cached. */
static void
job_run(struct pool *p, size_t i, struct hashctx *hc)
{
	struct job *j = p->jobs[i];
	struct stat before, after;
	struct timespec t0;
	uint64_t bytes = 0;
	int fd, err;

	clock_gettime(CLOCK_REALTIME, &t0);
	if ((fd = job_open(j)) == -1) {
		job_fail(j, errno);
		return;
	}
	if (fstat(fd, &before) != 0)
		err = errno;
	else if (!S_ISREG(before.st_mode))
		err = S_ISDIR(before.st_mode) ? EISDIR : EINVAL;
	else {
		/* From a cold disk, the files that follow are asked for. */
		if (!atomic_load(&p->cold) && uncached(fd))
			atomic_store(&p->cold, true);
		if (atomic_load(&p->cold))
			read_ahead(p, i);
		if ((err = hash_fd(p, hc, fd, (uint64_t)before.st_size,
		    j->md, &bytes)) == 0 && fstat(fd, &after) != 0)
			err = errno;
	}
	close(fd);
	if (err != 0) {
		job_fail(j, err);
		return;
	}
	hash_stat_key(&before, &j->key);
	hash_md_hex(j->md, j->res->hex);
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
		job_run(p, i, &hc);
		if (atomic_fetch_add(&p->finished, 1) + 1 == p->njobs) {
			pthread_mutex_lock(&p->mu);
			pthread_cond_signal(&p->cv);
			pthread_mutex_unlock(&p->mu);
		}
	}
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
	p.cum = xcalloc(n + 1, sizeof *p.cum);
	for (i = 0; i < n; i++)
		p.cum[i + 1] = p.cum[i] + jobs[i]->size;
	/* The first job of each worker is read at once: ask from the next. */
	atomic_init(&p.asked, 1);
	atomic_init(&p.cold, false);
	want = n < (size_t)h->threads ? n : (size_t)h->threads;
	atomic_init(&p.next, 0);
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
	if (started == 0)
		pool_worker(&p);
	pool_wait(h, &p, done0, total);
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	report(h, done0 + atomic_load(&p.done), total);
	free(tids);
	free(p.cum);
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
}

/* Answer from the memo or the cache; true on a hit. */
bool
hash_lookup(struct hasher *h, const struct hashcache_key *k,
    struct hash_result *res)
{
	unsigned char md[HASHCACHE_MDLEN];

	if (!hashcache_get(hasher_table(h), k, md))
		return false;
	hash_md_hex(md, res->hex);
	res->size = k->size;
	res->err = 0;
	return true;
}

/* Hash the jobs that missed, then remember what they gave. */
void
hash_run_jobs(struct hasher *h, struct job **todo, size_t n, uint64_t done0,
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

/* What a job's file is, for its cache key: a workspace's file as opened
 * beneath the workspace (O_PATH), the others as stat() finds them; 0 or
 * an errno. */
static int
job_stat(const struct job *j, struct stat *st)
{
	int fd, err = 0;

	if (j->ws == NULL)
		return stat(j->path, st) == 0 ? 0 : errno;
	if ((fd = workspace_openat(j->ws, j->path, O_PATH)) == -1)
		return errno;
	if (fstat(fd, st) != 0)
		err = errno;
	close(fd);
	return err;
}

/* hash_files(), of a workspace's files when ws is not NULL. */
static size_t
hash_batch(struct hasher *h, const struct workspace *ws, size_t n,
    const char *const *paths, struct hash_result *res)
{
	struct job *jobs = xcalloc(n, sizeof *jobs), **todo;
	struct hashcache_key k;
	struct stat st;
	uint64_t done = 0, total = 0;
	size_t i, m = 0, failed = 0;
	int err;

	todo = xcalloc(n, sizeof *todo);
	for (i = 0; i < n; i++) {
		jobs[i].dirfd = AT_FDCWD;
		jobs[i].path = paths[i];
		jobs[i].ws = ws;
		jobs[i].res = &res[i];
		memset(&res[i], 0, sizeof res[i]);
		if ((err = job_stat(&jobs[i], &st)) != 0)
			job_fail(&jobs[i], err);
		else if (!S_ISREG(st.st_mode))
			job_fail(&jobs[i],
			    S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
		else {
			hash_stat_key(&st, &k);
			total += k.size;
			jobs[i].size = k.size;
			if (hash_lookup(h, &k, &res[i]))
				done += k.size;
			else
				todo[m++] = &jobs[i];
		}
	}
	hash_run_jobs(h, todo, m, done, total);
	for (i = 0; i < n; i++)
		failed += res[i].err != 0;
	free(todo);
	free(jobs);
	return failed;
}

size_t
hash_files(struct hasher *h, size_t n, const char *const *paths,
    struct hash_result *res)
{
	return hash_batch(h, NULL, n, paths, res);
}

size_t
hash_ws_files(struct hasher *h, const struct workspace *ws, size_t n,
    const char *const *rels, struct hash_result *res)
{
	return hash_batch(h, ws, n, rels, res);
}

int
hash_file(struct hasher *h, const char *path, struct hash_result *res)
{
	return hash_files(h, 1, &path, res) == 0 ? 0 : -1;
}
