/*
 * lab.h: the lab file (protocol.md §4), a YAML document naming the hosts the
 * console drives, the workspaces on them and the runner CLI.
 *
 *	hosts:
 *	  - {name: local, transport: local, chips: [0, 1]}
 *	  - {name: lab3, transport: ssh, address: lab3.example.net,
 *	     user: npu, port: 22, identity: ~/.ssh/id_ed25519}
 *	workspaces:
 *	  - {host: lab3, path: /data/model-port/qwen3-1.7b}
 *	runner: calrt_runner
 *
 * runner: is the runner CLI of runbook §11.1 as a command prefix: the
 * words that start it, which the runner's command (golden, stress, fault)
 * and the command's options follow, as in "calrt_runner golden --calbin
 * DIR".  A string is split on blanks (spaces, tabs, newlines) into argv
 * with no shell quoting -- a quote or a backslash in it is an error, so
 * that `--flag "a b"` is not silently cut in two -- and a YAML list of
 * strings is one argument each, for arguments that hold blanks or quotes:
 *
 *	runner: calrt-sim --time-scale 3000
 *	runner: [python3, /opt/lab/runner.py]
 *	runner: [/opt/calrt/bin/calrt_runner, --log-dir, "/var/log/calrt run"]
 *
 * run "calrt-sim --time-scale 3000 stress …", "python3 /opt/lab/runner.py
 * stress …" and "/opt/calrt/bin/calrt_runner --log-dir '/var/log/calrt
 * run' stress …" (calrt-sim takes its options before its command or
 * after).  Either way it is not empty and every argument is a non-empty
 * string.  It is used as written on the host that runs it (no "~/" or
 * relative path resolution here).  When a lab gives no runner, runner_argv
 * is NULL and the console runs the bundled simulator, "calrt-sim".
 *
 * gates: maps a gate's id to the command that makes its evidence (issue
 * 13: the runbook's validator, reference harness, ONNX checks …), written
 * as runner: is, and run on the workspace's host in the workspace's root
 * as a durable lab job:
 *
 *	gates:
 *	  G6: [ruby, /opt/calculet/calculet_package_validate.rb, --full-hash,
 *	       05-calbin/package]
 *	  G1: python3 tools/generate_reference.py --out 01-reference
 *
 * G7 and G9 have no entry (their jobs are the runner's: golden and the
 * fault scenarios, the soak); a gate id that is not G0 … G10, or given
 * twice, is an error.
 *
 * A host's keys of v2 (protocol.md §4) are all optional: calops, the
 * program on the host (a path there or a name on its PATH, kept as
 * written; LAB_DEFAULT_CALOPS when not given), keepalive_s (1 to
 * LAB_KEEPALIVE_MAX seconds; when not given, ServerAliveInterval of
 * ~/.ssh/config or LAB_KEEPALIVE_DEFAULT, as sshhost_merge decides),
 * accept_new and protected (booleans, default false), compression (a
 * boolean; when not given, Compression of ~/.ssh/config, else off, as
 * sshhost_merge decides).
 *
 * alerts: names the command an alert runs and, optionally, the rules
 * (alert/alertrule.h, share/doc/alerts.md); hook: is written as runner: is
 * and is required:
 *
 *	alerts:
 *	  hook: [curl, -s, --data-binary, "@-", http://alerts.example/hook]
 *
 * Without alerts:, alert_hook.argv is NULL and alerts has no rules.
 * The config file's alerts: (lab_merge_config) is put under the lab
 * file's: the lab file's hook, rules (by name) and timing win.
 *
 * Validation is strict, as for the config file: unknown keys, an unknown
 * transport, a host name that is not 1 to 64 of [A-Za-z0-9._-] with no
 * leading dot (it names a folder of the console's state), duplicate host
 * names, a workspace naming no known host, a port outside 1..65535, a
 * keepalive_s out of its range, a boolean that is not true or false, chips
 * that are not a list of non-negative integers and a runner that is empty
 * or not strings are errors worded "FILE:LINE:COL: message" naming the
 * key.  Paths on this machine (a workspace of a local host, identity,
 * known_hosts) are relative to the lab file's folder, and "~/" is $HOME;
 * they are stored made absolute.  A workspace on an ssh host must be given
 * as an absolute path.
 *
 * A struct lab owns every string and array in it; lab_release frees them.
 */
#ifndef CALOPS_LAB_H
#define CALOPS_LAB_H

#include "calops.h"

#include "alert/alertrule.h"
#include "vocab/gateid.h"

#define LAB_MAX_BYTES	(1u << 20)	/* the largest lab file read */
#define LAB_CHIP_MAX	4095		/* as EVENT_CHIP_MAX */
#define LAB_HOST_NAME_MAX 64		/* [A-Za-z0-9._-], no leading dot */

enum lab_transport {
	LAB_LOCAL,
	LAB_SSH,
};

struct lab_host {
	char			*name;
	enum lab_transport	 transport;
	char			*address;	/* ssh: required */
	char			*user;		/* NULL: ssh's default */
	int			 port;		/* 0: ssh's default (22) */
	char			*identity;	/* NULL: ssh-agent */
	char			*known_hosts;	/* NULL: ~/.ssh/known_hosts */
	char			*calops;	/* the program on the host */
	int			 keepalive_s;	/* 0: not given (above) */
	bool			 accept_new;	/* add an unknown host key */
	bool			 compression;	/* zlib asked for, when */
	bool			 compression_set; /* compression: was given */
	bool			 protected;	/* jobs only with --write */
	int			*chips;
	size_t			 nchips;
};

struct lab_workspace {
	char	*host;		/* the name of one of hosts[] */
	char	*path;
};

/* A command of the lab file, written as a string (split on blanks, no
 * quoting) or a list of arguments. */
struct lab_cmd {
	char	 *text;		/* as written (a list: joined by blanks) */
	char	**argv;		/* argc strings and a NULL; NULL: none */
	size_t	  argc;
};

struct lab {
	char			*path;		/* the file read */
	struct lab_host		*hosts;
	size_t			 nhosts;
	struct lab_workspace	*workspaces;
	size_t			 nworkspaces;
	char			*runner;	/* as written (a list: its items
						   joined by one space), for
						   display; NULL: not given */
	char			**runner_argv;	/* runner_argc strings and a
						   NULL; NULL: not given */
	size_t			 runner_argc;
	/* gates: the command that makes a gate's evidence (argv NULL:
	 * none given; never for G7 and G9, whose jobs are the runner's). */
	struct lab_cmd		 gates[GATE_COUNT];
	/* alerts: the hook (argv NULL: no alerts:) and the rules. */
	struct lab_cmd		 alert_hook;
	struct alertconf	 alerts;
};

/* A host's calops program when the lab names none, and its keepalive
 * when neither the lab nor ~/.ssh/config gives one (protocol.md §4). */
#define LAB_DEFAULT_CALOPS	"calops"
#define LAB_KEEPALIVE_DEFAULT	15
#define LAB_KEEPALIVE_MAX	86400	/* a day: 3 x keepalive stays small */

/* The runner a lab without runner: gets (the bundled simulator). */
#define LAB_DEFAULT_RUNNER	"calrt-sim"

/* Read and validate the lab file at path into *lab (zeroed first).  0, or
 * -1 with "FILE:LINE:COL: message" (or a file error) in err; lab is then
 * empty.  The caller calls lab_release either way. */
int	 lab_load(struct lab *lab, const char *path, char *err, size_t errlen);
/* The same from text in memory; source names it in messages and its
 * folder is where relative paths start. */
int	 lab_parse(struct lab *lab, const char *data, size_t len,
	    const char *source, char *err, size_t errlen);
void	 lab_release(struct lab *lab);
/*
 * The alerts: of the config file at path (its hook, rules and timing, each
 * optional, written as in the lab file) under lab's own: with no alerts:
 * in the lab file, the config's are the lab's; else a rule of the lab file
 * replaces the config's of its name, the config's others are added (they
 * replace the default rules when the lab file gives no rules:), and the
 * lab file's hook and timing win.  A missing file is none.  0, or -1 with
 * "PATH:LINE:COL: message" in err.
 */
int	 lab_merge_config(struct lab *lab, const char *path, char *err,
	    size_t errlen);

/* The host named name (borrowed from lab), or NULL. */
const struct lab_host *lab_host(const struct lab *lab, const char *name);
/* Whether two paths on this machine name one folder: the same text, or
 * both resolve to one place. */
bool	 lab_same_local_folder(const char *a, const char *b);
/*
 * The first workspace of the lab file on host (NULL: any host) at path
 * (NULL: any path), or NULL; how many match in *count when count is not
 * NULL.  The path as the lab file gives it names a workspace first; when
 * none has it, on a local host, path names a workspace that is the same
 * folder however spelt ("labdemo/", a link to it); on an ssh host only the
 * path as written does.
 */
const struct lab_workspace *lab_find_workspace(const struct lab *lab,
	    const char *host, const char *path, size_t *count);

#endif
