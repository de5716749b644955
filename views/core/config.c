/* config.c: the console's config file and the user's calops files (see
 * config.h). */
#include "calops.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/doc.h"
#include "base/docfile.h"
#include "base/fileio.h"
#include "base/text.h"
#include "views/core/config.h"
#include "views/core/theme.h"

#define OPT(field) offsetof(struct config, field)

const struct config_option config_options[] = {
	{ "theme", CONFIG_STRING, OPT(theme), THEME_DEFAULT, 0, 0, 0,
	  "the theme: a name (NAME.yaml in $XDG_CONFIG_HOME/calops/themes or "
	  "the built-in themes) or a path to a theme file" },
	{ "lab", CONFIG_PATH, OPT(lab), NULL, 0, 0, 0,
	  "the lab file naming the hosts to work on; none: this host only" },
	{ "mouse", CONFIG_BOOL, OPT(mouse), NULL, 1, 0, 0,
	  "use the mouse: click to select, wheel to scroll" },
	{ "ascii", CONFIG_BOOL, OPT(ascii), NULL, 0, 0, 0,
	  "draw boxes and glyphs in ASCII even in a UTF-8 locale" },
	{ "refresh_debounce_ms", CONFIG_INT, OPT(refresh_debounce_ms), NULL,
	  250, 50, 10000,
	  "milliseconds to wait after a file changes before evaluating again" },
	{ "history", CONFIG_INT, OPT(history), NULL, 100, 0, 1000,
	  "evaluations kept per workspace for trends (0: none)" },
	{ "release_key", CONFIG_PATH, OPT(release_key), NULL, 0, 0, 0,
	  "the release owner's private key (PEM Ed25519) the Release screen "
	  "offers when approving; the passphrase of an encrypted one is "
	  "asked each time, never kept" },
	{ "release_actor", CONFIG_STRING, OPT(release_actor), NULL, 0, 0, 0,
	  "who approves, as the audit log and the release lock name them; "
	  "none: user@host" },
	{ "alert_bell", CONFIG_BOOL, OPT(alert_bell), NULL, 0, 0, 0,
	  "ring the terminal's bell when a soak alert opens, on any screen" },
};
const size_t config_noptions = nitems(config_options);

static char **
field_str(struct config *c, const struct config_option *o)
{
	return (char **)(void *)((char *)c + o->offset);
}

static bool *
field_bool(struct config *c, const struct config_option *o)
{
	return (bool *)(void *)((char *)c + o->offset);
}

static int *
field_int(struct config *c, const struct config_option *o)
{
	return (int *)(void *)((char *)c + o->offset);
}

static void
config_defaults(struct config *c)
{
	const struct config_option *o;
	size_t i;

	memset(c, 0, sizeof *c);
	for (i = 0; i < config_noptions; i++) {
		o = &config_options[i];
		switch (o->type) {
		case CONFIG_STRING:
		case CONFIG_PATH:
			*field_str(c, o) = o->def_str != NULL ?
			    xstrdup(o->def_str) : NULL;
			break;
		case CONFIG_BOOL:
			*field_bool(c, o) = o->def_int != 0;
			break;
		case CONFIG_INT:
			*field_int(c, o) = o->def_int;
			break;
		}
	}
}

void
config_release(struct config *c)
{
	size_t i;

	for (i = 0; i < config_noptions; i++) {
		if (config_options[i].type == CONFIG_STRING ||
		    config_options[i].type == CONFIG_PATH) {
			free(*field_str(c, &config_options[i]));
			*field_str(c, &config_options[i]) = NULL;
		}
	}
	free(c->path);
	c->path = NULL;
}

void
config_describe(FILE *f)
{
	const struct config_option *o;
	size_t i;

	for (i = 0; i < config_noptions; i++) {
		o = &config_options[i];
		switch (o->type) {
		case CONFIG_STRING:
		case CONFIG_PATH:
			fprintf(f, "%s: %s (default: %s)\n", o->name,
			    o->type == CONFIG_PATH ? "path" : "string",
			    o->def_str != NULL ? o->def_str : "none");
			break;
		case CONFIG_BOOL:
			fprintf(f, "%s: true or false (default: %s)\n", o->name,
			    o->def_int ? "true" : "false");
			break;
		case CONFIG_INT:
			fprintf(f, "%s: integer %d to %d (default: %d)\n",
			    o->name, o->min, o->max, o->def_int);
			break;
		}
		fprintf(f, "    %s\n", o->help);
	}
}

const char *
config_dir(char *buf, size_t len)
{
	return fileio_config_dir(buf, len);
}

const char *
config_path_default(char *buf, size_t len)
{
	char dir[PATH_MAX];
	int n;

	if (config_dir(dir, sizeof dir) == NULL)
		return NULL;
	n = snprintf(buf, len, "%s/config.yaml", dir);
	return n < 0 || (size_t)n >= len ? NULL : buf;
}

char *
config_expand_path(const char *s)
{
	const char *home = getenv("HOME");

	if (s[0] != '~' || (s[1] != '\0' && s[1] != '/'))
		return xstrdup(s);
	if (home == NULL || home[0] == '\0')
		return NULL;
	return xasprintf("%s%s", home, s + 1);
}

/* Check one value against its option and store it. */
static int
set_option(struct config *c, const struct config_option *o, const json_t *v,
    const struct doc *d, const char *ptr, char *err, size_t errlen)
{
	const char *src = c->path;
	char *s;
	json_int_t i;

	switch (o->type) {
	case CONFIG_PATH:
		if (json_is_null(v)) {
			free(*field_str(c, o));
			*field_str(c, o) = NULL;
			return 0;
		}
		/* FALLTHROUGH */
	case CONFIG_STRING:
		if (!json_is_string(v)) {
			docfile_error(err, errlen, src, d, ptr,
			    "'%s' must be a string, not %s", o->name,
			    docfile_kind_name(v));
			return -1;
		}
		if (json_string_length(v) == 0) {
			docfile_error(err, errlen, src, d, ptr,
			    "'%s' must not be empty", o->name);
			return -1;
		}
		s = o->type == CONFIG_PATH ?
		    config_expand_path(json_string_value(v)) :
		    xstrdup(json_string_value(v));
		if (s == NULL) {
			docfile_error(err, errlen, src, d, ptr,
			    "'%s': cannot expand '~' when HOME is not set",
			    o->name);
			return -1;
		}
		free(*field_str(c, o));
		*field_str(c, o) = s;
		return 0;
	case CONFIG_BOOL:
		if (!json_is_boolean(v)) {
			docfile_error(err, errlen, src, d, ptr,
			    "'%s' must be true or false, not %s", o->name,
			    docfile_kind_name(v));
			return -1;
		}
		*field_bool(c, o) = json_is_true(v);
		return 0;
	case CONFIG_INT:
		if (!json_is_integer(v)) {
			docfile_error(err, errlen, src, d, ptr,
			    "'%s' must be an integer, not %s", o->name,
			    docfile_kind_name(v));
			return -1;
		}
		i = json_integer_value(v);
		if (i < o->min || i > o->max) {
			docfile_error(err, errlen, src, d, ptr,
			    "'%s' must be from %d to %d, not %lld", o->name,
			    o->min, o->max, (long long)i);
			return -1;
		}
		*field_int(c, o) = (int)i;
		return 0;
	}
	return -1;
}

/* An option the table does not have, with the one meant when a letter or
 * two is off ("relese_key": "release_key"). */
static void
unknown_option(const struct config *c, const struct doc *d, const char *ptr,
    const char *key, char *err, size_t errlen)
{
	size_t i, dist, best = SIZE_MAX, bestd = 3;

	for (i = 0; i < config_noptions; i++)
		if ((dist = text_distance(key, config_options[i].name)) <
		    bestd) {
			bestd = dist;
			best = i;
		}
	if (best != SIZE_MAX)
		docfile_error(err, errlen, c->path, d, ptr, "unknown option "
		    "'%.60s' (did you mean '%s'?)", key,
		    config_options[best].name);
	else
		docfile_error(err, errlen, c->path, d, ptr,
		    "unknown option '%.60s'", key);
}

/* Apply every option in the document, checked against the table. */
static int
apply(struct config *c, const struct doc *d, char *err, size_t errlen)
{
	const char *key;
	json_t *v;
	char *ptr;
	size_t i;
	int rc;

	if (json_is_null(d->root))
		return 0;	/* an empty file */
	if (!json_is_object(d->root)) {
		docfile_error(err, errlen, c->path, d, "",
		    "the config file must be a mapping of options, not %s",
		    docfile_kind_name(d->root));
		return -1;
	}
	json_object_foreach(d->root, key, v) {
		ptr = doc_ptr_key("", key);
		for (i = 0; i < config_noptions; i++)
			if (strcmp(key, config_options[i].name) == 0)
				break;
		/* The alert rules are the lab's to read and check, under the
		 * lab file's (remote/lab.h lab_merge_config). */
		if (strcmp(key, "alerts") == 0)
			rc = 0;
		else if (i == config_noptions) {
			unknown_option(c, d, ptr, key, err, errlen);
			rc = -1;
		} else
			rc = set_option(c, &config_options[i], v, d, ptr, err,
			    errlen);
		free(ptr);
		if (rc != 0)
			return -1;
	}
	return 0;
}

int
config_load(struct config *c, const char *path, char *err, size_t errlen)
{
	char dflt[PATH_MAX];
	struct doc d;
	int rc;

	config_defaults(c);
	if (path == NULL && (path = config_path_default(dflt,
	    sizeof dflt)) == NULL)
		return 0;
	if ((rc = docfile_load_yaml(&d, path, CONFIG_MAX_BYTES, err,
	    errlen)) != 0)
		return rc == 1 ? 0 : -1;
	c->path = xstrdup(path);
	rc = apply(c, &d, err, errlen);
	doc_release(&d);
	if (rc != 0) {
		config_release(c);
		config_defaults(c);
		return -1;
	}
	return 0;
}
