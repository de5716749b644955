/* relstate.c: a workspace's release state (relstate.h). */
#include "calops.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/text.h"
#include "release/relcache.h"
#include "release/relkey.h"
#include "release/relrecord.h"
#include "release/relstate.h"

#define MANIFEST_MAX	(16u << 20)
#define AUDIT_MAX	(256u << 20)
#define SMALL_MAX	(1u << 20)	/* a key, a signature, revocations */

/*
 * Open rel under dirfd, no component a symbolic link: each folder on the
 * way with O_NOFOLLOW too, so that a generation folder planted as a link
 * to elsewhere is refused, not read through.  -1 with errno (ELOOP or
 * ENOTDIR for a link).
 */
static int
open_under(int dirfd, const char *rel, int flags)
{
	char *copy = xstrdup(rel), *part = copy, *slash;
	int fd = dup(dirfd), next, e;

	if (fd == -1) {
		free(copy);
		return -1;
	}
	while ((slash = strchr(part, '/')) != NULL) {
		*slash = '\0';
		next = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		e = errno;
		close(fd);
		if ((fd = next) == -1) {
			free(copy);
			errno = e;
			return -1;
		}
		part = slash + 1;
	}
	/* O_NONBLOCK: a FIFO planted under a file's name does not hang us
	 * (the callers take regular files only). */
	next = openat(fd, part, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	e = errno;
	close(fd);
	free(copy);
	errno = e;
	return next;
}

/* A regular file's bytes, at most max; NULL with errno (EFBIG past max). */
static char *
read_under(int dirfd, const char *rel, size_t max, size_t *len)
{
	struct stat st;
	char *data;
	int fd, e;

	if ((fd = open_under(dirfd, rel, O_RDONLY)) == -1)
		return NULL;
	memset(&st, 0, sizeof st);
	errno = 0;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > max) {
		e = errno == 0 || !S_ISREG(st.st_mode) ? EINVAL : EFBIG;
		if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max)
			e = EFBIG;
		close(fd);
		errno = e;
		return NULL;
	}
	data = xmalloc((size_t)st.st_size + 1);
	if (fileio_read_full(fd, data, (size_t)st.st_size) != 0) {
		e = errno != 0 ? errno : EIO;
		close(fd);
		free(data);
		errno = e;
		return NULL;
	}
	close(fd);
	data[st.st_size] = '\0';
	*len = (size_t)st.st_size;
	return data;
}

char *
relstate_read(const struct relstate *st, const char *rel, size_t *len)
{
	return read_under(st->dirfd, rel, SMALL_MAX, len);
}

static const char *
why_unreadable(int e)
{
	return e == ELOOP || e == ENOTDIR ? "is, or lies under, a symbolic "
	    "link (never trusted), or a folder on its way is not one" :
	    e == EINVAL ? "is not a regular file" :
	    e == EFBIG ? "is too large" : strerror(e);
}

static void
load_keys(struct relstate *st)
{
	char rel[512], *pem, msg[320];
	struct dirent *de;
	size_t n, len;
	DIR *d;
	int fd;

	if ((fd = open_under(st->dirfd, "trusted-keys", O_RDONLY |
	    O_DIRECTORY)) == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		errbuf_set(st->keys_problem, sizeof st->keys_problem,
		    "trusted-keys/ %s: nothing can verify a release",
		    errno == ENOENT ? "is missing" : why_unreadable(errno));
		return;
	}
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (n <= 4 || strcmp(de->d_name + n - 4, ".pub") != 0 ||
		    n >= sizeof rel - 16)
			continue;
		snprintf(rel, sizeof rel, "trusted-keys/%s", de->d_name);
		if ((pem = read_under(st->dirfd, rel, SMALL_MAX, &len)) ==
		    NULL) {
			errbuf_set(st->keys_problem, sizeof st->keys_problem,
			    "%s %s", rel, why_unreadable(errno));
			continue;
		}
		de->d_name[n - 4] = '\0';
		if (keyring_add_pem(&st->kr, de->d_name, pem, len, msg,
		    sizeof msg) != 0)
			errbuf_set(st->keys_problem, sizeof st->keys_problem,
			    "%s", msg);
		free(pem);
	}
	closedir(d);
}

/* The generation folders' numbers, ascending. */
static void
list_generations(struct relstate *st)
{
	struct dirent *de;
	char *end;
	long x;
	size_t i, j;
	DIR *d;
	int fd;

	if ((fd = open_under(st->dirfd, "generations", O_RDONLY |
	    O_DIRECTORY)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		errno = 0;
		x = strtol(de->d_name, &end, 10);
		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    *end != '\0' || errno != 0)
			continue;
		/* A folder, or a link (said, never trusted); a file or a
		 * FIFO named 4 is no generation. */
		if (de->d_type != DT_DIR && de->d_type != DT_LNK &&
		    de->d_type != DT_UNKNOWN)
			continue;
		st->gens = xreallocarray(st->gens, st->ngens + 1,
		    sizeof *st->gens);
		memset(&st->gens[st->ngens], 0, sizeof *st->gens);
		st->gens[st->ngens].n = x;
		st->ngens++;
	}
	closedir(d);
	for (i = 1; i < st->ngens; i++)
		for (j = i; j > 0 && st->gens[j - 1].n > st->gens[j].n; j--) {
			struct relgen t = st->gens[j];

			st->gens[j] = st->gens[j - 1];
			st->gens[j - 1] = t;
		}
}

static void
load_generation(struct relstate *st, struct relgen *g)
{
	char rel[96], *sig;
	json_error_t je;
	json_t *v;
	size_t len;

	g->previous = -1;
	g->window_h = NAN;
	snprintf(rel, sizeof rel, "generations/%ld/release-manifest.json",
	    g->n);
	if ((g->manifest = read_under(st->dirfd, rel, MANIFEST_MAX,
	    &g->manifest_len)) == NULL) {
		errbuf_set(g->problem, sizeof g->problem, "%s %s", rel,
		    errno == ENOENT ? "is missing" : why_unreadable(errno));
		return;
	}
	g->doc = json_loadb(g->manifest, g->manifest_len,
	    JSON_REJECT_DUPLICATES, &je);
	if (g->doc == NULL || !json_is_object(g->doc)) {
		errbuf_set(g->problem, sizeof g->problem, "%s:%d:%d: %s", rel,
		    g->doc == NULL ? je.line : 1, g->doc == NULL ? je.column :
		    1, g->doc == NULL ? je.text : "not a JSON object");
		json_decref(g->doc);
		g->doc = NULL;
		return;
	}
	if (json_is_integer(v = json_object_get(g->doc, "previous_generation")))
		g->previous = (long)json_integer_value(v);
	if (json_is_number(v = json_object_get(g->doc, "observation_window_h")))
		g->window_h = json_number_value(v);
	if (json_is_integer(v = json_object_get(g->doc, "generation")) &&
	    json_integer_value(v) != g->n) {
		errbuf_set(g->problem, sizeof g->problem, "%s says generation "
		    "%lld: a manifest moved from another folder", rel,
		    (long long)json_integer_value(v));
		return;
	}
	snprintf(rel, sizeof rel, "generations/%ld/release-manifest.json.sig",
	    g->n);
	if ((sig = read_under(st->dirfd, rel, SMALL_MAX, &len)) == NULL) {
		errbuf_set(g->problem, sizeof g->problem, "%s %s", rel,
		    errno == ENOENT ? "is missing: the manifest is not signed" :
		    why_unreadable(errno));
		return;
	}
	g->signer = keyring_verify(&st->kr, NULL, g->manifest,
	    g->manifest_len, sig, len);
	free(sig);
	if (g->signer == NULL)
		errbuf_set(g->problem, sizeof g->problem, "generation %ld's "
		    "manifest has no signature that verifies with a trusted "
		    "key", g->n);
}

static void
load_revocations(struct relstate *st)
{
	char *data, *sig;
	size_t len, siglen, i;
	json_t *o, *list, *e, *n;
	json_error_t je;
	struct relgen *g;

	if ((data = read_under(st->dirfd, "revocations.json", SMALL_MAX,
	    &len)) == NULL) {
		if (errno != ENOENT) {
			st->revocations_present = true;
			errbuf_set(st->revocations_problem,
			    sizeof st->revocations_problem, "revocations.json "
			    "%s", why_unreadable(errno));
		}
		return;
	}
	st->revocations_present = true;
	sig = read_under(st->dirfd, "revocations.json.sig", SMALL_MAX, &siglen);
	if (sig == NULL || keyring_verify(&st->kr, NULL, data, len, sig,
	    siglen) == NULL) {
		errbuf_set(st->revocations_problem,
		    sizeof st->revocations_problem, "revocations.json has no "
		    "signature that verifies with a trusted key: no revocation "
		    "in it is trusted");
		free(sig);
		free(data);
		return;
	}
	free(sig);
	o = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
	free(data);
	if (o == NULL || !json_is_array(list = json_object_get(o, "revoked")) ||
	    !json_is_string(json_object_get(o, "schema")) ||
	    strcmp(json_string_value(json_object_get(o, "schema")),
	    "calops-revocations/v1") != 0) {
		errbuf_set(st->revocations_problem,
		    sizeof st->revocations_problem, "revocations.json%s%s is "
		    "not calops-revocations/v1 with a 'revoked' list",
		    o == NULL ? ": " : "", o == NULL ? je.text : "");
		json_decref(o);
		return;
	}
	st->revocations_ok = true;
	json_array_foreach(list, i, e) {
		n = json_object_get(e, "generation");
		if (!json_is_integer(n))
			continue;
		for (g = st->gens; g < st->gens + st->ngens; g++)
			if (g->n == json_integer_value(n))
				g->revoked = true;
	}
	json_decref(o);
}

/* Where `current` points.  Only "generations/N" (what calops writes, a
 * "./" before it allowed) is a generation; anything else is said. */
static void
load_current(struct relstate *st)
{
	char link[256], *p, *end;
	struct stat sb;
	ssize_t len;
	long n;

	st->current = -1;
	if (fstatat(st->dirfd, "current", &sb, AT_SYMLINK_NOFOLLOW) != 0) {
		errbuf_set(st->current_problem, sizeof st->current_problem,
		    "'current' is missing: nothing is live");
		return;
	}
	if (!S_ISLNK(sb.st_mode) || (len = readlinkat(st->dirfd, "current",
	    link, sizeof link - 1)) < 0) {
		errbuf_set(st->current_problem, sizeof st->current_problem,
		    "'current' is not a symbolic link");
		return;
	}
	link[len] = '\0';
	snprintf(st->current_link, sizeof st->current_link, "%s", link);
	if ((size_t)len == sizeof link - 1) {
		errbuf_set(st->current_problem, sizeof st->current_problem,
		    "'current' -> '%.40s…' is too long to be a generation",
		    link);
		return;
	}
	while (len > 1 && link[len - 1] == '/')
		link[--len] = '\0';
	p = strncmp(link, "./", 2) == 0 ? link + 2 : link;
	errno = 0;
	n = strncmp(p, "generations/", 12) == 0 && p[12] >= '1' &&
	    p[12] <= '9' ? strtol(p + 12, &end, 10) : -1;
	if (n < 1 || *end != '\0' || errno != 0) {
		errbuf_set(st->current_problem, sizeof st->current_problem,
		    "'current' -> '%s' is not a generation of generations/",
		    st->current_link);
		return;
	}
	if (relstate_gen(st, n) == NULL) {
		errbuf_set(st->current_problem, sizeof st->current_problem,
		    "'current' -> '%s' does not resolve: no generation %ld",
		    st->current_link, n);
		return;
	}
	st->current = n;
	if (!relstate_target_ok(st, n, st->current_problem,
	    sizeof st->current_problem))
		return;
	st->current_problem[0] = '\0';
}

/* One line of the log as the audit pane shows it: its members, or the
 * line's number and why it does not read as a record. */
static json_t *
tail_record(const char *line, size_t len, size_t lineno)
{
	struct relrecord r;
	char err[256];
	json_t *o;

	if (relrecord_parse(line, len, &r, err, sizeof err) != 0)
		return json_pack("{s:I, s:o}", "line", (json_int_t)lineno,
		    "problem", text_json(err));
	o = json_pack("{s:I, s:I, s:f, s:s, s:s, s:s, s:o, s:o, s:s}",
	    "line", (json_int_t)lineno, "seq", (json_int_t)r.seq, "ts", r.ts,
	    "actor", r.actor, "key_id", r.key_id, "action", r.action,
	    "from", r.from >= 1 ? json_integer(r.from) : json_null(),
	    "to", r.to >= 1 ? json_integer(r.to) : json_null(),
	    "reason", r.reason);
	relrecord_free(&r);
	return o != NULL ? o : json_pack("{s:I, s:s}", "line",
	    (json_int_t)lineno, "problem", "a member is not text");
}

/* st->audit_tail from the log's bytes: its last RELSTATE_TAIL lines. */
static void
load_tail(struct relstate *st, const char *data, size_t len)
{
	const char *p = data, *end = data + len, *nl;
	size_t lines = 0, lineno = 0, skip;

	for (nl = p; nl < end && (nl = memchr(nl, '\n', (size_t)(end - nl)))
	    != NULL; nl++)
		lines++;
	if (len > 0 && data[len - 1] != '\n')
		lines++;
	skip = lines > RELSTATE_TAIL ? lines - RELSTATE_TAIL : 0;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		if (++lineno > skip)
			json_array_append_new(st->audit_tail, tail_record(p,
			    (size_t)(nl - p), lineno));
		p = nl + 1;
	}
}

static void
load_audit(struct relstate *st)
{
	struct relaudit_known known;
	char *data;
	size_t len;

	memset(&st->audit, 0, sizeof st->audit);
	json_decref(st->audit_tail);
	st->audit_tail = json_array();
	st->audit.last_switch_to = -1;
	memset(st->audit.last_line_sha256, '0', 64);
	st->audit.last_line_sha256[64] = '\0';
	if ((data = read_under(st->dirfd, "audit.jsonl", AUDIT_MAX, &len)) ==
	    NULL) {
		st->audit_present = errno != ENOENT;
		st->audit_ok = errno == ENOENT;	/* an empty log */
		if (st->audit_present) {
			st->audit.bad_line = 1;
			errbuf_set(st->audit.problem, sizeof st->audit.problem,
			    "audit.jsonl %s", why_unreadable(errno));
		}
		return;
	}
	st->audit_present = true;
	/* The signatures this user's calops checked before, with these
	 * keys, are not checked again (relcache.h); the chain is walked. */
	relcache_get(st->dirfd, &st->kr, &known);
	st->audit_ok = relaudit_verify_known(data, len, &st->kr, &known,
	    &st->audit) == 0;
	if (st->audit_ok && st->audit.records > known.records)
		relcache_put(st->dirfd, &st->kr, st->audit.records, data, len);
	if (!st->skip_tail)
		load_tail(st, data, len);
	free(data);
}

/* Whether another process holds the release lock (08-release/.lock). */
static bool
lock_held(int dirfd)
{
	int fd = openat(dirfd, ".lock", O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK);
	bool held;

	if (fd == -1)
		return false;
	held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

static void
load_all(struct relstate *st)
{
	struct stat sb;
	size_t i;

	load_keys(st);
	list_generations(st);
	for (i = 0; i < st->ngens; i++)
		load_generation(st, &st->gens[i]);
	load_revocations(st);
	st->revocation_cut = fstatat(st->dirfd, "revocations.json.new", &sb,
	    AT_SYMLINK_NOFOLLOW) == 0 || fstatat(st->dirfd,
	    "revocations.json.sig.new", &sb, AT_SYMLINK_NOFOLLOW) == 0;
	st->candidate = -1;
	for (i = st->ngens; i > 0; i--)
		if (!st->gens[i - 1].revoked) {
			st->candidate = st->gens[i - 1].n;
			break;
		}
	load_current(st);
	load_audit(st);
	st->pending = relpending_read(st->dirfd, &st->pend,
	    st->pending_problem, sizeof st->pending_problem) != 0;
	/* A command killed after its record went on the log, before it took
	 * the marker away: the chip step is not in progress (the record is
	 * completed like any switch cut short); the marker goes under the
	 * lock (relswitch_settle()). */
	if (st->pending && st->pend.job[0] != '\0' &&
	    strcmp(st->audit.last_switch_job, st->pend.job) == 0) {
		st->pending = false;
		st->pending_stale = true;
	}
	/* Its promote still holds the lock (a console approving, a command
	 * running its chip step): in progress, not cut short. */
	if (st->pending && !st->holds_lock && lock_held(st->dirfd))
		st->pending = false;
	relstate_judge(st, NULL, NULL);
}

int
relstate_load(struct relstate *st, const char *ws, char *err, size_t errlen)
{
	if (relstate_open(st, ws, err, errlen) != 0)
		return -1;
	load_all(st);
	return 0;
}

int
relstate_open(struct relstate *st, const char *ws, char *err, size_t errlen)
{
	int wsfd;

	memset(st, 0, sizeof *st);
	st->dirfd = -1;
	st->ws = xstrdup(ws);
	if ((wsfd = open(ws, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		errbuf_set(err, errlen, "cannot open workspace '%s': %s", ws,
		    strerror(errno));
		relstate_release(st);
		return -1;
	}
	st->dirfd = openat(wsfd, RELSTATE_DIR, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC);
	close(wsfd);
	if (st->dirfd == -1) {
		errbuf_set(err, errlen, "'%s/" RELSTATE_DIR "' %s", ws,
		    errno == ENOENT ? "is missing: no release to act on" :
		    why_unreadable(errno));
		relstate_release(st);
		return -1;
	}
	st->current = st->candidate = -1;
	return 0;
}

static void
release_contents(struct relstate *st)
{
	size_t i;

	for (i = 0; i < st->ngens; i++) {
		free(st->gens[i].manifest);
		json_decref(st->gens[i].doc);
		relverdict_release(&st->gens[i].verdict);
	}
	free(st->gens);
	st->gens = NULL;
	st->ngens = 0;
	json_decref(st->audit_tail);
	st->audit_tail = NULL;
	keyring_release(&st->kr);
}

void
relstate_read_keys(struct relstate *st)
{
	keyring_release(&st->kr);
	st->keys_problem[0] = '\0';
	load_keys(st);
}

int
relstate_reload(struct relstate *st, char *err, size_t errlen)
{
	int dirfd = st->dirfd;
	bool skip_tail = st->skip_tail, holds_lock = st->holds_lock;
	char *ws = st->ws;

	(void)err;
	(void)errlen;
	release_contents(st);
	memset(st, 0, sizeof *st);
	st->ws = ws;
	st->dirfd = dirfd;
	st->skip_tail = skip_tail;
	st->holds_lock = holds_lock;
	load_all(st);
	return 0;
}

void
relstate_release(struct relstate *st)
{
	release_contents(st);
	if (st->dirfd != -1)
		close(st->dirfd);
	free(st->ws);
	memset(st, 0, sizeof *st);
	st->dirfd = -1;
}

const struct relgen *
relstate_gen(const struct relstate *st, long n)
{
	size_t i;

	for (i = 0; i < st->ngens; i++)
		if (st->gens[i].n == n)
			return &st->gens[i];
	return NULL;
}

/* The signature and revocation parts of g's verdict, as read. */
static void
judge_read(const struct relstate *st, const struct relgen *g,
    struct relverdict *v)
{
	char why[256];

	if (g->signer != NULL)
		relverdict_signature(v, RV_SIG_OK, g->signer, NULL);
	else
		relverdict_signature(v, g->doc == NULL ? RV_SIG_UNREADABLE :
		    RV_SIG_UNTRUSTED, NULL, g->problem);
	if (st->revocations_present && !st->revocations_ok)
		/* Whether g is revoked is not known: not trusted either. */
		relverdict_revocation(v, RV_REV_UNKNOWN,
		    st->revocations_problem);
	else if (g->revoked) {
		snprintf(why, sizeof why, "generation %ld is revoked", g->n);
		relverdict_revocation(v, RV_REV_YES, why);
	}
}

int
relstate_verdict(const struct relstate *st, long n, relverdict_bindings_fn fn,
    void *arg, struct relverdict *v)
{
	const struct relgen *g = relstate_gen(st, n);
	char why[64];

	relverdict_init(v, n, n == st->candidate);
	if (g == NULL) {
		snprintf(why, sizeof why, "there is no generation %ld", n);
		relverdict_signature(v, RV_SIG_UNREADABLE, NULL, why);
		relverdict_judge(v);
		return -1;
	}
	judge_read(st, g, v);
	/* Only the candidate is bound to today's artifacts (release.md §2);
	 * a manifest no trusted key signed binds nothing worth hashing. */
	if (v->candidate && v->sig == RV_SIG_OK && v->rev == RV_REV_NO &&
	    fn != NULL)
		(void)fn(arg, n, g->doc, v);
	relverdict_judge(v);
	return 0;
}

void
relstate_judge(struct relstate *st, relverdict_bindings_fn fn, void *arg)
{
	size_t i;

	for (i = 0; i < st->ngens; i++) {
		relverdict_release(&st->gens[i].verdict);
		(void)relstate_verdict(st, st->gens[i].n, fn, arg,
		    &st->gens[i].verdict);
	}
}

bool
relstate_target_ok(const struct relstate *st, long n, char *why,
    size_t whylen)
{
	struct relverdict v;
	bool ok;

	ok = relstate_verdict(st, n, NULL, NULL, &v) == 0 &&
	    v.sig == RV_SIG_OK && v.rev == RV_REV_NO;
	if (!ok)
		errbuf_set(why, whylen, "%s", v.problem);
	relverdict_release(&v);
	return ok;
}

long
relstate_rollback_target(const struct relstate *st, char *why,
    size_t whylen)
{
	const struct relgen *g;

	if (st->current < 1) {
		errbuf_set(why, whylen, "nothing is current to roll back "
		    "from: name the target with --to");
		return -1;
	}
	g = relstate_gen(st, st->current);
	if (g == NULL || g->previous < 1) {
		errbuf_set(why, whylen, "generation %ld names no "
		    "previous_generation: name the target with --to",
		    st->current);
		return -1;
	}
	return g->previous;
}

/*
 * A crash between the append and the rename leaves exactly this: `current`
 * where the last switch came from (relswitch_apply() checks from against
 * it under the lock), or, when it was missing or broken, nowhere.  Any
 * other disagreement (a log cut after a whole line, a link moved by hand)
 * is not a switch to complete: relstate_disagrees() says it, nothing moves.
 */
bool
relstate_behind_log(const struct relstate *st)
{
	return st->audit_ok && st->audit.last_switch_to >= 1 &&
	    st->audit.last_switch_to != st->current &&
	    (st->current < 1 || st->current == st->audit.last_switch_from);
}

void
relstate_iso(double t, char *buf, size_t len)
{
	time_t secs = (time_t)t;
	struct tm tm;

	gmtime_r(&secs, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

bool
relstate_kept(const struct relstate *st, double now, long *gen,
    double *until)
{
	const struct relgen *cur = relstate_gen(st, st->current);

	if (cur == NULL || isnan(cur->window_h) || cur->window_h <= 0 ||
	    !st->audit_ok || st->audit.last_switch_to != st->current ||
	    st->audit.last_switch_from < 1 || st->audit.last_switch_ts <= 0)
		return false;
	*gen = (long)st->audit.last_switch_from;
	*until = st->audit.last_switch_ts + cur->window_h * 3600;
	return now < *until;
}

bool
relstate_disagrees(const struct relstate *st)
{
	return st->audit_ok && st->audit.last_switch_to >= 1 &&
	    st->audit.last_switch_to != st->current &&
	    !relstate_behind_log(st);
}

void
relstate_pending_words(const struct relstate *st, char *buf, size_t len)
{
	if (st->pending_problem[0] != '\0')
		errbuf_set(buf, len, "a promote was cut short during its chip "
		    "step, and its marker cannot be read: %s",
		    st->pending_problem);
	else
		relpending_words(&st->pend, buf, len);
}

/* ---- JSON ---- */

json_t *
relstate_pending_json(const struct relstate *st)
{
	char words[1024];
	json_t *o;

	if (!st->pending)
		return json_null();
	relstate_pending_words(st, words, sizeof words);
	o = st->pending_problem[0] != '\0' ? json_object() :
	    relpending_json(&st->pend);
	json_object_set_new(o, "words", text_json(words));
	return o;
}

static json_t *
num_or_null(long v)
{
	return v >= 1 ? json_integer(v) : json_null();
}

/* Text read from disk (a link's target, a problem quoting a name) may be any
 * bytes: json_string() would refuse them and json_pack() the whole object. */
static json_t *
str_or_null(const char *s)
{
	return s != NULL && s[0] != '\0' ? text_json(s) : json_null();
}

/* The hashes a manifest binds, as they are in it. */
static json_t *
bound_hashes(const json_t *doc)
{
	static const char *const top[] = { "tokenizer_sha256", "onnx_sha256",
	    "quant_config_sha256", "calibration_manifest_sha256",
	    "calbin_tree_sha256" };
	json_t *o = json_object(), *v;
	size_t i;

	for (i = 0; i < nitems(top); i++)
		if (json_is_string(v = json_object_get(doc, top[i])))
			json_object_set(o, top[i], v);
	if (json_is_string(v = json_object_get(json_object_get(doc,
	    "compiler"), "oci_digest")))
		json_object_set(o, "compiler.oci_digest", v);
	return o;
}

json_t *
relstate_trusted_keys_json(const struct relstate *st)
{
	json_t *a = json_array();
	char *pub;
	size_t i;

	for (i = 0; i < st->kr.n; i++) {
		if ((pub = relkey_public_b64(st->kr.keys[i].pkey)) == NULL)
			continue;
		json_array_append_new(a, json_pack("{s:o, s:s}", "name",
		    text_json(st->kr.keys[i].name), "ed25519", pub));
		free(pub);
	}
	return a;
}

json_t *
relstate_json(const struct relstate *st)
{
	json_t *o, *gens = json_array(), *g, *audit, *obs = json_null();
	const struct relgen *cur = relstate_gen(st, st->current);
	double left, until, now = (double)time(NULL);
	long kept;
	size_t i;

	for (i = 0; i < st->ngens; i++) {
		const struct relgen *r = &st->gens[i];

		g = json_pack("{s:I, s:o, s:b, s:o, s:b, s:o, s:o, s:o}",
		    "generation", (json_int_t)r->n,
		    "signer", str_or_null(r->signer),
		    "verifies", r->verdict.verifies,
		    "problem", r->verdict.problem[0] != '\0' ?
		    text_json(r->verdict.problem) : json_null(),
		    "revoked", r->revoked,
		    "previous_generation", num_or_null(r->previous),
		    "observation_window_h", isnan(r->window_h) ? json_null() :
		    json_real(r->window_h),
		    "bound", r->doc != NULL ? bound_hashes(r->doc) :
		    json_object());
		json_object_set_new(g, "verdict", relverdict_json(&r->verdict));
		/* The whole manifest, for the Release screen's diff. */
		json_object_set(g, "manifest", r->doc != NULL ? r->doc :
		    json_null());
		json_array_append_new(gens, g);
	}
	if (cur != NULL && !isnan(cur->window_h) && st->audit_ok &&
	    st->audit.last_switch_to == st->current &&
	    st->audit.last_switch_ts > 0) {
		left = cur->window_h - (now - st->audit.last_switch_ts) / 3600;
		obs = json_pack("{s:I, s:f, s:f, s:f, s:o}", "generation",
		    (json_int_t)st->current, "since", st->audit.last_switch_ts,
		    "window_h", cur->window_h, "left_h", left > 0 ? left : 0.0,
		    "kept", relstate_kept(st, now, &kept, &until) ?
		    json_pack("{s:I, s:f}", "generation", (json_int_t)kept,
		    "until", until) : json_null());
	}
	audit = json_pack("{s:b, s:b, s:I, s:o, s:o, s:s, s:I, s:o}",
	    "present", st->audit_present, "intact", st->audit_ok,
	    "records", (json_int_t)st->audit.records,
	    "bad_line", st->audit_ok ? json_null() :
	    json_integer((json_int_t)st->audit.bad_line),
	    "problem", st->audit_ok ? json_null() :
	    text_json(st->audit.problem),
	    "head_sha256", st->audit.last_line_sha256,
	    "next_seq", (json_int_t)st->audit.records + 1,
	    "last_switch_to", num_or_null((long)st->audit.last_switch_to));
	/* How the last switch's chip step went (release.md §6): null for
	 * none (a rollback, a record of v2). */
	json_object_set_new(audit, "last_switch_chip_step",
	    st->audit.last_switch_chip == RELCHIP_RAN ? json_string("ran") :
	    st->audit.last_switch_chip == RELCHIP_SKIPPED ?
	    json_pack("{s:o}", "skipped",
	    text_json(st->audit.last_switch_skipped)) : json_null());
	o = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:{s:b, s:b, "
	    "s:o}, s:o, s:b}",
	    "schema", "calops-release-status/v1",
	    "workspace", text_json(st->ws),
	    "current", num_or_null(st->current),
	    "current_link", str_or_null(st->current_link),
	    "current_problem", str_or_null(st->current_problem),
	    "candidate", num_or_null(st->candidate),
	    "generations", gens,
	    "audit", audit,
	    "revocations", "present", st->revocations_present,
	    "trusted", st->revocations_ok,
	    "problem", str_or_null(st->revocations_problem),
	    "observation", obs,
	    "roll_forward_due", relstate_behind_log(st));
	json_object_set_new(o, "log_disagrees",
	    json_boolean(relstate_disagrees(st)));
	json_object_set_new(o, "interrupted", relstate_pending_json(st));
	if (st->keys_problem[0] != '\0')
		json_object_set_new(o, "keys_problem",
		    text_json(st->keys_problem));
	json_object_set_new(o, "trusted_keys", relstate_trusted_keys_json(st));
	return o;
}
