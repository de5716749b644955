/* release.c: audit log verification (see release.h). */
#include "calops.h"

#include <jansson.h>

#include "release/release.h"
#include "ws/hash.h"

#define ZERO_HASH "0000000000000000000000000000000000000000000000000000000000000000"

static const char *const audit_members[] = { "seq", "ts", "actor", "key_id",
    "action", "from", "to", "reason", "prev_sha256", "sig" };

static int
bad(struct audit_state *st, size_t line, const char *fmt, ...)
    PRINTFLIKE(3, 4);

static int
bad(struct audit_state *st, size_t line, const char *fmt, ...)
{
	va_list ap;

	st->bad_line = line;
	va_start(ap, fmt);
	vsnprintf(st->problem, sizeof st->problem, fmt, ap);
	va_end(ap);
	return -1;
}

/* The members in release.md's order, and nothing else. */
static bool
members_in_order(json_t *o)
{
	const char *key;
	json_t *v;
	size_t i = 0;

	if (json_object_size(o) != nitems(audit_members))
		return false;
	json_object_foreach(o, key, v) {
		(void)v;
		if (strcmp(key, audit_members[i++]) != 0)
			return false;
	}
	return true;
}

/* The members' types: from null before the first switch, to null only in
 * a refusal that named no target. */
static bool
types_ok(json_t *o, const char *action)
{
	json_t *from = json_object_get(o, "from"), *to = json_object_get(o, "to");

	return json_is_number(json_object_get(o, "ts")) &&
	    json_is_string(json_object_get(o, "actor")) &&
	    json_is_string(json_object_get(o, "key_id")) &&
	    json_is_string(json_object_get(o, "reason")) &&
	    json_is_string(json_object_get(o, "sig")) &&
	    (json_is_null(from) || json_is_integer(from)) &&
	    (json_is_integer(to) ||
	    (json_is_null(to) && strcmp(action, "refused") == 0));
}

/* Check one record; line is NUL-terminated, len bytes. */
static int
record(const char *line, size_t len, size_t lineno, const struct keyring *kr,
    struct audit_state *st)
{
	const char *action = NULL, *sig, *key_id;
	json_error_t je;
	char *signed_bytes;
	size_t tail;
	json_t *o;
	int rc = 0;

	o = json_loadb(line, len, JSON_PRESERVE_ORDER | JSON_REJECT_DUPLICATES,
	    &je);
	if (o == NULL || !json_is_object(o)) {
		json_decref(o);
		return bad(st, lineno, "not a JSON object");
	}
	if (!members_in_order(o))
		rc = bad(st, lineno, "members are not seq,ts,actor,key_id,action,"
		    "from,to,reason,prev_sha256,sig");
	else if (json_integer_value(json_object_get(o, "seq")) !=
	    (json_int_t)st->records + 1)
		rc = bad(st, lineno, "seq is not %zu", st->records + 1);
	else if (!json_is_string(json_object_get(o, "prev_sha256")) ||
	    strcmp(json_string_value(json_object_get(o, "prev_sha256")),
	    st->last_line_sha256) != 0)
		rc = bad(st, lineno, "prev_sha256 does not match the previous "
		    "line: the log was edited or cut");
	else if ((action = json_string_value(json_object_get(o, "action"))) ==
	    NULL || (strcmp(action, "promote") != 0 &&
	    strcmp(action, "rollback") != 0 && strcmp(action, "refused") != 0))
		rc = bad(st, lineno, "action is not promote, rollback or refused");
	else if (!types_ok(o, action))
		rc = bad(st, lineno, "a member has the wrong type");
	if (rc != 0)
		goto out;
	sig = json_string_value(json_object_get(o, "sig"));
	key_id = json_string_value(json_object_get(o, "key_id"));

	/*
	 * The signed bytes end where the last member begins, so the line must
	 * end in exactly ',"sig":"<sig>"}' (compact, nothing escaped).
	 */
	tail = strlen(",\"sig\":\"") + strlen(sig) + strlen("\"}");
	if (len < tail || strncmp(line + len - tail, ",\"sig\":\"", 8) != 0 ||
	    strncmp(line + len - tail + 8, sig, strlen(sig)) != 0 ||
	    strcmp(line + len - 2, "\"}") != 0) {
		rc = bad(st, lineno, "the record does not end in its signature");
		goto out;
	}
	signed_bytes = xasprintf("%.*s}", (int)(len - tail), line);
	if (keyring_verify(kr, key_id, signed_bytes, strlen(signed_bytes), sig,
	    strlen(sig)) == NULL)
		rc = bad(st, lineno, "signature does not verify with trusted key "
		    "'%s'", key_id);
	free(signed_bytes);
	if (rc == 0 && strcmp(action, "refused") != 0) {
		st->last_switch_to = json_is_integer(json_object_get(o, "to")) ?
		    json_integer_value(json_object_get(o, "to")) : -1;
		st->last_switch_ts = json_number_value(json_object_get(o,
		    "ts"));
		st->last_switch_from = json_is_integer(json_object_get(o,
		    "from")) ? json_integer_value(json_object_get(o, "from")) :
		    -1;
	}
out:
	json_decref(o);
	return rc;
}

int
release_audit_verify(const char *data, size_t len, const struct keyring *kr,
    struct audit_state *st)
{
	size_t start = 0, end, lineno = 0;
	char *line;
	int rc = 0;

	memset(st, 0, sizeof *st);
	st->last_switch_to = st->last_switch_from = -1;
	memcpy(st->last_line_sha256, ZERO_HASH, sizeof st->last_line_sha256);
	while (start < len && rc == 0) {
		const char *nl = memchr(data + start, '\n', len - start);

		lineno++;
		if (nl == NULL)
			return bad(st, lineno, "the last record has no newline: "
			    "the log was cut");
		end = (size_t)(nl - data);
		line = xstrndup(data + start, end - start);
		if (strlen(line) != end - start)
			rc = bad(st, lineno, "a NUL byte inside a record");
		else
			rc = record(line, end - start, lineno, kr, st);
		if (rc == 0) {
			hash_bytes(line, end - start, st->last_line_sha256);
			st->records++;
		}
		free(line);
		start = end + 1;
	}
	return rc;
}

int
release_audit_verify_next(const char *line, size_t len,
    const struct keyring *kr, struct audit_state *st)
{
	char *copy;
	int rc;

	if (memchr(line, '\0', len) != NULL || memchr(line, '\n', len) != NULL)
		return bad(st, st->records + 1, "a record is one line of text");
	copy = xstrndup(line, len);
	if ((rc = record(copy, len, st->records + 1, kr, st)) == 0) {
		hash_bytes(copy, len, st->last_line_sha256);
		st->records++;
		st->bad_line = 0;
		st->problem[0] = '\0';
	}
	free(copy);
	return rc;
}
