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

/*
 * Plain "s", not text_json(): a signed record says what was given or is
 * not made, never a rewrite of it.  Its strings are checked where they
 * come in: the host by the lab file (letters, digits, '.', '_', '-'), the
 * job id generated here, a skipped reason by cmd_release.c's plain_arg().
 */
json_t *
relrecord_chip_json(const struct relchip *c)
{
	switch (c->kind) {
	case RELCHIP_RAN:
		return json_pack("{s:s, s:I, s:s, s:s, s:s}", "host", c->host,
		    "chip", (json_int_t)c->chip, "job", c->job,
		    "golden_sha256", c->golden_sha256, "result", "pass");
	case RELCHIP_SKIPPED:
		return json_pack("{s:s}", "skipped", c->skipped);
	case RELCHIP_NONE:
		break;
	}
	return NULL;
}

static bool
hex64(const char *s)
{
	return s != NULL && strlen(s) == 64 &&
	    strspn(s, "0123456789abcdef") == 64;
}

/* Whether o's members are names[], in that order, and no others. */
static bool
members_are(const json_t *o, const char *const *names, size_t n)
{
	const char *key;
	json_t *v;
	size_t i = 0;

	if (json_object_size(o) != n)
		return false;
	json_object_foreach((json_t *)o, key, v) {
		(void)v;
		if (i >= n || strcmp(key, names[i++]) != 0)
			return false;
	}
	return true;
}

int
relrecord_chip_parse(const json_t *v, struct relchip *c, char *err,
    size_t errlen)
{
	static const char *const ran[] = { "host", "chip", "job",
	    "golden_sha256", "result" };
	static const char *const skipped[] = { "skipped" };
	const char *host, *job, *sum, *result;
	const json_t *chip;

	memset(c, 0, sizeof *c);
	if (json_is_object(v) && members_are(v, skipped, nitems(skipped)) &&
	    json_is_string(json_object_get(v, "skipped"))) {
		c->kind = RELCHIP_SKIPPED;
		c->skipped = xstrdup(json_string_value(json_object_get(v,
		    "skipped")));
		return 0;
	}
	host = json_string_value(json_object_get(v, "host"));
	job = json_string_value(json_object_get(v, "job"));
	sum = json_string_value(json_object_get(v, "golden_sha256"));
	result = json_string_value(json_object_get(v, "result"));
	chip = json_object_get(v, "chip");
	/* Only a golden that passed is recorded as a chip step: one that
	 * failed is a refusal's reason. */
	if (!json_is_object(v) || !members_are(v, ran, nitems(ran)) ||
	    host == NULL || job == NULL || !hex64(sum) || result == NULL ||
	    strcmp(result, "pass") != 0 || !json_is_integer(chip) ||
	    json_integer_value(chip) < 0 ||
	    json_integer_value(chip) > LONG_MAX) {
		errbuf_set(err, errlen, "chip_step is neither {host, chip, "
		    "job, golden_sha256, result: \"pass\"} nor {skipped}");
		return -1;
	}
	c->kind = RELCHIP_RAN;
	c->host = xstrdup(host);
	c->job = xstrdup(job);
	c->chip = (long)json_integer_value(chip);
	memcpy(c->golden_sha256, sum, 65);
	return 0;
}

void
relrecord_chip_free(struct relchip *c)
{
	free(c->host);
	free(c->job);
	free(c->skipped);
	memset(c, 0, sizeof *c);
}

/* Every member but sig, in release.md §3's order. */
static json_t *
unsigned_members(const struct relrecord *r)
{
	json_t *o, *chip;

	o = json_pack("{s:I, s:f, s:s, s:s, s:s, s:o, s:o, s:s}",
	    "seq", (json_int_t)r->seq, "ts", r->ts, "actor", r->actor,
	    "key_id", r->key_id, "action", r->action, "from",
	    gen_or_null(r->from), "to", gen_or_null(r->to), "reason",
	    r->reason);
	if (o == NULL)
		return NULL;	/* a string that is not UTF-8 */
	if (r->chip.kind != RELCHIP_NONE) {
		if ((chip = relrecord_chip_json(&r->chip)) == NULL) {
			json_decref(o);
			return NULL;
		}
		json_object_set_new(o, "chip_step", chip);
	}
	json_object_set_new(o, "prev_sha256", json_string(r->prev_sha256));
	return o;
}

char *
relrecord_signed_bytes(const struct relrecord *r)
{
	json_t *o = unsigned_members(r);
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
	if (json_object_get(o, "chip_step") != NULL &&
	    relrecord_chip_parse(json_object_get(o, "chip_step"), &r->chip,
	    err, errlen) != 0) {
		json_decref(o);
		relrecord_free(r);
		return -1;
	}
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
	relrecord_chip_free(&r->chip);
	memset(r, 0, sizeof *r);
}
