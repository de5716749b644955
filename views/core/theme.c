/* theme.c: theme files, semantic roles to colours (see theme.h). */
#include "calops.h"

#include <dirent.h>

#include "base/buf.h"
#include "base/doc.h"
#include "base/docfile.h"
#include "base/text.h"
#include "views/core/config.h"
#include "views/core/theme.h"

#ifndef CALOPS_THEMES_DIR
#define CALOPS_THEMES_DIR "/usr/local/share/calops/themes"
#endif

#define THEME_NAME_MAX 64

const struct role_info theme_role_table[ROLE_COUNT] = {
	[ROLE_NORMAL] = { "normal",
	    "ordinary text and the background of every view" },
	[ROLE_TITLE] = { "title", "the title line at the top of a view" },
	[ROLE_STATUSBAR] = { "statusbar", "the status line at the bottom" },
	[ROLE_HEADER] = { "header", "column headers of lists and tables" },
	[ROLE_SELECTION] = { "selection", "the selected line" },
	[ROLE_BORDER] = { "border", "box borders and separators" },
	[ROLE_DIM] = { "dim", "secondary text: paths, hashes, times" },
	[ROLE_KEY] = { "key", "key names in the help screen and hints" },
	[ROLE_BANNER] = { "banner", "the BLOCKED_COMPILER banner" },
	[ROLE_PASS] = { "pass", "a gate or check that passes" },
	[ROLE_FAIL] = { "fail", "a gate or check that fails" },
	[ROLE_BLOCKED] = { "blocked",
	    "a gate blocked on something outside the team" },
	[ROLE_STALE] = { "stale", "evidence bound to inputs that changed" },
	[ROLE_PENDING] = { "pending", "a gate whose artifact is not there yet" },
	[ROLE_RUNNING] = { "running", "a job or evaluation in progress" },
	[ROLE_ERROR] = { "error", "errors: findings and messages" },
	[ROLE_WARN] = { "warn", "warnings" },
	[ROLE_INFO] = { "info", "notes and informational findings" },
	[ROLE_PROGRESS] = { "progress", "progress bars and ticket progress" },
	[ROLE_MATCH] = { "match", "search matches" },
};

int
theme_role_lookup(const char *name)
{
	int i;

	for (i = 0; i < ROLE_COUNT; i++)
		if (strcmp(name, theme_role_table[i].name) == 0)
			return i;
	return -1;
}

static const struct {
	const char	*name;
	short		 value;
} colour_names[] = {
	{ "default", -1 }, { "black", 0 }, { "red", 1 }, { "green", 2 },
	{ "yellow", 3 }, { "blue", 4 }, { "magenta", 5 }, { "cyan", 6 },
	{ "white", 7 }, { "bright-black", 8 }, { "bright-red", 9 },
	{ "bright-green", 10 }, { "bright-yellow", 11 }, { "bright-blue", 12 },
	{ "bright-magenta", 13 }, { "bright-cyan", 14 }, { "bright-white", 15 },
};

/* The keys of a role: a colour (its slot in struct spec) or an attribute. */
enum { FG8, BG8, FG256, BG256, NSLOTS };

static const struct {
	const char	*name;
	int		 slot;		/* -1: an attribute */
	unsigned	 attr;
} style_keys[] = {
	{ "fg", FG8, 0 }, { "bg", BG8, 0 },
	{ "fg256", FG256, 0 }, { "bg256", BG256, 0 },
	{ "bold", -1, THEME_BOLD }, { "dim", -1, THEME_DIM },
	{ "reverse", -1, THEME_REVERSE }, { "underline", -1, THEME_UNDERLINE },
	{ "italic", -1, THEME_ITALIC },
};

/* One role as the file gives it, before the gaps are filled from normal. */
struct spec {
	bool		 present;
	bool		 has[NSLOTS];
	short		 col[NSLOTS];
	unsigned	 attrs;
};

struct parse {
	const struct doc	*d;
	const char		*source;
	char			*err;
	size_t			 errlen;
	struct spec		 specs[ROLE_COUNT];
};

/* A colour: a name or a number, 0-7 for fg and bg, 0-255 for fg256 and
 * bg256. */
static int
parse_colour(struct parse *p, const char *ptr, const char *role,
    const char *key, bool wide, const json_t *v, short *out)
{
	const char *s;
	json_int_t n;
	size_t i;

	if (json_is_integer(v)) {
		n = json_integer_value(v);
		if (n >= 0 && n <= (wide ? 255 : 7)) {
			*out = (short)n;
			return 0;
		}
		docfile_error(p->err, p->errlen, p->source, p->d, ptr,
		    "'%s' in role '%s' must be a colour name or 0-%d, not %lld",
		    key, role, wide ? 255 : 7, (long long)n);
		return -1;
	}
	if (!json_is_string(v)) {
		docfile_error(p->err, p->errlen, p->source, p->d, ptr,
		    "'%s' in role '%s' must be a colour name or a number, "
		    "not %s", key, role, docfile_kind_name(v));
		return -1;
	}
	s = json_string_value(v);
	for (i = 0; i < nitems(colour_names); i++) {
		if (strcmp(s, colour_names[i].name) != 0)
			continue;
		if (!wide && colour_names[i].value > 7) {
			docfile_error(p->err, p->errlen, p->source, p->d, ptr,
			    "'%s' in role '%s': '%s' needs 256 colours, give "
			    "it as %s256", key, role, s, key);
			return -1;
		}
		*out = colour_names[i].value;
		return 0;
	}
	docfile_error(p->err, p->errlen, p->source, p->d, ptr,
	    "'%s' in role '%s': unknown colour '%.40s' (default, black, red, "
	    "green, yellow, blue, magenta, cyan, white%s)", key, role, s,
	    wide ? ", bright-black ... bright-white or 0-255" : " or 0-7");
	return -1;
}

/* One style key of a role into its spec. */
static int
parse_style_key(struct parse *p, struct spec *sp, const char *role,
    const char *key, const json_t *v, const char *ptr)
{
	size_t i;

	for (i = 0; i < nitems(style_keys); i++)
		if (strcmp(key, style_keys[i].name) == 0)
			break;
	if (i == nitems(style_keys)) {
		docfile_error(p->err, p->errlen, p->source, p->d, ptr,
		    "unknown key '%.60s' in role '%s' (fg, bg, fg256, bg256, "
		    "bold, dim, reverse, underline, italic)", key, role);
		return -1;
	}
	if (style_keys[i].slot >= 0) {
		sp->has[style_keys[i].slot] = true;
		return parse_colour(p, ptr, role, key,
		    style_keys[i].slot >= FG256, v,
		    &sp->col[style_keys[i].slot]);
	}
	if (!json_is_boolean(v)) {
		docfile_error(p->err, p->errlen, p->source, p->d, ptr,
		    "'%s' in role '%s' must be true or false, not %s", key,
		    role, docfile_kind_name(v));
		return -1;
	}
	if (json_is_true(v))
		sp->attrs |= style_keys[i].attr;
	else
		sp->attrs &= ~style_keys[i].attr;
	return 0;
}

/* The roles mapping into p->specs. */
static int
parse_roles(struct parse *p, const json_t *roles)
{
	const char *name, *key;
	json_t *style, *v;
	char *rptr, *kptr;
	int r, rc = 0;

	json_object_foreach((json_t *)roles, name, style) {
		rptr = doc_ptr_key("/roles", name);
		if ((r = theme_role_lookup(name)) == -1) {
			docfile_error(p->err, p->errlen, p->source, p->d, rptr,
			    "unknown role '%.60s'", name);
			rc = -1;
		} else if (!json_is_object(style)) {
			docfile_error(p->err, p->errlen, p->source, p->d, rptr,
			    "role '%s' must be a mapping such as {fg: red}, "
			    "not %s", name, docfile_kind_name(style));
			rc = -1;
		} else {
			p->specs[r].present = true;
			json_object_foreach(style, key, v) {
				kptr = doc_ptr_key(rptr, key);
				rc = parse_style_key(p, &p->specs[r], name, key,
				    v, kptr);
				free(kptr);
				if (rc != 0)
					break;
			}
		}
		free(rptr);
		if (rc != 0)
			return -1;
	}
	if (!p->specs[ROLE_NORMAL].present) {
		docfile_error(p->err, p->errlen, p->source, p->d, "/roles",
		    "role 'normal' is missing (roles not given are copies "
		    "of it)");
		return -1;
	}
	return 0;
}

/* Fill each role's gaps: fg256 from fg, the rest from normal. */
static void
resolve(struct theme *t, const struct spec *specs)
{
	const struct spec *s = &specs[ROLE_NORMAL];
	struct role_style *n = &t->roles[ROLE_NORMAL], *rs;
	int r;

	n->fg8 = s->has[FG8] ? s->col[FG8] : -1;
	n->bg8 = s->has[BG8] ? s->col[BG8] : -1;
	n->fg256 = s->has[FG256] ? s->col[FG256] : n->fg8;
	n->bg256 = s->has[BG256] ? s->col[BG256] : n->bg8;
	n->attrs = s->attrs;
	for (r = 0; r < ROLE_COUNT; r++) {
		if (r == ROLE_NORMAL)
			continue;
		s = &specs[r];
		rs = &t->roles[r];
		if (!s->present) {
			*rs = *n;
			continue;
		}
		rs->fg8 = s->has[FG8] ? s->col[FG8] : n->fg8;
		rs->bg8 = s->has[BG8] ? s->col[BG8] : n->bg8;
		rs->fg256 = s->has[FG256] ? s->col[FG256] :
		    s->has[FG8] ? s->col[FG8] : n->fg256;
		rs->bg256 = s->has[BG256] ? s->col[BG256] :
		    s->has[BG8] ? s->col[BG8] : n->bg256;
		rs->attrs = s->attrs;
	}
}

/* A theme's name when the file gives none: its file name without .yaml. */
static char *
name_from_source(const char *source)
{
	const char *base = strrchr(source, '/');
	size_t len;

	base = base != NULL ? base + 1 : source;
	len = strlen(base);
	if (len > 5 && strcmp(base + len - 5, ".yaml") == 0)
		len -= 5;
	return xstrndup(base, len);
}

/* name and description: optional strings. */
static int
parse_text(struct parse *p, const json_t *root, const char *key, char **out)
{
	const json_t *v = json_object_get(root, key);
	char *ptr;
	int rc = 0;

	if (v == NULL)
		return 0;
	ptr = doc_ptr_key("", key);
	if (!json_is_string(v)) {
		docfile_error(p->err, p->errlen, p->source, p->d, ptr,
		    "'%s' must be a string, not %s", key, docfile_kind_name(v));
		rc = -1;
	} else if (strcmp(key, "name") == 0 && (json_string_length(v) == 0 ||
	    json_string_length(v) > THEME_NAME_MAX)) {
		docfile_error(p->err, p->errlen, p->source, p->d, ptr,
		    "'name' must be 1 to %d bytes long", THEME_NAME_MAX);
		rc = -1;
	} else
		*out = xstrdup(json_string_value(v));
	free(ptr);
	return rc;
}

/* Check the document's shape and read it into t. */
static int
parse_doc(struct theme *t, struct parse *p)
{
	const json_t *root = p->d->root, *roles;
	const char *key;
	json_t *v;
	char *ptr;

	if (!json_is_object(root)) {
		docfile_error(p->err, p->errlen, p->source, p->d, "",
		    "a theme must be a mapping with name, description and "
		    "roles, not %s", docfile_kind_name(root));
		return -1;
	}
	json_object_foreach((json_t *)root, key, v) {
		if (strcmp(key, "name") == 0 ||
		    strcmp(key, "description") == 0 ||
		    strcmp(key, "roles") == 0)
			continue;
		ptr = doc_ptr_key("", key);
		docfile_error(p->err, p->errlen, p->source, p->d, ptr,
		    "unknown key '%.60s' (name, description, roles)", key);
		free(ptr);
		return -1;
	}
	if (parse_text(p, root, "name", &t->name) != 0 ||
	    parse_text(p, root, "description", &t->description) != 0)
		return -1;
	if ((roles = json_object_get(root, "roles")) == NULL) {
		docfile_error(p->err, p->errlen, p->source, p->d, "",
		    "the theme has no 'roles' (role 'normal' at least)");
		return -1;
	}
	if (!json_is_object(roles)) {
		docfile_error(p->err, p->errlen, p->source, p->d, "/roles",
		    "'roles' must be a mapping from role to style, not %s",
		    docfile_kind_name(roles));
		return -1;
	}
	if (parse_roles(p, roles) != 0)
		return -1;
	resolve(t, p->specs);
	return 0;
}

int
theme_parse(struct theme *t, const char *yaml, size_t len,
    const char *source, char *err, size_t errlen)
{
	struct parse p;
	struct doc d;
	int rc;

	memset(t, 0, sizeof *t);
	if (len > THEME_MAX_BYTES) {
		errbuf_set(err, errlen, "%s: a theme may not be larger than "
		    "%u KiB", source, THEME_MAX_BYTES >> 10);
		return -1;
	}
	if (docfile_parse_yaml(&d, yaml, len, source, err, errlen) != 0)
		return -1;
	memset(&p, 0, sizeof p);
	p.d = &d;
	p.source = source;
	p.err = err;
	p.errlen = errlen;
	rc = parse_doc(t, &p);
	doc_release(&d);
	if (rc != 0) {
		theme_release(t);
		return -1;
	}
	if (t->name == NULL)
		t->name = name_from_source(source);
	if (t->description == NULL)
		t->description = xstrdup("");
	return 0;
}

void
theme_release(struct theme *t)
{
	free(t->name);
	free(t->description);
	memset(t, 0, sizeof *t);
}

bool
theme_colour_disabled(void)
{
	const char *s = getenv("NO_COLOR");

	return s != NULL && s[0] != '\0';
}

static const char *
theme_dir_builtin(void)
{
	const char *s = getenv("CALOPS_THEMES_DIR");

	return s != NULL && s[0] != '\0' ? s : CALOPS_THEMES_DIR;
}

/* A theme name is a plain file name, so it cannot climb out of its folder
 * or hide control characters. */
static bool
valid_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > THEME_NAME_MAX || s[0] == '.')
		return false;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') ||
		    strchr("-_.+", s[i]) != NULL))
			return false;
	return true;
}

/* The folders a name is looked for in, user first; returns how many. */
static size_t
theme_dirs(char dirs[2][PATH_MAX])
{
	char base[PATH_MAX];
	size_t n = 0;
	int len;

	if (config_dir(base, sizeof base) != NULL) {
		len = snprintf(dirs[n], PATH_MAX, "%s/themes", base);
		if (len > 0 && len < PATH_MAX)
			n++;
	}
	len = snprintf(dirs[n], PATH_MAX, "%s", theme_dir_builtin());
	if (len > 0 && len < PATH_MAX)
		n++;
	return n;
}

static int
compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add the NAME of each NAME.yaml in dir to the list. */
static void
scan_dir(const char *dir, char ***names, size_t *n, size_t *alloc)
{
	struct dirent *de;
	size_t len;
	DIR *dp;

	if ((dp = opendir(dir)) == NULL)
		return;
	while ((de = readdir(dp)) != NULL) {
		len = strlen(de->d_name);
		if (de->d_type == DT_DIR || len <= 5 ||
		    strcmp(de->d_name + len - 5, ".yaml") != 0 ||
		    !valid_name(de->d_name, len - 5))
			continue;
		if (*n + 2 > *alloc) {
			*alloc = *alloc == 0 ? 16 : *alloc * 2;
			*names = xreallocarray(*names, *alloc, sizeof **names);
		}
		(*names)[(*n)++] = xstrndup(de->d_name, len - 5);
	}
	closedir(dp);
}

char **
theme_list(size_t *n)
{
	char dirs[2][PATH_MAX], **names = NULL;
	size_t ndirs, alloc = 0, i, j;

	*n = 0;
	ndirs = theme_dirs(dirs);
	for (i = 0; i < ndirs; i++)
		scan_dir(dirs[i], &names, n, &alloc);
	if (names == NULL)
		return xcalloc(1, sizeof *names);
	qsort(names, *n, sizeof *names, compare_names);
	for (i = j = 0; i < *n; i++) {
		if (j > 0 && strcmp(names[j - 1], names[i]) == 0)
			free(names[i]);
		else
			names[j++] = names[i];
	}
	*n = j;
	names[j] = NULL;
	return names;
}

/* Read and parse one theme file; 1 when there is no such file. */
static int
load_file(struct theme *t, const char *path, char *err, size_t errlen)
{
	char *data;
	size_t len;
	int rc;

	memset(t, 0, sizeof *t);
	if ((rc = docfile_read(path, THEME_MAX_BYTES, &data, &len, err,
	    errlen)) != 0)
		return rc;
	rc = theme_parse(t, data, len, path, err, errlen);
	free(data);
	return rc;
}

/* "unknown theme 'x' (available: a, b)" into err. */
static void
unknown_theme(const char *name, char *err, size_t errlen)
{
	struct buf b = BUF_INIT;
	char **names;
	size_t n, i;

	names = theme_list(&n);
	buf_init(&b, 4096);
	for (i = 0; i < n; i++)
		buf_addf(&b, "%s%s", i == 0 ? "" : ", ", names[i]);
	if (n == 0)
		errbuf_set(err, errlen, "unknown theme '%s' (no themes in "
		    "'%s')", name, theme_dir_builtin());
	else
		errbuf_set(err, errlen, "unknown theme '%s' (available: %s)",
		    name, b.data);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	buf_release(&b);
}

/* "WHAT 'ARG'" into err, the argument made safe to show. */
static void
bad_argument(const char *arg, const char *what, char *err, size_t errlen)
{
	char *clean = text_sanitize(arg, strlen(arg), 80);

	errbuf_set(err, errlen, "%s '%s'", what, clean);
	free(clean);
}

int
theme_load(struct theme *t, const char *arg, char *err, size_t errlen)
{
	char dirs[2][PATH_MAX], path[PATH_MAX];
	size_t len = strlen(arg), ndirs, i;
	int rc, n;

	memset(t, 0, sizeof *t);
	if (strchr(arg, '/') != NULL ||
	    (len >= 5 && strcmp(arg + len - 5, ".yaml") == 0)) {
		if ((rc = load_file(t, arg, err, errlen)) == 1)
			bad_argument(arg, "no theme file", err, errlen);
		return rc == 0 ? 0 : -1;
	}
	if (!valid_name(arg, len)) {
		bad_argument(arg, "not a theme name (letters, digits, - _ . +) "
		    "or a path:", err, errlen);
		return -1;
	}
	ndirs = theme_dirs(dirs);
	for (i = 0; i < ndirs; i++) {
		n = snprintf(path, sizeof path, "%s/%s.yaml", dirs[i], arg);
		if (n < 0 || (size_t)n >= sizeof path)
			continue;
		if ((rc = load_file(t, path, err, errlen)) != 1)
			return rc;
	}
	unknown_theme(arg, err, errlen);
	return -1;
}
