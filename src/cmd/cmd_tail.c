/*
 * cmd_tail.c: `calops tail`, a job's events from a seq on (protocol.md §2),
 * what the console runs, locally and over SSH, to resume a stream with
 * --from last+1: every complete event line with seq >= SEQ exactly once, as
 * it is in events.jsonl (C1 and bidi controls escaped, should an older
 * supervisor have written them raw).
 */
#include "calops.h"

#include <sys/inotify.h>

#include <getopt.h>
#include <poll.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/text.h"
#include "cmd/cmd.h"
#include "job/jobevent.h"
#include "job/jobreader.h"
#include "job/jobstore.h"
#include "proto/evtext.h"
#include "loop/loop.h"

#define POLL_MS		200	/* without inotify */
#define CHECK_MS	1000	/* inotify: the longest wait between looks */
/*
 * Following, new lines are held this long before they are written: a soak
 * at 200 events a second is then 25 writes, 25 SSH packets to encrypt, send
 * and decrypt, not 200, and the console reads its hosts on a 40 ms grid
 * anyway (ssh.c).  A catch-up is written as it is read, 64 KiB at a time.
 */
#define HOLD_MS		40

static const char tail_usage[] =
    "usage: calops tail ID [--from SEQ] [--until SEQ | --follow]"
    " [--jobs DIR]\n"
    "       calops tail ID --find TEXT [--last] [--from SEQ] [--until SEQ]\n"
    "\n"
    "Print the events of job ID with seq >= SEQ (default 1), one JSON line\n"
    "each, as they are in its events.jsonl.\n"
    "\n"
    "  --from SEQ   the first seq to print\n"
    "  --until SEQ  the last seq to print (an older part of a long run)\n"
    "  --find TEXT  print only the seq of the first event from SEQ whose\n"
    "               words in a console's job log (type, level, message or\n"
    "               summary) have TEXT, in any case; nothing when none has\n"
    "  --last       with --find, the last such event\n"
    "  --follow     keep printing new events until the job's end event\n"
    "  --jobs DIR   the jobs folder (default: $CALOPS_JOBS_DIR, else\n"
    "               $XDG_STATE_HOME/calops/jobs)\n"
    "  -h, --help   this help\n"
    "\n"
    "Exit status: 0 when done (with --follow: once the end event is read),\n"
    "1 when the job is unknown or its events cannot be read, 2 on a usage\n"
    "error, 3 with --follow when the job is lost (its supervisor is gone\n"
    "before the end).\n";

struct tail {
	const char		*id;
	char			*root, *dir;
	struct job_reader	 rd;
	uint64_t		 from, last;
	uint64_t		 until;		/* the last to print, or 0 */
	const char		*find;		/* what to find, or NULL */
	bool			 last_found;	/* --last */
	uint64_t		 found;		/* the seq it is in, or 0 */
	bool			 end;
};

static void
report(const struct tail *t, const char *why)
{
	fprintf(stderr, "calops: job '%s': events.jsonl line %zu: %s, "
	    "skipped\n", t->id, t->rd.lineno, why);
}

/* One event line as it is, but that C1 and bidi controls an older
 * supervisor wrote raw are escaped (text_json_harden): the same JSON. */
static void
print_line(const char *line, size_t len)
{
	char *hard = text_json_harden(line, len, &len);

	fwrite(hard != NULL ? hard : line, 1, len, stdout);
	fputc('\n', stdout);
	free(hard);
}

/*
 * Whether an event line may show find (false: it cannot, and is passed
 * over unparsed).  A log, stalled, resumed or fault event shows its type,
 * level and a string of its own as the line holds them, so one without
 * find in it shows none, unless find spans two of them (a blank), is
 * written otherwise in JSON (a quote, a backslash, a byte past ASCII), is
 * in a word the log adds ("[cut at 64 KiB]", the "info" a level it does
 * not know shows as), or the line is not as the supervisor writes it.
 * The other types show summaries: read.
 */
static bool
shown_may_have(const char *line, const char *find)
{
	static const char *const plain[] = { "\"type\":\"log\"",
	    "\"type\":\"stalled\"", "\"type\":\"resumed\"",
	    "\"type\":\"fault\"" };
	const unsigned char *p;
	size_t i;

	if (strcasestr(line, find) != NULL)
		return true;
	/* (a blank may join two words: "log warn") */
	for (p = (const unsigned char *)find; *p != '\0'; p++)
		if (*p == '"' || *p == '\\' || *p <= 0x20 || *p >= 0x7f)
			return true;
	if (strstr(line, "\"truncated\"") != NULL ||
	    strcasestr("info", find) != NULL)
		return true;
	for (i = 0; i < nitems(plain); i++)
		if (strstr(line, plain[i]) != NULL)
			return false;
	return true;
}

/* Whether the words a console's job log shows of an event (evtext.h: its
 * type, level and message or summary) have find in them, in any case.  A
 * line without find in it anywhere is passed over unparsed (most lines of
 * a long run); one with it is read and its words looked in. */
static bool
shown_has(const char *line, size_t len, const char *find)
{
	struct buf b = BUF_INIT;
	const char *type;
	json_t *o;
	bool has;

	if (!shown_may_have(line, find) ||
	    (o = json_loadb(line, len, 0, NULL)) == NULL)
		return false;
	if ((type = json_string_value(json_object_get(o, "type"))) == NULL) {
		json_decref(o);
		return false;
	}
	buf_add(&b, "", 0);
	evtext_words(o, type, NULL, &b);
	has = b.data != NULL && strcasestr(b.data, find) != NULL;
	buf_release(&b);
	json_decref(o);
	return has;
}

/* Write what is printed; -1 on an error, said. */
static int
flush_out(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "calops: cannot write: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Print the complete lines there are, up to the end event, and write them
 * unless hold; -1 on a read or write error.  A corrupt line is reported
 * and skipped.
 */
static int
pump(struct tail *t, bool hold)
{
	const char *line;
	char why[256];
	uint64_t seq;
	size_t len;
	bool is_end;
	int rc = 0;

	while (!t->end && (t->until == 0 || t->last < t->until) &&
	    (rc = jobreader_next(&t->rd, &line, &len)) > 0) {
		if (rc == 2) {
			snprintf(why, sizeof why, "longer than %u bytes",
			    JOB_READ_MAX);
			report(t, why);
		} else if (jobevent_check(line, len, &seq, &is_end, why,
		    sizeof why) != 0)
			report(t, why);
		else if (seq <= t->last) {
			snprintf(why, sizeof why, "seq %llu after %llu",
			    (unsigned long long)seq,
			    (unsigned long long)t->last);
			report(t, why);
		} else {
			t->last = seq;
			t->end = is_end;
			if (seq < t->from || (t->until != 0 &&
			    seq > t->until))
				continue;
			if (t->find == NULL)
				print_line(line, len);
			else if (shown_has(line, len, t->find)) {
				t->found = seq;
				if (!t->last_found)
					break;
			}
		}
	}
	if (!hold && flush_out() != 0)
		return -1;
	if (rc == -1) {
		fprintf(stderr, "calops: cannot read the events of job '%s': "
		    "%s\n", t->id, strerror(errno));
		return -1;
	}
	return 0;
}

/* Look at a quiet job: 0 to go on waiting, else the exit status. */
static int
check_job(struct tail *t)
{
	struct job_record r;
	char err[512];
	int state;

	state = jobstore_look(t->root, t->id, &r, err, sizeof err);
	jobstore_record_release(&r);
	if (state == JOB_RUNNING ||
	    (state == JOB_CORRUPT && jobstore_supervisor_alive(t->dir)))
		return 0;
	/* Ended or gone: the end event, if any, is written by now. */
	if (pump(t, false) != 0)
		return 1;
	if (t->end)
		return 0;
	if (state == JOB_LOST) {
		fprintf(stderr, "calops: job '%s' is lost: its supervisor is "
		    "gone\n", t->id);
		return 3;
	}
	if (state == -1)
		fprintf(stderr, "calops: %s\n", err);
	else if (state == JOB_CORRUPT)
		fprintf(stderr, "calops: job '%s' is corrupt (%s) and its "
		    "supervisor is gone\n", t->id, err);
	else
		fprintf(stderr, "calops: job '%s' has ended but its events have "
		    "no end\n", t->id);
	return 1;
}

/* An inotify watch on the job folder, or -1 to poll. */
static int
watch_dir(const char *dir)
{
	const char *force = getenv("CALOPS_WATCH_POLL");
	int fd;

	if (force != NULL && force[0] != '\0' && strcmp(force, "0") != 0)
		return -1;
	if ((fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1)
		return -1;
	if (inotify_add_watch(fd, dir, IN_MODIFY | IN_CLOSE_WRITE |
	    IN_MOVED_TO | IN_CREATE | IN_DELETE_SELF | IN_MOVE_SELF) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Wait for the file to grow, until the end event.  When a wake-up brings no
 * new line (a timeout, the supervisor's lock closed) the job is looked at,
 * so that a job whose supervisor died is noticed; and when our reader has
 * gone (an SSH channel closed) we go too, even while the job is quiet.  New
 * lines are written HOLD_MS after the first of them, the end at once.
 */
static int
follow(struct tail *t)
{
	char events[4096] __attribute__((aligned(8)));
	int64_t checked = loop_now_ms(), held = -1, now;
	struct pollfd pfd[2];
	uint64_t before;
	int rc = 0, wait;

	pfd[0].fd = STDOUT_FILENO;
	pfd[0].events = 0;		/* POLLERR, POLLHUP: the reader left */
	pfd[1].fd = watch_dir(t->dir);
	pfd[1].events = POLLIN;
	while (rc == 0 && !t->end) {
		wait = pfd[1].fd != -1 ? CHECK_MS : POLL_MS;
		if (held != -1) {
			now = loop_now_ms();
			wait = now - held >= HOLD_MS ? 0 :
			    (int)(held + HOLD_MS - now);
		}
		if (poll(pfd, pfd[1].fd != -1 ? 2 : 1, wait) > 0 &&
		    pfd[1].revents != 0)
			while (read(pfd[1].fd, events, sizeof events) > 0)
				;
		if (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL)) {
			rc = 1;
			break;
		}
		before = t->last;
		if (pump(t, true) != 0) {
			rc = 1;
			break;
		}
		now = loop_now_ms();
		if (t->last != before && held == -1)
			held = now;
		if (held != -1 && (t->end || now - held >= HOLD_MS)) {
			rc = flush_out() != 0 ? 1 : 0;
			held = -1;
		} else if (held == -1 && !t->end && t->last == before &&
		    now - checked >= POLL_MS) {
			checked = now;
			rc = check_job(t);
		}
	}
	if (pfd[1].fd != -1)
		close(pfd[1].fd);
	return rc;
}

static int
parse_args(int argc, char **argv, struct tail *t, const char **jobs,
    bool *follow_it)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "follow", no_argument, NULL, 'F' },
		{ "until", required_argument, NULL, 'u' },
		{ "find", required_argument, NULL, 'q' },
		{ "last", no_argument, NULL, 'l' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *what;
	uint64_t *to;
	char *end;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
		case 'u':
			what = c == 'f' ? "--from" : "--until";
			to = c == 'f' ? &t->from : &t->until;
			errno = 0;
			*to = strtoull(optarg, &end, 10);
			if (optarg[0] < '0' || optarg[0] > '9' ||
			    *end != '\0' || errno != 0 ||
			    (c == 'u' && *to == 0)) {
				fprintf(stderr, "calops: %s wants a seq, "
				    "not '%s'\n", what, optarg);
				return -1;
			}
			break;
		case 'F': *follow_it = true; break;
		case 'q': t->find = optarg; break;
		case 'l': t->last_found = true; break;
		case 'J': *jobs = optarg; break;
		case 'h':
			fputs(tail_usage, stdout);
			exit(0);
		default:
			fputs(tail_usage, stderr);
			return -1;
		}
	}
	if (optind != argc - 1 || (*follow_it && (t->until != 0 ||
	    t->find != NULL)) || (t->last_found && t->find == NULL)) {
		fputs(tail_usage, stderr);
		return -1;
	}
	t->id = argv[optind];
	return 0;
}

int
cmd_tail(int argc, char **argv)
{
	static char outbuf[1u << 16];
	struct tail t = { .from = 1 };
	const char *jobs = NULL;
	bool follow_it = false;
	char err[512], *path;
	int rc;

	t.rd.fd = -1;
	if (parse_args(argc, argv, &t, &jobs, &follow_it) != 0)
		return 2;
	/* A pipe's own buffer is a page: a GiB of events would be a quarter
	 * of a million writes to sshd.  What is read is written when the
	 * file's end is reached (following, HOLD_MS later). */
	setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
	if (!jobstore_id_valid(t.id)) {
		fprintf(stderr, "calops: no job '%s'\n", t.id);
		return 1;
	}
	if ((t.root = jobstore_root(jobs, false, err, sizeof err)) == NULL) {
		fprintf(stderr, "calops: %s\n", err);
		return 1;
	}
	t.dir = xasprintf("%s/%s", t.root, t.id);
	path = xasprintf("%s/events.jsonl", t.dir);
	/* A planted folder or link is not followed (jobstore_check()). */
	if (jobstore_check(t.root, t.id, err, sizeof err) != 0 &&
	    errno != ENOENT) {
		fprintf(stderr, "calops: job '%s' is corrupt: %s\n", t.id, err);
		rc = 1;
	} else if (jobreader_open(&t.rd, path) != 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			fprintf(stderr, "calops: no job '%s'\n", t.id);
		else
			fprintf(stderr, "calops: cannot read '%s': %s\n", path,
			    strerror(errno));
		rc = 1;
	} else {
		jobreader_seek(&t.rd, t.from);
		rc = pump(&t, false) != 0 ? 1 : 0;
		if (rc == 0 && t.found > 0) {
			printf("%llu\n", (unsigned long long)t.found);
			rc = flush_out() != 0 ? 1 : 0;
		}
		if (rc == 0 && follow_it && !t.end)
			rc = follow(&t);
	}
	jobreader_close(&t.rd);
	free(path);
	free(t.dir);
	free(t.root);
	return rc;
}
