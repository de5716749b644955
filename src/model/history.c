/* history.c: evaluations remembered per workspace (see history.h). */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/fileio.h"
#include "base/lines.h"
#include "base/statedir.h"
#include "model/history.h"
#include "ws/hash.h"

#define HISTORY_LINE_MAX (4u << 20)

char *
history_path(const char *workspace, const char *host, char *err,
    size_t errlen)
{
	char hex[HASH_HEX_LEN + 1], *real, *dir = NULL, *path;
	int fd;

	/* A workspace on another host is its host and path as the lab file
	 * gives them: there is nothing to resolve here. */
	if (host != NULL)
		real = xasprintf("ssh://%s%s", host, workspace);
	else if ((real = realpath(workspace, NULL)) == NULL) {
		errbuf_set(err, errlen, "cannot resolve '%s': %s", workspace,
		    strerror(errno));
		return NULL;
	}
	hash_bytes(real, strlen(real), hex);
	free(real);
	/* The folder is the user's alone, or it is not used (statedir.h). */
	if ((fd = statedir_open("history", "the history folder", true, &dir,
	    err, errlen)) == -1)
		return NULL;
	close(fd);
	path = xasprintf("%s/%.32s.jsonl", dir, hex);
	free(dir);
	return path;
}

/* Every entry of the file (an array, new reference); bad lines skipped. */
static json_t *
read_all(const char *path)
{
	json_t *all = json_array(), *o;
	struct lines l;
	const char *line;
	size_t len;
	bool cut;
	int fd;

	/* Never through a link: a history others planted is no hint. */
	if ((fd = statedir_open_path(path, O_RDONLY, 0, NULL, 0)) == -1)
		return all;
	lines_open_fd(&l, fd, HISTORY_LINE_MAX);
	while (lines_next(&l, &line, &len, &cut) == 1) {
		if (cut || (o = json_loadb(line, len, 0, NULL)) == NULL)
			continue;
		if (json_is_object(json_object_get(o, "gates")))
			json_array_append(all, o);
		json_decref(o);
	}
	lines_close(&l);
	return all;
}

/*
 * Write the entries atomically.  No fsync: the console writes this from its
 * one thread of control, and the history is only a hint, not worth a stall
 * on a slow disk; a crash loses at most the newest entries, never the
 * file's shape.
 */
static int
write_entries(const char *path, json_t *all, size_t from, char *err,
    size_t errlen)
{
	struct buf b = BUF_INIT;
	char *line;
	size_t i;
	int rc;

	for (i = from; i < json_array_size(all); i++) {
		line = json_dumps(json_array_get(all, i), JSON_COMPACT);
		if (line != NULL) {
			buf_adds(&b, line);
			buf_addc(&b, '\n');
		}
		free(line);
	}
	rc = fileio_replace(path, b.data != NULL ? b.data : "", b.len, 0600,
	    false, err, errlen);
	buf_release(&b);
	return rc;
}

int
history_append(const char *path, json_t *gates, int64_t ts, int keep,
    char *err, size_t errlen)
{
	json_t *all = read_all(path), *last;
	size_t n;
	int rc = 0;

	n = json_array_size(all);
	last = n > 0 ? json_array_get(all, n - 1) : NULL;
	if (keep <= 0 || (last != NULL &&
	    json_equal(json_object_get(last, "gates"), gates))) {
		json_decref(all);
		return 0;
	}
	json_array_append_new(all, json_pack("{s:I,s:O}", "ts", (json_int_t)ts,
	    "gates", gates));
	n++;
	rc = write_entries(path, all, n > (size_t)keep ? n - (size_t)keep : 0,
	    err, errlen);
	json_decref(all);
	return rc;
}

json_t *
history_last_pass(const char *path, const char *gate, int64_t *ts)
{
	json_t *all = read_all(path), *g = NULL, *e;
	size_t i;

	for (i = json_array_size(all); i-- > 0;) {
		e = json_array_get(all, i);
		g = json_object_get(json_object_get(e, "gates"), gate);
		if (json_is_string(json_object_get(g, "status")) &&
		    strcmp(json_string_value(json_object_get(g, "status")),
		    "pass") == 0) {
			json_incref(g);
			if (ts != NULL)
				*ts = json_integer_value(json_object_get(e, "ts"));
			break;
		}
		g = NULL;
	}
	json_decref(all);
	return g;
}

static json_t *
find_input(json_t *list, const char *path)
{
	json_t *v;
	size_t i;

	json_array_foreach(list, i, v) {
		const char *p = json_string_value(json_object_get(v, "path"));

		if (p != NULL && strcmp(p, path) == 0)
			return v;
	}
	return NULL;
}

/* How an input is told apart: its hash, else its size and mtime. */
static json_t *
identity(json_t *in)
{
	json_t *sha = json_object_get(in, "sha256");

	if (!json_is_true(json_object_get(in, "present")))
		return json_string("absent");
	if (json_is_string(sha))
		return json_incref(sha);
	return json_sprintf("%lld bytes, mtime %lld",
	    (long long)json_integer_value(json_object_get(in, "size")),
	    (long long)json_integer_value(json_object_get(in, "mtime_ns")));
}

static void
add_change(json_t *out, const char *path, const char *change, json_t *from,
    json_t *to)
{
	json_array_append_new(out, json_pack("{s:s,s:s,s:o,s:o}", "path", path,
	    "change", change, "from", from != NULL ? from : json_null(),
	    "to", to != NULL ? to : json_null()));
}

json_t *
history_diff(json_t *then, json_t *now)
{
	json_t *out = json_array(), *a, *b, *ia, *ib;
	const char *path;
	size_t i;

	json_array_foreach(now, i, b) {
		if ((path = json_string_value(json_object_get(b, "path"))) == NULL)
			continue;
		a = find_input(then, path);
		ib = identity(b);
		if (a == NULL) {
			add_change(out, path, "added", NULL, ib);
			continue;
		}
		ia = identity(a);
		if (!json_equal(ia, ib))
			add_change(out, path, "changed", ia, ib);
		else {
			json_decref(ia);
			json_decref(ib);
		}
	}
	json_array_foreach(then, i, a) {
		if ((path = json_string_value(json_object_get(a, "path"))) == NULL)
			continue;
		if (find_input(now, path) == NULL)
			add_change(out, path, "removed", identity(a), NULL);
	}
	return out;
}
