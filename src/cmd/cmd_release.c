/*
 * cmd_release.c: `calops release status|audit|verify|promote|rollback|
 * revoke|apply WS`, the headless side of share/doc/release.md: what
 * scripts run, and what the console runs on a lab host.  promote and
 * rollback sign the audit record here with the approver's key and hand it
 * to the same function `apply` uses for a record signed elsewhere
 * (relswitch_apply()): one path.
 */
#include "calops.h"

#include <sys/stat.h>

#include <sys/ioctl.h>

#include <ftw.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <pwd.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/buf.h"
#include "base/text.h"
#include "cmd/cmd.h"
#include "engine/gate.h"
#include "gates/g10_release.h"
#include "loop/loop.h"
#include "release/relrevoke.h"
#include "release/relstate.h"
#include "release/relswitch.h"

#define RECORD_MAX	(64u << 10)

/* Exit statuses beyond 0, 1 and 2 (usage). */
#define EXIT_LOCKED	3
#define EXIT_STALE	4

static const char release_usage[] =
    "usage: calops release status WS [--json]\n"
    "       calops release audit WS [--json]\n"
    "       calops release promote WS N --key FILE --confirm N [options]\n"
    "       calops release rollback WS [--to N] --key FILE --confirm N "
    "[options]\n"
    "       calops release verify WS N [--json]\n"
    "       calops release revoke WS N --reason TEXT --key FILE --confirm N\n"
    "       calops release apply WS [--json]      (a signed record on "
    "stdin)\n"
    "       calops release apply WS --hold N --json [--actor NAME]\n"
    "\n"
    "The release of workspace WS (08-release/): its generations, `current`\n"
    "and the audit log.  promote points `current` at generation N;\n"
    "rollback at an earlier one, by default current's previous_generation.\n"
    "Both need the approver's Ed25519 key, whose public half must be in\n"
    "trusted-keys/, and --confirm repeating the target's number.  verify\n"
    "says generation N's verdict: its signature, whether it is revoked and,\n"
    "for the candidate, its bindings to today's artifacts, every byte\n"
    "hashed; status says every generation's (the candidate's bindings\n"
    "through the hash cache), in the same words.  revoke adds N to the signed\n"
    "revocations.json.  apply acts on an audit record signed elsewhere\n"
    "(the console's approvals on a lab host); with --hold it takes the\n"
    "lock at once, says the state, verifies N and then waits for the\n"
    "record (the console's interactive approval).  status and every acting\n"
    "command first complete a switch a crash cut short.\n"
    "\n"
    "  --key FILE          the approver's private key (PEM)\n"
    "  --confirm N         the target generation's number, typed again\n"
    "  --passphrase-fd FD  read the key's passphrase from FD (else the\n"
    "                      terminal is asked)\n"
    "  --actor NAME        who acts, for the log (default: user@host)\n"
    "  --reason TEXT       why, for the log\n"
    "  --json              one JSON object (share/doc/release.md §6)\n"
    "\n"
    "Exit status: 0 done (status, audit, verify: all well); 1 refused,\n"
    "failed, or (status, audit, verify) something is wrong; 2 usage error, or --confirm missing\n"
    "or not the target; 3 another approver holds the release lock; 4 the\n"
    "record is stale (apply).\n";

struct relopts {
	const char	*ws;
	const char	*key, *actor, *reason;
	long		 target, confirm;
	long		 hold;		/* apply --hold N, or -1 */
	int		 passfd;
	bool		 json;
};

/* A generation number, or -1. */
static long
gen_arg(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && s[0] >= '1' &&
	    s[0] <= '9' ? v : -1;
}

/* An argument that goes into a signed record: one plain line, or said. */
static bool
plain_arg(const char *name, const char *value)
{
	char why[96];

	if (value == NULL || text_plain_line(value, why, sizeof why))
		return true;
	fprintf(stderr, "calops: %s holds %s: refused (it would be signed "
	    "into the audit log as it is)\n", name, why);
	return false;
}

static int
parse(int argc, char **argv, struct relopts *o, bool wants_n)
{
	static const struct option opts[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "confirm", required_argument, NULL, 'c' },
		{ "to", required_argument, NULL, 't' },
		{ "passphrase-fd", required_argument, NULL, 'p' },
		{ "actor", required_argument, NULL, 'a' },
		{ "reason", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "hold", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->target = o->confirm = o->hold = -1;
	o->passfd = -1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'k': o->key = optarg; break;
		case 'a': o->actor = optarg; break;
		case 'r': o->reason = optarg; break;
		case 'j': o->json = true; break;
		case 'c':
			/* Anything typed: a wrong one refuses below. */
			o->confirm = gen_arg(optarg);
			if (o->confirm == -1)
				o->confirm = 0;
			break;
		case 't':
			if ((o->target = gen_arg(optarg)) == -1) {
				fprintf(stderr, "calops: --to wants a "
				    "generation number, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'H':
			if ((o->hold = gen_arg(optarg)) == -1) {
				fprintf(stderr, "calops: --hold wants a "
				    "generation number, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'p':
			o->passfd = (int)gen_arg(optarg);
			if (strcmp(optarg, "0") == 0)
				o->passfd = 0;
			if (o->passfd < 0) {
				fprintf(stderr, "calops: --passphrase-fd wants "
				    "a descriptor, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'h':
			fputs(release_usage, stdout);
			exit(0);
		default:
			fputs(release_usage, stderr);
			return -1;
		}
	}
	if (optind >= argc) {
		fputs(release_usage, stderr);
		return -1;
	}
	/* They are signed into the audit log as they are: a control or a
	 * bidirectional override there would stay in every copy of it, so
	 * they are refused here, not neutralised later. */
	if (!plain_arg("--actor", o->actor) || !plain_arg("--reason",
	    o->reason))
		return -1;
	if (o->hold != -1 && strcmp(argv[0], "apply") != 0) {
		fprintf(stderr, "calops: --hold is apply's only\n");
		return -1;
	}
	o->ws = argv[optind++];
	if (wants_n) {
		if (optind >= argc || (o->target = gen_arg(argv[optind])) ==
		    -1) {
			fprintf(stderr, "calops: %s wants the generation "
			    "number after the workspace\n", argv[0]);
			return -1;
		}
		optind++;
	}
	if (optind != argc) {
		fputs(release_usage, stderr);
		return -1;
	}
	return 0;
}

static void
print_json(json_t *o)
{
	char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	if (s != NULL)
		printf("%s\n", s);
	free(s);
	json_decref(o);
}

/* What the bindings' check says while it hashes: JSON lines with --json,
 * else a line on a terminal's stderr, at most ten times a second. */
struct bindctx {
	struct relstate	*st;
	bool		 json, tty;
	bool		 cache;		/* trust the hash cache (status) */
	int64_t		 said_ms;
	/* The hasher tells each batch (a file, a tree) from 0 to its total:
	 * the batches before are summed here, against every file of the
	 * workspace outside 08-release/, which is all it can read. */
	uint64_t	 base, batch_done, batch_total, total;
	/* What the files looked like when the last hashing began
	 * (workspace_walk()): a later walk that differs means they changed. */
	uint64_t	 mark;
	/* apply --hold: its options, to say "cancelled" and end when the
	 * console goes while the hashing runs (NULL otherwise). */
	const struct relopts *hold;
};

static int	bindings_today(void *arg, long n, const json_t *manifest,
		    struct relverdict *v);

/* ---- status, audit ---- */

static bool
state_well(const struct relstate *st)
{
	size_t i;

	for (i = 0; i < st->ngens; i++)
		if (!st->gens[i].verdict.verifies && !st->gens[i].revoked)
			return false;
	return st->current >= 1 && st->current_problem[0] == '\0' &&
	    st->audit_ok && !relstate_behind_log(st) &&
	    !relstate_disagrees(st) &&
	    st->keys_problem[0] == '\0' && (!st->revocations_present ||
	    st->revocations_ok);
}

/* A verdict's words, then why, a line each, under indent. */
static void
print_verdict(const struct relverdict *v, const char *lead, int indent)
{
	char words[1024];
	size_t i;

	relverdict_words(v, words, sizeof words);
	printf("%s%s\n", lead, words);
	if (v->verifies)
		return;
	if (v->sig == RV_SIG_OK && v->rev == RV_REV_NO &&
	    v->bind == RV_BIND_CHANGED) {
		for (i = 0; i < v->nchanges; i++)
			printf("%*s%s\n", indent, "", v->changes[i].message);
		if (v->more > 0)
			printf("%*s%zu more bindings do not hold\n", indent, "",
			    v->more);
	} else
		printf("%*s%s\n", indent, "", v->problem);
}

static void
print_status(const struct relstate *st)
{
	const struct relgen *g;
	char lead[64];
	size_t i;

	printf("workspace:   %s\n", st->ws);
	if (st->current >= 1)
		printf("current:     generation %ld%s%s\n", st->current,
		    st->current_problem[0] != '\0' ? ": " : "",
		    st->current_problem);
	else
		printf("current:     none: %s\n", st->current_problem);
	if (st->candidate >= 1)
		printf("candidate:   generation %ld\n", st->candidate);
	if (st->keys_problem[0] != '\0')
		printf("keys:        %s\n", st->keys_problem);
	if (st->revocations_problem[0] != '\0')
		printf("revocations: %s\n", st->revocations_problem);
	printf("generations:\n");
	for (i = 0; i < st->ngens; i++) {
		g = &st->gens[i];
		snprintf(lead, sizeof lead, "  %3ld  %-16.16s  ", g->n,
		    g->signer != NULL ? g->signer : "-");
		print_verdict(&g->verdict, lead, 25);
	}
	if (st->audit_ok)
		printf("audit:       %zu records, intact; head %.12s…, next seq "
		    "%zu\n", st->audit.records, st->audit.last_line_sha256,
		    st->audit.records + 1);
	else
		printf("audit:       broken at record %zu: %s\n",
		    st->audit.bad_line, st->audit.problem);
	if (relstate_behind_log(st))
		printf("roll-forward: due: the log's last switch went to "
		    "generation %lld\n", st->audit.last_switch_to);
	if (relstate_disagrees(st))
		printf("disagreement: the log's last switch went from %s to "
		    "generation %lld, and 'current' is neither: a log cut "
		    "after a whole line, or a link moved by hand; nothing is "
		    "moved\n", st->audit.last_switch_from >= 1 ?
		    "a generation" : "nothing", st->audit.last_switch_to);
}

static int
cmd_status(int argc, char **argv, bool audit_only)
{
	struct relopts o = { 0 };
	char err[512], forward[512] = "";
	struct bindctx bc = { 0 };
	struct relstate st;
	int rc, lockfd;
	json_t *j;

	if (parse(argc, argv, &o, false) != 0)
		return 2;
	if (relstate_load(&st, o.ws, err, sizeof err) != 0) {
		fprintf(stderr, "calops: %s\n", err);
		return 1;
	}
	/* A switch a crash cut short is completed by whoever looks next
	 * (release.md §2); with the lock held by an approver, it is theirs. */
	if (!audit_only && (relstate_behind_log(&st) ||
	    st.revocation_cut) && (lockfd = relswitch_lock(&st,
	    "calops release status", err, sizeof err)) != -1) {
		(void)relstate_reload(&st, NULL, 0);
		bc.st = &st;
		bc.tty = isatty(STDERR_FILENO);
		if (relrevoke_finish(&st, forward, sizeof forward) != 0 &&
		    !o.json)
			printf("calops: %s\n", forward);
		forward[0] = '\0';
		if (relswitch_roll_forward(&st, bindings_today, &bc, forward,
		    sizeof forward) != 0 && !o.json)
			printf("calops: %s\n", forward);
		close(lockfd);
	}
	/* Every generation's verdict, the candidate's bindings hashed as
	 * `calops check` hashes them (the cache trusted for a file whose
	 * inode, size, mtime and ctime are unchanged): the words verify and
	 * the switch would say, at the cost of a check. */
	if (!audit_only) {
		struct bindctx sc = { .st = &st, .cache = true };

		relstate_judge(&st, bindings_today, &sc);
	}
	if (audit_only) {
		rc = st.audit_ok ? 0 : 1;
		if (o.json) {
			j = relstate_json(&st);
			print_json(json_pack("{s:s, s:O, s:O}", "schema",
			    "calops-release-audit/v1", "audit",
			    json_object_get(j, "audit"), "records",
			    st.audit_tail != NULL ? st.audit_tail :
			    json_array()));
			json_decref(j);
		} else if (st.audit_ok)
			printf("audit.jsonl: %zu records, the chain verifies; "
			    "head %s\n", st.audit.records,
			    st.audit.last_line_sha256);
		else
			printf("audit.jsonl:%zu: the chain is broken: %s\n",
			    st.audit.bad_line, st.audit.problem);
	} else {
		rc = state_well(&st) ? 0 : 1;
		if (o.json) {
			j = relstate_json(&st);
			json_object_set_new(j, "rolled_forward", forward[0] !=
			    '\0' ? json_string(forward) : json_null());
			print_json(j);
		} else
			print_status(&st);
	}
	relstate_release(&st);
	return rc;
}

/* ---- acting ---- */

static uint64_t walked_bytes, walked_mark;

/* FNV-1a over len bytes, into *h. */
static void
mark_add(uint64_t *h, const void *p, size_t len)
{
	const unsigned char *c = p;

	while (len-- > 0)
		*h = (*h ^ *c++) * 0x100000001b3ULL;
}

static int
walk_one(const char *path, const struct stat *sb, int type, struct FTW *f)
{
	if (type == FTW_D && f->level == 1 &&
	    strcmp(path + f->base, RELSTATE_DIR) == 0)
		return FTW_SKIP_SUBTREE;
	if (type == FTW_F && S_ISREG(sb->st_mode))
		walked_bytes += (uint64_t)sb->st_size;
	/* Any write changes a file's ctime; a rename, its inode's place. */
	mark_add(&walked_mark, path, strlen(path) + 1);
	mark_add(&walked_mark, &sb->st_ino, sizeof sb->st_ino);
	mark_add(&walked_mark, &sb->st_size, sizeof sb->st_size);
	mark_add(&walked_mark, &sb->st_mtim, sizeof sb->st_mtim);
	mark_add(&walked_mark, &sb->st_ctim, sizeof sb->st_ctim);
	return FTW_CONTINUE;
}

/* Every file of ws outside 08-release/: their bytes, and a mark of their
 * names and stat data in *mark (NULL: not wanted). */
static uint64_t
workspace_walk(const char *ws, uint64_t *mark)
{
	walked_bytes = 0;
	walked_mark = 0xcbf29ce484222325ULL;
	(void)nftw(ws, walk_one, 32, FTW_PHYS | FTW_ACTIONRETVAL);
	if (mark != NULL)
		*mark = walked_mark;
	return walked_bytes;
}

static void	hold_check_input(struct bindctx *bc);
static void	report(const struct relopts *o, const char *action,
		    const char *result, const char *msg, const char *forward,
		    const struct relstate *st);

static void
say_progress(struct bindctx *bc, uint64_t done, uint64_t total)
{
	if (bc->json) {
		printf("{\"type\":\"progress\",\"done\":%llu,\"total\":%llu}\n",
		    (unsigned long long)done, (unsigned long long)total);
		fflush(stdout);
	} else if (bc->tty)
		fprintf(stderr, "\rhashing: %3.0f %% of %.1f MiB",
		    total > 0 ? 100.0 * (double)done / (double)total : 100.0,
		    (double)total / 1048576);
}

static void
bind_progress(void *arg, uint64_t done, uint64_t total)
{
	struct bindctx *bc = arg;
	int64_t now = loop_now_ms();
	uint64_t all;

	if (done < bc->batch_done || total != bc->batch_total) {
		bc->base += bc->batch_total;
		bc->batch_total = total;
	}
	bc->batch_done = done;
	if (bc->hold != NULL)
		hold_check_input(bc);
	all = bc->base + done;
	if (all > bc->total)
		bc->total = all;	/* a file grew */
	if (now - bc->said_ms < 100)
		return;
	bc->said_ms = now;
	say_progress(bc, all, bc->total);
}

/*
 * Generation n's bindings against today's artifacts, judged as G10 judges
 * its candidate's (g10_release_bindings()) on an evaluation of the
 * workspace: every byte hashed, trusting no cache, for verify and the
 * switch; through the hash cache for the status (bc->cache).
 */
static int
bindings_today(void *arg, long n, const json_t *manifest,
    struct relverdict *v)
{
	struct bindctx *bc = arg;
	struct eval_opts eo = { .no_cache = !bc->cache };
	struct eval ev;
	char err[512], why[600];

	if (!bc->cache) {
		eo.progress = bind_progress;
		eo.progress_arg = bc;
		bc->total = workspace_walk(bc->st->ws, &bc->mark);
		bc->base = bc->batch_done = bc->batch_total = 0;
	}
	if (gate_eval_run(&ev, bc->st->ws, &eo, err, sizeof err) != 0) {
		snprintf(why, sizeof why, "its bindings cannot be checked: %s",
		    err);
		relverdict_not_judged(v, why);
		return -1;
	}
	if (!bc->cache) {
		/* Done: what it read is all it had to. */
		say_progress(bc, bc->total, bc->total);
		if (bc->tty && !bc->json)
			fprintf(stderr, "\n");
	}
	(void)g10_release_bindings(&ev, n, manifest, v);
	v->cached = bc->cache;
	gate_eval_release(&ev);
	return 0;
}

/* user@host, or the uid where those are not one plain line: the actor
 * is signed into the audit log as it is (plain_arg). */
static char *
default_actor(void)
{
	struct passwd *pw = getpwuid(getuid());
	char host[256], *actor;

	if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "?");
	host[sizeof host - 1] = '\0';
	actor = xasprintf("%s@%s", pw != NULL ? pw->pw_name : "?", host);
	if (!text_plain_line(actor, NULL, 0)) {
		free(actor);
		actor = xasprintf("uid %u", (unsigned)getuid());
	}
	return actor;
}

/* The record for action, signed: a line (a new string), or NULL. */
static char *
sign_record(const struct relstate *st, const void *key, const char *key_id,
    const char *actor, const char *action, long to, const char *reason)
{
	struct relrecord r = {
		.seq = (long long)st->audit.records + 1,
		.ts = (double)time(NULL),
		.actor = (char *)actor, .key_id = (char *)key_id,
		.action = (char *)action, .from = st->current, .to = to,
		.reason = (char *)reason,
	};
	char *bytes, *sig, *line;

	memcpy(r.prev_sha256, st->audit.last_line_sha256, 65);
	if ((bytes = relrecord_signed_bytes(&r)) == NULL)
		return NULL;
	sig = relkey_sign(key, bytes, strlen(bytes));
	free(bytes);
	if (sig == NULL)
		return NULL;
	line = relrecord_line(&r, sig);
	free(sig);
	return line;
}

static void
print_event(json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);

	if (s != NULL)
		printf("%s\n", s);
	fflush(stdout);
	free(s);
	json_decref(j);
}

static const char *const rc_names[] = {
	[RS_OK] = "ok", [RS_REFUSED] = "refused", [RS_STALE] = "stale",
	[RS_BAD] = "bad", [RS_ERROR] = "error",
};

static int
exit_of(enum relswitch_rc rc)
{
	return rc == RS_OK ? 0 : rc == RS_STALE ? EXIT_STALE : 1;
}

static void
report(const struct relopts *o, const char *action, const char *result,
    const char *msg, const char *forward, const struct relstate *st)
{
	json_t *j;

	if (o->json) {
		/* text_json: a message may quote bytes that are not UTF-8. */
		j = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}",
		    "schema", "calops-release-result/v1", "action", action,
		    "result", result, "message", text_json(msg), "roll_forward",
		    forward != NULL && forward[0] != '\0' ?
		    text_json(forward) : json_null(), "current",
		    st != NULL && st->current >= 1 ? json_integer(st->current) :
		    json_null());
		/* apply --hold speaks JSON lines, this one the last. */
		if (o->hold != -1) {
			json_object_set_new(j, "type", json_string("result"));
			print_event(j);
		} else
			print_json(j);
		return;
	}
	if (forward != NULL && forward[0] != '\0')
		printf("calops: %s\n", forward);
	if (strcmp(result, "ok") == 0)
		printf("calops: %s\n", msg);
	else
		fprintf(stderr, "calops: %s\n", msg);
}

/* Lock, then complete a switch a crash cut short; -1 with the exit status
 * in *rc when it cannot go on. */
static int
lock_and_forward(struct relstate *st, const struct relopts *o,
    const char *action, const char *who, char *forward, size_t flen,
    int *rc)
{
	struct bindctx bc = { .st = st, .tty = isatty(STDERR_FILENO) };
	char err[512];
	int fd;

	if ((fd = relswitch_lock(st, who, err, sizeof err)) == -1) {
		report(o, action, "locked", err, NULL, st);
		*rc = EXIT_LOCKED;
		return -1;
	}
	(void)relstate_reload(st, NULL, 0);
	if (relrevoke_finish(st, forward, flen) == -1 ||
	    relswitch_roll_forward(st, bindings_today, &bc, forward,
	    flen) == -1) {
		report(o, action, "error", forward, NULL, st);
		close(fd);
		*rc = 1;
		return -1;
	}
	return fd;
}

/*
 * The approver's key (the passphrase asked now, before the lock: nobody
 * waits on the approver's typing) and st opened on the workspace; NULL,
 * said, when the key cannot be read or is not one of trusted-keys/:
 * anyone else is refused before the lock, and checked again under it.
 */
static void *
approver(const struct relopts *o, const char *action, struct relstate *st)
{
	char err[512];
	void *key;

	if ((key = relkey_load(o->key, o->passfd, err, sizeof err)) == NULL) {
		fprintf(stderr, "calops: %s; nothing changed\n", err);
		return NULL;
	}
	if (relstate_open(st, o->ws, err, sizeof err) != 0) {
		fprintf(stderr, "calops: %s\n", err);
		relkey_free(key);
		return NULL;
	}
	relstate_read_keys(st);
	if (relkey_trusted_name(&st->kr, key) == NULL) {
		fprintf(stderr, "calops: the key '%s' is not one of "
		    "trusted-keys/: only a trusted approver may %s; nothing "
		    "changed\n", o->key, action);
		relkey_free(key);
		relstate_release(st);
		return NULL;
	}
	return key;
}

static int
wrong_confirm(const char *action, long target, long confirm)
{
	fprintf(stderr, "calops: %s to generation %ld needs --confirm %ld: "
	    "%s; nothing changed\n", action, target, target, confirm == -1 ?
	    "it is missing" : "a different number was given");
	return 2;
}

static int
cmd_act(int argc, char **argv, bool promote)
{
	const char *action = promote ? "promote" : "rollback";
	char err[512], forward[512] = "", msg[768], reason[800], *line, *actor;
	char *safe;
	struct bindctx bc = { 0 };
	struct relopts o = { 0 };
	const char *key_id;
	struct relstate st;
	enum relswitch_rc r;
	void *key;
	int rc = 1, lockfd;

	if (parse(argc, argv, &o, promote) != 0)
		return 2;
	if (o.key == NULL) {
		fprintf(stderr, "calops: %s needs the approver's key: --key "
		    "FILE\n", action);
		return 2;
	}
	/* The typed number, before anything else is done; for a rollback to
	 * current's previous generation, once that is read. */
	if (o.target != -1 && o.confirm != o.target)
		return wrong_confirm(action, o.target, o.confirm);
	if ((key = approver(&o, action, &st)) == NULL)
		return 1;
	actor = o.actor != NULL ? xstrdup(o.actor) : default_actor();
	/* The lock, then the state read once, under it. */
	if ((lockfd = lock_and_forward(&st, &o, action, actor, forward,
	    sizeof forward, &rc)) == -1) {
		free(actor);
		goto out;
	}
	if (!promote && o.target == -1 &&
	    (o.target = relstate_rollback_target(&st, err, sizeof err)) == -1) {
		fprintf(stderr, "calops: %s\n", err);
		rc = 2;
		goto unlock;
	}
	if (o.confirm != o.target) {
		rc = wrong_confirm(action, o.target, o.confirm);
		goto unlock;
	}
	if ((key_id = relkey_trusted_name(&st.kr, key)) == NULL) {
		fprintf(stderr, "calops: the key '%s' is not one of "
		    "trusted-keys/: only a trusted approver may %s; nothing "
		    "changed\n", o.key, action);
		goto unlock;
	}
	if (o.reason != NULL)
		snprintf(reason, sizeof reason, "%s", o.reason);
	else
		snprintf(reason, sizeof reason, "%s to generation %ld", action,
		    o.target);
	line = key_id == NULL ? NULL : sign_record(&st, key, key_id, actor,
	    action, o.target, reason);
	if (line == NULL) {
		report(&o, action, "error", "the record cannot be signed (a "
		    "text in it is not UTF-8)", forward, &st);
		goto unlock;
	}
	bc.st = &st;
	bc.tty = isatty(STDERR_FILENO);
	r = relswitch_apply(&st, line, strlen(line), bindings_today, &bc, msg,
	    sizeof msg);
	free(line);
	if (r == RS_REFUSED) {
		/* The attempt goes on the log, signed by the same approver
		 * (release.md §3). */
		/* Its words come partly from the workspace's files: valid
		 * UTF-8, whatever they held, or nothing could be signed. */
		safe = text_sanitize_str(msg);
		line = sign_record(&st, key, key_id, actor, "refused",
		    o.target, safe);
		free(safe);
		if (line == NULL)
			snprintf(err, sizeof err, "it cannot be signed");
		if (line == NULL || relswitch_apply(&st, line, strlen(line),
		    NULL, NULL, err, sizeof err) != RS_OK)
			snprintf(msg + strlen(msg), sizeof msg - strlen(msg),
			    " (and the refusal could not be logged: %s)", err);
		free(line);
	}
	report(&o, action, rc_names[r], msg, forward, &st);
	rc = exit_of(r);
unlock:
	close(lockfd);
	free(actor);
out:
	relkey_free(key);
	relstate_release(&st);
	return rc;
}

/* Whether v's bindings were hashed: the verify events' bindings_checked. */
static bool
hashed(const struct relverdict *v)
{
	return v->bind == RV_BIND_MATCH || v->bind == RV_BIND_CHANGED;
}

static int
cmd_verify(int argc, char **argv)
{
	struct relopts o = { 0 };
	struct bindctx bc = { 0 };
	struct relverdict v;
	char err[512], lead[48];
	struct relstate st;
	int rc;

	if (parse(argc, argv, &o, true) != 0)
		return 2;
	if (relstate_load(&st, o.ws, err, sizeof err) != 0) {
		fprintf(stderr, "calops: %s\n", err);
		return 1;
	}
	bc.st = &st;
	bc.json = o.json;
	bc.tty = isatty(STDERR_FILENO);
	if (relstate_verdict(&st, o.target, bindings_today, &bc, &v) != 0 &&
	    !o.json)
		printf("generation %ld does not verify: %s\n", o.target,
		    v.problem);
	else if (o.json) {
		char *s;
		json_t *j = json_pack("{s:s, s:s, s:I, s:b, s:b, s:o, s:o}",
		    "type", "result", "schema", "calops-release-verify/v1",
		    "generation", (json_int_t)o.target, "verifies", v.verifies,
		    "bindings_checked", hashed(&v), "problem", v.verifies ?
		    json_null() : text_json(v.problem), "verdict",
		    relverdict_json(&v));

		s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
		printf("%s\n", s);
		free(s);
		json_decref(j);
	} else {
		snprintf(lead, sizeof lead, "generation %ld ", o.target);
		print_verdict(&v, lead, 2);
	}
	rc = v.verifies ? 0 : 1;
	relstate_release(&st);
	relverdict_release(&v);
	return rc;
}

static int
cmd_revoke(int argc, char **argv)
{
	char forward[512] = "", msg[768], *actor;
	struct relopts o = { 0 };
	struct relstate st;
	void *key;
	int rc = 1, lockfd, w;

	if (parse(argc, argv, &o, true) != 0)
		return 2;
	if (o.key == NULL || o.reason == NULL) {
		fprintf(stderr, "calops: revoke needs --key FILE and --reason "
		    "TEXT\n");
		return 2;
	}
	if (o.confirm != o.target) {
		fprintf(stderr, "calops: revoking generation %ld needs "
		    "--confirm %ld; nothing changed\n", o.target, o.target);
		return 2;
	}
	if ((key = approver(&o, "revoke", &st)) == NULL)
		return 1;
	actor = o.actor != NULL ? xstrdup(o.actor) : default_actor();
	if ((lockfd = lock_and_forward(&st, &o, "revoke", actor, forward,
	    sizeof forward, &rc)) != -1) {
		if (relkey_trusted_name(&st.kr, key) == NULL)
			fprintf(stderr, "calops: the key '%s' is not one of "
			    "trusted-keys/: only a trusted approver may revoke; "
			    "nothing changed\n", o.key);
		else {
			w = relrevoke_write(&st, key, o.target, o.reason, msg,
			    sizeof msg);
			report(&o, "revoke", w == 0 ? "ok" : w == 1 ?
			    "refused" : "error", msg, forward, &st);
			rc = w == 0 ? 0 : 1;
		}
		close(lockfd);
	}
	free(actor);
	relkey_free(key);
	relstate_release(&st);
	return rc;
}

/* How long apply --hold waits for the approver's record, holding the
 * lock: an approval left open does not lock others out for ever. */
#define HOLD_WAIT_MS	(10 * 60 * 1000)

/*
 * apply --hold: the target's verdict, reached under the lock held since,
 * is the one the switch uses, unless a file of the workspace changed
 * meanwhile (the lock covers 08-release/ only; a rebuild does not take
 * it): then the bindings are hashed again, in full.
 */
struct heldctx {
	struct bindctx	*bc;
	long		 n;
	struct relverdict v;		/* n's, as said under the lock */
};

static int
held_bindings(void *arg, long n, const json_t *manifest,
    struct relverdict *v)
{
	struct heldctx *h = arg;
	uint64_t mark;

	if (n != h->n || !hashed(&h->v))
		return bindings_today(h->bc, n, manifest, v);
	(void)workspace_walk(h->bc->st->ws, &mark);
	if (mark != h->bc->mark)
		return bindings_today(h->bc, n, manifest, v);
	relverdict_copy_bindings(v, &h->v);
	return 0;
}

/*
 * While apply --hold hashes, the console may go (its approval given up, its
 * link dropped): stdin at its end.  Then nothing more is to be done, and
 * the lock is let go now rather than when the hashing ends.
 */
static void
hold_check_input(struct bindctx *bc)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	int avail = 0;

	if (poll(&pfd, 1, 0) != 1)
		return;
	if (pfd.revents & POLLIN) {
		/* Readable: bytes (a record, read once verified), or its
		 * end (nothing to read). */
		if (ioctl(STDIN_FILENO, FIONREAD, &avail) != 0 || avail > 0)
			return;
	} else if (!(pfd.revents & (POLLHUP | POLLERR)))
		return;
	report(bc->hold, "apply", "cancelled", "the approval was cancelled "
	    "while the target was being verified; nothing changed", NULL,
	    bc->st);
	exit(1);
}

/*
 * The record: all of stdin, until its end, within HOLD_WAIT_MS; it must be
 * one line.  The line (newline dropped), or NULL with why in msg.
 */
static char *
read_held_record(size_t *len, char *msg, size_t msglen)
{
	int64_t deadline = loop_now_ms() + HOLD_WAIT_MS, left;
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	struct buf b = BUF_INIT;
	char chunk[4096];
	ssize_t n;

	buf_init(&b, RECORD_MAX + 1);
	for (;;) {
		if ((left = deadline - loop_now_ms()) <= 0) {
			errbuf_set(msg, msglen, "no record came within %d "
			    "minutes; nothing changed", HOLD_WAIT_MS / 60000);
			goto fail;
		}
		if (poll(&pfd, 1, (int)left) == -1 && errno != EINTR)
			goto broken;
		if ((n = read(STDIN_FILENO, chunk, sizeof chunk)) == 0)
			break;
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n == -1)
			goto broken;
		if (buf_add(&b, chunk, (size_t)n) != 0) {
			errbuf_set(msg, msglen, "not one record: more than %u "
			    "bytes; nothing changed", RECORD_MAX);
			goto fail;
		}
	}
	if (b.len == 0) {
		errbuf_set(msg, msglen, "the approval was cancelled; nothing "
		    "changed");
		goto fail;
	}
	if (b.data[b.len - 1] != '\n' || memchr(b.data, '\n', b.len) !=
	    b.data + b.len - 1 || memchr(b.data, '\0', b.len) != NULL) {
		errbuf_set(msg, msglen, "not one record: one line of text and "
		    "nothing more; nothing changed");
		goto fail;
	}
	*len = b.len - 1;
	b.data[*len] = '\0';
	return buf_detach(&b, NULL);
broken:
	errbuf_set(msg, msglen, "cannot read the record: %s; nothing changed",
	    strerror(errno));
fail:
	buf_release(&b);
	return NULL;
}

/* What the console builds its record on, under the lock: where current
 * points, the log's next seq and head, who may sign (the generations it
 * has from status; a line of them all could outgrow what a transport
 * takes as one line). */
static json_t *
held_event(const struct relstate *st, const char *forward)
{
	return json_pack("{s:s, s:o, s:I, s:s, s:o, s:o}", "type", "held",
	    "current", st->current >= 1 ? json_integer(st->current) :
	    json_null(), "next_seq", (json_int_t)st->audit.records + 1,
	    "head_sha256", st->audit.last_line_sha256,
	    "trusted_keys", relstate_trusted_keys_json(st),
	    "rolled_forward", forward[0] != '\0' ? text_json(forward) :
	    json_null());
}

/*
 * apply --hold N --json: the console's approval (release.md §5).  The lock
 * is taken at once and held while the approver decides: the state is said
 * under it (the record is built against it, so it cannot be stale), then
 * N is verified with progress, then one signed record is read and acted
 * on, or nothing is done when stdin ends first.  A second approver is
 * refused the whole time, told who holds it.
 */
static int
cmd_apply_hold(struct relopts *o)
{
	char forward[512] = "", msg[768], who[200], *line, *actor;
	struct bindctx bc = { .json = true, .hold = o };
	struct heldctx h = { .bc = &bc, .n = o->hold };
	struct relstate st;
	enum relswitch_rc r;
	size_t len;
	int rc = 1, lockfd;

	if (relstate_open(&st, o->ws, msg, sizeof msg) != 0) {
		report(o, "apply", "error", msg, NULL, NULL);
		return 1;
	}
	actor = o->actor != NULL ? xstrdup(o->actor) : default_actor();
	snprintf(who, sizeof who, "%s (approving in a console)", actor);
	free(actor);
	bc.st = &st;
	if ((lockfd = lock_and_forward(&st, o, "apply", who, forward,
	    sizeof forward, &rc)) == -1)
		goto out;
	print_event(held_event(&st, forward));
	(void)relstate_verdict(&st, o->hold, bindings_today, &bc, &h.v);
	print_event(json_pack("{s:s, s:I, s:b, s:b, s:o, s:o}", "type",
	    "verified", "generation", (json_int_t)o->hold, "verifies",
	    h.v.verifies, "bindings_checked", hashed(&h.v), "problem",
	    h.v.verifies ? json_null() : text_json(h.v.problem), "verdict",
	    relverdict_json(&h.v)));
	bc.hold = NULL;		/* the input is the record's from here */
	if ((line = read_held_record(&len, msg, sizeof msg)) == NULL) {
		report(o, "apply", "cancelled", msg, NULL, &st);
		close(lockfd);
		goto out;
	}
	/* The approver has signed: the switch is finished whatever happens
	 * to the console now (its answer may find nobody to read it). */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	r = relswitch_apply(&st, line, len, held_bindings, &h, msg,
	    sizeof msg);
	report(o, "apply", rc_names[r], msg, NULL, &st);
	rc = exit_of(r);
	free(line);
	close(lockfd);
out:
	relverdict_release(&h.v);
	relstate_release(&st);
	return rc;
}

static int
cmd_apply(int argc, char **argv)
{
	char forward[512] = "", msg[768], *line, who[160];
	struct relrecord peek;
	struct bindctx bc = { 0 };
	struct relopts o = { 0 };
	struct relstate st;
	enum relswitch_rc r;
	size_t len;
	int rc = 1, lockfd;

	if (parse(argc, argv, &o, false) != 0)
		return 2;
	if (o.hold != -1) {
		if (!o.json) {
			fprintf(stderr, "calops: apply --hold speaks JSON "
			    "lines only: add --json\n");
			return 2;
		}
		return cmd_apply_hold(&o);
	}
	line = xmalloc(RECORD_MAX + 2);
	if (fgets(line, RECORD_MAX + 2, stdin) == NULL ||
	    (len = strlen(line)) == 0 || line[len - 1] != '\n' ||
	    len > RECORD_MAX || getc(stdin) != EOF) {
		fprintf(stderr, "calops: apply reads exactly one record, a line "
		    "of at most %u bytes with no NUL, on standard input\n",
		    RECORD_MAX);
		free(line);
		return 2;
	}
	line[--len] = '\0';
	if (relstate_open(&st, o.ws, msg, sizeof msg) != 0) {
		fprintf(stderr, "calops: %s\n", msg);
		free(line);
		return 1;
	}
	/* The lock names the approver (release.md §2), from the record;
	 * what it says is checked under the lock. */
	if (relrecord_parse(line, len, &peek, msg, sizeof msg) == 0)
		snprintf(who, sizeof who, "%s (an approval sent here)",
		    peek.actor);
	else
		snprintf(who, sizeof who, "an approval sent here");
	relrecord_free(&peek);
	bc.st = &st;
	if ((lockfd = lock_and_forward(&st, &o, "apply", who, forward,
	    sizeof forward, &rc)) != -1) {
		r = relswitch_apply(&st, line, len, bindings_today, &bc, msg,
		    sizeof msg);
		report(&o, "apply", rc_names[r], msg, forward, &st);
		rc = exit_of(r);
		close(lockfd);
	}
	relstate_release(&st);
	free(line);
	return rc;
}

int
cmd_release(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "";

	if (strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
		fputs(release_usage, stdout);
		return 0;
	}
	if (strcmp(sub, "status") == 0)
		return cmd_status(argc - 1, argv + 1, false);
	if (strcmp(sub, "audit") == 0)
		return cmd_status(argc - 1, argv + 1, true);
	if (strcmp(sub, "promote") == 0)
		return cmd_act(argc - 1, argv + 1, true);
	if (strcmp(sub, "rollback") == 0)
		return cmd_act(argc - 1, argv + 1, false);
	if (strcmp(sub, "apply") == 0)
		return cmd_apply(argc - 1, argv + 1);
	if (strcmp(sub, "verify") == 0)
		return cmd_verify(argc - 1, argv + 1);
	if (strcmp(sub, "revoke") == 0)
		return cmd_revoke(argc - 1, argv + 1);
	fputs(release_usage, stderr);
	return 2;
}
