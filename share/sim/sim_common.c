/* sim_common.c: events, clock, random streams and files for calrt-sim. */
#include "calops.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/sha.h>

#include "base/doc.h"
#include "base/fileio.h"
#include "sim_common.h"
#include "ws/hashtree.h"
#include "ws/workspace.h"

/* Events and artifacts print reals with 15 digits: enough for a Unix time
 * in milliseconds, and 266.1 stays "266.1". */
#define JSON_FLAGS (JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

volatile sig_atomic_t sim_stopping;

/* ---- random streams ---- */

/* Each purpose gets its own stream: the label is folded into the seed. */
void
rng_init(struct rng *r, uint64_t seed, const char *label)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */

	for (; *label != '\0'; label++)
		h = (h ^ (unsigned char)*label) * 0x100000001b3ULL;
	r->s = seed ^ h;
	(void)rng_u64(r);
}

uint64_t
rng_u64(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double
rng_uniform(struct rng *r)
{
	return ((double)(rng_u64(r) >> 11) + 1.0) / 9007199254740992.0;
}

/* Box-Muller: always two draws, so streams stay aligned. */
double
rng_gauss(struct rng *r)
{
	double u = rng_uniform(r), v = rng_uniform(r);

	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

double
rng_exp(struct rng *r)
{
	return -log(rng_uniform(r));
}

/* ---- events ---- */

/* A JSON string even for bytes that are not UTF-8 (they become '?'). */
static json_t *
jstr(const char *s)
{
	json_t *j = json_string(s);
	char *copy;
	size_t i;

	if (j != NULL)
		return j;
	copy = xstrdup(s);
	for (i = 0; copy[i] != '\0'; i++)
		if ((unsigned char)copy[i] >= 0x80)
			copy[i] = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

static void
say_hello(struct sim *s)
{
	const char *job = getenv("CALOPS_JOB");
	char host[256] = "";
	json_t *ev, *argv;
	int i;

	s->said_hello = true;
	ev = sim_event(s, "hello");
	gethostname(host, sizeof host - 1);
	argv = json_array();
	for (i = 0; i < s->argc; i++)
		json_array_append_new(argv, jstr(s->argv[i]));
	json_object_set_new(ev, "tool", json_string(SIM_TOOL));
	json_object_set_new(ev, "version", json_string(CALOPS_VERSION));
	json_object_set_new(ev, "host", jstr(host));
	json_object_set_new(ev, "job", jstr(job != NULL ? job : ""));
	json_object_set_new(ev, "argv", argv);
	sim_emit(s, ev);
}

json_t *
sim_event(struct sim *s, const char *type)
{
	json_t *ev;

	if (!s->said_hello && strcmp(type, "hello") != 0)
		say_hello(s);
	ev = json_object();
	json_object_set_new(ev, "v", json_integer(1));
	json_object_set_new(ev, "seq", json_integer((json_int_t)++s->seq));
	json_object_set_new(ev, "ts", json_real(round(s->now * 1000.0) / 1000.0));
	json_object_set_new(ev, "type", json_string(type));
	return ev;
}

void
sim_emit(struct sim *s, json_t *ev)
{
	char *line = json_dumps(ev, JSON_COMPACT | JSON_FLAGS);

	json_decref(ev);
	if (line == NULL)
		fatal("cannot format an event");
	/* A reader that went away must not stop the run or its artifacts. */
	fputs(line, stdout);
	fputc('\n', stdout);
	if (s->tee != NULL && !s->tee_failed) {
		fputs(line, s->tee);
		if (fputc('\n', s->tee) == EOF)
			s->tee_failed = true;
	}
	free(line);
}

void
sim_log(struct sim *s, const char *level, const char *fmt, ...)
{
	va_list ap;
	json_t *ev;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (s->plain) {
		/* A tool's log, as its own tool would write it. */
		if (strcmp(level, "info") == 0)
			printf("%s\n", msg);
		else
			printf("[%s] %s\n", level, msg);
		free(msg);
		return;
	}
	ev = sim_event(s, "log");
	json_object_set_new(ev, "level", json_string(level));
	json_object_set_new(ev, "msg", jstr(msg));
	free(msg);
	sim_emit(s, ev);
}

/* A number as an integer when it is one, so counts print as counts. */
static json_t *
jnum(double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		return json_integer((json_int_t)v);
	return json_real(v);
}

void
sim_progress(struct sim *s, const char *phase, double done, double total,
    const char *unit)
{
	json_t *ev = sim_event(s, "progress");

	json_object_set_new(ev, "phase", json_string(phase));
	json_object_set_new(ev, "done", jnum(done));
	json_object_set_new(ev, "total", jnum(total));
	json_object_set_new(ev, "unit", json_string(unit));
	sim_emit(s, ev);
}

int
sim_result(struct sim *s, const char *status, json_t *summary,
    json_t *artifacts)
{
	json_t *ev = sim_event(s, "result");

	json_object_set_new(ev, "status", json_string(status));
	json_object_set_new(ev, "summary", summary != NULL ? summary :
	    json_object());
	json_object_set_new(ev, "artifacts", artifacts != NULL ? artifacts :
	    json_array());
	sim_emit(s, ev);
	fflush(stdout);
	if (strcmp(status, "pass") == 0)
		return 0;
	return strcmp(status, "fail") == 0 ? 1 : 2;
}

int
sim_fail(struct sim *s, const char *fmt, ...)
{
	json_t *summary = json_object();
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (s->plain) {
		fflush(stdout);
		fprintf(stderr, "%s %s: %s\n", SIM_TOOL, s->cmd, msg);
		free(msg);
		json_decref(summary);
		return 2;
	}
	sim_log(s, "error", "%s", msg);
	json_object_set_new(summary, "error", jstr(msg));
	free(msg);
	return sim_result(s, "error", summary, NULL);
}

/* ---- the clock ---- */

static void
on_signal(int sig)
{
	(void)sig;
	sim_stopping = 1;
}

void
sim_clock_start(struct sim *s, double t0)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	/* no SA_RESTART: a sleep ends at once */
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	s->t0 = s->now = t0;
	clock_gettime(CLOCK_MONOTONIC, &s->real0);
}

/* Sleeps toward an absolute deadline, so oversleeping never accumulates. */
bool
sim_wait_until(struct sim *s, double ts)
{
	struct timespec now, nap;
	double left;
	bool flushed = false;

	if (ts > s->now)
		s->now = ts;
	if (s->o.time_scale <= 0)
		return !sim_stopping;
	while (!sim_stopping) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (s->now - s->t0) / s->o.time_scale -
		    ((double)(now.tv_sec - s->real0.tv_sec) +
		    (double)(now.tv_nsec - s->real0.tv_nsec) / 1e9);
		if (left <= 0)
			break;
		if (!flushed) {
			fflush(stdout);
			flushed = true;
		}
		left = fmin(left, 0.25);
		nap.tv_sec = (time_t)left;
		nap.tv_nsec = (long)((left - (double)nap.tv_sec) * 1e9);
		nanosleep(&nap, NULL);
	}
	return !sim_stopping;
}

bool
sim_advance_ms(struct sim *s, double ms)
{
	return sim_wait_until(s, s->now + ms / 1000.0);
}

void
sim_iso(double ts, char *buf, size_t len)
{
	time_t t = (time_t)floor(ts);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- the workspace ---- */

static bool
is_file(const char *dir, const char *rel)
{
	char *p = xasprintf("%s/%s", dir, rel);
	struct stat st;
	bool ok = stat(p, &st) == 0 && S_ISREG(st.st_mode);

	free(p);
	return ok;
}

/* The workspace holding a package: <ws>/05-calbin/package by name, else
 * the nearest ancestor with a G0 manifest.  NULL when there is none. */
static char *
find_root(const char *calbin)
{
	static const char tail[] = "/05-calbin/package";
	size_t n = strlen(calbin), k = strlen(tail);
	char *dir, *slash;

	if (n > k && strcmp(calbin + n - k, tail) == 0)
		return xstrndup(calbin, n - k);
	dir = xstrdup(calbin);
	for (;;) {
		if (is_file(dir, SOURCE_MANIFEST))
			return dir;
		if ((slash = strrchr(dir, '/')) == NULL || slash == dir)
			break;
		*slash = '\0';
	}
	free(dir);
	return NULL;
}

static char *
real_dir(const char *path, const char *what, char *err, size_t len)
{
	struct stat st;
	char *real;

	if ((real = realpath(path, NULL)) == NULL || stat(real, &st) == -1) {
		errbuf_set(err, len, "cannot open %s '%s': %s", what, path,
		    strerror(errno));
		free(real);
		return NULL;
	}
	if (!S_ISDIR(st.st_mode)) {
		errbuf_set(err, len, "%s '%s' is not a directory", what, path);
		free(real);
		return NULL;
	}
	return real;
}

/* The G0 facts the simulator sizes its work by; absent ones stay unset. */
static void
read_source(struct sim *s, const json_t *root)
{
	json_t *ctx, *sla, *v, *tt, *tp, *ok;
	size_t i;

	if (json_is_string(v = json_object_get(root, "model_id")))
		s->model_id = xstrdup(json_string_value(v));
	ctx = json_object_get(json_object_get(root, "targets"), "context");
	json_array_foreach(ctx, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < 2)
			continue;
		if (!s->have_context || json_integer_value(v) > s->max_context)
			s->max_context = json_integer_value(v);
		s->have_context = true;
	}
	sla = json_object_get(json_object_get(root, "targets"), "sla");
	tt = json_object_get(sla, "ttft_ms_p99");
	tp = json_object_get(sla, "tpot_ms_p99");
	ok = json_object_get(sla, "success_rate_min");
	if (json_is_number(tt) && json_is_number(tp) && json_is_number(ok)) {
		s->have_sla = true;
		s->sla_ttft = json_number_value(tt);
		s->sla_tpot = json_number_value(tp);
		s->sla_ok = json_number_value(ok);
		s->sla = json_pack("{sOsOsO}", "ttft_ms_p99", tt, "tpot_ms_p99",
		    tp, "success_rate_min", ok);
	}
}

/* Read the G0 manifest when there is one, kept whole for the commands
 * that need more of it; a broken one is only noted. */
static void
load_source(struct sim *s)
{
	struct doc d;

	if (sim_ws_doc(s, SOURCE_MANIFEST, false, &d, s->source_msg,
	    sizeof s->source_msg) == -1)
		return;
	read_source(s, d.root);
	s->source = json_incref(d.root);
	doc_release(&d);
}

int
sim_locate(struct sim *s, char *err, size_t len)
{
	if (s->o.calbin != NULL &&
	    (s->calbin = real_dir(s->o.calbin, "calbin", err, len)) == NULL)
		return -1;
	if (s->o.workspace != NULL) {
		if ((s->ws = real_dir(s->o.workspace, "workspace", err, len)) ==
		    NULL)
			return -1;
	} else if (s->calbin != NULL) {
		if ((s->ws = find_root(s->calbin)) == NULL) {
			errbuf_set(err, len, "cannot tell the workspace of calbin "
			    "'%s' (not <ws>/05-calbin/package, no %s above it): "
			    "give --workspace", s->o.calbin, SOURCE_MANIFEST);
			return -1;
		}
	} else {
		errbuf_set(err, len, "give --calbin DIR or --workspace WS");
		return -1;
	}
	if (s->calbin == NULL)
		s->calbin = xasprintf("%s/05-calbin/package", s->ws);
	load_source(s);
	return 0;
}

int
sim_tree_hash(struct sim *s, struct tree *t, char *err, size_t len)
{
	struct hasher_opts ho = { .use_cache = !s->o.no_cache };
	struct hasher *h = hash_new(&ho);
	int rc;

	if ((rc = hashtree_hash(h, s->calbin, s->ws, t)) == -1)
		errbuf_set(err, len, "cannot hash calbin '%s': %s", s->calbin,
		    t->err);
	hash_free(h);
	return rc;
}

char *
sim_relpath(const struct sim *s, const char *path)
{
	size_t n = strlen(s->ws);
	char cwd[PATH_MAX];

	if (path[0] != '/' && getcwd(cwd, sizeof cwd) != NULL) {
		char *abs = xasprintf("%s/%s", cwd, path), *rel;

		rel = sim_relpath(s, abs);
		free(abs);
		return rel;
	}
	if (strncmp(path, s->ws, n) == 0 && path[n] == '/')
		return xstrdup(path + n + 1);
	return xstrdup(path);
}

/* ---- files ---- */

/* Parse a document read from name, the error as "cannot parse 'name' at
 * line:col: why". */
static int
parse_doc(const char *name, const char *data, size_t size, bool yaml,
    struct doc *d, char *err, size_t len)
{
	struct doc_error de;
	int rc;

	rc = yaml ? doc_parse_yaml(d, data, size, &de) :
	    doc_parse_json(d, data, size, &de);
	if (rc == -1)
		errbuf_set(err, len, "cannot parse '%s' at %s: %s", name,
		    de.where, de.msg);
	return rc;
}

void
sim_fake_bytes(const char *label, unsigned char *out, size_t n)
{
	unsigned char block[SHA256_DIGEST_LENGTH];
	uint64_t i;
	size_t k, take;
	char *base = xasprintf("calops-example-bytes/%s", label);
	size_t blen = strlen(base);
	unsigned char *msg = xmalloc(blen + 8);

	memcpy(msg, base, blen);
	for (i = 0, k = 0; k < n; i++, k += take) {
		for (take = 0; take < 8; take++)	/* little-endian */
			msg[blen + take] = (unsigned char)(i >> (8 * take));
		SHA256(msg, blen + 8, block);
		take = n - k < sizeof block ? n - k : sizeof block;
		memcpy(out + k, block, take);
	}
	free(msg);
	free(base);
}

int
sim_ws_read(const struct sim *s, const char *rel, size_t max, char **data,
    size_t *size, char *err, size_t len)
{
	struct workspace ws;
	enum ws_status st;

	if (workspace_open(&ws, s->ws, err, len) == -1)
		return -1;
	st = workspace_read(&ws, rel, max, data, size, err, len);
	workspace_close(&ws);
	return st == WS_OK ? 0 : -1;
}

int
sim_ws_doc(const struct sim *s, const char *rel, bool yaml, struct doc *d,
    char *err, size_t len)
{
	size_t size;
	char *data;
	int rc;

	if (sim_ws_read(s, rel, DOC_MAX_BYTES, &data, &size, err, len) == -1)
		return -1;
	rc = parse_doc(rel, data, size, yaml, d, err, len);
	free(data);
	return rc;
}

int
sim_ws_jsonl(const struct sim *s, const char *rel,
    int (*each)(void *arg, json_t *line, size_t lineno), void *arg,
    char *err, size_t len)
{
	char *data, *p, *nl;
	json_error_t je;
	size_t size, lineno = 0;
	json_t *v;
	int rc = 0;

	if (sim_ws_read(s, rel, SIM_JSONL_MAX, &data, &size, err, len) == -1)
		return -1;
	for (p = data; rc == 0 && p < data + size; p = nl + 1) {
		lineno++;
		if ((nl = memchr(p, '\n', (size_t)(data + size - p))) == NULL)
			nl = data + size;
		if (strspn(p, " \t\r") >= (size_t)(nl - p))
			continue;
		if ((v = json_loadb(p, (size_t)(nl - p), JSON_DECODE_ANY,
		    &je)) == NULL) {
			errbuf_set(err, len, "%s:%zu:%d: %s", rel, lineno,
			    je.column, je.text);
			rc = -1;
		} else if (!json_is_object(v)) {
			errbuf_set(err, len, "%s:%zu: not a JSON object", rel,
			    lineno);
			rc = -1;
		} else if ((rc = each(arg, v, lineno)) == -1)
			errbuf_set(err, len, "%s:%zu: %s", rel, lineno,
			    json_string_value(json_object_get(v, "_error")));
		json_decref(v);
	}
	free(data);
	return rc;
}

int
sim_ws_sha256(const struct sim *s, const char *rel, char hex[HASH_HEX_LEN + 1],
    char *err, size_t len)
{
	struct hasher_opts ho = { .use_cache = !s->o.no_cache };
	struct hash_result r;
	struct workspace ws;
	struct stat st;
	struct hasher *h;
	char *abs;
	int rc;

	if (workspace_open(&ws, s->ws, err, len) == -1)
		return -1;
	if (workspace_locate(&ws, rel, &st, err, len) != WS_OK) {
		workspace_close(&ws);
		return -1;
	}
	abs = workspace_abs(&ws, rel);
	workspace_close(&ws);
	h = hash_new(&ho);
	if ((rc = hash_file(h, abs, &r)) == -1)
		errbuf_set(err, len, "cannot hash '%s': %s", rel,
		    strerror(r.err));
	else
		memcpy(hex, r.hex, HASH_HEX_LEN + 1);
	hash_free(h);
	free(abs);
	return rc;
}

int
sim_mkdirs(const char *dir, char *err, size_t len)
{
	char *p = xstrdup(dir), *q, c;
	int rc = 0;

	for (q = p + 1; rc == 0; q++) {
		if (*q != '/' && *q != '\0')
			continue;
		c = *q;
		*q = '\0';
		if (mkdir(p, 0777) == -1 && errno != EEXIST) {
			errbuf_set(err, len, "cannot create '%s': %s", p,
			    strerror(errno));
			rc = -1;
		}
		*q = c;
		if (c == '\0')
			break;
	}
	free(p);
	return rc;
}

int
sim_mkparent(const char *path, char *err, size_t len)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int rc;

	if (slash == NULL || slash == path)
		return 0;
	dir = xstrndup(path, (size_t)(slash - path));
	rc = sim_mkdirs(dir, err, len);
	free(dir);
	return rc;
}

int
sim_read_doc(const char *path, bool yaml, struct doc *d, char *err,
    size_t len)
{
	size_t size, cap = 1u << 20;
	char *data;
	FILE *f;
	int rc;

	if ((f = fopen(path, "r")) == NULL) {
		errbuf_set(err, len, "cannot open '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	data = xmalloc(cap + 1);
	size = fread(data, 1, cap + 1, f);
	rc = ferror(f) ? -1 : 0;
	fclose(f);
	if (rc == -1 || size > cap) {
		errbuf_set(err, len, rc == -1 ? "cannot read '%s'" :
		    "'%s' is larger than 1 MiB", path);
		free(data);
		return -1;
	}
	rc = parse_doc(path, data, size, yaml, d, err, len);
	free(data);
	return rc;
}


int
sim_write_json(const char *path, json_t *o, char *err, size_t len)
{
	char *text = json_dumps(o, JSON_INDENT(2) | JSON_FLAGS), *data;
	int rc;

	if (text == NULL)
		fatal("cannot format '%s'", path);
	data = xasprintf("%s\n", text);
	free(text);
	/* Artifacts are for the whole team to read: 0644, not private. */
	rc = fileio_replace(path, data, strlen(data), 0644, true, err, len);
	free(data);
	return rc;
}

/* Keep the file at path, if any, as history/<stem>.<mtime>.json beside it:
 * a hard link, so its bytes stay exactly what they were. */
static int
keep_history(const char *path, char *err, size_t len)
{
	const char *base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 :
	    path;
	size_t stem = strlen(base) > 5 && strcmp(base + strlen(base) - 5,
	    ".json") == 0 ? strlen(base) - 5 : strlen(base);
	char *dir, *kept, stamp[32];
	struct stat st;
	struct tm tm;
	time_t t;
	int rc = 0;

	if (lstat(path, &st) == -1 || !S_ISREG(st.st_mode))
		return 0;	/* nothing (or nothing of ours) to keep */
	t = st.st_mtim.tv_sec;
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", &tm);
	dir = xasprintf("%.*shistory", (int)(base - path), path);
	kept = xasprintf("%s/%.*s.%s.%09ldZ.json", dir, (int)stem, base, stamp,
	    (long)st.st_mtim.tv_nsec);
	if (mkdir(dir, 0777) == -1 && errno != EEXIST) {
		errbuf_set(err, len, "cannot make '%s': %s", dir,
		    strerror(errno));
		rc = -1;
	} else if (link(path, kept) == -1 && errno != EEXIST) {
		errbuf_set(err, len, "cannot keep '%s' as '%s': %s", path, kept,
		    strerror(errno));
		rc = -1;
	}
	free(dir);
	free(kept);
	return rc;
}

int
sim_write_evidence(const char *path, json_t *o, char *err, size_t len)
{
	if (keep_history(path, err, len) == -1)
		return -1;
	return sim_write_json(path, o, err, len);
}

int
sim_rm_flat(const char *dir, char *err, size_t len)
{
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if ((d = opendir(dir)) == NULL) {
		if (errno == ENOENT)
			return 0;
		errbuf_set(err, len, "cannot open '%s': %s", dir,
		    strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == -1) {
			errbuf_set(err, len, "cannot remove '%s/%s': %s", dir,
			    de->d_name, strerror(errno));
			rc = -1;
		}
	}
	closedir(d);
	if (rc == 0 && rmdir(dir) == -1) {
		errbuf_set(err, len, "cannot remove '%s': %s", dir,
		    strerror(errno));
		rc = -1;
	}
	return rc;
}

void
sim_release(struct sim *s)
{
	if (s->tee != NULL)
		fclose(s->tee);
	free(s->ws);
	free(s->calbin);
	free(s->model_id);
	json_decref(s->sla);
	json_decref(s->source);
	memset(s, 0, sizeof *s);
}
