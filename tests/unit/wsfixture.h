/*
 * wsfixture.h: generated example workspaces for the gate engine's unit tests.
 *
 * The group setup runs share/examples/mkworkspace.py once per test process,
 * into a template folder (both profiles, plus the release owner's private
 * key).  Each test then gets its own copy of a template (struct wsfix, the
 * cmocka state), changes files in it with the helpers below, evaluates it
 * with the real gate engine and checks the verdict.  The teardown releases
 * the evaluation and removes the copy, also after a failed assertion.
 *
 * Paths named by `rel` are relative to the test's workspace.  Every helper
 * fails the test (never returns an error) when the file system refuses.
 */
#ifndef WSFIXTURE_H
#define WSFIXTURE_H

#include "calops.h"

#include <jansson.h>
#include <openssl/evp.h>

#include "engine/gate.h"
#include "engine/tickets.h"

/* A test's workspace copy and what was evaluated from it. */
struct wsfix {
	char		*dir;		/* the copy, owned */
	const char	*from;		/* its template */
	struct eval	 ev;
	bool		 evaluated;
	struct ticket	 tickets[TICKET_COUNT];
	bool		 have_tickets;
};

/* The templates, made by fixture_group_setup. */
struct templates {
	char	*root;		/* the mkdtemp folder */
	char	*complete;	/* --profile complete */
	char	*midproject;	/* --profile midproject */
	char	*key_pem;	/* the release owner's private key */
};

extern struct templates tpl;

/* The check ids of workspace.md §3, as a reader of the spec lists them
 * (not taken from the code, so that a check the code forgets shows). */
extern const char *const ws_spec_checks[];
extern const size_t ws_nspec_checks;

/* cmocka group and per-test fixtures. */
int	fixture_group_setup(void **state);
int	fixture_group_teardown(void **state);
int	ws_setup_complete(void **state);
int	ws_setup_mid(void **state);
int	ws_teardown(void **state);

/* Start over from a fresh copy of the template, for table-driven tests;
 * `label` is shown with any failed assertion until the next reset. */
void	ws_reset(struct wsfix *w, const char *label);

#define WS_TEST(f) \
	cmocka_unit_test_setup_teardown(f, ws_setup_complete, ws_teardown)
#define MID_TEST(f) \
	cmocka_unit_test_setup_teardown(f, ws_setup_mid, ws_teardown)

/* ---- files ---- */

/*
 * Copy a folder recursively, keeping modes and symbolic links as links.
 * With share, regular files are hard links to the originals: cheap, and safe
 * as long as files are changed only through the helpers below, which
 * replace a file rather than write into it.
 */
void	 ws_copy(const char *from, const char *to, bool share);
/* rm -rf, without following links. */
void	 ws_rmtree(const char *path);
/* root/rel as a new string. */
char	*ws_path(const struct wsfix *w, const char *rel);
void	 ws_write_file(struct wsfix *w, const char *rel, const void *data,
	    size_t len);
void	 ws_write_str(struct wsfix *w, const char *rel, const char *s);
void	 ws_append(struct wsfix *w, const char *rel, const char *s);
/* The whole file, NUL-terminated; *len may be NULL. */
char	*ws_slurp(const struct wsfix *w, const char *rel, size_t *len);
/* Replace the first occurrence of old by new; fails the test when absent. */
void	 ws_replace(struct wsfix *w, const char *rel, const char *old,
	    const char *new);
/* Change the hex digit right after the first occurrence of after to
 * another (its value's lowest bit flipped: twice gives it back); fails the
 * test when absent or not a hex digit. */
void	 ws_flip_hex(struct wsfix *w, const char *rel, const char *after);
/* Replace every occurrence; returns how many (fails the test on none). */
size_t	 ws_replace_all(struct wsfix *w, const char *rel, const char *old,
	    const char *new);
/* Delete count lines from line `first` (1-based) on. */
void	 ws_delete_lines(struct wsfix *w, const char *rel, size_t first,
	    size_t count);
/* Remove a file, a link or a whole folder. */
void	 ws_remove(struct wsfix *w, const char *rel);
/* Replace rel (whatever it was) by a symbolic link to target. */
void	 ws_symlink(struct wsfix *w, const char *target, const char *rel);
/* Replace rel by an empty folder, or by a FIFO. */
void	 ws_mkdir(struct wsfix *w, const char *rel);
void	 ws_mkfifo(struct wsfix *w, const char *rel);

/* ---- JSON ---- */

/* Load a JSON file (new reference) and write one back (indented). */
json_t	*ws_json_load(const struct wsfix *w, const char *rel);
void	 ws_json_write(struct wsfix *w, const char *rel, json_t *root);
/* The node at a JSON pointer (borrowed), or NULL. */
json_t	*json_at(json_t *root, const char *pointer);
/*
 * Set the member or element at pointer to value (stolen); a NULL value
 * removes it; "-" as the last token appends to an array.  ws_json_set does
 * it in a JSON file, ws_jsonl_set in line `lineno` (1-based) of a JSON Lines
 * file, written back compact.
 */
void	 json_set_at(json_t *root, const char *pointer, json_t *value);
void	 ws_json_set(struct wsfix *w, const char *rel, const char *pointer,
	    json_t *value);
void	 ws_jsonl_set(struct wsfix *w, const char *rel, size_t lineno,
	    const char *pointer, json_t *value);

/* ---- evaluation and assertions ---- */

/* Evaluate the copy (again, when already done); the test fails if the
 * workspace cannot be read at all. */
struct eval	*ws_eval(struct wsfix *w);
/* Evaluate and derive the tickets. */
struct ticket	*ws_tickets(struct wsfix *w);
const struct ticket *ticket_by_id(const struct wsfix *w, const char *id);

const struct gate_result *gate_of(const struct eval *ev, const char *gate);
/* The first finding of the gate with exactly this check and severity. */
const struct finding *find_finding(const struct eval *ev, const char *gate,
	    const char *check, enum severity sev);

void	_expect_status(const struct eval *ev, const char *gate,
	    enum gate_status st, const char *file, int line);
void	_expect_finding(const struct eval *ev, const char *gate,
	    const char *check, enum severity sev, const char *substr,
	    const char *file, int line);
void	_expect_no_finding(const struct eval *ev, const char *gate,
	    const char *check, const char *file, int line);
void	_expect_no_severity(const struct eval *ev, const char *gate,
	    const char *check, enum severity sev, const char *file, int line);
void	_expect_project(const struct eval *ev, const char *status,
	    const char *vendor_id, const char *file, int line);
void	_expect_verdict(const struct eval *ev, const char *check,
	    enum check_verdict want, const char *file, int line);

/* The gate's status is st. */
#define expect_status(ev, gate, st) \
	_expect_status(ev, gate, st, __FILE__, __LINE__)
/* A finding of exactly this check id and severity exists. */
#define expect_finding(ev, gate, check, sev) \
	_expect_finding(ev, gate, check, sev, NULL, __FILE__, __LINE__)
/* The same, and its message contains substr. */
#define expect_finding_msg(ev, gate, check, sev, substr) \
	_expect_finding(ev, gate, check, sev, substr, __FILE__, __LINE__)
/* No error, blocked or stale finding carries check or a sub-id of it. */
#define expect_no_finding(ev, gate, check) \
	_expect_no_finding(ev, gate, check, __FILE__, __LINE__)
/* No finding of this severity carries check or a sub-id of it. */
#define expect_no_severity(ev, gate, check, sev) \
	_expect_no_severity(ev, gate, check, sev, __FILE__, __LINE__)
/* Check's verdict (workspace.md §6) is want. */
#define expect_verdict(ev, check, want) \
	_expect_verdict(ev, check, want, __FILE__, __LINE__)
/* The project status is status; vendor_id, when not NULL, is among the
 * project findings (NULL and status not BLOCKED_COMPILER: there are none). */
#define expect_project(ev, status, vendor_id) \
	_expect_project(ev, status, vendor_id, __FILE__, __LINE__)

/* ---- signatures (Ed25519, as release.md) ---- */

/* The release owner's key (mei.chen), loaded once; borrowed. */
EVP_PKEY	*release_key(void);
/* A fresh key that no trusted-keys/ file names; the caller frees it. */
EVP_PKEY	*untrusted_key(void);
/* The public half as PEM, a new string. */
char		*pubkey_pem(EVP_PKEY *k);
/* Base64 Ed25519 signature over data, a new string. */
char		*sign_b64(EVP_PKEY *k, const void *data, size_t len);
/* Write rel + ".sig" signing rel's exact bytes with k. */
void		 ws_sign(struct wsfix *w, const char *rel, EVP_PKEY *k);
/* Append one signed audit record (release.md §3) chained to the last line;
 * to or from < 0 are null. */
void		 ws_audit_append(struct wsfix *w, EVP_PKEY *k,
		    const char *key_id, const char *action, long from, long to);
/*
 * Write generation n: generation 2's manifest with generation n and
 * previous_generation prev (< 0: null), signed with k; with k NULL it is left
 * unsigned, to be edited and then signed with ws_sign.
 */
void		 ws_new_generation(struct wsfix *w, long n, long prev,
		    EVP_PKEY *k);

/* ---- soak runs (G9) ---- */

struct soakspec {
	double	t0, span;	/* first sample and the run's span, s */
	size_t	requests;	/* request samples, evenly spread */
	double	ttft_base;	/* ttft_ms = base + (i * 37) % 100 */
	double	tpot_base;	/* tpot_ms = base + (i * 13) % 10 */
	size_t	failures;	/* request_ok 0 for the first few */
	size_t	mem_samples;	/* rss/device memory samples */
	double	rss_growth;	/* bytes per memory sample (leak) */
};

/* The computed summary of a run (nearest-rank, as workspace.md G9). */
struct soaksum {
	double	success_rate, ttft_p50, ttft_p99, tpot_p50, tpot_p99;
};

/* Write soak/<run>/metrics.jsonl and a summary.json that agrees with it. */
void	ws_write_soak(struct wsfix *w, const char *run,
	    const struct soakspec *spec, struct soaksum *out);

/* ---- the calops binary ---- */

/* Run `$CALOPS_BIN check` with argv (NULL-terminated); its
 * standard output (new string) in *out.  Returns the exit status; skips the
 * test when CALOPS_BIN is not set. */
int	run_calops(const char *const *argv, char **out);

#endif
