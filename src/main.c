/* main.c: the subcommand table and the top-level --help. */
#include "calops.h"

#include <getopt.h>
#include <locale.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/docfile.h"
#include "base/fileio.h"
#include "base/statedir.h"
#include "base/text.h"
#include "cmd/cmd.h"
#include "remote/lab.h"
#include "views/app/app.h"
#include "views/app/docs.h"
#include "views/app/headless.h"
#include "views/core/config.h"

#ifndef CALOPS_VERSION
#define CALOPS_VERSION "0.0.0"
#endif
/* The folder holding the demo lab: DEMO_LAB naming DEMO_WORKSPACE. */
#ifndef CALOPS_DEMO_DIR
#define CALOPS_DEMO_DIR "share/examples"
#endif
#define DEMO_LAB	"demo-lab.yaml"
#define DEMO_WORKSPACE	"labdemo"

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
	{ "watch", cmd_watch, "print a changed event after each change in a workspace" },
	{ "cat", cmd_cat, "print lines of a file inside a workspace" },
	{ "ls", cmd_ls, "list a folder inside a workspace: type, size, mtime" },
	{ "version", cmd_version, "print calops's version and protocol; --json" },
	{ "hosts", cmd_hosts, "connect to a lab's hosts and show each one's state" },
	{ "alerts", cmd_alerts, "list the alert journal: every alert, its start, end and values" },
	{ "run-gate", cmd_rungate, "start a gate's lab job on its host; print the job's id" },
	{ "repro-build", cmd_reprobuild, "G5's reproducibility run: the compile twice, recorded" },
	{ "release", cmd_release, "a workspace's release: status, promote, rollback, audit" },
	{ "report", cmd_report, "write the release decision record from the evidence" },
};

/* The usage, in one write: stderr shows a line feed only at the end of a
 * write, except in a text that begins "usage: " (text_guard_stderr()). */
static void
usage(FILE *f)
{
	struct buf b = BUF_INIT;
	size_t i;

	buf_adds(&b, "usage: calops [--theme NAME] [--readonly] [--plain] [--ascii]\n"
	    "              [--color WHEN] [--config FILE] [--write HOST]...\n"
	    "              [--headless COLSxROWS --script FILE] [PATH]\n"
	    "       calops COMMAND [ARGS]\n"
	    "       calops --help | --version\n\n"
	    "With no command, open the console on PATH: a workspace folder, or a\n"
	    "lab file naming workspaces (protocol.md §4).  With none, the lab file\n"
	    "of the config (its 'lab' key, or lab.yaml in the config folder), else\n"
	    "the demo lab: the example workspace at the runtime stage on this host,\n"
	    "with the runner simulator (calrt-sim), in a private copy made once in\n"
	    "$XDG_STATE_HOME/calops/demo (~/.local/state/calops/demo).\n\n");
	docs_usage(&b);
	buf_adds(&b, "\nJobs the console starts outlive it; started again, it "
	    "resumes their\nstreams.  A second console on the same state "
	    "folder watches the same\njobs live, and takes them over when "
	    "the first quits.\n\n"
	    "  --theme NAME   a theme from themes/ or the config folder, or a file\n"
	    "  --readonly     refuse every action that starts or stops a job\n"
	    "  --write HOST   let jobs and faults run on HOST, which the lab file\n"
	    "                 marks protected (protected: true)\n"
	    "  --plain        print the board as text, no full-screen drawing\n"
	    "  --ascii        ASCII instead of UTF-8 box drawing and glyphs\n"
	    "  --color WHEN   auto (NO_COLOR decides), always or never, as for\n"
	    "                 check (never: reverse video marks what colour would)\n"
	    "  --config FILE  instead of $XDG_CONFIG_HOME/calops/config.yaml\n"
	    "  --headless COLSxROWS --script FILE\n"
	    "                 no terminal: draw on a virtual screen that size,\n"
	    "                 take keys and clicks from FILE, write the screen\n"
	    "                 as text where it says (calops(1), HEADLESS)\n\n"
	    "commands:\n");
	for (i = 0; i < nitems(commands); i++)
		buf_addf(&b, "  %-8s %s\n", commands[i].name,
		    commands[i].summary);
	buf_adds(&b, "\n'calops COMMAND --help' describes one command; press ? "
	    "in the\nconsole for its keys.  See calops(1).\n");
	fputs(b.data, f);
	buf_release(&b);
}

/* s as one word of sh or zsh, in single quotes. */
static void
add_quoted(struct buf *b, const char *s)
{
	buf_addc(b, '\'');
	for (; *s != '\0'; s++)
		if (*s == '\'')
			buf_adds(b, "'\\''");
		else
			buf_addc(b, *s);
	buf_addc(b, '\'');
}

/*
 * `calops --gen-docs WHAT`, not in the usage: the lists share/gendocs.sh
 * writes into calops(1) (man: the screens, keys and ':' commands, docs.h)
 * and into the completions (bash, zsh: the commands above, with their
 * summaries in zsh), from the tables the program runs on.
 */
static int
gen_docs(const char *what)
{
	struct buf b = BUF_INIT;
	char *entry;
	size_t i;

	if (strcmp(what, "man") == 0)
		docs_man(&b);
	else if (strcmp(what, "bash") == 0) {
		buf_adds(&b, "\tlocal commands='");
		for (i = 0; i < nitems(commands); i++)
			buf_addf(&b, "%s%s", i > 0 ? " " : "",
			    commands[i].name);
		buf_adds(&b, "'\n");
	} else if (strcmp(what, "zsh") == 0) {
		for (i = 0; i < nitems(commands); i++) {
			entry = xasprintf("%s:%s", commands[i].name,
			    commands[i].summary);
			buf_adds(&b, "\t\t");
			add_quoted(&b, entry);
			buf_addc(&b, '\n');
			free(entry);
		}
	} else {
		fprintf(stderr, "calops: --gen-docs wants man, bash or zsh\n");
		return 2;
	}
	fputs(b.data, stdout);
	buf_release(&b);
	return fflush(stdout) == 0 ? 0 : 1;
}

/*
 * PATH that names nothing: a mistyped command ("chek") says so, with the
 * command meant, rather than opening a console on a folder that is not
 * there; anything else names the path and why.  Before any screen.
 */
static int
no_such_path(const char *path)
{
	size_t i, best = nitems(commands), d, bestd = 3;
	int e = errno;

	for (i = 0; strchr(path, '/') == NULL && i < nitems(commands); i++)
		if ((d = text_distance(path, commands[i].name)) < bestd) {
			bestd = d;
			best = i;
		}
	if (best < nitems(commands))
		fprintf(stderr, "calops: unknown command '%s' (did you mean "
		    "'%s'?)\n", path, commands[best].name);
	else
		fprintf(stderr, "calops: '%s': %s\n", path, strerror(e));
	return 2;
}

/* Fill the new folder tmp: the demo workspace and the lab file naming it. */
static int
demo_fill(const char *tmp, char *err, size_t errlen)
{
	char *from, *to, *data = NULL;
	size_t len;
	int rc;

	from = xasprintf("%s/%s", CALOPS_DEMO_DIR, DEMO_WORKSPACE);
	to = xasprintf("%s/%s", tmp, DEMO_WORKSPACE);
	rc = fileio_copy_tree(from, to, err, errlen);
	free(from);
	free(to);
	if (rc != 0)
		return -1;
	from = xasprintf("%s/%s", CALOPS_DEMO_DIR, DEMO_LAB);
	to = xasprintf("%s/lab.yaml", tmp);
	rc = docfile_read(from, LAB_MAX_BYTES, &data, &len, err, errlen);
	if (rc == 1)
		errbuf_set(err, errlen, "cannot open '%s': %s", from,
		    strerror(ENOENT));
	if (rc == 0)
		rc = fileio_replace(to, data, len, 0644, true, err, errlen);
	free(data);
	free(from);
	free(to);
	return rc == 0 ? 0 : -1;
}

/*
 * The demo lab, private to this user, so that the simulator writes into a
 * copy and never into the source tree: CALOPS_DEMO_DIR's labdemo/ and
 * demo-lab.yaml become <state>/calops/demo/labdemo/ and lab.yaml, made once
 * and reused while its lab.yaml is there.  The copy is built in a temporary
 * folder beside it and renamed into place, so a copy cut short is never
 * taken for one.  The state folder and the copy must be the user's alone
 * (statedir.h): the lab file names the runner the console starts.  Returns
 * the lab file (a new string), or NULL with err.
 */
static char *
demo_lab(char *err, size_t errlen)
{
	char *dir, *lab, *parent, *tmp;
	struct stat st;
	int saved, fd;

	if ((dir = fileio_state_path("demo", err, errlen)) == NULL)
		return NULL;
	lab = xasprintf("%s/lab.yaml", dir);
	parent = xstrdup(dir);
	*strrchr(parent, '/') = '\0';
	tmp = xasprintf("%s/.demo.XXXXXX", parent);
	if ((fd = statedir_open("", "the state folder", true, NULL, err,
	    errlen)) == -1)
		goto fail;
	close(fd);
	if ((fd = statedir_open("demo", "the demo folder", false, NULL, err,
	    errlen)) != -1) {
		saved = statedir_check_file(fd, dir, "lab.yaml", err, errlen);
		close(fd);
		if (saved == 0)
			goto done;
		if (saved == -1)
			goto fail;
	} else if (errno != ENOENT)
		goto fail;
	if (mkdtemp(tmp) == NULL) {
		errbuf_set(err, errlen, "cannot make '%s': %s", tmp,
		    strerror(errno));
		goto fail;
	}
	if (demo_fill(tmp, err, errlen) != 0)
		goto fail_tmp;
	if (rename(tmp, dir) != 0) {
		/* Another console made it first, or a copy without its
		 * lab.yaml is in the way: that one is not ours to remove. */
		saved = errno;
		if (stat(lab, &st) == 0) {
			fileio_remove_tree(tmp);
			goto done;
		}
		errbuf_set(err, errlen, "cannot make the demo lab '%s': %s%s",
		    dir, strerror(saved), saved == EEXIST ||
		    saved == ENOTEMPTY ? " (it has no lab.yaml: remove it for "
		    "a fresh copy)" : "");
		goto fail_tmp;
	}
done:
	free(tmp);
	free(parent);
	free(dir);
	return lab;
fail_tmp:
	fileio_remove_tree(tmp);
fail:
	free(tmp);
	free(parent);
	free(dir);
	free(lab);
	return NULL;
}

/* The first workspace on a local host that the lab file at lab_path
 * names (a new string); else, unless local_only, its first workspace on
 * an SSH host (the console evaluates it there); or NULL with err. */
static char *
lab_workspace(const char *lab_path, bool local_only, char *err,
    size_t errlen)
{
	struct lab lab;
	char *ws = NULL;
	size_t i;

	if (lab_load(&lab, lab_path, err, errlen) == 0) {
		for (i = 0; i < lab.nworkspaces && ws == NULL; i++) {
			const struct lab_host *h = lab_host(&lab,
			    lab.workspaces[i].host);

			if (h != NULL && h->transport == LAB_LOCAL)
				ws = xstrdup(lab.workspaces[i].path);
		}
		if (ws == NULL && !local_only && lab.nworkspaces > 0)
			ws = xstrdup(lab.workspaces[0].path);
		if (ws == NULL)
			errbuf_set(err, errlen, "'%s' names no workspace%s",
			    lab_path, local_only ? " on a local host (--plain "
			    "evaluates here; open the console for one on an "
			    "SSH host)" : "");
	}
	lab_release(&lab);
	return ws;
}

/*
 * What the console opens: PATH when given (a workspace folder, or a lab
 * file naming workspaces); else the lab file of the config (its `lab` key,
 * or lab.yaml in the config folder); else the demo lab (demo_lab), and
 * *demo is set.  A lab file is checked here, so that its errors come
 * before the screen is taken: it must load and name a workspace.  Returns
 * the workspace folder or the lab file (*is_lab set), a new string, or
 * NULL with err.
 */
static char *
pick_path(const char *path, const char *config_path, bool *demo,
    bool *is_lab, char *err, size_t errlen)
{
	char buf[PATH_MAX], *lab_path = NULL, *ws;
	struct config cfg;
	struct stat st;

	*demo = *is_lab = false;
	/* A folder is the workspace (console() has made sure PATH names
	 * something); the check reports what is wrong with it. */
	if (path != NULL && (stat(path, &st) != 0 || S_ISDIR(st.st_mode)))
		return xstrdup(path);
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
		if ((lab_path = demo_lab(err, errlen)) == NULL)
			return NULL;
	}
	if ((ws = lab_workspace(lab_path, false, err, errlen)) == NULL) {
		free(lab_path);
		return NULL;
	}
	free(ws);
	*is_lab = true;
	return lab_path;
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
		{ "color", required_argument, NULL, 'C' },
		{ "headless", required_argument, NULL, 'H' },
		{ "script", required_argument, NULL, 's' },
		{ "write", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct app_opts o = { .colour = -1 };
	char err[512], *path, *ws;
	struct stat st;
	bool plain = false, is_lab;
	int c, rc;

	while ((c = getopt_long(argc, argv, "hV", opts, NULL)) != -1) {
		switch (c) {
		case 't': o.theme = optarg; break;
		case 'r': o.readonly = true; break;
		case 'p': plain = true; break;
		case 'a': o.ascii = true; break;
		case 'c': o.config_path = optarg; break;
		case 'C':
			if (strcmp(optarg, "always") == 0)
				o.colour = 1;
			else if (strcmp(optarg, "never") == 0)
				o.colour = 0;
			else if (strcmp(optarg, "auto") == 0)
				o.colour = -1;
			else {
				fprintf(stderr, "calops: --color wants auto, "
				    "always or never\n");
				return 2;
			}
			break;
		case 'H':
			if (headless_parse_size(optarg, &o.cols,
			    &o.rows) != 0) {
				fprintf(stderr, "calops: --headless wants "
				    "COLSxROWS, at least 20x5: '%s'\n", optarg);
				return 2;
			}
			break;
		case 's': o.script = optarg; break;
		case 'w':
			if (o.nwrite == nitems(o.write)) {
				fprintf(stderr, "calops: --write at most %zu "
				    "times\n", nitems(o.write));
				return 2;
			}
			o.write[o.nwrite++] = optarg;
			break;
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
	if ((o.script != NULL) != (o.cols > 0)) {
		fprintf(stderr, "calops: --headless and --script go together\n");
		return 2;
	}
	if (optind < argc && stat(argv[optind], &st) != 0)
		return no_such_path(argv[optind]);
	path = pick_path(optind < argc ? argv[optind] : NULL, o.config_path,
	    &o.demo, &is_lab, err, sizeof err);
	/* --plain shows the board of the lab's workspace. */
	if (path != NULL && plain && is_lab) {
		ws = lab_workspace(path, true, err, sizeof err);
		free(path);
		path = ws;
	}
	if (path == NULL) {
		fprintf(stderr, "calops: %s\n", err);
		return 2;
	}
	o.path = path;
	if (plain) {
		char *args[] = { "check", "--color", o.colour < 0 ? "auto" :
		    o.colour ? "always" : "never", "--", path, NULL };

		rc = cmd_check(5, args);
	} else
		rc = app_main(&o);
	free(path);
	return rc;
}

int
main(int argc, char **argv)
{
	size_t i;

	/* Before any JSON: out of memory in jansson is fatal(), so the
	 * json_*_set_new() and append_new() results left unchecked cannot
	 * drop a field silently (xmalloc.c). */
	xmalloc_json_init();
	setlocale(LC_ALL, "");
	/* What the commands say quotes what they were given: no escape
	 * sequence in an argument reaches the terminal (text.h). */
	(void)text_guard_stderr();
	if (argc == 3 && strcmp(argv[1], "--gen-docs") == 0)
		return gen_docs(argv[2]);
	for (i = 0; argc > 1 && i < nitems(commands); i++) {
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	}
	return console(argc, argv);
}
