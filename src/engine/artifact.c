/* artifact.c: loading a gate's artifacts once per evaluation, path-safely. */
#include "calops.h"

#include <sys/stat.h>

#include <unistd.h>

#include "base/lines.h"
#include "base/text.h"
#include "engine/artifact.h"
#include "engine/gate.h"
#include "ws/hashtree.h"

static char *
gate_check_id(const struct gate_result *gr, const char *name)
{
	return xasprintf("%s.%s", gr->def->id, name);
}

/* Report a path or parse problem as G<n>.path or G<n>.parse. */
static void
report_broken(struct gate_result *gr, const struct artifact *a)
{
	char *check;

	check = gate_check_id(gr, a->status == WS_OUTSIDE ? "path" : "parse");
	gate_add(gr, SEV_ERROR, check, a->rel, a->where, "%s", a->msg);
	free(check);
}

static bool
has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

static struct artifact *
find_artifact(struct eval *ev, const char *rel)
{
	size_t i;

	for (i = 0; i < ev->nartifacts; i++)
		if (strcmp(ev->artifacts[i]->rel, rel) == 0)
			return ev->artifacts[i];
	return NULL;
}

struct artifact *
artifact_eval(struct eval *ev, const char *rel, bool parse)
{
	struct artifact *a = find_artifact(ev, rel);
	struct doc_error de = { "", "" };
	int rc;

	if (a != NULL)
		return a;
	ev->artifacts = xreallocarray(ev->artifacts, ev->nartifacts + 1,
	    sizeof *ev->artifacts);
	a = xcalloc(1, sizeof *a);
	ev->artifacts[ev->nartifacts++] = a;
	a->rel = xstrdup(rel);
	a->status = workspace_read(&ev->ws, rel, DOC_MAX_BYTES, &a->data,
	    &a->size, a->msg, sizeof a->msg);
	if (a->status == WS_OK)
		hash_bytes(a->data, a->size, a->hex);
	if (a->status != WS_OK || !parse)
		return a;
	if (has_suffix(rel, ".yaml") || has_suffix(rel, ".yml"))
		rc = doc_parse_yaml(&a->doc, a->data, a->size, &de);
	else
		rc = doc_parse_json(&a->doc, a->data, a->size, &de);
	if (rc == 0)
		a->parsed = true;
	else {
		snprintf(a->msg, sizeof a->msg, "cannot parse '%s': %s", rel,
		    de.msg);
		snprintf(a->where, sizeof a->where, "%s", de.where);
	}
	return a;
}

void
artifact_note_input(struct gate_result *gr, const char *rel, const char *hex)
{
	struct gate_input *in;
	struct stat st;
	char msg[320];
	size_t i;

	for (i = 0; i < gr->ninputs; i++)
		if (strcmp(gr->inputs[i].rel, rel) == 0)
			return;
	gr->inputs = xreallocarray(gr->inputs, gr->ninputs + 1,
	    sizeof *gr->inputs);
	in = &gr->inputs[gr->ninputs++];
	memset(in, 0, sizeof *in);
	in->rel = xstrdup(rel);
	in->present = workspace_locate(
			  &gr->ev->ws, rel, &st, msg, sizeof msg) == WS_OK;
	if (in->present) {
		in->size = (uint64_t)st.st_size;
		in->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
		    st.st_mtim.tv_nsec;
	}
	if (in->present && hex != NULL)
		snprintf(in->hex, sizeof in->hex, "%s", hex);
}

const struct artifact *
artifact_doc(struct gate_result *gr, const char *rel)
{
	struct artifact *a = artifact_eval(gr->ev, rel, true);

	artifact_note_input(gr, rel, a->hex);
	if (a->status == WS_ABSENT)
		return NULL;
	if (a->status != WS_OK || !a->parsed) {
		report_broken(gr, a);
		return NULL;
	}
	return a;
}

const struct artifact *
artifact_raw(struct gate_result *gr, const char *rel)
{
	struct artifact *a = artifact_eval(gr->ev, rel, false);

	artifact_note_input(gr, rel, a->hex);
	if (a->status == WS_ABSENT)
		return NULL;
	if (a->status != WS_OK) {
		report_broken(gr, a);
		return NULL;
	}
	return a;
}

/* A needed artifact that is absent is a finding; a broken one was already
 * reported by the loader. */
static const struct artifact *
needed(struct gate_result *gr, const struct artifact *a, const char *rel,
    const char *check, enum severity sev, const char *fmt, va_list ap)
{
	if (a == NULL &&
	    artifact_eval(gr->ev, rel, false)->status == WS_ABSENT) {
		char *msg = xvasprintf(fmt, ap);

		gate_add(gr, sev, check, rel, "", "%s", msg);
		free(msg);
	}
	return a;
}

const struct artifact *
artifact_doc_needed(struct gate_result *gr, const char *rel, const char *check,
    enum severity sev, const char *fmt, ...)
{
	const struct artifact *a = artifact_doc(gr, rel);
	va_list ap;

	va_start(ap, fmt);
	a = needed(gr, a, rel, check, sev, fmt, ap);
	va_end(ap);
	return a;
}

const struct artifact *
artifact_raw_needed(struct gate_result *gr, const char *rel, const char *check,
    enum severity sev, const char *fmt, ...)
{
	const struct artifact *a = artifact_raw(gr, rel);
	va_list ap;

	va_start(ap, fmt);
	a = needed(gr, a, rel, check, sev, fmt, ap);
	va_end(ap);
	return a;
}

const struct artifact *
artifact_input(struct gate_result *gr, const char *rel, const char *check)
{
	struct artifact *a = artifact_eval(gr->ev, rel, true);

	artifact_note_input(gr, rel, a->hex);
	if (a->status == WS_OK && a->parsed)
		return a;
	gate_skip(gr, check, rel, "",
	    "check skipped: its input '%s' is %s", rel,
	    a->status == WS_ABSENT ? "missing" : "unreadable");
	return NULL;
}

bool
artifact_exists(struct gate_result *gr, const char *rel, struct stat *st)
{
	struct stat sb;
	char msg[320], *check;
	enum ws_status s;

	s = workspace_locate(
	    &gr->ev->ws, rel, st != NULL ? st : &sb, msg, sizeof msg);
	if (s == WS_OUTSIDE) {
		check = gate_check_id(gr, "path");
		gate_add(gr, SEV_ERROR, check, rel, "", "%s", msg);
		free(check);
	}
	return s == WS_OK;
}

int
artifact_join(struct gate_result *gr, const char *from, const char *where,
    const char *ref, char **rel)
{
	char msg[320], *check;
	int rc;

	rc = workspace_join(&gr->ev->ws, from, ref, rel, msg, sizeof msg);
	if (rc == -1) {
		check = gate_check_id(gr, "path");
		gate_add(gr, SEV_ERROR, check, from, where, "%s", msg);
		free(check);
	}
	return rc;
}

int
artifact_hash(struct gate_result *gr, const char *rel,
    char hex[HASH_HEX_LEN + 1], char *err, size_t errlen)
{
	struct hash_result res;
	struct stat st;
	enum ws_status s;

	hex[0] = '\0';
	s = workspace_locate(&gr->ev->ws, rel, &st, err, errlen);
	if (s == WS_OK && !S_ISREG(st.st_mode)) {
		errbuf_set(err, errlen, "'%s' is not a regular file", rel);
		return -1;
	}
	if (s != WS_OK)
		return -1;
	/* What is hashed, and asked of the cache, is the file opened beneath
	 * the workspace, not where the path located above leads now. */
	if (hash_ws_files(gr->ev->hasher, &gr->ev->ws, 1, &rel, &res) != 0) {
		errbuf_set(err, errlen, "cannot read '%s': %s", rel,
		    res.err == EXDEV ? "it changed while it was opened" :
		    strerror(res.err));
		return -1;
	}
	memcpy(hex, res.hex, sizeof res.hex);
	artifact_note_input(gr, rel, hex);
	return 0;
}

const struct tree *
artifact_tree(struct gate_result *gr, const char *rel, char *err, size_t errlen)
{
	struct eval *ev = gr->ev;
	struct tree *t;
	struct stat st;
	size_t i;
	char *abs;
	int fd;

	for (i = 0; i < ev->ntrees; i++)
		if (strcmp(ev->tree_paths[i], rel) == 0)
			goto found;
	/* Walked from the folder opened beneath the workspace. */
	if (workspace_open_fd(&ev->ws, rel, S_IFDIR, &fd, &st, err, errlen) !=
	    WS_OK)
		return NULL;
	t = xcalloc(1, sizeof *t);
	abs = workspace_abs(&ev->ws, rel);
	(void)hashtree_hash_at(ev->hasher, fd, abs, ev->ws.root, t);
	close(fd);
	free(abs);
	ev->trees = xreallocarray(ev->trees, ev->ntrees + 1, sizeof *ev->trees);
	ev->tree_paths = xreallocarray(ev->tree_paths, ev->ntrees + 1,
	    sizeof *ev->tree_paths);
	ev->trees[ev->ntrees] = t;
	ev->tree_paths[ev->ntrees] = xstrdup(rel);
	i = ev->ntrees++;
found:
	artifact_note_input(gr, rel, ev->trees[i]->hex);
	if (ev->trees[i]->err[0] != '\0') {
		errbuf_set(err, errlen, "%s", ev->trees[i]->err);
		return NULL;
	}
	return ev->trees[i];
}

/* One JSON Lines record: the object (a new reference), or NULL with its
 * position ("line:col") and why it cannot be read. */
static json_t *
jsonl_parse(const char *line, size_t len, size_t lineno, bool cut,
    char *where, size_t wherelen, char *why, size_t whylen)
{
	json_error_t je;
	json_t *obj;

	snprintf(where, wherelen, "%zu:1", lineno);
	if (cut) {
		snprintf(why, whylen, "line is longer than %u bytes",
		    LINES_DEFAULT_CAP);
		return NULL;
	}
	if ((obj = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je)) ==
	    NULL) {
		snprintf(where, wherelen, "%zu:%d", lineno,
		    je.column > 0 ? je.column : 1);
		snprintf(why, whylen, "invalid JSON: %s", je.text);
		return NULL;
	}
	if (!json_is_object(obj)) {
		json_decref(obj);
		snprintf(why, whylen, "line is not a JSON object");
		return NULL;
	}
	return obj;
}

/* The lines of another gate's JSON Lines artifact that could not be read:
 * that gate reports each, the reader only needs to know there were some. */
struct jsonl_bad {
	size_t	n;
	char	where[48];	/* of the first */
};

/* Read a JSON Lines file; `owned` says whether its problems are this
 * gate's to report (else they are counted in bad: corrupt evidence is
 * never taken for no evidence). */
static long
read_jsonl(struct gate_result *gr, const char *rel, bool owned, jsonl_fn fn,
    void *arg, struct jsonl_bad *bad)
{
	struct lines l;
	struct stat st;
	const char *line;
	char msg[320], where[48], why[256], *check;
	enum ws_status s;
	json_t *obj;
	size_t len, bom;
	long n = 0;
	bool cut;
	int rc, fd;

	/* Streams may be many GB: noted by size and mtime, not hashed. */
	artifact_note_input(gr, rel, NULL);
	/* Read from the descriptor opened beneath the workspace. */
	s = workspace_open_fd(&gr->ev->ws, rel, S_IFREG, &fd, &st, msg,
	    sizeof msg);
	if (s == WS_ABSENT)
		return -1;
	if (s != WS_OK) {
		if (owned) {
			check = gate_check_id(gr, s == WS_OUTSIDE ? "path" :
			    "parse");
			gate_add(gr, SEV_ERROR, check, rel, "", "%s", msg);
			free(check);
		}
		return -1;
	}
	lines_open_fd(&l, fd, LINES_DEFAULT_CAP);
	check = gate_check_id(gr, "parse");
	while ((rc = lines_next(&l, &line, &len, &cut)) == 1) {
		if (l.lineno == 1) {
			bom = text_bom_len(line, len);
			line += bom;
			len -= bom;
		}
		if (len == 0 || strspn(line, " \t") == len)
			continue;
		n++;
		if ((obj = jsonl_parse(line, len, l.lineno, cut, where,
		    sizeof where, why, sizeof why)) != NULL) {
			gr->record = line;
			gr->record_len = len;
			fn(gr, obj, l.lineno, arg);
			gr->record = NULL;
			json_decref(obj);
		} else if (owned)
			gate_add(gr, SEV_ERROR, check, rel, where, "%s", why);
		else if (bad->n++ == 0)
			snprintf(bad->where, sizeof bad->where, "%s", where);
	}
	if (rc == -1 && owned)
		gate_add(gr, SEV_ERROR, check, rel, "", "cannot read '%s': %s",
		    rel, strerror(errno));
	free(check);
	lines_close(&l);
	return rc == -1 ? -1 : n;
}

/* strspn() over [p, end), which holds no NUL to stop at. */
static size_t
strspn_n(const char *p, const char *end, const char *set)
{
	const char *q = p;

	while (q < end && strchr(set, *q) != NULL && *q != '\0')
		q++;
	return (size_t)(q - p);
}

void
artifact_jsonl_where(const struct gate_result *gr, size_t line,
    const char *key, char *where, size_t len)
{
	const char *p = gr->record, *end, *q;
	size_t klen = strlen(key), col = 1;

	/* A key is a quoted name followed by a colon; a string value that
	 * happens to hold the name is not followed by one. */
	for (end = p != NULL ? p + gr->record_len : NULL;
	    p != NULL && (size_t)(end - p) > klen + 2; p++) {
		if (*p != '"' || memcmp(p + 1, key, klen) != 0 ||
		    p[klen + 1] != '"')
			continue;
		q = p + klen + 2;
		q += strspn_n(q, end, " \t");
		if (q < end && *q == ':') {
			q++;
			q += strspn_n(q, end, " \t");
			col = (size_t)(q - gr->record) + 1;
			break;
		}
	}
	snprintf(where, len, "%zu:%zu", line, col);
}

long
artifact_jsonl(struct gate_result *gr, const char *rel, jsonl_fn fn, void *arg)
{
	return read_jsonl(gr, rel, true, fn, arg, NULL);
}

long
artifact_jsonl_input(struct gate_result *gr, const char *rel, const char *check,
    jsonl_fn fn, void *arg)
{
	struct jsonl_bad bad = { 0, "" };
	long n = read_jsonl(gr, rel, false, fn, arg, &bad);

	if (n < 0)
		gate_skip(gr, check, rel, "",
		    "check skipped: its input '%s' is missing or unreadable", rel);
	else if (bad.n > 0)
		gate_skip(gr, check, rel, bad.where,
		    "check skipped: %zu line%s of its input '%s' cannot be read "
		    "(its gate reports them)", bad.n, bad.n == 1 ? "" : "s",
		    rel);
	return n;
}
