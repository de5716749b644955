/*
 * cmd_chipstep.c: `calops release chip-step --generation N --chip C -- WS
 * RUNNER…`, the lab side of a release's chip step (share/doc/release.md
 * §6): run as a durable lab job on the host whose chip it uses, it runs
 * the runner's `inspect` (configure) and then `golden` (warm-up and the
 * golden sequence) with the workspace's package on chip C, the runner's
 * own events going straight to the job's stream, and ends with one
 * `chip_step` event: the golden result file's SHA-256, the package's tree
 * hash golden says it ran, and whether every case matched.  The approver
 * (calops release promote, or a console) compares that tree hash with the
 * generation's manifest and signs the hash into the audit record.
 *
 * The result goes to 08-release/chip-steps/<N>-<job>/golden.json: outside
 * G7's evidence (a chip step is no gate's run) and outside every binding
 * (G10 hashes nothing under 08-release/), in a folder of its own that no
 * run replaces.
 */
#include "calops.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <getopt.h>
#include <unistd.h>

#include <jansson.h>

#include "base/fileio.h"
#include "base/text.h"
#include "cmd/cmd.h"
#include "job/jobstore.h"
#include "ws/hash.h"

#define RESULT_MAX	(16u << 20)	/* the largest golden.json read */

static const char chipstep_usage[] =
    "usage: calops release chip-step --generation N --chip C -- WS RUNNER "
    "[ARG...]\n"
    "\n"
    "A release's chip step (a lab job; calops release promote starts it):\n"
    "run RUNNER inspect and then RUNNER golden with WS's package on chip\n"
    "C, writing the result under WS/08-release/chip-steps/, and say its\n"
    "SHA-256 in a last chip_step event.\n"
    "\n"
    "Exit status: 0 when golden passed, 1 when a step failed or a case did\n"
    "not match, 2 on a usage error.\n";

static void
step(const char *phase, int done)
{
	cmd_release_event(json_pack("{s:s, s:s, s:i, s:i, s:s}", "type", "progress",
	    "phase", phase, "done", done, "total", 2, "unit", "steps"));
}

/* Run runner… command --calbin PKG --chips C [more…]; its exit status, or
 * -1 with why (it could not start, a signal ended it). */
static int
run_runner(char **runner, size_t nrunner, const char *command,
    const char *calbin, const char *chip, const char *out, char *why,
    size_t whylen)
{
	char **argv = xcalloc(nrunner + 9, sizeof *argv);
	size_t n = 0, i;
	int status;
	pid_t pid;

	for (i = 0; i < nrunner; i++)
		argv[n++] = runner[i];
	argv[n++] = (char *)command;
	argv[n++] = "--calbin";
	argv[n++] = (char *)calbin;
	argv[n++] = "--chips";
	argv[n++] = (char *)chip;
	if (out != NULL) {
		argv[n++] = "--output";
		argv[n++] = (char *)out;
	}
	fflush(stdout);
	if ((pid = fork()) == -1) {
		errbuf_set(why, whylen, "cannot fork: %s", strerror(errno));
		free(argv);
		return -1;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "calops: cannot run '%s': %s\n", argv[0],
		    strerror(errno));
		_exit(127);
	}
	free(argv);
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR) {
			errbuf_set(why, whylen, "cannot wait for the runner: "
			    "%s", strerror(errno));
			return -1;
		}
	if (WIFSIGNALED(status)) {
		errbuf_set(why, whylen, "the runner's %s was ended by signal "
		    "%d", command, WTERMSIG(status));
		return -1;
	}
	if (WEXITSTATUS(status) != 0)
		errbuf_set(why, whylen, "the runner's %s exited %d", command,
		    WEXITSTATUS(status));
	return WEXITSTATUS(status);
}

/* The bytes of path, a regular file of at most RESULT_MAX bytes (a new
 * buffer), or NULL with why. */
static char *
read_result(const char *path, const char *rel, size_t *len, char *why,
    size_t whylen)
{
	struct stat sb;
	char *data;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    sb.st_size > (off_t)RESULT_MAX) {
		errbuf_set(why, whylen, "cannot read '%s': %s", rel, fd == -1 ?
		    strerror(errno) : "not a regular file of at most 16 MiB");
		if (fd != -1)
			close(fd);
		return NULL;
	}
	data = xmalloc((size_t)sb.st_size + 1);
	if (fileio_read_full(fd, data, (size_t)sb.st_size) != 0) {
		errbuf_set(why, whylen, "cannot read '%s': %s", rel,
		    strerror(errno));
		free(data);
		close(fd);
		return NULL;
	}
	close(fd);
	*len = (size_t)sb.st_size;
	return data;
}

/* The cases golden.json says, and how many of them failed. */
static void
count_cases(const json_t *doc, size_t *n, size_t *failed)
{
	const json_t *c;
	size_t i;

	*n = *failed = 0;
	json_array_foreach(json_object_get(doc, "cases"), i, c) {
		(*n)++;
		if (!json_is_true(json_object_get(c, "logits_match")) ||
		    !json_is_true(json_object_get(c, "greedy_match")) ||
		    !json_is_true(json_object_get(c, "kv_len_match")))
			(*failed)++;
	}
}

/*
 * The result file read back: its hash, the tree hash golden ran and its
 * cases, said as the chip_step event; 0 when every case matched, else 1
 * (why said).
 */
static int
judge(const char *ws, const char *rel, char *why, size_t whylen)
{
	char *path = xasprintf("%s/%s", ws, rel), hex[65];
	const char *tree;
	json_error_t je;
	size_t len, n, failed;
	json_t *doc;
	char *data;
	int rc = 1;

	if ((data = read_result(path, rel, &len, why, whylen)) == NULL) {
		free(path);
		return 1;
	}
	hash_bytes(data, len, hex);
	doc = json_loadb(data, len, 0, &je);
	free(data);
	tree = json_string_value(json_object_get(doc, "calbin_tree_sha256"));
	count_cases(doc, &n, &failed);
	if (!json_is_object(doc))
		errbuf_set(why, whylen, "'%s' is not a JSON object: %s at line "
		    "%d", rel, je.text, je.line);
	else if (tree == NULL)
		errbuf_set(why, whylen, "'%s' names no calbin_tree_sha256",
		    rel);
	else if (n == 0)
		errbuf_set(why, whylen, "'%s' holds no golden case", rel);
	else if (failed > 0)
		errbuf_set(why, whylen, "%zu of %zu golden cases do not "
		    "match", failed, n);
	else
		rc = 0;
	/* rel is ours (result_folder(): a valid job id); why may quote
	 * strerror() in the host's locale, text_json's to keep. */
	cmd_release_event(json_pack("{s:s, s:s, s:s, s:o, s:b, s:I, s:I, s:o}",
	    "type", "chip_step", "golden", rel, "golden_sha256", hex,
	    "calbin_tree_sha256", tree != NULL ? json_string(tree) :
	    json_null(), "passed", rc == 0, "cases", (json_int_t)n, "failed",
	    (json_int_t)failed, "problem", rc == 0 ? json_null() :
	    text_json(why)));
	json_decref(doc);
	free(path);
	return rc;
}

/* Whether ws/rel is a folder itself, not a link to one. */
static bool
real_folder(const char *ws, const char *rel)
{
	char *path = xasprintf("%s/%s", ws, rel);
	struct stat sb;
	bool ok;

	ok = lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
	free(path);
	return ok;
}

/* 08-release/chip-steps/<gen>-<job>/, made new: a chip step never writes
 * over another's result.  The relative path of its golden.json. */
static char *
result_folder(const char *ws, long gen, char *why, size_t whylen)
{
	const char *job = getenv("CALOPS_JOB");
	char *dir, *rel = NULL, id[JOB_ID_MAX + 32];

	if (job != NULL && jobstore_id_valid(job))
		snprintf(id, sizeof id, "%ld-%s", gen, job);
	else
		snprintf(id, sizeof id, "%ld-pid%ld", gen, (long)getpid());
	dir = xasprintf("%s/08-release/chip-steps", ws);
	/* As the release commands: nothing through a link. */
	if (!real_folder(ws, "08-release"))
		errbuf_set(why, whylen, "08-release/ is not a folder of the "
		    "workspace (missing, or a symbolic link)");
	else if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		errbuf_set(why, whylen, "cannot make 08-release/chip-steps: %s",
		    strerror(errno));
	else if (!real_folder(ws, "08-release/chip-steps"))
		errbuf_set(why, whylen, "08-release/chip-steps is not a folder "
		    "(a symbolic link?): the result is not written through it");
	else {
		free(dir);
		dir = xasprintf("%s/08-release/chip-steps/%s", ws, id);
		if (mkdir(dir, 0755) != 0)
			errbuf_set(why, whylen, "cannot make 08-release/"
			    "chip-steps/%s: %s", id, strerror(errno));
		else
			rel = xasprintf("08-release/chip-steps/%s/golden.json",
			    id);
	}
	free(dir);
	return rel;
}

static int
fail(const char *why)
{
	cmd_release_event(json_pack("{s:s, s:s, s:{}, s:[], s:o}", "type",
	    "result", "status", "fail", "summary", "artifacts", "message",
	    text_json(why)));
	fprintf(stderr, "calops: chip step: %s\n", why);
	return 1;
}

int
cmd_chipstep(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "generation", required_argument, NULL, 'g' },
		{ "chip", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char why[512], chip[24], *calbin, *rel, *out, *end;
	long gen = -1, c = -1;
	const char *ws;
	int opt, rc, g;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'g':
			gen = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || gen < 1)
				gen = -1;
			break;
		case 'c':
			c = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || c < 0 ||
			    c > 4095)
				c = -1;
			break;
		case 'h':
			fputs(chipstep_usage, stdout);
			return 0;
		default:
			fputs(chipstep_usage, stderr);
			return 2;
		}
	}
	if (gen == -1 || c == -1 || argc - optind < 2) {
		fputs(chipstep_usage, stderr);
		return 2;
	}
	ws = argv[optind++];
	snprintf(chip, sizeof chip, "%ld", c);
	if ((rel = result_folder(ws, gen, why, sizeof why)) == NULL)
		return fail(why);
	calbin = xasprintf("%s/05-calbin/package", ws);
	out = xasprintf("%s/%s", ws, rel);
	step("inspect", 0);
	if (run_runner(argv + optind, (size_t)(argc - optind), "inspect",
	    calbin, chip, NULL, why, sizeof why) != 0)
		rc = fail(why);
	else {
		step("golden", 1);
		/* A golden that fails still leaves its result: judged and
		 * hashed, for the refusal to cite. */
		g = run_runner(argv + optind, (size_t)(argc - optind),
		    "golden", calbin, chip, out, why, sizeof why);
		if (g == -1 || access(out, F_OK) != 0)
			rc = fail(why);
		else if ((rc = judge(ws, rel, why, sizeof why)) != 0)
			fprintf(stderr, "calops: chip step: %s\n", why);
		else if (g != 0)
			rc = fail(why);
		else
			step("done", 2);
	}
	free(out);
	free(calbin);
	free(rel);
	return rc;
}
