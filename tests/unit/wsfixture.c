/* wsfixture.c: generated workspaces, mutations and assertions (wsfixture.h). */
#include "calops.h"

#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/pem.h>

#include "ws/hash.h"
#include "ws/hashtree.h"
#include "wsfixture.h"

struct templates tpl;
static EVP_PKEY *the_release_key;
static const char *ws_label;	/* the table row under test, or NULL */

/* ---- small file helpers ---- */

static char *
slurp(const char *path, size_t *len)
{
	struct stat st;
	char *data;
	ssize_t n;
	size_t got = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1 || fstat(fd, &st) == -1)
		fail_msg("cannot read '%s': %s", path, strerror(errno));
	data = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		n = read(fd, data + got, (size_t)st.st_size - got);
		if (n <= 0)
			fail_msg("cannot read '%s': %s", path, strerror(errno));
		got += (size_t)n;
	}
	close(fd);
	data[got] = '\0';
	if (len != NULL)
		*len = got;
	return data;
}

/*
 * Test copies share the template's files through hard links, so a file is
 * never written in place: it is replaced by a new one (O_APPEND first takes
 * a private copy of the bytes).
 */
static void
spit(const char *path, const void *data, size_t len, int flags, mode_t mode)
{
	const char *p = data;
	struct stat st;
	char *old = NULL;
	size_t oldlen = 0;
	ssize_t n;
	int fd;

	if ((flags & O_APPEND) && lstat(path, &st) == 0 &&
	    S_ISREG(st.st_mode) && st.st_nlink > 1) {
		old = slurp(path, &oldlen);
		mode = st.st_mode & 07777;
	}
	if (!(flags & O_APPEND) || old != NULL)
		(void)unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, mode);
	if (fd != -1 && old != NULL && write(fd, old, oldlen) !=
	    (ssize_t)oldlen)
		fail_msg("cannot write '%s': %s", path, strerror(errno));
	free(old);
	if (fd == -1)
		fail_msg("cannot write '%s': %s", path, strerror(errno));
	while (len > 0) {
		if ((n = write(fd, p, len)) <= 0)
			fail_msg("cannot write '%s': %s", path,
			    strerror(errno));
		p += n;
		len -= (size_t)n;
	}
	close(fd);
}

/* mkdir -p of the folder that will hold path. */
static void
make_parents(const char *path)
{
	char *copy = xstrdup(path), *p;

	for (p = copy + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(copy, 0755) == -1 && errno != EEXIST)
			fail_msg("cannot create '%s': %s", copy,
			    strerror(errno));
		*p = '/';
	}
	free(copy);
}

void
ws_copy(const char *from, const char *to, bool share)
{
	char *src, *dst, target[PATH_MAX], *data;
	struct dirent *de;
	struct stat st;
	ssize_t n;
	size_t len;
	DIR *d;

	if (lstat(from, &st) == -1 || !S_ISDIR(st.st_mode))
		fail_msg("'%s' is not a folder", from);
	if (mkdir(to, st.st_mode & 07777) == -1 && errno != EEXIST)
		fail_msg("cannot create '%s': %s", to, strerror(errno));
	if ((d = opendir(from)) == NULL)
		fail_msg("cannot list '%s': %s", from, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		src = xasprintf("%s/%s", from, de->d_name);
		dst = xasprintf("%s/%s", to, de->d_name);
		if (lstat(src, &st) == -1)
			fail_msg("cannot stat '%s': %s", src, strerror(errno));
		if (S_ISDIR(st.st_mode))
			ws_copy(src, dst, share);
		else if (S_ISLNK(st.st_mode)) {
			if ((n = readlink(src, target, sizeof target - 1)) < 0)
				fail_msg("cannot read link '%s'", src);
			target[n] = '\0';
			if (symlink(target, dst) == -1)
				fail_msg("cannot link '%s': %s", dst,
				    strerror(errno));
		} else if (S_ISREG(st.st_mode) && (!share ||
		    link(src, dst) == -1)) {
			data = slurp(src, &len);
			spit(dst, data, len, O_EXCL, st.st_mode & 07777);
			free(data);
		}
		free(src);
		free(dst);
	}
	closedir(d);
}

void
ws_rmtree(const char *path)
{
	struct dirent *de;
	struct stat st;
	char *sub;
	DIR *d;

	if (lstat(path, &st) == -1)
		return;
	if (!S_ISDIR(st.st_mode)) {
		(void)unlink(path);
		return;
	}
	if ((d = opendir(path)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			sub = xasprintf("%s/%s", path, de->d_name);
			ws_rmtree(sub);
			free(sub);
		}
		closedir(d);
	}
	(void)rmdir(path);
}

char *
ws_path(const struct wsfix *w, const char *rel)
{
	return xasprintf("%s/%s", w->dir, rel);
}

void
ws_write_file(struct wsfix *w, const char *rel, const void *data, size_t len)
{
	char *p = ws_path(w, rel);
	struct stat st;

	make_parents(p);
	if (lstat(p, &st) == 0 && !S_ISREG(st.st_mode))
		ws_rmtree(p);
	spit(p, data, len, O_TRUNC, 0644);
	free(p);
}

void
ws_write_str(struct wsfix *w, const char *rel, const char *s)
{
	ws_write_file(w, rel, s, strlen(s));
}

void
ws_append(struct wsfix *w, const char *rel, const char *s)
{
	char *p = ws_path(w, rel);

	spit(p, s, strlen(s), O_APPEND, 0644);
	free(p);
}

char *
ws_slurp(const struct wsfix *w, const char *rel, size_t *len)
{
	char *p = ws_path(w, rel), *data;

	data = slurp(p, len);
	free(p);
	return data;
}

void
ws_replace(struct wsfix *w, const char *rel, const char *old, const char *new)
{
	char *data = ws_slurp(w, rel, NULL), *at, *out;

	if ((at = strstr(data, old)) == NULL)
		fail_msg("'%s' does not contain '%s'", rel, old);
	out = xasprintf("%.*s%s%s", (int)(at - data), data, new,
	    at + strlen(old));
	ws_write_str(w, rel, out);
	free(out);
	free(data);
}

void
ws_flip_hex(struct wsfix *w, const char *rel, const char *after)
{
	static const char hex[] = "0123456789abcdef";
	char *data = ws_slurp(w, rel, NULL), *at;
	const char *d = hex;	/* fail_msg() does not return; cmocka does
				 * not say so */

	if ((at = strstr(data, after)) == NULL)
		fail_msg("'%s' does not contain '%s'", rel, after);
	at += strlen(after);
	if (*at == '\0' || (d = strchr(hex, *at)) == NULL)
		fail_msg("'%s': no hex digit after '%s'", rel, after);
	*at = hex[(d - hex) ^ 1];
	ws_write_str(w, rel, data);
	free(data);
}

size_t
ws_replace_all(struct wsfix *w, const char *rel, const char *old,
    const char *new)
{
	char *data = ws_slurp(w, rel, NULL), *p = data, *at;
	size_t n = 0, len = strlen(old), cap = strlen(data) + 1, used = 0;
	char *out = xmalloc(cap);

	while ((at = strstr(p, old)) != NULL) {
		size_t head = (size_t)(at - p), need = used + head +
		    strlen(new) + 1;

		if (need > cap)
			out = xrealloc(out, cap = need * 2);
		memcpy(out + used, p, head);
		memcpy(out + used + head, new, strlen(new));
		used += head + strlen(new);
		p = at + len;
		n++;
	}
	if (n == 0)
		fail_msg("'%s' does not contain '%s'", rel, old);
	if (used + strlen(p) + 1 > cap)
		out = xrealloc(out, used + strlen(p) + 1);
	memcpy(out + used, p, strlen(p) + 1);
	ws_write_str(w, rel, out);
	free(out);
	free(data);
	return n;
}

void
ws_delete_lines(struct wsfix *w, const char *rel, size_t first, size_t count)
{
	char *data = ws_slurp(w, rel, NULL), *from = data, *to, *out;
	size_t n;

	for (n = 1; n < first && from != NULL; n++)
		from = (to = strchr(from, '\n')) != NULL ? to + 1 : NULL;
	to = from;
	for (n = 0; n < count && to != NULL && *to != '\0'; n++)
		to = (to = strchr(to, '\n')) != NULL ? to + 1 : NULL;
	if (from == NULL || n < count)
		fail_msg("'%s' has no lines %zu..%zu", rel, first,
		    first + count - 1);
	out = xasprintf("%.*s%s", (int)(from - data), data, to != NULL ?
	    to : "");
	ws_write_str(w, rel, out);
	free(out);
	free(data);
}

void
ws_remove(struct wsfix *w, const char *rel)
{
	char *p = ws_path(w, rel);
	struct stat st;

	if (lstat(p, &st) == -1)
		fail_msg("cannot remove '%s': it does not exist", rel);
	ws_rmtree(p);
	free(p);
}

void
ws_symlink(struct wsfix *w, const char *target, const char *rel)
{
	char *p = ws_path(w, rel);

	make_parents(p);
	ws_rmtree(p);
	if (symlink(target, p) == -1)
		fail_msg("cannot link '%s': %s", rel, strerror(errno));
	free(p);
}

void
ws_mkdir(struct wsfix *w, const char *rel)
{
	char *p = ws_path(w, rel);

	make_parents(p);
	ws_rmtree(p);
	if (mkdir(p, 0755) == -1)
		fail_msg("cannot create '%s': %s", rel, strerror(errno));
	free(p);
}

void
ws_mkfifo(struct wsfix *w, const char *rel)
{
	char *p = ws_path(w, rel);

	make_parents(p);
	ws_rmtree(p);
	if (mkfifo(p, 0644) == -1)
		fail_msg("cannot create FIFO '%s': %s", rel, strerror(errno));
	free(p);
}

/* ---- JSON ---- */

json_t *
ws_json_load(const struct wsfix *w, const char *rel)
{
	char *p = ws_path(w, rel);
	json_error_t je;
	json_t *root;

	if ((root = json_load_file(p, 0, &je)) == NULL)
		fail_msg("cannot parse '%s': %s", rel, je.text);
	free(p);
	return root;
}

void
ws_json_write(struct wsfix *w, const char *rel, json_t *root)
{
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
	    JSON_ENCODE_ANY), *line;

	assert_non_null(text);
	line = xasprintf("%s\n", text);
	ws_write_str(w, rel, line);
	free(line);
	free(text);
}

/* The next reference token of a JSON pointer, unescaped; *p moves on. */
static char *
next_token(const char **p)
{
	const char *s = *p + 1, *end = strchr(s, '/');
	size_t n = end != NULL ? (size_t)(end - s) : strlen(s), i, k = 0;
	char *tok = xmalloc(n + 1);

	for (i = 0; i < n; i++) {
		if (s[i] == '~' && i + 1 < n && (s[i + 1] == '0' ||
		    s[i + 1] == '1')) {
			tok[k++] = s[i + 1] == '0' ? '~' : '/';
			i++;
		} else
			tok[k++] = s[i];
	}
	tok[k] = '\0';
	*p = s + n;
	return tok;
}

static json_t *
child(json_t *node, const char *tok)
{
	char *end;
	long i;

	if (json_is_object(node))
		return json_object_get(node, tok);
	if (!json_is_array(node))
		return NULL;
	i = strtol(tok, &end, 10);
	return *end == '\0' && i >= 0 ? json_array_get(node, (size_t)i) : NULL;
}

json_t *
json_at(json_t *root, const char *pointer)
{
	const char *p = pointer;
	char *tok;

	while (root != NULL && *p == '/') {
		tok = next_token(&p);
		root = child(root, tok);
		free(tok);
	}
	return root;
}

void
json_set_at(json_t *root, const char *pointer, json_t *value)
{
	const char *p = pointer, *last = strrchr(pointer, '/');
	json_t *parent;
	char *ptok, *tok, *end;
	long i;

	if (last == NULL)
		fail_msg("bad JSON pointer '%s'", pointer);
	ptok = xstrndup(pointer, (size_t)(last - pointer));
	parent = json_at(root, ptok);
	free(ptok);
	p = last;
	tok = next_token(&p);
	if (json_is_object(parent)) {
		if (value == NULL)
			json_object_del(parent, tok);
		else
			json_object_set_new(parent, tok, value);
	} else if (json_is_array(parent)) {
		i = strtol(tok, &end, 10);
		if (strcmp(tok, "-") == 0 && value != NULL)
			json_array_append_new(parent, value);
		else if (*end != '\0' || i < 0 ||
		    (size_t)i >= json_array_size(parent))
			fail_msg("no element '%s' at '%s'", tok, pointer);
		else if (value == NULL)
			json_array_remove(parent, (size_t)i);
		else
			json_array_set_new(parent, (size_t)i, value);
	} else
		fail_msg("nothing to set at '%s'", pointer);
	free(tok);
}

void
ws_json_set(struct wsfix *w, const char *rel, const char *pointer,
    json_t *value)
{
	json_t *root = ws_json_load(w, rel);

	json_set_at(root, pointer, value);
	ws_json_write(w, rel, root);
	json_decref(root);
}

void
ws_jsonl_set(struct wsfix *w, const char *rel, size_t lineno,
    const char *pointer, json_t *value)
{
	char *data = ws_slurp(w, rel, NULL), *line, *nl, *text, *out;
	size_t n = 1;
	json_error_t je;
	json_t *o;

	for (line = data; n < lineno && line != NULL; n++)
		line = (nl = strchr(line, '\n')) != NULL ? nl + 1 : NULL;
	if (line == NULL || *line == '\0')
		fail_msg("'%s' has no line %zu", rel, lineno);
	nl = strchr(line, '\n');
	if ((o = json_loadb(line, nl != NULL ? (size_t)(nl - line) :
	    strlen(line), 0, &je)) == NULL)
		fail_msg("'%s' line %zu: %s", rel, lineno, je.text);
	json_set_at(o, pointer, value);
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	out = xasprintf("%.*s%s%s", (int)(line - data), data, text,
	    nl != NULL ? nl : "");
	ws_write_str(w, rel, out);
	free(out);
	free(text);
	json_decref(o);
	free(data);
}

const char *const ws_spec_checks[] = {
	"G0.schema", "G0.model_id", "G0.license", "G0.files", "G0.files.hash",
	"G0.architecture", "G0.tokenizer", "G0.targets", "G0.sla",
	"G0.complexity",
	"G1.env", "G1.prompts", "G1.coverage", "G1.outputs", "G1.repro",
	"G1.tokenizer", "G1.golden",
	"G2.config", "G2.checker", "G2.external_data", "G2.op_inventory",
	"G2.greedy", "G2.tolerance", "G2.profiles", "G2.bound",
	"G3.csv", "G3.unsupported", "G3.fallback", "G3.row_owner",
	"G3.coverage",
	"G4.config", "G4.calibration", "G4.disjoint", "G4.quality",
	"G4.layers",
	"G5.manifest", "G5.config", "G5.bound", "G5.script", "G5.builds",
	"G6.errors", "G6.repro", "G6.hashes", "G6.single_chip", "G6.bound",
	"G7.golden", "G7.faults", "G7.bound",
	"G8.manifest", "G8.limits", "G8.conformance", "G8.bound",
	"G9.api", "G9.perf", "G9.soak", "G9.leak", "G9.duration",
	"G10.signature", "G10.current", "G10.bindings", "G10.rollback",
	"G10.audit", "G10.revoked", "G10.decision", "G10.upstream",
};

const size_t ws_nspec_checks = nitems(ws_spec_checks);

/* ---- fixtures ---- */

/* Run argv (argv[0] looked up in PATH) and wait; its exit status. */
static int
spawn_wait(char *const argv[])
{
	pid_t pid;
	int status;

	if ((pid = fork()) == -1)
		fail_msg("fork: %s", strerror(errno));
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			fail_msg("waitpid: %s", strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* The generator: $CALOPS_SOURCE_DIR, else found from this file's path. */
static char *
generator_path(void)
{
	const char *src = getenv("CALOPS_SOURCE_DIR");
	char *dir, *cut, *path;

	if (src != NULL && src[0] != '\0')
		return xasprintf("%s/share/examples/mkworkspace.py", src);
	dir = xstrdup(__FILE__);
	if ((cut = strstr(dir, "tests/unit/wsfixture.c")) != NULL)
		*cut = '\0';
	else
		dir[0] = '\0';
	path = xasprintf("%sshare/examples/mkworkspace.py",
	    dir[0] != '\0' ? dir : "./");
	free(dir);
	return path;
}

static void
generate(const char *gen, const char *profile, const char *out,
    const char *key)
{
	char *argv[8];
	int n = 0;

	argv[n++] = (char *)"python3";
	argv[n++] = (char *)gen;
	argv[n++] = (char *)"--profile";
	argv[n++] = (char *)profile;
	if (key != NULL) {
		argv[n++] = (char *)"--key-out";
		argv[n++] = (char *)key;
	}
	argv[n++] = (char *)out;
	argv[n] = NULL;
	if (spawn_wait(argv) != 0)
		fail_msg("'%s --profile %s' failed", gen, profile);
}

/* The tree hash of a template, to prove at the end that no test wrote
 * through a shared link into it. */
static void
template_hash(const char *dir, char hex[HASH_HEX_LEN + 1])
{
	struct hasher_opts o = { .use_cache = false, .threads = 2 };
	struct hasher *h = hash_new(&o);
	struct tree t;

	memset(&t, 0, sizeof t);
	if (hashtree_hash(h, dir, NULL, &t) != 0)
		fail_msg("cannot hash '%s': %s", dir, t.err);
	memcpy(hex, t.hex, HASH_HEX_LEN + 1);
	hashtree_release(&t);
	hash_free(h);
}

static char complete_hex[HASH_HEX_LEN + 1], mid_hex[HASH_HEX_LEN + 1];

int
fixture_group_setup(void **state)
{
	const char *tmp = getenv("TMPDIR");
	char *root, *gen;

	(void)state;
	root = xasprintf("%s/calops-gates-XXXXXX", tmp != NULL &&
	    tmp[0] == '/' ? tmp : "/tmp");
	if (mkdtemp(root) == NULL) {
		print_error("mkdtemp '%s': %s\n", root, strerror(errno));
		free(root);
		return -1;
	}
	tpl.root = root;
	tpl.complete = xasprintf("%s/complete", root);
	tpl.midproject = xasprintf("%s/midproject", root);
	tpl.key_pem = xasprintf("%s/mei.chen.pem", root);
	gen = generator_path();
	generate(gen, "complete", tpl.complete, tpl.key_pem);
	generate(gen, "midproject", tpl.midproject, NULL);
	free(gen);
	template_hash(tpl.complete, complete_hex);
	template_hash(tpl.midproject, mid_hex);
	return 0;
}

int
fixture_group_teardown(void **state)
{
	char hex[HASH_HEX_LEN + 1];
	int rc = 0;

	(void)state;
	if (tpl.root == NULL)
		return 0;
	template_hash(tpl.complete, hex);
	if (strcmp(hex, complete_hex) != 0)
		rc = -1;
	template_hash(tpl.midproject, hex);
	if (strcmp(hex, mid_hex) != 0)
		rc = -1;
	if (rc != 0)
		print_error("a test wrote into a template through a link\n");
	ws_rmtree(tpl.root);
	free(tpl.root);
	free(tpl.complete);
	free(tpl.midproject);
	free(tpl.key_pem);
	memset(&tpl, 0, sizeof tpl);
	EVP_PKEY_free(the_release_key);
	the_release_key = NULL;
	return rc;
}

static int
ws_setup(void **state, const char *from)
{
	static unsigned counter;
	struct wsfix *w;

	if (from == NULL)
		return -1;
	w = xcalloc(1, sizeof *w);
	w->dir = xasprintf("%s/ws-%u", tpl.root, ++counter);
	w->from = from;
	ws_copy(from, w->dir, true);
	ws_label = NULL;
	*state = w;
	return 0;
}

void
ws_reset(struct wsfix *w, const char *label)
{
	if (w->have_tickets)
		tickets_release(w->tickets);
	if (w->evaluated)
		gate_eval_release(&w->ev);
	w->have_tickets = w->evaluated = false;
	ws_rmtree(w->dir);
	ws_copy(w->from, w->dir, true);
	ws_label = label;
}

int
ws_setup_complete(void **state)
{
	return ws_setup(state, tpl.complete);
}

int
ws_setup_mid(void **state)
{
	return ws_setup(state, tpl.midproject);
}

int
ws_teardown(void **state)
{
	struct wsfix *w = *state;

	if (w == NULL)
		return 0;
	if (w->have_tickets)
		tickets_release(w->tickets);
	if (w->evaluated)
		gate_eval_release(&w->ev);
	ws_rmtree(w->dir);
	free(w->dir);
	free(w);
	*state = NULL;
	return 0;
}

/* ---- evaluation and assertions ---- */

struct eval *
ws_eval(struct wsfix *w)
{
	struct eval_opts o = { .no_cache = true, .threads = 2 };
	char err[512];

	if (w->have_tickets) {
		tickets_release(w->tickets);
		w->have_tickets = false;
	}
	if (w->evaluated)
		gate_eval_release(&w->ev);
	w->evaluated = false;
	if (gate_eval_run(&w->ev, w->dir, &o, err, sizeof err) != 0)
		fail_msg("gate_eval_run: %s", err);
	w->evaluated = true;
	return &w->ev;
}

struct ticket *
ws_tickets(struct wsfix *w)
{
	ws_eval(w);
	tickets_derive(&w->ev, w->tickets);
	w->have_tickets = true;
	return w->tickets;
}

const struct ticket *
ticket_by_id(const struct wsfix *w, const char *id)
{
	size_t i;

	assert_true(w->have_tickets);
	for (i = 0; i < TICKET_COUNT; i++)
		if (strcmp(w->tickets[i].def->id, id) == 0)
			return &w->tickets[i];
	fail_msg("no ticket '%s'", id);
	return NULL;
}

const struct gate_result *
gate_of(const struct eval *ev, const char *gate)
{
	const struct gate_result *gr = gate_eval(ev, gate);

	if (gr == NULL)
		fail_msg("no gate '%s'", gate);
	return gr;
}

const struct finding *
find_finding(const struct eval *ev, const char *gate, const char *check,
    enum severity sev)
{
	const struct gate_result *gr = gate_of(ev, gate);
	size_t i;

	for (i = 0; i < gr->findings.n; i++)
		if (strcmp(gr->findings.v[i].check, check) == 0 &&
		    gr->findings.v[i].severity == sev)
			return &gr->findings.v[i];
	return NULL;
}

/* Show what the gate found, to explain a failed assertion. */
static void
dump_gate(const struct gate_result *gr)
{
	const struct finding *f;
	size_t i;

	if (ws_label != NULL)
		print_error("case: %s\n", ws_label);
	print_error("%s is %s with %zu finding(s):\n", gr->def->id,
	    gate_status_name(gr->status), gr->findings.n);
	for (i = 0; i < gr->findings.n; i++) {
		f = &gr->findings.v[i];
		print_error("  %-7s %s %s %s: %s\n",
		    finding_severity_name(f->severity), f->check, f->path,
		    f->where, f->message);
	}
}

void
_expect_status(const struct eval *ev, const char *gate, enum gate_status st,
    const char *file, int line)
{
	const struct gate_result *gr = gate_of(ev, gate);

	if (gr->status == st)
		return;
	print_error("%s: expected status %s, got %s\n", gate,
	    gate_status_name(st), gate_status_name(gr->status));
	dump_gate(gr);
	_fail(file, line);
}

void
_expect_finding(const struct eval *ev, const char *gate, const char *check,
    enum severity sev, const char *substr, const char *file, int line)
{
	const struct gate_result *gr = gate_of(ev, gate);
	const struct finding *f;
	size_t i;

	for (i = 0; i < gr->findings.n; i++) {
		f = &gr->findings.v[i];
		if (strcmp(f->check, check) == 0 && f->severity == sev &&
		    (substr == NULL || strstr(f->message, substr) != NULL))
			return;
	}
	print_error("%s: expected a %s finding %s%s%s%s\n", gate,
	    finding_severity_name(sev), check,
	    substr != NULL ? " saying '" : "", substr != NULL ? substr : "",
	    substr != NULL ? "'" : "");
	dump_gate(gr);
	_fail(file, line);
}

static void
no_finding(const struct eval *ev, const char *gate, const char *check,
    bool (*bad)(enum severity, enum severity), enum severity sev,
    const char *file, int line)
{
	const struct gate_result *gr = gate_of(ev, gate);
	const struct finding *f;
	size_t i;

	for (i = 0; i < gr->findings.n; i++) {
		f = &gr->findings.v[i];
		if (finding_check_covers(check, f->check) &&
		    bad(f->severity, sev)) {
			print_error("%s: unexpected %s finding %s: %s\n", gate,
			    finding_severity_name(f->severity), f->check,
			    f->message);
			dump_gate(gr);
			_fail(file, line);
		}
	}
}

static bool
counts(enum severity s, enum severity unused)
{
	(void)unused;
	return s == SEV_ERROR || s == SEV_BLOCKED || s == SEV_STALE;
}

static bool
same(enum severity s, enum severity want)
{
	return s == want;
}

void
_expect_no_finding(const struct eval *ev, const char *gate, const char *check,
    const char *file, int line)
{
	no_finding(ev, gate, check, counts, SEV_ERROR, file, line);
}

void
_expect_no_severity(const struct eval *ev, const char *gate,
    const char *check, enum severity sev, const char *file, int line)
{
	no_finding(ev, gate, check, same, sev, file, line);
}

void
_expect_verdict(const struct eval *ev, const char *check,
    enum check_verdict want, const char *file, int line)
{
	int g = gate_index_of_check(check);
	enum check_verdict got;

	if (g < 0) {
		print_error("%s:%d: '%s' is no gate's check\n", file, line,
		    check);
		fail();
	}
	got = gate_check_verdict(&ev->gates[g], check, false);
	if (got != want) {
		print_error("%s:%d: %s is %s, expected %s\n", file, line, check,
		    gate_verdict_name(got), gate_verdict_name(want));
		fail();
	}
}

void
_expect_project(const struct eval *ev, const char *status,
    const char *vendor_id, const char *file, int line)
{
	char *got = gate_eval_project_status(ev);
	bool ok = strcmp(got, status) == 0, found = false;
	size_t i;

	for (i = 0; i < ev->project.n; i++)
		if (vendor_id != NULL &&
		    strcmp(ev->project.v[i].check, vendor_id) == 0 &&
		    ev->project.v[i].severity == SEV_BLOCKED)
			found = true;
	if (vendor_id != NULL)
		ok &= found;
	else if (strcmp(status, "BLOCKED_COMPILER") != 0)
		ok &= ev->project.n == 0;
	if (!ok) {
		if (ws_label != NULL)
			print_error("case: %s\n", ws_label);
		print_error("project: expected %s%s%s, got %s with:\n", status,
		    vendor_id != NULL ? " with " : "",
		    vendor_id != NULL ? vendor_id : "", got);
		for (i = 0; i < ev->project.n; i++)
			print_error("  %s %s: %s\n", ev->project.v[i].check,
			    ev->project.v[i].path, ev->project.v[i].message);
		free(got);
		_fail(file, line);
	}
	free(got);
}

/* ---- signatures ---- */

EVP_PKEY *
release_key(void)
{
	FILE *f;

	if (the_release_key != NULL)
		return the_release_key;
	if ((f = fopen(tpl.key_pem, "r")) == NULL)
		fail_msg("cannot read '%s'", tpl.key_pem);
	the_release_key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	assert_non_null(the_release_key);
	assert_int_equal(EVP_PKEY_get_base_id(the_release_key),
	    EVP_PKEY_ED25519);
	return the_release_key;
}

EVP_PKEY *
untrusted_key(void)
{
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");

	assert_non_null(k);
	return k;
}

char *
pubkey_pem(EVP_PKEY *k)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *p, *out;
	long n;

	assert_non_null(bio);
	assert_int_equal(PEM_write_bio_PUBKEY(bio, k), 1);
	n = BIO_get_mem_data(bio, &p);
	out = xstrndup(p, (size_t)n);
	BIO_free(bio);
	return out;
}

char *
sign_b64(EVP_PKEY *k, const void *data, size_t len)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char sig[64], out[128];
	size_t siglen = sizeof sig;

	assert_non_null(ctx);
	assert_int_equal(EVP_DigestSignInit(ctx, NULL, NULL, NULL, k), 1);
	assert_int_equal(EVP_DigestSign(ctx, sig, &siglen, data, len), 1);
	EVP_MD_CTX_free(ctx);
	assert_int_equal(siglen, 64);
	assert_int_equal(EVP_EncodeBlock(out, sig, (int)siglen), 88);
	return xstrdup((char *)out);
}

void
ws_sign(struct wsfix *w, const char *rel, EVP_PKEY *k)
{
	char *data, *sig, *line, *sigrel;
	size_t len;

	data = ws_slurp(w, rel, &len);
	sig = sign_b64(k, data, len);
	line = xasprintf("%s\n", sig);
	sigrel = xasprintf("%s.sig", rel);
	ws_write_str(w, sigrel, line);
	free(sigrel);
	free(line);
	free(sig);
	free(data);
}

void
ws_audit_append(struct wsfix *w, EVP_PKEY *k, const char *key_id,
    const char *action, long from, long to)
{
	char *data, *last, *end, prev[HASH_HEX_LEN + 1], *text, *sig, *line;
	size_t len, seq = 0, i;
	json_t *o;

	data = ws_slurp(w, "08-release/audit.jsonl", &len);
	memset(prev, '0', HASH_HEX_LEN);
	prev[HASH_HEX_LEN] = '\0';
	for (i = 0; i < len; i++)
		seq += data[i] == '\n';
	if (len > 0) {
		end = data + len - 1;		/* the last newline */
		*end = '\0';
		last = strrchr(data, '\n');
		last = last != NULL ? last + 1 : data;
		hash_bytes(last, (size_t)(end - last), prev);
	}
	o = json_object();
	json_object_set_new(o, "seq", json_integer((json_int_t)seq + 1));
	json_object_set_new(o, "ts", json_integer(1790700000 +
	    (json_int_t)seq));
	json_object_set_new(o, "actor", json_string("Unit Test (release)"));
	json_object_set_new(o, "key_id", json_string(key_id));
	json_object_set_new(o, "action", json_string(action));
	json_object_set_new(o, "from", from < 0 ? json_null() :
	    json_integer(from));
	json_object_set_new(o, "to", to < 0 ? json_null() : json_integer(to));
	json_object_set_new(o, "reason", json_string("test_gates"));
	json_object_set_new(o, "prev_sha256", json_string(prev));
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	sig = sign_b64(k, text, strlen(text));
	line = xasprintf("%.*s,\"sig\":\"%s\"}\n", (int)strlen(text) - 1, text,
	    sig);
	ws_append(w, "08-release/audit.jsonl", line);
	free(line);
	free(sig);
	free(text);
	json_decref(o);
	free(data);
}

void
ws_new_generation(struct wsfix *w, long n, long prev, EVP_PKEY *k)
{
	json_t *m;
	char *rel;

	m = ws_json_load(w, "08-release/generations/2/release-manifest.json");

	json_object_set_new(m, "generation", json_integer(n));
	json_object_set_new(m, "previous_generation", prev < 0 ? json_null() :
	    json_integer(prev));
	rel = xasprintf("08-release/generations/%ld/release-manifest.json", n);
	ws_json_write(w, rel, m);
	if (k != NULL)
		ws_sign(w, rel, k);
	free(rel);
	json_decref(m);
}

/* ---- soak runs ---- */

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The ⌈pct·n/100⌉-th smallest, computed apart from soakstats.c. */
static double
rank(const double *v, size_t n, size_t pct)
{
	double *s = xcalloc(n, sizeof *s), r;
	size_t k = (pct * n + 99) / 100;

	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_double);
	r = s[(k < 1 ? 1 : k) - 1];
	free(s);
	return r;
}

void
ws_write_soak(struct wsfix *w, const char *run, const struct soakspec *sp,
    struct soaksum *out)
{
	double *ttft = xcalloc(sp->requests, sizeof *ttft), t, ok = 0, rss;
	double *tpot = xcalloc(sp->requests, sizeof *tpot);
	char *rel;
	json_t *sum;
	size_t i;
	FILE *f;
	char *p;

	rel = xasprintf("07-serving/soak/%s/metrics.jsonl", run);
	p = ws_path(w, rel);
	make_parents(p);
	(void)unlink(p);		/* perhaps a link to the template's */
	if ((f = fopen(p, "w")) == NULL)
		fail_msg("cannot write '%s'", p);
	fprintf(f, "{\"v\":1,\"seq\":1,\"ts\":%.3f,\"type\":\"hello\","
	    "\"tool\":\"test_gates\"}\n", sp->t0);
	for (i = 0; i < sp->requests; i++) {
		t = sp->t0 + sp->span * (double)i / (double)(sp->requests - 1);
		ttft[i] = sp->ttft_base + (double)((i * 37) % 100);
		tpot[i] = sp->tpot_base + (double)((i * 13) % 10);
		ok += i >= sp->failures;
		fprintf(f, "{\"v\":1,\"seq\":%zu,\"ts\":%.3f,"
		    "\"type\":\"metric\",\"values\":{\"ttft_ms\":%.1f,"
		    "\"tpot_ms\":%.1f,\"request_ok\":%d}}\n", i + 2, t, ttft[i],
		    tpot[i], i >= sp->failures);
	}
	for (i = 0; i < sp->mem_samples; i++) {
		t = sp->t0 + sp->span * (double)i /
		    (double)(sp->mem_samples - 1);
		rss = 1.3e9 + sp->rss_growth * (double)i +
		    (double)(i % 2) * 1e3;
		fprintf(f, "{\"v\":1,\"seq\":%zu,\"ts\":%.3f,"
		    "\"type\":\"metric\",\"values\":{\"rss_bytes\":%.0f,"
		    "\"device_mem_bytes\":%.0f}}\n", sp->requests + i + 2, t,
		    rss, 3.15e9);
	}
	fclose(f);
	free(p);
	free(rel);
	out->success_rate = ok / (double)sp->requests;
	out->ttft_p50 = rank(ttft, sp->requests, 50);
	out->ttft_p99 = rank(ttft, sp->requests, 99);
	out->tpot_p50 = rank(tpot, sp->requests, 50);
	out->tpot_p99 = rank(tpot, sp->requests, 99);
	sum = json_pack("{s:s,s:f,s:f,s:f,s:f,s:f}", "run", run,
	    "success_rate", out->success_rate, "ttft_ms_p50", out->ttft_p50,
	    "ttft_ms_p99", out->ttft_p99, "tpot_ms_p50", out->tpot_p50,
	    "tpot_ms_p99", out->tpot_p99);
	rel = xasprintf("07-serving/soak/%s/summary.json", run);
	ws_json_write(w, rel, sum);
	free(rel);
	json_decref(sum);
	free(ttft);
	free(tpot);
}

/* ---- the binary ---- */

int
run_calops(const char *const *argv, char **out)
{
	const char *bin = getenv("CALOPS_BIN");
	char *args[16], buf[65536], *cache, *text = NULL;
	int fds[2], status, devnull;
	size_t n = 0, len = 0;
	ssize_t r;
	pid_t pid = -1;	/* fail_msg() does not return; cmocka does not say so */

	if (bin == NULL || bin[0] == '\0') {
		/* A test that cannot run has not passed: ctest sets it. */
		fail_msg("CALOPS_BIN is not set: run the tests through "
		    "ctest");
	}
	args[n++] = (char *)bin;
	args[n++] = (char *)"check";
	while (*argv != NULL && n < nitems(args) - 1)
		args[n++] = (char *)*argv++;
	args[n] = NULL;
	cache = xasprintf("%s/cache", tpl.root);
	if (pipe(fds) == -1 || (pid = fork()) == -1)
		fail_msg("cannot run '%s': %s", bin, strerror(errno));
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		if ((devnull = open("/dev/null", O_WRONLY)) != -1)
			dup2(devnull, STDERR_FILENO);
		close(fds[0]);
		close(fds[1]);
		setenv("XDG_CACHE_HOME", cache, 1);
		execv(bin, args);
		_exit(127);
	}
	free(cache);
	close(fds[1]);
	while ((r = read(fds[0], buf, sizeof buf)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			fail_msg("read: %s", strerror(errno));
		text = xrealloc(text, len + (size_t)r + 1);
		memcpy(text + len, buf, (size_t)r);
		len += (size_t)r;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			fail_msg("waitpid: %s", strerror(errno));
	if (text == NULL)
		text = xstrdup("");
	else
		text[len] = '\0';
	*out = text;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
