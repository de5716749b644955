/*
 * test_alerthook.c: an alert sent through a real hook (src/alert/
 * alerthook.c) in the one poll loop: the hook gets the alert in its
 * CALOPS_ALERT* variables and as an Alertmanager webhook on stdin, a host
 * name's escape made plain; its outcome is journaled, so a resume sends
 * nothing twice and what was not sent once; a hook that hangs is killed
 * after the timeout, journaled as failed and retried until it succeeds; a
 * hook that always fails is given up after its tries.
 */
#include "calops.h"

#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "alert/alerteval.h"
#include "alert/alerthook.h"
#include "alert/alertjournal.h"
#include "alert/alertrule.h"
#include "base/docfile.h"
#include "base/fileio.h"
#include "loop/child.h"
#include "loop/loop.h"

#define T0	1700000000.0

struct fixture {
	char			*dir, *journal, *out;
	struct alertconf	 conf;
	struct alertjournal	 j;
	struct loop		*l;
	int			 said;
};

static void
on_sigchld(struct loop *l, int sig, void *arg)
{
	(void)sig;
	(void)arg;
	child_reap(l);
}

static void
say(const char *msg, void *arg)
{
	struct fixture *f = arg;

	(void)msg;
	f->said++;
}

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);
	char tmpl[] = "/tmp/test_alerthook.XXXXXX", err[256];

	assert_non_null(mkdtemp(tmpl));
	f->dir = xstrdup(tmpl);
	f->journal = xasprintf("%s/journal.jsonl", f->dir);
	f->out = xasprintf("%s/out", f->dir);
	alertrule_defaults(&f->conf);
	assert_int_equal(alertjournal_open_path(&f->j, f->journal, true, err,
	    sizeof err), 0);
	f->l = loop_new();
	assert_int_equal(loop_watch_signal(f->l, SIGCHLD, on_sigchld, NULL),
	    0);
	signal(SIGPIPE, SIG_IGN);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	alertjournal_close(&f->j);
	alertrule_release(&f->conf);
	loop_free(f->l);
	fileio_remove_tree(f->dir);
	free(f->dir);
	free(f->journal);
	free(f->out);
	free(f);
	return 0;
}

/* A host down on "lab\033]0;x" fired (and resolved when resolve) into
 * the journal: the alert's id. */
static char *
journal_host_down(struct fixture *f, bool resolve)
{
	struct alert_subject s = { "lab\033]0;x", ALERT_NONE, NULL, NULL,
	    ALERT_NONE, NULL };
	struct alerteval *ae = alerteval_new(&f->conf);
	struct alertnote n;
	char err[256], *id = NULL;

	alerteval_cond(ae, ALERT_HOST, &s, true, 0, "disconnected", T0);
	alerteval_tick(ae, T0 + 200);
	if (resolve)
		alerteval_cond(ae, ALERT_HOST, &s, false, 0, "up", T0 + 300);
	while (alerteval_next(ae, &n)) {
		assert_int_equal(alertjournal_note(&f->j, &n, T0, err,
		    sizeof err), 0);
		free(id);
		id = xstrdup(n.id);
		alerteval_note_release(&n);
	}
	alerteval_free(ae);
	assert_non_null(id);
	return id;
}

static void
stop_when_idle(struct loop *l, void *arg)
{
	if (alerthook_idle(arg))
		loop_stop(l);
}

static void
give_up(struct loop *l, void *arg)
{
	(void)arg;
	loop_stop(l);
}

/* Run the loop until the hook has nothing left (at most 30 s). */
static void
drain(struct fixture *f, struct alerthook *h)
{
	long t = loop_add_timer(f->l, 30000, give_up, NULL);

	loop_set_before_sleep(f->l, stop_when_idle, h);
	loop_run(f->l);
	assert_true(loop_timer_armed(f->l, t));
	loop_del_timer(f->l, t);
	loop_set_before_sleep(f->l, NULL, NULL);
}

static char *
slurp(const char *path)
{
	char *data = NULL, err[256];
	size_t len;

	assert_int_equal(docfile_read(path, 1 << 20, &data, &len, err,
	    sizeof err), 0);
	return data;
}

static void
test_sent_once(void **state)
{
	struct fixture *f = *state;
	char *script = xasprintf("cat >> '%s'; printf '\\n%%s %%s %%s\\n' "
	    "\"$CALOPS_ALERT\" \"$CALOPS_ALERT_STATE\" \"$CALOPS_ALERT_HOST\" "
	    ">> '%s'", f->out, f->out);
	char *argv[] = { "sh", "-c", script, NULL };
	struct alerthook *h;
	const struct alertentry *e;
	char *id = journal_host_down(f, true), *out, err[256];
	json_t *doc, *alert;

	h = alerthook_new(f->l, argv, &f->j, say, f);
	assert_int_equal(alerthook_resume(h), 2);
	drain(f, h);
	out = slurp(f->out);
	assert_non_null(strchr(out, '\n'));
	doc = json_loadb(out, strcspn(out, "\n"), 0, NULL);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "status")),
	    "firing");
	alert = json_array_get(json_object_get(doc, "alerts"), 0);
	assert_string_equal(json_string_value(json_object_get(alert,
	    "fingerprint")), id);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    alert, "labels"), "alertname")), "host.down");
	assert_null(strchr(json_string_value(json_object_get(json_object_get(
	    alert, "labels"), "host")), '\033'));
	json_decref(doc);
	assert_non_null(strstr(out, "host.down firing lab^[]0;x\n"));
	assert_non_null(strstr(out, "\"status\":\"resolved\""));
	assert_non_null(strstr(out, "host.down resolved lab^[]0;x\n"));
	free(out);
	e = alertjournal_find(&f->j, id);
	assert_true(e->sent_firing && e->sent_resolved);
	alerthook_free(h);
	/* Read back: nothing is sent again. */
	alertjournal_close(&f->j);
	assert_int_equal(alertjournal_open_path(&f->j, f->journal, false, err,
	    sizeof err), 0);
	h = alerthook_new(f->l, argv, &f->j, say, f);
	assert_int_equal(alerthook_resume(h), 0);
	alerthook_free(h);
	assert_int_equal(f->said, 0);
	free(id);
	free(script);
}

/* A hook that hangs the first time is killed, journaled and retried. */
static void
test_hang_retry(void **state)
{
	struct fixture *f = *state;
	char *script = xasprintf("if [ -e '%s.1' ]; then cat > '%s'; exit 0; "
	    "fi; : > '%s.1'; exec sleep 60", f->out, f->out, f->out);
	char *argv[] = { "sh", "-c", script, NULL };
	const struct alertentry *e;
	struct alerthook *h;
	char *id = journal_host_down(f, false), *out;

	h = alerthook_new(f->l, argv, &f->j, say, f);
	alerthook_set_timing(h, 300, 10, 3);
	alerthook_send(h, id, false);
	drain(f, h);
	out = slurp(f->out);
	assert_non_null(strstr(out, "\"status\":\"firing\""));
	free(out);
	e = alertjournal_find(&f->j, id);
	assert_true(e->sent_firing);
	assert_int_equal(e->failures, 1);
	assert_non_null(strstr(e->hook_error, "killed after 300 ms"));
	assert_int_equal(f->said, 1);
	alerthook_free(h);
	free(id);
	free(script);
}

/* A hook that always fails is given up after its tries, and not resent. */
static void
test_give_up(void **state)
{
	struct fixture *f = *state;
	char *argv[] = { "sh", "-c", "echo no route to host >&2; exit 7",
	    NULL };
	const struct alertentry *e;
	struct alerthook *h;
	char *id = journal_host_down(f, false);

	h = alerthook_new(f->l, argv, &f->j, say, f);
	alerthook_set_timing(h, 5000, 1, 3);
	alerthook_send(h, id, false);
	drain(f, h);
	e = alertjournal_find(&f->j, id);
	assert_false(e->sent_firing);
	assert_true(e->gave_up);
	assert_int_equal(e->failures, 3);
	assert_string_equal(e->hook_error, "exit 7: no route to host");
	assert_int_equal(alerthook_resume(h), 0);
	alerthook_free(h);
	free(id);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sent_once, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_hang_retry, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_give_up, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
