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
#include "job/jobstore.h"
#include "loop/loop.h"
#include "release/relpending.h"
#include "release/relrevoke.h"
#include "release/relstate.h"
#include "release/relswitch.h"
#include "lab/chipstep.h"
#include "lab/labcmd.h"
#include "remote/lab.h"

#define RECORD_MAX	(64u << 10)

/* Exit statuses beyond 0, 1 and 2 (usage). */
#define EXIT_LOCKED	3
#define EXIT_STALE	4

static const char release_usage[] =
    "usage: calops release status WS [--json]\n"
    "       calops release audit WS [--json]\n"
    "       calops release promote WS N --key FILE --confirm N\n"
    "                      --lab LAB --host H --chip C [options]\n"
    "       calops release promote WS N --key FILE --confirm N\n"
    "                      --no-chip-step --reason TEXT [options]\n"
    "       calops release rollback WS [--to N] --key FILE --confirm N\n"
    "                      [--chip-step --lab LAB --host H --chip C] "
    "[options]\n"
    "       calops release recover WS --key FILE [--lab LAB]\n"
    "       calops release verify WS N [--json]\n"
    "       calops release revoke WS N --reason TEXT --key FILE --confirm N\n"
    "       calops release apply WS [--json]      (a signed record on "
    "stdin)\n"
    "       calops release apply WS --hold N --json [--actor NAME]\n"
    "\n"
    "The release of workspace WS (08-release/): its generations, `current`\n"
    "and the audit log.  promote points `current` at generation N once its\n"
    "chip step passed: the runner's inspect and golden with N's package on\n"
    "chip C of lab host H, a lab job run under the release lock;\n"
    "rollback at an earlier one, by default current's previous_generation,\n"
    "with no chip step unless --chip-step asks for one.  A promote killed\n"
    "during its chip step is said by status, and recover stops its job\n"
    "and signs its refusal (until then no promote).\n"
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
    "  --lab LAB           the lab file naming the chip step's host\n"
    "  --host H            the lab host whose chip runs the chip step\n"
    "  --chip C            the chip (one of the host's chips:)\n"
    "  --workspace W       the workspace on H holding N's package, as the\n"
    "                      lab file gives it (default: WS, or H's only one)\n"
    "  --no-chip-step      promote without the chip step; --reason says why\n"
    "                      and the record carries it\n"
    "  --chip-step         rollback: run the chip step first\n"
    "  --timeout S         stop a chip step still running after S seconds\n"
    "                      (default 3600): cut short, refused\n"
    "  --write H           run the chip step on H although it is protected\n"
    "  --ssh-config FILE   read FILE instead of ~/.ssh/config\n"
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
	/* The chip step (release.md §6): where it runs, or why none. */
	const char	*lab, *host, *workspace, *write, *ssh_config;
	long		 chip;		/* -1: not given */
	long		 timeout_s;
	bool		 no_chip_step, chip_step;
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

/* A number from 0 to max, or -1. */
static long
number_arg(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	return errno == 0 && end != s && *end == '\0' && s[0] >= '0' &&
	    s[0] <= '9' && v <= max ? v : -1;
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
		{ "lab", required_argument, NULL, 'L' },
		{ "host", required_argument, NULL, 'O' },
		{ "chip", required_argument, NULL, 'C' },
		{ "workspace", required_argument, NULL, 'W' },
		{ "write", required_argument, NULL, 'w' },
		{ "ssh-config", required_argument, NULL, 'F' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "no-chip-step", no_argument, NULL, 'N' },
		{ "chip-step", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->target = o->confirm = o->hold = o->chip = -1;
	o->passfd = -1;
	o->timeout_s = 3600;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'k': o->key = optarg; break;
		case 'a': o->actor = optarg; break;
		case 'r': o->reason = optarg; break;
		case 'j': o->json = true; break;
		case 'L': o->lab = optarg; break;
		case 'O': o->host = optarg; break;
		case 'W': o->workspace = optarg; break;
		case 'w': o->write = optarg; break;
		case 'F': o->ssh_config = optarg; break;
		case 'N': o->no_chip_step = true; break;
		case 'S': o->chip_step = true; break;
		case 'C':
			o->chip = number_arg(optarg, LAB_CHIP_MAX);
			if (o->chip == -1) {
				fprintf(stderr, "calops: --chip wants a chip "
				    "number, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'T':
			if ((o->timeout_s = number_arg(optarg, 86400)) < 1) {
				fprintf(stderr, "calops: --timeout takes 1 to "
				    "86400 seconds, not '%s'\n", optarg);
				return -1;
			}
			break;
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
	uint64_t	 said_done;	/* the most said: never less after */
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
	    st->audit_ok && !relstate_behind_log(st) && !st->pending &&
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

/* What the last switch carried and keeps (release.md §6): the generation
 * current replaced, kept through current's observation window; a promote
 * made without a chip step, in the approver's words. */
static void
print_window(const struct relstate *st)
{
	char when[32], *safe;
	double until;
	long kept;

	if (relstate_kept(st, (double)time(NULL), &kept, &until)) {
		relstate_iso(until, when, sizeof when);
		printf("observation: generation %ld's window is open: "
		    "generation %ld kept until %s\n", st->current, kept, when);
	}
	if (st->audit_ok && st->current >= 1 &&
	    st->audit.last_switch_to == st->current &&
	    st->audit.last_switch_chip == RELCHIP_SKIPPED) {
		safe = text_sanitize_str(st->audit.last_switch_skipped);
		printf("chip step:   promoted without a chip step: \"%s\"\n",
		    safe);
		free(safe);
	}
}

static void
print_status(const struct relstate *st)
{
	const struct relgen *g;
	char lead[64], when[32];
	double until;
	long kept = -1;
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
	else
		printf("candidate:   none\n");
	if (st->keys_problem[0] != '\0')
		printf("keys:        %s\n", st->keys_problem);
	if (st->revocations_problem[0] != '\0')
		printf("revocations: %s\n", st->revocations_problem);
	if (!relstate_kept(st, (double)time(NULL), &kept, &until))
		kept = -1;
	printf("generations:\n");
	for (i = 0; i < st->ngens; i++) {
		g = &st->gens[i];
		snprintf(lead, sizeof lead, "  %3ld  %-16.16s  ", g->n,
		    g->signer != NULL ? g->signer : "-");
		print_verdict(&g->verdict, lead, 25);
		if (g->n == kept) {
			relstate_iso(until, when, sizeof when);
			printf("%25skept until %s (generation %ld's "
			    "observation window)\n", "", when, st->current);
		}
	}
	if (st->audit_ok)
		printf("audit:       %zu records, intact; head %.12s…, next seq "
		    "%zu\n", st->audit.records, st->audit.last_line_sha256,
		    st->audit.records + 1);
	else
		printf("audit:       broken at record %zu: %s\n",
		    st->audit.bad_line, st->audit.problem);
	print_window(st);
	if (st->pending) {
		char words[1024];

		relstate_pending_words(st, words, sizeof words);
		printf("interrupted: %s: `calops release recover WS --key FILE` "
		    "stops its job and signs its refusal; until then no "
		    "promote\n", words);
	}
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
	if (!audit_only && (relstate_behind_log(&st) || st.revocation_cut ||
	    st.pending_stale) && (lockfd = relswitch_lock(&st,
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
		relswitch_settle(&st);
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
			/* forward may quote a problem cut to fit: text_json,
			 * as report() and held_event() say it. */
			json_object_set_new(j, "rolled_forward", forward[0] !=
			    '\0' ? text_json(forward) : json_null());
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
	/* A batch the hasher tells again, or a second judging, counts from
	 * its own 0: a reader of the progress sees it only go forward. */
	if (done < bc->said_done)
		done = bc->said_done;
	if (total < done)
		total = done;
	bc->said_done = done;
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
	/* The bindings are hashed here too (no cache to share with the
	 * evaluation), with the same progress. */
	(void)g10_release_bindings(&ev, n, manifest, v);
	if (!bc->cache) {
		/* Done: what it read is all it had to. */
		say_progress(bc, bc->total, bc->total);
		if (bc->tty && !bc->json)
			fprintf(stderr, "\n");
	}
	v->cached = bc->cache;
	gate_eval_release(&ev);
	return 0;
}

/* The record for action, signed: a line (a new string), or NULL.  chip
 * (borrowed; NULL: none) is its chip_step. */
static char *
sign_record(const struct relstate *st, const void *key, const char *key_id,
    const char *actor, const char *action, long to, const char *reason,
    const struct relchip *chip)
{
	struct relrecord r = {
		.seq = (long long)st->audit.records + 1,
		.ts = (double)time(NULL),
		.actor = (char *)actor, .key_id = (char *)key_id,
		.action = (char *)action, .from = st->current, .to = to,
		.reason = (char *)reason,
	};
	char *bytes, *sig, *line;

	if (chip != NULL)
		r.chip = *chip;	/* borrowed: r is not freed */
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

void
cmd_release_event(json_t *j)
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
			cmd_release_event(j);
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
	relswitch_settle(st);
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
	st->skip_tail = true;	/* it acts; it shows no records */
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

/* Whether v's bindings were hashed: the verify events' bindings_checked. */
static bool
hashed(const struct relverdict *v)
{
	return v->bind == RV_BIND_MATCH || v->bind == RV_BIND_CHANGED;
}

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

/* Where a chip step runs (release.md §6): the lab file read, its host,
 * and the workspace there that holds the generation's package. */
struct chipplan {
	struct lab		 lab;
	bool			 loaded;
	const struct lab_host	*h;
	const char		*ws;		/* borrowed from lab */
};

/* Who acts, for a chip step's marker, and whether it was written. */
struct actctx {
	const char	*action, *key_id, *actor;
	bool		 marked;
};

/*
 * Whether this promote or rollback runs a chip step: 1 when it does, 0
 * when not (a rollback as usual, a promote the approver chose to run
 * without one, saying why), -1 when the options say neither (said).
 */
static int
chip_wanted(const struct relopts *o, bool promote)
{
	bool where = o->lab != NULL || o->host != NULL || o->chip != -1;

	if (o->no_chip_step && (o->chip_step || where)) {
		fprintf(stderr, "calops: --no-chip-step runs none: it takes no "
		    "--chip-step, --lab, --host or --chip\n");
		return -1;
	}
	if (!promote && o->no_chip_step) {
		fprintf(stderr, "calops: a rollback runs no chip step unless "
		    "--chip-step asks for one\n");
		return -1;
	}
	if (promote && o->chip_step) {
		fprintf(stderr, "calops: --chip-step is rollback's: a promote "
		    "runs one always (--lab, --host, --chip), or none with "
		    "--no-chip-step --reason TEXT\n");
		return -1;
	}
	if (o->no_chip_step) {
		if (o->reason != NULL)
			return 0;
		fprintf(stderr, "calops: --no-chip-step needs --reason TEXT: "
		    "the record carries why the chip step was skipped\n");
		return -1;
	}
	if (!promote && !o->chip_step && !where)
		return 0;
	if (!promote && !o->chip_step) {
		fprintf(stderr, "calops: a rollback runs a chip step only with "
		    "--chip-step\n");
		return -1;
	}
	if (o->lab != NULL && o->host != NULL && o->chip != -1)
		return 1;
	if (promote)
		fprintf(stderr, "calops: a promote runs the chip step first "
		    "(share/doc/release.md §6): give --lab LAB --host H --chip "
		    "C, or --no-chip-step --reason TEXT to promote without one "
		    "(the record says so)\n");
	else
		fprintf(stderr, "calops: --chip-step needs --lab LAB --host H "
		    "--chip C\n");
	return -1;
}

/* The workspace on p->h that holds the package: --workspace, else WS
 * itself on a local host, else the host's only one; NULL, said. */
static const char *
chip_workspace(const struct relopts *o, struct chipplan *p)
{
	const struct lab_workspace *w = NULL;
	size_t n = 0;

	if (o->workspace != NULL)
		w = lab_find_workspace(&p->lab, p->h->name, o->workspace, &n);
	else {
		if (p->h->transport == LAB_LOCAL)
			w = lab_find_workspace(&p->lab, p->h->name, o->ws, &n);
		if (w == NULL && ((w = lab_find_workspace(&p->lab,
		    p->h->name, NULL, &n)) == NULL || n != 1))
			w = NULL;
	}
	if (w != NULL)
		return w->path;
	if (o->workspace != NULL)
		fprintf(stderr, "calops: '%s' is not a workspace of host '%s' "
		    "in the lab file\n", o->workspace, p->h->name);
	else
		fprintf(stderr, "calops: host '%s' has %zu workspaces in the "
		    "lab file: say which holds the package with --workspace\n",
		    p->h->name, n);
	return NULL;
}

/* Read the lab file and check where the chip step runs, before the lock;
 * 0, or the exit status (said). */
static int
chip_plan(const struct relopts *o, struct chipplan *p)
{
	char err[1024], chips[256];
	size_t i;

	if (lab_load(&p->lab, o->lab, err, sizeof err) != 0) {
		fprintf(stderr, "calops: %s\n", err);
		return 2;
	}
	p->loaded = true;
	if ((p->h = lab_host(&p->lab, o->host)) == NULL) {
		fprintf(stderr, "calops: no host '%s' in the lab file '%s'\n",
		    o->host, o->lab);
		return 2;
	}
	if (p->h->protected && (o->write == NULL ||
	    strcmp(o->write, p->h->name) != 0)) {
		fprintf(stderr, "calops: host '%s' is protected: its chips run "
		    "the chip step only with --write %s; nothing changed\n",
		    p->h->name, p->h->name);
		return 1;
	}
	for (i = 0; i < p->h->nchips && p->h->chips[i] != o->chip; i++)
		;
	if (p->h->nchips > 0 && i == p->h->nchips) {
		labcmd_chips_text(p->h->chips, p->h->nchips, chips,
		    sizeof chips);
		fprintf(stderr, "calops: chip %ld is not one of host '%s''s "
		    "chips (%s)\n", o->chip, p->h->name, chips);
		return 2;
	}
	return (p->ws = chip_workspace(o, p)) == NULL ? 2 : 0;
}

/* The chip step's progress on a terminal, and its job's id at its start
 * on stderr for a script's log. */
static void
say_chip(const struct chipstep *cs, void *arg)
{
	const struct chipplan *p = arg;

	if (cs->events == 0) {
		fprintf(stderr, "calops: chip step: job %s on %s\n", cs->job,
		    p->h->name);
		return;
	}
	if (!isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\rchip step: %s %.0f/%.0f%s", cs->phase, cs->done,
	    cs->total, cs->ended ? "\n" : "   ");
}

/*
 * The marker of a chip step about to start (relpending.h), durable before
 * its job exists: a command killed from here on leaves it, for the next
 * one to say and `calops release recover` to end in a refusal.  0, or -1
 * with msg (nothing started).
 */
static int
mark_pending(struct relstate *st, const struct relopts *o,
    const struct chipplan *p, const struct actctx *a, const char *job,
    char *msg, size_t msglen)
{
	struct relpending m = { .generation = o->target, .chip = o->chip,
	    .since = (double)time(NULL) };
	char *lab = realpath(o->lab, NULL), err[512];

	snprintf(m.action, sizeof m.action, "%s", a->action);
	snprintf(m.job, sizeof m.job, "%s", job);
	snprintf(m.host, sizeof m.host, "%s", p->h->name);
	snprintf(m.key_id, sizeof m.key_id, "%s", a->key_id);
	snprintf(m.actor, sizeof m.actor, "%s", a->actor);
	snprintf(m.by, sizeof m.by, "calops release %s", a->action);
	snprintf(m.lab, sizeof m.lab, "%s", lab != NULL ? lab : o->lab);
	free(lab);
	if (relpending_write(st->dirfd, &m, err, sizeof err) != 0) {
		errbuf_set(msg, msglen, "%s: the chip step did not start; "
		    "nothing changed", err);
		return -1;
	}
	return 0;
}

/*
 * The chip step of target, under the lock: target verified first, as
 * today (nothing disturbs a chip for a generation that cannot go live),
 * its verdict kept in held for the switch; then the lab job, followed to
 * its end.  RS_OK with *out its chip_step (borrowing cs and p), or
 * RS_REFUSED with the refusal's reason in msg.
 */
static enum relswitch_rc
chip_step(struct relstate *st, const struct relopts *o,
    const struct chipplan *p, struct actctx *a, struct heldctx *held,
    struct chipstep *cs, struct relchip *out, char *msg, size_t msglen)
{
	const struct relgen *g = relstate_gen(st, o->target);
	const char *tree;
	char err[512], job[64];

	(void)relstate_verdict(st, o->target, bindings_today, held->bc,
	    &held->v);
	if (!held->v.verifies) {
		errbuf_set(msg, msglen, "generation %ld does not verify: %s",
		    o->target, held->v.problem);
		return RS_REFUSED;
	}
	tree = g != NULL ? json_string_value(json_object_get(g->doc,
	    "calbin_tree_sha256")) : NULL;
	jobstore_id_generate(job, sizeof job);
	if (mark_pending(st, o, p, a, job, msg, msglen) != 0)
		return RS_ERROR;
	a->marked = true;
	if (chipstep_run(&p->lab, p->h, p->ws, o->target, (int)o->chip, job,
	    o->ssh_config, o->timeout_s, say_chip, (void *)p, cs, err,
	    sizeof err) != 0) {
		errbuf_set(msg, msglen, "the chip step could not start on %s: "
		    "%s", p->h->name, err);
		return RS_REFUSED;
	}
	relswitch_fault_kill("chip-done");
	if (!chipstep_judge(cs, tree)) {
		errbuf_set(msg, msglen, "%s", cs->problem);
		return RS_REFUSED;
	}
	out->kind = RELCHIP_RAN;
	out->host = (char *)p->h->name;
	out->chip = o->chip;
	out->job = cs->job;
	memcpy(out->golden_sha256, cs->golden_sha256, 65);
	return RS_OK;
}

/* The refusal of an approved action, signed by the same approver and
 * appended (release.md §3); what failed is added to msg. */
static void
log_refusal(struct relstate *st, const void *key, const char *key_id,
    const char *actor, long to, char *msg, size_t msglen)
{
	char err[512], *safe, *line;

	/* Its words come partly from the workspace's files and the lab
	 * host: valid UTF-8, whatever they held, or nothing could be
	 * signed. */
	safe = text_sanitize_str(msg);
	line = sign_record(st, key, key_id, actor, "refused", to, safe, NULL);
	free(safe);
	if (line == NULL)
		snprintf(err, sizeof err, "it cannot be signed");
	if (line == NULL || relswitch_apply(st, line, strlen(line), NULL,
	    NULL, err, sizeof err) != RS_OK)
		snprintf(msg + strlen(msg), msglen - strlen(msg), " (and the "
		    "refusal could not be logged: %s)", err);
	free(line);
}

static int
cmd_act(int argc, char **argv, bool promote)
{
	const char *action = promote ? "promote" : "rollback";
	char err[512], forward[512] = "", msg[768], reason[800], *line, *actor;
	struct bindctx bc = { 0 };
	struct heldctx held = { .bc = &bc };
	struct relopts o = { 0 };
	struct chipplan plan = { 0 };
	struct relchip chip = { 0 };
	struct chipstep cs;
	struct actctx ac = { .action = action };
	const char *key_id;
	struct relstate st;
	enum relswitch_rc r = RS_OK;
	void *key;
	int rc = 1, lockfd, want;

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
	if ((want = chip_wanted(&o, promote)) == -1)
		return 2;
	if (want == 1 && (rc = chip_plan(&o, &plan)) != 0)
		goto out_lab;
	rc = 1;
	if ((key = approver(&o, action, &st)) == NULL)
		goto out_lab;
	actor = o.actor != NULL ? xstrdup(o.actor) : jobstore_default_actor();
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
	/* A promote cut short ends in its refusal before another begins. */
	if (promote && st.pending) {
		relstate_pending_words(&st, err, sizeof err);
		snprintf(msg, sizeof msg, "%s: its refusal is signed first "
		    "(calops release recover WS --key FILE); nothing changed",
		    err);
		report(&o, action, "refused", msg, forward, &st);
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
	bc.st = &st;
	bc.tty = isatty(STDERR_FILENO);
	held.n = o.target;
	ac.key_id = key_id;
	ac.actor = actor;
	if (want == 1)
		r = chip_step(&st, &o, &plan, &ac, &held, &cs, &chip, msg,
		    sizeof msg);
	else if (promote) {
		chip.kind = RELCHIP_SKIPPED;
		chip.skipped = reason;
	}
	if (r == RS_OK) {
		line = sign_record(&st, key, key_id, actor, action, o.target,
		    reason, &chip);
		if (line == NULL) {
			report(&o, action, "error", "the record cannot be "
			    "signed (a text in it is not UTF-8)", forward, &st);
			goto unlock;
		}
		/* The target's verdict reached before the chip step stands
		 * unless a file of the workspace changed meanwhile. */
		r = relswitch_apply(&st, line, strlen(line), want == 1 ?
		    held_bindings : bindings_today, want == 1 ? (void *)&held :
		    (void *)&bc, msg, sizeof msg);
		free(line);
	}
	if (r == RS_REFUSED)
		log_refusal(&st, key, key_id, actor, o.target, msg,
		    sizeof msg);
	/* The chip step is over and this command says how (its record, its
	 * refusal, or why neither could be written): only a command killed
	 * before here leaves the marker, for recover. */
	if (ac.marked && relpending_clear(st.dirfd, err, sizeof err) != 0)
		snprintf(msg + strlen(msg), sizeof msg - strlen(msg), " (%s)",
		    err);
	else if (r == RS_OK && chip.kind == RELCHIP_RAN)
		snprintf(msg + strlen(msg), sizeof msg - strlen(msg), ", after "
		    "its chip step (job %s on %s, chip %ld: golden passed, "
		    "%.12s…)", chip.job, chip.host, chip.chip,
		    chip.golden_sha256);
	report(&o, action, rc_names[r], msg, forward, &st);
	rc = exit_of(r);
unlock:
	close(lockfd);
	free(actor);
out:
	relkey_free(key);
	relstate_release(&st);
	relverdict_release(&held.v);
out_lab:
	if (plan.loaded)
		lab_release(&plan.lab);
	return rc;
}

/* The job of a chip step cut short, stopped if it still runs; what
 * became of it, in words, into note. */
static void
stop_pending_job(const struct relopts *o, const struct relpending *m,
    char *note, size_t len)
{
	const char *path = o->lab != NULL ? o->lab : m->lab[0] != '\0' ?
	    m->lab : NULL;
	const struct lab_host *h;
	char err[1024];
	struct lab lab;

	if (path == NULL) {
		errbuf_set(note, len, "its job %s was not stopped: no lab file "
		    "names host '%s' (--lab)", m->job, m->host);
		return;
	}
	if (lab_load(&lab, path, err, sizeof err) != 0) {
		errbuf_set(note, len, "its job %s was not stopped: %s", m->job,
		    err);
		return;
	}
	if ((h = lab_host(&lab, m->host)) == NULL)
		errbuf_set(note, len, "its job %s was not stopped: no host "
		    "'%s' in the lab file '%s'", m->job, m->host, path);
	else if (chipstep_stop(&lab, h, m->job, o->ssh_config, err,
	    sizeof err) != 0)
		errbuf_set(note, len, "its job %s on %s: %s", m->job, m->host,
		    err);
	else
		errbuf_set(note, len, "its job %s on %s was stopped", m->job,
		    m->host);
	lab_release(&lab);
}

/*
 * recover WS --key FILE: a promote (or rollback --chip-step) killed during
 * its chip step (relpending.h) ends in its refusal, signed by a trusted
 * approver, its job stopped if it still runs, and the marker cleared
 * (release.md §2, "a chip step cut short").
 */
static int
cmd_recover(int argc, char **argv)
{
	char forward[512] = "", msg[1600], reason[800], note[1200], *actor;
	char *line;
	struct relopts o = { 0 };
	const char *key_id, *killed;
	struct relstate st;
	enum relswitch_rc r;
	void *key;
	int rc = 1, lockfd;

	if (parse(argc, argv, &o, false) != 0)
		return 2;
	if (o.key == NULL) {
		fprintf(stderr, "calops: recover needs the approver's key: "
		    "--key FILE\n");
		return 2;
	}
	if ((key = approver(&o, "recover", &st)) == NULL)
		return 1;
	actor = o.actor != NULL ? xstrdup(o.actor) : jobstore_default_actor();
	if ((lockfd = lock_and_forward(&st, &o, "recover", actor, forward,
	    sizeof forward, &rc)) == -1)
		goto out;
	if (!st.pending) {
		report(&o, "recover", "ok", "no promote was cut short during "
		    "its chip step: nothing to recover", forward, &st);
		rc = 0;
		goto unlock;
	}
	key_id = relkey_trusted_name(&st.kr, key);
	stop_pending_job(&o, &st.pend, note, sizeof note);
	killed = strncmp(st.pend.by, "a console", 9) == 0 ? "the console was "
	    "killed" : "its command was killed";
	if (st.pending_problem[0] != '\0')
		snprintf(reason, sizeof reason, "a chip step was cut short: %s "
		    "(%s)", killed, st.pending_problem);
	else
		snprintf(reason, sizeof reason, "the chip step (job %s) was cut "
		    "short: %s", st.pend.job, killed);
	line = sign_record(&st, key, key_id, actor, "refused",
	    st.pending_problem[0] == '\0' ? st.pend.generation : -1, reason,
	    NULL);
	r = line == NULL ? RS_BAD : relswitch_apply(&st, line, strlen(line),
	    NULL, NULL, msg, sizeof msg);
	free(line);
	/* On the log: the marker goes (relswitch_apply() took it away when
	 * the refusal names its job; an unreadable one, here). */
	if (r == RS_OK && st.pending && relpending_clear(st.dirfd, note,
	    sizeof note) == 0)
		st.pending = false;
	if (r == RS_OK)
		errbuf_set(msg + strlen(msg), sizeof msg - strlen(msg), ": %s; "
		    "%s", reason, note);
	report(&o, "recover", rc_names[r], line == NULL && r == RS_BAD ?
	    "the refusal cannot be signed" : msg, forward, &st);
	rc = exit_of(r);
unlock:
	close(lockfd);
out:
	free(actor);
	relkey_free(key);
	relstate_release(&st);
	return rc;
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
	actor = o.actor != NULL ? xstrdup(o.actor) : jobstore_default_actor();
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

/* apply --hold: what came before the record. */
struct holdin {
	struct relstate		*st;
	const struct relopts	*o;
	char			 job[64];	/* the chip step marked, or "" */
};

/*
 * A line `{"type":"chip_step","job":J,"host":H,"chip":C,"key_id":K}` the
 * console sends once its chip step's job started (release.md §5): the
 * marker of a chip step in progress is written for it (relpending.h), so
 * that a console killed from here on leaves it.  Said as a "marked" event.
 */
static void
hold_mark(struct holdin *in, const char *line, size_t len)
{
	json_t *j = json_loadb(line, len, 0, NULL);
	const char *job = json_string_value(json_object_get(j, "job"));
	const char *host = json_string_value(json_object_get(j, "host"));
	const char *key_id = json_string_value(json_object_get(j, "key_id"));
	struct relpending m = { .generation = in->o->hold,
	    .since = (double)time(NULL) };
	char err[512], *actor;

	if (job == NULL || host == NULL || key_id == NULL || !json_is_integer(
	    json_object_get(j, "chip")) || in->job[0] != '\0') {
		cmd_release_event(json_pack("{s:s, s:s}", "type", "marked",
		    "error", "not a chip step's line, or a second one"));
		json_decref(j);
		return;
	}
	actor = in->o->actor != NULL ? xstrdup(in->o->actor) :
	    jobstore_default_actor();
	snprintf(m.action, sizeof m.action, "promote");
	snprintf(m.job, sizeof m.job, "%s", job);
	snprintf(m.host, sizeof m.host, "%s", host);
	m.chip = (long)json_integer_value(json_object_get(j, "chip"));
	snprintf(m.key_id, sizeof m.key_id, "%s", key_id);
	snprintf(m.actor, sizeof m.actor, "%s", actor);
	snprintf(m.by, sizeof m.by, "a console");
	free(actor);
	if (relpending_write(in->st->dirfd, &m, err, sizeof err) == 0) {
		snprintf(in->job, sizeof in->job, "%s", job);
		cmd_release_event(json_pack("{s:s, s:s}", "type", "marked",
		    "job", in->job));
	} else
		cmd_release_event(json_pack("{s:s, s:o}", "type", "marked",
		    "error", text_json(err)));
	json_decref(j);
}

/* The chip step lines at the start of b's bytes from *from on, each
 * marked and passed. */
static void
hold_lines(struct holdin *in, const struct buf *b, size_t *from)
{
	static const char tag[] = "{\"type\":\"chip_step\"";
	const char *nl;

	while ((nl = memchr(b->data + *from, '\n', b->len - *from)) != NULL &&
	    b->len - *from >= sizeof tag - 1 && memcmp(b->data + *from, tag,
	    sizeof tag - 1) == 0) {
		hold_mark(in, b->data + *from, (size_t)(nl - b->data) - *from);
		*from = (size_t)(nl - b->data) + 1;
	}
}

/*
 * The record: all of stdin, until its end, within HOLD_WAIT_MS; it must be
 * one line, after the console's chip step line if any (hold_lines()).  The
 * line (newline dropped), or NULL with why in msg.
 */
static char *
read_held_record(struct holdin *in, size_t *len, char *msg, size_t msglen)
{
	int64_t deadline = loop_now_ms() + HOLD_WAIT_MS, left;
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	struct buf b = BUF_INIT;
	char chunk[4096], *rec;
	size_t from = 0;
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
		hold_lines(in, &b, &from);
	}
	if (b.len == from) {
		errbuf_set(msg, msglen, "the approval was cancelled; nothing "
		    "changed");
		goto fail;
	}
	rec = b.data + from;
	*len = b.len - from;
	if (rec[*len - 1] != '\n' || memchr(rec, '\n', *len) !=
	    rec + *len - 1 || memchr(rec, '\0', *len) != NULL) {
		errbuf_set(msg, msglen, "not one record: one line of text and "
		    "nothing more; nothing changed");
		goto fail;
	}
	(*len)--;
	rec = xstrndup(rec, *len);
	buf_release(&b);
	return rec;
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
	return json_pack("{s:s, s:o, s:I, s:s, s:o, s:o, s:b}", "type", "held",
	    "current", st->current >= 1 ? json_integer(st->current) :
	    json_null(), "next_seq", (json_int_t)st->audit.records + 1,
	    "head_sha256", st->audit.last_line_sha256,
	    "trusted_keys", relstate_trusted_keys_json(st),
	    "rolled_forward", forward[0] != '\0' ? text_json(forward) :
	    json_null(), "marks", 1);
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
	struct holdin in = { 0 };
	struct relstate st;
	enum relswitch_rc r;
	size_t len;
	int rc = 1, lockfd;

	if (relstate_open(&st, o->ws, msg, sizeof msg) != 0) {
		report(o, "apply", "error", msg, NULL, NULL);
		return 1;
	}
	st.skip_tail = true;
	actor = o->actor != NULL ? xstrdup(o->actor) : jobstore_default_actor();
	snprintf(who, sizeof who, "%s (approving in a console)", actor);
	free(actor);
	bc.st = &st;
	if ((lockfd = lock_and_forward(&st, o, "apply", who, forward,
	    sizeof forward, &rc)) == -1)
		goto out;
	cmd_release_event(held_event(&st, forward));
	(void)relstate_verdict(&st, o->hold, bindings_today, &bc, &h.v);
	cmd_release_event(json_pack("{s:s, s:I, s:b, s:b, s:o, s:o}", "type",
	    "verified", "generation", (json_int_t)o->hold, "verifies",
	    h.v.verifies, "bindings_checked", hashed(&h.v), "problem",
	    h.v.verifies ? json_null() : text_json(h.v.problem), "verdict",
	    relverdict_json(&h.v)));
	bc.hold = NULL;		/* the input is the record's from here */
	in.st = &st;
	in.o = o;
	if ((line = read_held_record(&in, &len, msg, sizeof msg)) == NULL) {
		/* A console gone mid chip step: its marker stays, for
		 * recover to sign the refusal (release.md §2). */
		if (in.job[0] != '\0')
			errbuf_set(msg + strlen(msg), sizeof msg - strlen(msg),
			    " (but its chip step, job %s, started: "
			    "'calops release recover' signs its refusal)",
			    in.job);
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
	/* The console signed how its chip step ended: not in progress. */
	if (in.job[0] != '\0')
		(void)relpending_clear(st.dirfd, who, sizeof who);
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
	st.skip_tail = true;
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
	if (strcmp(sub, "recover") == 0)
		return cmd_recover(argc - 1, argv + 1);
	if (strcmp(sub, "chip-step") == 0)
		return cmd_chipstep(argc - 1, argv + 1);
	fputs(release_usage, stderr);
	return 2;
}
