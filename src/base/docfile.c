/* docfile.c: reading a YAML file a user wrote, with located messages (see
 * docfile.h). */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/docfile.h"
#include "base/text.h"

/* "SOURCE:WHERE: MSG" into err, made safe to show. */
static void
located(char *err, size_t errlen, const char *source, const char *where,
    const char *msg)
{
	char *line, *clean;

	line = xasprintf("%s:%s: %s", source, where, msg);
	clean = text_sanitize(line, strlen(line), 0);
	errbuf_set(err, errlen, "%s", clean);
	free(clean);
	free(line);
}

void
docfile_error(char *err, size_t errlen, const char *source,
    const struct doc *d, const char *pointer, const char *fmt, ...)
{
	char where[64] = "1:1", *msg;
	va_list ap;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (d != NULL && d->pos != NULL &&
	    json_object_get(d->pos, pointer) != NULL)
		doc_where(d, pointer, where, sizeof where);
	located(err, errlen, source, where, msg);
	free(msg);
}

int
docfile_check_keys(char *err, size_t errlen, const char *source,
    const struct doc *d, json_t *obj, const char *pointer,
    const char *const *keys, size_t nkeys)
{
	const char *key;
	json_t *v;
	char *kp;
	size_t i;

	json_object_foreach(obj, key, v) {
		for (i = 0; i < nkeys && strcmp(key, keys[i]) != 0; i++)
			;
		if (i < nkeys)
			continue;
		kp = doc_ptr_key(pointer, key);
		docfile_error(err, errlen, source, d, kp, "unknown key '%s'",
		    key);
		free(kp);
		return -1;
	}
	return 0;
}

bool
docfile_is_null(const struct stat *st)
{
	struct stat null;

	return S_ISCHR(st->st_mode) && stat("/dev/null", &null) == 0 &&
	    S_ISCHR(null.st_mode) && null.st_rdev == st->st_rdev;
}

/* Read without blocking on a FIFO someone put in the file's place. */
int
docfile_read(const char *path, size_t max, char **data, size_t *len,
    char *err, size_t errlen)
{
	char chunk[16384];
	struct stat st;
	struct buf b;
	ssize_t n;
	int fd;

	*data = NULL;
	*len = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) ==
	    -1) {
		if (errno == ENOENT)
			return 1;
		errbuf_set(err, errlen, "cannot open '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	buf_init(&b, max);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		errbuf_set(err, errlen, "'%s' is not a regular file", path);
		goto fail;
	}
	if ((uintmax_t)st.st_size > max)
		goto big;
	for (;;) {
		if ((n = read(fd, chunk, sizeof chunk)) == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			errbuf_set(err, errlen, "cannot read '%s': %s", path,
			    strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		if (buf_add(&b, chunk, (size_t)n) != 0)
			goto big;
	}
	close(fd);
	*data = buf_detach(&b, len);
	return 0;
big:
	errbuf_set(err, errlen, "'%s' is larger than %zu KiB", path,
	    max >> 10);
fail:
	close(fd);
	buf_release(&b);
	return -1;
}

int
docfile_parse_yaml(struct doc *d, const char *data, size_t len,
    const char *source, char *err, size_t errlen)
{
	struct doc_error de;

	memset(&de, 0, sizeof de);
	if (doc_parse_yaml(d, data, len, &de) == 0)
		return 0;
	located(err, errlen, source, de.where[0] != '\0' ? de.where : "1:1",
	    de.msg);
	return -1;
}

int
docfile_load_yaml(struct doc *d, const char *path, size_t max, char *err,
    size_t errlen)
{
	char *data;
	size_t len;
	int rc;

	if ((rc = docfile_read(path, max, &data, &len, err, errlen)) != 0)
		return rc;
	rc = docfile_parse_yaml(d, data, len, path, err, errlen);
	free(data);
	return rc;
}

/* What a value is, for "must be X, not Y". */
const char *
docfile_kind_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "a mapping";
	case JSON_ARRAY:
		return "a list";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a decimal number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
	default:
		return "empty";
	}
}
