/* relclient.c: a workspace's release, from the console (relclient.h). */
#include "calops.h"

#include <time.h>

#include "base/buf.h"
#include "base/text.h"
#include "lab/relclient.h"
#include "proto/hostcmd.h"
#include "release/relkey.h"
#include "release/relrecord.h"
#include "remote/transport.h"

/* What a fetch may print: the status carries every manifest. */
#define FETCH_MAX	(16u << 20)

/* One headless command's output, gathered. */
struct fetch {
	struct relclient	*rc;
	struct rstream		*rs;
	struct buf		 out;
	char			 err[512];	/* its last stderr line */
	bool			 audit;		/* audit, not status */
};

struct relclient {
	struct transport	*t;
	char			*ws;
	const struct relclient_cb *cb;
	void			*arg;
	struct fetch		 fetch[2];	/* status, audit */
	bool			 again;		/* refresh asked meanwhile */
	json_t			*status, *audit;
	char			 error[1024];
	/* the approval */
	struct relapproval	 ap;
	struct rstream		*apply;
	json_t			*held_keys;	/* as said under the lock */
	char			 apply_err[512];
};

/* A line of the host's stderr, made safe, into dst. */
static void
keep_line(char *dst, size_t dstlen, const char *line, size_t len)
{
	char *safe = text_sanitize(line, len, dstlen - 1);

	snprintf(dst, dstlen, "%s", safe);
	free(safe);
}

static void
changed(struct relclient *rc)
{
	if (rc->cb->changed != NULL)
		rc->cb->changed(rc->arg);
}

/* ---- fetching the state ---- */

static void
fetch_line(struct rstream *rs, const char *line, size_t len,
    bool from_stderr, bool cut, void *arg)
{
	struct fetch *f = arg;

	(void)rs;
	if (from_stderr) {
		keep_line(f->err, sizeof f->err, line, len);
		return;
	}
	/* A cut line would not parse: the whole fails, as it should. */
	if (cut || buf_add(&f->out, line, len) != 0 ||
	    buf_add(&f->out, "\n", 1) != 0)
		snprintf(f->err, sizeof f->err, "the answer is longer than %u "
		    "MiB or has a line too long", FETCH_MAX >> 20);
}

static void	fetch_start(struct relclient *rc);

static void
fetch_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct fetch *f = arg;
	struct relclient *rc = f->rc;
	const char *what = f->audit ? "audit" : "status";
	json_t *j, **slot = f->audit ? &rc->audit : &rc->status;
	char why[200];

	(void)rs;
	f->rs = NULL;
	if (hostcmd_release_parse(f->out.data, f->out.len, what, &j, why,
	    sizeof why) != 0) {
		snprintf(rc->error, sizeof rc->error, "release %s on %s: %s",
		    what, rc->t->host, ex->err != NULL ? ex->err :
		    f->err[0] != '\0' ? f->err : why);
	} else {
		json_decref(*slot);
		*slot = j;
	}
	buf_release(&f->out);
	if (rc->fetch[0].rs == NULL && rc->fetch[1].rs == NULL && rc->again)
		fetch_start(rc);
	changed(rc);
}

static const struct rstream_cb fetch_cb = {
	.line = fetch_line,
	.done = fetch_done,
};

static void
fetch_start(struct relclient *rc)
{
	static const char *const what[2] = { "status", "audit" };
	struct strv argv = { NULL, 0, 0 };
	struct fetch *f;
	int k;

	rc->again = false;
	rc->error[0] = '\0';
	for (k = 0; k < 2; k++) {
		f = &rc->fetch[k];
		f->rc = rc;
		f->audit = k == 1;
		f->err[0] = '\0';
		buf_init(&f->out, FETCH_MAX);
		hostcmd_release(&argv, what[k], rc->ws);
		f->rs = transport_exec(rc->t, argv.v, &fetch_cb, f, rc->error,
		    sizeof rc->error);
		strv_free(&argv);
		if (f->rs == NULL)
			buf_release(&f->out);
	}
}

void
relclient_refresh(struct relclient *rc)
{
	if (relclient_loading(rc)) {
		rc->again = true;
		return;
	}
	fetch_start(rc);
	changed(rc);
}

const char *
relclient_host(const struct relclient *rc)
{
	return rc->t->host;
}

bool
relclient_loading(const struct relclient *rc)
{
	return rc->fetch[0].rs != NULL || rc->fetch[1].rs != NULL;
}

const json_t *
relclient_status(const struct relclient *rc)
{
	return rc->status;
}

const json_t *
relclient_audit(const struct relclient *rc)
{
	return rc->audit;
}

const char *
relclient_error(const struct relclient *rc)
{
	return rc->error;
}

/* ---- the approval ---- */

/* One event of `release apply` moves the approval on: the lock held
 * (what the record will be built on, and who may sign it now), hashing,
 * the verdict, the result. */
static void
apply_event(struct relclient *rc, struct hostcmd_apply *ev)
{
	struct relapproval *ap = &rc->ap;

	switch (ev->type) {
	case HOSTCMD_APPLY_HELD:
		if (ap->phase != RA_LOCKING)
			break;
		ap->from = ev->current;
		ap->next_seq = ev->next_seq;
		ap->marks = ev->marks;
		snprintf(ap->head, sizeof ap->head, "%s", ev->head);
		json_decref(rc->held_keys);
		rc->held_keys = ev->trusted_keys;
		ev->trusted_keys = NULL;
		ap->phase = RA_VERIFYING;
		break;
	case HOSTCMD_APPLY_PROGRESS:
		ap->done = ev->done;
		ap->total = ev->total;
		break;
	case HOSTCMD_APPLY_VERIFIED:
		if (ap->phase != RA_VERIFYING)
			break;
		ap->verified = ev->verifies;
		ap->bound = ev->bound;
		snprintf(ap->problem, sizeof ap->problem, "%s", ev->problem);
		snprintf(ap->words, sizeof ap->words, "%s", ev->words);
		ap->phase = ap->head[0] != '\0' ? RA_READY : RA_VERIFYING;
		break;
	case HOSTCMD_APPLY_RESULT:
		snprintf(ap->result, sizeof ap->result, "%s", ev->result);
		snprintf(ap->message, sizeof ap->message, "%s", ev->message);
		ap->phase = RA_DONE;
		break;
	case HOSTCMD_APPLY_OTHER:
		break;
	}
}

static void
apply_line(struct rstream *rs, const char *line, size_t len,
    bool from_stderr, bool cut, void *arg)
{
	struct relclient *rc = arg;
	struct hostcmd_apply ev;

	(void)rs;
	if (from_stderr || cut) {
		keep_line(rc->apply_err, sizeof rc->apply_err, line, len);
		return;
	}
	if (hostcmd_apply_parse(line, len, &ev) != 0)
		return;
	apply_event(rc, &ev);
	hostcmd_apply_release(&ev);
	changed(rc);
}

static void
apply_done(struct rstream *rs, const struct rstream_exit *ex, void *arg)
{
	struct relclient *rc = arg;
	struct relapproval *ap = &rc->ap;
	bool was_sending = ap->phase == RA_SENDING;

	(void)rs;
	rc->apply = NULL;
	if (ap->phase != RA_DONE) {
		/* No result line: the command or the link broke. */
		snprintf(ap->result, sizeof ap->result, "%s", ex->lost ?
		    "lost" : "error");
		snprintf(ap->message, sizeof ap->message, "%s%s",
		    ex->err != NULL ? ex->err : rc->apply_err[0] != '\0' ?
		    rc->apply_err : "the host's calops ended without a result",
		    was_sending ? ": the record was sent, and may or may not "
		    "have been acted on; the state is fetched again" : "");
		ap->phase = RA_DONE;
	}
	/* A switch, or one that may have happened, or a refusal logged. */
	if (strcmp(ap->result, "ok") == 0 && !ap->sent_refusal &&
	    rc->cb->switched != NULL)
		rc->cb->switched(rc->arg);
	relclient_refresh(rc);
	changed(rc);
}

static const struct rstream_cb apply_cb = {
	.line = apply_line,
	.done = apply_done,
};

int
relclient_begin(struct relclient *rc, const char *action, long to,
    const char *actor, char *err, size_t errlen)
{
	struct strv argv = { NULL, 0, 0 };

	if (rc->apply != NULL) {
		errbuf_set(err, errlen, "an approval is open already");
		return -1;
	}
	memset(&rc->ap, 0, sizeof rc->ap);
	rc->ap.from = -1;
	rc->apply_err[0] = '\0';
	json_decref(rc->held_keys);
	rc->held_keys = NULL;
	snprintf(rc->ap.action, sizeof rc->ap.action, "%s", action);
	rc->ap.to = to;
	hostcmd_release_apply(&argv, rc->ws, to, actor);
	rc->apply = transport_exec_input(rc->t, argv.v, &apply_cb, rc, err,
	    errlen);
	strv_free(&argv);
	if (rc->apply == NULL)
		return -1;
	rc->ap.phase = RA_LOCKING;
	changed(rc);
	return 0;
}

const struct relapproval *
relclient_approval(const struct relclient *rc)
{
	return &rc->ap;
}

int
relclient_mark(struct relclient *rc, const char *job, const char *host,
    int chip, const char *key_id, char *err, size_t errlen)
{
	json_t *j;
	char *text, *line;
	int ret;

	if (rc->ap.phase != RA_READY || rc->apply == NULL) {
		errbuf_set(err, errlen, "the approval is not open");
		return -1;
	}
	/* A host's calops from before it would take the line for a second
	 * record and refuse the approval: it is not sent there. */
	if (!rc->ap.marks)
		return 0;
	/* The host reads it as the line before the record (apply --hold). */
	j = json_pack("{s:s, s:o, s:o, s:i, s:o}", "type", "chip_step", "job",
	    text_json(job), "host", text_json(host), "chip", chip, "key_id",
	    text_json(key_id));
	text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	if (text == NULL) {
		errbuf_set(err, errlen, "the chip step's line cannot be made");
		return -1;
	}
	line = xasprintf("%s\n", text);
	free(text);
	ret = transport_input(rc->apply, line, strlen(line), false, err,
	    errlen);
	free(line);
	return ret;
}

int
relclient_sign(struct relclient *rc, const void *key, const char *key_id,
    const char *actor, const char *reason, const struct relchip *chip,
    const char *refusal, char *err, size_t errlen)
{
	struct relapproval *ap = &rc->ap;
	char *safe, *bytes, *sig, *line;
	struct relrecord r = { 0 };
	bool refuse;
	int ret;

	if (ap->phase != RA_READY || rc->apply == NULL) {
		errbuf_set(err, errlen, "the approval is not waiting for a "
		    "record");
		return -1;
	}
	/* A refusal's reason quotes the host's words: valid UTF-8, or
	 * nothing could be signed. */
	/* A chip step that failed is refused like a target that does not
	 * verify: its reason, the one said. */
	if (refusal != NULL)
		snprintf(ap->problem, sizeof ap->problem, "%s", refusal);
	refuse = !ap->verified || refusal != NULL;
	safe = text_sanitize_str(refuse ? ap->problem : reason);
	r.seq = ap->next_seq;
	r.ts = (double)time(NULL);
	r.actor = (char *)actor;
	r.key_id = (char *)key_id;
	r.action = refuse ? "refused" : ap->action;
	if (!refuse && chip != NULL)
		r.chip = *chip;		/* borrowed: r is not freed */
	r.from = ap->from;
	r.to = ap->to;
	r.reason = safe;
	memcpy(r.prev_sha256, ap->head, sizeof r.prev_sha256);
	bytes = relrecord_signed_bytes(&r);
	sig = bytes != NULL ? relkey_sign(key, bytes, strlen(bytes)) : NULL;
	line = sig != NULL ? relrecord_line(&r, sig) : NULL;
	free(bytes);
	free(sig);
	free(safe);
	if (line == NULL) {
		errbuf_set(err, errlen, "the record cannot be signed (a text "
		    "in it is not UTF-8)");
		return -1;
	}
	ap->sent_refusal = refuse;
	safe = xasprintf("%s\n", line);
	ret = transport_input(rc->apply, safe, strlen(safe), true, err,
	    errlen);
	free(safe);
	free(line);
	if (ret == 0) {
		ap->phase = RA_SENDING;
		changed(rc);
	}
	return ret;
}

void
relclient_cancel(struct relclient *rc)
{
	/* The command goes (a local one is signalled, a remote one's
	 * channel closed): its lock with it, now, even mid-hashing.  Once
	 * the record went, the host finishes what it does with it (it
	 * ignores signals from then on) and its answer is awaited. */
	if (rc->apply != NULL && rc->ap.phase == RA_SENDING)
		return;
	if (rc->apply != NULL) {
		transport_rstream_cancel(rc->apply);
		rc->apply = NULL;
		relclient_refresh(rc);
	}
	memset(&rc->ap, 0, sizeof rc->ap);
	changed(rc);
}

const json_t *
relclient_trusted_keys(const struct relclient *rc)
{
	return rc->held_keys != NULL ? rc->held_keys :
	    json_object_get(rc->status, "trusted_keys");
}

/* ---- life ---- */

struct relclient *
relclient_new(struct transport *t, const char *ws,
    const struct relclient_cb *cb, void *arg)
{
	struct relclient *rc = xcalloc(1, sizeof *rc);

	rc->t = t;
	rc->ws = xstrdup(ws);
	rc->cb = cb;
	rc->arg = arg;
	return rc;
}

void
relclient_free(struct relclient *rc)
{
	int k;

	if (rc == NULL)
		return;
	for (k = 0; k < 2; k++)
		if (rc->fetch[k].rs != NULL) {
			transport_rstream_cancel(rc->fetch[k].rs);
			buf_release(&rc->fetch[k].out);
		}
	/* An approval still open goes with its command; one whose record
	 * went is finished by the host all the same. */
	if (rc->apply != NULL)
		transport_rstream_cancel(rc->apply);
	json_decref(rc->held_keys);
	json_decref(rc->status);
	json_decref(rc->audit);
	free(rc->ws);
	free(rc);
}
