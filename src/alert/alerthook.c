/* alerthook.c: alerts sent through the team's command (see alerthook.h). */
#include "calops.h"

#include <sys/wait.h>

#include <math.h>
#include <signal.h>
#include <time.h>

#include <jansson.h>

#include "alert/alerthook.h"
#include "alert/alertjournal.h"
#include "base/buf.h"
#include "base/strv.h"
#include "base/text.h"
#include "loop/child.h"
#include "loop/loop.h"

extern char **environ;

#define ENV_PREFIX	"CALOPS_ALERT"
#define ERR_TAIL	200	/* bytes of the hook's last stderr line kept */

struct send {
	char		*id;
	bool		 resolved;
	unsigned	 attempt;	/* failures so far */
};

struct alerthook {
	struct loop		*loop;
	char *const		*argv;
	struct alertjournal	*j;
	alerthook_say_fn	 say;
	void			*arg;
	long			 timeout_ms, backoff_ms;
	unsigned		 tries;
	struct send		*q;
	size_t			 nq, qalloc;
	struct child		*c;		/* the head's hook, running */
	long			 timer;		/* its timeout, or a retry */
	bool			 timed_out;
	char			 tail[ERR_TAIL];
};

static void kick(struct alerthook *);
static void retry(struct loop *, void *);

struct alerthook *
alerthook_new(struct loop *l, char *const argv[], struct alertjournal *j,
    alerthook_say_fn say, void *arg)
{
	struct alerthook *h = xcalloc(1, sizeof *h);

	h->loop = l;
	h->argv = argv;
	h->j = j;
	h->say = say;
	h->arg = arg;
	h->timeout_ms = ALERTHOOK_TIMEOUT_MS;
	h->backoff_ms = ALERTHOOK_BACKOFF_MS;
	h->tries = ALERTHOOK_TRIES;
	h->timer = -1;
	return h;
}

void
alerthook_set_timing(struct alerthook *h, long timeout_ms, long backoff_ms,
    unsigned tries)
{
	h->timeout_ms = timeout_ms;
	h->backoff_ms = backoff_ms;
	h->tries = tries;
}

void
alerthook_free(struct alerthook *h)
{
	size_t i;

	if (h == NULL)
		return;
	if (h->c != NULL)
		child_abandon(h->c);
	if (h->timer != -1)
		loop_del_timer(h->loop, h->timer);
	for (i = 0; i < h->nq; i++)
		free(h->q[i].id);
	free(h->q);
	free(h);
}

bool
alerthook_idle(const struct alerthook *h)
{
	return h->nq == 0;
}

void
alerthook_send(struct alerthook *h, const char *id, bool resolved)
{
	if (h->nq == ALERTHOOK_QUEUE_MAX) {
		h->say("alerts: too many alerts wait for the hook; one is "
		    "not sent (the journal keeps it)", h->arg);
		return;
	}
	if (h->nq == h->qalloc) {
		h->qalloc = h->qalloc == 0 ? 8 : h->qalloc * 2;
		h->q = xreallocarray(h->q, h->qalloc, sizeof *h->q);
	}
	h->q[h->nq++] = (struct send){ xstrdup(id), resolved, 0 };
	kick(h);
}

size_t
alerthook_resume(struct alerthook *h)
{
	const struct alertentry *e;
	size_t i, n = 0;

	for (i = 0; i < h->j->n; i++) {
		e = &h->j->e[i];
		if (e->gave_up)
			continue;
		if (!e->sent_firing) {
			alerthook_send(h, e->id, false);
			n++;
		}
		if (!isnan(e->end) && e->end != e->start &&
		    !e->sent_resolved) {
			alerthook_send(h, e->id, true);
			n++;
		}
	}
	return n;
}

static void
pop(struct alerthook *h)
{
	free(h->q[0].id);
	memmove(&h->q[0], &h->q[1], (h->nq - 1) * sizeof *h->q);
	h->nq--;
}

/* A string from a host or a file, plain: one line, no controls. */
static char *
plain(const char *s)
{
	return text_sanitize_doc(s, strlen(s));
}

static char *
rfc3339(double t)
{
	char buf[32];

	alertjournal_time(t, buf, sizeof buf);
	return xstrdup(buf);
}

static char *
number(double v)
{
	return isnan(v) ? NULL : xasprintf("%.17g", v);
}

/* One variable's or label's name and value (NULL: not given). */
struct field {
	const char	*env, *label;
	char		*value;
};

enum {
	F_RULE, F_ID, F_STATE, F_SEVERITY, F_KIND, F_HOST, F_CHIP, F_JOB,
	F_WORKSPACE, F_GATE, F_METRIC, F_VALUE, F_THRESHOLD, F_SINCE, F_END,
	F_SUMMARY, F_COUNT
};

/* The alert's fields, every string plain. */
static void
fields(const struct alertentry *e, bool resolved, struct field f[F_COUNT])
{
	static const char *const names[F_COUNT][2] = {
		{ "", "alertname" }, { "_ID", NULL }, { "_STATE", NULL },
		{ "_SEVERITY", "severity" }, { "_KIND", "kind" },
		{ "_HOST", "host" }, { "_CHIP", "chip" }, { "_JOB", "job" },
		{ "_WORKSPACE", "workspace" }, { "_GATE", "gate" },
		{ "_METRIC", "metric" },
		{ "_VALUE", NULL }, { "_THRESHOLD", NULL }, { "_SINCE", NULL },
		{ "_END", NULL }, { "_SUMMARY", NULL },
	};
	size_t i;

	for (i = 0; i < F_COUNT; i++) {
		f[i].env = names[i][0];
		f[i].label = names[i][1];
		f[i].value = NULL;
	}
	f[F_RULE].value = plain(e->rule != NULL ? e->rule : "?");
	f[F_ID].value = xstrdup(e->id);
	f[F_STATE].value = xstrdup(resolved ? "resolved" : "firing");
	f[F_SEVERITY].value = e->severity != NULL ? plain(e->severity) : NULL;
	f[F_KIND].value = e->kind != NULL ? plain(e->kind) : NULL;
	f[F_HOST].value = e->host != NULL ? plain(e->host) : NULL;
	f[F_CHIP].value = e->chip >= 0 ? xasprintf("%d", e->chip) : NULL;
	f[F_JOB].value = e->job != NULL ? plain(e->job) : NULL;
	f[F_WORKSPACE].value = e->workspace != NULL ? plain(e->workspace) :
	    NULL;
	f[F_GATE].value = e->gate >= 0 ? xasprintf("G%d", e->gate) : NULL;
	f[F_METRIC].value = e->metric != NULL ? plain(e->metric) : NULL;
	f[F_VALUE].value = number(e->value);
	f[F_THRESHOLD].value = number(e->threshold);
	f[F_SINCE].value = rfc3339(e->start);
	f[F_END].value = resolved ? rfc3339(e->end) : NULL;
	f[F_SUMMARY].value = e->summary != NULL ? plain(e->summary) : NULL;
}

static void
fields_release(struct field f[F_COUNT])
{
	size_t i;

	for (i = 0; i < F_COUNT; i++)
		free(f[i].value);
}

/* Our environment without CALOPS_ALERT*, then the alert's. */
static void
make_env(struct strv *env, const struct field f[F_COUNT])
{
	char **e;
	size_t i;

	for (e = environ; *e != NULL; e++)
		if (strncmp(*e, ENV_PREFIX, strlen(ENV_PREFIX)) != 0)
			strv_add(env, xstrdup(*e));
	for (i = 0; i < F_COUNT; i++)
		if (f[i].value != NULL)
			strv_add(env, xasprintf(ENV_PREFIX "%s=%s", f[i].env,
			    f[i].value));
}

/* The alert as an Alertmanager webhook (version 4) of one alert. */
static json_t *
webhook(const struct field f[F_COUNT], bool resolved)
{
	json_t *labels = json_object(), *ann = json_object(), *alert;
	size_t i;

	for (i = 0; i < F_COUNT; i++)
		if (f[i].label != NULL && f[i].value != NULL)
			json_object_set_new(labels, f[i].label,
			    json_string(f[i].value));
	if (f[F_SUMMARY].value != NULL)
		json_object_set_new(ann, "summary",
		    json_string(f[F_SUMMARY].value));
	if (f[F_VALUE].value != NULL)
		json_object_set_new(ann, "value", json_string(f[F_VALUE].value));
	if (f[F_THRESHOLD].value != NULL)
		json_object_set_new(ann, "threshold",
		    json_string(f[F_THRESHOLD].value));
	alert = json_pack("{s:s, s:O, s:O, s:s, s:s, s:s, s:s}", "status",
	    f[F_STATE].value, "labels", labels, "annotations", ann,
	    "startsAt", f[F_SINCE].value, "endsAt", resolved ?
	    f[F_END].value : "0001-01-01T00:00:00Z", "generatorURL", "",
	    "fingerprint", f[F_ID].value);
	return json_pack("{s:s, s:s, s:s, s:s, s:{s:s}, s:o, s:o, s:s, s:i, "
	    "s:[o]}", "version", "4", "groupKey", f[F_ID].value, "status",
	    f[F_STATE].value, "receiver", "calops", "groupLabels",
	    "alertname", f[F_RULE].value, "commonLabels", labels,
	    "commonAnnotations", ann, "externalURL", "", "truncatedAlerts", 0,
	    "alerts", alert);
}

/* The head's failure: journaled, said, retried after a backoff. */
static void
failed(struct alerthook *h, const char *why)
{
	struct send *s = &h->q[0];
	bool last = ++s->attempt >= h->tries;
	char err[512], *msg;
	unsigned i;
	long ms;

	if (alertjournal_hook(h->j, s->id, s->resolved, last ? "gave-up" :
	    "failed", s->attempt, why, (double)time(NULL), err, sizeof err)
	    != 0)
		h->say(err, h->arg);
	msg = xasprintf("alerts: the hook for %s %s failed (try %u of %u): "
	    "%s%s", s->id, s->resolved ? "resolved" : "firing", s->attempt,
	    h->tries, why, last ? "; given up" : "");
	h->say(msg, h->arg);
	free(msg);
	if (last) {
		pop(h);
		kick(h);
		return;
	}
	ms = h->backoff_ms;
	for (i = 1; i < s->attempt && ms < ALERTHOOK_BACKOFF_MAX_MS; i++)
		ms *= 2;
	h->timer = loop_add_timer(h->loop, ms < ALERTHOOK_BACKOFF_MAX_MS ?
	    ms : ALERTHOOK_BACKOFF_MAX_MS, retry, h);
}

static void
hook_line(struct child *c, const char *line, size_t len, bool from_stderr,
    bool cut, void *arg)
{
	struct alerthook *h = arg;

	(void)c;
	(void)cut;
	if (from_stderr && len > 0)
		snprintf(h->tail, sizeof h->tail, "%.*s", (int)len, line);
}

static void
hook_done(struct child *c, int status, void *arg)
{
	struct alerthook *h = arg;
	char why[400], err[512], *tail;

	(void)c;
	h->c = NULL;
	if (h->timer != -1)
		loop_del_timer(h->loop, h->timer);
	h->timer = -1;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !h->timed_out) {
		if (alertjournal_hook(h->j, h->q[0].id, h->q[0].resolved,
		    "sent", h->q[0].attempt + 1, NULL, (double)time(NULL), err,
		    sizeof err) != 0)
			h->say(err, h->arg);
		pop(h);
		kick(h);
		return;
	}
	tail = plain(h->tail);
	if (h->timed_out)
		snprintf(why, sizeof why, "killed after %ld ms", h->timeout_ms);
	else if (WIFEXITED(status))
		snprintf(why, sizeof why, "exit %d%s%s", WEXITSTATUS(status),
		    *tail != '\0' ? ": " : "", tail);
	else
		snprintf(why, sizeof why, "killed by signal %d",
		    WTERMSIG(status));
	free(tail);
	failed(h, why);
}

static const struct child_ops hook_ops = { hook_line, hook_done };

static void
timeout(struct loop *l, void *arg)
{
	struct alerthook *h = arg;

	(void)l;
	h->timer = -1;
	h->timed_out = true;
	child_signal(h->c, SIGKILL);
}

/* Start the head's hook, unless one runs or waits for its retry. */
static void
start(struct alerthook *h)
{
	const struct alertentry *e;
	struct field f[F_COUNT];
	struct strv env = { NULL, 0, 0 };
	char err[512], *doc;
	json_t *w;

	if ((e = alertjournal_find(h->j, h->q[0].id)) == NULL) {
		pop(h);
		return;
	}
	fields(e, h->q[0].resolved, f);
	make_env(&env, f);
	w = webhook(f, h->q[0].resolved);
	doc = json_dumps(w, JSON_COMPACT);
	json_decref(w);
	fields_release(f);
	h->tail[0] = '\0';
	h->timed_out = false;
	h->c = child_start_env(h->loop, h->argv, env.v, &hook_ops, h, err,
	    sizeof err);
	strv_free(&env);
	if (h->c == NULL || child_input(h->c, doc, strlen(doc), true, err,
	    sizeof err) != 0) {
		free(doc);
		if (h->c != NULL)
			child_abandon(h->c);
		h->c = NULL;
		failed(h, err);
		return;
	}
	free(doc);
	h->timer = loop_add_timer(h->loop, h->timeout_ms, timeout, h);
}

static void
retry(struct loop *l, void *arg)
{
	struct alerthook *h = arg;

	(void)l;
	h->timer = -1;
	kick(h);
}

static void
kick(struct alerthook *h)
{
	while (h->nq > 0 && h->c == NULL && h->timer == -1)
		start(h);
}
