/*
 * test_jobcursor.c: `calops jobs --since`'s cursor (job/jobcursor.h): its
 * text both ways, refused when it is not one, and which job folders may
 * have changed since one: a record replaced, a folder renamed into place,
 * a job whose final record is still to be written (running or lost);
 * not one left alone since.
 */
#include "calops.h"

#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "job/jobcursor.h"

static void
test_text(void **state)
{
	char buf[JOBCURSOR_LEN];
	int64_t ns;

	(void)state;
	jobcursor_format(1796228378149000001LL, buf, sizeof buf);
	assert_string_equal(buf, "1796228378.149000001");
	assert_int_equal(jobcursor_parse(buf, &ns), 0);
	assert_true(ns == 1796228378149000001LL);
	jobcursor_format(0, buf, sizeof buf);
	assert_string_equal(buf, "0");
	assert_int_equal(jobcursor_parse("0", &ns), 0);
	assert_true(ns == 0);
	/* What is not one: every digit of the nanoseconds, nothing after,
	 * no sign, no blank, no second number of 13 digits. */
	assert_int_equal(jobcursor_parse("", &ns), -1);
	assert_int_equal(jobcursor_parse("12", &ns), -1);
	assert_int_equal(jobcursor_parse("12.5", &ns), -1);
	assert_int_equal(jobcursor_parse("12.000000005x", &ns), -1);
	assert_int_equal(jobcursor_parse("-1.000000000", &ns), -1);
	assert_int_equal(jobcursor_parse(" 1.000000000", &ns), -1);
	assert_int_equal(jobcursor_parse(".000000000", &ns), -1);
	assert_int_equal(jobcursor_parse("1234567890123.000000000", &ns), -1);
	assert_int_equal(jobcursor_parse("--follow", &ns), -1);
	/* The clock now is one, and after 2020. */
	assert_true(jobcursor_now() > 1577836800LL * 1000000000LL);
}

/* A job folder name under root with a job.json (and job.json.last). */
static void
make_job(const char *root, const char *name, bool last)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", root, name);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/%s/job.json", root, name);
	assert_non_null(f = fopen(path, "w"));
	fputs("{}\n", f);
	fclose(f);
	if (last) {
		snprintf(path, sizeof path, "%s/%s/job.json.last", root, name);
		assert_non_null(f = fopen(path, "w"));
		fclose(f);
	}
}

static void
test_changed(void **state)
{
	char root[] = "/tmp/calops-jobcursor.XXXXXX", a[512], b[512];
	int64_t before, after;

	(void)state;
	assert_non_null(mkdtemp(root));
	before = jobcursor_now() - 2 * JOBCURSOR_SLACK_NS;
	make_job(root, "ended", false);
	make_job(root, "running", true);
	/* 0 is before everything; a cursor before the changes sees both. */
	assert_true(jobcursor_changed(root, "ended", 0));
	assert_true(jobcursor_changed(root, "ended", before));
	assert_true(jobcursor_changed(root, "running", before));
	/* Past the changes and the slack: only the one whose final record
	 * is still to be written. */
	after = jobcursor_now() + 2 * JOBCURSOR_SLACK_NS;
	assert_false(jobcursor_changed(root, "ended", after));
	assert_true(jobcursor_changed(root, "running", after));
	/* A folder that is gone changed nothing. */
	assert_false(jobcursor_changed(root, "gone", after));
	/* Its final record written (job.json.last renamed over job.json):
	 * changed, whatever the cursor up to now. */
	snprintf(a, sizeof a, "%s/running/job.json.last", root);
	snprintf(b, sizeof b, "%s/running/job.json", root);
	after = jobcursor_now();
	assert_int_equal(rename(a, b), 0);
	assert_true(jobcursor_changed(root, "running", after));
	assert_false(jobcursor_changed(root, "running", jobcursor_now() +
	    2 * JOBCURSOR_SLACK_NS));
	unlink(b);
	snprintf(a, sizeof a, "%s/running", root);
	rmdir(a);
	snprintf(a, sizeof a, "%s/ended/job.json", root);
	unlink(a);
	snprintf(a, sizeof a, "%s/ended", root);
	rmdir(a);
	rmdir(root);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_changed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
