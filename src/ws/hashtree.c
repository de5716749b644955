/*
 * hashtree.c: the tree hash of a folder (workspace.md §1): walk it like
 * find -type f, hash its files through the hasher's pool and cache, and
 * digest the canonical listing; and the listing's lines, written and read.
 */
#include "calops.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/text.h"
#include "ws/hash_int.h"
#include "ws/hashtree.h"
#include "ws/workspace.h"

/*
 * Trees are listed by a few threads at once (the stat() of every file is
 * most of the cost of a warm check): a shared stack of directories still to
 * list, each thread keeping what it finds; the findings are merged and
 * sorted afterwards, so the result does not depend on the scheduling.
 */

/* A regular file met by the walk. */
struct walk_file {
	char			*path;	/* relative to the root */
	struct hashcache_key	 key;
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
	const char		*errkind;	/* a FIFO...; NULL: errno */
};

/* The state shared by the threads walking one tree. */
struct walk {
	const char		*dir;		/* as given by the caller */
	char			*within;	/* links must stay under it */
	int			 rootfd;
	bool			 ownfd;		/* rootfd is ours to close */
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

/* rel/name, or name alone at the root; a new string. */
static char *
path_child(const char *rel, const char *name)
{
	size_t rlen = strlen(rel), nlen = strlen(name);
	char *p;

	if (rlen == 0)
		return xstrndup(name, nlen);
	p = xmalloc(rlen + 1 + nlen + 1);
	memcpy(p, rel, rlen);
	p[rlen] = '/';
	memcpy(p + rlen + 1, name, nlen + 1);
	return p;
}

/* Keep the failure whose path sorts first, so the report is stable; kind
 * is what a file that cannot be hashed is, or NULL after an errno. */
static void
walker_error(struct walker *k, const char *what, const char *rel, int err,
    const char *kind)
{
	if (k->errpath != NULL && strcmp(rel, k->errpath) >= 0)
		return;
	free(k->errpath);
	k->errpath = xstrdup(rel);
	k->errwhat = what;
	k->err = err;
	k->errkind = kind;
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
	hash_stat_key(st, &k->files[k->nfiles++].key);
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
 * find -type f, and no link is followed.  Anything else (a FIFO, a socket,
 * a device) is never opened, as opening a FIFO waits for a writer, and is
 * an error: a package holding one would not be what its listing says. */
static void
walker_entry(struct walker *k, int dfd, const char *name, unsigned char type,
    char *rel)
{
	struct stat st;

	if (type == DT_UNKNOWN || type == DT_REG) {
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			walker_error(k, "read", rel, errno, NULL);
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
	else {
		walker_error(k, "hash", rel, 0, hash_file_kind(DTTOIF(type)));
		free(rel);
	}
}

/* List one directory, relative to the root. */
static void
walker_dir(struct walker *k, const char *rel)
{
	struct dirent *de;
	DIR *d;
	int fd;

	/* Beneath the root, no link followed on the way: a folder listed
	 * and then swapped for a link is not entered. */
	fd = workspace_openat_nolinks(k->w->rootfd, rel, O_RDONLY |
	    O_DIRECTORY);
	if (fd == -1 || (d = fdopendir(fd)) == NULL) {
		walker_error(k, "open", rel, errno, NULL);
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
		    path_child(rel, de->d_name));
	}
	if (errno != 0)
		walker_error(k, "list", rel, errno, NULL);
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
	const struct walk_file *x = *(const struct walk_file *const *)a;
	const struct walk_file *y = *(const struct walk_file *const *)b;

	return strcmp(x->path, y->path);
}

static int
tree_link_cmp(const void *a, const void *b)
{
	const struct tree_link *x = a, *y = b;

	return strcmp(x->path, y->path);
}

/* Merge what the walkers found into one sorted list of files (returned,
 * pointing into the walkers) and t->links; report the first failure in
 * path order. */
static struct walk_file **
walk_merge(struct walk *w, struct walker *ks, size_t n, struct tree *t,
    size_t *nfiles)
{
	struct walk_file **files;
	struct walker *bad = NULL;
	size_t i, j, nf = 0, nl = 0;
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
		for (j = 0; j < ks[i].nfiles; j++)
			files[nf++] = &ks[i].files[j];
		if (ks[i].nlinks != 0)
			memcpy(t->links + t->nlinks, ks[i].links,
			    ks[i].nlinks * sizeof *t->links);
		t->nlinks += ks[i].nlinks;
	}
	qsort(files, nf, sizeof *files, walk_file_cmp);
	qsort(t->links, t->nlinks, sizeof *t->links, tree_link_cmp);
	if (bad != NULL) {
		full = path_join(w->dir, bad->errpath);
		if (bad->errkind != NULL)
			errbuf_set(t->err, sizeof t->err, "cannot %s '%s': "
			    "not a regular file: %s", bad->errwhat, full,
			    bad->errkind);
		else
			errbuf_set(t->err, sizeof t->err, "cannot %s '%s': %s",
			    bad->errwhat, full, strerror(bad->err));
		free(full);
	}
	*nfiles = nf;
	return files;
}

/*
 * The length of the piece of path at p that hashtree_line() writes as one:
 * a byte, or with `visible` a UTF-8 code point; *esc says whether it is
 * written as escapes.  A backslash, LF and CR always are (sha256sum's \\,
 * \n, \r); with `visible` so are a byte that is not UTF-8 and a code point
 * that must never reach a terminal raw (text_cp_unsafe()), byte by byte.
 */
static size_t
line_piece(const char *p, size_t len, bool visible, bool *esc)
{
	uint32_t cp;
	size_t n;

	*esc = *p == '\\' || *p == '\n' || *p == '\r';
	if (*esc || !visible)
		return 1;
	if ((n = text_utf8_decode((const unsigned char *)p, len, &cp)) == 0) {
		*esc = true;
		return 1;
	}
	*esc = text_cp_unsafe(cp);
	return n;
}

/* Append the escapes of the piece of n bytes at p. */
static int
line_escape(struct buf *b, const char *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	char esc[4] = { '\\', 'x', '0', '0' };
	int rc = 0;

	if (*p == '\\' || *p == '\n' || *p == '\r') {
		esc[1] = *p == '\\' ? '\\' : *p == '\n' ? 'n' : 'r';
		return buf_add(b, esc, 2);
	}
	for (; n > 0; p++, n--) {
		esc[2] = digits[(unsigned char)*p >> 4];
		esc[3] = digits[(unsigned char)*p & 0xf];
		rc |= buf_add(b, esc, 4);
	}
	return rc;
}

int
hashtree_line(struct buf *b, const char *hex, const char *path,
    const char *suffix, bool visible)
{
	size_t i, n, len = strlen(path), start = b->len;
	bool esc = false, any = false;
	int rc = 0;

	for (i = 0; i < len && !any; i += n) {
		n = line_piece(path + i, len - i, visible, &esc);
		any = esc;
	}
	if (any)
		rc |= buf_addc(b, '\\');
	rc |= buf_adds(b, hex);
	rc |= buf_add(b, "  ", 2);
	for (i = 0; i < len && any; i += n) {
		n = line_piece(path + i, len - i, visible, &esc);
		rc |= esc ? line_escape(b, path + i, n) :
		    buf_add(b, path + i, n);
	}
	if (!any)
		rc |= buf_add(b, path, len);
	rc |= buf_adds(b, suffix);
	rc |= buf_addc(b, '\n');
	if (rc != 0) {
		b->len = start;
		if (b->data != NULL)
			b->data[start] = '\0';
		return -1;
	}
	return 0;
}

const char *
hashtree_parse_line(char *line, char **hex, char **path)
{
	bool escaped = line[0] == '\\';
	char *r, *w;

	*hex = line + escaped;
	if (strlen(*hex) < HASH_HEX_LEN + 3 || (*hex)[HASH_HEX_LEN] != ' ' ||
	    (*hex)[HASH_HEX_LEN + 1] != ' ')
		return "not a '<sha256>  <path>' line";
	(*hex)[HASH_HEX_LEN] = '\0';
	if (!hash_is_hex(*hex))
		return "the hash is not 64 lowercase hex digits";
	*path = *hex + HASH_HEX_LEN + 2;
	if (!escaped)
		return NULL;
	for (r = w = *path; *r != '\0'; r++) {
		if (*r != '\\') {
			*w++ = *r;
			continue;
		}
		r++;
		if (*r == '\\')
			*w++ = '\\';
		else if (*r == 'n')
			*w++ = '\n';
		else if (*r == 'r')
			*w++ = '\r';
		else
			return "the path has an escape other than \\\\, \\n "
			    "and \\r";
	}
	*w = '\0';
	return NULL;
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
	if (EVP_DigestInit_ex(ctx, hash_sha256_md(), NULL) != 1)
		fatal("SHA-256 failed");
	buf_init(&b, 0);
	for (i = 0; i < t->nfiles; i++) {
		if (hashtree_line(&b, t->files[i].hash.hex, t->files[i].path,
		    "", false) != 0)
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
	hash_md_hex(md, t->hex);
}

/* Hash the sorted files relative to the open root, those the cache does
 * not know in parallel; -1 when one fails. */
static int
tree_hash_files(struct hasher *h, struct walk *w, struct walk_file **files,
    struct tree *t)
{
	struct job *jobs, **todo;
	uint64_t done = 0, total = 0;
	size_t i, m = 0;
	char *full;
	int rc = 0;

	for (i = 0; i < t->nfiles; i++) {
		t->files[i].path = files[i]->path;
		total += files[i]->key.size;
		if (hash_lookup(h, &files[i]->key, &t->files[i].hash))
			done += files[i]->key.size;
		else
			m++;
	}
	jobs = xcalloc(m, sizeof *jobs);
	todo = xcalloc(m, sizeof *todo);
	for (i = 0, m = 0; i < t->nfiles; i++) {
		if (t->files[i].hash.hex[0] != '\0')
			continue;
		jobs[m].dirfd = w->rootfd;
		jobs[m].path = t->files[i].path;
		jobs[m].nolinks = true;
		jobs[m].size = files[i]->key.size;
		jobs[m].res = &t->files[i].hash;
		todo[m] = &jobs[m];
		m++;
	}
	hash_run_jobs(h, todo, m, done, total);
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

/* Open the root (unless dirfd is it) and settle `within`; -1 with t->err
 * set. */
static int
walk_open(struct walk *w, int dirfd, const char *dir, const char *within,
    struct tree *t)
{
	size_t len;

	memset(w, 0, sizeof *w);
	w->dir = dir;
	w->rootfd = dirfd;
	if (dirfd == -1) {
		w->rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		w->ownfd = true;
	}
	if (w->rootfd == -1 ||
	    (within == NULL && (w->within = realpath(dir, NULL)) == NULL)) {
		errbuf_set(t->err, sizeof t->err, "cannot open '%s': %s", dir,
		    strerror(errno));
		if (w->rootfd != -1 && w->ownfd)
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
hashtree_hash(struct hasher *h, const char *dir, const char *within,
    struct tree *t)
{
	return hashtree_hash_at(h, -1, dir, within, t);
}

int
hashtree_hash_at(struct hasher *h, int dirfd, const char *dir,
    const char *within, struct tree *t)
{
	struct walk w;
	struct walker *ks;
	struct walk_file **files;
	size_t i, n;
	int rc;

	n = h->threads < MAX_WALKERS ? (size_t)h->threads : MAX_WALKERS;
	memset(t, 0, sizeof *t);
	if (walk_open(&w, dirfd, dir, within, t) != 0)
		return -1;
	ks = xcalloc(n, sizeof *ks);
	walk_run(&w, ks, n);
	files = walk_merge(&w, ks, n, t, &t->nfiles);
	t->files = xcalloc(t->nfiles, sizeof *t->files);
	rc = tree_hash_files(h, &w, files, t);
	if (t->err[0] != '\0')
		rc = -1;
	if (rc == 0)
		tree_digest(t);
	for (i = 0; i < n; i++) {
		free(ks[i].files);
		free(ks[i].links);
		free(ks[i].errpath);
	}
	free(ks);
	free(files);
	if (w.ownfd)
		close(w.rootfd);
	free(w.within);
	return rc;
}

void
hashtree_release(struct tree *t)
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
