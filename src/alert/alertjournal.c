/* alertjournal.c: every alert raised, kept across runs (see
 * alertjournal.h). */
#include "calops.h"

#include <fcntl.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

#include "alert/alerteval.h"
#include "alert/alertjournal.h"
#include "alert/alertrule.h"
#include "base/buf.h"
#include "base/fileio.h"
#include "base/lines.h"
#include "base/statedir.h"
#include "base/text.h"

static void
entry_release(struct alertentry *e)
{
	free(e->id);
	free(e->rule);
	free(e->kind);
	free(e->severity);
	free(e->host);
	free(e->job);
	free(e->workspace);
	free(e->metric);
	free(e->summary);
	free(e->hook_error);
}

static void
baseline_release(struct alertbaseline *b)
{
	size_t i;

	for (i = 0; i < b->nstatus; i++)
		free(b->status[i]);
	free(b->status);
	free(b->host);
	free(b->workspace);
}

/* Every entry and baseline let go, the journal's file kept. */
static void
forget(struct alertjournal *j)
{
	size_t i;

	for (i = 0; i < j->n; i++)
		entry_release(&j->e[i]);
	for (i = 0; i < j->nbase; i++)
		baseline_release(&j->base[i]);
	j->n = j->nbase = j->bad = j->dropped = 0;
}

void
alertjournal_close(struct alertjournal *j)
{
	forget(j);
	free(j->base);
	free(j->e);
	free(j->path);
	if (j->fd != -1)
		close(j->fd);
	memset(j, 0, sizeof *j);
	j->fd = -1;
}

const struct alertentry *
alertjournal_find(const struct alertjournal *j, const char *id)
{
	size_t i;

	for (i = j->n; i-- > 0;)
		if (strcmp(j->e[i].id, id) == 0)
			return &j->e[i];
	return NULL;
}

/* A string member, or NULL when absent or not a string. */
static char *
get_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

/* The string at index i of array a, or NULL. */
static char *
get_str_at(json_t *a, size_t i)
{
	json_t *v = json_array_get(a, i);

	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

static double
get_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static int
get_int(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (int)json_integer_value(v) : -1;
}

/* id's entry, made at the end when new (the oldest dropped past the cap). */
static struct alertentry *
entry_get(struct alertjournal *j, const char *id, bool *made)
{
	struct alertentry *e;

	*made = false;
	if ((e = (struct alertentry *)alertjournal_find(j, id)) != NULL)
		return e;
	if (j->n == ALERTJOURNAL_MAX) {
		entry_release(&j->e[0]);
		memmove(&j->e[0], &j->e[1], (j->n - 1) * sizeof *j->e);
		j->n--;
		j->dropped++;
	}
	if (j->n == j->alloc) {
		j->alloc = j->alloc == 0 ? 16 : j->alloc * 2;
		j->e = xreallocarray(j->e, j->alloc, sizeof *j->e);
	}
	e = &j->e[j->n++];
	memset(e, 0, sizeof *e);
	e->id = xstrdup(id);
	e->end = NAN;
	*made = true;
	return e;
}

/* A hook line: what became of sending the state of an alert kept. */
static int
fold_hook(struct alertjournal *j, json_t *o, const char *id, bool resolved,
    const char *hook)
{
	struct alertentry *e = (struct alertentry *)alertjournal_find(j, id);

	if (e == NULL)
		return -1;
	if (strcmp(hook, "sent") == 0) {
		if (resolved)
			e->sent_resolved = true;
		else
			e->sent_firing = true;
	} else if (strcmp(hook, "failed") == 0 ||
	    strcmp(hook, "gave-up") == 0) {
		e->failures++;
		e->gave_up |= strcmp(hook, "gave-up") == 0;
		free(e->hook_error);
		e->hook_error = get_str(o, "error");
	} else
		return -1;
	return 0;
}

const struct alertbaseline *
alertjournal_find_baseline(const struct alertjournal *j, const char *host,
    const char *workspace)
{
	size_t i;

	for (i = 0; i < j->nbase; i++)
		if (strcmp(j->base[i].host, host) == 0 &&
		    strcmp(j->base[i].workspace, workspace) == 0)
			return &j->base[i];
	return NULL;
}

/* A baseline line: it takes the place of its workspace's last (the oldest
 * workspace's dropped past the cap). */
static int
fold_baseline(struct alertjournal *j, json_t *o, json_t *gates)
{
	const char *host = json_string_value(json_object_get(o, "host"));
	const char *ws = json_string_value(json_object_get(o, "workspace"));
	struct alertbaseline *b;
	size_t i;

	if (host == NULL || ws == NULL || !json_is_array(gates) ||
	    json_array_size(gates) > ALERTJOURNAL_GATES)
		return -1;
	if ((b = (struct alertbaseline *)alertjournal_find_baseline(j, host,
	    ws)) != NULL)
		baseline_release(b);
	else {
		if (j->nbase == ALERTJOURNAL_BASELINES) {
			baseline_release(&j->base[0]);
			memmove(&j->base[0], &j->base[1], --j->nbase *
			    sizeof *j->base);
		}
		j->base = xreallocarray(j->base, j->nbase + 1,
		    sizeof *j->base);
		b = &j->base[j->nbase++];
	}
	b->host = xstrdup(host);
	b->workspace = xstrdup(ws);
	b->nstatus = json_array_size(gates);
	b->status = xcalloc(b->nstatus + 1, sizeof *b->status);
	for (i = 0; i < b->nstatus; i++)
		b->status[i] = get_str_at(gates, i);
	b->t = get_num(o, "t");
	b->seq = j->dropped + j->n;
	return 0;
}

/* Fold one line's object in; -1 when it is not a journal line. */
static int
fold(struct alertjournal *j, json_t *o)
{
	const char *id = json_string_value(json_object_get(o, "id"));
	const char *st = json_string_value(json_object_get(o, "state"));
	const char *hook = json_string_value(json_object_get(o, "hook"));
	json_t *base = json_object_get(o, "baseline");
	struct alertentry *e;
	bool made, resolved;

	if (base != NULL)
		return fold_baseline(j, o, base);
	if (id == NULL || st == NULL || (strcmp(st, "firing") != 0 &&
	    strcmp(st, "resolved") != 0))
		return -1;
	resolved = strcmp(st, "resolved") == 0;
	if (hook != NULL)
		return fold_hook(j, o, id, resolved, hook);
	e = entry_get(j, id, &made);
	if (made) {
		e->rule = get_str(o, "rule");
		e->kind = get_str(o, "kind");
		e->severity = get_str(o, "severity");
		e->host = get_str(o, "host");
		e->job = get_str(o, "job");
		e->workspace = get_str(o, "workspace");
		e->metric = get_str(o, "metric");
		e->chip = get_int(o, "chip");
		e->gate = get_int(o, "gate");
		e->start = get_num(o, "start");
	}
	if (made || resolved) {
		free(e->summary);
		e->summary = get_str(o, "summary");
		e->value = get_num(o, "value");
		e->threshold = get_num(o, "threshold");
		e->vmin = get_num(o, "min");
		e->vavg = get_num(o, "avg");
		e->vmax = get_num(o, "max");
		e->end = get_num(o, "end");
	}
	return 0;
}

/* Read the journal on j->fd; a last line cut short is skipped, and cut
 * off when cut (only its writer may: another's line may be in flight). */
static int
load(struct alertjournal *j, bool cut_torn, char *err, size_t errlen)
{
	const char *line;
	struct lines l;
	size_t len;
	json_t *o;
	bool cut;
	int rc, fd;

	if ((fd = dup(j->fd)) == -1 || lseek(fd, 0, SEEK_SET) == -1) {
		errbuf_set(err, errlen, "cannot read '%s': %s", j->path,
		    strerror(errno));
		if (fd != -1)
			close(fd);
		return -1;
	}
	lines_open_fd(&l, fd, ALERTJOURNAL_LINE_MAX);
	while ((rc = lines_next(&l, &line, &len, &cut)) == 1) {
		if (!l.lf)
			break;
		o = cut ? NULL : json_loadb(line, len, 0, NULL);
		if (!json_is_object(o) || fold(j, o) != 0)
			j->bad++;
		json_decref(o);
	}
	if (rc == -1)
		errbuf_set(err, errlen, "cannot read '%s': %s", j->path,
		    strerror(errno));
	else if (rc == 1 && cut_torn && ftruncate(j->fd, (off_t)l.whole) !=
	    0) {
		errbuf_set(err, errlen, "cannot cut the torn last line of "
		    "'%s': %s", j->path, strerror(errno));
		rc = -1;
	}
	lines_close(&l);
	return rc == -1 ? -1 : 0;
}

int
alertjournal_open_path(struct alertjournal *j, const char *path, bool create,
    char *err, size_t errlen)
{
	memset(j, 0, sizeof *j);
	j->path = xstrdup(path);
	j->fd = statedir_open_path(path, O_RDWR | O_APPEND | (create ?
	    O_CREAT : 0), 0600, err, errlen);
	if (j->fd == -1 && errno == ENOENT && !create)
		return 0;
	if (j->fd == -1 || load(j, create, err, errlen) != 0) {
		alertjournal_close(j);
		return -1;
	}
	return 0;
}

int
alertjournal_reload(struct alertjournal *j, bool cut, char *err,
    size_t errlen)
{
	forget(j);
	if (j->fd == -1)
		return 0;
	return load(j, cut, err, errlen);
}

int
alertjournal_open(struct alertjournal *j, bool create, char *err,
    size_t errlen)
{
	char *dir, *path;
	int fd, rc;

	memset(j, 0, sizeof *j);
	j->fd = -1;
	fd = statedir_open("alerts", "the alerts folder", create, &dir, err,
	    errlen);
	if (fd == -1)
		return errno == ENOENT && !create ? 0 : -1;
	close(fd);
	path = xasprintf("%s/%s", dir, ALERTJOURNAL_FILE);
	rc = alertjournal_open_path(j, path, create, err, errlen);
	free(path);
	free(dir);
	return rc;
}

static void
set_num(json_t *o, const char *key, double v)
{
	if (!isnan(v))
		json_object_set_new(o, key, json_real(v));
}

static void
set_str(json_t *o, const char *key, const char *s)
{
	if (s != NULL)
		json_object_set_new(o, key, text_json(s));
}

/* The subject's members, those that are part of it. */
static void
set_subject(json_t *o, const char *host, const char *job,
    const char *workspace, const char *metric, int chip, int gate)
{
	set_str(o, "host", host);
	set_str(o, "job", job);
	set_str(o, "workspace", workspace);
	set_str(o, "metric", metric);
	if (chip >= 0)
		json_object_set_new(o, "chip", json_integer(chip));
	if (gate >= 0)
		json_object_set_new(o, "gate", json_integer(gate));
}

/* The value, the threshold and min/avg/max over the breach, when known. */
static void
set_values(json_t *o, const double v[5])
{
	static const char *const keys[] = { "value", "threshold", "min",
	    "avg", "max" };
	size_t i;

	for (i = 0; i < nitems(keys); i++)
		set_num(o, keys[i], v[i]);
}

/* A note as its journal line's object. */
static json_t *
note_json(const struct alertnote *n, double t)
{
	const double v[5] = { n->value, n->threshold, n->vmin, n->vavg,
	    n->vmax };
	json_t *o = json_object();

	set_str(o, "id", n->id);
	set_str(o, "state", n->state == ALERT_FIRING ? "firing" :
	    "resolved");
	set_str(o, "rule", n->rule->name);
	set_str(o, "kind", alertrule_kind_name(n->rule->kind));
	set_str(o, "severity", alertrule_severity_name(n->rule->severity));
	set_subject(o, n->host, n->job, n->workspace, n->metric, n->chip,
	    n->gate);
	set_num(o, "start", n->start);
	set_num(o, "end", n->end);
	set_values(o, v);
	set_str(o, "summary", n->summary);
	set_num(o, "t", t);
	return o;
}

/* Append o as a line and fold it in; the reference to o is taken. */
static int
append(struct alertjournal *j, json_t *o, char *err, size_t errlen)
{
	char *text, *hard, *line = NULL;
	size_t hlen;
	int rc = -1;

	/* Hardened: the journal is a file people cat. */
	text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
	if (text != NULL && (hard = text_json_harden(text, strlen(text),
	    &hlen)) != NULL) {
		free(text);
		text = hard;
	}
	if (text == NULL)
		errbuf_set(err, errlen, "cannot encode an alert");
	else if (j->fd == -1)
		errbuf_set(err, errlen, "the alert journal is not open");
	else {
		/* One write, so that a line is whole or torn at its end. */
		line = xasprintf("%s\n", text);
		if (fileio_write_full(j->fd, line, strlen(line)) != 0)
			errbuf_set(err, errlen, "cannot write '%s': %s",
			    j->path, strerror(errno));
		else
			rc = fold(j, o);
	}
	free(text);
	free(line);
	json_decref(o);
	return rc;
}

int
alertjournal_note(struct alertjournal *j, const struct alertnote *n,
    double t, char *err, size_t errlen)
{
	return append(j, note_json(n, t), err, errlen);
}

int
alertjournal_hook(struct alertjournal *j, const char *id, bool resolved,
    const char *outcome, unsigned attempt, const char *why, double t,
    char *err, size_t errlen)
{
	json_t *o = json_object();

	set_str(o, "id", id);
	set_str(o, "state", resolved ? "resolved" : "firing");
	set_str(o, "hook", outcome);
	json_object_set_new(o, "attempt", json_integer(attempt));
	set_str(o, "error", why);
	set_num(o, "t", t);
	return append(j, o, err, errlen);
}

int
alertjournal_baseline(struct alertjournal *j, const char *host,
    const char *workspace, const char *const *status, size_t n, double t,
    char *err, size_t errlen)
{
	json_t *o = json_object(), *a = json_array();
	size_t i;

	for (i = 0; i < n && i < ALERTJOURNAL_GATES; i++)
		json_array_append_new(a, status[i] != NULL ?
		    text_json(status[i]) : json_null());
	json_object_set_new(o, "baseline", a);
	set_str(o, "host", host);
	set_str(o, "workspace", workspace);
	set_num(o, "t", t);
	return append(j, o, err, errlen);
}

void
alertjournal_time(double t, char *buf, size_t len)
{
	time_t s = (time_t)floor(t);
	struct tm tm;

	if (isnan(t) || gmtime_r(&s, &tm) == NULL)
		snprintf(buf, len, "0001-01-01T00:00:00Z");
	else
		strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static json_t *
rfc3339(double t)
{
	char buf[32];

	if (isnan(t))
		return json_null();
	alertjournal_time(t, buf, sizeof buf);
	return json_string(buf);
}

json_t *
alertjournal_entry_json(const struct alertentry *e, double now)
{
	const double v[5] = { e->value, e->threshold, e->vmin, e->vavg,
	    e->vmax };
	json_t *o = json_object();

	set_str(o, "id", e->id);
	set_str(o, "rule", e->rule);
	set_str(o, "kind", e->kind);
	set_str(o, "severity", e->severity);
	set_subject(o, e->host, e->job, e->workspace, e->metric, e->chip,
	    e->gate);
	json_object_set_new(o, "start", rfc3339(e->start));
	json_object_set_new(o, "end", rfc3339(e->end));
	json_object_set_new(o, "ongoing", json_boolean(isnan(e->end)));
	set_num(o, "duration_s", (isnan(e->end) ? now : e->end) - e->start);
	set_values(o, v);
	set_str(o, "summary", e->summary);
	json_object_set_new(o, "hook_failures", json_integer(e->failures));
	set_str(o, "hook_error", e->hook_error);
	json_object_set_new(o, "sent", json_boolean(isnan(e->end) ||
	    e->end == e->start ? e->sent_firing : e->sent_resolved));
	return o;
}

/* "3h12m", "4m05s", "12s". */
void
alertjournal_duration(char *buf, size_t len, double s)
{
	long n = isnan(s) || s < 0 ? 0 : (long)floor(s);

	if (n >= 3600)
		snprintf(buf, len, "%ldh%02ldm", n / 3600, n / 60 % 60);
	else if (n >= 60)
		snprintf(buf, len, "%ldm%02lds", n / 60, n % 60);
	else
		snprintf(buf, len, "%lds", n);
}

/* What an alert is about: "lab3 chip 1, /w G9, job 17"; sanitised. */
char *
alertjournal_subject(const struct alertentry *e)
{
	struct buf b = BUF_INIT;
	char *s, *vis;

	if (e->host != NULL)
		buf_adds(&b, e->host);
	if (e->chip >= 0)
		buf_addf(&b, " chip %d", e->chip);
	if (e->metric != NULL)
		buf_addf(&b, " %s", e->metric);
	if (e->workspace != NULL)
		buf_addf(&b, "%s%s", b.len > 0 ? ", " : "", e->workspace);
	if (e->gate >= 0)
		buf_addf(&b, " G%d", e->gate);
	if (e->job != NULL)
		buf_addf(&b, "%sjob %s", b.len > 0 ? ", " : "", e->job);
	s = buf_detach(&b, NULL);
	vis = text_sanitize_str(s != NULL ? s : "");
	free(s);
	return vis;
}

/* What became of the hook: "sent", "waiting", "failed x3", "gave up". */
void
alertjournal_hook_state(const struct alertentry *e, char *buf, size_t len)
{
	bool sent = isnan(e->end) || e->end == e->start ? e->sent_firing :
	    e->sent_resolved;

	if (e->gave_up)
		snprintf(buf, len, "gave up");
	else if (sent)
		snprintf(buf, len, "sent");
	else if (e->failures > 0)
		snprintf(buf, len, "failed x%u", e->failures);
	else
		snprintf(buf, len, "waiting");
}
