/*
 * theme.h: themes, the table from semantic roles to colours and attributes.
 *
 * Views name roles (ROLE_PASS, ROLE_SELECTION, ...), never colours; a theme
 * file in themes/ says what each role looks like on an 8-colour and on a
 * 256-colour terminal.  This module is pure (no ncurses): ui.c turns a
 * struct role_style into colour pairs and A_* attributes, and draws roles
 * with their attributes only when theme_colour_disabled().  Status is
 * never told by colour alone: the views also show a glyph and a word, and
 * the monochrome theme tells the statuses apart by attribute.
 *
 * A theme file is YAML:
 *
 *	name: dark
 *	description: light text on a dark background (the default)
 *	roles:
 *	  normal:    {fg: default, bg: default}
 *	  pass:      {fg: green, fg256: 114, bold: true}
 *	  selection: {fg: black, bg: cyan, fg256: 231, bg256: 24}
 *
 * fg and bg are the 8-colour values, a name (default black red green yellow
 * blue magenta cyan white) or 0-7; fg256 and bg256 are the 256-colour values,
 * a name (the above and bright-black ... bright-white for 8-15) or 0-255,
 * and default to fg and bg.  bold, dim, reverse, underline and italic are
 * booleans.  `normal` is required; a role that is absent is a copy of
 * `normal`, and a colour a role does not give is normal's, so a light
 * background carries through; attributes are each role's own.  Anything
 * else (unknown keys or roles, wrong types, numbers out of range) is an
 * error "SOURCE:LINE:COL: message".
 */
#ifndef CALOPS_THEME_H
#define CALOPS_THEME_H

#include "calops.h"

/* The largest theme (and config) file read. */
#define THEME_MAX_BYTES	(1u << 20)

/* The theme used when neither the config file nor --theme names one. */
#define THEME_DEFAULT	"dark"

enum role {
	ROLE_NORMAL,
	ROLE_TITLE,
	ROLE_STATUSBAR,
	ROLE_HEADER,
	ROLE_SELECTION,
	ROLE_BORDER,
	ROLE_DIM,
	ROLE_KEY,
	ROLE_BANNER,
	ROLE_PASS,
	ROLE_FAIL,
	ROLE_BLOCKED,
	ROLE_STALE,
	ROLE_PENDING,
	ROLE_RUNNING,
	ROLE_ERROR,
	ROLE_WARN,
	ROLE_INFO,
	ROLE_PROGRESS,
	ROLE_MATCH,
	ROLE_COUNT
};

/* Each role's name in theme files and what it is for (docs and help). */
struct role_info {
	const char	*name;
	const char	*description;
};

extern const struct role_info theme_role_table[ROLE_COUNT];

/* The role called name in theme files, or -1. */
int	 theme_role_lookup(const char *name);

#define THEME_BOLD	0x01u
#define THEME_DIM	0x02u
#define THEME_REVERSE	0x04u
#define THEME_UNDERLINE	0x08u
#define THEME_ITALIC	0x10u

/* Colours are -1 (the terminal's default) or 0-7 (fg8, bg8), 0-255 (fg256,
 * bg256); attrs is a set of THEME_* bits. */
struct role_style {
	short		 fg8, bg8;
	short		 fg256, bg256;
	unsigned	 attrs;
};

/* A struct theme owns its strings; theme_release frees them. */
struct theme {
	char			*name;
	char			*description;
	struct role_style	 roles[ROLE_COUNT];
};

/*
 * Parse a theme from len bytes of YAML; source names it in messages (a path,
 * "themes/dark.yaml").  Returns 0, or -1 with "SOURCE:LINE:COL: message" in
 * err and *t holding nothing to release.  A theme without `name` is called
 * after source's file name.
 */
int	 theme_parse(struct theme *t, const char *yaml, size_t len,
	    const char *source, char *err, size_t errlen);

/*
 * Load a theme by name or path.  Something with a '/' or ending in ".yaml" is
 * a path, read as it is; a name is looked for as NAME.yaml in
 * $XDG_CONFIG_HOME/calops/themes (~/.config when unset), then in the built-in
 * themes directory ($CALOPS_THEMES_DIR, else the one compiled in).  Returns 0,
 * or -1 with a message in err: an unknown name lists the themes there are,
 * a broken file says where it is broken.  Files over THEME_MAX_BYTES are
 * refused.
 */
int	 theme_load(struct theme *t, const char *name_or_path, char *err,
	    size_t errlen);
void	 theme_release(struct theme *t);

/*
 * The names theme_load knows (user themes and built-in ones), sorted, with no
 * duplicates, for completion.  The array has *n names and a NULL after them;
 * the caller frees each name and the array.
 */
char	**theme_list(size_t *n);


/* True when NO_COLOR is set to something non-empty (no-color.org). */
bool	 theme_colour_disabled(void);

#endif
