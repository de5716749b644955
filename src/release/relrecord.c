/* relrecord.c: an audit record's bytes, signed and read back
 * (relrecord.h). */
#include "calops.h"

#include <jansson.h>

#include "release/relrecord.h"

static json_t *
gen_or_null(long n)
{
	return n >= 1 ? json_integer(n) : json_null();
}

static json_t *
nine_members(const struct relrecord *r)
{
	return json_pack("{s:I, s:f, s:s, s:s, s:s, s:o, s:o, s:s, s:s}",
	    "seq", (json_int_t)r->seq, "ts", r->ts, "actor", r->actor,
	    "key_id", r->key_id, "action", r->action, "from",
	    gen_or_null(r->from), "to", gen_or_null(r->to), "reason",
	    r->reason, "prev_sha256", r->prev_sha256);
}

char *
relrecord_signed_bytes(const struct relrecord *r)
{
	json_t *o = nine_members(r);
	char *s;

	if (o == NULL)
		return NULL;	/* a string that is not UTF-8 */
	s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER |
	    JSON_REAL_PRECISION(17));
	json_decref(o);
	return s;
}

char *
relrecord_line(const struct relrecord *r, const char *sig_b64)
{
	char *body = relrecord_signed_bytes(r), *line;
	size_t n;

	if (body == NULL)
		return NULL;
	n = strlen(body);
	/* The signed bytes end in '}': the line is them less it, the sig
	 * member, and the '}' back (release.md §3). */
	line = xasprintf("%.*s,\"sig\":\"%s\"}", (int)(n - 1), body, sig_b64);
	free(body);
	return line;
}

static long
gen_of(const json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 1 &&
	    json_integer_value(v) <= LONG_MAX ? (long)json_integer_value(v) :
	    -1;
}

int
relrecord_parse(const char *line, size_t len, struct relrecord *r, char *err,
    size_t errlen)
{
	json_error_t je;
	json_t *o;
	const char *prev;

	memset(r, 0, sizeof *r);
	o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	if (o == NULL || !json_is_object(o)) {
		errbuf_set(err, errlen, "the record is not a JSON object%s%s",
		    o == NULL ? ": " : "", o == NULL ? je.text : "");
		json_decref(o);
		return -1;
	}
	prev = json_string_value(json_object_get(o, "prev_sha256"));
	if (!json_is_integer(json_object_get(o, "seq")) ||
	    !json_is_number(json_object_get(o, "ts")) ||
	    !json_is_string(json_object_get(o, "actor")) ||
	    !json_is_string(json_object_get(o, "key_id")) ||
	    !json_is_string(json_object_get(o, "action")) ||
	    !json_is_string(json_object_get(o, "reason")) ||
	    !json_is_string(json_object_get(o, "sig")) ||
	    prev == NULL || strlen(prev) != 64 ||
	    (!json_is_null(json_object_get(o, "from")) &&
	    gen_of(json_object_get(o, "from")) == -1) ||
	    (!json_is_null(json_object_get(o, "to")) &&
	    gen_of(json_object_get(o, "to")) == -1)) {
		errbuf_set(err, errlen, "the record lacks a member of seq, ts, "
		    "actor, key_id, action, reason, prev_sha256, sig, or has "
		    "one of the wrong type (from and to: null or a "
		    "generation)");
		json_decref(o);
		return -1;
	}
	r->seq = json_integer_value(json_object_get(o, "seq"));
	r->ts = json_number_value(json_object_get(o, "ts"));
	r->actor = xstrdup(json_string_value(json_object_get(o, "actor")));
	r->key_id = xstrdup(json_string_value(json_object_get(o, "key_id")));
	r->action = xstrdup(json_string_value(json_object_get(o, "action")));
	r->reason = xstrdup(json_string_value(json_object_get(o, "reason")));
	r->sig = xstrdup(json_string_value(json_object_get(o, "sig")));
	r->from = gen_of(json_object_get(o, "from"));
	r->to = gen_of(json_object_get(o, "to"));
	memcpy(r->prev_sha256, prev, 65);
	json_decref(o);
	return 0;
}

void
relrecord_free(struct relrecord *r)
{
	free(r->actor);
	free(r->key_id);
	free(r->action);
	free(r->reason);
	free(r->sig);
	memset(r, 0, sizeof *r);
}
