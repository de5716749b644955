/*
 * cmd.h: the headless subcommands, one file each (cmd_*.c), listed in the
 * table in main.c.  Each takes the arguments after its name (argv[0] is the
 * subcommand) and returns the process exit status.
 */
#ifndef CALOPS_CMD_H
#define CALOPS_CMD_H

int	cmd_check(int argc, char **argv);
int	cmd_hash(int argc, char **argv);

#endif
