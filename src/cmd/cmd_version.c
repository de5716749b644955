/*
 * cmd_version.c: `calops version`, what the console asks a host first
 * (protocol.md §6): which calops is there and which protocol it speaks.
 */
#include "calops.h"

#include <getopt.h>

#include <jansson.h>

#include "base/text.h"
#include "cmd/cmd.h"
#include "proto/hostcmd.h"

#ifndef CALOPS_VERSION
#define CALOPS_VERSION "0.0.0"
#endif

static const char version_usage[] =
    "usage: calops version [--json]\n"
    "\n"
    "Print this calops's version and the protocol it speaks:\n"
    "\"calops 0.1.0 (protocol 1)\", or with --json {\"version\": \"0.1.0\",\n"
    "\"protocol\": 1} on one line (what the console runs on a host first).\n";

int
cmd_version(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false;
	json_t *o;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'h':
			fputs(version_usage, stdout);
			return 0;
		default:
			fputs(version_usage, stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fputs(version_usage, stderr);
		return 2;
	}
	if (!json) {
		printf("calops %s (protocol %d)\n", CALOPS_VERSION,
		    HOSTCMD_PROTOCOL);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	o = json_pack("{s:s,s:i}", "version", CALOPS_VERSION, "protocol",
	    HOSTCMD_PROTOCOL);
	(void)text_json_print(stdout, o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return fflush(stdout) == 0 ? 0 : 1;
}
