/* cmd_hash.c: `calops hash`, SHA-256 of files and tree hashes of folders. */
#include "calops.h"

#include <sys/stat.h>

#include <getopt.h>

#include "base/buf.h"
#include "base/text.h"
#include "cmd/cmd.h"
#include "ws/hash.h"
#include "ws/hashtree.h"

#define MAX_THREADS 256

static const char usage_line[] =
    "usage: calops hash [--no-cache] [--threads N] [--list] PATH...\n";

static const char usage_help[] =
    "\n"
    "Print the SHA-256 of each file as sha256sum does (\"<hex>  <path>\"),\n"
    "and the tree hash of each folder (\"<hex>  <path>/\"): the SHA-256 of\n"
    "its canonical listing, one \"<hex>  <relative/path>\" line per regular\n"
    "file, sorted bytewise by path, symbolic links not followed.\n"
    "\n"
    "A name holding a backslash, LF or CR is written \\\\, \\n and \\r, and\n"
    "its line starts with a backslash, as sha256sum does.  So is any other\n"
    "control character, bidi control or byte that is not UTF-8, as \\xHH,\n"
    "so that none reaches the terminal raw.\n"
    "\n"
    "  --list         print each folder's canonical listing (the format of\n"
    "                 05-calbin/file-sha256.txt) instead of its tree hash\n"
    "  --no-cache     hash every byte; neither read nor update the cache\n"
    "                 ($XDG_CACHE_HOME/calops/hashes)\n"
    "  --threads N    hash on N threads (default: one per online core)\n"
    "  -h, --help     show this help\n";

enum { OPT_NO_CACHE = 256, OPT_THREADS, OPT_LIST };

static const struct option longopts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ NULL, 0, NULL, 0 }
};

/* Report a failure about a path; the path is shown sanitised. */
static void
complain(const char *path, const char *why)
{
	char *s = text_sanitize_str(path), *w = text_sanitize_str(why);

	fflush(stdout);		/* keep the order of the arguments */
	fprintf(stderr, "calops: cannot read '%s': %s\n", s, w);
	free(w);
	free(s);
}

/* Print "<hex>  <path><suffix>" the way sha256sum does, and escape what
 * must not reach a terminal raw (hashtree_line()). */
static void
print_line(struct buf *b, const char *hex, const char *path,
    const char *suffix)
{
	if (hashtree_line(b, hex, path, suffix, true) != 0)
		fatal("a listing line is too long");
	if (b->len >= (64u << 10)) {
		fwrite(b->data, 1, b->len, stdout);
		buf_reset(b);
	}
}

/* Print one folder's tree hash, or its canonical listing; 0 or -1. */
static int
hash_folder(struct hasher *h, const char *path, bool list)
{
	struct buf b = BUF_INIT;
	struct tree t;
	size_t i, len = strlen(path);
	char *msg;

	if (hashtree_hash(h, path, NULL, &t) != 0) {
		fflush(stdout);
		msg = text_sanitize_str(t.err);
		fprintf(stderr, "calops: %s\n", msg);
		free(msg);
		hashtree_release(&t);
		return -1;
	}
	if (list) {
		for (i = 0; i < t.nfiles; i++)
			print_line(&b, t.files[i].hash.hex, t.files[i].path,
			    "");
	} else
		print_line(&b, t.hex, path, len > 0 && path[len - 1] == '/' ?
		    "" : "/");
	fwrite(b.data, 1, b.len, stdout);
	buf_release(&b);
	hashtree_release(&t);
	return 0;
}

/* Parse the options into opts and *list; returns optind, or -1 after
 * printing why on bad usage, or 0 after --help. */
static int
parse_options(int argc, char **argv, struct hasher_opts *opts, bool *list)
{
	char *end;
	long n;
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage_line, stdout);
			fputs(usage_help, stdout);
			return 0;
		case OPT_LIST:
			*list = true;
			break;
		case OPT_NO_CACHE:
			opts->use_cache = false;
			break;
		case OPT_THREADS:
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    n < 1 || n > MAX_THREADS) {
				fprintf(stderr, "calops: --threads wants a "
				    "number from 1 to %d, not '%s'\n",
				    MAX_THREADS, optarg);
				return -1;
			}
			opts->threads = (int)n;
			break;
		case ':':
			fprintf(stderr, "calops: option '%s' needs a value\n",
			    argv[optind - 1]);
			return -1;
		default:
			fprintf(stderr, "calops: unknown option '%s'\n",
			    argv[optind - 1]);
			return -1;
		}
	}
	if (optind >= argc) {
		fputs("calops: no path given\n", stderr);
		return -1;
	}
	return optind;
}

/* One PATH argument. */
struct arg {
	const char		*path;
	struct stat		 st;
	int			 staterr;	/* errno of stat(), or 0 */
	struct hash_result	 res;		/* for a regular file */
};

/* Hash the regular files among the arguments in one parallel batch. */
static void
hash_args(struct hasher *h, struct arg *args, size_t n)
{
	const char **files = xcalloc(n, sizeof *files);
	struct hash_result *res = xcalloc(n, sizeof *res);
	size_t *index = xcalloc(n, sizeof *index);
	size_t i, m = 0;

	for (i = 0; i < n; i++) {
		if (args[i].staterr == 0 && S_ISREG(args[i].st.st_mode)) {
			index[m] = i;
			files[m++] = args[i].path;
		}
	}
	hash_files(h, m, files, res);
	for (i = 0; i < m; i++)
		args[index[i]].res = res[i];
	free(index);
	free(res);
	free(files);
}

/* Print one argument's line (or listing); 0, or -1 after complaining. */
static int
hash_arg(struct hasher *h, const struct arg *a, bool list)
{
	struct buf b = BUF_INIT;
	char *why;

	if (a->staterr != 0) {
		complain(a->path, strerror(a->staterr));
		return -1;
	}
	if (S_ISDIR(a->st.st_mode))
		return hash_folder(h, a->path, list);
	if (!S_ISREG(a->st.st_mode)) {
		why = xasprintf("not a regular file: %s",
		    hash_file_kind(a->st.st_mode));
		complain(a->path, why);
		free(why);
		return -1;
	}
	if (a->res.err != 0) {
		complain(a->path, strerror(a->res.err));
		return -1;
	}
	print_line(&b, a->res.hex, a->path, "");
	fwrite(b.data, 1, b.len, stdout);
	buf_release(&b);
	return 0;
}

int
cmd_hash(int argc, char **argv)
{
	struct hasher_opts opts = { .use_cache = true };
	struct hasher *h;
	struct arg *args;
	bool list = false;
	size_t n, i;
	int first, rc = 0;

	if ((first = parse_options(argc, argv, &opts, &list)) <= 0) {
		if (first < 0)
			fputs(usage_line, stderr);
		return first < 0 ? 2 : 0;
	}
	n = (size_t)(argc - first);
	args = xcalloc(n, sizeof *args);
	for (i = 0; i < n; i++) {
		args[i].path = argv[first + i];
		if (stat(args[i].path, &args[i].st) != 0)
			args[i].staterr = errno;
	}
	h = hash_new(&opts);
	hash_args(h, args, n);
	for (i = 0; i < n; i++) {
		if (hash_arg(h, &args[i], list) != 0)
			rc = 1;
	}
	hash_free(h);
	free(args);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "calops: cannot write the output: %s\n",
		    strerror(errno));
		rc = 1;
	}
	return rc;
}
