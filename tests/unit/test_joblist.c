/*
 * test_joblist.c: the Jobs screen's model (src/model/joblist.c) without a
 * transport: calops-jobs/v1 text of two hosts read into rows and merged
 * newest first with the corrupt job last, the hooks told around each
 * merge, and output that cannot be read (bad JSON, another schema, cut)
 * said in the host's err while its rows from before are kept.
 */
#include "calops.h"

#include <setjmp.h>

#include <cmocka.h>

#include "base/fileio.h"
#include "lab/labmodel.h"
#include "loop/loop.h"
#include "model/joblist.h"
#include "remote/lab.h"

static char tmpdir[] = "/tmp/calops-joblist.XXXXXX";
static int nreplacing, nreplaced;

static void
on_replacing(struct joblist *jl, void *arg)
{
	(void)jl;
	(void)arg;
	nreplacing++;
}

static void
on_replaced(struct joblist *jl, void *arg)
{
	(void)jl;
	(void)arg;
	nreplaced++;
}

/* alpha: one running long, one done lately, one corrupt. */
static const char alpha_out[] =
    "{\"schema\":\"calops-jobs/v1\",\"jobs\":["
    "{\"id\":\"a1\",\"state\":\"running\",\"age\":100,"
    "\"argv\":[\"calrt-sim\",\"stress\"]},"
    "{\"id\":\"ac\",\"state\":\"corrupt\",\"reason\":\"bad record\"},"
    "{\"id\":\"a2\",\"state\":\"done\",\"age\":10,\"exit_code\":0,"
    "\"argv\":[\"true\"]}]}\n";

/* beta: one killed, started between alpha's two. */
static const char beta_out[] =
    "{\"schema\":\"calops-jobs/v1\",\"jobs\":["
    "{\"id\":\"b1\",\"state\":\"killed\",\"age\":50,\"signal\":9,"
    "\"argv\":[\"sleep\",\"60\"]}]}\n";

static void
assert_order(struct joblist *jl)
{
	static const char *const want[] = { "a2", "b1", "a1", "ac" };
	size_t i;

	assert_int_equal(joblist_nrows(jl), nitems(want));
	for (i = 0; i < nitems(want); i++)
		assert_string_equal(joblist_row(jl, i)->id, want[i]);
}

static void
test_merge(void **state)
{
	const struct labmodel_cb lcb = { 0 };
	const struct joblist_cb cb = { .replacing = on_replacing,
	    .replaced = on_replaced };
	const char *text = "hosts:\n  - {name: alpha, transport: local}\n"
	    "  - {name: beta, transport: local}\n";
	const char *other = "{\"schema\":\"other/v2\",\"jobs\":[]}";
	const char *none = "{\"schema\":\"calops-jobs/v1\",\"jobs\":[]}";
	const struct joblist_row *r;
	struct loop *l = loop_new();
	struct labmodel *lm;
	struct joblist *jl;
	struct lab lab;
	char err[512];

	(void)state;
	assert_int_equal(lab_parse(&lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);
	lm = labmodel_new(l, &lab, "/nonexistent/calops", &lcb, err,
	    sizeof err);
	assert_non_null(lm);
	jl = joblist_new(lm, &cb);
	assert_int_equal(joblist_nhosts(jl), 2);
	assert_string_equal(joblist_host(jl, 1), "beta");
	assert_false(joblist_host_loaded(jl, 0));
	assert_int_equal(joblist_nrows(jl), 0);

	joblist_feed(jl, 0, alpha_out, strlen(alpha_out), false);
	joblist_feed(jl, 1, beta_out, strlen(beta_out), false);
	assert_int_equal(nreplacing, 2);
	assert_int_equal(nreplaced, 2);
	assert_true(joblist_host_loaded(jl, 1));
	assert_order(jl);
	r = joblist_row(jl, 1);
	assert_string_equal(r->host, "beta");
	assert_string_equal(r->state, "killed");
	assert_string_equal(r->cmd, "sleep 60");
	assert_int_equal(r->exit_code, -1);
	assert_int_equal(r->sig, 9);
	assert_int_equal(joblist_row(jl, 0)->exit_code, 0);
	assert_string_equal(joblist_row(jl, 3)->cmd, "(bad record)");
	assert_string_equal(joblist_host_err(jl, 0), "");

	/* What cannot be read is said; the rows from before stay. */
	joblist_feed(jl, 1, "{\"schema\": ", strlen("{\"schema\": "), false);
	assert_non_null(strstr(joblist_host_err(jl, 1),
	    "cannot read the job list: "));
	assert_order(jl);
	joblist_feed(jl, 1, other, strlen(other), false);
	assert_string_equal(joblist_host_err(jl, 1),
	    "cannot read the job list: not calops-jobs/v1");
	joblist_feed(jl, 0, alpha_out, strlen(alpha_out), true);
	assert_string_equal(joblist_host_err(jl, 0),
	    "cannot read the job list: too long");
	assert_int_equal(nreplaced, 2);
	assert_order(jl);

	/* A good listing clears the err; an empty one empties the host. */
	joblist_feed(jl, 1, none, strlen(none), false);
	assert_string_equal(joblist_host_err(jl, 1), "");
	assert_int_equal(joblist_nrows(jl), 3);
	assert_string_equal(joblist_row(jl, 1)->id, "a1");

	joblist_free(jl);
	labmodel_free(lm);
	lab_release(&lab);
	loop_free(l);
}

static int
setup(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(tmpdir));
	setenv("XDG_STATE_HOME", tmpdir, 1);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	fileio_remove_tree(tmpdir);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
