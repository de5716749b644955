/* lab.c: the lab file (see lab.h). */
#include "calops.h"

#include <libgen.h>

#include "alert/alertrule.h"
#include "base/doc.h"
#include "base/docfile.h"
#include "remote/lab.h"
#include "vocab/gateid.h"

/* What a parse needs at hand: the document for positions, the file's
 * name for messages and its folder for relative paths. */
struct labparse {
	const struct doc	*d;
	const char		*source;
	char			*dir;
	char			*err;
	size_t			 errlen;
};

#define LERR(p, ptr, ...) \
	docfile_error((p)->err, (p)->errlen, (p)->source, (p)->d, (ptr), \
	    __VA_ARGS__)

static const char *const top_keys[] = { "hosts", "workspaces", "runner",
    "gates", "alerts" };
static const char *const alerts_keys[] = { "hook", "rules", "timeout",
    "backoff", "tries" };
static const char *const host_keys[] = { "name", "transport", "address",
    "user", "port", "identity", "known_hosts", "calops", "keepalive_s",
    "accept_new", "compression", "protected", "chips" };
static const char *const ws_keys[] = { "host", "path" };

/* Unknown keys are errors, so a typo is not silently ignored. */
static int
check_keys(struct labparse *p, json_t *obj, const char *ptr,
    const char *const *keys, size_t nkeys)
{
	return docfile_check_keys(p->err, p->errlen, p->source, p->d, obj,
	    ptr, keys, nkeys);
}

/* A required or optional non-empty string member into *out (NULL when
 * absent and optional). */
static int
get_string(struct labparse *p, json_t *obj, const char *ptr, const char *key,
    bool required, char **out)
{
	json_t *v = json_object_get(obj, key);
	char *kp;
	int rc = 0;

	*out = NULL;
	if (v == NULL) {
		if (required) {
			LERR(p, ptr, "'%s' is required", key);
			return -1;
		}
		return 0;
	}
	kp = doc_ptr_key(ptr, key);
	if (!json_is_string(v)) {
		LERR(p, kp, "'%s' must be a string, not %s", key,
		    docfile_kind_name(v));
		rc = -1;
	} else if (json_string_length(v) == 0 ||
	    strlen(json_string_value(v)) != json_string_length(v)) {
		LERR(p, kp, "'%s' must be a non-empty string", key);
		rc = -1;
	} else
		*out = xstrdup(json_string_value(v));
	free(kp);
	return rc;
}

/* A path on this machine: "~/" is $HOME, a relative one starts at the lab
 * file's folder.  NULL when HOME is needed and unset. */
static char *
local_path(const struct labparse *p, const char *s)
{
	const char *home = getenv("HOME");

	if (s[0] == '~' && (s[1] == '\0' || s[1] == '/')) {
		if (home == NULL || home[0] == '\0')
			return NULL;
		return xasprintf("%s%s", home, s + 1);
	}
	if (s[0] == '/')
		return xstrdup(s);
	return xasprintf("%s/%s", p->dir, s);
}

static int
make_local(struct labparse *p, const char *ptr, const char *key, char **path)
{
	char *abs, *kp;

	if (*path == NULL)
		return 0;
	if ((abs = local_path(p, *path)) == NULL) {
		kp = doc_ptr_key(ptr, key);
		LERR(p, kp, "'%s': cannot expand '~' when HOME is not set",
		    key);
		free(kp);
		return -1;
	}
	free(*path);
	*path = abs;
	return 0;
}

static int
parse_chips(struct labparse *p, struct lab_host *h, json_t *v,
    const char *ptr)
{
	json_t *c;
	char *ip;
	size_t i;

	if (!json_is_array(v)) {
		LERR(p, ptr, "'chips' must be a list of chip numbers, not %s",
		    docfile_kind_name(v));
		return -1;
	}
	h->chips = xcalloc(json_array_size(v) + 1, sizeof *h->chips);
	json_array_foreach(v, i, c) {
		if (!json_is_integer(c) || json_integer_value(c) < 0 ||
		    json_integer_value(c) > LAB_CHIP_MAX) {
			ip = doc_ptr_index(ptr, i);
			LERR(p, ip, "'chips': a chip must be an integer from 0 "
			    "to %d", LAB_CHIP_MAX);
			free(ip);
			return -1;
		}
		h->chips[h->nchips++] = (int)json_integer_value(c);
	}
	return 0;
}

static int
parse_transport(struct labparse *p, struct lab_host *h, json_t *obj,
    const char *ptr)
{
	char *s, *kp;
	int rc = 0;

	if (get_string(p, obj, ptr, "transport", true, &s) != 0)
		return -1;
	if (strcmp(s, "local") == 0)
		h->transport = LAB_LOCAL;
	else if (strcmp(s, "ssh") == 0)
		h->transport = LAB_SSH;
	else {
		kp = doc_ptr_key(ptr, "transport");
		LERR(p, kp, "'transport' must be local or ssh, not '%s'", s);
		free(kp);
		rc = -1;
	}
	free(s);
	return rc;
}

/* An optional integer member from min to max into *out (left as it is
 * when absent); the message says what was there instead. */
static int
get_int(struct labparse *p, json_t *obj, const char *ptr, const char *key,
    int min, int max, int *out)
{
	json_t *v = json_object_get(obj, key);
	char *kp;

	if (v == NULL)
		return 0;
	if (json_is_integer(v) && json_integer_value(v) >= min &&
	    json_integer_value(v) <= max) {
		*out = (int)json_integer_value(v);
		return 0;
	}
	kp = doc_ptr_key(ptr, key);
	if (json_is_integer(v))
		LERR(p, kp, "'%s' must be an integer from %d to %d, not %"
		    JSON_INTEGER_FORMAT, key, min, max, json_integer_value(v));
	else
		LERR(p, kp, "'%s' must be an integer from %d to %d, not %s",
		    key, min, max, docfile_kind_name(v));
	free(kp);
	return -1;
}

/* An optional boolean member into *out (false when absent).  YAML 1.2
 * reads yes and on as strings, so they are refused, not taken as true. */
static int
get_bool(struct labparse *p, json_t *obj, const char *ptr, const char *key,
    bool *out)
{
	json_t *v = json_object_get(obj, key);
	char *kp;

	*out = false;
	if (v == NULL)
		return 0;
	if (json_is_boolean(v)) {
		*out = json_is_true(v);
		return 0;
	}
	kp = doc_ptr_key(ptr, key);
	LERR(p, kp, "'%s' must be true or false, not %s", key,
	    docfile_kind_name(v));
	free(kp);
	return -1;
}

/* The keys of v2 that say how to drive a host (protocol.md §4). */
static int
parse_host_v2(struct labparse *p, struct lab_host *h, json_t *obj,
    const char *ptr)
{
	if (get_string(p, obj, ptr, "calops", false, &h->calops) != 0 ||
	    get_int(p, obj, ptr, "keepalive_s", 1, LAB_KEEPALIVE_MAX,
	    &h->keepalive_s) != 0 ||
	    get_bool(p, obj, ptr, "accept_new", &h->accept_new) != 0 ||
	    get_bool(p, obj, ptr, "compression", &h->compression) != 0 ||
	    get_bool(p, obj, ptr, "protected", &h->protected) != 0)
		return -1;
	/* Not given: ~/.ssh/config's Compression decides (sshhost.h). */
	h->compression_set = json_object_get(obj, "compression") != NULL;
	if (h->calops == NULL)
		h->calops = xstrdup(LAB_DEFAULT_CALOPS);
	return 0;
}

/* OpenSSH's valid_hostname(): no leading '-', no blank, control
 * character or shell metacharacter (bytes, as in the C locale). */
static bool
ssh_hostname_ok(const char *s)
{
	const unsigned char *c;

	if (s[0] == '-')
		return false;
	for (c = (const unsigned char *)s; *c != '\0'; c++)
		if (strchr("'`\"$\\;&<>|(){}", *c) != NULL || *c == ' ' ||
		    *c < 0x20 || *c == 0x7f)
			return false;
	return true;
}

/* OpenSSH's valid_ruser(): no leading '-', no '-' after a blank, no
 * shell metacharacter, no backslash at the end. */
static bool
ssh_user_ok(const char *s)
{
	size_t i;

	if (s[0] == '-')
		return false;
	for (i = 0; s[i] != '\0'; i++)
		if (strchr("'`\";&<>|(){}", s[i]) != NULL ||
		    (strchr(" \t\n\v\f\r", s[i]) != NULL && s[i + 1] == '-') ||
		    (s[i] == '\\' && s[i + 1] == '\0'))
			return false;
	return true;
}

/*
 * The address and user are what ssh takes on its command line, and what
 * it refuses there is refused here: shell metacharacters that a %h or %r
 * of the user's ~/.ssh/config could paste into a command, or a value that
 * reads as an option.
 */
static int
check_ssh_names(struct labparse *p, const struct lab_host *h, const char *ptr)
{
	char *kp;

	if (h->address != NULL && !ssh_hostname_ok(h->address)) {
		kp = doc_ptr_key(ptr, "address");
		LERR(p, kp, "'address' cannot start with '-' or hold blanks, "
		    "control characters or any of '`\"$\\;&<>|(){} (ssh "
		    "refuses them)");
	} else if (h->user != NULL && !ssh_user_ok(h->user)) {
		kp = doc_ptr_key(ptr, "user");
		LERR(p, kp, "'user' cannot start with '-', hold any of "
		    "'`\";&<>|(){}, a '-' after a blank or end in '\\' (ssh "
		    "refuses them)");
	} else
		return 0;
	free(kp);
	return -1;
}

/* One entry of hosts:, checked against those before it. */
/*
 * A host's name names folders of the console's state (streams/<host>/) and
 * shows on every screen: letters, digits, '.', '_' and '-', not starting
 * with a dot, so that it can never climb out of its folder.
 */
static int
check_host_name(struct labparse *p, const char *ptr, const char *name)
{
	char *kp;
	size_t n = strlen(name);

	if (n > 0 && n <= LAB_HOST_NAME_MAX && name[0] != '.' &&
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") == n)
		return 0;
	kp = doc_ptr_key(ptr, "name");
	LERR(p, kp, "'name' must be 1 to %d letters, digits, '.', '_' or "
	    "'-', not starting with '.'", LAB_HOST_NAME_MAX);
	free(kp);
	return -1;
}

static int
parse_host(struct labparse *p, struct lab *lab, json_t *obj, const char *ptr)
{
	struct lab_host *h = &lab->hosts[lab->nhosts];
	json_t *chips;
	char *kp;
	size_t i;
	int rc;

	if (!json_is_object(obj)) {
		LERR(p, ptr, "a host must be a mapping, not %s",
		    docfile_kind_name(obj));
		return -1;
	}
	lab->nhosts++;
	if (check_keys(p, obj, ptr, host_keys, nitems(host_keys)) != 0 ||
	    get_string(p, obj, ptr, "name", true, &h->name) != 0 ||
	    parse_transport(p, h, obj, ptr) != 0 ||
	    get_string(p, obj, ptr, "address", h->transport == LAB_SSH,
	    &h->address) != 0 ||
	    get_string(p, obj, ptr, "user", false, &h->user) != 0 ||
	    get_int(p, obj, ptr, "port", 1, 65535, &h->port) != 0 ||
	    get_string(p, obj, ptr, "identity", false, &h->identity) != 0 ||
	    get_string(p, obj, ptr, "known_hosts", false,
	    &h->known_hosts) != 0 ||
	    make_local(p, ptr, "identity", &h->identity) != 0 ||
	    make_local(p, ptr, "known_hosts", &h->known_hosts) != 0 ||
	    parse_host_v2(p, h, obj, ptr) != 0 ||
	    check_ssh_names(p, h, ptr) != 0 ||
	    check_host_name(p, ptr, h->name) != 0)
		return -1;
	if ((chips = json_object_get(obj, "chips")) != NULL) {
		kp = doc_ptr_key(ptr, "chips");
		rc = parse_chips(p, h, chips, kp);
		free(kp);
		if (rc != 0)
			return -1;
	}
	for (i = 0; i + 1 < lab->nhosts; i++) {
		if (strcmp(lab->hosts[i].name, h->name) == 0) {
			kp = doc_ptr_key(ptr, "name");
			LERR(p, kp, "duplicate host name '%s'", h->name);
			free(kp);
			return -1;
		}
	}
	return 0;
}

/* One entry of workspaces:, on a host already named. */
static int
parse_workspace(struct labparse *p, struct lab *lab, json_t *obj,
    const char *ptr)
{
	struct lab_workspace *w = &lab->workspaces[lab->nworkspaces];
	const struct lab_host *h;
	char *kp;

	if (!json_is_object(obj)) {
		LERR(p, ptr, "a workspace must be a mapping, not %s",
		    docfile_kind_name(obj));
		return -1;
	}
	lab->nworkspaces++;
	if (check_keys(p, obj, ptr, ws_keys, nitems(ws_keys)) != 0 ||
	    get_string(p, obj, ptr, "host", true, &w->host) != 0 ||
	    get_string(p, obj, ptr, "path", true, &w->path) != 0)
		return -1;
	if ((h = lab_host(lab, w->host)) == NULL) {
		kp = doc_ptr_key(ptr, "host");
		LERR(p, kp, "unknown host '%s'", w->host);
		free(kp);
		return -1;
	}
	if (h->transport == LAB_LOCAL)
		return make_local(p, ptr, "path", &w->path);
	if (w->path[0] != '/') {
		kp = doc_ptr_key(ptr, "path");
		LERR(p, kp, "a workspace on ssh host '%s' must be an absolute "
		    "path", w->host);
		free(kp);
		return -1;
	}
	return 0;
}

/* Blanks that separate the words of a runner: string. */
#define RUNNER_BLANKS	" \t\n\r\v\f"

/* A command of the lab file (runner:, a gate's): its argv, kept
 * NULL-terminated, and its text as written. */
struct cmdout {
	char	**text;
	char	***argv;
	size_t	 *argc;
	const char *what;	/* for messages: "'runner'", "G6's command" */
	const char *arg;	/* "a runner argument", "an argument of …" */
};

/* Append one argument to a command's argv (kept NULL-terminated). */
static void
cmd_push(struct cmdout *c, const char *arg, size_t len)
{
	*c->argv = xreallocarray(*c->argv, *c->argc + 2, sizeof **c->argv);
	(*c->argv)[(*c->argc)++] = xstrndup(arg, len);
	(*c->argv)[*c->argc] = NULL;
}

/* A command as a string, split on blanks; quotes are refused rather than
 * half understood. */
static int
cmd_words(struct labparse *p, struct cmdout *c, json_t *v, const char *kp)
{
	const char *s = json_string_value(v), *w;
	size_t n;

	if (strlen(s) != json_string_length(v) ||
	    s[strspn(s, RUNNER_BLANKS)] == '\0') {
		LERR(p, kp, "%s must name a program", c->what);
		return -1;
	}
	if (strpbrk(s, "'\"\\") != NULL) {
		LERR(p, kp, "%s is split on blanks with no shell quoting: "
		    "give it as a list of arguments instead of quoting",
		    c->what);
		return -1;
	}
	for (w = s + strspn(s, RUNNER_BLANKS); *w != '\0';
	    w += n, w += strspn(w, RUNNER_BLANKS)) {
		n = strcspn(w, RUNNER_BLANKS);
		cmd_push(c, w, n);
	}
	*c->text = xstrdup(s);
	return 0;
}

/* A command as a list of strings, one argument each. */
static int
cmd_list(struct labparse *p, struct cmdout *c, json_t *v, const char *kp)
{
	json_t *a;
	char *ip, *t;
	size_t i, n;

	if (json_array_size(v) == 0) {
		LERR(p, kp, "%s must name a program", c->what);
		return -1;
	}
	json_array_foreach(v, i, a) {
		if (!json_is_string(a) || json_string_length(a) == 0 ||
		    strlen(json_string_value(a)) != json_string_length(a)) {
			ip = doc_ptr_index(kp, i);
			if (json_is_string(a))
				LERR(p, ip, "%s must be a non-empty string",
				    c->arg);
			else
				LERR(p, ip, "%s must be a string, not %s",
				    c->arg, docfile_kind_name(a));
			free(ip);
			return -1;
		}
		cmd_push(c, json_string_value(a), json_string_length(a));
	}
	for (i = 0, n = 0; i < *c->argc; i++)
		n += strlen((*c->argv)[i]) + 1;
	*c->text = t = xmalloc(n);
	for (i = 0; i < *c->argc; i++) {
		n = strlen((*c->argv)[i]);
		memcpy(t, (*c->argv)[i], n);
		t += n;
		*t++ = ' ';
	}
	t[-1] = '\0';
	return 0;
}

/* A command: a string or a list of strings (lab.h). */
static int
parse_cmd(struct labparse *p, struct cmdout *c, json_t *v, const char *kp)
{
	if (json_is_string(v))
		return cmd_words(p, c, v, kp);
	if (json_is_array(v))
		return cmd_list(p, c, v, kp);
	LERR(p, kp, "%s must be a string or a list of strings, not %s",
	    c->what, docfile_kind_name(v));
	return -1;
}

/* runner: (lab.h), or absent. */
static int
parse_runner(struct labparse *p, struct lab *lab, json_t *root)
{
	struct cmdout c = { &lab->runner, &lab->runner_argv,
	    &lab->runner_argc, "'runner'", "a runner argument" };
	json_t *v = json_object_get(root, "runner");
	char *kp;
	int rc;

	if (v == NULL)
		return 0;
	kp = doc_ptr_key("", "runner");
	rc = parse_cmd(p, &c, v, kp);
	free(kp);
	return rc;
}

/*
 * gates: a mapping of gate ids to the command that makes that gate's
 * evidence (lab.h), or absent.  G7 and G9 have the runner's jobs.
 */
static int
parse_gates(struct labparse *p, struct lab *lab, json_t *root)
{
	json_t *map = json_object_get(root, "gates"), *v;
	char *kp, *gp, what[40], arg[60];
	const char *key;
	struct cmdout c;
	int g, rc = 0;

	if (map == NULL)
		return 0;
	kp = doc_ptr_key("", "gates");
	if (!json_is_object(map)) {
		LERR(p, kp, "'gates' must map gate ids (G0 to G10) to commands, "
		    "not be %s", docfile_kind_name(map));
		free(kp);
		return -1;
	}
	json_object_foreach(map, key, v) {
		gp = doc_ptr_key(kp, key);
		g = gateid_index(key);
		if (g < 0)
			LERR(p, gp, "'%s' is not a gate: the gates are G0 to "
			    "G10", key);
		else if (gateid_runner(g))
			LERR(p, gp, "G%d's job is the runner's (%s): set "
			    "'runner', not a command for G%d", g,
			    gateid_job(g) == GATEJOB_SUITE ? "golden and the "
			    "fault scenarios" : "the soak", g);
		else if (lab->gates[g].argv != NULL)
			LERR(p, gp, "G%d is given twice", g);
		if (g < 0 || gateid_runner(g) || lab->gates[g].argv != NULL) {
			free(gp);
			rc = -1;
			break;
		}
		snprintf(what, sizeof what, "G%d's command", g);
		snprintf(arg, sizeof arg, "an argument of G%d's command", g);
		c = (struct cmdout){ &lab->gates[g].text, &lab->gates[g].argv,
		    &lab->gates[g].argc, what, arg };
		rc = parse_cmd(p, &c, v, gp);
		free(gp);
		if (rc != 0)
			break;
	}
	free(kp);
	return rc;
}

/* The alerts: mapping v at kp: the hook (required when need_hook), the
 * rules (every default one when there is no rules:) and the hook's timing. */
static int
parse_alerts_map(struct labparse *p, struct lab *lab, json_t *v,
    const char *kp, bool need_hook)
{
	struct cmdout c = { &lab->alert_hook.text, &lab->alert_hook.argv,
	    &lab->alert_hook.argc, "'hook'", "an argument of the hook" };
	char *hp = doc_ptr_key(kp, "hook"), *rp = doc_ptr_key(kp, "rules");
	json_t *hook;
	int rc = -1;

	if (!json_is_object(v))
		LERR(p, kp, "'alerts' must be a mapping, not %s",
		    docfile_kind_name(v));
	else if (check_keys(p, v, kp, alerts_keys, nitems(alerts_keys)) != 0)
		;
	else if ((hook = json_object_get(v, "hook")) == NULL && need_hook)
		LERR(p, kp, "'alerts' needs a 'hook': the command an alert "
		    "runs");
	else if ((hook == NULL || parse_cmd(p, &c, hook, hp) == 0) &&
	    alertrule_parse(&lab->alerts, p->d, p->source,
	    json_object_get(v, "rules"), rp, p->err, p->errlen) == 0 &&
	    alertrule_parse_timing(&lab->alerts, p->d, p->source, v, kp,
	    p->err, p->errlen) == 0)
		rc = 0;
	free(rp);
	free(hp);
	return rc;
}

/* alerts: (lab.h), or absent. */
static int
parse_alerts(struct labparse *p, struct lab *lab, json_t *root)
{
	json_t *v = json_object_get(root, "alerts");
	char *kp;
	int rc;

	if (v == NULL)
		return 0;
	kp = doc_ptr_key("", "alerts");
	rc = parse_alerts_map(p, lab, v, kp, true);
	free(kp);
	return rc;
}

/* hosts: or workspaces:, a list, each entry through fn. */
static int
parse_list(struct labparse *p, struct lab *lab, json_t *root, const char *key,
    int (*fn)(struct labparse *, struct lab *, json_t *, const char *))
{
	json_t *list = json_object_get(root, key), *v;
	char *kp, *ip;
	size_t i;
	int rc = 0;

	if (list == NULL)
		return 0;
	kp = doc_ptr_key("", key);
	if (!json_is_array(list)) {
		LERR(p, kp, "'%s' must be a list, not %s", key,
		    docfile_kind_name(list));
		free(kp);
		return -1;
	}
	if (strcmp(key, "hosts") == 0)
		lab->hosts = xcalloc(json_array_size(list) + 1,
		    sizeof *lab->hosts);
	else
		lab->workspaces = xcalloc(json_array_size(list) + 1,
		    sizeof *lab->workspaces);
	json_array_foreach(list, i, v) {
		ip = doc_ptr_index(kp, i);
		rc = fn(p, lab, v, ip);
		free(ip);
		if (rc != 0)
			break;
	}
	free(kp);
	return rc;
}

static int
parse_root(struct labparse *p, struct lab *lab, json_t *root)
{
	if (!json_is_object(root)) {
		LERR(p, "", "a lab file must be a mapping, not %s",
		    docfile_kind_name(root));
		return -1;
	}
	if (check_keys(p, root, "", top_keys, nitems(top_keys)) != 0 ||
	    parse_list(p, lab, root, "hosts", parse_host) != 0 ||
	    parse_list(p, lab, root, "workspaces", parse_workspace) != 0 ||
	    parse_runner(p, lab, root) != 0 || parse_gates(p, lab, root) != 0 ||
	    parse_alerts(p, lab, root) != 0)
		return -1;
	return 0;
}

int
lab_parse(struct lab *lab, const char *data, size_t len, const char *source,
    char *err, size_t errlen)
{
	struct labparse p;
	struct doc d;
	char *copy, *abs;
	int rc;

	memset(lab, 0, sizeof *lab);
	memset(&d, 0, sizeof d);
	if (docfile_parse_yaml(&d, data, len, source, err, errlen) != 0)
		return -1;
	copy = xstrdup(source);
	p.d = &d;
	p.source = source;
	p.dir = xstrdup(dirname(copy));
	/* A lab file named by a relative path: its folder made absolute, so
	 * that a local workspace's path is one however the file was named
	 * (a job's command line holds it: labcmd_job_gate()). */
	if (p.dir[0] != '/' && (abs = realpath(p.dir, NULL)) != NULL) {
		free(p.dir);
		p.dir = abs;
	}
	p.err = err;
	p.errlen = errlen;
	free(copy);
	lab->path = xstrdup(source);
	rc = parse_root(&p, lab, d.root);
	free(p.dir);
	doc_release(&d);
	if (rc != 0)
		lab_release(lab);
	return rc;
}

int
lab_load(struct lab *lab, const char *path, char *err, size_t errlen)
{
	char *data;
	size_t len;
	int rc;

	memset(lab, 0, sizeof *lab);
	rc = docfile_read(path, LAB_MAX_BYTES, &data, &len, err, errlen);
	if (rc == 1)
		errbuf_set(err, errlen, "cannot open '%s': %s", path,
		    strerror(ENOENT));
	if (rc != 0)
		return -1;
	rc = lab_parse(lab, data, len, path, err, errlen);
	free(data);
	return rc;
}

/* The config's alerts: (read into cfg) under the lab's: lab wins. */
static void
merge_alerts(struct lab *lab, struct lab *cfg)
{
	if (lab->alert_hook.argv == NULL && cfg->alert_hook.argv == NULL)
		return;
	if (lab->alert_hook.argv == NULL) {
		/* No alerts: in the lab file: the config's, whole. */
		lab->alert_hook = cfg->alert_hook;
		memset(&cfg->alert_hook, 0, sizeof cfg->alert_hook);
		alertrule_release(&lab->alerts);
		lab->alerts = cfg->alerts;
		memset(&cfg->alerts, 0, sizeof cfg->alerts);
		return;
	}
	alertrule_merge(&lab->alerts, &cfg->alerts);
}

int
lab_merge_config(struct lab *lab, const char *path, char *err,
    size_t errlen)
{
	struct labparse p;
	struct lab cfg;
	struct doc d;
	char *copy, *kp;
	json_t *v;
	int rc;

	if ((rc = docfile_load_yaml(&d, path, LAB_MAX_BYTES, err,
	    errlen)) != 0)
		return rc == 1 ? 0 : -1;
	v = json_is_object(d.root) ? json_object_get(d.root, "alerts") : NULL;
	if (v != NULL) {
		copy = xstrdup(path);
		p = (struct labparse){ &d, path, xstrdup(dirname(copy)), err,
		    errlen };
		free(copy);
		memset(&cfg, 0, sizeof cfg);
		kp = doc_ptr_key("", "alerts");
		if ((rc = parse_alerts_map(&p, &cfg, v, kp, false)) == 0)
			merge_alerts(lab, &cfg);
		free(kp);
		free(p.dir);
		lab_release(&cfg);
	}
	doc_release(&d);
	return rc;
}

void
lab_release(struct lab *lab)
{
	struct lab_host *h;
	size_t i;
	int g;

	for (i = 0; i < lab->nhosts; i++) {
		h = &lab->hosts[i];
		free(h->name);
		free(h->address);
		free(h->user);
		free(h->identity);
		free(h->known_hosts);
		free(h->calops);
		free(h->chips);
	}
	for (i = 0; i < lab->nworkspaces; i++) {
		free(lab->workspaces[i].host);
		free(lab->workspaces[i].path);
	}
	free(lab->hosts);
	free(lab->workspaces);
	for (i = 0; i < lab->alert_hook.argc; i++)
		free(lab->alert_hook.argv[i]);
	free(lab->alert_hook.argv);
	free(lab->alert_hook.text);
	alertrule_release(&lab->alerts);
	for (i = 0; i < lab->runner_argc; i++)
		free(lab->runner_argv[i]);
	free(lab->runner_argv);
	free(lab->runner);
	for (g = 0; g < GATE_COUNT; g++) {
		for (i = 0; i < lab->gates[g].argc; i++)
			free(lab->gates[g].argv[i]);
		free(lab->gates[g].argv);
		free(lab->gates[g].text);
	}
	free(lab->path);
	memset(lab, 0, sizeof *lab);
}

const struct lab_host *
lab_host(const struct lab *lab, const char *name)
{
	size_t i;

	for (i = 0; i < lab->nhosts; i++)
		if (lab->hosts[i].name != NULL &&
		    strcmp(lab->hosts[i].name, name) == 0)
			return &lab->hosts[i];
	return NULL;
}

bool
lab_same_local_folder(const char *a, const char *b)
{
	char *ra, *rb;
	bool same;

	if (strcmp(a, b) == 0)
		return true;
	if ((ra = realpath(a, NULL)) == NULL)
		return false;
	rb = realpath(b, NULL);
	same = rb != NULL && strcmp(ra, rb) == 0;
	free(ra);
	free(rb);
	return same;
}

const struct lab_workspace *
lab_find_workspace(const struct lab *lab, const char *host, const char *path,
    size_t *count)
{
	const struct lab_workspace *found = NULL, *w;
	const struct lab_host *h;
	size_t i, n = 0;
	int pass;

	/* The path as the lab file writes it first: a folder listed twice
	 * under two spellings (a link to it) is still named by either. */
	for (pass = 0; pass < 2 && n == 0; pass++)
		for (i = 0; i < lab->nworkspaces; i++) {
			w = &lab->workspaces[i];
			if (host != NULL && strcmp(w->host, host) != 0)
				continue;
			if (path != NULL && (pass == 0 ? strcmp(w->path,
			    path) != 0 : (h = lab_host(lab, w->host)) == NULL ||
			    h->transport != LAB_LOCAL ||
			    !lab_same_local_folder(w->path, path)))
				continue;
			if (n++ == 0)
				found = w;
		}
	if (count != NULL)
		*count = n;
	return found;
}
