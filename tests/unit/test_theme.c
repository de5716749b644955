/*
 * test_theme.c: themes and the config file (views/core/theme.c,
 * views/core/config.c).
 * The bundled themes parse and give every role, 256-colour values fall back
 * to the 8-colour ones, absent roles and colours come from normal, every
 * kind of bad file is an error that says file:line:col, themes are found in
 * the user's folder before the built-in one, and the config file is
 * checked against its table of options.
 */
#include "calops.h"

#include <ftw.h>
#include <setjmp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/doc.h"
#include "base/docfile.h"
#include "views/core/config.h"
#include "views/core/theme.h"

static const char *const bundled[] = {
	"dark", "high-contrast", "light", "monochrome",
};

/* base/ holds xdg/ (XDG_CONFIG_HOME) and builtin/ (a CALOPS_THEMES_DIR). */
struct fixture {
	char	*base;
	char	*xdg;
	char	*builtin;
	char	*home;		/* HOME as it was, or NULL */
};

static void
put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		fail_msg("cannot write '%s': %s", path, strerror(errno));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void
put_at(const char *dir, const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", dir, rel);

	put(path, text);
	free(path);
}

static void
mkdir_at(const char *dir, const char *rel)
{
	char *path = xasprintf("%s/%s", dir, rel);

	assert_int_equal(mkdir(path, 0755), 0);
	free(path);
}

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);

	f->base = xstrdup("/tmp/calops-test-theme.XXXXXX");
	assert_non_null(mkdtemp(f->base));
	f->xdg = xasprintf("%s/xdg", f->base);
	f->builtin = xasprintf("%s/builtin", f->base);
	assert_int_equal(mkdir(f->xdg, 0755), 0);
	assert_int_equal(mkdir(f->builtin, 0755), 0);
	if (getenv("HOME") != NULL)
		f->home = xstrdup(getenv("HOME"));
	setenv("XDG_CONFIG_HOME", f->xdg, 1);
	unsetenv("CALOPS_THEMES_DIR");
	unsetenv("NO_COLOR");
	*state = f;
	return 0;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	nftw(f->base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("CALOPS_THEMES_DIR");
	unsetenv("NO_COLOR");
	if (f->home != NULL)
		setenv("HOME", f->home, 1);
	else
		unsetenv("HOME");
	free(f->home);
	free(f->base);
	free(f->xdg);
	free(f->builtin);
	free(f);
	return 0;
}

static void
parse_ok(struct theme *t, const char *yaml)
{
	char err[512];

	if (theme_parse(t, yaml, strlen(yaml), "t.yaml", err, sizeof err) != 0)
		fail_msg("'%s': %s", yaml, err);
}

static void
assert_style(const struct role_style *s, int fg8, int bg8, int fg256,
    int bg256, unsigned attrs)
{
	if (s->fg8 != fg8 || s->bg8 != bg8 || s->fg256 != fg256 ||
	    s->bg256 != bg256 || s->attrs != attrs)
		fail_msg("style %d %d %d %d %#x, wanted %d %d %d %d %#x",
		    s->fg8, s->bg8, s->fg256, s->bg256, s->attrs, fg8, bg8,
		    fg256, bg256, attrs);
}

/* Role names and descriptions: one each, unique, found again by name. */
static void
test_roles(void **state)
{
	static const char *const names[ROLE_COUNT] = {
		"normal", "title", "statusbar", "header", "selection",
		"border", "dim", "key", "banner", "pass", "fail", "blocked",
		"stale", "pending", "running", "error", "warn", "info",
		"progress", "match",
	};
	int i;

	(void)state;
	for (i = 0; i < ROLE_COUNT; i++) {
		assert_string_equal(theme_role_table[i].name, names[i]);
		assert_non_null(theme_role_table[i].description);
		assert_true(strlen(theme_role_table[i].description) > 3);
		assert_int_equal(theme_role_lookup(names[i]), i);
	}
	assert_int_equal(theme_role_lookup("passs"), -1);
	assert_int_equal(theme_role_lookup(""), -1);
}

/* Every bundled theme loads by name, has its own name and a description,
 * and its file gives every role itself rather than leaning on normal. */
static void
test_bundled(void **state)
{
	struct theme t;
	struct doc d;
	json_t *roles;
	char err[512], *path, *data;
	size_t i, len;
	int r;

	(void)state;
	for (i = 0; i < nitems(bundled); i++) {
		if (theme_load(&t, bundled[i], err, sizeof err) != 0)
			fail_msg("%s: %s", bundled[i], err);
		assert_string_equal(t.name, bundled[i]);
		assert_true(strlen(t.description) > 0);
		theme_release(&t);
		assert_null(t.name);

		path = xasprintf("%s/%s.yaml", CALOPS_THEMES_DIR, bundled[i]);
		assert_int_equal(docfile_read(path, THEME_MAX_BYTES, &data,
		    &len, err, sizeof err), 0);
		assert_int_equal(docfile_parse_yaml(&d, data, len, path, err,
		    sizeof err), 0);
		assert_int_equal(strncmp(data, "# ", 2), 0);	/* a header */
		roles = json_object_get(d.root, "roles");
		assert_int_equal(json_object_size(roles), ROLE_COUNT);
		for (r = 0; r < ROLE_COUNT; r++)
			if (json_object_get(roles, theme_role_table[r].name) ==
			    NULL)
				fail_msg("%s lacks role '%s'", path,
				    theme_role_table[r].name);
		doc_release(&d);
		free(data);
		free(path);
	}
}

/* The default theme's statuses look different from each other in both
 * modes, and the monochrome theme tells them apart by attribute alone. */
static void
test_bundled_statuses(void **state)
{
	static const enum role statuses[] = {
		ROLE_PASS, ROLE_FAIL, ROLE_BLOCKED, ROLE_STALE, ROLE_PENDING,
		ROLE_RUNNING,
	};
	const struct role_style *a, *b;
	struct theme t;
	char err[512];
	size_t i, j;
	int r;

	(void)state;
	assert_int_equal(theme_load(&t, THEME_DEFAULT, err, sizeof err), 0);
	for (i = 0; i < nitems(statuses); i++)
		for (j = i + 1; j < nitems(statuses); j++) {
			a = &t.roles[statuses[i]];
			b = &t.roles[statuses[j]];
			assert_true(a->fg8 != b->fg8 || a->attrs != b->attrs);
			assert_true(a->fg256 != b->fg256);
		}
	theme_release(&t);

	assert_int_equal(theme_load(&t, "monochrome", err, sizeof err), 0);
	for (r = 0; r < ROLE_COUNT; r++)
		assert_style(&t.roles[r], -1, -1, -1, -1, t.roles[r].attrs);
	for (i = 0; i < nitems(statuses); i++)
		for (j = i + 1; j < nitems(statuses); j++)
			assert_int_not_equal(t.roles[statuses[i]].attrs,
			    t.roles[statuses[j]].attrs);
	theme_release(&t);
}

/* fg256/bg256 default to fg/bg; names and numbers both work. */
static void
test_fallback(void **state)
{
	struct theme t;

	(void)state;
	parse_ok(&t, "roles:\n"
	    "  normal: {fg: white, bg: black}\n"
	    "  pass: {fg: green}\n"
	    "  fail: {fg: 1, fg256: 196, bg: red, bg256: bright-red}\n"
	    "  stale: {fg256: 179}\n"
	    "  match: {fg: default, bg: 3, fg256: 0, bg256: 255}\n"
	    "  info: {fg256: bright-cyan, bg256: default}\n");
	assert_style(&t.roles[ROLE_NORMAL], 7, 0, 7, 0, 0);
	assert_style(&t.roles[ROLE_PASS], 2, 0, 2, 0, 0);
	assert_style(&t.roles[ROLE_FAIL], 1, 1, 196, 9, 0);
	assert_style(&t.roles[ROLE_STALE], 7, 0, 179, 0, 0);
	assert_style(&t.roles[ROLE_MATCH], -1, 3, 0, 255, 0);
	assert_style(&t.roles[ROLE_INFO], 7, 0, 14, -1, 0);
	theme_release(&t);

	/* normal's own 256-colour values carry to roles that give none. */
	parse_ok(&t, "roles:\n"
	    "  normal: {fg: black, bg: white, fg256: 236, bg256: 255}\n"
	    "  pass: {fg: green}\n"
	    "  warn: {bold: true}\n");
	assert_style(&t.roles[ROLE_NORMAL], 0, 7, 236, 255, 0);
	assert_style(&t.roles[ROLE_PASS], 2, 7, 2, 255, 0);
	assert_style(&t.roles[ROLE_WARN], 0, 7, 236, 255, THEME_BOLD);
	theme_release(&t);
}

/* Absent roles copy normal; attributes are each role's own; name and
 * description are optional. */
static void
test_inherit(void **state)
{
	struct theme t;
	int r;

	(void)state;
	parse_ok(&t, "roles:\n"
	    "  normal: {fg: cyan, bg: blue, fg256: 45, bold: true}\n"
	    "  fail: {fg: red, reverse: true, underline: true}\n"
	    "  pass: {bold: false, dim: true, italic: true}\n");
	assert_string_equal(t.name, "t");
	assert_string_equal(t.description, "");
	for (r = 0; r < ROLE_COUNT; r++) {
		if (r == ROLE_FAIL || r == ROLE_PASS)
			continue;
		assert_style(&t.roles[r], 6, 4, 45, 4, THEME_BOLD);
	}
	assert_style(&t.roles[ROLE_FAIL], 1, 4, 1, 4,
	    THEME_REVERSE | THEME_UNDERLINE);
	assert_style(&t.roles[ROLE_PASS], 6, 4, 45, 4,
	    THEME_DIM | THEME_ITALIC);
	theme_release(&t);

	parse_ok(&t, "name: mine\ndescription: my own\nroles:\n  normal: {}\n");
	assert_string_equal(t.name, "mine");
	assert_string_equal(t.description, "my own");
	for (r = 0; r < ROLE_COUNT; r++)
		assert_style(&t.roles[r], -1, -1, -1, -1, 0);
	theme_release(&t);

	/* A source path gives the name without its folder and suffix. */
	assert_int_equal(theme_parse(&t, "roles: {normal: {}}", 19,
	    "/x/y/solar.yaml", NULL, 0), 0);
	assert_string_equal(t.name, "solar");
	theme_release(&t);
}

/* A bad theme fails with "x.yaml:WHERE: " and a message containing what. */
static void
check_bad(const char *yaml, const char *where, const char *what)
{
	struct theme t;
	char err[512] = "", *prefix;

	if (theme_parse(&t, yaml, strlen(yaml), "themes/x.yaml", err,
	    sizeof err) == 0)
		fail_msg("'%s' parsed", yaml);
	assert_null(t.name);
	assert_null(t.description);
	prefix = xasprintf("themes/x.yaml:%s: ", where);
	if (strncmp(err, prefix, strlen(prefix)) != 0)
		fail_msg("'%s': '%s' does not start with '%s'", yaml, err,
		    prefix);
	if (strstr(err, what) == NULL)
		fail_msg("'%s': '%s' lacks '%s'", yaml, err, what);
	free(prefix);
	theme_release(&t);
}

static void
test_bad(void **state)
{
	(void)state;
	check_bad("roles:\n  normal: {}\n  passs: {fg: red}\n", "3:10",
	    "unknown role 'passs'");
	check_bad("roles:\n  normal: {}\n  pass: {fg: red, blink: true}\n",
	    "3:26", "unknown key 'blink' in role 'pass'");
	check_bad("name: x\ncolours: {}\nroles:\n  normal: {}\n", "2:10",
	    "unknown key 'colours'");
	check_bad("roles:\n  normal: {fg: purple}\n", "2:16",
	    "unknown colour 'purple'");
	check_bad("roles:\n  normal: {fg: 300}\n", "2:16",
	    "must be a colour name or 0-7, not 300");
	check_bad("roles:\n  normal: {fg256: 300}\n", "2:19",
	    "must be a colour name or 0-255, not 300");
	check_bad("roles:\n  normal: {bg: -2}\n", "2:16",
	    "'bg' in role 'normal' must be a colour name or 0-7, not -2");
	check_bad("roles:\n  normal: {bg256: -2}\n", "2:19", "not -2");
	check_bad("roles:\n  normal: {fg: 8}\n", "2:16", "0-7, not 8");
	check_bad("roles:\n  normal: {fg: bright-red}\n", "2:16",
	    "'bright-red' needs 256 colours, give it as fg256");
	check_bad("roles:\n  normal: {fg: 1.5}\n", "2:16",
	    "not a decimal number");
	check_bad("roles:\n  normal: {fg: [1]}\n", "2:16", "not a list");
	check_bad("roles:\n  normal: {bold: yes}\n", "2:18",
	    "'bold' in role 'normal' must be true or false, not a string");
	check_bad("roles:\n  normal: {bold: 1}\n", "2:18", "not an integer");
	check_bad("roles:\n  normal: {}\n  fail: bold\n", "3:9",
	    "role 'fail' must be a mapping");
	check_bad("roles:\n  pass: {fg: green}\n", "2:3",
	    "role 'normal' is missing");
	check_bad("name: x\n", "1:1", "no 'roles'");
	check_bad("roles: [normal]\n", "1:8", "'roles' must be a mapping");
	check_bad("just a string\n", "1:1", "a theme must be a mapping");
	check_bad("- normal\n- pass\n", "1:1", "not a list");
	check_bad("", "1:1", "not empty");
	check_bad("name: 7\nroles: {normal: {}}\n", "1:7",
	    "'name' must be a string");
	check_bad("name: ''\nroles: {normal: {}}\n", "1:7", "1 to 64 bytes");
	check_bad("description: [a]\nroles: {normal: {}}\n", "1:14",
	    "'description' must be a string, not a list");
	/* Invalid YAML, and what doc.c refuses, keep their positions. */
	check_bad("roles:\n  normal: {fg: red\n", "3:1", "flow mapping");
	check_bad("roles:\n  normal: {}\n  normal: {}\n", "3:3",
	    "duplicate key 'normal'");
	check_bad("roles: {normal: *nothing}\n", "1:17", "names no");
	/* Control characters in a key are shown, not sent to the terminal. */
	check_bad("roles:\n  normal: {}\n  \"p\\e[2Jass\": {}\n", "3:16",
	    "unknown role 'p^[[2Jass'");
}

/* Themes by name: the user's folder first, then CALOPS_THEMES_DIR. */
static void
test_load_by_name(void **state)
{
	struct fixture *f = *state;
	struct theme t;
	char err[512], *path;

	mkdir_at(f->xdg, "calops");
	mkdir_at(f->xdg, "calops/themes");
	put_at(f->xdg, "calops/themes/mine.yaml",
	    "roles:\n  normal: {fg: red}\n");
	assert_int_equal(theme_load(&t, "mine", err, sizeof err), 0);
	assert_string_equal(t.name, "mine");
	assert_int_equal(t.roles[ROLE_PASS].fg8, 1);
	theme_release(&t);

	/* A user theme called dark hides the built-in one. */
	put_at(f->xdg, "calops/themes/dark.yaml",
	    "name: my-dark\nroles:\n  normal: {fg: blue}\n");
	assert_int_equal(theme_load(&t, "dark", err, sizeof err), 0);
	assert_string_equal(t.name, "my-dark");
	theme_release(&t);

	/* A broken user theme is an error, not a quiet fallback. */
	put_at(f->xdg, "calops/themes/light.yaml",
	    "roles:\n  normal: {fg: blu}\n");
	assert_int_equal(theme_load(&t, "light", err, sizeof err), -1);
	path = xasprintf("%s/calops/themes/light.yaml:2:16: ", f->xdg);
	assert_int_equal(strncmp(err, path, strlen(path)), 0);
	assert_non_null(strstr(err, "unknown colour 'blu'"));
	free(path);

	/* The built-in folder is the environment's when it names one. */
	setenv("CALOPS_THEMES_DIR", f->builtin, 1);
	put_at(f->builtin, "solo.yaml", "roles:\n  normal: {bg: green}\n");
	assert_int_equal(theme_load(&t, "solo", err, sizeof err), 0);
	assert_int_equal(t.roles[ROLE_TITLE].bg256, 2);
	theme_release(&t);
	assert_int_equal(theme_load(&t, "monochrome", err, sizeof err), -1);
	assert_string_equal(err, "unknown theme 'monochrome' (available: "
	    "dark, light, mine, solo)");
	assert_null(t.name);
}

/* An unknown name lists what there is; names are plain file names. */
static void
test_unknown(void **state)
{
	struct fixture *f = *state;
	struct theme t;
	char err[512];

	assert_int_equal(theme_load(&t, "nope", err, sizeof err), -1);
	assert_string_equal(err, "unknown theme 'nope' (available: dark, "
	    "high-contrast, light, monochrome)");
	assert_int_equal(theme_load(&t, ".hidden", err, sizeof err), -1);
	assert_non_null(strstr(err, "not a theme name"));
	assert_int_equal(theme_load(&t, "a b\x1b", err, sizeof err), -1);
	assert_non_null(strstr(err, "'a b^['"));
	assert_int_equal(theme_load(&t, "", err, sizeof err), -1);
	assert_non_null(strstr(err, "not a theme name"));

	setenv("CALOPS_THEMES_DIR", f->builtin, 1);
	assert_int_equal(theme_load(&t, "dark", err, sizeof err), -1);
	assert_non_null(strstr(err, "(no themes in '"));
}

/* Paths are read as they are; the size cap holds. */
static void
test_load_by_path(void **state)
{
	struct fixture *f = *state;
	struct theme t;
	char err[512], *path, *big;

	path = xasprintf("%s/dark.yaml", CALOPS_THEMES_DIR);
	assert_int_equal(theme_load(&t, path, err, sizeof err), 0);
	assert_string_equal(t.name, "dark");
	theme_release(&t);
	free(path);

	path = xasprintf("%s/none.yaml", f->base);
	assert_int_equal(theme_load(&t, path, err, sizeof err), -1);
	assert_non_null(strstr(err, "no theme file '"));
	free(path);

	assert_int_equal(theme_load(&t, f->base, err, sizeof err), -1);
	assert_non_null(strstr(err, "is not a regular file"));

	path = xasprintf("%s/big.yaml", f->base);
	big = xmalloc(THEME_MAX_BYTES + 2);
	memcpy(big, "roles: {normal: {}}\n#", 21);
	memset(big + 21, 'x', THEME_MAX_BYTES + 1 - 21);
	big[THEME_MAX_BYTES + 1] = '\0';
	put(path, big);
	assert_int_equal(theme_load(&t, path, err, sizeof err), -1);
	assert_non_null(strstr(err, "is larger than 1024 KiB"));
	assert_int_equal(theme_parse(&t, big, THEME_MAX_BYTES + 1, "big",
	    err, sizeof err), -1);
	/* Exactly at the cap is fine. */
	big[THEME_MAX_BYTES] = '\0';
	put(path, big);
	assert_int_equal(theme_load(&t, path, err, sizeof err), 0);
	theme_release(&t);
	free(big);
	free(path);
}

/* theme_list: sorted, no duplicates, NULL after the last. */
static void
test_list(void **state)
{
	struct fixture *f = *state;
	char **names;
	size_t n, i;

	mkdir_at(f->xdg, "calops");
	mkdir_at(f->xdg, "calops/themes");
	put_at(f->xdg, "calops/themes/dark.yaml", "");
	put_at(f->xdg, "calops/themes/zebra.yaml", "");
	put_at(f->xdg, "calops/themes/.hidden.yaml", "");
	put_at(f->xdg, "calops/themes/notes.txt", "");
	put_at(f->xdg, "calops/themes/bad\x1bname.yaml", "");
	mkdir_at(f->xdg, "calops/themes/dir.yaml");
	names = theme_list(&n);
	assert_int_equal(n, 5);
	assert_string_equal(names[0], "dark");
	assert_string_equal(names[1], "high-contrast");
	assert_string_equal(names[2], "light");
	assert_string_equal(names[3], "monochrome");
	assert_string_equal(names[4], "zebra");
	assert_null(names[5]);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);

	setenv("CALOPS_THEMES_DIR", "/nonexistent/calops", 1);
	setenv("XDG_CONFIG_HOME", "/nonexistent/calops", 1);
	names = theme_list(&n);
	assert_int_equal(n, 0);
	assert_null(names[0]);
	free(names);
}

/* NO_COLOR: set to anything non-empty turns colour off (no-color.org). */
static void
test_no_color(void **state)
{
	(void)state;
	unsetenv("NO_COLOR");
	assert_false(theme_colour_disabled());
	setenv("NO_COLOR", "", 1);
	assert_false(theme_colour_disabled());
	setenv("NO_COLOR", "1", 1);
	assert_true(theme_colour_disabled());
	setenv("NO_COLOR", "0", 1);
	assert_true(theme_colour_disabled());
	unsetenv("NO_COLOR");
}

static void
assert_defaults(const struct config *c)
{
	assert_string_equal(c->theme, "dark");
	assert_null(c->lab);
	assert_true(c->mouse);
	assert_false(c->ascii);
	assert_int_equal(c->refresh_debounce_ms, 250);
	assert_int_equal(c->history, 100);
}

/* No file: the defaults, and no error; where the file would be. */
static void
test_config_defaults(void **state)
{
	struct fixture *f = *state;
	struct config c;
	char err[512] = "", buf[PATH_MAX], *want;

	assert_int_equal(config_load(&c, NULL, err, sizeof err), 0);
	assert_defaults(&c);
	assert_null(c.path);
	assert_string_equal(err, "");
	config_release(&c);

	want = xasprintf("%s/calops/config.yaml", f->xdg);
	assert_string_equal(config_path_default(buf, sizeof buf), want);
	free(want);
	assert_null(config_path_default(buf, 8));
	/* A relative XDG_CONFIG_HOME is ignored, as the spec says. */
	setenv("XDG_CONFIG_HOME", "relative", 1);
	setenv("HOME", "/home/someone", 1);
	assert_string_equal(config_path_default(buf, sizeof buf),
	    "/home/someone/.config/calops/config.yaml");

	want = xasprintf("%s/missing.yaml", f->base);
	assert_int_equal(config_load(&c, want, err, sizeof err), 0);
	assert_defaults(&c);
	assert_null(c.path);
	config_release(&c);
	free(want);

	/* An empty file is all defaults too. */
	want = xasprintf("%s/empty.yaml", f->base);
	put(want, "# nothing set yet\n");
	assert_int_equal(config_load(&c, want, err, sizeof err), 0);
	assert_defaults(&c);
	assert_string_equal(c.path, want);
	config_release(&c);
	assert_null(c.path);
	assert_null(c.theme);
	free(want);
}

/* Every option set, from the default place. */
static void
test_config_valid(void **state)
{
	struct fixture *f = *state;
	struct config c;
	char err[512], *path;

	mkdir_at(f->xdg, "calops");
	put_at(f->xdg, "calops/config.yaml",
	    "# mine\n"
	    "theme: high-contrast\n"
	    "lab: ~/labs/npu.yaml\n"
	    "mouse: false\n"
	    "ascii: true\n"
	    "refresh_debounce_ms: 50\n"
	    "history: 0\n");
	setenv("HOME", "/home/op", 1);
	if (config_load(&c, NULL, err, sizeof err) != 0)
		fail_msg("%s", err);
	assert_string_equal(c.theme, "high-contrast");
	assert_string_equal(c.lab, "/home/op/labs/npu.yaml");
	assert_false(c.mouse);
	assert_true(c.ascii);
	assert_int_equal(c.refresh_debounce_ms, 50);
	assert_int_equal(c.history, 0);
	path = xasprintf("%s/calops/config.yaml", f->xdg);
	assert_string_equal(c.path, path);
	config_release(&c);

	put(path, "lab: null\nrefresh_debounce_ms: 10000\nhistory: 1000\n"
	    "theme: ./my theme.yaml\n");
	assert_int_equal(config_load(&c, path, err, sizeof err), 0);
	assert_null(c.lab);
	assert_int_equal(c.refresh_debounce_ms, 10000);
	assert_int_equal(c.history, 1000);
	assert_string_equal(c.theme, "./my theme.yaml");
	config_release(&c);
	free(path);
}

/* A bad config fails with "PATH:WHERE: what" and leaves the defaults. */
static void
check_config_bad(const char *dir, const char *text, const char *where,
    const char *what)
{
	struct config c;
	char err[512] = "", *path, *prefix;

	path = xasprintf("%s/bad.yaml", dir);
	put(path, text);
	if (config_load(&c, path, err, sizeof err) == 0)
		fail_msg("'%s' loaded", text);
	assert_defaults(&c);
	assert_null(c.path);
	prefix = xasprintf("%s:%s: ", path, where);
	if (strncmp(err, prefix, strlen(prefix)) != 0)
		fail_msg("'%s': '%s' does not start with '%s'", text, err,
		    prefix);
	if (strstr(err, what) == NULL)
		fail_msg("'%s': '%s' lacks '%s'", text, err, what);
	config_release(&c);
	free(prefix);
	free(path);
}

static void
test_config_bad(void **state)
{
	struct fixture *f = *state;
	const char *b = f->base;

	check_config_bad(b, "theme: light\nmouse: true\ncolour: never\n",
	    "3:9", "unknown option 'colour'");
	/* A letter or two off: the option meant (issue 30 (11)). */
	check_config_bad(b, "relese_key: ~/k.pem\n", "1:13",
	    "unknown option 'relese_key' (did you mean 'release_key'?)");
	check_config_bad(b, "theme: 5\n", "1:8",
	    "'theme' must be a string, not an integer");
	check_config_bad(b, "theme: ''\n", "1:8", "'theme' must not be empty");
	check_config_bad(b, "lab: [a, b]\n", "1:6",
	    "'lab' must be a string, not a list");
	check_config_bad(b, "mouse: yes\n", "1:8",
	    "'mouse' must be true or false, not a string");
	check_config_bad(b, "ascii: 1\n", "1:8", "not an integer");
	check_config_bad(b, "history: '10'\n", "1:10",
	    "'history' must be an integer, not a string");
	check_config_bad(b, "refresh_debounce_ms: 1.5\n", "1:22",
	    "not a decimal number");
	check_config_bad(b, "history:\n", "1:9", "not empty");
	check_config_bad(b, "refresh_debounce_ms: 49\n", "1:22",
	    "'refresh_debounce_ms' must be from 50 to 10000, not 49");
	check_config_bad(b, "refresh_debounce_ms: 10001\n", "1:22",
	    "not 10001");
	check_config_bad(b, "history: -1\n", "1:10",
	    "'history' must be from 0 to 1000, not -1");
	check_config_bad(b, "history: 1001\n", "1:10", "not 1001");
	check_config_bad(b, "history: 99999999999999999999\n", "1:10",
	    "out of range");
	check_config_bad(b, "- theme\n", "1:1",
	    "must be a mapping of options, not a list");
	check_config_bad(b, "theme: [\n", "2:1", "flow node");
	check_config_bad(b, "a: 1\na: 2\n", "2:1", "duplicate key 'a'");
}

/* What cannot be read is an error, not the defaults. */
static void
test_config_unreadable(void **state)
{
	struct fixture *f = *state;
	struct config c;
	char err[512];

	assert_int_equal(config_load(&c, f->base, err, sizeof err), -1);
	assert_non_null(strstr(err, "is not a regular file"));
	assert_defaults(&c);
	config_release(&c);
}

/* The description for --help and the man page names every option. */
static void
test_config_describe(void **state)
{
	char *text = NULL;
	size_t len = 0, i;
	FILE *f;

	(void)state;
	assert_non_null(f = open_memstream(&text, &len));
	config_describe(f);
	assert_int_equal(fclose(f), 0);
	for (i = 0; i < config_noptions; i++) {
		char *head = xasprintf("%s: ", config_options[i].name);

		assert_non_null(strstr(text, head));
		assert_non_null(strstr(text, config_options[i].help));
		free(head);
	}
	assert_non_null(strstr(text, "refresh_debounce_ms: integer 50 to "
	    "10000 (default: 250)"));
	assert_non_null(strstr(text, "lab: path (default: none)"));
	assert_non_null(strstr(text, "mouse: true or false (default: true)"));
	free(text);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_roles),
		T(test_bundled),
		T(test_bundled_statuses),
		T(test_fallback),
		T(test_inherit),
		T(test_bad),
		T(test_load_by_name),
		T(test_unknown),
		T(test_load_by_path),
		T(test_list),
		T(test_no_color),
		T(test_config_defaults),
		T(test_config_valid),
		T(test_config_bad),
		T(test_config_unreadable),
		T(test_config_describe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
