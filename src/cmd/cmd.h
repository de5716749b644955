/*
 * cmd.h: the headless subcommands, one file each (cmd_*.c), listed in the
 * table in main.c.  Each takes the arguments after its name (argv[0] is the
 * subcommand) and returns the process exit status.
 */
#ifndef CALOPS_CMD_H
#define CALOPS_CMD_H

int	cmd_check(int argc, char **argv);
int	cmd_hash(int argc, char **argv);
/* Durable jobs (protocol.md §2): cmd_run.c, cmd_tail.c, cmd_jobs.c. */
int	cmd_run(int argc, char **argv);
int	cmd_tail(int argc, char **argv);
int	cmd_jobs(int argc, char **argv);
int	cmd_kill(int argc, char **argv);
/* What a host runs for the console (protocol.md §1, v2). */
int	cmd_version(int argc, char **argv);
int	cmd_watch(int argc, char **argv);
int	cmd_cat(int argc, char **argv);
int	cmd_ls(int argc, char **argv);
/* cat's and ls's operands, WS PATH, after their options (optind): PATH
 * relative, WS opened into ws; -1 when they are, else the exit status,
 * said on stderr (usage on a usage error). */
struct workspace;
int	cmd_cat_operands(int argc, char **argv, const char *usage,
	    struct workspace *ws);
/* The lab's hosts, connected to through their transports (cmd_hosts.c). */
int	cmd_hosts(int argc, char **argv);
/* The alert journal (cmd_alerts.c, alerts.md). */
int	cmd_alerts(int argc, char **argv);
/* A gate's lab job started headless (cmd_rungate.c). */
int	cmd_rungate(int argc, char **argv);
/* G5's reproducibility run, the builds recorded (cmd_reprobuild.c). */
int	cmd_reprobuild(int argc, char **argv);
/* Promote, roll back, and the release's state (release.md). */
int	cmd_release(int argc, char **argv);
/* The release decision record, from the evidence (cmd_report.c). */
int	cmd_report(int argc, char **argv);
/* One compact JSON line on stdout, flushed: an event of the release
 * commands (cmd_release.c; the reference to j is taken). */
struct json_t;
void	cmd_release_event(struct json_t *j);
/* A release's chip step, the lab job `release chip-step` (cmd_chipstep.c). */
int	cmd_chipstep(int argc, char **argv);

#endif
