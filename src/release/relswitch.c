/* relswitch.c: the release lock and the switch (relswitch.h). */
#include "calops.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "release/relswitch.h"

/*
 * The test hook of issue 12's crash tests: CALOPS_RELEASE_FAULT names one
 * point of the switch.  "kill-after-STEP" SIGKILLs this process right after
 * STEP (lock, verify, append, fsync-log, symlink, rename, and
 * revocations-rename in relrevoke.c); "fail-OP" makes
 * OP (write, fsync-log, symlink, rename, fsync-dir) fail with EIO, or ENOSPC
 * for the write.  Unset, as it is for everyone else, it costs a getenv().
 */
void
relswitch_fault_kill(const char *step)
{
	const char *f = getenv("CALOPS_RELEASE_FAULT");

	if (f != NULL && strncmp(f, "kill-after-", 11) == 0 &&
	    strcmp(f + 11, step) == 0)
		raise(SIGKILL);
}

bool
relswitch_fault_fail(const char *op)
{
	const char *f = getenv("CALOPS_RELEASE_FAULT");

	if (f == NULL || strncmp(f, "fail-", 5) != 0 || strcmp(f + 5, op) != 0)
		return false;
	errno = strcmp(op, "write") == 0 ? ENOSPC : EIO;
	return true;
}

/* ---- the lock ---- */

int
relswitch_lock(struct relstate *st, const char *who, char *err,
    size_t errlen)
{
	char holder[512], host[256], since[32];
	time_t now = time(NULL);
	struct tm tm;
	ssize_t n;
	int fd;
	struct stat sb;
	char clean[160];
	size_t i;

	fd = openat(st->dirfd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC | O_NONBLOCK, 0644);
	if (fd == -1 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		errbuf_set(err, errlen, "cannot open the release lock "
		    "08-release/.lock: %s", fd == -1 ? strerror(errno) :
		    "not a regular file");
		if (fd != -1)
			close(fd);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		n = errno == EWOULDBLOCK ? pread(fd, holder, sizeof holder - 1,
		    0) : -1;
		holder[n > 0 ? n : 0] = '\0';
		holder[strcspn(holder, "\n")] = '\0';
		errbuf_set(err, errlen, "the release lock is held by %s: "
		    "try again once they are done", holder[0] != '\0' ? holder :
		    "another approver");
		close(fd);
		return -1;
	}
	if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "?");
	host[sizeof host - 1] = '\0';
	gmtime_r(&now, &tm);
	strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", &tm);
	/* One line, of a length that fits: it is read back by others. */
	snprintf(clean, sizeof clean, "%s", who);
	for (i = 0; clean[i] != '\0'; i++)
		if ((unsigned char)clean[i] < 0x20)
			clean[i] = ' ';
	snprintf(holder, sizeof holder, "%s on %s, pid %ld, since %s\n",
	    clean, host, (long)getpid(), since);
	n = (ssize_t)strlen(holder);
	if (ftruncate(fd, 0) != 0 || pwrite(fd, holder, (size_t)n, 0) != n) {
		/* Held all the same: only the name for others is missing. */
	}
	st->holds_lock = true;
	relswitch_fault_kill("lock");
	return fd;
}

/* ---- the switch ---- */

/*
 * `current` -> generations/n: a new link under a temporary name renamed
 * over it, then the folder fsynced, so that `current` is the old link or
 * the new one, never missing or half made.  0; -1 with msg, not moved; 1
 * with msg, moved but the folder's fsync failed.
 */
static int
point_current(struct relstate *st, long n, char *msg, size_t msglen)
{
	/* One name: the lock makes this the only switch, and a link a crash
	 * left is replaced by the next. */
	const char *tmp = ".current.tmp";
	char target[64];

	snprintf(target, sizeof target, "generations/%ld", n);
	(void)unlinkat(st->dirfd, tmp, 0);
	if (relswitch_fault_fail("symlink") ||
	    symlinkat(target, st->dirfd, tmp) != 0) {
		errbuf_set(msg, msglen, "cannot make the new link: %s",
		    strerror(errno));
		return -1;
	}
	relswitch_fault_kill("symlink");
	if (relswitch_fault_fail("rename") ||
	    renameat(st->dirfd, tmp, st->dirfd, "current") != 0) {
		errbuf_set(msg, msglen, "cannot rename the new link over "
		    "'current': %s", strerror(errno));
		(void)unlinkat(st->dirfd, tmp, 0);
		return -1;
	}
	relswitch_fault_kill("rename");
	if (relswitch_fault_fail("fsync-dir") || fsync(st->dirfd) != 0) {
		/* Renamed: what the folder shows is the new link; only that
		 * it survives a power cut is not known. */
		errbuf_set(msg, msglen, "'current' points to generation %ld, "
		    "but fsync of 08-release/ failed (%s): after a power cut "
		    "the next release command completes it", n,
		    strerror(errno));
		return 1;
	}
	return 0;
}

/* Append line and its newline to the log and fsync it; on a failure the
 * log is cut back to where it was, so the chain stays whole. */
static int
append_record(struct relstate *st, const char *line, char *msg,
    size_t msglen)
{
	struct stat sb;
	bool created;
	char *rec;
	size_t len;
	int fd, e;

	created = fstatat(st->dirfd, "audit.jsonl", &sb, AT_SYMLINK_NOFOLLOW)
	    != 0;
	fd = openat(st->dirfd, "audit.jsonl", O_WRONLY | O_APPEND | O_CREAT |
	    O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
	if (fd == -1 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		errbuf_set(msg, msglen, "cannot open audit.jsonl: %s",
		    fd == -1 ? strerror(errno) : "not a regular file");
		if (fd != -1)
			close(fd);
		return -1;
	}
	rec = xasprintf("%s\n", line);
	len = strlen(rec);
	if (relswitch_fault_fail("write") ||
	    fileio_write_full(fd, rec, len) != 0) {
		e = errno;
		if (ftruncate(fd, sb.st_size) != 0)
			errbuf_set(msg, msglen, "cannot append to audit.jsonl "
			    "(%s), nor cut it back: %s", strerror(e),
			    strerror(errno));
		else
			errbuf_set(msg, msglen, "cannot append to audit.jsonl: "
			    "%s; nothing changed", strerror(e));
		free(rec);
		close(fd);
		return -1;
	}
	free(rec);
	relswitch_fault_kill("append");
	if (relswitch_fault_fail("fsync-log") || fsync(fd) != 0 ||
	    (created && fsync(st->dirfd) != 0)) {
		e = errno;
		if (ftruncate(fd, sb.st_size) == 0 && fsync(fd) == 0)
			errbuf_set(msg, msglen, "cannot fsync audit.jsonl: "
			    "%s; the record was taken back, nothing changed",
			    strerror(e));
		else
			errbuf_set(msg, msglen, "cannot fsync audit.jsonl: %s",
			    strerror(e));
		close(fd);
		return -1;
	}
	close(fd);
	relswitch_fault_kill("fsync-log");
	return 0;
}

/* What a switch to n changed, without reading it all again: the target
 * verified, so `current` is well. */
static void
now_current(struct relstate *st, long n)
{
	st->current = n;
	snprintf(st->current_link, sizeof st->current_link,
	    "generations/%ld", n);
	st->current_problem[0] = '\0';
}

/* fsync audit.jsonl (no link followed); 0, or -1 with msg. */
static int
sync_log(struct relstate *st, char *msg, size_t msglen)
{
	int fd = openat(st->dirfd, "audit.jsonl", O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC | O_NONBLOCK);

	if (fd == -1 || fsync(fd) != 0) {
		errbuf_set(msg, msglen, "cannot fsync audit.jsonl: %s; "
		    "'current' left as it is", strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* Whether generation n may be switched to: its verdict; why not in why. */
static bool
verifies(const struct relstate *st, long n, relverdict_bindings_fn bindings,
    void *arg, char *why, size_t whylen)
{
	struct relverdict v;
	bool ok;

	(void)relstate_verdict(st, n, bindings, arg, &v);
	if (!(ok = v.verifies))
		errbuf_set(why, whylen, "%s", v.problem);
	relverdict_release(&v);
	return ok;
}

int
relswitch_roll_forward(struct relstate *st, relverdict_bindings_fn bindings,
    void *arg, char *msg, size_t msglen)
{
	char why[512];
	long to;
	int rc;

	if (!relstate_behind_log(st))
		return 0;
	to = (long)st->audit.last_switch_to;
	if (!verifies(st, to, bindings, arg, why, sizeof why)) {
		errbuf_set(msg, msglen, "the audit log's last switch went to "
		    "generation %ld but 'current' does not point there, and "
		    "it cannot: %s; 'current' left as it is", to, why);
		return 2;
	}
	/* The record may be in the page cache only (a crash right after the
	 * append): on disk first, as the switch would have put it. */
	if (sync_log(st, msg, msglen) != 0)
		return -1;
	if ((rc = point_current(st, to, msg, msglen)) != 0) {
		if (rc == 1)
			now_current(st, to);
		return -1;
	}
	errbuf_set(msg, msglen, "rolled forward: 'current' now points to "
	    "generation %ld, as the audit log's last switch says (a switch "
	    "cut short)", to);
	now_current(st, to);
	return 1;
}

/* Whether the record is what the switch will do now; why not in msg. */
static enum relswitch_rc
check_record(const struct relstate *st, const struct relrecord *r,
    char *msg, size_t msglen)
{
	double now = (double)time(NULL);
	char why[1024];
	bool promote = strcmp(r->action, "promote") == 0;
	bool rollback = strcmp(r->action, "rollback") == 0;

	if (r->seq > (long long)st->audit.records + 1 || r->seq < 1) {
		errbuf_set(msg, msglen, "the record is seq %lld but the log "
		    "has %zu records: it was not prepared against this log",
		    r->seq, st->audit.records);
		return RS_BAD;
	}
	if (r->seq != (long long)st->audit.records + 1 ||
	    strcmp(r->prev_sha256, st->audit.last_line_sha256) != 0) {
		errbuf_set(msg, msglen, "the record is stale: it is seq %lld, "
		    "the log has %zu records now (someone acted first): fetch "
		    "the state again", r->seq, st->audit.records);
		return RS_STALE;
	}
	if (!promote && !rollback && strcmp(r->action, "refused") != 0) {
		errbuf_set(msg, msglen, "action '%s' is not promote, rollback "
		    "or refused", r->action);
		return RS_BAD;
	}
	if (r->from != st->current) {
		errbuf_set(msg, msglen, "the record is from generation %ld "
		    "but 'current' is %ld", r->from, st->current);
		return RS_BAD;
	}
	if (r->ts < now - RELSWITCH_TS_SKEW_S ||
	    r->ts > now + RELSWITCH_TS_SKEW_S) {
		errbuf_set(msg, msglen, "the record's ts is %.0f s from this "
		    "host's clock (at most %d): check the clocks", r->ts - now,
		    RELSWITCH_TS_SKEW_S);
		return RS_BAD;
	}
	if ((promote || rollback) && r->to < 1) {
		errbuf_set(msg, msglen, "a %s names no target", r->action);
		return RS_BAD;
	}
	if (promote && r->to == st->current) {
		errbuf_set(msg, msglen, "generation %ld is current already",
		    r->to);
		return RS_BAD;
	}
	/* The runbook's order (release.md §6): a promote goes live after its
	 * chip step passed, or says why it ran none; a v2 record (none) is
	 * valid on the log, not as a new promote. */
	if (promote && r->chip.kind == RELCHIP_NONE) {
		errbuf_set(msg, msglen, "a promote carries its chip step "
		    "(chip_step: the golden run on a lab chip, or why it was "
		    "skipped): release.md §6");
		return RS_BAD;
	}
	if (r->chip.kind == RELCHIP_RAN && (r->chip.host[0] == '\0' ||
	    r->chip.job[0] == '\0')) {
		errbuf_set(msg, msglen, "the chip step names no host or job");
		return RS_BAD;
	}
	if (r->chip.kind == RELCHIP_SKIPPED && r->chip.skipped[0] == '\0') {
		errbuf_set(msg, msglen, "a chip step skipped says why");
		return RS_BAD;
	}
	/* A promote cut short during its chip step ends in its refusal
	 * before another begins (release.md §2). */
	if (promote && st->pending) {
		relstate_pending_words(st, why, sizeof why);
		errbuf_set(msg, msglen, "%s: its refusal is signed first "
		    "(calops release recover)", why);
		return RS_BAD;
	}
	/* A promote goes to the candidate, whose bindings are checked; an
	 * earlier generation is a rollback's. */
	if (promote && r->to != st->candidate) {
		errbuf_set(msg, msglen, "generation %ld is not the candidate "
		    "(%ld): promote goes to the newest generation that is not "
		    "revoked; an earlier one is a rollback --to", r->to,
		    st->candidate);
		return RS_BAD;
	}
	if (!promote && !rollback && r->to != -1 && !relstate_gen(st, r->to)) {
		errbuf_set(msg, msglen, "the refusal names generation %ld, "
		    "which does not exist", r->to);
		return RS_BAD;
	}
	if (rollback && st->current >= 1 && r->to >= st->current) {
		errbuf_set(msg, msglen, "a rollback goes to an earlier "
		    "generation than %ld, not %ld", st->current, r->to);
		return RS_BAD;
	}
	return RS_OK;
}

/*
 * The record r just appended ends the chip step a marker says is in
 * progress (relpending.h) when it carries that job, or is a refusal naming
 * it: the marker goes at once, so that a command killed after the append
 * does not leave it standing.  (A marker read with the state is in
 * st->pending; one this process wrote is read here.)
 */
static void
settle(struct relstate *st, const struct relrecord *r)
{
	struct relpending m;
	char err[256];

	if (r->chip.kind != RELCHIP_RAN && strcmp(r->action, "refused") != 0)
		return;
	if (relpending_read(st->dirfd, &m, err, sizeof err) != 1 ||
	    m.job[0] == '\0')
		return;
	if ((r->chip.kind == RELCHIP_RAN && strcmp(r->chip.job, m.job) == 0) ||
	    (strcmp(r->action, "refused") == 0 && r->to == m.generation &&
	    strstr(r->reason, m.job) != NULL)) {
		if (relpending_clear(st->dirfd, err, sizeof err) == 0)
			st->pending = false;
	}
}

void
relswitch_settle(struct relstate *st)
{
	char err[256];

	if (st->pending_stale && relpending_clear(st->dirfd, err,
	    sizeof err) == 0)
		st->pending_stale = false;
}

enum relswitch_rc
relswitch_apply(struct relstate *st, const char *line, size_t len,
    relverdict_bindings_fn bindings, void *arg, char *msg, size_t msglen)
{
	struct audit_state next = st->audit;
	enum relswitch_rc rc;
	struct relrecord r;
	char why[512], *copy, *canon, *bytes;
	int moved;

	if (!st->audit_ok) {
		errbuf_set(msg, msglen, "the audit log is broken at record %zu "
		    "(%s): nothing is appended to it", st->audit.bad_line,
		    st->audit.problem);
		return RS_BAD;
	}
	if (relrecord_parse(line, len, &r, msg, msglen) != 0)
		return RS_BAD;
	/* The one spelling calops writes (compact, members in order, from
	 * null or a generation): a verifier that builds the line again
	 * gets these bytes, and a signature has one line. */
	canon = relrecord_line(&r, r.sig);
	if (canon == NULL || strlen(canon) != len ||
	    memcmp(canon, line, len) != 0 || strlen(r.sig) != 88) {
		errbuf_set(msg, msglen, "the record is not in the form "
		    "release.md §3 gives (compact JSON, the ten members in "
		    "order, ts as a real, a 64-byte signature)");
		free(canon);
		rc = RS_BAD;
		goto out;
	}
	free(canon);
	/* The signature first: only a trusted approver is told more. */
	bytes = relrecord_signed_bytes(&r);
	if (keyring_verify(&st->kr, r.key_id, bytes, strlen(bytes), r.sig,
	    strlen(r.sig)) == NULL) {
		errbuf_set(msg, msglen, "the record's signature does not "
		    "verify with trusted key '%s'", r.key_id);
		free(bytes);
		rc = RS_BAD;
		goto out;
	}
	free(bytes);
	if ((rc = check_record(st, &r, msg, msglen)) != RS_OK)
		goto out;
	/* Its members, order and signature, as the log will read it. */
	if (relaudit_verify_next(line, len, &st->kr, &next) != 0) {
		errbuf_set(msg, msglen, "the record is refused: %s",
		    next.problem);
		rc = RS_BAD;
		goto out;
	}
	/* The one verdict verify and the status say: a rollback to the
	 * candidate (current above it, revoked) has its bindings hashed too. */
	if (strcmp(r.action, "refused") != 0 &&
	    !verifies(st, r.to, bindings, arg, why, sizeof why)) {
		errbuf_set(msg, msglen, "generation %ld does not verify: %s",
		    r.to, why);
		rc = RS_REFUSED;
		goto out;
	}
	relswitch_fault_kill("verify");
	copy = xstrndup(line, len);
	if (append_record(st, copy, msg, msglen) != 0) {
		free(copy);
		rc = RS_ERROR;
		goto out;
	}
	free(copy);
	st->audit = next;	/* the record is the log's last line now */
	settle(st, &r);
	if (strcmp(r.action, "refused") == 0) {
		errbuf_set(msg, msglen, "the refusal is on the audit log "
		    "(record %lld); 'current' did not move", r.seq);
	}
	else if ((moved = point_current(st, r.to, why, sizeof why)) == -1) {
		errbuf_set(msg, msglen, "record %lld is on the audit log but "
		    "%s; the next release command rolls forward", r.seq, why);
		rc = RS_ERROR;
	} else if (moved == 1) {
		now_current(st, r.to);
		errbuf_set(msg, msglen, "record %lld is on the audit log and "
		    "%s", r.seq, why);
		rc = RS_ERROR;
	} else {
		now_current(st, r.to);
		if (r.from >= 1)
			snprintf(why, sizeof why, "generation %ld", r.from);
		else
			snprintf(why, sizeof why, "nothing");
		errbuf_set(msg, msglen, "%s: 'current' now points to "
		    "generation %ld (was %s), audit record %lld",
		    strcmp(r.action, "promote") == 0 ? "promoted" :
		    "rolled back", r.to, why, r.seq);
	}
out:
	relrecord_free(&r);
	return rc;
}
