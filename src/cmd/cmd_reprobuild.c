/*
 * cmd_reprobuild.c: `calops repro-build WS [--builds N | --again] -- CMD…`,
 * G5's reproducibility run as one lab job (runbook §9.3, workspace.md G5):
 * the compile command run N times (2 by default) in the workspace's root,
 * each build's output and exit recorded where G5.builds reads them: its
 * log in 04-compiler/logs/<id>.log, and one entry of 04-compiler/
 * builds.json {id, exit_code, output_tree_sha256 (the tree hash of
 * 05-calbin/package/ after it), log, started, duration_s, host}.  --again
 * adds one build to the builds already listed (a third on demand); else
 * the list is made anew, and the set it replaces (builds.json and the logs
 * it lists) is moved first, whole, to 04-compiler/history/<its time>/: a
 * run never destroys another's evidence (workspace.md, "Runs never
 * overwrite runs").  builds.json is written after every build,
 * atomically (a temporary file, fsync, rename), so a job cut short leaves
 * the builds it finished.
 *
 * The command learns its build's id from $BUILD_ID, as the runbook's
 * compile.sh takes it.  Whether differing trees are explained is for
 * people to write (nondeterminism_explained, golden_equivalent): this
 * records what happened, and G5 judges it.  Each build is said on stdout,
 * which the lab job's log shows.
 */
#include "calops.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <getopt.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "base/fileio.h"
#include "base/text.h"
#include "cmd/cmd.h"
#include "ws/hash.h"
#include "ws/hashtree.h"

#define BUILDS_MAX	64

static const char reprobuild_usage[] =
    "usage: calops repro-build WS [--builds N | --again] -- CMD [ARG...]\n"
    "\n"
    "G5's reproducibility run: CMD, the compile command, run N times (2 by\n"
    "default) in workspace WS's root with BUILD_ID set (build-1, build-2,\n"
    "…), each build's output in 04-compiler/logs/ID.log and its exit, the\n"
    "tree hash of 05-calbin/package/ after it, when and how long, written\n"
    "to 04-compiler/builds.json.  --again adds one more build to those\n"
    "listed; without it, the last set (builds.json and its logs) is first\n"
    "moved, whole, to 04-compiler/history/TIME/.\n"
    "\n"
    "Exit status: 0 when every build exited 0 with the same package tree,\n"
    "1 otherwise (G5.builds says what is wrong), 2 on a usage error.\n";

/* The tree hash of the package the build left, or "" (said). */
static void
package_tree(char hex[HASH_HEX_LEN + 1])
{
	struct hasher_opts ho = { .use_cache = false };
	struct hasher *h = hash_new(&ho);
	struct tree t;

	hex[0] = '\0';
	memset(&t, 0, sizeof t);
	if (hashtree_hash(h, "05-calbin/package", NULL, &t) == 0)
		memcpy(hex, t.hex, HASH_HEX_LEN + 1);
	else
		printf("the package cannot be hashed: %s\n", t.err);
	hashtree_release(&t);
	hash_free(h);
}

/* Run argv with BUILD_ID=id, its output into log; its exit code (-1 when
 * it could not run or was killed, said). */
static int
build(const char *id, const char *log, char **argv)
{
	int fd, status;
	pid_t pid;

	if ((fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1) {
		printf("%s: cannot write '%s': %s\n", id, log, strerror(errno));
		return -1;
	}
	fflush(stdout);
	if ((pid = fork()) == -1) {
		printf("%s: cannot fork: %s\n", id, strerror(errno));
		close(fd);
		return -1;
	}
	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		setenv("BUILD_ID", id, 1);
		execvp(argv[0], argv);
		dprintf(2, "calops repro-build: cannot run '%s': %s\n",
		    argv[0], strerror(errno));
		_exit(127);
	}
	close(fd);
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(status)) {
		printf("%s: killed by signal %d\n", id, WTERMSIG(status));
		return -1;
	}
	return WEXITSTATUS(status);
}

/* builds.json written whole, atomically; 0 or -1 (said). */
static int
save(json_t *builds)
{
	const char *path = "04-compiler/builds.json";
	char *text = json_dumps(builds, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	char err[256];
	int rc;

	if (text == NULL)
		return -1;
	rc = fileio_replace(path, text, strlen(text), 0644, true, err,
	    sizeof err);
	if (rc != 0)
		printf("cannot write %s: %s\n", path, err);
	free(text);
	return rc;
}

/* A log a builds.json entry names, as run_builds writes them: logs/NAME.log,
 * NAME plain (no folder, not hidden), so that moving it stays inside. */
static bool
set_log_name(const char *log)
{
	size_t n;

	if (log == NULL || strncmp(log, "logs/", 5) != 0)
		return false;
	n = strlen(log + 5);
	return n > 4 && log[5] != '.' && strcmp(log + 5 + n - 4, ".log") == 0 &&
	    strspn(log + 5, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX"
	    "YZ0123456789._-") == n;
}

/* Move the build set there is (builds.json, then the logs it lists) to
 * 04-compiler/history/<builds.json's mtime, UTC>/, as it was; 0 when there
 * is none or it moved, -1 (said) when it could not be kept: then nothing
 * is built, rather than the set overwritten. */
static int
keep_previous_set(void)
{
	const char *path = "04-compiler/builds.json";
	char stamp[32], dir[96], from[128], to[192];
	struct stat st;
	struct tm tm;
	json_t *old, *b;
	size_t i;

	if (lstat(path, &st) == -1) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "calops: %s: %s\n", path, strerror(errno));
		return -1;
	}
	gmtime_r(&st.st_mtim.tv_sec, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
	snprintf(dir, sizeof dir, "04-compiler/history/%s.%09ldZ", stamp,
	    (long)st.st_mtim.tv_nsec);
	snprintf(to, sizeof to, "%s/logs", dir);
	if ((mkdir("04-compiler/history", 0755) == -1 && errno != EEXIST) ||
	    mkdir(dir, 0755) == -1 || mkdir(to, 0755) == -1) {
		fprintf(stderr, "calops: cannot keep the last build set in "
		    "'%s': %s\n", dir, strerror(errno));
		return -1;
	}
	old = json_load_file(path, 0, NULL);
	json_array_foreach(old, i, b) {
		const char *log = json_string_value(json_object_get(b, "log"));

		if (!set_log_name(log))
			continue;	/* not a log this command wrote */
		snprintf(from, sizeof from, "04-compiler/%s", log);
		snprintf(to, sizeof to, "%s/%s", dir, log);
		if (rename(from, to) == -1 && errno != ENOENT) {
			fprintf(stderr, "calops: cannot keep '%s' as '%s': "
			    "%s\n", from, to, strerror(errno));
			json_decref(old);
			return -1;
		}
	}
	json_decref(old);
	snprintf(to, sizeof to, "%s/builds.json", dir);
	if (rename(path, to) == -1) {
		fprintf(stderr, "calops: cannot keep '%s' as '%s': %s\n", path,
		    to, strerror(errno));
		return -1;
	}
	printf("the last build set is kept in %s\n", dir);
	return 0;
}

/* The builds listed now (--again), or a new list; NULL, said. */
static json_t *
load(bool again)
{
	json_error_t je;
	json_t *j;

	if (!again)
		return json_array();
	if ((j = json_load_file("04-compiler/builds.json", 0, &je)) == NULL ||
	    !json_is_array(j)) {
		fprintf(stderr, "calops: --again adds to 04-compiler/builds.json, "
		    "which %s\n", j == NULL ? je.text : "is not a list");
		json_decref(j);
		return NULL;
	}
	return j;
}

/* The first build's package tree (borrowed), or NULL. */
static const char *
first_tree(const json_t *builds)
{
	return json_string_value(json_object_get(json_array_get(builds, 0),
	    "output_tree_sha256"));
}

static int
run_builds(json_t *builds, int n, char **argv)
{
	char id[32], log[64], hex[HASH_HEX_LEN + 1], when[32], host[256];
	const char *first = NULL;
	struct timespec t0, t1;
	time_t now;
	int i, code, rc = 0;

	if (gethostname(host, sizeof host) != 0)
		snprintf(host, sizeof host, "?");
	host[sizeof host - 1] = '\0';
	if (json_array_size(builds) > 0)
		first = first_tree(builds);
	if (mkdir("04-compiler/logs", 0755) != 0 && errno != EEXIST) {
		printf("cannot make 04-compiler/logs: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++) {
		snprintf(id, sizeof id, "build-%zu", json_array_size(builds) +
		    1);
		snprintf(log, sizeof log, "logs/%s.log", id);
		now = time(NULL);
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ",
		    gmtime(&now));
		printf("%s: started\n", id);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		{
			char path[80];

			snprintf(path, sizeof path, "04-compiler/%s", log);
			code = build(id, path, argv);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		package_tree(hex);
		json_array_append_new(builds, json_pack("{s:s, s:o, s:s, s:s, "
		    "s:s, s:I, s:o}", "id", id, "exit_code", code >= 0 ?
		    json_integer(code) : json_null(), "output_tree_sha256", hex,
		    "log", log, "started", when, "duration_s",
		    (json_int_t)(t1.tv_sec - t0.tv_sec), "host", text_json(host)));
		if (first == NULL)
			first = first_tree(builds);
		printf("%s: exit %d, package %.12s%s (%s)\n", id, code, hex,
		    hex[0] == '\0' ? "(none)" : "…",
		    json_array_size(builds) == 1 ? "the first build" :
		    first != NULL && strcmp(first, hex) == 0 ?
		    "the same as the first build's" :
		    "differs from the first build's");
		if (code != 0 || hex[0] == '\0' || first == NULL ||
		    strcmp(first, hex) != 0)
			rc = 1;
		if (save(builds) != 0)
			return 1;
		fflush(stdout);
	}
	return rc;
}

int
cmd_reprobuild(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "builds", required_argument, NULL, 'n' },
		{ "again", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool again = false;
	json_t *builds;
	char *end;
	long n = 2;
	int c, rc, dashes;

	/* Options and WS before "--"; the command after it, untouched. */
	for (dashes = 1; dashes < argc && strcmp(argv[dashes], "--") != 0;
	    dashes++)
		;
	optind = 1;
	while ((c = getopt_long(dashes, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			n = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || n < 1 ||
			    n > BUILDS_MAX) {
				fprintf(stderr, "calops: --builds takes 1 to %d, "
				    "not '%s'\n", BUILDS_MAX, optarg);
				return 2;
			}
			break;
		case 'a':
			again = true;
			n = 1;
			break;
		case 'h':
			fputs(reprobuild_usage, stdout);
			return 0;
		default:
			fputs(reprobuild_usage, stderr);
			return 2;
		}
	}
	if (optind != dashes - 1 || dashes + 1 >= argc) {
		fputs(reprobuild_usage, stderr);
		return 2;
	}
	if (chdir(argv[optind]) != 0) {
		fprintf(stderr, "calops: cannot enter the workspace '%s': %s\n",
		    argv[optind], strerror(errno));
		return 1;
	}
	if ((!again && keep_previous_set() != 0) ||
	    (builds = load(again)) == NULL)
		return 1;
	if (json_array_size(builds) + (size_t)n > BUILDS_MAX) {
		fprintf(stderr, "calops: builds.json lists %zu builds already\n",
		    json_array_size(builds));
		json_decref(builds);
		return 1;
	}
	rc = run_builds(builds, (int)n, argv + dashes + 1);
	json_decref(builds);
	return fflush(stdout) != 0 ? 1 : rc;
}
