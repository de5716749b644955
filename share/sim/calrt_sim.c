/* calrt_sim.c: calrt-sim's command line, and the `inspect` command. */
#include "calops.h"

#include <getopt.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "proto/scenario.h"
#include "sim_common.h"
#include "ws/hashtree.h"

/* Where a seeded run's clock starts (2026-09-21T08:00:00Z), so that --seed
 * alone reproduces a run byte for byte. */
#define SEEDED_START	1789977600.0

enum {
	C_INSPECT = 1,
	C_GOLDEN = 2,
	C_STRESS = 4,
	C_FAULT = 8,
	C_VALIDATE = 16,
	C_COMPILE = 32,
	C_REFERENCE = 64,
	C_ONNX = 128,
	C_CONFORMANCE = 256,
	C_ALL = 511,
};

/* How a command runs: a gate's tool runs in the workspace's root (the
 * current folder unless --workspace or --calbin says otherwise); one that
 * stands in for a tool with a text log logs as text, not as events. */
#define IN_ROOT		1
#define PLAIN		2

static const struct command {
	const char	*name;
	unsigned	 mask;
	int		(*run)(struct sim *);
	unsigned	 how;		/* IN_ROOT | PLAIN */
	const char	*summary;
} commands[] = {
	{ "inspect", C_INSPECT, sim_inspect, 0, "open the package, report what it holds" },
	{ "golden", C_GOLDEN, sim_golden, 0, "the golden sequence (runbook §11.2) -> golden.json" },
	{ "stress", C_STRESS, sim_stress, 0, "a soak (runbook §13.3) -> soak/<run>/" },
	{ "fault", C_FAULT, sim_fault, 0, "one fault scenario (§11.3) -> faults/<S>.json" },
	{ "validate", C_VALIDATE, sim_validate, 0, "the package validator (§10) -> validation.json" },
	{ "compile", C_COMPILE, sim_compile, IN_ROOT | PLAIN, "the compiler (§9.3) -> the package; a text log" },
	{ "reference", C_REFERENCE, sim_reference, IN_ROOT, "the reference harness (§5.1) -> outputs.jsonl, rerun" },
	{ "onnx-check", C_ONNX, sim_onnx_check, IN_ROOT, "the ONNX checks (§6.3) -> onnx-report.json, op-inventory.json" },
	{ "conformance", C_CONFORMANCE, sim_conformance, IN_ROOT, "runner vs server (§12.3) -> runner-vs-server.json" },
};

enum opt_id {
	O_CALBIN = 256, O_WORKSPACE, O_CASE, O_OUTPUT, O_MISMATCH, O_MATRIX,
	O_DURATION, O_RUN, O_RATE, O_ERROR_RATE, O_LEAK_RATE, O_LEAK_IN,
	O_TEMP_DRIFT, O_TTFT, O_TPOT, O_INTERVAL, O_SCENARIO, O_ERROR_CODE,
	O_RECOVER_MS, O_ABORT, O_UNSTRUCTURED, O_NO_RECOVER, O_TIME_SCALE,
	O_SEED, O_START, O_CHIPS, O_NO_CACHE, O_VERSION, O_FULL_HASH,
	O_FINDING, O_CHIP_NUMS, O_CONFIG, O_NONDETERMINISTIC,
	O_GREEDY_MISMATCH, O_TOKEN_MISMATCH,
};

/* The options, which commands take them, and their help: one table. */
static const struct simopt {
	const char	*name;
	enum opt_id	 id;
	unsigned	 mask;
	const char	*arg;		/* NULL: a flag */
	const char	*help;
} simopts[] = {
	{ "calbin", O_CALBIN, C_ALL, "DIR", "the package (<ws>/05-calbin/package)" },
	{ "workspace", O_WORKSPACE, C_ALL, "WS", "the workspace, when DIR is not inside one" },
	{ "time-scale", O_TIME_SCALE, C_ALL, "X", "simulated s per real s (default 1; 0: no sleeping)" },
	{ "seed", O_SEED, C_ALL, "N", "seed every random draw (byte-identical runs)" },
	{ "start", O_START, C_ALL, "TS", "simulated start, Unix s or YYYY-MM-DDTHH:MM:SSZ" },
	{ "chips", O_CHIPS, C_ALL, "LIST", "chips to use, e.g. 0-7 or 0,1 (default 0)" },
	{ "no-cache", O_NO_CACHE, C_ALL, NULL, "hash the package without the hash cache" },
	{ "case", O_CASE, C_GOLDEN, "FILE", "the cases to run (default: runbook §11.2 at M)" },
	{ "output", O_OUTPUT, C_GOLDEN | C_FAULT | C_VALIDATE | C_ONNX | C_CONFORMANCE, "FILE", "where the result goes (default: the workspace's)" },
	{ "full-hash", O_FULL_HASH, C_VALIDATE, NULL, "hash every file (always: accepted as the validator takes it)" },
	{ "finding", O_FINDING, C_VALIDATE, "LEVEL:CODE", "report one finding: ERROR, WARN or\n"
	    "                      BLOCKED_REPRODUCIBILITY, with its code" },
	{ "chip-nums", O_CHIP_NUMS, C_VALIDATE, "N", "the chips the package is for (default 1)" },
	{ "config", O_CONFIG, C_COMPILE, "FILE", "the compile config, in the workspace\n"
	    "                      (default 04-compiler/compile-config.yaml)" },
	{ "nondeterministic", O_NONDETERMINISTIC, C_COMPILE | C_REFERENCE, NULL, "compile: each build differs (its id and the\n"
	    "                      clock in the programs); reference: the rerun\n"
	    "                      differs for one sample in eight" },
	{ "greedy-mismatch", O_GREEDY_MISMATCH, C_ONNX, "N", "N greedy outputs differ from the reference" },
	{ "token-mismatch", O_TOKEN_MISMATCH, C_CONFORMANCE, "N", "N cases give other tokens than the runner" },
	{ "mismatch", O_MISMATCH, C_GOLDEN, "P:D", "make the case prefill P decode D diverge" },
	{ "matrix", O_MATRIX, C_STRESS, "FILE", "the load: rate, chips, prompt_tokens, ..." },
	{ "duration", O_DURATION, C_STRESS, "D", "1h, 8h, 24h, 90m or seconds" },
	{ "run", O_RUN, C_STRESS, "NAME", "the run's folder (default: <date>-<duration>)" },
	{ "rate", O_RATE, C_STRESS, "R", "requests per second over all chips (default 2)" },
	{ "error-rate", O_ERROR_RATE, C_STRESS, "P", "fraction of requests that fail (default 0.001)" },
	{ "leak-rate", O_LEAK_RATE, C_STRESS, "B", "memory growth in bytes per hour (default 0)" },
	{ "leak-in", O_LEAK_IN, C_STRESS, "WHAT", "rss, device or both (default rss)" },
	{ "temp-drift", O_TEMP_DRIFT, C_STRESS, "C", "temperature drift in degrees C per hour" },
	{ "ttft-ms", O_TTFT, C_GOLDEN | C_STRESS, "MS", "median time to first token (default 280)" },
	{ "tpot-ms", O_TPOT, C_GOLDEN | C_STRESS, "MS", "median time per output token (default 32)" },
	{ "interval", O_INTERVAL, C_STRESS, "S", "seconds between resource samples (default 60)" },
	/* Its help is the scenarios' names (usage_scenarios). */
	{ "scenario", O_SCENARIO, C_FAULT, "S", NULL },
	{ "error-code", O_ERROR_CODE, C_FAULT, "STR", "the error code to report" },
	{ "recover-ms", O_RECOVER_MS, C_FAULT, "MS", "how long recovery takes" },
	{ "abort", O_ABORT, C_FAULT, NULL, "the runner aborts (aborted, not recovered)" },
	{ "unstructured", O_UNSTRUCTURED, C_FAULT, NULL, "no structured error, only a bare -1" },
	{ "no-recover", O_NO_RECOVER, C_FAULT, NULL, "the runner does not recover" },
	{ "version", O_VERSION, 0, NULL, "print the version" },
};

/* The names of proto/scenario.h, four a line, under the help column. */
static void
usage_scenarios(FILE *f)
{
	size_t i;

	for (i = 0; i < SCENARIO_COUNT; i++)
		fprintf(f, "%s%s", i == 0 ? "" : i % 4 == 0 ?
		    "\n                      " : " ", scenario_table[i].name);
	fputc('\n', f);
}

static void
usage(FILE *f)
{
	const struct simopt *o;
	size_t i, k;
	char left[40];

	fputs("usage: calrt-sim inspect --calbin DIR\n"
	    "       calrt-sim golden --calbin DIR [--case CASE.json] "
	    "[--output RESULT.json]\n"
	    "       calrt-sim stress --calbin DIR [--matrix MATRIX.yaml] "
	    "--duration 1h [--run NAME]\n"
	    "       calrt-sim fault --calbin DIR --scenario wait-timeout\n"
	    "       calrt-sim validate --calbin DIR [--finding LEVEL:CODE]\n"
	    "       calrt-sim compile [--workspace WS] [--nondeterministic]\n"
	    "       calrt-sim reference [--workspace WS] [--nondeterministic]\n"
	    "       calrt-sim onnx-check [--workspace WS] [--greedy-mismatch N]\n"
	    "       calrt-sim conformance [--calbin DIR] [--token-mismatch N]\n\n"
	    "A simulator of the runtime runner (runbook §11.1): protocol events "
	    "on\nstdout, the runner's artifacts in the workspace; and stand-ins "
	    "for the\ntools of the other gates' jobs (validate, compile, "
	    "reference, onnx-check,\nconformance).  Options may come before the "
	    "command too (calrt-sim\n--time-scale 0 golden ...), by their full "
	    "names.\n\n", f);
	for (k = 0; k < nitems(commands); k++) {
		fprintf(f, "%s: %s\n", commands[k].name, commands[k].summary);
		for (i = 0; i < nitems(simopts); i++) {
			o = &simopts[i];
			if ((o->mask & commands[k].mask) == 0 ||
			    (o->mask == C_ALL && k > 0))
				continue;
			snprintf(left, sizeof left, "--%s%s%s", o->name,
			    o->arg != NULL ? " " : "", o->arg != NULL ? o->arg : "");
			if (o->help != NULL)
				fprintf(f, "  %-19s %s\n", left, o->help);
			else {
				fprintf(f, "  %-19s ", left);
				usage_scenarios(f);
			}
		}
		if (k == 0)
			fputs("  (the options above apply to every command)\n", f);
	}
	fputs("\nExit status: 0 pass, 1 fail, 2 error.  See share/sim/README.md.\n",
	    f);
}

/* ---- option values ---- */

static int
num(const char *name, const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !isfinite(v) || v < lo ||
	    v > hi) {
		fprintf(stderr, "calrt-sim: --%s: '%s' is not a number in "
		    "[%g, %g]\n", name, s, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

/* "24h", "90m", "1d", "3600s" or "3600". */
static int
duration(const char *s, double *out)
{
	const char *units = "smhd";
	const double mult[] = { 1, 60, 3600, 86400 };
	size_t n = strlen(s);
	char *p, *copy;
	double m = 1;
	int rc;

	if (n > 0 && (p = strchr(units, s[n - 1])) != NULL) {
		m = mult[p - units];
		n--;
	}
	copy = xstrndup(s, n);
	rc = num("duration", copy, 1e-3, 1e9, out);
	free(copy);
	*out *= m;
	return rc;
}

/* Unix seconds, or an ISO 8601 UTC time. */
static int
start_time(const char *s, double *out)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof tm);
	if ((end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) != NULL &&
	    (strcmp(end, "Z") == 0 || *end == '\0')) {
		*out = (double)timegm(&tm);
		return 0;
	}
	return num("start", s, 0, 4e9, out);
}

/* "0-7", "0,1", "0-3,6". */
static int
chips(const char *s, struct sim_opts *o)
{
	const char *p = s;
	long a, b, c;
	char *end;

	o->nchips = 0;
	for (;;) {
		a = strtol(p, &end, 10);
		if (end == p || a < 0 || a > 1023)
			goto bad;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b > 1023)
				goto bad;
		}
		for (c = a; c <= b; c++) {
			if (o->nchips == SIM_MAX_CHIPS)
				goto bad;
			o->chips[o->nchips++] = (int)c;
		}
		if (*end == '\0')
			return 0;
		if (*end != ',')
			goto bad;
		p = end + 1;
	}
bad:
	fprintf(stderr, "calrt-sim: --chips: '%s' is not a list like 0-7 or 0,1 "
	    "(at most %d chips, ids 0-1023)\n", s, SIM_MAX_CHIPS);
	return -1;
}

/* "ERROR:E-CODE": one finding the validator reports. */
static int
finding(const char *s, struct sim_opts *o)
{
	static const char *const levels[] = { "ERROR", "WARN",
	    "BLOCKED_REPRODUCIBILITY" };
	const char *colon = strchr(s, ':');
	size_t i;

	for (i = 0; colon != NULL && colon[1] != '\0' && i < nitems(levels);
	    i++)
		if (strlen(levels[i]) == (size_t)(colon - s) &&
		    strncmp(s, levels[i], (size_t)(colon - s)) == 0) {
			o->finding_level = levels[i];
			o->finding_code = colon + 1;
			return 0;
		}
	fprintf(stderr, "calrt-sim: --finding: '%s' is not LEVEL:CODE with "
	    "LEVEL ERROR, WARN or BLOCKED_REPRODUCIBILITY\n", s);
	return -1;
}

static int
mismatch(const char *s, struct sim_opts *o)
{
	long long p, d;
	char tail;

	if (sscanf(s, "%lld:%lld%c", &p, &d, &tail) != 2 || p < 1 || d < 1) {
		fprintf(stderr, "calrt-sim: --mismatch: '%s' is not PREFILL:DECODE\n",
		    s);
		return -1;
	}
	o->mismatch[0] = (json_int_t)p;
	o->mismatch[1] = (json_int_t)d;
	o->have_mismatch = true;
	return 0;
}

static int
leak_in(const char *s, struct sim_opts *o)
{
	if (strcmp(s, "rss") == 0)
		o->leak_in = LEAK_RSS;
	else if (strcmp(s, "device") == 0)
		o->leak_in = LEAK_DEVICE;
	else if (strcmp(s, "both") == 0)
		o->leak_in = LEAK_BOTH;
	else {
		fprintf(stderr, "calrt-sim: --leak-in: '%s' is not rss, device or "
		    "both\n", s);
		return -1;
	}
	return 0;
}

/* One option's value into o; -1 on a bad value (already reported). */
static int
set_opt(struct sim_opts *o, enum opt_id id, const char *arg)
{
	double v;

	switch (id) {
	case O_CALBIN: o->calbin = arg; return 0;
	case O_WORKSPACE: o->workspace = arg; return 0;
	case O_CASE: o->case_path = arg; return 0;
	case O_OUTPUT: o->output = arg; return 0;
	case O_MATRIX: o->matrix = arg; return 0;
	case O_RUN: o->run = arg; return 0;
	case O_SCENARIO: o->scenario = arg; return 0;
	case O_ERROR_CODE: o->error_code = arg; return 0;
	case O_FULL_HASH: return 0;
	case O_CONFIG: o->config = arg; return 0;
	case O_NONDETERMINISTIC: o->nondeterministic = true; return 0;
	case O_GREEDY_MISMATCH: return num("greedy-mismatch", arg, 0, 1e9, &o->mismatches);
	case O_TOKEN_MISMATCH: return num("token-mismatch", arg, 0, 1e9, &o->mismatches);
	case O_FINDING: return finding(arg, o);
	case O_CHIP_NUMS: return num("chip-nums", arg, 0, 1024, &o->chip_nums);
	case O_ABORT: o->abort_run = true; return 0;
	case O_UNSTRUCTURED: o->unstructured = true; return 0;
	case O_NO_RECOVER: o->no_recover = true; return 0;
	case O_NO_CACHE: o->no_cache = true; return 0;
	case O_MISMATCH: return mismatch(arg, o);
	case O_LEAK_IN: return leak_in(arg, o);
	case O_CHIPS: o->have_chips = true; return chips(arg, o);
	case O_DURATION: return duration(arg, &o->duration_s);
	case O_START: o->have_start = true; return start_time(arg, &o->start);
	case O_TIME_SCALE: return num("time-scale", arg, 0, 1e9, &o->time_scale);
	case O_RATE: o->have_rate = true; return num("rate", arg, 1e-6, 1e5, &o->rate);
	case O_ERROR_RATE: return num("error-rate", arg, 0, 1, &o->error_rate);
	case O_LEAK_RATE: return num("leak-rate", arg, -1e12, 1e12, &o->leak_rate);
	case O_TEMP_DRIFT: return num("temp-drift", arg, -100, 100, &o->temp_drift);
	case O_TTFT: return num("ttft-ms", arg, 0.1, 1e7, &o->ttft_ms);
	case O_TPOT: return num("tpot-ms", arg, 0.1, 1e6, &o->tpot_ms);
	case O_INTERVAL: return num("interval", arg, 1, 86400, &o->interval_s);
	case O_RECOVER_MS: return num("recover-ms", arg, 0, 1e9, &o->recover_ms);
	case O_SEED:
		if (num("seed", arg, 0, 1.8e19, &v) == -1)
			return -1;
		o->seed = strtoull(arg, NULL, 10);
		o->have_seed = true;
		return 0;
	case O_VERSION:
		break;
	}
	return 0;
}

static void
defaults(struct sim_opts *o)
{
	static const json_int_t prompts[] = { 128, 512, 1024, 2048 };

	memset(o, 0, sizeof *o);
	o->time_scale = 1;
	o->rate = 2;
	o->error_rate = 0.001;
	o->leak_in = LEAK_RSS;
	o->ttft_ms = 280;
	o->tpot_ms = 32;
	o->interval_s = 60;
	o->recover_ms = -1;
	o->chip_nums = 1;
	o->chips[0] = 0;
	o->nchips = 1;
	memcpy(o->prompt_tokens, prompts, sizeof prompts);
	o->nprompt = nitems(prompts);
	o->output_tokens = 128;
	o->concurrency = 4;
}

/* Parse the options after the command name; 0, 1 (help shown) or -1. */
static int
parse(struct sim *s, const struct command *cmd, int argc, char **argv)
{
	struct option *lo = xcalloc(nitems(simopts) + 2, sizeof *lo);
	const struct simopt *so;
	size_t i;
	int c, rc = 0;

	for (i = 0; i < nitems(simopts); i++) {
		lo[i].name = simopts[i].name;
		lo[i].has_arg = simopts[i].arg != NULL ? required_argument :
		    no_argument;
		lo[i].val = simopts[i].id;
	}
	lo[i].name = "help";
	lo[i].val = 'h';
	while (rc == 0 && (c = getopt_long(argc, argv, "+h", lo, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			rc = 1;
			break;
		}
		if (c == '?') {
			rc = -1;
			break;
		}
		for (so = simopts; so->id != (enum opt_id)c; so++)
			;
		if (so->id == O_VERSION) {
			printf("calrt-sim %s\n", CALOPS_VERSION);
			rc = 1;
		} else if ((so->mask & cmd->mask) == 0) {
			fprintf(stderr, "calrt-sim: --%s is not an option of '%s'\n",
			    so->name, cmd->name);
			rc = -1;
		} else
			rc = set_opt(&s->o, so->id, optarg);
	}
	if (rc == 0 && optind < argc) {
		fprintf(stderr, "calrt-sim: unexpected argument '%s'\n",
		    argv[optind]);
		rc = -1;
	}
	free(lo);
	return rc;
}

/*
 * Where the command is: argv[1], or past options of its own that come
 * first, so that "calrt-sim --time-scale 3000" can be a lab's runner (a
 * command prefix, protocol.md §5).  Options there go by their full names.
 * Its index, or argc when there is none.
 */
static int
command_at(int argc, char **argv)
{
	const struct simopt *so;
	const char *a, *eq;
	size_t i, n;
	int k;

	for (k = 1; k < argc; k++) {
		a = argv[k];
		if (strncmp(a, "--", 2) != 0 || a[2] == '\0')
			return k;
		eq = strchr(a + 2, '=');
		n = eq != NULL ? (size_t)(eq - a - 2) : strlen(a + 2);
		for (i = 0, so = NULL; i < nitems(simopts) && so == NULL; i++)
			if (strlen(simopts[i].name) == n &&
			    strncmp(simopts[i].name, a + 2, n) == 0)
				so = &simopts[i];
		if (so != NULL && so->arg != NULL && eq == NULL)
			k++;
	}
	return argc;
}

/* The command line with the options before the command moved after it,
 * where parse() reads them: a new array of borrowed strings. */
static char **
command_first(int argc, char **argv, int at)
{
	char **v = xcalloc((size_t)argc + 1, sizeof *v);

	v[0] = argv[0];
	v[1] = argv[at];
	memcpy(v + 2, argv + 1, (size_t)(at - 1) * sizeof *v);
	memcpy(v + 1 + at, argv + at + 1, (size_t)(argc - at - 1) *
	    sizeof *v);
	return v;
}

/* What each command cannot do without; -1 after saying so. */
static int
required(const struct sim *s)
{
	if (strcmp(s->cmd, "stress") == 0 && s->o.duration_s <= 0) {
		fputs("calrt-sim: stress needs --duration (1h, 8h, 24h or "
		    "seconds)\n", stderr);
		return -1;
	}
	if (strcmp(s->cmd, "fault") == 0 && s->o.scenario == NULL) {
		fputs("calrt-sim: fault needs --scenario\n", stderr);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const struct command *cmd = NULL;
	struct sim s;
	char err[512], **av;
	size_t i;
	int rc, at;

	/* Before any JSON: out of memory in jansson is fatal(), never a
	 * field dropped by an unchecked json_object_set_new() (xmalloc.c). */
	xmalloc_json_init();
	memset(&s, 0, sizeof s);
	defaults(&s.o);
	if (argc >= 2 && (strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "--help") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		printf("calrt-sim %s\n", CALOPS_VERSION);
		return 0;
	}
	at = command_at(argc, argv);
	for (i = 0; at < argc && i < nitems(commands); i++)
		if (strcmp(argv[at], commands[i].name) == 0)
			cmd = &commands[i];
	if (cmd == NULL) {
		if (at < argc)
			fprintf(stderr, "calrt-sim: '%s' is not a command "
			    "(inspect, golden, stress, fault, validate, "
			    "compile, reference, onnx-check, conformance)\n",
			    argv[at]);
		usage(stderr);
		return 2;
	}
	s.cmd = cmd->name;
	s.plain = (cmd->how & PLAIN) != 0;
	s.argc = argc;
	s.argv = argv;
	av = command_first(argc, argv, at);
	rc = parse(&s, cmd, argc - 1, av + 1);
	free(av);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (required(&s) == -1)
		return 2;
	/* G8's lab job names the chip it serves from (share/doc/lab.md). */
	if (cmd->mask == C_CONFORMANCE && !s.o.have_chips &&
	    getenv("CALOPS_CHIP") != NULL && chips(getenv("CALOPS_CHIP"),
	    &s.o) == -1)
		return 2;
	if ((cmd->how & IN_ROOT) && s.o.calbin == NULL &&
	    s.o.workspace == NULL)
		s.o.workspace = ".";
	if (!s.o.have_seed)
		s.o.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	if (!s.o.have_start)
		s.o.start = s.o.have_seed ? SEEDED_START :
		    floor((double)time(NULL));
	sim_clock_start(&s, s.o.start);
	if (sim_locate(&s, err, sizeof err) == -1)
		rc = sim_fail(&s, "%s", err);
	else
		rc = cmd->run(&s);
	fflush(stdout);
	sim_release(&s);
	return rc;
}

/* ---- inspect ---- */

/* `inspect`: open the package as CreateVDevice/CreateCalbin would. */
int
sim_inspect(struct sim *s)
{
	struct tree t;
	json_t *summary, *chips;
	uint64_t bytes = 0;
	char err[512];
	size_t i;

	sim_log(s, "info", "CreateVDevice: chip %d", s->o.chips[0]);
	if (sim_tree_hash(s, &t, err, sizeof err) == -1) {
		hashtree_release(&t);
		return sim_fail(s, "%s", err);
	}
	for (i = 0; i < t.nfiles; i++)
		bytes += t.files[i].hash.size;
	sim_advance_ms(s, 120.0 + (double)bytes / 2e6);
	sim_log(s, "info", "CreateCalbin: %zu files, %llu bytes, tree %s",
	    t.nfiles, (unsigned long long)bytes, t.hex);
	if (s->source_msg[0] != '\0')
		sim_log(s, "warn", "%s", s->source_msg);
	summary = json_object();
	json_object_set_new(summary, "calbin_tree_sha256", json_string(t.hex));
	json_object_set_new(summary, "files", json_integer((json_int_t)t.nfiles));
	json_object_set_new(summary, "bytes", json_integer((json_int_t)bytes));
	chips = json_array();
	for (i = 0; i < s->o.nchips; i++)
		json_array_append_new(chips, json_integer(s->o.chips[i]));
	json_object_set_new(summary, "chips", chips);
	if (s->model_id != NULL)
		json_object_set_new(summary, "model_id", json_string(s->model_id));
	if (s->have_context)
		json_object_set_new(summary, "max_context",
		    json_integer(s->max_context));
	hashtree_release(&t);
	return sim_result(s, "pass", summary, NULL);
}
