/*
 * test_release.c: the audit log (relaudit.c), the keyring (keyring.c), the
 * records the switch writes (relrecord.c) and the approver's key (relkey.c),
 * with real Ed25519 keys made here and logs written exactly as release.md
 * §3 says: compact JSON, members in order, a prev_sha256 chain, and sig over
 * the bytes before ',"sig":' followed by '}'.
 */
#include "calops.h"

#include <sys/stat.h>

#include <setjmp.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "base/buf.h"
#include "release/keyring.h"
#include "release/relaudit.h"
#include "release/relkey.h"
#include "release/relrecord.h"
#include "release/relstate.h"

/* Two trusted keys and one stranger, for every test. */
static EVP_PKEY *alice, *bob, *mallory;

static EVP_PKEY *
keygen(void)
{
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");

	assert_non_null(k);
	return k;
}

/* The PEM public key of k, a new string. */
static char *
pem_of(EVP_PKEY *k)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *p, *pem;
	long n;

	assert_non_null(bio);
	assert_int_equal(PEM_write_bio_PUBKEY(bio, k), 1);
	n = BIO_get_mem_data(bio, &p);
	pem = xstrndup(p, (size_t)n);
	BIO_free(bio);
	return pem;
}

static void
ring_add(struct keyring *kr, const char *name, EVP_PKEY *k)
{
	char err[128], *pem = pem_of(k);

	if (keyring_add_pem(kr, name, pem, strlen(pem), err, sizeof err) != 0)
		fail_msg("%s", err);
	free(pem);
}

/* alice and bob trusted, as trusted-keys/alice.pub and bob.pub. */
static void
ring(struct keyring *kr)
{
	memset(kr, 0, sizeof *kr);
	ring_add(kr, "alice", alice);
	ring_add(kr, "bob", bob);
}

/* base64 of an Ed25519 signature by k over len bytes, a new string. */
static char *
sign(EVP_PKEY *k, const void *msg, size_t len)
{
	unsigned char sig[64], b64[96];
	size_t siglen = sizeof sig;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	assert_non_null(ctx);
	assert_int_equal(EVP_DigestSignInit(ctx, NULL, NULL, NULL, k), 1);
	assert_int_equal(EVP_DigestSign(ctx, sig, &siglen, msg, len), 1);
	assert_int_equal(siglen, 64);
	EVP_MD_CTX_free(ctx);
	assert_int_equal(EVP_EncodeBlock(b64, sig, 64), 88);
	return xstrdup((const char *)b64);
}

static void
sha256_hex(const void *data, size_t len, char hex[65])
{
	unsigned char md[32];
	unsigned int n = 0;
	size_t i;

	assert_int_equal(EVP_Digest(data, len, md, &n, EVP_sha256(), NULL), 1);
	for (i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/* A log being written: its text and the hash of its last line. */
struct log {
	struct buf	 text;
	char		 prev[65];
	long		 seq;
};

static void
log_init(struct log *l)
{
	buf_init(&l->text, 0);
	memset(l->prev, '0', 64);
	l->prev[64] = '\0';
	l->seq = 1;
}

/* Sign `body` (a record up to, not including, ',"sig":') with k and
 * append the line. */
static void
log_add_body(struct log *l, EVP_PKEY *k, const char *body)
{
	char *signed_bytes = xasprintf("%s}", body), *sig, *line;

	sig = sign(k, signed_bytes, strlen(signed_bytes));
	line = xasprintf("%s,\"sig\":\"%s\"}", body, sig);
	buf_adds(&l->text, line);
	buf_addc(&l->text, '\n');
	sha256_hex(line, strlen(line), l->prev);
	l->seq++;
	free(line);
	free(sig);
	free(signed_bytes);
}

/* One record as release.md writes it; from and to are JSON text. */
static void
log_add(struct log *l, EVP_PKEY *k, const char *key_id, const char *action,
    const char *from, const char *to)
{
	char *body;

	body = xasprintf("{\"seq\":%ld,\"ts\":%ld,\"actor\":\"A. Person "
	    "(release)\",\"key_id\":\"%s\",\"action\":\"%s\",\"from\":%s,"
	    "\"to\":%s,\"reason\":\"test \\\"quoted\\\" reason, \\u00e9\","
	    "\"prev_sha256\":\"%s\"", l->seq, 1788795730L + l->seq, key_id,
	    action, from, to, l->prev);
	log_add_body(l, k, body);
	free(body);
}

/* The usual history: promote 1, promote 2, a refusal, rollback to 1. */
static void
log_history(struct log *l)
{
	log_init(l);
	log_add(l, alice, "alice", "promote", "null", "1");
	log_add(l, bob, "bob", "promote", "1", "2");
	log_add(l, alice, "alice", "refused", "2", "3");
	log_add(l, alice, "alice", "rollback", "2", "1");
}

static int
verify(const char *data, size_t len, struct audit_state *st)
{
	struct keyring kr;
	int rc;

	ring(&kr);
	rc = relaudit_verify(data, len, &kr, st);
	keyring_release(&kr);
	return rc;
}

/* Expect the log to fail at bad_line, with `what` in the problem. */
static void
expect_bad(const char *data, size_t len, size_t bad_line, const char *what)
{
	struct audit_state st;

	if (verify(data, len, &st) != -1)
		fail_msg("the log verified: %.*s", (int)len, data);
	if (st.bad_line != bad_line)
		fail_msg("bad line %zu, wanted %zu (%s)", st.bad_line, bad_line,
		    st.problem);
	if (what != NULL && strstr(st.problem, what) == NULL)
		fail_msg("problem '%s' lacks '%s'", st.problem, what);
}

static int
group_setup(void **state)
{
	(void)state;
	alice = keygen();
	bob = keygen();
	mallory = keygen();
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	EVP_PKEY_free(alice);
	EVP_PKEY_free(bob);
	EVP_PKEY_free(mallory);
	return 0;
}

static void
test_intact(void **state)
{
	struct audit_state st;
	struct log l;
	char hex[65];
	const char *last;

	(void)state;
	log_init(&l);
	log_add(&l, alice, "alice", "promote", "null", "1");
	log_add(&l, bob, "bob", "promote", "1", "2");
	log_add(&l, alice, "alice", "refused", "2", "3");
	assert_int_equal(verify(l.text.data, l.text.len, &st), 0);
	assert_int_equal(st.records, 3);
	assert_int_equal(st.bad_line, 0);
	assert_int_equal(st.last_switch_to, 2);	/* a refusal switches nothing */
	assert_string_equal(st.last_line_sha256, l.prev);
	log_add(&l, alice, "alice", "rollback", "2", "1");
	assert_int_equal(verify(l.text.data, l.text.len, &st), 0);
	assert_int_equal(st.records, 4);
	assert_int_equal(st.last_switch_to, 1);
	/* last_line_sha256 is the hash of the last line without its LF */
	last = l.text.data + l.text.len - 1;
	while (last > l.text.data && last[-1] != '\n')
		last--;
	sha256_hex(last, (size_t)(l.text.data + l.text.len - 1 - last), hex);
	assert_string_equal(st.last_line_sha256, hex);
	buf_release(&l.text);

	/* an empty log is intact and has switched nothing */
	assert_int_equal(verify("", 0, &st), 0);
	assert_int_equal(st.records, 0);
	assert_int_equal(st.last_switch_to, -1);
	/* only refusals: still nothing switched */
	log_init(&l);
	log_add(&l, bob, "bob", "refused", "null", "1");
	log_add(&l, bob, "bob", "refused", "null", "null");
	assert_int_equal(verify(l.text.data, l.text.len, &st), 0);
	assert_int_equal(st.last_switch_to, -1);
	buf_release(&l.text);
}

/* verify with the first `lines` lines of l known to verify (relcache.h) */
static int
verify_known(const struct log *l, size_t lines, struct audit_state *st)
{
	struct relaudit_known k = { .records = lines };
	const char *p = l->text.data;
	struct keyring kr;
	size_t i;
	int rc;

	for (i = 0; i < lines; i++)
		p = strchr(p, '\n') + 1;
	k.bytes = (size_t)(p - l->text.data);
	sha256_hex(l->text.data, k.bytes, k.sha256);
	ring(&kr);
	rc = relaudit_verify_known(l->text.data, l->text.len, &kr, &k, st);
	keyring_release(&kr);
	return rc;
}

/*
 * What verified before is not checked again while the log still begins
 * with it (a rollback's time, issue 31), and the state after it is the
 * whole check's; a prefix that is not the log's any more is no help.
 */
static void
test_known_prefix(void **state)
{
	struct audit_state full, st;
	struct relaudit_known k;
	struct keyring kr;
	struct log l;

	(void)state;
	log_history(&l);
	log_add(&l, bob, "bob", "refused", "1", "2");
	assert_int_equal(verify(l.text.data, l.text.len, &full), 0);
	/* Known up to the refusal: the last switch is found behind it. */
	assert_int_equal(verify_known(&l, 3, &st), 0);
	assert_memory_equal(&st, &full, sizeof st);
	assert_int_equal(verify_known(&l, 5, &st), 0);
	assert_memory_equal(&st, &full, sizeof st);
	assert_int_equal(verify_known(&l, 1, &st), 0);
	assert_memory_equal(&st, &full, sizeof st);
	buf_release(&l.text);

	/* A record no trusted key signed, known as verified: not checked
	 * again (the cache is this user's, not the workspace's) ... */
	log_init(&l);
	log_add(&l, mallory, "alice", "promote", "null", "1");
	log_add(&l, bob, "bob", "promote", "1", "2");
	expect_bad(l.text.data, l.text.len, 1, "signature does not verify");
	assert_int_equal(verify_known(&l, 1, &st), 0);
	assert_int_equal(st.records, 2);
	assert_int_equal(st.last_switch_to, 2);
	/* ... but once the log no longer begins with those bytes, all is. */
	k.records = 1;
	k.bytes = (size_t)(strchr(l.text.data, '\n') + 1 - l.text.data);
	sha256_hex(l.text.data, k.bytes, k.sha256);
	l.text.data[k.bytes - 3] ^= 1;	/* in its signature */
	ring(&kr);
	assert_int_equal(relaudit_verify_known(l.text.data, l.text.len, &kr,
	    &k, &st), -1);
	keyring_release(&kr);
	assert_int_equal(st.bad_line, 1);
	buf_release(&l.text);
}

/* Every single byte edited anywhere in the log breaks it, at that line. */
static void
test_edited(void **state)
{
	struct audit_state st;
	struct log l;
	size_t i, line = 1;
	char *copy;

	(void)state;
	log_init(&l);
	log_add(&l, alice, "alice", "promote", "null", "1");
	log_add(&l, bob, "bob", "promote", "1", "2");
	log_add(&l, alice, "alice", "rollback", "2", "1");
	copy = xstrndup(l.text.data, l.text.len);
	for (i = 0; i < l.text.len; i++) {
		if (copy[i] == '\n') {
			line++;
			continue;
		}
		copy[i] ^= 0x01;
		if (verify(copy, l.text.len, &st) != -1)
			fail_msg("byte %zu edited and the log verified", i);
		if (st.bad_line != line)
			fail_msg("byte %zu: bad line %zu, wanted %zu (%s)", i,
			    st.bad_line, line, st.problem);
		copy[i] ^= 0x01;
	}
	assert_int_equal(verify(copy, l.text.len, &st), 0);
	free(copy);
	buf_release(&l.text);
}

static void
test_removed_and_cut(void **state)
{
	struct log l;
	char *first_end, *second_end, *copy;
	size_t n;

	(void)state;
	log_history(&l);
	first_end = strchr(l.text.data, '\n') + 1;
	second_end = strchr(first_end, '\n') + 1;

	/* a middle line removed: the next one has the wrong seq */
	n = (size_t)(second_end - first_end);
	copy = xstrndup(l.text.data, l.text.len);
	memmove(copy + (first_end - l.text.data),
	    copy + (second_end - l.text.data),
	    l.text.len - (size_t)(second_end - l.text.data));
	expect_bad(copy, l.text.len - n, 2, "seq");
	free(copy);
	/* the first line removed */
	expect_bad(first_end, l.text.len - (size_t)(first_end - l.text.data), 1,
	    "seq");

	/* the last line cut: no newline, anywhere in it */
	expect_bad(l.text.data, l.text.len - 1, 4, "cut");
	expect_bad(l.text.data, l.text.len - 10, 4, "cut");
	expect_bad(l.text.data, (size_t)(second_end - l.text.data) + 1, 3,
	    "cut");
	/* cut after a whole line is just a shorter log */
	{
		struct audit_state st;

		assert_int_equal(verify(l.text.data,
		    (size_t)(second_end - l.text.data), &st), 0);
		assert_int_equal(st.records, 2);
		assert_int_equal(st.last_switch_to, 2);
	}
	buf_release(&l.text);
}

/* Records that are signed properly but say the wrong thing. */
static void
test_signed_but_wrong(void **state)
{
	static const struct {
		const char	*fmt;	/* %ld seq, %s prev */
		const char	*what;
	} cases[] = {
		/* wrong seq */
		{ "{\"seq\":3,\"ts\":1,\"actor\":\"a\",\"key_id\":\"alice\","
		  "\"action\":\"promote\",\"from\":1,\"to\":2,\"reason\":\"r\","
		  "\"prev_sha256\":\"%2$s\"", "seq" },
		/* wrong member order */
		{ "{\"seq\":%1$ld,\"actor\":\"a\",\"ts\":1,\"key_id\":\"alice\","
		  "\"action\":\"promote\",\"from\":1,\"to\":2,\"reason\":\"r\","
		  "\"prev_sha256\":\"%2$s\"", "members" },
		/* a member missing, one too many */
		{ "{\"seq\":%1$ld,\"ts\":1,\"actor\":\"a\",\"key_id\":\"alice\","
		  "\"action\":\"promote\",\"from\":1,\"to\":2,"
		  "\"prev_sha256\":\"%2$s\"", "members" },
		{ "{\"seq\":%1$ld,\"ts\":1,\"actor\":\"a\",\"key_id\":\"alice\","
		  "\"action\":\"promote\",\"from\":1,\"to\":2,\"reason\":\"r\","
		  "\"extra\":1,\"prev_sha256\":\"%2$s\"", "members" },
		/* unknown action */
		{ "{\"seq\":%1$ld,\"ts\":1,\"actor\":\"a\",\"key_id\":\"alice\","
		  "\"action\":\"deploy\",\"from\":1,\"to\":2,\"reason\":\"r\","
		  "\"prev_sha256\":\"%2$s\"", "action" },
		{ "{\"seq\":%1$ld,\"ts\":1,\"actor\":\"a\",\"key_id\":\"alice\","
		  "\"action\":null,\"from\":1,\"to\":2,\"reason\":\"r\","
		  "\"prev_sha256\":\"%2$s\"", "action" },
		/* prev_sha256 of something else */
		{ "{\"seq\":%1$ld,\"ts\":1,\"actor\":\"a\",\"key_id\":\"alice\","
		  "\"action\":\"promote\",\"from\":1,\"to\":2,\"reason\":\"r\","
		  "\"prev_sha256\":\"0000000000000000000000000000000000000000"
		  "000000000000000000000000\"", "prev_sha256" },
		/* wrong types */
		{ "{\"seq\":%1$ld,\"ts\":\"1\",\"actor\":\"a\",\"key_id\":\"alice\","
		  "\"action\":\"promote\",\"from\":1,\"to\":2,\"reason\":\"r\","
		  "\"prev_sha256\":\"%2$s\"", "type" },
		{ "{\"seq\":%1$ld,\"ts\":1,\"actor\":\"a\",\"key_id\":\"alice\","
		  "\"action\":\"promote\",\"from\":\"1\",\"to\":2,\"reason\":\"r\","
		  "\"prev_sha256\":\"%2$s\"", "type" },
		{ "{\"seq\":%1$ld,\"ts\":1,\"actor\":\"a\",\"key_id\":\"alice\","
		  "\"action\":\"promote\",\"from\":1,\"to\":null,\"reason\":\"r\","
		  "\"prev_sha256\":\"%2$s\"", "type" },
		{ "{\"seq\":%1$ld,\"ts\":1,\"actor\":\"a\",\"key_id\":\"alice\","
		  "\"action\":\"promote\",\"from\":1,\"to\":2,"
		  "\"reason\":{\"a\":1,\"sig\":\"x\"},"
		  "\"prev_sha256\":\"%2$s\"", "type" },
		{ "{\"seq\":\"%1$ld\",\"ts\":1,\"actor\":\"a\",\"key_id\":\"alice\","
		  "\"action\":\"promote\",\"from\":1,\"to\":2,\"reason\":\"r\","
		  "\"prev_sha256\":\"%2$s\"", "seq" },
		/* key_id not in the ring */
		{ "{\"seq\":%1$ld,\"ts\":1,\"actor\":\"a\",\"key_id\":\"carol\","
		  "\"action\":\"promote\",\"from\":1,\"to\":2,\"reason\":\"r\","
		  "\"prev_sha256\":\"%2$s\"", "carol" },
	};
	struct log l;
	char *body;
	size_t i;

	(void)state;
	for (i = 0; i < nitems(cases); i++) {
		log_init(&l);
		log_add(&l, alice, "alice", "promote", "null", "1");
		body = xasprintf(cases[i].fmt, l.seq, l.prev);
		log_add_body(&l, alice, body);
		free(body);
		log_add(&l, alice, "alice", "promote", "2", "3");
		expect_bad(l.text.data, l.text.len, 2, cases[i].what);
		buf_release(&l.text);
	}
}

/* Signatures by the wrong key, or not where they belong. */
static void
test_signatures(void **state)
{
	struct log l;
	char *body, *line, *sig;

	(void)state;
	/* key_id alice, signed by bob (trusted, but not alice) */
	log_init(&l);
	log_add(&l, alice, "alice", "promote", "null", "1");
	log_add(&l, bob, "alice", "promote", "1", "2");
	expect_bad(l.text.data, l.text.len, 2, "alice");
	buf_release(&l.text);
	/* signed by a stranger */
	log_init(&l);
	log_add(&l, mallory, "alice", "promote", "null", "1");
	expect_bad(l.text.data, l.text.len, 1, "signature");
	buf_release(&l.text);
	/* key_id mallory, who is not in the ring */
	log_init(&l);
	log_add(&l, mallory, "mallory", "promote", "null", "1");
	expect_bad(l.text.data, l.text.len, 1, "mallory");
	buf_release(&l.text);

	/* the signature over the whole line instead of the prefix */
	log_init(&l);
	body = xasprintf("{\"seq\":1,\"ts\":1,\"actor\":\"a\",\"key_id\":"
	    "\"alice\",\"action\":\"promote\",\"from\":null,\"to\":1,"
	    "\"reason\":\"r\",\"prev_sha256\":\"%s\"", l.prev);
	sig = sign(alice, body, strlen(body));
	line = xasprintf("%s,\"sig\":\"%s\"}\n", body, sig);
	expect_bad(line, strlen(line), 1, "signature");
	free(line);
	/* not compact around the signature, or something after it */
	free(sig);
	line = xasprintf("%s}", body);
	sig = sign(alice, line, strlen(line));
	free(line);
	line = xasprintf("%s,\"sig\": \"%s\"}\n", body, sig);
	expect_bad(line, strlen(line), 1, "end");
	free(line);
	line = xasprintf("%s,\"sig\":\"%s\"} \n", body, sig);
	expect_bad(line, strlen(line), 1, "end");
	free(line);
	line = xasprintf("%s,\"sig\":\"%s\"}\r\n", body, sig);
	expect_bad(line, strlen(line), 1, "end");
	free(line);
	/* escaped in the JSON: the same string, other bytes */
	line = xasprintf("%s,\"sig\":\"%.10s\\/%s\"}\n", body, sig, sig + 11);
	if (sig[10] == '/')
		expect_bad(line, strlen(line), 1, "end");
	free(line);
	/* the sig with junk after '-', which OpenSSL's decoder would skip */
	line = xasprintf("%s,\"sig\":\"%s-junk\"}\n", body, sig);
	expect_bad(line, strlen(line), 1, "signature");
	free(line);
	/* and as it should be */
	line = xasprintf("%s,\"sig\":\"%s\"}\n", body, sig);
	{
		struct audit_state st;

		assert_int_equal(verify(line, strlen(line), &st), 0);
	}
	free(line);
	free(sig);
	free(body);
}

static void
test_malformed(void **state)
{
	struct log l;
	struct buf b = BUF_INIT;

	(void)state;
	log_history(&l);
	/* a blank line, a non-object, a NUL byte, garbage */
	expect_bad("\n", 1, 1, "JSON object");
	expect_bad("[1]\n", 4, 1, "JSON object");
	expect_bad("{\"seq\":1,\0}\n", 12, 1, "NUL");
	expect_bad("not json\n", 9, 1, NULL);
	buf_add(&b, l.text.data, l.text.len);
	buf_adds(&b, "\n");
	expect_bad(b.data, b.len, 5, NULL);	/* a trailing blank line */
	buf_reset(&b);
	buf_adds(&b, strchr(l.text.data, '\n') + 1);
	expect_bad(b.data, b.len, 1, NULL);
	buf_release(&b);
	buf_release(&l.text);
}

static void
test_base64(void **state)
{
	static const struct {
		const char	*in;
		long		 n;
		const char	*out;
	} cases[] = {
		{ "QUJD", 3, "ABC" },
		{ "QUI=", 2, "AB" },
		{ "QQ==", 1, "A" },
		{ "QUJDRA==", 4, "ABCD" },
		{ "QUJD\n", 3, "ABC" },			/* blanks at the end */
		{ "QUJD \r\n\t", 3, "ABC" },
		{ "+/+/", 3, "\xfb\xff\xbf" },
		{ "", -1, NULL },
		{ " \n", -1, NULL },
		{ " QUJD", -1, NULL },			/* nor at the start */
		{ "QU JD", -1, NULL },			/* nor inside */
		{ "QUJD\nQUJD", -1, NULL },
		{ "QUJ", -1, NULL },			/* not groups of four */
		{ "QUJDR", -1, NULL },
		{ "QUJD-xyz", -1, NULL },		/* EVP stops at '-' */
		{ "QUJD-", -1, NULL },
		{ "Q===", -1, NULL },
		{ "====", -1, NULL },
		{ "QU=I", -1, NULL },
		{ "QUI=QUI=", -1, NULL },		/* padding inside */
		{ "QUJ=", -1, NULL },			/* non-zero bits under pad */
		{ "QR==", -1, NULL },
		{ "-_-_", -1, NULL },			/* base64url */
		{ "QUJD\0", -1, NULL },
		{ "QU\x80=", -1, NULL },
	};
	unsigned char out[64], raw[100], enc[160];
	long n;
	size_t i, len;

	(void)state;
	for (i = 0; i < nitems(cases); i++) {
		len = strlen(cases[i].in);
		if (i == nitems(cases) - 2)
			len = 5;			/* with its NUL */
		memset(out, 0, sizeof out);
		n = keyring_base64_decode(cases[i].in, len, out, sizeof out);
		if (n != cases[i].n)
			fail_msg("'%s': %ld, wanted %ld", cases[i].in, n,
			    cases[i].n);
		if (n > 0 && memcmp(out, cases[i].out, (size_t)n) != 0)
			fail_msg("'%s': wrong bytes", cases[i].in);
	}
	/* the output must have room, and no more than needed is asked */
	assert_int_equal(keyring_base64_decode("QUJD", 4, out, 2), -1);
	assert_int_equal(keyring_base64_decode("QUJD", 4, out, 3), 3);
	assert_int_equal(keyring_base64_decode("QUI=", 4, out, 3), 2);
	/* round trips through OpenSSL's encoder, every length to 100 */
	for (len = 0; len <= sizeof raw; len++) {
		for (i = 0; i < len; i++)
			raw[i] = (unsigned char)(i * 37 + len);
		EVP_EncodeBlock(enc, raw, (int)len);
		n = keyring_base64_decode(
		    (const char *)enc, strlen((char *)enc), out, sizeof out);
		if (len == 0)
			assert_int_equal(n, -1);
		else if (len > sizeof out)
			assert_int_equal(n, -1);	/* no room */
		else {
			assert_int_equal(n, (long)len);
			assert_memory_equal(out, raw, len);
		}
	}
}

static void
test_keyring(void **state)
{
	static const char msg[] = "release-manifest bytes";
	struct keyring kr;
	EVP_PKEY *ec, *x;
	char err[128], *pem, *sig, *s2;

	(void)state;
	memset(&kr, 0, sizeof kr);
	assert_int_equal(keyring_add_pem(&kr, "junk", "not a key", 9, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "not a PEM public key"));
	assert_int_equal(keyring_add_pem(&kr, "empty", "", 0, err, sizeof err),
	    -1);
	ec = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	x = EVP_PKEY_Q_keygen(NULL, NULL, "X25519");
	assert_non_null(ec);
	assert_non_null(x);
	pem = pem_of(ec);
	assert_int_equal(keyring_add_pem(&kr, "ec", pem, strlen(pem), err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "not an Ed25519 key"));
	free(pem);
	pem = pem_of(x);
	assert_int_equal(keyring_add_pem(&kr, "x", pem, strlen(pem), err,
	    sizeof err), -1);
	free(pem);
	EVP_PKEY_free(ec);
	EVP_PKEY_free(x);
	assert_int_equal(kr.n, 0);

	ring(&kr);
	assert_int_equal(kr.n, 2);
	sig = sign(bob, msg, strlen(msg));
	assert_string_equal(keyring_verify(&kr, NULL, msg, strlen(msg), sig,
	    strlen(sig)), "bob");
	assert_string_equal(keyring_verify(&kr, "bob", msg, strlen(msg), sig,
	    strlen(sig)), "bob");
	assert_null(keyring_verify(&kr, "alice", msg, strlen(msg), sig,
	    strlen(sig)));
	assert_null(keyring_verify(&kr, "carol", msg, strlen(msg), sig,
	    strlen(sig)));
	assert_null(keyring_verify(&kr, NULL, msg, strlen(msg) - 1, sig,
	    strlen(sig)));
	/* whitespace after the signature, as in a .sig file */
	s2 = xasprintf("%s\n", sig);
	assert_string_equal(keyring_verify(&kr, NULL, msg, strlen(msg), s2,
	    strlen(s2)), "bob");
	free(s2);
	/* too short, too long, not base64 */
	assert_null(keyring_verify(&kr, NULL, msg, strlen(msg), sig, 84));
	s2 = xasprintf("%sAAAA", sig);
	assert_null(keyring_verify(&kr, NULL, msg, strlen(msg), s2,
	    strlen(s2)));
	free(s2);
	s2 = xmalloc(300);
	memset(s2, 'A', 300);
	assert_null(keyring_verify(&kr, NULL, msg, strlen(msg), s2, 300));
	free(s2);
	assert_null(keyring_verify(&kr, NULL, msg, strlen(msg), "", 0));
	free(sig);
	sig = sign(mallory, msg, strlen(msg));
	assert_null(keyring_verify(&kr, NULL, msg, strlen(msg), sig,
	    strlen(sig)));
	free(sig);
	keyring_release(&kr);
	assert_int_equal(kr.n, 0);
	assert_null(kr.keys);
}

/*
 * relrecord builds the line release.md §3 describes: relaudit.c's verifier
 * takes it, one record after another, and refuses it changed in any byte,
 * placed at another seq, or signed by a key other than key_id's.
 */
static void
test_relrecord(void **state)
{
	struct relrecord r = { .seq = 1, .ts = 1796294538.0,
	    .actor = "Zo\xc3\xab \"Q\" Person", .key_id = "alice",
	    .action = "promote", .from = -1, .to = 1,
	    .reason = "first \\ release\nline two" }, back;
	struct audit_state st, again;
	struct keyring kr;
	char *bytes, *sig, *line, err[256];
	size_t i;

	(void)state;
	ring(&kr);
	memset(&st, 0, sizeof st);
	st.last_switch_to = -1;
	memset(st.last_line_sha256, '0', 64);
	memset(r.prev_sha256, '0', 64);
	bytes = relrecord_signed_bytes(&r);
	assert_non_null(bytes);
	assert_string_equal(bytes, "{\"seq\":1,\"ts\":1796294538.0,\"actor\":"
	    "\"Zo\xc3\xab \\\"Q\\\" Person\",\"key_id\":\"alice\",\"action\":"
	    "\"promote\",\"from\":null,\"to\":1,\"reason\":\"first \\\\ "
	    "release\\nline two\",\"prev_sha256\":\"000000000000000000000000"
	    "0000000000000000000000000000000000000000\"}");
	sig = sign(alice, bytes, strlen(bytes));
	line = relrecord_line(&r, sig);
	again = st;
	assert_int_equal(relaudit_verify_next(line, strlen(line), &kr,
	    &again), 0);
	assert_int_equal(again.records, 1);
	assert_int_equal(again.last_switch_to, 1);
	/* Read back, the same record. */
	assert_int_equal(relrecord_parse(line, strlen(line), &back, err,
	    sizeof err), 0);
	assert_int_equal(back.seq, 1);
	assert_int_equal(back.from, -1);
	assert_int_equal(back.to, 1);
	assert_string_equal(back.actor, r.actor);
	assert_string_equal(back.reason, r.reason);
	relrecord_free(&back);
	/* Any byte changed: refused. */
	for (i = 0; line[i] != '\0'; i++) {
		char keep = line[i];

		line[i] = keep == 'a' ? 'b' : 'a';
		again = st;
		assert_int_equal(relaudit_verify_next(line, strlen(line),
		    &kr, &again), -1);
		line[i] = keep;
	}
	/* Signed by bob, claimed as alice: refused. */
	free(line);
	free(sig);
	sig = sign(bob, bytes, strlen(bytes));
	line = relrecord_line(&r, sig);
	again = st;
	assert_int_equal(relaudit_verify_next(line, strlen(line), &kr,
	    &again), -1);
	assert_non_null(strstr(again.problem, "'alice'"));
	/* At another place in the chain: refused. */
	again = st;
	again.records = 1;
	assert_int_equal(relaudit_verify_next(line, strlen(line), &kr,
	    &again), -1);
	/* Text that is not UTF-8 has no record. */
	r.actor = "\xff";
	assert_null(relrecord_signed_bytes(&r));
	free(line);
	free(sig);
	free(bytes);
	keyring_release(&kr);
}

/*
 * v3's chip_step (release.md §3, §6): between reason and prev_sha256, one
 * of two forms, members in order; signed and read back like the rest.  A
 * log of v2 records (none) and v3 ones verifies as one chain; a chip_step
 * of another shape, in a refusal, or out of its place breaks it there.
 */
static void
test_chip_step(void **state)
{
	struct relrecord r = { .seq = 1, .ts = 1796294538.0,
	    .actor = "A", .key_id = "alice", .action = "promote",
	    .from = -1, .to = 1, .reason = "go" }, back;
	struct audit_state st;
	struct keyring kr;
	struct log l;
	char *bytes, *sig, *line, err[256], sum[65];

	(void)state;
	ring(&kr);
	memset(sum, 'a', 64);
	sum[64] = '\0';
	memset(r.prev_sha256, '0', 64);
	r.chip = (struct relchip){ .kind = RELCHIP_RAN, .host = "lab3",
	    .chip = 2, .job = "20261206-101500-a1b2c3" };
	memcpy(r.chip.golden_sha256, sum, 65);
	bytes = relrecord_signed_bytes(&r);
	assert_non_null(bytes);
	assert_non_null(strstr(bytes, "\"reason\":\"go\",\"chip_step\":{"
	    "\"host\":\"lab3\",\"chip\":2,\"job\":\"20261206-101500-a1b2c3\","
	    "\"golden_sha256\":\"aaaa"));
	assert_non_null(strstr(bytes, "\"result\":\"pass\"},\"prev_sha256\""));
	sig = sign(alice, bytes, strlen(bytes));
	line = relrecord_line(&r, sig);
	memset(&st, 0, sizeof st);
	st.last_switch_to = -1;
	memset(st.last_line_sha256, '0', 64);
	assert_int_equal(relaudit_verify_next(line, strlen(line), &kr,
	    &st), 0);
	assert_int_equal(st.last_switch_chip, RELCHIP_RAN);
	assert_int_equal(relrecord_parse(line, strlen(line), &back, err,
	    sizeof err), 0);
	assert_int_equal(back.chip.kind, RELCHIP_RAN);
	assert_string_equal(back.chip.host, "lab3");
	assert_int_equal(back.chip.chip, 2);
	assert_string_equal(back.chip.job, "20261206-101500-a1b2c3");
	assert_string_equal(back.chip.golden_sha256, sum);
	relrecord_free(&back);
	free(line);
	free(sig);
	free(bytes);

	/* Skipped, with the approver's reason: read back as such. */
	r.chip = (struct relchip){ .kind = RELCHIP_SKIPPED,
	    .skipped = "lab down, \"hotfix\"" };
	bytes = relrecord_signed_bytes(&r);
	assert_non_null(strstr(bytes, "\"chip_step\":{\"skipped\":\"lab down, "
	    "\\\"hotfix\\\"\"},\"prev_sha256\""));
	sig = sign(alice, bytes, strlen(bytes));
	line = relrecord_line(&r, sig);
	assert_int_equal(relrecord_parse(line, strlen(line), &back, err,
	    sizeof err), 0);
	assert_int_equal(back.chip.kind, RELCHIP_SKIPPED);
	assert_string_equal(back.chip.skipped, "lab down, \"hotfix\"");
	relrecord_free(&back);
	free(line);
	free(sig);
	free(bytes);

	/* v2 records and v3 ones in one chain; the last switch's skip
	 * reason is what G10 and the status say. */
	log_init(&l);
	log_add(&l, alice, "alice", "promote", "null", "1");
	snprintf(err, sizeof err, "{\"seq\":2,\"ts\":1,\"actor\":\"A\","
	    "\"key_id\":\"bob\",\"action\":\"promote\",\"from\":1,\"to\":2,"
	    "\"reason\":\"r\",\"chip_step\":{\"skipped\":\"no lab\"},"
	    "\"prev_sha256\":\"%s\"", l.prev);
	log_add_body(&l, bob, err);
	assert_int_equal(verify(l.text.data, l.text.len, &st), 0);
	assert_int_equal(st.records, 2);
	assert_int_equal(st.last_switch_chip, RELCHIP_SKIPPED);
	assert_string_equal(st.last_switch_skipped, "no lab");
	log_add(&l, alice, "alice", "rollback", "2", "1");
	assert_int_equal(verify(l.text.data, l.text.len, &st), 0);
	assert_int_equal(st.last_switch_chip, RELCHIP_NONE);
	buf_release(&l.text);

	/* Shapes that are not chip_step: each breaks the chain at line 2. */
	{
		static const char *const bad[] = {
			"\"chip_step\":{\"host\":\"h\",\"chip\":0,\"job\":\"j\","
			    "\"golden_sha256\":\"%s\",\"result\":\"fail\"},",
			"\"chip_step\":{\"chip\":0,\"host\":\"h\",\"job\":\"j\","
			    "\"golden_sha256\":\"%s\",\"result\":\"pass\"},",
			"\"chip_step\":{\"host\":\"h\",\"chip\":-1,\"job\":\"j\","
			    "\"golden_sha256\":\"%s\",\"result\":\"pass\"},",
			"\"chip_step\":{\"host\":\"h\",\"chip\":0,\"job\":\"j\","
			    "\"golden_sha256\":\"%.10s\",\"result\":\"pass\"},",
			"\"chip_step\":{\"skipped\":\"x\",\"by\":\"%.1s\"},",
			"\"chip_step\":\"skipped %.3s\",",
		};
		size_t i;
		char member[512], body[1024];

		for (i = 0; i < nitems(bad); i++) {
			log_init(&l);
			log_add(&l, alice, "alice", "promote", "null", "1");
			snprintf(member, sizeof member, bad[i], sum);
			snprintf(body, sizeof body, "{\"seq\":2,\"ts\":1,"
			    "\"actor\":\"A\",\"key_id\":\"bob\",\"action\":"
			    "\"promote\",\"from\":1,\"to\":2,\"reason\":\"r\","
			    "%s\"prev_sha256\":\"%s\"", member, l.prev);
			log_add_body(&l, bob, body);
			expect_bad(l.text.data, l.text.len, 2, "chip_step");
			buf_release(&l.text);
		}
		/* In a refusal; and out of its place. */
		log_init(&l);
		snprintf(body, sizeof body, "{\"seq\":1,\"ts\":1,\"actor\":\"A\","
		    "\"key_id\":\"bob\",\"action\":\"refused\",\"from\":null,"
		    "\"to\":2,\"reason\":\"r\",\"chip_step\":{\"skipped\":"
		    "\"x\"},\"prev_sha256\":\"%s\"", l.prev);
		log_add_body(&l, bob, body);
		expect_bad(l.text.data, l.text.len, 1, "refused record has no "
		    "chip_step");
		buf_release(&l.text);
		log_init(&l);
		snprintf(body, sizeof body, "{\"seq\":1,\"ts\":1,\"actor\":\"A\","
		    "\"key_id\":\"bob\",\"action\":\"promote\",\"from\":null,"
		    "\"to\":1,\"chip_step\":{\"skipped\":\"x\"},\"reason\":\"r\","
		    "\"prev_sha256\":\"%s\"", l.prev);
		log_add_body(&l, bob, body);
		expect_bad(l.text.data, l.text.len, 1, "[chip_step,]");
		buf_release(&l.text);
	}
	keyring_release(&kr);
}

/*
 * A long log, whose signatures are checked on every CPU at once
 * (relaudit.c's second pass): intact, it says the last switch and the
 * last line's hash as one walk would; a bad signature and a broken link
 * further down report the earlier of the two, with the state as of the
 * record before it.
 */
static void
test_long_log(void **state)
{
	struct audit_state st, at70;
	struct log l, cut;
	char *data, last[65];
	size_t i, off70 = 0, off80 = 0, off90 = 0;

	(void)state;
	log_init(&l);
	for (i = 1; i <= 120; i++) {
		char from[16], to[16];

		if (i == 70)
			off70 = l.text.len;
		if (i == 80)
			off80 = l.text.len;
		if (i == 90)
			off90 = l.text.len;
		snprintf(from, sizeof from, i == 1 ? "null" : "%zu",
		    i == 1 ? 0 : i - 1);
		snprintf(to, sizeof to, "%zu", i);
		log_add(&l, i % 2 ? alice : bob, i % 2 ? "alice" : "bob",
		    i == 50 ? "refused" : "promote", from, to);
	}
	memcpy(last, l.prev, sizeof last);
	assert_int_equal(verify(l.text.data, l.text.len, &st), 0);
	assert_int_equal(st.records, 120);
	assert_string_equal(st.last_line_sha256, last);
	assert_int_equal(st.last_switch_to, 120);
	assert_int_equal(st.last_switch_from, 119);

	/* A signature spoiled at 70 (its first base64 character), the
	 * chain broken at 90 (a byte of its actor): 70 is reported. */
	data = xstrndup(l.text.data, l.text.len);
	{
		char *sig70 = strstr(data + off70, "\"sig\":\"") + 7;

		*sig70 = *sig70 == 'A' ? 'B' : 'A';
	}
	data[off90 + 40] ^= 1;
	expect_bad(data, l.text.len, 70, "signature does not verify");
	assert_int_equal(verify(data, l.text.len, &at70), -1);
	assert_int_equal(at70.records, 69);
	assert_int_equal(at70.last_switch_to, 69);
	free(data);
	/* The form broken at 80 (its seq), a signature at 90: the form at
	 * 80 is reported, 79 records counted. */
	data = xstrndup(l.text.data, l.text.len);
	assert_memory_equal(data + off80, "{\"seq\":80,", 10);
	data[off80 + 8] = '1';
	data[off90 + 40] ^= 1;
	expect_bad(data, l.text.len, 80, "seq is not 80");
	assert_int_equal(verify(data, l.text.len, &st), -1);
	assert_int_equal(st.records, 79);
	free(data);
	/* Cut inside its last line: that line is the broken one. */
	log_init(&cut);
	buf_add(&cut.text, l.text.data, l.text.len - 5);
	expect_bad(cut.text.data, cut.text.len, 120, "no newline");
	buf_release(&cut.text);
	buf_release(&l.text);
}

/* The approver's key: found among the trusted by its public half. */
static void
test_relkey(void **state)
{
	char path[] = "/tmp/calops-relkey.XXXXXX", err[256], *sig, *pem;
	struct keyring kr;
	BIO *bio;
	long n;
	void *k;
	int fd;

	(void)state;
	ring(&kr);
	assert_true((fd = mkstemp(path)) != -1);
	bio = BIO_new(BIO_s_mem());
	assert_int_equal(PEM_write_bio_PrivateKey(bio, bob, NULL, NULL, 0,
	    NULL, NULL), 1);
	n = BIO_get_mem_data(bio, &pem);
	assert_int_equal(write(fd, pem, (size_t)n), n);
	BIO_free(bio);
	close(fd);
	k = relkey_load(path, -1, err, sizeof err);
	assert_non_null(k);
	assert_string_equal(relkey_trusted_name(&kr, k), "bob");
	sig = relkey_sign(k, "abc", 3);
	assert_non_null(sig);
	assert_string_equal(keyring_verify(&kr, NULL, "abc", 3, sig,
	    strlen(sig)), "bob");
	free(sig);
	relkey_free(k);
	/* mallory's key is no one's. */
	bio = BIO_new_file(path, "w");
	assert_int_equal(PEM_write_bio_PrivateKey(bio, mallory, NULL, NULL, 0,
	    NULL, NULL), 1);
	BIO_free(bio);
	k = relkey_load(path, -1, err, sizeof err);
	assert_non_null(k);
	assert_null(relkey_trusted_name(&kr, k));
	relkey_free(k);
	unlink(path);
	keyring_release(&kr);
}

/*
 * The console's way (relkey_load_pass): an encrypted key with no
 * passphrase yet says it wants one, a wrong one is refused, the right one
 * loads; and the public half in base64 is the same from the private key
 * and from the public one, and differs for another key.
 */
static void
test_relkey_pass(void **state)
{
	char path[] = "/tmp/calops-relkey.XXXXXX", err[256];
	char *pub, *pub2, *pub3;
	bool wants;
	BIO *bio;
	void *k;
	int fd;

	(void)state;
	assert_true((fd = mkstemp(path)) != -1);
	close(fd);
	bio = BIO_new_file(path, "w");
	assert_int_equal(PEM_write_bio_PrivateKey(bio, alice,
	    EVP_aes_256_cbc(), (unsigned char *)"open sesame", 11, NULL,
	    NULL), 1);
	BIO_free(bio);
	k = relkey_load_pass(path, NULL, &wants, err, sizeof err);
	assert_null(k);
	assert_true(wants);
	assert_non_null(strstr(err, "passphrase"));
	k = relkey_load_pass(path, "open says me", &wants, err, sizeof err);
	assert_null(k);
	assert_false(wants);
	assert_non_null(strstr(err, "wrong passphrase"));
	k = relkey_load_pass(path, "open sesame", &wants, err, sizeof err);
	assert_non_null(k);
	pub = relkey_public_b64(k);
	pub2 = relkey_public_b64(alice);
	pub3 = relkey_public_b64(bob);
	assert_non_null(pub);
	assert_int_equal(strlen(pub), 44);
	assert_string_equal(pub, pub2);
	assert_string_not_equal(pub, pub3);
	free(pub);
	free(pub2);
	free(pub3);
	relkey_free(k);
	unlink(path);
}

/*
 * No 08-release/ to act in, or no workspace at all: -1 with the reason and
 * nothing held, the caller owing no relstate_release() (the workspace's
 * path leaked: LeakSanitizer in the ASan build).
 */
static void
test_relstate_missing(void **state)
{
	char dir[] = "/tmp/calops-test-relstate.XXXXXX", err[512], *gone;
	struct relstate st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(relstate_load(&st, dir, err, sizeof err), -1);
	assert_non_null(strstr(err, "is missing: no release to act on"));
	assert_null(st.ws);
	assert_int_equal(st.dirfd, -1);
	assert_int_equal(relstate_open(&st, dir, err, sizeof err), -1);
	assert_null(st.ws);
	gone = xasprintf("%s/gone", dir);
	assert_int_equal(relstate_load(&st, gone, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot open workspace"));
	assert_null(st.ws);
	relstate_release(&st);		/* harmless all the same */
	free(gone);
	assert_int_equal(rmdir(dir), 0);
}

/*
 * The state as JSON when the workspace's path and current's link are not
 * UTF-8: every member is there, the bytes shown as \xHH (json_pack()
 * refused the whole object, and `release status --json` printed nothing).
 */
static void
test_relstate_json_bytes(void **state)
{
	char dir[] = "/tmp/calops-test-relstate.XXXXXX", err[512];
	char *ws, *rel, *cur;
	struct relstate st;
	json_t *j;

	(void)state;
	assert_non_null(mkdtemp(dir));
	ws = xasprintf("%s/ws\xff", dir);
	rel = xasprintf("%s/08-release", ws);
	cur = xasprintf("%s/current", rel);
	assert_int_equal(mkdir(ws, 0755), 0);
	assert_int_equal(mkdir(rel, 0755), 0);
	assert_int_equal(symlink("generations/\xfe" "1", cur), 0);
	assert_int_equal(relstate_load(&st, ws, err, sizeof err), 0);
	assert_non_null(j = relstate_json(&st));
	assert_non_null(strstr(json_string_value(json_object_get(j,
	    "workspace")), "/ws\\xff"));
	assert_string_equal(json_string_value(json_object_get(j,
	    "current_link")), "generations/\\xfe1");
	assert_true(json_is_string(json_object_get(j, "current_problem")));
	json_decref(j);
	relstate_release(&st);
	assert_int_equal(unlink(cur), 0);
	assert_int_equal(rmdir(rel), 0);
	assert_int_equal(rmdir(ws), 0);
	assert_int_equal(rmdir(dir), 0);
	free(cur);
	free(rel);
	free(ws);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intact),
		cmocka_unit_test(test_known_prefix),
		cmocka_unit_test(test_edited),
		cmocka_unit_test(test_removed_and_cut),
		cmocka_unit_test(test_signed_but_wrong),
		cmocka_unit_test(test_signatures),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_keyring),
		cmocka_unit_test(test_relrecord),
		cmocka_unit_test(test_chip_step),
		cmocka_unit_test(test_long_log),
		cmocka_unit_test(test_relkey),
		cmocka_unit_test(test_relkey_pass),
		cmocka_unit_test(test_relstate_missing),
		cmocka_unit_test(test_relstate_json_bytes),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
