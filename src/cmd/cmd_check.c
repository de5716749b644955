/* cmd_check.c: `calops check`, the headless board (workspace.md §8). */
#include "calops.h"

#include <getopt.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/text.h"
#include "cmd/cmd.h"
#include "engine/report.h"

static const char check_usage[] =
    "usage: calops check [OPTIONS] WORKSPACE\n"
    "\n"
    "Evaluate the gates G0-G10 and tickets M01-M13 of a workspace from its\n"
    "artifacts.\n"
    "\n"
    "  --json           print one calops-check/v1 JSON object\n"
    "  --stream         print JSON-lines events: a finding per finding, then\n"
    "                   a result (protocol.md §3); progress while hashing\n"
    "  --gate Gn        report only these gates (repeat, or G2,G3); the exit\n"
    "                   status then covers only them\n"
    "  --no-cache       hash every byte; trust no cached hash\n"
    "  --threads N      hashing threads (default: one per core)\n"
    "  --color WHEN     auto (default), always or never; NO_COLOR is honoured\n"
    "  -h, --help       this help\n"
    "\n"
    "Exit status: 0 when every gate asked for passes, 1 when one does not,\n"
    "2 when the workspace cannot be read or the command line is wrong.\n";

struct stream {
	unsigned long long	 seq;
	struct timeval		 last;
};

static double
now(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Print one protocol event (steals o) with v, seq, ts and type set. */
static void
emit(struct stream *s, const char *type, json_t *o)
{
	json_object_set_new(o, "v", json_integer(1));
	json_object_set_new(o, "seq", json_integer((json_int_t)++s->seq));
	json_object_set_new(o, "ts", json_real(now()));
	json_object_set_new(o, "type", json_string(type));
	/* Hardened: messages quote files, and a terminal may show this. */
	(void)text_json_print(stdout, o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	fflush(stdout);
	json_decref(o);
}

/* Hashing progress as events, at most five a second. */
static void
stream_progress(void *arg, uint64_t done, uint64_t total)
{
	struct stream *s = arg;
	struct timeval tv, d;

	gettimeofday(&tv, NULL);
	timersub(&tv, &s->last, &d);
	if (d.tv_sec == 0 && d.tv_usec < 200000 && done != total)
		return;
	s->last = tv;
	emit(s, "progress", json_pack("{s:s,s:I,s:I,s:s}", "phase", "hash",
	    "done", (json_int_t)done, "total", (json_int_t)total,
	    "unit", "bytes"));
}

/* no-color.org: NO_COLOR present and not empty turns colour off. */
static bool
no_colour_unset(void)
{
	const char *v = getenv("NO_COLOR");

	return v == NULL || v[0] == '\0';
}

static int
parse_gates(struct gate_filter *f, const char *arg)
{
	char *copy = xstrdup(arg), *tok, *save = NULL;
	size_t i;
	int rc = 0;

	for (tok = strtok_r(copy, ", ", &save); tok != NULL && rc == 0;
	    tok = strtok_r(NULL, ", ", &save)) {
		for (i = 0; i < GATE_COUNT; i++)
			if (strcasecmp(tok, gate_table[i].id) == 0)
				break;
		if (i == GATE_COUNT) {
			fprintf(stderr, "calops: unknown gate '%s' (G0..G10)\n", tok);
			rc = -1;
		} else if (!f->want[i]) {
			f->want[i] = true;
			f->n++;
		}
	}
	free(copy);
	return rc;
}

static int
exit_status(const struct eval *ev, const struct gate_filter *f)
{
	size_t i;

	for (i = 0; i < GATE_COUNT; i++)
		if (report_filter_has(f, (int)i) &&
		    ev->gates[i].status != GS_PASS)
			return 1;
	return 0;
}

/* Events stay under the protocol's 64 KiB a line: a member longer than
 * this (a hostile node name in a CSV, say) is cut, and says so. */
#define STREAM_STRING_MAX 8192

static json_t *
clipped(json_t *o)
{
	static const char *const keys[] = { "message", "path", "where",
	    "check" };
	const char *s;
	size_t i, n;
	char *cut;

	for (i = 0; i < nitems(keys); i++) {
		s = json_string_value(json_object_get(o, keys[i]));
		if (s == NULL || (n = strlen(s)) <= STREAM_STRING_MAX)
			continue;
		n = STREAM_STRING_MAX;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;	/* not inside a UTF-8 sequence */
		cut = xasprintf("%.*s… (%zu bytes cut)", (int)n, s,
		    strlen(s) - n);
		json_object_set_new(o, keys[i], json_string(cut));
		free(cut);
	}
	return o;
}

static void
stream_findings(struct stream *s, const struct eval *ev,
    const struct gate_filter *f)
{
	const struct gate_result *gr;
	size_t i, k;

	for (i = 0; i < ev->project.n; i++)
		emit(s, "finding",
		    clipped(report_finding_json(&ev->project.v[i], "project")));
	for (i = 0; i < GATE_COUNT; i++) {
		if (!report_filter_has(f, (int)i))
			continue;
		gr = &ev->gates[i];
		for (k = 0; k < gr->findings.n; k++)
			emit(s, "finding",
			    clipped(report_finding_json(
				&gr->findings.v[k], gr->def->id)));
		for (k = 0; k < gr->ninputs; k++)
			emit(s, "input",
			    clipped(report_input_json(
				&gr->inputs[k], gr->def->id)));
	}
}

static int
parse_args(int argc, char **argv, struct eval_opts *eo, struct gate_filter *f,
    int *mode, int *colour)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "stream", no_argument, NULL, 's' },
		{ "gate", required_argument, NULL, 'g' },
		{ "no-cache", no_argument, NULL, 'n' },
		{ "threads", required_argument, NULL, 't' },
		{ "color", required_argument, NULL, 'c' },
		{ "colour", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long n;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': *mode = 'j'; break;
		case 's': *mode = 's'; break;
		case 'n': eo->no_cache = true; break;
		case 'g':
			if (parse_gates(f, optarg) != 0)
				return -1;
			break;
		case 't':
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (*end != '\0' || errno != 0 || n < 1 || n > 256) {
				fprintf(stderr, "calops: --threads wants 1..256\n");
				return -1;
			}
			eo->threads = (int)n;
			break;
		case 'c':
			if (strcmp(optarg, "always") == 0)
				*colour = 1;
			else if (strcmp(optarg, "never") == 0)
				*colour = 0;
			else if (strcmp(optarg, "auto") != 0) {
				fprintf(stderr, "calops: --color wants auto, always "
				    "or never\n");
				return -1;
			}
			break;
		case 'h':
			fputs(check_usage, stdout);
			exit(0);
		default:
			fputs(check_usage, stderr);
			return -1;
		}
	}
	if (optind != argc - 1) {
		fputs(check_usage, stderr);
		return -1;
	}
	return optind;
}

int
cmd_check(int argc, char **argv)
{
	struct ticket tickets[TICKET_COUNT];
	struct gate_filter filter = { { false }, 0 };
	struct eval_opts eo = { 0 };
	struct stream st = { 0, { 0, 0 } };
	struct eval ev;
	char err[512];
	int mode = 't', colour = -1, idx, rc;
	json_t *o;

	if ((idx = parse_args(argc, argv, &eo, &filter, &mode, &colour)) < 0)
		return 2;
	if (colour < 0)
		colour = isatty(STDOUT_FILENO) && no_colour_unset();
	if (mode == 's') {
		eo.progress = stream_progress;
		eo.progress_arg = &st;
	}
	if (gate_eval_run(&ev, argv[idx], &eo, err, sizeof err) != 0) {
		if (mode == 's')
			emit(&st, "result", json_pack("{s:s,s:{s:s},s:[]}",
			    "status", "error", "summary", "message", err,
			    "artifacts"));
		fprintf(stderr, "calops: %s\n", err);
		return 2;
	}
	tickets_derive(&ev, tickets);
	rc = exit_status(&ev, &filter);
	if (mode == 'j') {
		o = report_json(&ev, tickets, &filter, true);
		(void)text_json_print(stdout, o, JSON_INDENT(2) |
		    JSON_PRESERVE_ORDER);
		json_decref(o);
	} else if (mode == 's') {
		stream_findings(&st, &ev, &filter);
		emit(&st, "result", json_pack("{s:s,s:o,s:[]}", "status",
		    rc == 0 ? "pass" : "fail", "summary",
		    report_json(&ev, tickets, &filter, false), "artifacts"));
	} else
		report_text(stdout, &ev, tickets, &filter, colour != 0);
	tickets_release(tickets);
	gate_eval_release(&ev);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "calops: cannot write the report: %s\n",
		    strerror(errno));
		return 2;
	}
	return rc;
}
