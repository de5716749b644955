/* main.c: the subcommand table and the top-level --help. */
#include "calops.h"

#include <locale.h>

#include "cmd.h"

#ifndef CALOPS_VERSION
#define CALOPS_VERSION "0.0.0"
#endif

static const struct command {
	const char	*name;
	int		(*run)(int, char **);
	const char	*summary;
} commands[] = {
	{ "check", cmd_check, "evaluate a workspace's gates G0-G10 and tickets M01-M13" },
	{ "hash", cmd_hash, "print SHA-256 of files or tree hashes of folders" },
};

static void
usage(FILE *f)
{
	size_t i;

	fputs("usage: calops COMMAND [ARGS]\n"
	    "       calops --help | --version\n\ncommands:\n", f);
	for (i = 0; i < nitems(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fputs("\n'calops COMMAND --help' describes one command.\n", f);
}

int
main(int argc, char **argv)
{
	size_t i;

	setlocale(LC_ALL, "");
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("calops %s\n", CALOPS_VERSION);
		return 0;
	}
	for (i = 0; i < nitems(commands); i++) {
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "calops: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
