/*
 * labcmd.c: the commands of lab jobs (labcmd.h): the runner of the lab
 * file with its command and options, the package under the host's
 * workspace, the chips, and the command line as a person reads it.
 */
#include "calops.h"

#include <libgen.h>
#include <math.h>
#include <unistd.h>

#include "base/buf.h"
#include "lab/labcmd.h"
#include "proto/hostcmd.h"
#include "proto/scenario.h"
#include "vocab/gateid.h"

/*
 * G7's whole job: golden, then every fault scenario on one chip, as one
 * durable job so that it outlives the console.  A fixed script given its
 * values as arguments (never spliced into the text): $1 the package, $2
 * the chip, $3 the scenarios (scenario.h's names, blank-separated), the
 * rest the runner's whole argv, which the command follows (lab.h); its
 * name ($0) is "calops-gN", which labcmd_job_gate() reads back.  A step
 * that fails says the exact command it ran, so that a runner that cannot
 * start or refuses its command line shows how.
 */
static const char g7_script[] =
    "calbin=$1; chip=$2; scenarios=$3; shift 3; st=0\n"
    "run() { \"$@\" || { rc=$?; echo \"calops-g7: exit $rc: $*\" >&2; "
    "st=1; }; }\n"
    "run \"$@\" golden --calbin \"$calbin\" --chips \"$chip\"\n"
    "for s in $scenarios; do\n"
    "\trun \"$@\" fault --calbin \"$calbin\" --chips \"$chip\" "
    "--scenario \"$s\"\n"
    "done\n"
    "exit $st\n";

/*
 * A gate's command from the lab file's gates: map (lab.h), run in the
 * workspace's root: the root and the command are the script's arguments,
 * never spliced into its text.
 */
static const char gate_script[] = "cd -- \"$1\" && shift && exec \"$@\"";

/* G8's: the adapter conformance serves from a chip, the host's first,
 * which the command finds in $CALOPS_CHIP ($2 here). */
static const char g8_script[] = "cd -- \"$1\" && CALOPS_CHIP=$2 && "
    "export CALOPS_CHIP && shift 2 && exec \"$@\"";

static char	*runner_program(const struct labcmd_where *w, const char *name);

static int
gate_command(const struct labcmd_where *w, int g, bool again, int chip,
    struct strv *argv, char *label, size_t labellen, char *err,
    size_t errlen)
{
	const struct lab_cmd *c = g >= 0 && g < GATE_COUNT ?
	    &w->lab->gates[g] : NULL;
	const char *prog, *base;
	size_t i;

	if (c == NULL || c->argv == NULL) {
		errbuf_set(err, errlen, "G%d has no command: the lab file's "
		    "gates: map gives none (share/doc/lab.md)", g);
		return -1;
	}
	if (gateid_job(g) == GATEJOB_REPRO) {
		/* G5: the compile command as the reproducibility run, its
		 * builds recorded where G5.builds reads them
		 * (cmd_reprobuild.c), by the host's own calops. */
		strv_add(argv, w->host->transport == LAB_LOCAL ?
		    runner_program(w, "calops") : xstrdup(w->host->calops !=
		    NULL ? w->host->calops : LAB_DEFAULT_CALOPS));
		hostcmd_repro_build(argv, w->ws, again);
	} else {
		strv_add(argv, xstrdup("/bin/sh"));
		strv_add(argv, xstrdup("-c"));
		strv_add(argv, xstrdup(gateid_job(g) ==
		    GATEJOB_CHIP_TOOL ? g8_script : gate_script));
		strv_add(argv, xasprintf("calops-g%d", g));
		strv_add(argv, xstrdup(w->ws));
		if (gateid_job(g) == GATEJOB_CHIP_TOOL)
			strv_add(argv, xasprintf("%d", chip));
	}
	strv_add(argv, runner_program(w, c->argv[0]));
	for (i = 1; i < c->argc; i++)
		strv_add(argv, xstrdup(c->argv[i]));
	/* The tool's name, without its folder: "G6 calculet_package_…"; an
	 * interpreter's script rather than the interpreter. */
	base = strrchr(c->argv[0], '/') != NULL ? strrchr(c->argv[0], '/') +
	    1 : c->argv[0];
	prog = c->argc > 1 && c->argv[1][0] != '-' && (strncmp(base,
	    "python", 6) == 0 || strcmp(base, "ruby") == 0 ||
	    strcmp(base, "sh") == 0 || strcmp(base, "bash") == 0 ||
	    strcmp(base, "perl") == 0) ? c->argv[1] : c->argv[0];
	base = strrchr(prog, '/') != NULL ? strrchr(prog, '/') + 1 : prog;
	if (gateid_job(g) == GATEJOB_REPRO)
		snprintf(label, labellen, "G%d %s %s", g, again ?
		    "one more build:" : "two builds:", base);
	else if (gateid_job(g) == GATEJOB_CHIP_TOOL)
		snprintf(label, labellen, "G%d %s · chip %d", g, base, chip);
	else
		snprintf(label, labellen, "G%d %s", g, base);
	return 0;
}

const char *
labcmd_gate_stales(int g)
{
	/* workspace.md's stale evidence and G10's bindings: what each
	 * gate's step writes, and the later gates whose evidence is bound
	 * to it. */
	switch (g) {
	case 0:
		return "G10 (its release binds the tokenizer)";
	case 2:
		return "G5 (compile-config binds model.onnx), G10 (its release "
		    "binds the model and the ONNX report)";
	case 4:
		return "G10 (its release binds the quant config, the "
		    "calibration and the quant report)";
	case 5:
		return "G6, G7, G8 (bound to the package's tree hash), G10 "
		    "(bindings)";
	case 6:
		return "G10 (its release binds validation.json)";
	case 8:
		return "G10 (its release binds the conformance reports)";
	default:
		return NULL;
	}
}

/* A runner named without a slash that sits beside calops (the bundled
 * simulator) is run from there on a local host; a new string. */
static char *
runner_program(const struct labcmd_where *w, const char *name)
{
	char *p;

	if (strchr(name, '/') != NULL || w->host->transport != LAB_LOCAL ||
	    w->selfdir == NULL)
		return xstrdup(name);
	p = xasprintf("%s/%s", w->selfdir, name);
	if (access(p, X_OK) == 0)
		return p;
	free(p);
	return xstrdup(name);
}

char *
labcmd_self_dir(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(dirname(buf));
}

/* The lab's runner, its whole argv as the lab file gives it (a command
 * prefix: lab.h), then its command (golden, stress, fault) if any. */
static void
add_runner(const struct labcmd_where *w, struct strv *s, const char *command)
{
	const struct lab *lab = w->lab;
	size_t i;

	strv_add(s, runner_program(w, lab->runner_argc > 0 ?
	    lab->runner_argv[0] : LAB_DEFAULT_RUNNER));
	for (i = 1; i < lab->runner_argc; i++)
		strv_add(s, xstrdup(lab->runner_argv[i]));
	if (command != NULL)
		strv_add(s, xstrdup(command));
}

void
labcmd_chips_text(const int *chips, size_t n, char *buf, size_t len)
{
	size_t i, k, off = 0;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i = k + 1) {
		for (k = i; k + 1 < n && chips[k + 1] == chips[k] + 1; k++)
			;
		off += (size_t)snprintf(buf + off, len - off, "%s%d", i ? "," :
		    "", chips[i]);
		if (k > i && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%d",
			    k == i + 1 ? "," : "-", chips[k]);
	}
}

/*
 * A release's chip step: the host's own calops runs the runner's inspect
 * and golden on the chip and says the result file's hash
 * (cmd_chipstep.c); after its "--", the workspace and the runner's argv
 * as the lab file gives it.
 */
static void
chip_step(const struct labcmd_where *w, const struct ljob_spec *spec,
    struct strv *argv, char *label, size_t labellen)
{
	strv_add(argv, w->host->transport == LAB_LOCAL ?
	    runner_program(w, "calops") : xstrdup(w->host->calops != NULL ?
	    w->host->calops : LAB_DEFAULT_CALOPS));
	hostcmd_chip_step(argv, spec->generation, spec->chip, w->ws);
	add_runner(w, argv, NULL);
	snprintf(label, labellen, "chip step gen %ld · chip %d",
	    spec->generation, spec->chip);
}

/* "24h", "90m" or seconds, as the runner's --duration takes them. */
static void
duration_text(double s, char *buf, size_t len)
{
	long v = lround(s);

	if (v % 3600 == 0)
		snprintf(buf, len, "%ldh", v / 3600);
	else if (v % 60 == 0)
		snprintf(buf, len, "%ldm", v / 60);
	else
		snprintf(buf, len, "%lds", v);
}

/* A soak's --chips (G7's one chip): the spec's, each one of the host's,
 * else every chip of the host (0 when the lab file names none); 0, or -1
 * with err. */
static int
soak_chips(const struct lab_host *lh, const struct ljob_spec *spec,
    char *buf, size_t len, char *err, size_t errlen)
{
	size_t i, k;

	for (i = 0; i < spec->nchips; i++) {
		for (k = 0; k < lh->nchips && lh->chips[k] != spec->chips[i];
		    k++)
			;
		if (k == lh->nchips &&
		    (lh->nchips > 0 || spec->chips[i] != 0)) {
			errbuf_set(err, errlen, "host '%s' has no chip %d in "
			    "the lab file", lh->name, spec->chips[i]);
			return -1;
		}
	}
	if (spec->nchips > 0)
		labcmd_chips_text(spec->chips, spec->nchips, buf, len);
	else if (lh->nchips > 0)
		labcmd_chips_text(lh->chips, lh->nchips, buf, len);
	else
		snprintf(buf, len, "0");
	return 0;
}

int
labcmd_build(const struct labcmd_where *w, const struct ljob_spec *spec,
    struct strv *argv, char *label, size_t labellen, char *err,
    size_t errlen)
{
	const struct lab_host *lh = w->host;
	char chips[256], dur[32], *calbin;
	int first_chip;
	const struct scenario *sc;

	memset(argv, 0, sizeof *argv);
	if (w->ws == NULL) {
		errbuf_set(err, errlen, "the lab file names no workspace on "
		    "host '%s'", lh->name);
		return -1;
	}
	first_chip = lh->nchips > 0 ? lh->chips[0] : 0;
	calbin = xasprintf("%s/05-calbin/package", w->ws);
	switch (spec->kind == LJOB_GATE &&
	    gateid_job(spec->gate) == GATEJOB_SOAK ? LJOB_SOAK : spec->kind) {
	case LJOB_GATE:
		if (gateid_job(spec->gate) != GATEJOB_SUITE) {
			free(calbin);
			return gate_command(w, spec->gate, spec->again,
			    first_chip, argv, label, labellen, err, errlen);
		}
		/* The chip picked (one of the host's), else its first. */
		if (spec->nchips > 0 && soak_chips(lh, &(struct ljob_spec){
		    .chips = spec->chips, .nchips = 1 }, chips, sizeof chips,
		    err, errlen) != 0) {
			free(calbin);
			return -1;
		}
		if (spec->nchips > 0)
			first_chip = spec->chips[0];
		strv_add(argv, xstrdup("/bin/sh"));
		strv_add(argv, xstrdup("-c"));
		strv_add(argv, xstrdup(g7_script));
		strv_add(argv, xasprintf("calops-g%d", spec->gate));
		strv_add(argv, xstrdup(calbin));
		strv_add(argv, xasprintf("%d", first_chip));
		strv_add(argv, scenario_names());
		add_runner(w, argv, NULL);
		snprintf(label, labellen, "G%d golden + %d faults · chip %d",
		    spec->gate, SCENARIO_COUNT, first_chip);
		break;
	case LJOB_SOAK:
		if (soak_chips(lh, spec, chips, sizeof chips, err,
		    errlen) != 0) {
			free(calbin);
			return -1;
		}
		duration_text(spec->duration_s > 0 ? spec->duration_s : 86400,
		    dur, sizeof dur);
		add_runner(w, argv, "stress");
		strv_add(argv, xstrdup("--calbin"));
		strv_add(argv, xstrdup(calbin));
		strv_add(argv, xstrdup("--duration"));
		strv_add(argv, xstrdup(dur));
		strv_add(argv, xstrdup("--chips"));
		strv_add(argv, xstrdup(chips));
		snprintf(label, labellen, "soak %s · chips %s", dur, chips);
		break;
	case LJOB_FAULT:
		if ((sc = scenario_find(spec->scenario)) == NULL ||
		    spec->chip < 0) {
			errbuf_set(err, errlen, "no such fault scenario or "
			    "chip");
			free(calbin);
			strv_free(argv);
			return -1;
		}
		add_runner(w, argv, "fault");
		strv_add(argv, xstrdup("--calbin"));
		strv_add(argv, xstrdup(calbin));
		strv_add(argv, xstrdup("--chips"));
		strv_add(argv, xasprintf("%d", spec->chip));
		strv_add(argv, xstrdup("--scenario"));
		strv_add(argv, xstrdup(sc->name));
		snprintf(label, labellen, "fault %s · chip %d",
		    sc->name, spec->chip);
		break;
	case LJOB_CHIPSTEP:
		chip_step(w, spec, argv, label, labellen);
		break;
	case LJOB_GOLDEN:
		add_runner(w, argv, "golden");
		strv_add(argv, xstrdup("--calbin"));
		strv_add(argv, xstrdup(calbin));
		strv_add(argv, xstrdup("--chips"));
		strv_add(argv, xasprintf("%d", first_chip));
		snprintf(label, labellen, "golden · chip %d", first_chip);
		break;
	}
	free(calbin);
	return 0;
}

/* argv as a person would type it: words quoted for sh where needed. */
void
labcmd_join_argv(char *const *argv, struct buf *b)
{
	const char *p;
	size_t i;

	for (i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			buf_addc(b, ' ');
		if (argv[i][0] != '\0' && strspn(argv[i], "abcdefghijklmnopqrs"
		    "tuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./,:=+@%") ==
		    strlen(argv[i])) {
			buf_adds(b, argv[i]);
			continue;
		}
		buf_addc(b, '\'');
		for (p = argv[i]; *p != '\0'; p++) {
			if (*p == '\'')
				buf_adds(b, "'\\''");
			else
				buf_addc(b, *p);
		}
		buf_addc(b, '\'');
	}
}

int
labcmd_text(const struct labcmd_where *w, const struct ljob_spec *spec,
    char *buf, size_t len, char *err, size_t errlen)
{
	struct strv argv;
	char label[160];
	struct buf b;

	if (labcmd_build(w, spec, &argv, label, sizeof label, err,
	    errlen) != 0)
		return -1;
	buf_init(&b, 64 << 10);
	labcmd_join_argv(argv.v, &b);
	snprintf(buf, len, "%.*s", (int)b.len, b.data);
	buf_release(&b);
	strv_free(&argv);
	return 0;
}

/* N of "calops-gN" (0 to GATE_COUNT - 1), else -1. */
static int
script_gate(const char *name)
{
	static const char prefix[] = "calops-g";
	const char *p;
	int g = 0;

	if (strncmp(name, prefix, sizeof prefix - 1) != 0)
		return -1;
	p = name + sizeof prefix - 1;
	if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] != '\0'))
		return -1;
	for (; *p >= '0' && *p <= '9' && g < GATE_COUNT; p++)
		g = g * 10 + (*p - '0');
	return *p == '\0' && g < GATE_COUNT ? g : -1;
}

/* The workspace of a runner's package path (WS/05-calbin/package), or
 * NULL. */
static char *
calbin_workspace(const char *calbin)
{
	static const char tail[] = "/05-calbin/package";
	size_t n = strlen(calbin), t = sizeof tail - 1;

	if (n <= t || strcmp(calbin + n - t, tail) != 0)
		return NULL;
	return xstrndup(calbin, n - t);
}

int
labcmd_job_gate(char *const *argv, size_t argc, char **ws)
{
	size_t i;
	int g;

	*ws = NULL;
	/* G5: CALOPS repro-build WS … */
	if (argc >= 3 && strcmp(argv[1], "repro-build") == 0) {
		*ws = xstrdup(argv[2]);
		return gateid_of(GATEJOB_REPRO);
	}
	/* /bin/sh -c SCRIPT calops-gN WS … (G7: its package, not WS) */
	if (argc >= 5 && strcmp(argv[0], "/bin/sh") == 0 &&
	    strcmp(argv[1], "-c") == 0 && (g = script_gate(argv[3])) >= 0) {
		*ws = gateid_job(g) == GATEJOB_SUITE ?
		    calbin_workspace(argv[4]) : xstrdup(argv[4]);
		return *ws != NULL ? g : -1;
	}
	/* RUNNER… stress|fault|golden --calbin WS/05-calbin/package …: the
	 * soak is G9's, a fault scenario or a golden run G7's, as the console
	 * counts them. */
	for (i = 1; i + 2 < argc; i++) {
		if (strcmp(argv[i + 1], "--calbin") != 0)
			continue;
		if (strcmp(argv[i], "stress") == 0)
			g = gateid_of(GATEJOB_SOAK);
		else if (strcmp(argv[i], "fault") == 0 ||
		    strcmp(argv[i], "golden") == 0)
			g = gateid_of(GATEJOB_SUITE);
		else
			continue;
		*ws = calbin_workspace(argv[i + 2]);
		return *ws != NULL ? g : -1;
	}
	return -1;
}

/* "0-3,6" into d's chips (as labcmd_chips_text() writes them). */
static void
parse_chips(const char *text, struct labcmd_job *d)
{
	const char *p = text;
	char *end;
	long a, b;

	d->nchips = 0;
	while (*p != '\0' && d->nchips < LABCMD_CHIPS_MAX) {
		a = strtol(p, &end, 10);
		if (end == p || a < 0 || a > 4096)
			return;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b > 4096)
				return;
		}
		for (; a <= b && d->nchips < LABCMD_CHIPS_MAX; a++)
			d->chips[d->nchips++] = (int)a;
		if (*end != ',')
			return;
		p = end + 1;
	}
}

/* "24h", "90m", "30s" or seconds, as the runner's --duration takes them. */
static double
parse_duration(const char *text)
{
	char *end;
	double v = strtod(text, &end);

	if (end == text || v < 0)
		return 0;
	return *end == 'h' ? v * 3600 : *end == 'm' ? v * 60 : v;
}

/* The runner's own: RUNNER… stress|fault|golden --calbin PKG [options]. */
static int
describe_runner(char *const *argv, size_t argc, size_t i,
    struct labcmd_job *d)
{
	char chips[256], dur[32];
	size_t k;

	if ((d->ws = calbin_workspace(argv[i + 2])) == NULL)
		return -1;
	d->kind = strcmp(argv[i], "stress") == 0 ? LJOB_SOAK :
	    strcmp(argv[i], "fault") == 0 ? LJOB_FAULT : LJOB_GOLDEN;
	d->gate = gateid_of(d->kind == LJOB_SOAK ? GATEJOB_SOAK :
	    GATEJOB_SUITE);
	for (k = i + 3; k + 1 < argc; k++) {
		if (strcmp(argv[k], "--chips") == 0)
			parse_chips(argv[k + 1], d);
		else if (strcmp(argv[k], "--scenario") == 0 &&
		    d->scenario == NULL)
			d->scenario = xstrdup(argv[k + 1]);
		else if (strcmp(argv[k], "--duration") == 0)
			d->target_s = parse_duration(argv[k + 1]);
	}
	labcmd_chips_text(d->chips, d->nchips, chips, sizeof chips);
	if (d->kind == LJOB_SOAK) {
		duration_text(d->target_s > 0 ? d->target_s : 86400, dur,
		    sizeof dur);
		snprintf(d->label, sizeof d->label, "soak %s · chips %.100s",
		    dur, chips);
	} else if (d->kind == LJOB_FAULT) {
		d->chip = d->nchips > 0 ? d->chips[0] : -1;
		snprintf(d->label, sizeof d->label, "fault %.60s · chip %d",
		    d->scenario != NULL ? d->scenario : "?", d->chip);
	} else
		snprintf(d->label, sizeof d->label, "golden · chip %d",
		    d->nchips > 0 ? d->chips[0] : 0);
	return 0;
}

/* A release's chip step: CALOPS release chip-step --generation N --chip C
 * -- WS RUNNER… */
static int
describe_chip_step(char *const *argv, size_t argc, struct labcmd_job *d)
{
	long gen = 0;
	size_t k;

	d->kind = LJOB_CHIPSTEP;
	d->gate = -1;
	for (k = 3; k + 1 < argc; k++) {
		if (strcmp(argv[k], "--generation") == 0)
			gen = strtol(argv[k + 1], NULL, 10);
		else if (strcmp(argv[k], "--chip") == 0)
			d->chip = (int)strtol(argv[k + 1], NULL, 10);
		else if (strcmp(argv[k], "--") == 0) {
			d->ws = xstrdup(argv[k + 1]);
			break;
		}
	}
	if (d->ws == NULL || d->chip < 0)
		return -1;
	d->chips[d->nchips++] = d->chip;
	snprintf(d->label, sizeof d->label, "chip step gen %ld · chip %d",
	    gen, d->chip);
	return 0;
}

int
labcmd_job_describe(char *const *argv, size_t argc, struct labcmd_job *d)
{
	size_t i;

	memset(d, 0, sizeof *d);
	d->chip = d->gate = -1;
	if (argc >= 4 && strcmp(argv[1], "release") == 0 &&
	    strcmp(argv[2], "chip-step") == 0)
		return describe_chip_step(argv, argc, d) == 0 ? 0 :
		    (labcmd_job_release(d), -1);
	for (i = 1; i + 2 < argc; i++)
		if (strcmp(argv[i + 1], "--calbin") == 0 &&
		    (strcmp(argv[i], "stress") == 0 ||
		    strcmp(argv[i], "fault") == 0 ||
		    strcmp(argv[i], "golden") == 0))
			return describe_runner(argv, argc, i, d) == 0 ? 0 :
			    (labcmd_job_release(d), -1);
	if ((d->gate = labcmd_job_gate(argv, argc, &d->ws)) < 0)
		return -1;
	d->kind = LJOB_GATE;
	if (gateid_job(d->gate) == GATEJOB_SUITE && argc > 5) {
		d->chips[d->nchips++] = (int)strtol(argv[5], NULL, 10);
		snprintf(d->label, sizeof d->label, "G%d golden + %d faults · "
		    "chip %d", d->gate, SCENARIO_COUNT, d->chips[0]);
	} else if (gateid_job(d->gate) == GATEJOB_CHIP_TOOL && argc > 5) {
		d->chips[d->nchips++] = (int)strtol(argv[5], NULL, 10);
		snprintf(d->label, sizeof d->label, "G%d · chip %d",
		    d->gate, d->chips[0]);
	} else
		snprintf(d->label, sizeof d->label, "G%d", d->gate);
	return 0;
}

void
labcmd_job_release(struct labcmd_job *d)
{
	free(d->scenario);
	free(d->ws);
	d->scenario = d->ws = NULL;
}
