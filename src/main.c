/* main.c: the subcommand table and the top-level --help. */
#include "calops.h"

#include <getopt.h>
#include <locale.h>
#include <sys/stat.h>

#include "app.h"
#include "cmd.h"

#ifndef CALOPS_VERSION
#define CALOPS_VERSION "0.0.0"
#endif
#ifndef CALOPS_DEMO_DIR
#define CALOPS_DEMO_DIR "share/examples/midproject"
#endif

static const struct command {
	const char	*name;
	int		(*run)(int, char **);
	const char	*summary;
} commands[] = {
	{ "check", cmd_check, "evaluate a workspace's gates G0-G10 and tickets M01-M13" },
	{ "hash", cmd_hash, "print SHA-256 of files or tree hashes of folders" },
	{ "run", cmd_run, "start a command as a durable job; print its id" },
	{ "tail", cmd_tail, "print a job's events from a seq on; --follow" },
	{ "jobs", cmd_jobs, "list the durable jobs and their states" },
	{ "kill", cmd_kill, "stop a job: SIGTERM, then SIGKILL after a grace" },
};

static void
usage(FILE *f)
{
	size_t i;

	fputs("usage: calops [--theme NAME] [--readonly] [--plain] [--ascii]\n"
	    "              [--config FILE] [PATH]\n"
	    "       calops COMMAND [ARGS]\n"
	    "       calops --help | --version\n\n"
	    "With no command, open the console on PATH (a workspace folder), or\n"
	    "on the bundled demo workspace when none is given.\n\n"
	    "  --theme NAME   a theme from themes/ or the config folder, or a file\n"
	    "  --readonly     hide every action that changes anything\n"
	    "  --plain        print the board as text, no full-screen drawing\n"
	    "  --ascii        ASCII instead of UTF-8 box drawing and glyphs\n"
	    "  --config FILE  instead of $XDG_CONFIG_HOME/calops/config.yaml\n\n"
	    "commands:\n", f);
	for (i = 0; i < nitems(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fputs("\n'calops COMMAND --help' describes one command; press ? in the\n"
	    "console for its keys.  See calops(1).\n", f);
}

/* The console: `calops [OPTIONS] [PATH]`. */
static int
console(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "theme", required_argument, NULL, 't' },
		{ "readonly", no_argument, NULL, 'r' },
		{ "plain", no_argument, NULL, 'p' },
		{ "ascii", no_argument, NULL, 'a' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct app_opts o = { 0 };
	bool plain = false;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't': o.theme = optarg; break;
		case 'r': o.readonly = true; break;
		case 'p': plain = true; break;
		case 'a': o.ascii = true; break;
		case 'c': o.config_path = optarg; break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("calops %s\n", CALOPS_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind > 1) {
		usage(stderr);
		return 2;
	}
	if (optind < argc)
		o.path = argv[optind];
	else {
		o.path = CALOPS_DEMO_DIR;
		o.demo = true;
	}
	if (plain) {
		char *args[] = { "check", "--", (char *)o.path, NULL };

		return cmd_check(3, args);
	}
	return app_main(&o);
}

int
main(int argc, char **argv)
{
	size_t i;

	setlocale(LC_ALL, "");
	for (i = 0; argc > 1 && i < nitems(commands); i++) {
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	}
	return console(argc, argv);
}
