/*
 * cmd_report.c: `calops report`, the release decision record written from
 * the evidence (share/doc/release.md §8; model/decision.h).
 */
#include "calops.h"

#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/fileio.h"
#include "base/text.h"
#include "cmd/cmd.h"
#include "engine/gate.h"
#include "model/decision.h"
#include "model/decision_html.h"
#include "model/decision_md.h"
#include "release/relstate.h"

static const char report_usage[] =
    "usage: calops report [OPTIONS] WORKSPACE\n"
    "\n"
    "Write the release decision record from the workspace's evidence: the\n"
    "go/no-go, the board with each gate's owner and evidence hash, the open\n"
    "findings, the soak runs against the SLA, the fault matrix, what the\n"
    "candidate changes from its previous generation, its known limitations\n"
    "and disabled features, and the audit chain with its approvals\n"
    "(release.md §8).  The same workspace gives the same bytes.\n"
    "\n"
    "  --format FMT     md (default), html (one self-contained page with\n"
    "                   the soak's graphs) or json (calops-decision/v1)\n"
    "  -w, --write      write it into the workspace, atomically:\n"
    "                   08-release/decision.md (html: decision.html, json:\n"
    "                   decision.json), instead of standard output\n"
    "  -o, --output FILE\n"
    "                   write it to FILE, atomically ('-': standard output)\n"
    "  -f, --force      write over a file that is there already\n"
    "  --no-cache       hash every byte; trust no cached hash\n"
    "  -q, --quiet      say nothing when it was written\n"
    "  -h, --help       this help\n"
    "\n"
    "Exit status: 0 written (whether it says go or no-go), 1 when the file\n"
    "is there already (--force writes over it) or cannot be written, 2 when\n"
    "the workspace cannot be read or the command line is wrong.\n";

struct report_opts {
	const char	*format;	/* "md", "html", "json" */
	const char	*output;	/* NULL: standard output */
	bool		 write;
	bool		 force;
	bool		 quiet;
	struct eval_opts eo;
};

static int
parse_args(int argc, char **argv, struct report_opts *o)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'F' },
		{ "write", no_argument, NULL, 'w' },
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "no-cache", no_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "wo:fqh", opts, NULL)) != -1) {
		switch (c) {
		case 'F':
			if (strcmp(optarg, "md") != 0 &&
			    strcmp(optarg, "html") != 0 &&
			    strcmp(optarg, "json") != 0) {
				fprintf(stderr, "calops: --format wants md, html "
				    "or json, not '%s'\n", optarg);
				return -1;
			}
			o->format = optarg;
			break;
		case 'w': o->write = true; break;
		case 'o': o->output = optarg; break;
		case 'f': o->force = true; break;
		case 'n': o->eo.no_cache = true; break;
		case 'q': o->quiet = true; break;
		case 'h':
			fputs(report_usage, stdout);
			exit(0);
		default:
			fputs(report_usage, stderr);
			return -1;
		}
	}
	if (optind != argc - 1) {
		fputs(report_usage, stderr);
		return -1;
	}
	if (o->write && o->output != NULL) {
		fprintf(stderr, "calops: --write and --output name two places: "
		    "give one\n");
		return -1;
	}
	return optind;
}

/* The record in its format, into b. */
static void
render(struct buf *b, const json_t *d, const char *format)
{
	char *s, *h;
	size_t n;

	if (strcmp(format, "md") == 0)
		decision_md(b, d);
	else if (strcmp(format, "html") == 0)
		decision_html(b, d);
	else {
		/* Hardened as every JSON calops prints (text.h). */
		s = json_dumps(d, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		h = text_json_harden(s, strlen(s), &n);
		buf_add(b, h != NULL ? h : s, h != NULL ? n : strlen(s));
		buf_addc(b, '\n');
		free(h);
		free(s);
	}
}

/*
 * Where --write puts it: 08-release/decision.<ext>, in a folder that must
 * be a folder of the workspace's own (a symbolic link there could aim the
 * write anywhere).  A new string, or NULL with err.
 */
static char *
write_path(const char *ws, const char *format, char *err, size_t errlen)
{
	char *dir = xasprintf("%s/%s", ws, RELSTATE_DIR), *path = NULL;
	struct stat st;

	if (lstat(dir, &st) != 0)
		errbuf_set(err, errlen, "cannot write into '%s': %s", dir,
		    strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		errbuf_set(err, errlen, "cannot write into '%s': not a folder "
		    "(a symbolic link is not followed)", dir);
	else
		path = xasprintf("%s/decision.%s", dir, format);
	free(dir);
	return path;
}

/* Write b to path, atomically; over a file there only when forced. */
static int
put(const char *path, const struct buf *b, bool force)
{
	char err[512];
	int rc;

	rc = force ? fileio_replace(path, b->data, b->len, 0644, true, err,
	    sizeof err) : fileio_create(path, b->data, b->len, 0644, true,
	    err, sizeof err);
	if (rc == 0)
		return 0;
	if (!force && errno == EEXIST)
		fprintf(stderr, "calops: '%s' is there already: --force writes "
		    "over it\n", path);
	else
		fprintf(stderr, "calops: %s\n", err);
	return 1;
}

/* Say where it went and what it says; the path is the caller's, shown
 * through the sanitiser. */
static void
print_written(const char *path, const char *line)
{
	char *p = text_sanitize_str(path);

	printf("wrote %s: %s\n", p, line);
	free(p);
}

/* why without the workspace's own path (which is where it is, not what
 * it holds): the record says "'08-release' is missing", whatever the
 * folder it was read from. */
static void
strip_root(char *why, const char *ws)
{
	size_t n = strlen(ws);
	char *p;

	while (n > 1 && ws[n - 1] == '/')
		n--;
	while ((p = strstr(why, ws)) != NULL && p[n] == '/')
		memmove(p, p + n + 1, strlen(p + n + 1) + 1);
}

/* The evaluation and the release state, as the record is built from. */
static json_t *
build(const char *ws, struct report_opts *o, char *err, size_t errlen)
{
	struct relstate st;
	char why[512];
	struct eval ev;
	json_t *d;
	bool rel;

	o->eo.soak_series = true;
	if (gate_eval_run(&ev, ws, &o->eo, err, errlen) != 0)
		return NULL;
	if (!(rel = relstate_load(&st, ws, why, sizeof why) == 0))
		strip_root(why, ws);
	d = decision_build(&ev, rel ? &st : NULL, why);
	relstate_release(&st);
	gate_eval_release(&ev);
	return d;
}

int
cmd_report(int argc, char **argv)
{
	struct report_opts o = { .format = "md" };
	struct buf b = BUF_INIT;
	char err[512], *path = NULL;
	int idx, rc = 0;
	json_t *d;

	if ((idx = parse_args(argc, argv, &o)) < 0)
		return 2;
	if ((d = build(argv[idx], &o, err, sizeof err)) == NULL) {
		fprintf(stderr, "calops: %s\n", err);
		return 2;
	}
	render(&b, d, o.format);
	if (o.write && (path = write_path(argv[idx], o.format, err,
	    sizeof err)) == NULL) {
		fprintf(stderr, "calops: %s\n", err);
		rc = 1;
	} else if (path != NULL || (o.output != NULL &&
	    strcmp(o.output, "-") != 0)) {
		rc = put(path != NULL ? path : o.output, &b, o.force);
		if (rc == 0 && !o.quiet)
			print_written(path != NULL ? path : o.output,
			    decision_line(d));
	} else if (fileio_write_full(STDOUT_FILENO, b.data, b.len) != 0) {
		fprintf(stderr, "calops: cannot write the report: %s\n",
		    strerror(errno));
		rc = 2;
	}
	free(path);
	buf_release(&b);
	json_decref(d);
	return rc;
}
