/*
 * cmd_cat.c: `calops cat WS PATH [--from LINE] [--lines N]`: lines of a
 * file inside a workspace, for the console's pager on a workspace of an
 * SSH host (`o` on a finding there), which has no other way to read a file
 * on the host.  Only a regular file inside the workspace is read: a path
 * that leads out of it (through "..", or a symbolic link) is refused as
 * the gates refuse it (workspace.h).  The lines go out as they are, a
 * newline after each; the reader makes them safe to show.  --line-of
 * POINTER prints instead the line a JSON pointer names in the file (a
 * finding's "#/findings/1"), for the pager to open there.
 */
#include "calops.h"

#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "ws/workspace.h"

#define CAT_LINES_DEFAULT	1000
#define CAT_LINES_MAX		100000
/* Bytes of one line printed: past the 64 KiB a reader keeps of a line, so
 * that it sees the line was cut; the rest of it is skipped, not sent. */
#define CAT_LINE_MAX		((64u << 10) + 1)

static const char cat_usage[] =
    "usage: calops cat WS PATH [--from LINE] [--lines N]\n"
    "       calops cat WS PATH --line-of POINTER\n"
    "\n"
    "Print lines of PATH, a file inside the workspace WS (relative to it),\n"
    "from line LINE (1, the first, by default), at most N of them (1000 by\n"
    "default, at most 100000).  A path that leads outside the workspace, by\n"
    "\"..\" or a symbolic link, is refused.  With --line-of, print the\n"
    "line on which the JSON pointer POINTER (\"/findings/1\") names a value\n"
    "in the file.\n"
    "\n"
    "Exit status: 0 when the lines were printed (none when the file is\n"
    "shorter), 1 when PATH is not a readable regular file inside WS, the\n"
    "pointer names nothing in it, or standard output cannot be written, 2\n"
    "on a usage error.\n";

/* A positive number of at most max, or -1. */
static long
positive(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 1 || v > max)
		return -1;
	return v;
}

/* Lines [from, from + n) of f to stdout; -1 when it cannot be written or
 * f read. */
static int
copy_lines(FILE *f, long from, long n, const char *rel)
{
	size_t col = 0;
	long line = 1;
	int c, prev = '\n';

	while (line < from && (c = getc(f)) != EOF)
		line += c == '\n';
	while (n > 0 && (c = getc(f)) != EOF) {
		if ((c == '\n' || col < CAT_LINE_MAX) && putchar(c) == EOF)
			return -1;
		col = c == '\n' ? 0 : col + 1;
		if (c == '\n')
			n--;
		prev = c;
	}
	if (ferror(f)) {
		fprintf(stderr, "calops: reading '%s': %s\n", rel,
		    strerror(errno));
		return -1;
	}
	/* The last line of a file with no newline at its end. */
	if (prev != '\n' && putchar('\n') == EOF)
		return -1;
	return fflush(stdout) == 0 ? 0 : -1;
}

/* --line-of: the line pointer names in rel, printed; the exit status. */
static int
line_of(const struct workspace *ws, const char *rel, const char *pointer)
{
	char err[512];
	long line;

	if ((line = workspace_pointer_line(ws, rel, pointer, err,
	    sizeof err)) == 0) {
		fprintf(stderr, "calops: %s\n", err);
		return 1;
	}
	printf("%ld\n", line);
	return fflush(stdout) == 0 ? 0 : 1;
}

int
cmd_cat_operands(int argc, char **argv, const char *usage,
    struct workspace *ws)
{
	char err[512];

	if (optind != argc - 2 || argv[optind + 1][0] == '\0') {
		fputs(usage, stderr);
		return 2;
	}
	if (argv[optind + 1][0] == '/') {
		fprintf(stderr, "calops: '%s' is absolute: PATH is relative to "
		    "the workspace\n", argv[optind + 1]);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);	/* a closed stdout is an error */
	if (workspace_open(ws, argv[optind], err, sizeof err) != 0) {
		fprintf(stderr, "calops: %s\n", err);
		return 1;
	}
	return -1;
}

int
cmd_cat(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "from", required_argument, NULL, 'f' },
		{ "lines", required_argument, NULL, 'n' },
		{ "line-of", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct workspace ws;
	struct stat st;
	long from = 1, lines = CAT_LINES_DEFAULT;
	const char *pointer = NULL;
	char err[512];
	FILE *f;
	int c, fd, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if ((from = positive(optarg, LONG_MAX)) < 0) {
				fprintf(stderr, "calops: --from wants a line "
				    "number from 1, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'n':
			if ((lines = positive(optarg, CAT_LINES_MAX)) < 0) {
				fprintf(stderr, "calops: --lines wants 1 to "
				    "%d, not '%s'\n", CAT_LINES_MAX, optarg);
				return 2;
			}
			break;
		case 'p':
			if (*optarg != '/' && *optarg != '\0') {
				fprintf(stderr, "calops: --line-of wants a JSON "
				    "pointer (\"/findings/1\"), not '%s'\n",
				    optarg);
				return 2;
			}
			pointer = optarg;
			break;
		case 'h':
			fputs(cat_usage, stdout);
			return 0;
		default:
			fputs(cat_usage, stderr);
			return 2;
		}
	}
	if ((rc = cmd_cat_operands(argc, argv, cat_usage, &ws)) >= 0)
		return rc;
	/* The file is opened beneath the workspace, and what is read is
	 * what was opened: never a path looked at before (workspace.h). */
	if (workspace_open_fd(&ws, argv[optind + 1], S_IFREG, &fd, &st, err,
	    sizeof err) != WS_OK) {
		fprintf(stderr, "calops: %s\n", err);
		workspace_close(&ws);
		return 1;
	}
	if (pointer != NULL) {
		close(fd);
		rc = line_of(&ws, argv[optind + 1], pointer);
		workspace_close(&ws);
		return rc;
	}
	if ((f = fdopen(fd, "r")) == NULL) {
		fprintf(stderr, "calops: cannot read '%s': %s\n",
		    argv[optind + 1], strerror(errno));
		close(fd);
		workspace_close(&ws);
		return 1;
	}
	rc = copy_lines(f, from, lines, argv[optind + 1]) == 0 ? 0 : 1;
	fclose(f);
	workspace_close(&ws);
	return rc;
}
