/*
 * cmd_watch.c: `calops watch WS` (protocol.md §1, v2): what a host runs so
 * that the console hears when one of its workspaces changed, and evaluates
 * it again there.  First a `watching` event, once the watch is in place;
 * then one `changed` event per debounced burst of changes, with
 * the workspace-relative paths that changed (at most WATCH_PATHS_MAX, and
 * "truncated": true when more did, or when the watch could not tell which:
 * it polls, or its queue overflowed; a new folder stands for what was made
 * in it before inotify could watch it), until stdin is closed (the console
 * went, or its connection did) or stdout cannot be written.
 */
#include "calops.h"

#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <jansson.h>

#include "base/text.h"
#include "cmd/cmd.h"
#include "job/jobevent.h"
#include "loop/loop.h"
#include "loop/watch.h"

#define QUIET_MS	250	/* a burst ends after this much quiet */
#define BURST_MAX_MS	2000	/* and is said after this long anyway */

static const char watch_usage[] =
    "usage: calops watch WS\n"
    "\n"
    "Print a \"watching\" event once every change will be seen (\"how\":\n"
    "inotify, or polling), then a \"changed\" event (one JSON line: v, seq,\n"
    "ts, type, paths, the workspace-relative paths that changed, a new folder\n"
    "for what is in it, \"truncated\": true when more did or they are not\n"
    "known) after each burst of changes in the workspace WS, until standard\n"
    "input is closed.\n"
    "Editor droppings are not changes; reading files is not a change.\n"
    "\n"
    "Exit status: 0 when standard input closed, 1 when WS cannot be watched\n"
    "or standard output written, 2 on a usage error.\n";

struct burst {
	char		*paths[WATCH_PATHS_MAX];
	size_t		 npaths;
	bool		 more;
	int64_t		 first_ms, last_ms;	/* 0: no burst */
	uint64_t	 seq;
};

/* What the watch saw joins the burst. */
static void
burst_add(struct burst *b, struct watch *w)
{
	char *got[WATCH_PATHS_MAX];
	size_t n, i, j;
	bool more, dup;

	n = watch_take_paths(w, got, WATCH_PATHS_MAX, &more);
	b->more |= more;
	for (i = 0; i < n; i++) {
		for (dup = false, j = 0; j < b->npaths && !dup; j++)
			dup = strcmp(b->paths[j], got[i]) == 0;
		if (dup || b->npaths == WATCH_PATHS_MAX) {
			b->more |= !dup;
			free(got[i]);
		} else
			b->paths[b->npaths++] = got[i];
	}
	b->last_ms = loop_now_ms();
	if (b->first_ms == 0)
		b->first_ms = b->last_ms;
}

/* The burst as one event; -1 when stdout cannot take it. */
static int
burst_say(struct burst *b)
{
	json_t *o, *paths = json_array();
	size_t i;
	int rc;

	for (i = 0; i < b->npaths; i++) {
		json_array_append_new(paths, text_json(b->paths[i]));
		free(b->paths[i]);
	}
	o = json_pack("{s:i,s:I,s:f,s:s,s:o}", "v", 1, "seq",
	    (json_int_t)++b->seq, "ts", jobevent_now(), "type", "changed",
	    "paths", paths);
	if (b->more)
		json_object_set_new(o, "truncated", json_true());
	rc = text_json_print(stdout, o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	b->npaths = 0;
	b->more = false;
	b->first_ms = b->last_ms = 0;
	return rc != 0 || fflush(stdout) != 0 ? -1 : 0;
}

/* How long poll() may sleep: until the burst is due, or the watch's walk;
 * -1 for ever. */
static int
sleep_ms(const struct burst *b, const struct watch *w)
{
	int64_t due, now = loop_now_ms();
	int ms = watch_timeout_ms(w);

	if (b->first_ms != 0) {
		due = b->last_ms + QUIET_MS;
		if (due > b->first_ms + BURST_MAX_MS)
			due = b->first_ms + BURST_MAX_MS;
		due = due > now ? due - now : 0;
		if (ms < 0 || due < ms)
			ms = (int)due;
	}
	return ms;
}

/*
 * The first event, once every change from now on will be seen: a
 * `watching` event saying how (inotify, or polling).  The console
 * evaluates the workspace again when it comes, so that nothing changed
 * between its evaluation and the watch's start is missed.
 */
static int
say_watching(struct watch *w, struct burst *b)
{
	json_t *o;
	int rc;

	o = json_pack("{s:i,s:I,s:f,s:s,s:s}", "v", 1, "seq",
	    (json_int_t)++b->seq, "ts", jobevent_now(), "type", "watching",
	    "how", watch_describe(w));
	rc = text_json_print(stdout, o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return rc != 0 || fflush(stdout) != 0 ? -1 : 0;
}

/* Until stdin closes; the exit status. */
static int
watch_loop(struct watch *w, struct burst *bp)
{
	struct burst b = *bp;
	struct pollfd pfd[2];
	char junk[512];
	ssize_t n;
	int rc = 0;

	for (;;) {
		pfd[0].fd = STDIN_FILENO;
		pfd[0].events = POLLIN;
		pfd[1].fd = watch_fd(w);
		pfd[1].events = POLLIN;
		if (poll(pfd, pfd[1].fd != -1 ? 2 : 1, sleep_ms(&b, w)) == -1 &&
		    errno != EINTR) {
			fprintf(stderr, "calops: poll: %s\n", strerror(errno));
			rc = 1;
			break;
		}
		if (pfd[0].revents != 0) {
			n = read(STDIN_FILENO, junk, sizeof junk);
			if (n == 0 || (n == -1 && errno != EINTR &&
			    errno != EAGAIN))
				break;		/* the console is gone */
		}
		if ((pfd[1].fd != -1 && pfd[1].revents != 0 &&
		    watch_read(w)) || watch_poll(w))
			burst_add(&b, w);
		if (b.first_ms != 0 && sleep_ms(&b, w) == 0 &&
		    burst_say(&b) != 0) {
			rc = 1;		/* nobody reads us any more */
			break;
		}
	}
	while (b.npaths > 0)
		free(b.paths[--b.npaths]);
	return rc;
}

int
cmd_watch(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct burst b = { .first_ms = 0 };
	struct watch *w;
	char err[512];
	bool more;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(watch_usage, stdout);
			return 0;
		default:
			fputs(watch_usage, stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fputs(watch_usage, stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);	/* a closed stdout is an error */
	if ((w = watch_new(argv[optind], err, sizeof err)) == NULL) {
		fprintf(stderr, "calops: %s\n", err);
		return 1;
	}
	/* What happened before we looked is not a change. */
	watch_rebase(w);
	(void)watch_take_paths(w, NULL, 0, &more);
	if (say_watching(w, &b) != 0) {
		watch_free(w);
		return 1;
	}
	rc = watch_loop(w, &b);
	watch_free(w);
	return rc;
}
