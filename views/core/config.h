/*
 * config.h: the console's config file, $XDG_CONFIG_HOME/calops/config.yaml
 * (~/.config when XDG_CONFIG_HOME is unset), and where the user's calops
 * files live.
 *
 * The file is one YAML mapping of options:
 *
 *	theme: light
 *	lab: ~/lab.yaml
 *	mouse: false
 *
 * config_options is the table of them, with types, defaults, ranges and help;
 * the loader validates against it (unknown keys, wrong types and numbers out
 * of range are errors "PATH:LINE:COL: message") and config_describe prints
 * it for --help and the man page.  Command-line options override the file,
 * which overrides the defaults.  This module is pure (no ncurses).
 */
#ifndef CALOPS_CONFIG_H
#define CALOPS_CONFIG_H

#include "calops.h"

#include "base/doc.h"

/* The largest config file read. */
#define CONFIG_MAX_BYTES (1u << 20)

/* A struct config owns its strings; config_release frees them. */
struct config {
	char	*theme;			/* a theme name or path */
	char	*lab;			/* the lab file, NULL: none */
	bool	 mouse;
	bool	 ascii;			/* ASCII box drawing even in UTF-8 */
	int	 refresh_debounce_ms;
	int	 history;		/* evaluations kept per workspace */
	char	*release_key;		/* the approver's key, NULL: none */
	char	*release_actor;		/* who approves, NULL: user@host */
	bool	 alert_bell;		/* beep when a soak alert opens */
	char	*path;			/* the file read, NULL: none was */
};

enum config_type {
	CONFIG_STRING,
	CONFIG_PATH,			/* a string; "~/" is $HOME, null none */
	CONFIG_BOOL,
	CONFIG_INT,
};

/* One option: its field in struct config, default (def_str for strings and
 * paths, def_int for booleans and integers), range for integers. */
struct config_option {
	const char		*name;
	enum config_type	 type;
	size_t			 offset;
	const char		*def_str;
	int			 def_int;
	int			 min, max;
	const char		*help;
};

extern const struct config_option config_options[];
extern const size_t config_noptions;

/*
 * Load the config file at path, or at config_path_default() when path is
 * NULL.  A file that does not exist is not an error: *c has the defaults and
 * c->path is NULL.  Returns 0, or -1 with a message in err; *c then holds
 * the defaults, so the caller may go on with them.  Either way the caller
 * calls config_release.
 */
int	 config_load(struct config *c, const char *path, char *err,
	    size_t errlen);
void	 config_release(struct config *c);

/* Print each option, its type, default and help, for --help and the man
 * page. */
void	 config_describe(FILE *f);

/*
 * $XDG_CONFIG_HOME/calops (~/.config/calops) and the config file in it,
 * written to buf.  Return buf, or NULL when neither XDG_CONFIG_HOME (which
 * must be absolute) nor HOME is set or the path does not fit.
 */
const char *config_dir(char *buf, size_t len);
const char *config_path_default(char *buf, size_t len);
/* A path option's value, or a path typed: "~" and "~/..." are under $HOME
 * (not "~user"); a new string, or NULL when HOME is not set. */
char	*config_expand_path(const char *s);

#endif
