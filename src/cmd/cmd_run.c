/* cmd_run.c: `calops run`, start a durable job (protocol.md §2). */
#include "calops.h"

#include <getopt.h>

#include "cmd/cmd.h"
#include "job/job.h"
#include "job/jobstore.h"

#ifndef CALOPS_VERSION
#define CALOPS_VERSION "0.0.0"
#endif

static const char run_usage[] =
    "usage: calops run [--id ID] [--jobs DIR] -- CMD [ARG...]\n"
    "\n"
    "Start CMD as a durable job under a supervisor of its own and print the\n"
    "job's id.  The job outlives this command, the terminal and the SSH\n"
    "connection; its events go to DIR/ID/events.jsonl (see calops tail).\n"
    "\n"
    "  --id ID      the job's id: letters, digits, '.', '_' and '-', at most\n"
    "               64, no leading '.' (default: YYYYmmdd-HHMMSS-<6 hex>)\n"
    "  --jobs DIR   the jobs folder (default: $CALOPS_JOBS_DIR, else\n"
    "               $XDG_STATE_HOME/calops/jobs)\n"
    "  -h, --help   this help\n"
    "\n"
    "Exit status: 0 when the job started, 1 when it could not be made or its\n"
    "command could not be run (the id is still printed then), 2 on a usage\n"
    "error.\n";

int
cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "id", required_argument, NULL, 'i' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct job_spec spec = { NULL, NULL, NULL, CALOPS_VERSION };
	char id[JOB_ID_MAX + 1] = "", err[1024];
	const char *jobs = NULL;
	char *root;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': spec.id = optarg; break;
		case 'J': jobs = optarg; break;
		case 'h':
			fputs(run_usage, stdout);
			return 0;
		default:
			fputs(run_usage, stderr);
			return 2;
		}
	}
	if (optind == argc) {
		fputs(run_usage, stderr);
		return 2;
	}
	if (spec.id != NULL && !jobstore_id_valid(spec.id)) {
		fprintf(stderr, "calops: invalid job id '%s' (letters, digits, "
		    "'.', '_', '-', at most %d, no leading '.')\n", spec.id,
		    JOB_ID_MAX);
		return 2;
	}
	if ((root = jobstore_root(jobs, true, err, sizeof err)) == NULL) {
		fprintf(stderr, "calops: %s\n", err);
		return 1;
	}
	spec.root = root;
	spec.argv = argv + optind;
	rc = job_start(&spec, id, sizeof id, err, sizeof err);
	free(root);
	if (rc >= 0) {
		printf("%s\n", id);
		fflush(stdout);
	}
	if (rc != 0)
		fprintf(stderr, "calops: %s\n", err);
	return rc == 0 ? 0 : 1;
}
