/* main.c: the subcommand table and the top-level --help. */
#include "calops.h"

#include <getopt.h>
#include <locale.h>
#include <sys/stat.h>

#include "app.h"
#include "cmd.h"
#include "config.h"
#include "lab.h"

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
	    "With no command, open the console on PATH: a workspace folder, or a\n"
	    "lab file naming workspaces (protocol.md §4).  With none, the lab file\n"
	    "of the config (its 'lab' key, or lab.yaml in the config folder), else\n"
	    "the bundled demo workspace.\n\n"
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

/*
 * What the console opens: PATH when given (a workspace folder, or a lab
 * file naming workspaces); else the lab file of the config (its `lab` key,
 * or lab.yaml in the config folder); else the bundled demo.  A lab's first
 * workspace on a local host is shown: SSH hosts come with the SSH
 * transport.  Returns the workspace (a new string), or NULL with err.
 */
static char *
pick_workspace(const char *path, const char *config_path, bool *demo,
    char *err, size_t errlen)
{
	char buf[PATH_MAX], *lab_path = NULL, *ws = NULL;
	struct config cfg;
	struct stat st;
	struct lab lab;
	size_t i;

	*demo = false;
	if (path != NULL && (stat(path, &st) != 0 || S_ISDIR(st.st_mode)))
		return xstrdup(path);	/* the check reports what is wrong */
	if (path != NULL)
		lab_path = xstrdup(path);
	else if (config_load(&cfg, config_path, err, errlen) == 0 &&
	    cfg.lab != NULL)
		lab_path = xstrdup(cfg.lab);
	else if (config_dir(buf, sizeof buf) != NULL) {
		char *p = xasprintf("%s/lab.yaml", buf);

		if (stat(p, &st) == 0)
			lab_path = p;
		else
			free(p);
	}
	if (path == NULL)
		config_release(&cfg);
	if (lab_path == NULL) {
		*demo = true;
		return xstrdup(CALOPS_DEMO_DIR);
	}
	if (lab_load(&lab, lab_path, err, errlen) == 0) {
		for (i = 0; i < lab.nworkspaces && ws == NULL; i++) {
			const struct lab_host *h = lab_host(&lab,
			    lab.workspaces[i].host);

			if (h != NULL && h->transport == LAB_LOCAL)
				ws = xstrdup(lab.workspaces[i].path);
		}
		if (ws == NULL)
			errbuf_set(err, errlen, "'%s' names no workspace on a "
			    "local host (SSH hosts are not reachable from this "
			    "version yet)", lab_path);
	}
	lab_release(&lab);
	free(lab_path);
	return ws;
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
	char err[512], *ws;
	bool plain = false;
	int c, rc;

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
	ws = pick_workspace(optind < argc ? argv[optind] : NULL, o.config_path,
	    &o.demo, err, sizeof err);
	if (ws == NULL) {
		fprintf(stderr, "calops: %s\n", err);
		return 2;
	}
	o.path = ws;
	if (plain) {
		char *args[] = { "check", "--", ws, NULL };

		rc = cmd_check(3, args);
	} else
		rc = app_main(&o);
	free(ws);
	return rc;
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
