/*
 * sim_common.h: calrt-sim, a stand-in for the runbook's runtime runner (§11.1
 * calrt_runner) with the same command line, so that the console, the gates
 * and the tests can run without a Calculet chip (protocol.md §5).
 *
 * Each command prints protocol events (protocol.md §3: JSON lines on
 * stdout, v 1, seq from 1, ts in simulated Unix seconds) and writes the
 * artifacts a real runner leaves in the workspace (workspace.md G7, G9),
 * atomically.  Simulated time runs --time-scale times faster than the wall
 * clock (0: no sleeping at all); every random draw comes from a seeded
 * splitmix64 stream per purpose, so one --seed gives byte-identical output
 * and turning one knob leaves the other draws alone.
 *
 * Beside the runner, it stands in for the tools of the other gates' lab
 * jobs (share/doc/lab.md, "gates"): `validate` for the package validator of
 * runbook §10 (G6), `compile` for the compiler of §9.3 (G5), `reference`
 * for the reference harness of §5.1 (G1), `onnx-check` for the ONNX checks
 * of §6.3 (G2) and `conformance` for the adapter conformance of §12.3 (G8).
 *
 * The command files (sim_golden.c, sim_fault.c, sim_soak.c,
 * sim_validate.c, sim_compile.c, sim_reference.c, sim_onnx.c with its
 * model reader sim_onnxpb.c, sim_conformance.c) get a struct sim with the
 * options parsed and the workspace located; sim_common.c holds what
 * they share: the event writer, the clock, the random streams, the G0 facts
 * and atomic file writes.  All strings in struct sim_opts are borrowed from
 * argv; everything else in struct sim is owned by it (sim_release).
 */
#ifndef CALRT_SIM_H
#define CALRT_SIM_H

#include "calops.h"

#include <signal.h>
#include <time.h>

#include <jansson.h>

#include "base/doc.h"
#include "ws/hash.h"
#include "ws/hashtree.h"

#ifndef CALOPS_VERSION
#define CALOPS_VERSION	"0.0.0"
#endif

#define SIM_TOOL	"calrt-sim"
#define SOURCE_MANIFEST	"00-source/source-manifest.json"
#define SIM_MAX_CHIPS	64
#define SIM_MAX_PROMPTS	16
#define SIM_MAX_CASES	256

enum sim_leak_in {
	LEAK_RSS = 1,
	LEAK_DEVICE = 2,
	LEAK_BOTH = 3,
};

struct sim_opts {
	const char	*calbin, *workspace, *case_path, *output, *matrix;
	const char	*run, *scenario, *error_code;
	double		 duration_s;	/* 0: not given */
	/* simulated s per real s; 0: no sleep */
	double		 time_scale;
	uint64_t	 seed;
	bool		 have_seed;
	double		 start;	/* simulated Unix time of the first event */
	bool		 have_start;
	int		 chips[SIM_MAX_CHIPS];
	size_t		 nchips;
	bool		 have_chips, have_rate;
	double		 rate, error_rate, leak_rate, temp_drift;
	enum sim_leak_in leak_in;
	double		 ttft_ms, tpot_ms, interval_s;
	double		 recover_ms;	/* < 0: the scenario's own */
	bool		 abort_run, unstructured, no_recover, no_cache;
	bool		 have_mismatch;
	/* the golden case that must not match */
	json_int_t	 mismatch[2];
	/* The load, from --matrix (defaults otherwise). */
	json_int_t	 prompt_tokens[SIM_MAX_PROMPTS];
	size_t		 nprompt;
	json_int_t	 output_tokens, concurrency;
	/* validate: one finding to report (--finding LEVEL:CODE), and the
	 * chips the package says it is for. */
	const char	*finding_level, *finding_code;
	double		 chip_nums;
	/* compile: the config (workspace-relative), and builds that differ */
	const char	*config;
	bool		 nondeterministic;
	/* onnx-check, conformance: how many outputs do not match */
	double		 mismatches;
};

struct sim {
	struct sim_opts	 o;
	const char	*cmd;		/* "golden", … */
	/* A tool's stand-in that logs as text (compile), not as events. */
	bool		 plain;
	int		 argc;
	char		**argv;
	char		*ws;		/* realpath of the workspace root */
	char		*calbin;	/* realpath of the package folder */
	/* Facts of 00-source/source-manifest.json (G0), when present. */
	char		*model_id;
	bool		 have_context, have_sla;
	json_int_t	 max_context;
	double		 sla_ttft, sla_tpot, sla_ok;
	json_t		*sla;		/* the three, as G0 writes them */
	char		 source_msg[256];	/* why G0 was unreadable, or "" */
	json_t		*source;	/* the G0 manifest, or NULL */
	/* The event stream: stdout, and a copy to tee when it is set. */
	unsigned long long seq;
	bool		 said_hello;
	FILE		*tee;
	bool		 tee_failed;
	/* Simulated time: now, and where it started in both clocks. */
	double		 t0, now;
	struct timespec	 real0;
};

/* Set by SIGINT/SIGTERM: commands stop early and finish their artifacts. */
extern volatile sig_atomic_t sim_stopping;

/* A splitmix64 stream, one per purpose. */
struct rng {
	uint64_t	s;
};

void	 rng_init(struct rng *r, uint64_t seed, const char *label);
uint64_t rng_u64(struct rng *r);
/* Uniform in (0, 1]; a standard normal; an exponential of mean 1. */
double	 rng_uniform(struct rng *r);
double	 rng_gauss(struct rng *r);
double	 rng_exp(struct rng *r);

/*
 * Events.  sim_event() starts one (v, seq, ts, type set, in that order; the
 * caller adds fields) and sim_emit() writes it to stdout and the tee and
 * frees it; the first event of a run is always hello, sent on demand.
 */
json_t	*sim_event(struct sim *s, const char *type);
void	 sim_emit(struct sim *s, json_t *ev);
void	 sim_log(struct sim *s, const char *level, const char *fmt, ...)
	    PRINTFLIKE(3, 4);
void	 sim_progress(struct sim *s, const char *phase, double done,
	    double total, const char *unit);
/* A result event (steals summary and artifacts, which may be NULL);
 * returns the exit status for it: 0 pass, 1 fail, 2 error. */
int	 sim_result(struct sim *s, const char *status, json_t *summary,
	    json_t *artifacts);
/* Report an operational error as a log and a result event; returns 2. */
int	 sim_fail(struct sim *s, const char *fmt, ...) PRINTFLIKE(2, 3);

/* Start the clock at the simulated time t0; install the signal handlers. */
void	 sim_clock_start(struct sim *s, double t0);
/* Move simulated time to ts (never backwards), sleeping as the time scale
 * says; false when a signal asked us to stop. */
bool	 sim_wait_until(struct sim *s, double ts);
bool	 sim_advance_ms(struct sim *s, double ms);
/* "2026-09-21T08:00:00Z" for a Unix time, into buf. */
void	 sim_iso(double ts, char *buf, size_t len);

/* Find the workspace and the package from --calbin/--workspace and read
 * the G0 facts; 0, or -1 with err set. */
int	 sim_locate(struct sim *s, char *err, size_t len);
/* The tree hash of the package; 0, or -1 with err set. */
int	 sim_tree_hash(struct sim *s, struct tree *t, char *err, size_t len);
/* A path for messages and result artifacts: workspace-relative when it is
 * inside the workspace, else as it is.  A new string. */
char	*sim_relpath(const struct sim *s, const char *abs);

/* mkdir -p dir; 0 or -1 with err set. */
int	 sim_mkdirs(const char *dir, char *err, size_t len);
/* mkdir -p of the folder a file goes into. */
int	 sim_mkparent(const char *path, char *err, size_t len);
/* Read a small JSON or YAML file the user named (--case, --matrix) into d;
 * 0, or -1 with err set (with line:col for a syntax error). */
int	 sim_read_doc(const char *path, bool yaml, struct doc *d, char *err,
	    size_t len);
/* Write o (indented, as the example workspaces are) to path through a
 * temporary file and rename(2); 0 or -1 with err set. */
int	 sim_write_json(const char *path, json_t *o, char *err, size_t len);
/* The same for a result at a fixed path (a fault's, the golden run's):
 * the result it replaces is kept first, hard-linked as
 * history/<name>.<its mtime, UTC>.json beside it, so a later run never
 * destroys an earlier one's evidence (share/doc/workspace.md, "Runs"). */
int	 sim_write_evidence(const char *path, json_t *o, char *err,
	    size_t len);
/* n bytes of filler: SHA-256 in counter mode over "calops-example-bytes/"
 * label and an 8-byte little-endian counter, the stream the example
 * generator (share/examples/mkworkspace.py fake_bytes) fills files with. */
void	 sim_fake_bytes(const char *label, unsigned char *out, size_t n);
/* Read a file of the workspace (rel inside it, links confined to it) of at
 * most max bytes; 0, or -1 with err set. */
int	 sim_ws_read(const struct sim *s, const char *rel, size_t max,
	    char **data, size_t *size, char *err, size_t len);
/* The same, parsed as YAML or JSON into d (the error with line:col). */
int	 sim_ws_doc(const struct sim *s, const char *rel, bool yaml,
	    struct doc *d, char *err, size_t len);
/* Call each for every non-blank line of a JSON-lines file of the
 * workspace, with the line's object (borrowed) and number; each returns 0
 * to go on, 1 to stop, or -1 after setting the object's "_error" member to
 * what is wrong with it.  0, 1, or -1 with err set ("rel:line: …"). */
#define SIM_JSONL_MAX	(256u << 20)
int	 sim_ws_jsonl(const struct sim *s, const char *rel,
	    int (*each)(void *arg, json_t *line, size_t lineno), void *arg,
	    char *err, size_t len);
/* The SHA-256 of a file of the workspace; 0, or -1 with err set. */
int	 sim_ws_sha256(const struct sim *s, const char *rel,
	    char hex[HASH_HEX_LEN + 1], char *err, size_t len);
/* Remove a folder holding only files (a stale run); 0 or -1 with err set. */
int	 sim_rm_flat(const char *dir, char *err, size_t len);

int	 sim_golden(struct sim *s);
int	 sim_fault(struct sim *s);
int	 sim_stress(struct sim *s);
int	 sim_inspect(struct sim *s);
int	 sim_validate(struct sim *s);
int	 sim_compile(struct sim *s);
int	 sim_reference(struct sim *s);
int	 sim_onnx_check(struct sim *s);
int	 sim_conformance(struct sim *s);

void	 sim_release(struct sim *s);

#endif
