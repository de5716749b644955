/*
 * sim_compile.c: `compile`, a stand-in for the vendor's compiler (runbook
 * §9.3: compile.sh, `calcc compile --config compile-config.yaml`), so that
 * G5's reproducibility run (`calops repro-build`, share/doc/lab.md "gates")
 * has something to build without the vendor's image.
 *
 * Like a reproducible compiler, its output is a function of its inputs
 * only: the compile config (profiles, device), the G0 facts (model id and
 * architecture), the custom kernels op-support.csv names, and a key made of
 * the compiler image's digest (compiler-manifest.json) and the SHA-256 of
 * the ONNX model and of the quantization config.  The same inputs give the
 * same package byte for byte -- the example generator makes the example
 * packages the same way (share/examples/mkworkspace.py, package_files), so
 * recompiling the demo's package changes nothing.  --nondeterministic mixes
 * the build's id and the clock into the programs, as a compiler with an
 * unstable pass would, so two builds differ and G5.builds has something to
 * refuse.
 *
 * The package is built in a hidden folder beside the output and exchanged
 * with the old one at once (renameat2 RENAME_EXCHANGE), the old removed
 * after: a build that fails or is stopped leaves the old package whole.
 * The output must be a folder of the workspace below a gate's own: one
 * named with "." or "..", or reached through a link out, is refused.  The log is text on stdout, as a compiler's is (repro-build
 * keeps it in 04-compiler/logs/<id>.log); errors go to stderr, exit 2.
 */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "base/csv.h"
#include "base/fileio.h"
#include "sim_common.h"
#include "ws/hashtree.h"
#include "ws/workspace.h"

#define COMPILE_CONFIG	"04-compiler/compile-config.yaml"
#define COMPILER_MANIFEST "04-compiler/compiler-manifest.json"
#define OP_SUPPORT	"02-onnx/op-support.csv"
#define MAX_KERNELS	64

/* What the package is made from. */
struct build_in {
	const char	*config_rel;
	char		*model_rel, *quant_rel, *out_rel;
	char		 onnx[HASH_HEX_LEN + 1], quant[HASH_HEX_LEN + 1];
	char		 key[HASH_HEX_LEN + 1];
	char		*digest, *version;
	json_int_t	 chips, calcores;
	json_int_t	 layers, kv_heads, head_dim, vocab, max_seq;
	/* the submodels' names, in the config's order */
	char		*profiles[16];
	bool		 prefill[16];
	size_t		 nprofiles;
	char		*kernels[MAX_KERNELS];
	size_t		 nkernels;
};

static void
build_in_release(struct build_in *in)
{
	size_t i;

	free(in->model_rel);
	free(in->quant_rel);
	free(in->out_rel);
	free(in->digest);
	free(in->version);
	for (i = 0; i < in->nprofiles; i++)
		free(in->profiles[i]);
	for (i = 0; i < in->nkernels; i++)
		free(in->kernels[i]);
}

/* A positive integer member of o, or -1 with err naming it. */
static json_int_t
need_int(const json_t *o, const char *key, const char *where, char *err,
    size_t len)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 1) {
		errbuf_set(err, len, "%s: '%s' must be a positive integer", where,
		    key);
		return -1;
	}
	return json_integer_value(v);
}

/* A path the config names, resolved from the config's folder and kept in
 * the workspace (G5.path's rule). */
static int
config_path(const struct sim *s, const struct build_in *in, const json_t *cfg,
    const char *key, char **rel, char *err, size_t len)
{
	struct workspace ws;
	const json_t *v = json_object_get(cfg, key);
	char why[256];
	int rc;

	if (!json_is_string(v)) {
		errbuf_set(err, len, "%s: '%s' must be a path", in->config_rel,
		    key);
		return -1;
	}
	if (workspace_open(&ws, s->ws, err, len) == -1)
		return -1;
	rc = workspace_join(&ws, in->config_rel, json_string_value(v), rel, why,
	    sizeof why);
	workspace_close(&ws);
	if (rc != 0) {
		errbuf_set(err, len, "%s: '%s': %s", in->config_rel, key,
		    rc == 1 ? "a content URI, not a file here" : why);
		return -1;
	}
	return 0;
}

static int
read_config(const struct sim *s, struct build_in *in, char *err, size_t len)
{
	const json_t *profiles, *p, *dev, *name;
	struct doc d;
	size_t i, k;
	int rc = -1;

	if (sim_ws_doc(s, in->config_rel, true, &d, err, len) == -1)
		return -1;
	if (!json_is_object(d.root)) {
		errbuf_set(err, len, "%s: not a mapping", in->config_rel);
		goto out;
	}
	if (config_path(s, in, d.root, "model", &in->model_rel, err, len) ||
	    config_path(s, in, d.root, "quant_config", &in->quant_rel, err,
	    len) || config_path(s, in, d.root, "output", &in->out_rel, err,
	    len))
		goto out;
	/* The output folder is replaced whole: never a gate's own folder. */
	if (strchr(in->out_rel, '/') == NULL) {
		errbuf_set(err, len, "%s: 'output' is '%s': a package goes "
		    "into a folder of its own, such as 05-calbin/package",
		    in->config_rel, in->out_rel);
		goto out;
	}
	dev = json_object_get(d.root, "device");
	if ((in->chips = need_int(dev, "chips", in->config_rel, err, len)) < 0 ||
	    (in->calcores = need_int(dev, "calcores_per_chip", in->config_rel,
	    err, len)) < 0)
		goto out;
	if (in->chips > SIM_MAX_CHIPS || in->calcores > 256) {
		errbuf_set(err, len, "%s: device of %" JSON_INTEGER_FORMAT
		    " chips of %" JSON_INTEGER_FORMAT " calcores: at most %d "
		    "chips of 256", in->config_rel, in->chips, in->calcores,
		    SIM_MAX_CHIPS);
		goto out;
	}
	profiles = json_object_get(d.root, "profiles");
	if (!json_is_array(profiles) || json_array_size(profiles) == 0 ||
	    json_array_size(profiles) > nitems(in->profiles)) {
		errbuf_set(err, len, "%s: 'profiles' must list 1 to %zu "
		    "profiles", in->config_rel, nitems(in->profiles));
		goto out;
	}
	json_array_foreach(profiles, i, p) {
		name = json_object_get(p, "name");
		if (!json_is_string(name) || json_string_length(name) == 0 ||
		    strchr(json_string_value(name), '/') != NULL ||
		    json_string_value(name)[0] == '.') {
			errbuf_set(err, len, "%s: profile %zu needs a 'name' "
			    "that can name a folder", in->config_rel, i + 1);
			goto out;
		}
		for (k = 0; k < in->nprofiles; k++)
			if (strcmp(in->profiles[k], json_string_value(name)) ==
			    0) {
				errbuf_set(err, len, "%s: profile '%s' is named "
				    "twice", in->config_rel, in->profiles[k]);
				goto out;
			}
		in->profiles[in->nprofiles] = xstrdup(json_string_value(name));
		in->prefill[in->nprofiles++] = json_is_true(json_object_get(p,
		    "is_prefill"));
		if (i == 0 && (in->max_seq = need_int(p, "max_seq",
		    in->config_rel, err, len)) < 0)
			goto out;
	}
	rc = 0;
out:
	doc_release(&d);
	return rc;
}

/* The compiler: its image's digest, and its version from the image tag. */
static int
read_compiler(const struct sim *s, struct build_in *in, char *err, size_t len)
{
	const json_t *digest, *image;
	const char *colon;
	struct doc d;

	if (sim_ws_doc(s, COMPILER_MANIFEST, false, &d, err, len) == -1)
		return -1;
	digest = json_object_get(d.root, "oci_digest");
	image = json_object_get(d.root, "image");
	if (!json_is_string(digest)) {
		errbuf_set(err, len, "%s: no 'oci_digest': which compiler is "
		    "this?", COMPILER_MANIFEST);
		doc_release(&d);
		return -1;
	}
	in->digest = xstrdup(json_string_value(digest));
	colon = json_is_string(image) ? strrchr(json_string_value(image), ':') :
	    NULL;
	in->version = xstrdup(colon != NULL ? colon + 1 : "unknown");
	doc_release(&d);
	return 0;
}

/* The model's shape, from G0 (workspace.md G0: architecture). */
static int
read_source_arch(const struct sim *s, struct build_in *in, char *err,
    size_t len)
{
	static const char where[] = "00-source/source-manifest.json "
	    "architecture";
	const json_t *arch;

	if (s->source == NULL) {
		errbuf_set(err, len, "%s", s->source_msg);
		return -1;
	}
	arch = json_object_get(s->source, "architecture");
	if ((in->layers = need_int(arch, "layers", where, err, len)) < 0 ||
	    (in->kv_heads = need_int(arch, "kv_heads", where, err, len)) < 0 ||
	    (in->head_dim = need_int(arch, "head_dim", where, err, len)) < 0 ||
	    (in->vocab = need_int(arch, "vocab", where, err, len)) < 0)
		return -1;
	return 0;
}

/* The custom kernels op-support.csv lowers to (runbook §7): each goes into
 * the package's oplib/.  Without a readable table, none (said). */
static void
read_kernels(struct sim *s, struct build_in *in)
{
	struct csv c;
	char err[256], *data, *name;
	size_t size, line, i, k, col_low = SIZE_MAX, col_ker = SIZE_MAX;
	const struct csv_row *r;

	if (sim_ws_read(s, OP_SUPPORT, 16u << 20, &data, &size, err,
	    sizeof err) == -1) {
		sim_log(s, "warning", "no custom kernels linked: %s", err);
		return;
	}
	if (csv_parse(&c, data, size, err, sizeof err, &line) == -1) {
		free(data);
		sim_log(s, "warning", "no custom kernels linked: %s:%zu: %s",
		    OP_SUPPORT, line, err);
		return;
	}
	free(data);
	for (i = 0; c.nrows > 0 && i < c.rows[0].nfields; i++) {
		if (strcmp(c.rows[0].fields[i], "lowering") == 0)
			col_low = i;
		if (strcmp(c.rows[0].fields[i], "kernel") == 0)
			col_ker = i;
	}
	for (i = 1; col_low != SIZE_MAX && col_ker != SIZE_MAX && i < c.nrows;
	    i++) {
		r = &c.rows[i];
		if (r->nfields <= col_low || r->nfields <= col_ker ||
		    strcmp(r->fields[col_low], "custom") != 0)
			continue;
		name = xstrndup(r->fields[col_ker],
		    strcspn(r->fields[col_ker], " \t/"));
		for (k = 0; k < in->nkernels; k++)
			if (strcmp(in->kernels[k], name) == 0)
				break;
		if (name[0] == '\0' || name[0] == '.' || k < in->nkernels ||
		    in->nkernels == MAX_KERNELS)
			free(name);
		else
			in->kernels[in->nkernels++] = name;
	}
	csv_release(&c);
}

static int
put(const char *dir, const char *rel, const void *data, size_t n, char *err,
    size_t len)
{
	char *path = xasprintf("%s/%s", dir, rel);
	int rc;

	rc = sim_mkparent(path, err, len);
	if (rc == 0)
		rc = fileio_replace(path, data, n, 0644, false, err, len);
	free(path);
	return rc;
}

static int
put_json(const char *dir, const char *rel, json_t *o, char *err, size_t len)
{
	char *path = xasprintf("%s/%s", dir, rel);
	int rc;

	rc = sim_mkparent(path, err, len);
	if (rc == 0)
		rc = sim_write_json(path, o, err, len);
	json_decref(o);
	free(path);
	return rc;
}

static int
put_filler(const char *dir, const char *rel, const char *label, size_t n,
    char *err, size_t len)
{
	unsigned char *b = xmalloc(n);
	int rc;

	sim_fake_bytes(label, b, n);
	rc = put(dir, rel, b, n, err, len);
	free(b);
	return rc;
}

/* Write the package into dir; the number of files, or -1 with err set.
 * nonce, when not NULL, goes into the programs' bytes. */
static int
write_package(struct sim *s, const struct build_in *in, const char *dir,
    const char *nonce, char *err, size_t len)
{
	json_t *cal, *subs, *mask, *chips, *cores, *io;
	char rel[512], label[512], *key;
	int n = 0;
	size_t i;

	key = nonce != NULL ? xasprintf("%s/%s", in->key, nonce) :
	    xstrdup(in->key);
	subs = json_array();
	for (i = 0; i < in->nprofiles; i++)
		json_array_append_new(subs, json_pack("{s:s, s:s+}", "name",
		    in->profiles[i], "dir", "chip0/", in->profiles[i]));
	cal = json_pack("{s:s, s:s, s:I, s:I, s:s+, s:o, s:[s, s]}",
	    "schema", "calculet-calbin/v3", "model_id", s->model_id != NULL ?
	    s->model_id : "", "chip_nums", in->chips, "calcores_per_chip",
	    in->calcores, "compiler", "calcc ", in->version, "submodels", subs,
	    "weights", "weights/weights-00000-of-00002.bin",
	    "weights/weights-00001-of-00002.bin");
	if (put_json(dir, "calbin.json", cal, err, len) == -1)
		goto fail;
	n++;
	chips = json_array();
	cores = json_array();
	for (i = 0; i < (size_t)in->chips; i++)
		json_array_append_new(chips, json_integer((json_int_t)i));
	for (i = 0; i < (size_t)in->calcores; i++)
		json_array_append_new(cores, json_integer((json_int_t)i));
	mask = json_pack("{s:o, s:o}", "chips", chips, "calcores", cores);
	if (put_json(dir, "chip0/mask.json", mask, err, len) == -1)
		goto fail;
	n++;
	for (i = 0; i < in->nprofiles; i++) {
		snprintf(rel, sizeof rel, "chip0/%s/program.bin",
		    in->profiles[i]);
		snprintf(label, sizeof label, "calbin/%s/%s/program", key,
		    in->profiles[i]);
		if (put_filler(dir, rel, label, (in->prefill[i] ? 24 : 20) *
		    1024, err, len) == -1)
			goto fail;
		io = json_pack("{s:[{s:s, s:s, s:s}, {s:s, s:s, s:s}], "
		    "s:[{s:s, s:s, s:s, s:[i, i, I]}], s:[s, s]}",
		    "inputs", "name", "inputs[0]", "tensor", "input_ids",
		    "dtype", "int32", "name", "inputs[1]", "tensor",
		    "position_ids", "dtype", "int32",
		    "outputs", "name", "outputs[0]", "tensor", "logits", "dtype",
		    "float32", "shape", 1, 1, in->vocab,
		    "csr", "cur_seq_len[0]", "past_kv_cur_seq_len[0]");
		snprintf(rel, sizeof rel, "chip0/%s/io.json", in->profiles[i]);
		if (put_json(dir, rel, io, err, len) == -1)
			goto fail;
		n += 2;
		sim_log(s, "info", "[kernel] %s: %s scheduled", in->profiles[i],
		    in->prefill[i] ? "prefill" : "decode");
	}
	/* The weights do not depend on the nonce: an unstable scheduler
	 * reorders programs, not the quantized weights. */
	snprintf(label, sizeof label, "calbin/%s/weights/0", in->key);
	if (put_filler(dir, "weights/weights-00000-of-00002.bin", label,
	    48 * 1024, err, len) == -1)
		goto fail;
	snprintf(label, sizeof label, "calbin/%s/weights/1", in->key);
	/* 48 bytes short of 40 KiB: the shard the validator warns about
	 * (W-ALIGN-004) */
	if (put_filler(dir, "weights/weights-00001-of-00002.bin", label,
	    40 * 1024 - 48, err, len) == -1)
		goto fail;
	n += 2;
	for (i = 0; i < in->nkernels; i++) {
		snprintf(rel, sizeof rel, "oplib/%s.bin", in->kernels[i]);
		snprintf(label, sizeof label, "calbin/%s/oplib/%s", in->key,
		    in->kernels[i]);
		if (put_filler(dir, rel, label, 6 * 1024, err, len) == -1)
			goto fail;
		n++;
		sim_log(s, "info", "[kernel] linked %s from the oplib",
		    in->kernels[i]);
	}
	if (put_json(dir, "csr/layout.json", json_pack("{s:s, s:s, "
	    "s:{s:I, s:I, s:I, s:I, s:s}}", "cur", "cur_seq_len[0]", "total",
	    "past_kv_cur_seq_len[0]", "kv", "layers", in->layers, "kv_heads",
	    in->kv_heads, "head_dim", in->head_dim, "max_seq", in->max_seq,
	    "dtype", "bfloat16"), err, len) == -1)
		goto fail;
	free(key);
	return n + 1;
fail:
	free(key);
	return -1;
}

/*
 * The folder the output goes into, made when missing and resolved: an
 * output named with "." or ".." components, or whose folder resolves
 * outside the workspace or to its root (a symbolic link on the way), is
 * refused before anything is made -- the output is replaced whole, so it
 * must be a folder of the workspace's, below a gate's.  A new string.
 */
static char *
output_dir(const struct sim *s, const char *rel, char *err, size_t len)
{
	char *path = xasprintf("%s/%s", s->ws, rel), *p, *real = NULL;
	size_t n = strlen(s->ws), k;
	const char *c;
	struct stat st;
	bool end;

	for (c = rel; *c != '\0'; c += k + (c[k] == '/')) {
		k = strcspn(c, "/");
		if (k == 0 || (k == 1 && c[0] == '.') || (k == 2 &&
		    strncmp(c, "..", 2) == 0)) {
			errbuf_set(err, len, "'output' is '%s': name it without "
			    "'.', '..' or '//'", rel);
			goto fail;
		}
	}
	*strrchr(path, '/') = '\0';
	/* Each folder on the way: inside the workspace where it exists,
	 * made where it does not. */
	for (p = path + n + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		end = *p == '\0';
		*p = '\0';
		free(real);
		real = NULL;
		if (lstat(path, &st) == -1 && mkdir(path, 0755) == -1 &&
		    errno != EEXIST) {
			errbuf_set(err, len, "cannot make '%s': %s", path + n + 1,
			    strerror(errno));
			goto fail;
		}
		if ((real = realpath(path, NULL)) == NULL ||
		    strncmp(real, s->ws, n) != 0 || real[n] != '/') {
			errbuf_set(err, len, "'output' is '%s': '%s' leads "
			    "outside the workspace or to its root", rel,
			    path + n + 1);
			goto fail;
		}
		if (end)
			break;
		*p = '/';
	}
	free(path);
	return real;
fail:
	free(real);
	free(path);
	return NULL;
}

/* Put the new package in place of the old at once (the two exchanged, the
 * old then removed), or, where the file system cannot exchange, the old
 * renamed aside first. */
static int
swap_in(const char *tmp, const char *out, const char *rel, char *err,
    size_t len)
{
	char *old = xasprintf("%s.old-%ld", out, (long)getpid());
	struct stat st;
	bool had = lstat(out, &st) == 0;
	int rc = 0;

	if (had && renameat2(AT_FDCWD, tmp, AT_FDCWD, out,
	    RENAME_EXCHANGE) == 0) {
		fileio_remove_tree(tmp);	/* the old package, now */
		free(old);
		return 0;
	}
	if (had && rename(out, old) == -1) {
		errbuf_set(err, len, "cannot move '%s' aside: %s", rel,
		    strerror(errno));
		rc = -1;
	} else if (rename(tmp, out) == -1) {
		errbuf_set(err, len, "cannot put the package at '%s': %s", rel,
		    strerror(errno));
		if (had)
			(void)rename(old, out);
		rc = -1;
	} else if (had)
		fileio_remove_tree(old);
	free(old);
	return rc;
}

/* A signal asked us to stop: the package is not put in place. */
static bool
stopped(char *err, size_t len)
{
	if (sim_stopping)
		errbuf_set(err, len, "stopped by a signal: the package was not "
		    "replaced");
	return sim_stopping;
}

int
sim_compile(struct sim *s)
{
	struct build_in in;
	struct hasher_opts ho = { .use_cache = false };
	struct hasher *h;
	struct tree t;
	char err[512], *out = NULL, *tmp = NULL, *nonce = NULL, *seed;
	char *dir = NULL;
	const char *name;
	struct stat st;
	const char *id = getenv("BUILD_ID");
	int n, rc = 2;

	memset(&in, 0, sizeof in);
	in.config_rel = s->o.config != NULL ? s->o.config : COMPILE_CONFIG;
	if (read_config(s, &in, err, sizeof err) == -1 ||
	    read_compiler(s, &in, err, sizeof err) == -1 ||
	    read_source_arch(s, &in, err, sizeof err) == -1 ||
	    sim_ws_sha256(s, in.model_rel, in.onnx, err, sizeof err) == -1 ||
	    sim_ws_sha256(s, in.quant_rel, in.quant, err, sizeof err) == -1)
		goto out;
	sim_log(s, "info", "calcc %s (simulated by %s %s), image %s",
	    in.version, SIM_TOOL, CALOPS_VERSION, in.digest);
	sim_log(s, "info", "build %s: config %s", id != NULL ? id : "-",
	    in.config_rel);
	sim_log(s, "info", "[pass] import-onnx: %s sha256 %s", in.model_rel,
	    in.onnx);
	sim_log(s, "info", "[pass] quantize: %s sha256 %s", in.quant_rel,
	    in.quant);
	read_kernels(s, &in);
	seed = xasprintf("calcc-sim/v1\n%s\n%s\n%s\n", in.digest, in.onnx,
	    in.quant);
	hash_bytes(seed, strlen(seed), in.key);
	free(seed);
	if (s->o.nondeterministic) {
		nonce = xasprintf("%s/%lld/%ld", id != NULL ? id : "",
		    (long long)time(NULL), (long)getpid());
		sim_log(s, "warning", "nondeterministic build (--"
		    "nondeterministic): the programs carry '%s'", nonce);
	}
	if ((dir = output_dir(s, in.out_rel, err, sizeof err)) == NULL)
		goto out;
	name = strrchr(in.out_rel, '/') + 1;
	out = xasprintf("%s/%s", dir, name);
	tmp = xasprintf("%s/.%s.calcc-%ld", dir, name, (long)getpid());
	if (lstat(out, &st) == 0 && !S_ISDIR(st.st_mode)) {
		errbuf_set(err, sizeof err, "'output' is '%s': it is %s, not a "
		    "folder", in.out_rel, S_ISLNK(st.st_mode) ?
		    "a symbolic link" : "a file");
		goto out;
	}
	fileio_remove_tree(tmp);
	if ((n = write_package(s, &in, tmp, nonce, err, sizeof err)) == -1 ||
	    stopped(err, sizeof err) ||
	    swap_in(tmp, out, in.out_rel, err, sizeof err) == -1) {
		fileio_remove_tree(tmp);
		goto out;
	}
	memset(&t, 0, sizeof t);
	h = hash_new(&ho);
	if (hashtree_hash(h, out, s->ws, &t) == 0) {
		sim_log(s, "info", "[pack] wrote %s: %d files", in.out_rel, n);
		sim_log(s, "info", "[pack] output tree sha256 %s", t.hex);
		rc = 0;
	} else
		errbuf_set(err, sizeof err, "cannot hash '%s': %s", in.out_rel,
		    t.err);
	hashtree_release(&t);
	hash_free(h);
out:
	if (rc != 0)
		rc = sim_fail(s, "%s", err);
	free(nonce);
	free(out);
	free(tmp);
	free(dir);
	build_in_release(&in);
	return rc;
}
