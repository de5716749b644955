/*
 * docfile.h: the files a user writes by hand (the config file, themes, the
 * lab file) read as one document, with every message located as
 * "SOURCE:LINE:COL: message" and made safe to show.
 */
#ifndef CALOPS_DOCFILE_H
#define CALOPS_DOCFILE_H

#include "calops.h"

#include <jansson.h>

#include "base/doc.h"

/*
 * docfile_read reads a whole regular file of at most max bytes into
 * *data (NUL-terminated, owned by the caller); it returns 0, 1 when there is
 * no such file, or -1 with a message in err.  docfile_parse_yaml parses YAML
 * into d (released by the caller on success) or returns -1 with
 * "SOURCE:LINE:COL: message" in err.  docfile_kind_name says what a value is
 * for messages such as "must be a string, not a list".
 */
int	 docfile_read(const char *path, size_t max, char **data,
	    size_t *len, char *err, size_t errlen);
int	 docfile_parse_yaml(struct doc *d, const char *data, size_t len,
	    const char *source, char *err, size_t errlen);
/* Both: the YAML file at path into d; 0, 1 when there is no such file,
 * or -1 with err. */
int	 docfile_load_yaml(struct doc *d, const char *path, size_t max,
	    char *err, size_t errlen);
const char *docfile_kind_name(const json_t *v);

/* Whether st (a stat of a path given) is the null device, which the
 * tools calops follows read as an empty file (ssh -F /dev/null,
 * UserKnownHostsFile /dev/null) where docfile_read wants a regular one. */
struct stat;
bool	 docfile_is_null(const struct stat *st);

/*
 * Write "SOURCE:LINE:COL: message" to err for the node at pointer in d (1:1
 * when d has no position for it), sanitised: keys quoted in the message come
 * from a file.
 */
void	 docfile_error(char *err, size_t errlen, const char *source,
	    const struct doc *d, const char *pointer, const char *fmt, ...)
	    PRINTFLIKE(6, 7);
/* Unknown keys are errors, so that a typo is not silently ignored: 0 when
 * every key of the mapping obj at pointer is one of keys[nkeys], else -1
 * with the first other one in err as docfile_error() words it. */
int	 docfile_check_keys(char *err, size_t errlen, const char *source,
	    const struct doc *d, json_t *obj, const char *pointer,
	    const char *const *keys, size_t nkeys);

#endif
