/*
 * cmd_run.c: `calops run`, start a durable job (protocol.md §2): in the
 * folder --cwd names (the workspace the console shows), and with --gate
 * only while no other job of that gate runs there (gatelock.h).
 */
#include "calops.h"

#include <getopt.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "job/gatelock.h"
#include "job/job.h"
#include "job/jobstore.h"
#include "vocab/gateid.h"

#ifndef CALOPS_VERSION
#define CALOPS_VERSION "0.0.0"
#endif

static const char run_usage[] =
    "usage: calops run [--id ID] [--jobs DIR] [--cwd DIR] [--gate G]\n"
    "                  [--actor WHO] -- CMD [ARG...]\n"
    "\n"
    "Start CMD as a durable job under a supervisor of its own and print the\n"
    "job's id.  The job outlives this command, the terminal and the SSH\n"
    "connection; its events go to DIR/ID/events.jsonl (see calops tail).\n"
    "\n"
    "  --id ID      the job's id: letters, digits, '.', '_' and '-', at most\n"
    "               64, no leading '.' (default: YYYYmmdd-HHMMSS-<6 hex>)\n"
    "  --jobs DIR   the jobs folder (default: $CALOPS_JOBS_DIR, else\n"
    "               $XDG_STATE_HOME/calops/jobs)\n"
    "  --cwd DIR    run CMD in DIR (a workspace), recorded in job.json\n"
    "  --gate G     the job is gate G's (G0 to G10) in the --cwd folder:\n"
    "               refused while another job of G runs there, whoever\n"
    "               started it (its id and who are said)\n"
    "  --actor WHO  who starts it, for job.json and a refusal (default:\n"
    "               user@host)\n"
    "  -h, --help   this help\n"
    "\n"
    "Exit status: 0 when the job started, 1 when it could not be made or its\n"
    "command could not be run (the id is still printed then), 3 when another\n"
    "job of the gate runs in the folder, 2 on a usage error.\n";

/* What the options say, beyond the job_spec. */
struct run_opts {
	const char	*jobs, *cwd, *actor;
	int		 gate;		/* -1: none */
};

/* Into the job's folder: the tool runs there and job.json says so. */
static int
enter(const char *dir)
{
	if (chdir(dir) == 0)
		return 0;
	fprintf(stderr, "calops: cannot run the job in '%s': %s\n", dir,
	    strerror(errno));
	return -1;
}

/* Gate o->gate's lock in the folder the job runs in (gatelock.h), taken
 * for the job spec->id: 0 with spec->hold_fd set, 3 when another job of
 * the gate holds it (said with its id and who started it), 1 on error. */
static int
lock_gate(const struct run_opts *o, struct job_spec *spec)
{
	struct gatelock_holder who;
	char err[1024], *ws = getcwd(NULL, 0), when[32];
	time_t t;
	int rc;

	if (ws == NULL) {
		fprintf(stderr, "calops: cannot tell the job's folder: %s\n",
		    strerror(errno));
		return 1;
	}
	rc = gatelock_take(spec->root, o->gate, ws, spec->id, spec->actor,
	    &spec->hold_fd, &who, err, sizeof err);
	if (rc == 1 && who.job[0] != '\0') {
		t = (time_t)who.started;
		strftime(when, sizeof when, "%H:%M:%S", localtime(&t));
		fprintf(stderr, "calops: refused: G%d's job %s, started by %s "
		    "at %s, is running in %s (calops kill %s to stop it)\n",
		    o->gate, who.job, who.actor[0] != '\0' ? who.actor :
		    "somebody", when, ws, who.job);
	} else if (rc == 1)
		fprintf(stderr, "calops: refused: a job of G%d is starting in "
		    "%s\n", o->gate, ws);
	else if (rc == -1)
		fprintf(stderr, "calops: %s\n", err);
	free(ws);
	return rc == 0 ? 0 : rc == 1 ? 3 : 1;
}

static int
parse_opts(int argc, char **argv, struct job_spec *spec, struct run_opts *o)
{
	static const struct option opts[] = {
		{ "id", required_argument, NULL, 'i' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "cwd", required_argument, NULL, 'C' },
		{ "gate", required_argument, NULL, 'g' },
		{ "actor", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': spec->id = optarg; break;
		case 'J': o->jobs = optarg; break;
		case 'C': o->cwd = optarg; break;
		case 'a': o->actor = optarg; break;
		case 'g':
			if ((o->gate = gateid_index(optarg)) < 0) {
				fprintf(stderr, "calops: '%s' is not a gate: "
				    "G0 to G10\n", optarg);
				return 2;
			}
			break;
		case 'h':
			fputs(run_usage, stdout);
			return 0;
		default:
			fputs(run_usage, stderr);
			return 2;
		}
	}
	if (optind == argc || (o->gate >= 0 && o->cwd == NULL)) {
		if (optind != argc)
			fputs("calops: --gate needs --cwd (the workspace)\n",
			    stderr);
		fputs(run_usage, stderr);
		return 2;
	}
	if (spec->id != NULL && !jobstore_id_valid(spec->id)) {
		fprintf(stderr, "calops: invalid job id '%s' (letters, digits, "
		    "'.', '_', '-', at most %d, no leading '.')\n", spec->id,
		    JOB_ID_MAX);
		return 2;
	}
	return -1;
}

int
cmd_run(int argc, char **argv)
{
	struct job_spec spec = { NULL, NULL, NULL, CALOPS_VERSION, NULL, -1 };
	struct run_opts o = { NULL, NULL, NULL, -1 };
	char id[JOB_ID_MAX + 1] = "", gen[JOB_ID_MAX + 1], err[1024];
	char *root, *actor = NULL;
	int rc;

	if ((rc = parse_opts(argc, argv, &spec, &o)) != -1)
		return rc;
	if ((root = jobstore_root(o.jobs, true, err, sizeof err)) == NULL) {
		fprintf(stderr, "calops: %s\n", err);
		return 1;
	}
	if (o.cwd != NULL && enter(o.cwd) != 0) {
		free(root);
		return 1;
	}
	spec.root = root;
	spec.argv = argv + optind;
	if ((spec.actor = o.actor) == NULL)
		spec.actor = actor = jobstore_default_actor();
	if (spec.id == NULL) {
		/* The lock names the job before it exists. */
		jobstore_id_generate(gen, sizeof gen);
		spec.id = gen;
	}
	if (o.gate >= 0 && (rc = lock_gate(&o, &spec)) != 0) {
		free(actor);
		free(root);
		return rc;
	}
	rc = job_start(&spec, id, sizeof id, err, sizeof err);
	if (spec.hold_fd != -1)
		close(spec.hold_fd);
	free(actor);
	free(root);
	if (rc >= 0) {
		printf("%s\n", id);
		fflush(stdout);
	}
	if (rc != 0)
		fprintf(stderr, "calops: %s\n", err);
	return rc == 0 ? 0 : 1;
}
