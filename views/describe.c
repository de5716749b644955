/*
 * describe.c: one job described (k9s's describe): what it runs, word by
 * word, where (host and folder), who started it, when it started and ended
 * and how long it ran, how it ended, its processes, and the whole job.json
 * its host listed.  A snapshot of the Jobs screen's last listing of the
 * job, said with its age; everything in it came from the host and is shown
 * through the sanitiser.
 */
#include "calops.h"

#include <time.h>

#include "base/buf.h"
#include "base/text.h"
#include "job/jobevent.h"
#include "job/jobstore.h"
#include "lab/labcmd.h"
#include "lab/labmodel.h"
#include "model/joblist.h"
#include "views/app/app.h"
#include "views/core/textpane.h"
#include "views/core/ui.h"

struct describe {
	char		*host;
	json_t		*record;	/* a copy: the list may change */
	char		*label;		/* what the console calls it, or NULL */
	double		 fetched;	/* when the host listed it */
	bool		 placed;
	struct textpane	 pane;
};

/* A Unix time as the operator's local date and time, into buf. */
static const char *
when(json_t *v, char *buf, size_t len)
{
	struct tm tm;
	time_t t;

	if (!json_is_number(v) || !(json_number_value(v) > 0) ||
	    json_number_value(v) > 253402300799.0) {	/* 9999-12-31 */
		snprintf(buf, len, "-");
		return buf;
	}
	t = (time_t)json_number_value(v);
	localtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S %Z", &tm);
	return buf;
}

/* One "Name:  value" line, the value untrusted (drawn through the
 * sanitiser, as every pane line). */
static void
field(struct describe *d, const char *name, const char *value)
{
	textpane_add(&d->pane, ROLE_NORMAL, -1, "%-13s %s", name,
	    value != NULL ? value : "-");
}

static void
describe_refresh(struct app *a, void *data)
{
	struct describe *d = data;
	json_t *r = d->record, *v, *argv;
	char buf[64], age[32], *s, *line, *p;
	const char *state = json_string_value(json_object_get(r, "state"));
	size_t i;
	double t0, t1;

	(void)a;
	textpane_clear(&d->pane);
	field(d, "Job", json_string_value(json_object_get(r, "id")));
	field(d, "What", d->label);
	field(d, "Host", d->host);
	/* Who started it: another console, a script, someone by hand. */
	field(d, "Started by", json_string_value(json_object_get(r,
	    "actor")));
	field(d, "State", state);
	if (json_is_object(v = json_object_get(r, "degraded"))) {
		/* The host's supervisor cannot write the job's events. */
		s = xasprintf("%s since %s; its lines wait in memory on the "
		    "host", json_string_value(json_object_get(v, "reason")) ?
		    json_string_value(json_object_get(v, "reason")) : "?",
		    when(json_object_get(v, "since"), buf, sizeof buf));
		field(d, "Degraded", s);
		free(s);
	}
	if (json_is_integer(v = json_object_get(r, "lost_lines")) &&
	    json_integer_value(v) > 0) {
		snprintf(buf, sizeof buf, "%lld (the host's disk was full; "
		    "gap events say when)", (long long)json_integer_value(v));
		field(d, "Lines lost", buf);
	}
	if ((v = json_object_get(r, "reason")) != NULL)
		field(d, "Why corrupt", json_string_value(v));
	if (json_is_integer(v = json_object_get(r, "exit_code"))) {
		snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
		field(d, "Exit code", buf);
	}
	if (json_is_integer(v = json_object_get(r, "signal"))) {
		snprintf(buf, sizeof buf, "%lld (killed by a signal)",
		    (long long)json_integer_value(v));
		field(d, "Signal", buf);
	}
	field(d, "Started", when(json_object_get(r, "started"), buf,
	    sizeof buf));
	field(d, "Ended", when(json_object_get(r, "ended"), buf, sizeof buf));
	t0 = json_number_value(json_object_get(r, "started"));
	t1 = json_number_value(json_object_get(r, "ended"));
	if (t0 > 0 && t1 >= t0) {
		jobstore_format_age(t1 - t0, age, sizeof age);
		field(d, "Ran for", age);
	}
	field(d, "Folder", json_string_value(json_object_get(r, "cwd")));
	if (json_is_integer(v = json_object_get(r, "pid"))) {
		snprintf(buf, sizeof buf, "%lld (and its process group)",
		    (long long)json_integer_value(v));
		field(d, "Tool pid", buf);
	}
	if (json_is_integer(v = json_object_get(r, "supervisor_pid"))) {
		snprintf(buf, sizeof buf, "%lld",
		    (long long)json_integer_value(v));
		field(d, "Supervisor", buf);
	}
	jobstore_format_age(jobevent_now() - d->fetched, age, sizeof age);
	textpane_add(&d->pane, ROLE_DIM, -1, "as the host listed it %s ago "
	    "(R on Jobs lists again)", age);
	/* The command, one argument a line: where a blank or a quote is
	 * inside an argument shows. */
	argv = json_object_get(r, "argv");
	textpane_add(&d->pane, ROLE_NORMAL, -1, "%s", "");
	textpane_add(&d->pane, ROLE_HEADER, -1, "Command (%zu argument%s, "
	    "one a line):", json_array_size(argv),
	    json_array_size(argv) == 1 ? "" : "s");
	json_array_foreach(argv, i, v) {
		textpane_add(&d->pane, ROLE_NORMAL, -1, "  [%zu] %s", i,
		    json_is_string(v) ? json_string_value(v) : "?");
	}
	/* The whole record, as the host gave it. */
	textpane_add(&d->pane, ROLE_NORMAL, -1, "%s", "");
	textpane_add(&d->pane, ROLE_HEADER, -1, "job.json, as listed:");
	s = json_dumps(r, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	for (line = s; line != NULL && *line != '\0'; line = p) {
		if ((p = strchr(line, '\n')) != NULL)
			*p++ = '\0';
		textpane_add_wrapped(&d->pane, ROLE_NORMAL, -1, 2, line);
	}
	free(s);
	textpane_done(&d->pane, &d->placed);
}

static void *
describe_open(struct app *a, const void *arg)
{
	const struct joblist_row *row = arg;
	struct describe *d = xcalloc(1, sizeof *d);
	const struct ljob *lj;

	d->host = xstrdup(row->host);
	d->record = json_deep_copy(row->record != NULL ? row->record :
	    json_null());
	if (!json_is_object(d->record)) {
		json_decref(d->record);
		d->record = json_pack("{s:s, s:s}", "id", row->id, "state",
		    row->state);
	}
	d->fetched = row->fetched;
	if (row->id[0] != '\0' &&
	    (lj = labmodel_find(app_labmodel(a), row->host, row->id)) != NULL &&
	    lj->label != NULL)
		d->label = xstrdup(lj->label);
	describe_refresh(a, d);
	return d;
}

static void
describe_close(void *data)
{
	struct describe *d = data;

	textpane_release(&d->pane);
	json_decref(d->record);
	free(d->host);
	free(d->label);
	free(d);
}

static void
describe_draw(struct app *a, void *data, int top, int rows, int cols)
{
	struct describe *d = data;

	if (textpane_draw(&d->pane, top, rows, cols)) {
		describe_refresh(a, d);
		textpane_draw(&d->pane, top, rows, cols);
	}
}

/* y, Y: the job's command as a shell line (each argument quoted as it must
 * be, the host's words through the sanitiser), or in a Markdown block. */
static int
describe_copy(struct app *a, const struct describe *d, bool md)
{
	const json_t *argv = json_object_get(d->record, "argv"), *v;
	const char *id = json_string_value(json_object_get(d->record, "id"));
	char **args, *text, *idc;
	struct buf line;
	size_t i, n = json_array_size(argv);

	if (n == 0) {
		app_message(a, true, "this job names no command");
		return R_REDRAW;
	}
	args = xcalloc(n + 1, sizeof *args);
	json_array_foreach(argv, i, v)
		args[i] = text_sanitize_doc(json_string_value(v) != NULL ?
		    json_string_value(v) : "", json_string_value(v) != NULL ?
		    strlen(json_string_value(v)) : 0);
	buf_init(&line, 0);
	labcmd_join_argv(args, &line);
	idc = text_sanitize_doc(id != NULL ? id : "-", id != NULL ?
	    strlen(id) : 1);
	if (md)
		text = xasprintf("Job `%s` on `%s`:\n\n```sh\n%s\n```\n", idc,
		    d->host, line.data != NULL ? line.data : "");
	else
		text = xasprintf("%s\n", line.data != NULL ? line.data : "");
	app_copy(a, "the job's command", md ? "command.md" : "command.txt",
	    text);
	free(text);
	free(idc);
	buf_release(&line);
	for (i = 0; i < n; i++)
		free(args[i]);
	free(args);
	return R_REDRAW;
}

static int
describe_action(struct app *a, void *data, enum action act)
{
	struct describe *d = data;

	if (act == ACT_LEFT)
		return R_POP;
	if (act == ACT_COPY || act == ACT_COPY_MD)
		return describe_copy(a, d, act == ACT_COPY_MD);
	return list_action(&d->pane.list, act) ? R_REDRAW : R_NONE;
}

static int
describe_click(struct app *a, void *data, int y, int x, bool twice)
{
	struct describe *d = data;

	(void)a;
	(void)twice;
	return list_click(&d->pane.list, y, x) ? R_REDRAW : R_NONE;
}

static const struct keybinding describe_keys[] = {
	{ 'y', ACT_COPY, "y" },
	{ 'Y', ACT_COPY_MD, "Y" },
	{ 0, ACT_NONE, NULL },
};

const struct view_ops describe_view = {
	.title = "Job",
	.keys = describe_keys,
	.open = describe_open,
	.close = describe_close,
	.draw = describe_draw,
	.action = describe_action,
	.click = describe_click,
};
