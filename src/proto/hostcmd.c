/*
 * hostcmd.c: the command lines sent to a host's calops, and typed parsers
 * of what they print (hostcmd.h).
 */
#include "calops.h"

#include <math.h>

#include "proto/event.h"
#include "proto/hostcmd.h"

/* ---- command lines ---- */

static void
add_words(struct strv *s, const char *const *w)
{
	for (; *w != NULL; w++)
		strv_add(s, xstrdup(*w));
}

/* The command's words and options, then "--" and the operands. */
static void
host_argv(struct strv *s, const char *const *words,
    const char *const *operands)
{
	add_words(s, words);
	strv_add(s, xstrdup("--"));
	add_words(s, operands);
}

void
hostcmd_run(struct strv *s, const struct hostcmd_run_opts *o,
    char *const *argv)
{
	char gate[16];
	const char *w[10] = { "run", "--id", o->id, NULL };
	size_t n = 3;

	if (o->cwd != NULL) {
		w[n++] = "--cwd";
		w[n++] = o->cwd;
	}
	if (o->gate >= 0 && o->cwd != NULL) {
		snprintf(gate, sizeof gate, "G%d", o->gate);
		w[n++] = "--gate";
		w[n++] = gate;
	}
	if (o->actor != NULL) {
		w[n++] = "--actor";
		w[n++] = o->actor;
	}
	w[n] = NULL;
	host_argv(s, w, (const char *const *)argv);
}

void
hostcmd_tail(struct strv *s, const char *id, int64_t from, bool follow)
{
	char n[24];

	snprintf(n, sizeof n, "%lld", (long long)(from < 1 ? 1 : from));
	host_argv(s, (const char *const[]){ "tail", "--from", n, follow ?
	    "--follow" : NULL, NULL }, (const char *const[]){ id, NULL });
}

void
hostcmd_tail_range(struct strv *s, const char *id, int64_t from,
    int64_t until)
{
	char f[24], u[24];

	snprintf(f, sizeof f, "%lld", (long long)(from < 1 ? 1 : from));
	snprintf(u, sizeof u, "%lld", (long long)(until < 1 ? 1 : until));
	host_argv(s, (const char *const[]){ "tail", "--from", f, "--until", u,
	    NULL }, (const char *const[]){ id, NULL });
}

void
hostcmd_tail_find(struct strv *s, const char *id, const char *text,
    int64_t from, int64_t until, bool last)
{
	const char *w[9];
	char f[24], u[24];
	size_t k = 0;

	snprintf(f, sizeof f, "%lld", (long long)(from < 1 ? 1 : from));
	snprintf(u, sizeof u, "%lld", (long long)until);
	w[k++] = "tail";
	w[k++] = "--find";
	w[k++] = text;
	w[k++] = "--from";
	w[k++] = f;
	if (until > 0) {
		w[k++] = "--until";
		w[k++] = u;
	}
	if (last)
		w[k++] = "--last";
	w[k] = NULL;
	host_argv(s, w, (const char *const[]){ id, NULL });
}

void
hostcmd_kill(struct strv *s, const char *id)
{
	host_argv(s, (const char *const[]){ "kill", NULL },
	    (const char *const[]){ id, NULL });
}

void
hostcmd_jobs(struct strv *s, bool running)
{
	add_words(s, (const char *const[]){ "jobs", "--json", running ?
	    "--running" : NULL, NULL });
}

void
hostcmd_jobs_since(struct strv *s, const char *cursor)
{
	add_words(s, (const char *const[]){ "jobs", "--json", "--since",
	    cursor, NULL });
}

void
hostcmd_check(struct strv *s, const char *ws)
{
	host_argv(s, (const char *const[]){ "check", "--stream", NULL },
	    (const char *const[]){ ws, NULL });
}

void
hostcmd_watch(struct strv *s, const char *ws)
{
	host_argv(s, (const char *const[]){ "watch", NULL },
	    (const char *const[]){ ws, NULL });
}

void
hostcmd_cat(struct strv *s, const char *ws, const char *path, long from,
    long lines)
{
	char f[24], n[24];

	snprintf(f, sizeof f, "%ld", from);
	snprintf(n, sizeof n, "%ld", lines);
	host_argv(s, (const char *const[]){ "cat", "--from", f, "--lines", n,
	    NULL }, (const char *const[]){ ws, path, NULL });
}

void
hostcmd_cat_line_of(struct strv *s, const char *ws, const char *path,
    const char *pointer)
{
	host_argv(s, (const char *const[]){ "cat", "--line-of", pointer,
	    NULL }, (const char *const[]){ ws, path, NULL });
}

void
hostcmd_release(struct strv *s, const char *what, const char *ws)
{
	host_argv(s, (const char *const[]){ "release", what, "--json", NULL },
	    (const char *const[]){ ws, NULL });
}

void
hostcmd_release_apply(struct strv *s, const char *ws, long hold,
    const char *actor)
{
	char n[24];

	snprintf(n, sizeof n, "%ld", hold);
	add_words(s, (const char *const[]){ "release", "apply", "--hold", n,
	    "--json", NULL });
	if (actor != NULL)
		add_words(s, (const char *const[]){ "--actor", actor, NULL });
	host_argv(s, (const char *const[]){ NULL }, (const char *const[]){ ws,
	    NULL });
}

void
hostcmd_report(struct strv *s, const char *ws, bool force)
{
	host_argv(s, (const char *const[]){ "report", "--write", force ?
	    "--force" : NULL, NULL }, (const char *const[]){ ws, NULL });
}

void
hostcmd_version(struct strv *s)
{
	add_words(s, (const char *const[]){ "version", "--json", NULL });
}

void
hostcmd_ls(struct strv *s, const char *ws, const char *path)
{
	host_argv(s, (const char *const[]){ "ls", "--json", NULL },
	    (const char *const[]){ ws, path[0] != '\0' ? path : ".", NULL });
}

void
hostcmd_repro_build(struct strv *s, const char *ws, bool again)
{
	add_words(s, (const char *const[]){ "repro-build", ws, again ?
	    "--again" : NULL, NULL });
	strv_add(s, xstrdup("--"));
}

void
hostcmd_chip_step(struct strv *s, long generation, int chip, const char *ws)
{
	char g[24], c[24];

	snprintf(g, sizeof g, "%ld", generation);
	snprintf(c, sizeof c, "%d", chip);
	host_argv(s, (const char *const[]){ "release", "chip-step",
	    "--generation", g, "--chip", c, NULL }, (const char *const[]){ ws,
	    NULL });
}

/* ---- run, jobs --json ---- */

bool
hostcmd_run_started(const char *line, size_t len, const char *id)
{
	return strlen(id) == len && memcmp(line, id, len) == 0;
}

/* These two read a message meant for a person: neither command says it
 * otherwise (an exit status of its own, a JSON line). */
bool
hostcmd_run_exists(const char *line, size_t len)
{
	return memmem(line, len, "already exists", 14) != NULL;
}

bool
hostcmd_report_exists(const char *line, size_t len)
{
	return memmem(line, len, "is there already", 16) != NULL;
}

/* The JSON document out (len bytes), or NULL with err giving the line and
 * column where it stops being JSON. */
static json_t *
load(const char *out, size_t len, char *err, size_t errlen)
{
	json_error_t je;
	json_t *doc;

	if ((doc = json_loadb(out != NULL ? out : "", len, 0, &je)) == NULL)
		errbuf_set(err, errlen, "not JSON: line %d, column %d: %s",
		    je.line, je.column, je.text);
	return doc;
}

/* Member key of job i, a string (or absent when optional): a copy in
 * *to, NULL when absent; -1 with err when of another type. */
static int
job_str(json_t *o, size_t i, const char *key, bool optional, char **to,
    char *err, size_t errlen)
{
	json_t *m = json_object_get(o, key);

	*to = NULL;
	if (json_is_string(m)) {
		*to = xstrdup(json_string_value(m));
		return 0;
	}
	if (m == NULL && optional)
		return 0;
	errbuf_set(err, errlen, "job %zu: \"%s\" is %s, not a string", i, key,
	    m == NULL ? "missing" : "of another type");
	return -1;
}

/* Member key of job i, an integer or null (or absent): its value, else
 * dflt; -1 with err when of another type or out of an int's range. */
static int
job_int(json_t *o, size_t i, const char *key, int dflt, int *to, char *err,
    size_t errlen)
{
	json_t *m = json_object_get(o, key);

	*to = dflt;
	if (m == NULL || json_is_null(m))
		return 0;
	if (json_is_integer(m) && json_integer_value(m) >= INT_MIN &&
	    json_integer_value(m) <= INT_MAX) {
		*to = (int)json_integer_value(m);
		return 0;
	}
	errbuf_set(err, errlen, "job %zu: \"%s\" is not an integer or null", i,
	    key);
	return -1;
}

/* Job i's argv, an array of strings, when given. */
static int
job_argv(json_t *o, size_t i, struct hostcmd_job *j, char *err,
    size_t errlen)
{
	json_t *argv = json_object_get(o, "argv"), *w;
	size_t k;

	if (argv == NULL)
		return 0;
	if (!json_is_array(argv)) {
		errbuf_set(err, errlen, "job %zu: \"argv\" is not an array", i);
		return -1;
	}
	j->argv = xcalloc(json_array_size(argv) + 1, sizeof *j->argv);
	json_array_foreach(argv, k, w) {
		if (!json_is_string(w)) {
			errbuf_set(err, errlen, "job %zu: \"argv\"[%zu] is "
			    "not a string", i, k);
			return -1;
		}
		j->argv[j->argc++] = xstrdup(json_string_value(w));
	}
	return 0;
}

static void
job_release(struct hostcmd_job *j)
{
	size_t k;

	free(j->id);
	free(j->state);
	for (k = 0; k < j->argc; k++)
		free(j->argv[k]);
	free(j->argv);
	free(j->cwd);
	free(j->reason);
	json_decref(j->record);
}

/* Entry i of the list into j; 0, or -1 with err. */
static int
job_parse(json_t *o, size_t i, struct hostcmd_job *j, char *err,
    size_t errlen)
{
	json_t *m;

	j->record = json_incref(o);
	if (!json_is_object(o)) {
		errbuf_set(err, errlen, "job %zu is not an object", i);
		return -1;
	}
	if (job_str(o, i, "id", false, &j->id, err, errlen) != 0 ||
	    job_str(o, i, "state", false, &j->state, err, errlen) != 0 ||
	    job_str(o, i, "cwd", true, &j->cwd, err, errlen) != 0 ||
	    job_str(o, i, "reason", true, &j->reason, err, errlen) != 0 ||
	    job_argv(o, i, j, err, errlen) != 0 ||
	    job_int(o, i, "exit_code", -1, &j->exit_code, err, errlen) != 0 ||
	    job_int(o, i, "signal", 0, &j->sig, err, errlen) != 0)
		return -1;
	if ((m = json_object_get(o, "age")) != NULL && !json_is_number(m)) {
		errbuf_set(err, errlen, "job %zu: \"age\" is not a number", i);
		return -1;
	}
	j->age = json_number_value(m);
	m = json_object_get(o, "degraded");
	if (m != NULL && !json_is_object(m)) {
		errbuf_set(err, errlen, "job %zu: \"degraded\" is not an "
		    "object", i);
		return -1;
	}
	j->degraded = m != NULL;
	m = json_object_get(o, "last_seq");
	if (m != NULL && hostcmd_job_last_seq(o) == 0) {
		errbuf_set(err, errlen, "job %zu: \"last_seq\" is not an "
		    "integer from 1", i);
		return -1;
	}
	j->last_seq = hostcmd_job_last_seq(o);
	return 0;
}

/* An answer to --since: its cursor and whether it is every job; -1 with
 * err when they are of the wrong type. */
static int
jobs_cursor(json_t *doc, struct hostcmd_jobs *jobs, char *err,
    size_t errlen)
{
	json_t *c = json_object_get(doc, "cursor"),
	    *full = json_object_get(doc, "full");

	if (c == NULL)
		return 0;
	if (!json_is_string(c) || json_string_length(c) == 0 ||
	    json_string_length(c) > HOSTCMD_CURSOR_MAX) {
		errbuf_set(err, errlen, "\"cursor\" is not a string of 1 to "
		    "%d bytes", HOSTCMD_CURSOR_MAX);
		return -1;
	}
	if (full != NULL && !json_is_boolean(full)) {
		errbuf_set(err, errlen, "\"full\" is not true or false");
		return -1;
	}
	jobs->cursor = xstrdup(json_string_value(c));
	jobs->full = json_is_true(full);
	return 0;
}

int64_t
hostcmd_job_last_seq(const json_t *entry)
{
	json_t *m = json_object_get(entry, "last_seq");

	return json_is_integer(m) && json_integer_value(m) >= 1 ?
	    (int64_t)json_integer_value(m) : 0;
}

int
hostcmd_jobs_parse(const char *out, size_t len, struct hostcmd_jobs *jobs,
    char *err, size_t errlen)
{
	json_t *doc, *list, *o;
	const char *schema;
	size_t i;

	memset(jobs, 0, sizeof *jobs);
	if ((doc = load(out, len, err, errlen)) == NULL)
		return -1;
	list = json_object_get(doc, "jobs");
	schema = json_string_value(json_object_get(doc, "schema"));
	if (schema == NULL || strcmp(schema, "calops-jobs/v1") != 0 ||
	    !json_is_array(list)) {
		errbuf_set(err, errlen, "not calops-jobs/v1");
		json_decref(doc);
		return -1;
	}
	if (jobs_cursor(doc, jobs, err, errlen) != 0) {
		json_decref(doc);
		return -1;
	}
	jobs->v = xcalloc(json_array_size(list) + 1, sizeof *jobs->v);
	json_array_foreach(list, i, o) {
		jobs->n++;
		if (job_parse(o, i, &jobs->v[i], err, errlen) != 0) {
			hostcmd_jobs_release(jobs);
			json_decref(doc);
			return -1;
		}
	}
	json_decref(doc);
	return 0;
}

void
hostcmd_jobs_release(struct hostcmd_jobs *jobs)
{
	size_t i;

	for (i = 0; i < jobs->n; i++)
		job_release(&jobs->v[i]);
	free(jobs->v);
	free(jobs->cursor);
	memset(jobs, 0, sizeof *jobs);
}

/* ---- version --json ---- */

int
hostcmd_version_parse(const char *out, size_t len, struct hostcmd_version *v,
    char *err, size_t errlen)
{
	json_t *doc, *ver, *proto;
	int rc = -1;

	memset(v, 0, sizeof *v);
	if ((doc = load(out, len, err, errlen)) == NULL)
		return -1;
	ver = json_object_get(doc, "version");
	proto = json_object_get(doc, "protocol");
	if (!json_is_string(ver))
		errbuf_set(err, errlen, "\"version\" is %s, not a string",
		    ver == NULL ? "missing" : "of another type");
	else if (!json_is_integer(proto))
		errbuf_set(err, errlen, "\"protocol\" is %s, not an integer",
		    proto == NULL ? "missing" : "of another type");
	else {
		snprintf(v->version, sizeof v->version, "%s",
		    json_string_value(ver));
		v->protocol = json_integer_value(proto);
		rc = 0;
	}
	json_decref(doc);
	return rc;
}

/* ---- release ---- */

int
hostcmd_release_parse(const char *out, size_t len, const char *what,
    json_t **doc, char *err, size_t errlen)
{
	const char *schema;
	char want[64];

	snprintf(want, sizeof want, "calops-release-%s/v1", what);
	if ((*doc = load(out, len, err, errlen)) == NULL)
		return -1;
	schema = json_string_value(json_object_get(*doc, "schema"));
	if (json_is_object(*doc) && schema != NULL &&
	    strcmp(schema, want) == 0)
		return 0;
	errbuf_set(err, errlen, "not %s", want);
	json_decref(*doc);
	*doc = NULL;
	return -1;
}

static long long
int_or(const json_t *o, const char *key, long long dflt)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (long long)json_integer_value(v) : dflt;
}

/* String member key of o into buf, or dflt. */
static void
str_or(const json_t *o, const char *key, const char *dflt, char *buf,
    size_t len)
{
	const char *s = json_string_value(json_object_get(o, key));

	snprintf(buf, len, "%s", s != NULL ? s : dflt);
}

static void
apply_held(struct hostcmd_apply *ev, const json_t *o)
{
	const char *head = json_string_value(json_object_get(o,
	    "head_sha256"));
	json_t *keys = json_object_get(o, "trusted_keys");

	ev->current = (long)int_or(o, "current", -1);
	ev->next_seq = int_or(o, "next_seq", 0);
	snprintf(ev->head, sizeof ev->head, "%s", head != NULL &&
	    strlen(head) == 64 ? head : "");
	ev->trusted_keys = json_is_array(keys) ? json_incref(keys) : NULL;
	ev->marks = json_is_true(json_object_get(o, "marks"));
}

int
hostcmd_apply_parse(const char *line, size_t len, struct hostcmd_apply *ev)
{
	const char *type;
	json_t *o;

	memset(ev, 0, sizeof *ev);
	ev->current = -1;
	if ((o = json_loadb(line, len, 0, NULL)) == NULL ||
	    !json_is_object(o)) {
		json_decref(o);
		return -1;
	}
	type = json_string_value(json_object_get(o, "type"));
	if (type == NULL)
		ev->type = HOSTCMD_APPLY_OTHER;
	else if (strcmp(type, "held") == 0) {
		ev->type = HOSTCMD_APPLY_HELD;
		apply_held(ev, o);
	} else if (strcmp(type, "progress") == 0) {
		ev->type = HOSTCMD_APPLY_PROGRESS;
		ev->done = (uint64_t)int_or(o, "done", 0);
		ev->total = (uint64_t)int_or(o, "total", 0);
	} else if (strcmp(type, "verified") == 0) {
		ev->type = HOSTCMD_APPLY_VERIFIED;
		ev->verifies = json_is_true(json_object_get(o, "verifies"));
		ev->bound = json_is_true(json_object_get(o,
		    "bindings_checked"));
		str_or(o, "problem", "", ev->problem, sizeof ev->problem);
		str_or(json_object_get(o, "verdict"), "words", "", ev->words,
		    sizeof ev->words);
	} else if (strcmp(type, "result") == 0) {
		ev->type = HOSTCMD_APPLY_RESULT;
		str_or(o, "result", "error", ev->result, sizeof ev->result);
		str_or(o, "message", "", ev->message, sizeof ev->message);
	}
	json_decref(o);
	return 0;
}

void
hostcmd_apply_release(struct hostcmd_apply *ev)
{
	json_decref(ev->trusted_keys);
	ev->trusted_keys = NULL;
}

/* ---- watch, cat --line-of ---- */

enum hostcmd_watch_event
hostcmd_watch_parse(const char *line, size_t len)
{
	struct event ev;

	if (event_parse(line, len, &ev) != EVENT_OK)
		return HOSTCMD_WATCH_OTHER;
	if (strcmp(ev.type_name, "changed") == 0)
		return HOSTCMD_WATCH_CHANGED;
	if (strcmp(ev.type_name, "watching") == 0)
		return HOSTCMD_WATCH_WATCHING;
	return HOSTCMD_WATCH_OTHER;
}

int
hostcmd_line_of_parse(const char *out, size_t len, long *line, char *err,
    size_t errlen)
{
	char num[24], *end;

	*line = 0;
	if (len == 0 || len >= sizeof num) {
		errbuf_set(err, errlen, "not a line number: %s", len == 0 ?
		    "nothing printed" : "too long");
		return -1;
	}
	memcpy(num, out, len);
	num[len] = '\0';
	errno = 0;
	*line = strtol(num, &end, 10);
	if (end == num || *end != '\0' || errno != 0 || *line < 1 ||
	    num[0] < '0' || num[0] > '9') {
		*line = 0;
		errbuf_set(err, errlen, "not a line number from 1 on");
		return -1;
	}
	return 0;
}

/* ---- a fault result file ---- */

/* Member key of a fault file: a boolean into *to; -1 with err when not. */
static int
fault_bool(json_t *o, const char *key, bool *to, char *err, size_t errlen)
{
	json_t *m = json_object_get(o, key);

	if (!json_is_boolean(m)) {
		errbuf_set(err, errlen, "\"%s\" is %s, not true or false", key,
		    m == NULL ? "missing" : "of another type");
		return -1;
	}
	*to = json_is_true(m);
	return 0;
}

int
hostcmd_fault_parse(const char *out, size_t len, struct hostcmd_fault *f,
    char *err, size_t errlen)
{
	json_t *doc, *sc, *chip, *code, *ms;
	int rc = -1;

	memset(f, 0, sizeof *f);
	if ((doc = load(out, len, err, errlen)) == NULL)
		return -1;
	sc = json_object_get(doc, "scenario");
	chip = json_object_get(doc, "chip");
	code = json_object_get(doc, "error_code");
	ms = json_object_get(doc, "recover_ms");
	if (!json_is_object(doc))
		errbuf_set(err, errlen, "not a JSON object");
	else if (!json_is_string(sc))
		errbuf_set(err, errlen, "\"scenario\" is %s, not a string",
		    sc == NULL ? "missing" : "of another type");
	else if (!json_is_integer(chip) || json_integer_value(chip) < 0 ||
	    json_integer_value(chip) > INT_MAX)
		errbuf_set(err, errlen, "\"chip\" is %s, not a chip number",
		    chip == NULL ? "missing" : "wrong");
	else if (fault_bool(doc, "structured_error", &f->structured, err,
	    errlen) == 0 && fault_bool(doc, "aborted", &f->aborted, err,
	    errlen) == 0 && fault_bool(doc, "recovered", &f->recovered, err,
	    errlen) == 0) {
		if (code != NULL && !json_is_string(code) &&
		    !json_is_null(code))
			errbuf_set(err, errlen, "\"error_code\" is of another "
			    "type, not a string");
		else if (ms != NULL && !json_is_number(ms) && !json_is_null(ms))
			errbuf_set(err, errlen, "\"recover_ms\" is of another "
			    "type, not a number");
		else {
			snprintf(f->scenario, sizeof f->scenario, "%s",
			    json_string_value(sc));
			f->chip = (int)json_integer_value(chip);
			snprintf(f->error_code, sizeof f->error_code, "%s",
			    json_is_string(code) ? json_string_value(code) :
			    "");
			f->recover_ms = json_is_number(ms) ?
			    json_number_value(ms) : NAN;
			rc = 0;
		}
	}
	json_decref(doc);
	return rc;
}

/* ---- ls --json ---- */

static const char *const ls_types[] = {
	[HOSTCMD_LS_FILE] = "file", [HOSTCMD_LS_FOLDER] = "folder",
	[HOSTCMD_LS_LINK] = "link", [HOSTCMD_LS_OTHER] = "other",
};

const char *
hostcmd_ls_type_name(enum hostcmd_ls_type t)
{
	return (size_t)t < nitems(ls_types) ? ls_types[t] : "other";
}

/* A type's word into *t; -1 when m is not one. */
static int
ls_type(const json_t *m, enum hostcmd_ls_type *t)
{
	size_t i;

	for (i = 0; json_is_string(m) && i < nitems(ls_types); i++)
		if (strcmp(json_string_value(m), ls_types[i]) == 0) {
			*t = (enum hostcmd_ls_type)i;
			return 0;
		}
	return -1;
}

/* Member key of entry i: an integer from 0 on into *to. */
static int
ls_count(json_t *o, size_t i, const char *key, long long *to, char *err,
    size_t errlen)
{
	json_t *m = json_object_get(o, key);

	if (!json_is_integer(m) || json_integer_value(m) < 0) {
		errbuf_set(err, errlen, "entry %zu: \"%s\" is %s, not an "
		    "integer from 0", i, key, m == NULL ? "missing" : "wrong");
		return -1;
	}
	*to = (long long)json_integer_value(m);
	return 0;
}

/* Whether a name is one component, as a folder's entry is. */
static bool
ls_name_ok(const char *name)
{
	return name[0] != '\0' && strcmp(name, ".") != 0 &&
	    strcmp(name, "..") != 0 && strchr(name, '/') == NULL;
}

/* Entry i of the list into e; 0, or -1 with err. */
static int
ls_entry(json_t *o, size_t i, struct hostcmd_ls_entry *e, char *err,
    size_t errlen)
{
	json_t *name = json_object_get(o, "name");
	json_t *opaque = json_object_get(o, "opaque");

	if (!json_is_object(o)) {
		errbuf_set(err, errlen, "entry %zu is not an object", i);
		return -1;
	}
	if (!json_is_string(name) || !ls_name_ok(json_string_value(name))) {
		errbuf_set(err, errlen, "entry %zu: \"name\" is %s", i,
		    name == NULL ? "missing" : !json_is_string(name) ?
		    "not a string" : "not one name in the folder");
		return -1;
	}
	if (ls_type(json_object_get(o, "type"), &e->type) != 0) {
		errbuf_set(err, errlen, "entry %zu: \"type\" is not file, "
		    "folder, link or other", i);
		return -1;
	}
	if (opaque != NULL && !json_is_boolean(opaque)) {
		errbuf_set(err, errlen, "entry %zu: \"opaque\" is not true "
		    "or false", i);
		return -1;
	}
	if (ls_count(o, i, "size", &e->size, err, errlen) != 0 ||
	    ls_count(o, i, "mtime", &e->mtime, err, errlen) != 0)
		return -1;
	e->opaque = json_is_true(opaque);
	e->name = xstrdup(json_string_value(name));
	return 0;
}

/* The document's own members: its path, what it is, how many more. */
static int
ls_head(json_t *doc, struct hostcmd_ls *ls, char *err, size_t errlen)
{
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	json_t *path = json_object_get(doc, "path");
	json_t *more = json_object_get(doc, "more");

	if (!json_is_object(doc) || schema == NULL ||
	    strcmp(schema, "calops-ls/v1") != 0) {
		errbuf_set(err, errlen, "not calops-ls/v1");
		return -1;
	}
	if (!json_is_string(path)) {
		errbuf_set(err, errlen, "\"path\" is %s, not a string",
		    path == NULL ? "missing" : "of another type");
		return -1;
	}
	if (ls_type(json_object_get(doc, "type"), &ls->type) != 0) {
		errbuf_set(err, errlen, "\"type\" is not file, folder, link "
		    "or other");
		return -1;
	}
	if (more != NULL && (!json_is_integer(more) ||
	    json_integer_value(more) < 0)) {
		errbuf_set(err, errlen, "\"more\" is not an integer from 0");
		return -1;
	}
	ls->more = more != NULL ? (long long)json_integer_value(more) : 0;
	ls->path = xstrdup(json_string_value(path));
	return 0;
}

int
hostcmd_ls_parse(const char *out, size_t len, struct hostcmd_ls *ls,
    char *err, size_t errlen)
{
	json_t *doc, *list, *o;
	size_t i;
	int rc = -1;

	memset(ls, 0, sizeof *ls);
	if ((doc = load(out, len, err, errlen)) == NULL)
		return -1;
	list = json_object_get(doc, "entries");
	if (ls_head(doc, ls, err, errlen) != 0)
		goto out;
	if (list != NULL && !json_is_array(list)) {
		errbuf_set(err, errlen, "\"entries\" is not an array");
		goto out;
	}
	if (json_array_size(list) > HOSTCMD_LS_MAX) {
		errbuf_set(err, errlen, "%zu entries: more than the %d a "
		    "listing holds", json_array_size(list), HOSTCMD_LS_MAX);
		goto out;
	}
	ls->v = xcalloc(json_array_size(list) + 1, sizeof *ls->v);
	json_array_foreach(list, i, o) {
		if (ls_entry(o, i, &ls->v[i], err, errlen) != 0)
			goto out;
		ls->n++;
	}
	rc = 0;
out:
	if (rc != 0)
		hostcmd_ls_release(ls);
	json_decref(doc);
	return rc;
}

void
hostcmd_ls_release(struct hostcmd_ls *ls)
{
	size_t i;

	for (i = 0; i < ls->n; i++)
		free(ls->v[i].name);
	free(ls->v);
	free(ls->path);
	memset(ls, 0, sizeof *ls);
}
