/* test_hash.c: SHA-256 of files and trees, the hasher's cache (cmocka). */
#include "calops.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <ctype.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/buf.h"
#include "base/fileio.h"
#include "ws/hash.h"
#include "ws/hashcache.h"
#include "ws/hashtree.h"

#define EMPTY_HEX \
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define ABC_HEX \
	"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
#define ZERO_HEX \
	"0000000000000000000000000000000000000000000000000000000000000000"

/* Every test gets its own folder, and the cache lives inside it. */
struct fixture {
	char	 dir[PATH_MAX];
	char	*cache;		/* $XDG_CACHE_HOME/calops/hashes */
};

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);
	const char *tmp = getenv("TMPDIR");
	char *xdg;

	if (tmp == NULL || tmp[0] != '/')
		tmp = "/tmp";
	snprintf(f->dir, sizeof f->dir, "%s/test_hash.XXXXXX", tmp);
	if (mkdtemp(f->dir) == NULL)
		return -1;
	xdg = xasprintf("%s/xdg", f->dir);
	setenv("XDG_CACHE_HOME", xdg, 1);
	f->cache = xasprintf("%s/calops/hashes", xdg);
	free(xdg);
	xdg = xasprintf("%s/state", f->dir);	/* the cache's key */
	setenv("XDG_STATE_HOME", xdg, 1);
	free(xdg);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	fileio_remove_tree(f->dir);
	free(f->cache);
	free(f);
	return 0;
}

/* Write a file under the fixture's folder, making its parents. */
static char *
put_file(struct fixture *f, const char *rel, const void *data, size_t len)
{
	char *path = xasprintf("%s/%s", f->dir, rel), *s;
	FILE *fp;

	for (s = path + strlen(f->dir) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	assert_non_null(fp = fopen(path, "wb"));
	if (len > 0)
		assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
	return path;
}

/* Deterministic bytes that differ from file to file. */
static unsigned char *
pattern(size_t len, uint32_t seed)
{
	unsigned char *p = xmalloc(len == 0 ? 1 : len);
	uint32_t x = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (unsigned char)x;
	}
	return p;
}

static struct hasher *
new_hasher(bool cache, int threads)
{
	struct hasher_opts o = { .use_cache = cache, .threads = threads };

	return hash_new(&o);
}

/* Run a shell command and return its standard output. */
static char *
run_sh(const char *cmd)
{
	char buf[4096];
	size_t len = 0;
	ssize_t n;
	pid_t pid;
	int fds[2], status;

	assert_int_equal(pipe(fds), 0);
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf + len, sizeof buf - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return xstrdup(buf);
}

static void
stat_key(const char *path, struct hashcache_key *k)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	memset(k, 0, sizeof *k);
	k->dev = (uint64_t)st.st_dev;
	k->ino = (uint64_t)st.st_ino;
	k->size = (uint64_t)st.st_size;
	k->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
	    st.st_mtim.tv_nsec;
	k->ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000 +
	    st.st_ctim.tv_nsec;
}

/* Set a file's mtime to a fixed moment long ago. */
static void
age_file(const char *path)
{
	struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };

	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

static void
test_vectors(void **state)
{
	char hex[HASH_HEX_LEN + 1];
	const char *s448 =
	    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

	(void)state;
	hash_bytes("", 0, hex);
	assert_string_equal(hex, EMPTY_HEX);
	hash_bytes("abc", 3, hex);
	assert_string_equal(hex, ABC_HEX);
	hash_bytes(s448, strlen(s448), hex);
	assert_string_equal(hex,
	    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	assert_true(hash_is_hex(ABC_HEX));
	assert_false(hash_is_hex(""));
	assert_false(hash_is_hex(ABC_HEX "0"));
	assert_false(hash_is_hex("BA7816BF8F01CFEA414140DE5DAE2223"
	    "B00361A396177A9CB410FF61F20015AD"));
	assert_false(hash_is_hex("g a7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015a"));
}

static void
test_small_files(void **state)
{
	struct fixture *f = *state;
	struct hasher *h = new_hasher(false, 0);
	struct hash_result r;
	char *empty = put_file(f, "empty", "", 0);
	char *abc = put_file(f, "abc", "abc", 3);

	assert_int_equal(hash_file(h, empty, &r), 0);
	assert_string_equal(r.hex, EMPTY_HEX);
	assert_int_equal(r.size, 0);
	assert_int_equal(hash_file(h, abc, &r), 0);
	assert_string_equal(r.hex, ABC_HEX);
	assert_int_equal(r.size, 3);
	assert_int_equal(r.err, 0);
	hash_free(h);
	free(empty);
	free(abc);
}

/* Files of many read buffers, not a multiple of one. */
static void
test_large_files(void **state)
{
	static const size_t sizes[] = { (20u << 20) + 123, (40u << 20) + 7 };
	struct fixture *f = *state;
	struct hash_result r;
	struct hasher *h;
	char hex[HASH_HEX_LEN + 1], *path;
	unsigned char *data;
	size_t i;

	for (i = 0; i < nitems(sizes); i++) {
		data = pattern(sizes[i], (uint32_t)i + 7);
		hash_bytes(data, sizes[i], hex);
		path = put_file(f, "large", data, sizes[i]);
		h = new_hasher(false, 1);
		assert_int_equal(hash_file(h, path, &r), 0);
		assert_string_equal(r.hex, hex);
		assert_int_equal(r.size, sizes[i]);
		hash_free(h);
		free(path);
		free(data);
	}
}

static void
test_many_files(void **state)
{
	static const size_t sizes[] = { 0, 1, 55, 64, 65, 4095, 4096, 100000,
	    131072, 131073, 262143, 262144, 262145, 300000, 524288,
	    (1u << 20) + 3 };
	struct fixture *f = *state;
	enum { N = 240 };
	char *paths[N + 1], name[32], hexes[N][HASH_HEX_LEN + 1];
	struct hash_result res[N + 1], one;
	struct hasher *h = new_hasher(false, 4), *h1 = new_hasher(false, 1);
	unsigned char *data;
	size_t i, len;

	for (i = 0; i < N; i++) {
		len = sizes[i % nitems(sizes)] + i / nitems(sizes);
		data = pattern(len, (uint32_t)i);
		hash_bytes(data, len, hexes[i]);
		snprintf(name, sizeof name, "many/d%zu/f%zu", i % 7, i);
		paths[i] = put_file(f, name, data, len);
		free(data);
	}
	paths[N] = xasprintf("%s/many/missing", f->dir);
	assert_int_equal(hash_files(h, N + 1, (const char *const *)paths,
	    res), 1);
	for (i = 0; i < N; i++) {
		assert_int_equal(res[i].err, 0);
		assert_string_equal(res[i].hex, hexes[i]);
		assert_int_equal(hash_file(h1, paths[i], &one), 0);
		assert_string_equal(one.hex, res[i].hex);
		assert_int_equal(one.size, res[i].size);
	}
	assert_int_equal(res[N].err, ENOENT);
	assert_string_equal(res[N].hex, "");
	for (i = 0; i <= N; i++)
		free(paths[i]);
	hash_free(h);
	hash_free(h1);
}

/* The tree hash is what the spec's shell pipeline prints. */
static void
test_tree_pipeline(void **state)
{
	static const char *names[] = { "b.txt", "b/x", "b-c", "B", "_u",
	    ".hidden", "dir/sub/deep.bin", "z", "\xc3\xa4", "dir/a", "dir.a",
	    "e/empty" };
	struct fixture *f = *state;
	struct hasher *h = new_hasher(false, 2);
	struct tree t;
	unsigned char *data;
	char *p, *cmd, *out, *root = xasprintf("%s/tree", f->dir);
	size_t i, len;

	for (i = 0; i < nitems(names); i++) {
		len = strcmp(names[i], "e/empty") == 0 ? 0 : 1000 + i * 70000;
		data = pattern(len, (uint32_t)i);
		p = xasprintf("tree/%s", names[i]);
		free(put_file(f, p, data, len));
		free(p);
		free(data);
	}
	p = xasprintf("%s/link", root);
	assert_int_equal(symlink("b.txt", p), 0);
	free(p);
	p = xasprintf("%s/emptydir", root);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);

	assert_int_equal(hashtree_hash(h, root, NULL, &t), 0);
	assert_string_equal(t.err, "");
	assert_int_equal(t.nfiles, nitems(names));
	for (i = 1; i < t.nfiles; i++)
		assert_true(strcmp(t.files[i - 1].path, t.files[i].path) < 0);
	cmd = xasprintf("cd '%s' && find . -type f | sed 's|^\\./||' | "
	    "LC_ALL=C sort | xargs sha256sum | sha256sum", root);
	out = run_sh(cmd);
	assert_int_equal(strlen(out), HASH_HEX_LEN + 4);
	out[HASH_HEX_LEN] = '\0';
	assert_string_equal(t.hex, out);
	free(out);
	free(cmd);
	hashtree_release(&t);
	free(root);
	hash_free(h);
}

/* Names a hostile workspace may hold: every one must list as one line
 * that reads back as the name, and reach a terminal as escapes only. */
static const char *const hostile[] = {
	"lf\nname", "cr\rname", "back\\slash", "back\\nslash",
	"osc\x1b]52;c;aGVsbG8=\x07", "clear\x1b[2J", "csi\x9b" "31m",
	"c1\xc2\x9b" "31m", "rlo\xe2\x80\xaegnp.exe", "lrm\xe2\x80\x8e",
	"bad\xff\xfe", "tab\there", "del\x7f", "sp ace", "-dash",
	"caf\xc3\xa9", "\\", "d\n/\x1b",
};

/* Undo hashtree_line()'s visible escapes (\\, \n, \r, \xHH) in place;
 * false when something else follows a backslash. */
static bool
unescape_visible(char *s)
{
	char *r, *w, hex[3] = { 0, 0, 0 };

	for (r = w = s; *r != '\0'; r++) {
		if (*r != '\\') {
			*w++ = *r;
			continue;
		}
		r++;
		if (*r == '\\' || *r == 'n' || *r == 'r')
			*w++ = *r == 'n' ? '\n' : *r == 'r' ? '\r' : '\\';
		else if (*r == 'x' && isxdigit((unsigned char)r[1]) &&
		    isxdigit((unsigned char)r[2])) {
			memcpy(hex, r + 1, 2);
			*w++ = (char)strtol(hex, NULL, 16);
			r += 2;
		} else
			return false;
	}
	*w = '\0';
	return true;
}

/* A listing line, canonical and visible: one line each, the canonical one
 * as sha256sum writes it, the visible one free of control bytes, both
 * reading back as the name; no two names alike. */
static void
test_listing_lines(void **state)
{
	struct buf canon = BUF_INIT, vis = BUF_INIT;
	char *lines[nitems(hostile)], *hex, *path, *copy;
	const unsigned char *q;
	size_t i, j;

	(void)state;
	for (i = 0; i < nitems(hostile); i++) {
		buf_reset(&canon);
		buf_reset(&vis);
		assert_int_equal(hashtree_line(&canon, ABC_HEX, hostile[i], "",
		    false), 0);
		assert_int_equal(hashtree_line(&vis, ABC_HEX, hostile[i], "",
		    true), 0);
		/* sha256sum's escapes: \\, \n, \r and a leading backslash. */
		assert_int_equal(canon.data[0] == '\\',
		    strpbrk(hostile[i], "\\\n\r") != NULL);
		assert_non_null(strchr(canon.data, '\n'));
		assert_true(strchr(canon.data, '\n') ==
		    canon.data + canon.len - 1);
		assert_null(strchr(canon.data, '\r'));
		canon.data[--canon.len] = '\0';
		assert_null(hashtree_parse_line(canon.data, &hex, &path));
		assert_string_equal(hex, ABC_HEX);
		assert_string_equal(path, hostile[i]);
		/* Visible: printable ASCII or well-formed safe UTF-8. */
		for (q = (const unsigned char *)vis.data; *q != '\0'; q++)
			assert_true(*q == '\n' ? q[1] == '\0' :
			    *q >= 0x20 && *q != 0x7f && (*q < 0x80 ||
			    strcmp(hostile[i], "caf\xc3\xa9") == 0));
		assert_int_equal(vis.data[0] == '\\',
		    strcmp(hostile[i], "sp ace") != 0 &&
		    strcmp(hostile[i], "-dash") != 0 &&
		    strcmp(hostile[i], "caf\xc3\xa9") != 0);
		vis.data[--vis.len] = '\0';
		copy = xstrdup(vis.data + (vis.data[0] == '\\'));
		assert_memory_equal(copy, ABC_HEX "  ", HASH_HEX_LEN + 2);
		if (vis.data[0] == '\\')
			assert_true(unescape_visible(copy + HASH_HEX_LEN + 2));
		assert_string_equal(copy + HASH_HEX_LEN + 2, hostile[i]);
		free(copy);
		lines[i] = xstrdup(vis.data);
	}
	for (i = 0; i < nitems(hostile); i++) {
		for (j = i + 1; j < nitems(hostile); j++)
			assert_string_not_equal(lines[i], lines[j]);
		free(lines[i]);
	}
	buf_release(&canon);
	buf_release(&vis);
}

/* Lines that are not a listing's, as sha256sum -c would judge them. */
static void
test_listing_parse_errors(void **state)
{
	static const char *const bad[] = {
		"", "hello", ABC_HEX, ABC_HEX " x", ABC_HEX "  ",
		"\\" ABC_HEX "  a\\tb", "\\" ABC_HEX "  a\\", "\\" ABC_HEX " x",
		("BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"
		"  x"),
	};
	char *line, *hex, *path;
	size_t i;

	(void)state;
	for (i = 0; i < nitems(bad); i++) {
		line = xstrdup(bad[i]);
		assert_non_null(hashtree_parse_line(line, &hex, &path));
		free(line);
	}
	line = xstrdup("\\" ABC_HEX "  plain");	/* escaped, needlessly */
	assert_null(hashtree_parse_line(line, &hex, &path));
	assert_string_equal(path, "plain");
	free(line);
	line = xstrdup(ABC_HEX "  a\\nb");	/* not escaped: as it is */
	assert_null(hashtree_parse_line(line, &hex, &path));
	assert_string_equal(path, "a\\nb");
	free(line);
}

/* Hostile names in a tree: its hash is what coreutils gives for the same
 * files (NUL-separated, so that no name is split), and a name holding a
 * listing line no longer makes two folders' listings alike. */
static void
test_tree_hostile_names(void **state)
{
	struct fixture *f = *state;
	struct hasher *h = new_hasher(false, 2);
	struct tree t, ta, tb;
	char *p, *cmd, *out, *root = xasprintf("%s/hostile", f->dir);
	char bhex[HASH_HEX_LEN + 1], *forged, *old_a, *old_b;
	size_t i;

	for (i = 0; i < nitems(hostile); i++) {
		p = xasprintf("hostile/%s", hostile[i]);
		free(put_file(f, p, hostile[i], strlen(hostile[i])));
		free(p);
	}
	assert_int_equal(hashtree_hash(h, root, NULL, &t), 0);
	assert_int_equal(t.nfiles, nitems(hostile));
	cmd = xasprintf("cd '%s' && find . -type f -printf '%%P\\0' | "
	    "LC_ALL=C sort -z | xargs -0 sha256sum -- | sha256sum", root);
	out = run_sh(cmd);
	out[HASH_HEX_LEN] = '\0';
	assert_string_equal(t.hex, out);
	free(out);
	free(cmd);
	hashtree_release(&t);

	/* Folder a holds one file whose name is "a", LF and a listing line
	 * for b; folder b holds a and b.  Listed raw, both read the same. */
	hash_bytes("B", 1, bhex);
	forged = xasprintf("a/a\n%s  b", bhex);
	free(put_file(f, forged, "A", 1));
	free(put_file(f, "b/a", "A", 1));
	free(put_file(f, "b/b", "B", 1));
	p = xasprintf("%s/a", f->dir);
	assert_int_equal(hashtree_hash(h, p, NULL, &ta), 0);
	free(p);
	p = xasprintf("%s/b", f->dir);
	assert_int_equal(hashtree_hash(h, p, NULL, &tb), 0);
	free(p);
	old_a = xasprintf("%s  %s\n", ta.files[0].hash.hex, ta.files[0].path);
	old_b = xasprintf("%s  %s\n%s  %s\n", tb.files[0].hash.hex,
	    tb.files[0].path, tb.files[1].hash.hex, tb.files[1].path);
	assert_string_equal(old_a, old_b);
	assert_string_not_equal(ta.hex, tb.hex);
	free(old_a);
	free(old_b);
	free(forged);
	hashtree_release(&ta);
	hashtree_release(&tb);
	free(root);
	hash_free(h);
}

/* A FIFO, a socket in a tree: an error naming it, never opened (opening
 * the FIFO would wait for a writer forever), never skipped. */
static void
test_tree_special_files(void **state)
{
	struct fixture *f = *state;
	struct hasher *h = new_hasher(false, 2);
	struct sockaddr_un sun;
	struct tree t;
	char *root = xasprintf("%s/special", f->dir), *p;
	int fd;

	free(put_file(f, "special/a.bin", "abc", 3));
	free(put_file(f, "special/sub/z.bin", "abc", 3));
	p = xasprintf("%s/sub/fifo", root);
	assert_int_equal(mkfifo(p, 0644), 0);
	free(p);
	assert_int_equal(hashtree_hash(h, root, NULL, &t), -1);
	p = xasprintf("cannot hash '%s/sub/fifo': not a regular file: a FIFO",
	    root);
	assert_string_equal(t.err, p);
	assert_string_equal(t.hex, "");
	free(p);
	hashtree_release(&t);

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	p = xasprintf("%s/sock", root);
	assert_true(strlen(p) < sizeof sun.sun_path);
	memcpy(sun.sun_path, p, strlen(p));
	assert_true((fd = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof sun), 0);
	assert_int_equal(hashtree_hash(h, root, NULL, &t), -1);
	assert_non_null(strstr(t.err, "/sock': not a regular file: a socket"));
	hashtree_release(&t);
	close(fd);
	free(p);
	free(root);
	hash_free(h);
}

static void
test_tree_empty_and_errors(void **state)
{
	struct fixture *f = *state;
	struct hasher *h = new_hasher(false, 0);
	struct tree t;
	char *root = xasprintf("%s/none", f->dir), *file;

	assert_int_equal(mkdir(root, 0755), 0);
	assert_int_equal(hashtree_hash(h, root, NULL, &t), 0);
	assert_int_equal(t.nfiles, 0);
	assert_string_equal(t.hex, EMPTY_HEX);
	hashtree_release(&t);
	assert_int_equal(rmdir(root), 0);
	assert_int_equal(hashtree_hash(h, root, NULL, &t), -1);
	assert_non_null(strstr(t.err, "cannot open '"));
	assert_non_null(strstr(t.err, "No such file or directory"));
	assert_string_equal(t.hex, "");
	hashtree_release(&t);
	file = put_file(f, "plain", "x", 1);
	assert_int_equal(hashtree_hash(h, file, NULL, &t), -1);
	assert_non_null(strstr(t.err, "Not a directory"));
	hashtree_release(&t);
	free(file);
	free(root);
	hash_free(h);
}

static const struct tree_link *
find_link(const struct tree *t, const char *path)
{
	size_t i;

	for (i = 0; i < t->nlinks; i++) {
		if (strcmp(t->links[i].path, path) == 0)
			return &t->links[i];
	}
	fail_msg("no link '%s'", path);
	return NULL;
}

/* Links are listed, never followed, and flagged when they lead out. */
static void
test_tree_links(void **state)
{
	static const char *links[][2] = {
		{ "in", "f" }, { "sub/up", "../f" }, { "out", "/etc/passwd" },
		{ "escape", "../outside.txt" }, { "dangling", "nowhere" },
		{ "loop1", "loop2" }, { "loop2", "loop1" }, { "parent", ".." },
		{ "self", "." }, { "sub/dirlink", ".." },
	};
	struct fixture *f = *state;
	struct hasher *h = new_hasher(false, 2);
	struct tree t;
	char *root = xasprintf("%s/pkg", f->dir), *p, *within;
	size_t i;

	free(put_file(f, "pkg/f", "abc", 3));
	free(put_file(f, "pkg/sub/g", "", 0));
	free(put_file(f, "outside.txt", "x", 1));
	for (i = 0; i < nitems(links); i++) {
		p = xasprintf("%s/%s", root, links[i][0]);
		assert_int_equal(symlink(links[i][1], p), 0);
		free(p);
	}
	assert_int_equal(hashtree_hash(h, root, NULL, &t), 0);
	assert_int_equal(t.nfiles, 2);
	assert_int_equal(t.nlinks, nitems(links));
	assert_false(find_link(&t, "in")->outside);
	assert_false(find_link(&t, "sub/up")->outside);
	assert_false(find_link(&t, "self")->outside);
	assert_false(find_link(&t, "sub/dirlink")->outside);
	assert_true(find_link(&t, "out")->outside);
	assert_true(find_link(&t, "escape")->outside);
	assert_true(find_link(&t, "dangling")->outside);
	assert_true(find_link(&t, "loop1")->outside);
	assert_true(find_link(&t, "parent")->outside);
	assert_string_equal(find_link(&t, "out")->target, "/etc/passwd");
	for (i = 1; i < t.nlinks; i++)
		assert_true(strcmp(t.links[i - 1].path, t.links[i].path) < 0);
	hashtree_release(&t);

	/* With the parent as `within`, a link into it is no longer out. */
	assert_non_null(within = realpath(f->dir, NULL));
	assert_int_equal(hashtree_hash(h, root, within, &t), 0);
	assert_false(find_link(&t, "escape")->outside);
	assert_false(find_link(&t, "parent")->outside);
	assert_true(find_link(&t, "out")->outside);
	hashtree_release(&t);
	free(within);
	free(root);
	hash_free(h);
}

/* A FIFO, a dangling name and a folder are errors, not hangs. */
static void
test_unreadable(void **state)
{
	struct fixture *f = *state;
	struct hasher *h = new_hasher(true, 2);
	struct hash_result res[4];
	const char *paths[4];
	char *fifo = xasprintf("%s/fifo", f->dir);
	char *dangling = xasprintf("%s/dangling", f->dir);
	char *ok = put_file(f, "ok", "abc", 3);

	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(symlink("nowhere", dangling), 0);
	paths[0] = fifo;
	paths[1] = dangling;
	paths[2] = f->dir;
	paths[3] = ok;
	assert_int_equal(hash_files(h, 4, paths, res), 3);
	assert_int_equal(res[0].err, EINVAL);
	assert_int_equal(res[1].err, ENOENT);
	assert_int_equal(res[2].err, EISDIR);
	assert_int_equal(res[3].err, 0);
	assert_string_equal(res[3].hex, ABC_HEX);
	assert_int_equal(hash_file(h, fifo, &res[0]), -1);
	assert_string_equal(res[0].hex, "");
	hash_free(h);
	free(fifo);
	free(dangling);
	free(ok);
}

/* Files whose size stat() does not tell are read to their end. */
static void
test_proc_file(void **state)
{
	struct hasher *h = new_hasher(true, 1);
	struct hash_result r;
	char buf[4096], hex[HASH_HEX_LEN + 1];
	size_t len;
	FILE *fp;

	(void)state;
	assert_non_null(fp = fopen("/proc/version", "rb"));
	len = fread(buf, 1, sizeof buf, fp);
	fclose(fp);
	assert_true(len > 0);
	hash_bytes(buf, len, hex);
	assert_int_equal(hash_file(h, "/proc/version", &r), 0);
	assert_string_equal(r.hex, hex);
	assert_int_equal(r.size, len);
	hash_free(h);
}

struct shrink {
	const char	*path;
	long		 delay_us;
};

static void *
shrink_later(void *arg)
{
	struct shrink *s = arg;
	struct timespec ts = { 0, s->delay_us * 1000 };

	nanosleep(&ts, NULL);
	(void)truncate(s->path, 4096);
	return NULL;
}

/* A file cut short while it is read and hashed is an answer or an error,
 * never a crash, and never a digest of more than it held. */
static void
test_shrinking_file(void **state)
{
	struct fixture *f = *state;
	struct hasher *h = new_hasher(false, 1);
	struct hash_result r;
	struct shrink s;
	pthread_t tid;
	size_t len = 64u << 20;
	unsigned char *data = pattern(len, 9);
	int i;

	for (i = 0; i < 6; i++) {
		s.path = put_file(f, "shrink", data, len);
		s.delay_us = 2000 + 4000 * i;
		assert_int_equal(pthread_create(&tid, NULL, shrink_later, &s),
		    0);
		hash_file(h, s.path, &r);
		pthread_join(tid, NULL);
		if (r.err == 0)
			assert_true(r.size <= len);
		free((char *)s.path);
	}
	free(data);
	hash_free(h);
}

/* Save a cache holding one made-up digest for path as it is now. */
static void
poison(struct fixture *f, const char *path)
{
	struct hashcache *c = hashcache_new();
	struct hashcache_key k;
	unsigned char md[HASHCACHE_MDLEN];
	char err[256];

	memset(md, 0, sizeof md);
	stat_key(path, &k);
	hashcache_load(c, f->cache);
	hashcache_put(c, &k, md, true);
	assert_int_equal(hashcache_save(c, f->cache, err, sizeof err), 0);
	hashcache_free(c);
}

/* An entry is used while the file's version is the same, and not once
 * the file is changed in place (same size) or merely touched. */
static void
test_cache_version(void **state)
{
	struct fixture *f = *state;
	struct hash_result r;
	struct hasher *h;
	char *path = put_file(f, "v", "abc", 3), hex[HASH_HEX_LEN + 1];
	int fd;

	age_file(path);
	poison(f, path);
	h = new_hasher(true, 0);
	assert_int_equal(hash_file(h, path, &r), 0);
	assert_string_equal(r.hex, ZERO_HEX);		/* the cache answered */
	hash_free(h);
	h = new_hasher(false, 0);
	assert_int_equal(hash_file(h, path, &r), 0);
	assert_string_equal(r.hex, ABC_HEX);		/* --no-cache did not */
	hash_free(h);

	assert_true((fd = open(path, O_WRONLY)) >= 0);	/* "abc" -> "xyz" */
	assert_int_equal(pwrite(fd, "xyz", 3, 0), 3);
	close(fd);
	h = new_hasher(true, 0);
	assert_int_equal(hash_file(h, path, &r), 0);
	hash_bytes("xyz", 3, hex);
	assert_string_equal(r.hex, hex);
	hash_free(h);

	age_file(path);
	poison(f, path);
	assert_int_equal(utimensat(AT_FDCWD, path, NULL, 0), 0); /* touch */
	h = new_hasher(true, 0);
	assert_int_equal(hash_file(h, path, &r), 0);
	assert_string_equal(r.hex, hex);
	hash_free(h);
	free(path);
}

/* A hasher saves what it hashed, but not a file changed within the last
 * second: a rewrite in the same timestamp tick would go unseen. */
static void
test_cache_persist(void **state)
{
	struct fixture *f = *state;
	struct hashcache *c;
	struct hashcache_key kold, knew;
	struct hash_result r;
	struct hasher *h;
	unsigned char md[HASHCACHE_MDLEN];
	char *old = put_file(f, "old", "abc", 3), *fresh;
	struct timespec pause = { 1, 100000000 };

	nanosleep(&pause, NULL);
	fresh = put_file(f, "fresh", "abc", 3);
	h = new_hasher(true, 2);
	assert_int_equal(hash_file(h, old, &r), 0);
	assert_int_equal(hash_file(h, fresh, &r), 0);
	assert_int_equal(hash_file(h, fresh, &r), 0);	/* memoised */
	assert_string_equal(r.hex, ABC_HEX);
	hash_free(h);

	c = hashcache_new();
	assert_int_equal(hashcache_load(c, f->cache), 1);
	stat_key(old, &kold);
	stat_key(fresh, &knew);
	assert_true(hashcache_get(c, &kold, md));
	assert_false(hashcache_get(c, &knew, md));
	hashcache_free(c);

	/* --no-cache neither reads nor writes the file. */
	assert_int_equal(unlink(f->cache), 0);
	h = new_hasher(false, 0);
	assert_int_equal(hash_file(h, old, &r), 0);
	hash_free(h);
	assert_int_equal(access(f->cache, F_OK), -1);
	free(old);
	free(fresh);
}

static void
write_bytes(const char *path, const void *data, size_t len)
{
	int fd;

	assert_true((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* A damaged cache file is ignored as a whole, and said: an entry changed
 * fails the file's HMAC. */
static void
test_cache_corrupt(void **state)
{
	struct fixture *f = *state;
	struct hashcache *c;
	struct hashcache_key k;
	struct hash_result r;
	struct hasher *h;
	struct stat st;
	unsigned char md[HASHCACHE_MDLEN], *img, *junk = pattern(5000, 3);
	char *path = put_file(f, "c", "abc", 3), err[256];
	FILE *fp;
	int hits;

	age_file(path);
	free(put_file(f, "xdg/calops/hashes", junk, 5000));
	h = new_hasher(true, 0);
	assert_int_equal(hash_file(h, path, &r), 0);
	assert_string_equal(r.hex, ABC_HEX);
	hash_free(h);

	/* A valid file of three entries, then damaged in several ways. */
	c = hashcache_new();
	memset(&k, 0, sizeof k);
	memset(md, 0x11, sizeof md);
	for (k.ino = 1; k.ino <= 3; k.ino++)
		hashcache_put(c, &k, md, true);
	assert_int_equal(hashcache_save(c, f->cache, err, sizeof err), 0);
	hashcache_free(c);
	assert_int_equal(stat(f->cache, &st), 0);
	img = xmalloc((size_t)st.st_size);
	assert_non_null(fp = fopen(f->cache, "rb"));
	assert_int_equal(fread(img, 1, (size_t)st.st_size, fp), st.st_size);
	fclose(fp);

	c = hashcache_new();
	assert_int_equal(hashcache_load(c, f->cache), 3);
	write_bytes(f->cache, img, (size_t)st.st_size - 10);	/* truncated */
	assert_int_equal(hashcache_load(c, f->cache), 0);
	write_bytes(f->cache, img, 0);				/* empty */
	assert_int_equal(hashcache_load(c, f->cache), 0);
	img[9] ^= 1;						/* version */
	write_bytes(f->cache, img, (size_t)st.st_size);
	assert_int_equal(hashcache_load(c, f->cache), 0);
	img[9] ^= 1;
	img[st.st_size - 60] ^= 0x40;		/* last entry's digest */
	write_bytes(f->cache, img, (size_t)st.st_size);
	hashcache_free(c);
	c = hashcache_new();
	assert_int_equal(hashcache_load(c, f->cache), 0);
	assert_non_null(strstr(hashcache_problem(c), "authentication code"));
	for (hits = 0, k.ino = 1; k.ino <= 3; k.ino++)
		hits += hashcache_get(c, &k, md);
	assert_int_equal(hits, 0);
	hashcache_free(c);
	h = new_hasher(true, 0);			/* still works */
	assert_int_equal(hash_file(h, path, &r), 0);
	assert_string_equal(r.hex, ABC_HEX);
	hash_free(h);
	free(img);
	free(junk);
	free(path);
}

/* Entries saved by another process meanwhile are kept. */
static void
test_cache_merge(void **state)
{
	struct fixture *f = *state;
	struct hashcache *a = hashcache_new(), *b = hashcache_new(), *c;
	struct hashcache_key k;
	unsigned char md[HASHCACHE_MDLEN];
	char err[256];

	memset(&k, 0, sizeof k);
	memset(md, 0x22, sizeof md);
	hashcache_load(a, f->cache);
	hashcache_load(b, f->cache);
	k.ino = 10;
	hashcache_put(a, &k, md, true);
	k.ino = 20;
	hashcache_put(b, &k, md, true);
	k.ino = 30;
	hashcache_put(b, &k, md, false);		/* memo only */
	assert_int_equal(hashcache_save(a, f->cache, err, sizeof err), 0);
	assert_int_equal(hashcache_save(b, f->cache, err, sizeof err), 0);
	c = hashcache_new();
	assert_int_equal(hashcache_load(c, f->cache), 2);
	k.ino = 10;
	assert_true(hashcache_get(c, &k, md));
	k.ino = 20;
	assert_true(hashcache_get(c, &k, md));
	k.ino = 30;
	assert_false(hashcache_get(c, &k, md));
	hashcache_free(a);
	hashcache_free(b);
	hashcache_free(c);
}

static pthread_t progress_thread;
static uint64_t progress_done, progress_total;
static int progress_calls;

static void
progress(void *arg, uint64_t done, uint64_t total)
{
	(void)arg;
	assert_true(pthread_equal(pthread_self(), progress_thread));
	progress_done = done;
	progress_total = total;
	progress_calls++;
}

/* A tree hashed twice (memo, then cache) gives the same answer, and
 * progress is reported from the caller's thread. */
static void
test_tree_warm(void **state)
{
	struct fixture *f = *state;
	struct hasher_opts o = { .use_cache = true, .progress = progress };
	struct hasher *h;
	struct tree t1, t2, t3;
	unsigned char *data;
	char name[32], *root = xasprintf("%s/w", f->dir);
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < 50; i++) {
		data = pattern(i * 3000, (uint32_t)i);
		snprintf(name, sizeof name, "w/d%zu/f%zu", i % 5, i);
		free(put_file(f, name, data, i * 3000));
		total += i * 3000;
		free(data);
	}
	progress_thread = pthread_self();
	h = hash_new(&o);
	assert_int_equal(hashtree_hash(h, root, NULL, &t1), 0);
	assert_true(progress_calls > 0);
	assert_int_equal(progress_done, total);
	assert_int_equal(progress_total, total);
	assert_int_equal(hashtree_hash(h, root, NULL, &t2), 0);
	assert_string_equal(t1.hex, t2.hex);
	hash_free(h);
	h = new_hasher(true, 1);
	assert_int_equal(hashtree_hash(h, root, NULL, &t3), 0);
	assert_string_equal(t1.hex, t3.hex);
	assert_int_equal(t3.nfiles, 50);
	hash_free(h);
	hashtree_release(&t1);
	hashtree_release(&t2);
	hashtree_release(&t3);
	free(root);
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		TEST(test_small_files),
		TEST(test_large_files),
		TEST(test_many_files),
		TEST(test_tree_pipeline),
		cmocka_unit_test(test_listing_lines),
		cmocka_unit_test(test_listing_parse_errors),
		TEST(test_tree_hostile_names),
		TEST(test_tree_special_files),
		TEST(test_tree_empty_and_errors),
		TEST(test_tree_links),
		TEST(test_unreadable),
		TEST(test_proc_file),
		TEST(test_shrinking_file),
		TEST(test_cache_version),
		TEST(test_cache_persist),
		TEST(test_cache_corrupt),
		TEST(test_cache_merge),
		TEST(test_tree_warm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
