/*
 * test_picker.c: the list a host or chip is picked from
 * (views/core/picker.c), with no terminal: the default is selected first;
 * the selection stays on its choice by name when the rows are made again,
 * in another order; Enter takes a choice, or is refused on one that cannot
 * be taken; Esc and q cancel; a click selects, a double click takes.
 */
#include "calops.h"

#include <setjmp.h>

#include <cmocka.h>

#include "views/core/picker.h"

static const char *
selected(const struct picker *p)
{
	const struct picker_item *it = picker_selected(p);

	return it != NULL ? it->name : "";
}

/* host1, host2 (the default), host3, the last refused. */
static void
hosts(struct picker *p, bool reversed)
{
	picker_clear(p);
	if (reversed) {
		picker_add(p, "host3", 0, "host 'host3' is protected", "up");
		picker_add(p, "host2", 0, NULL, "up");
		picker_default(p);
		picker_add(p, "host1", 0, NULL, "up 1.2ms · %d jobs", 2);
	} else {
		picker_add(p, "host1", 0, NULL, "up 1.2ms · %d jobs", 2);
		picker_add(p, "host2", 0, NULL, "up");
		picker_default(p);
		picker_add(p, "host3", 0, "host 'host3' is protected", "up");
	}
	picker_done(p);
}

static void
test_default_and_keep(void **state)
{
	struct picker p = { 0 };

	(void)state;
	hosts(&p, false);
	assert_string_equal(selected(&p), "host2");
	assert_string_equal(picker_selected(&p)->state, "up");
	assert_int_equal(picker_action(&p, ACT_UP), PICKER_MOVED);
	assert_string_equal(selected(&p), "host1");
	assert_string_equal(picker_selected(&p)->state, "up 1.2ms · 2 jobs");
	/* Made again in another order: host1 still, not the default, not
	 * the row it was on. */
	hosts(&p, true);
	assert_string_equal(selected(&p), "host1");
	assert_int_equal(picker_index(&p), 2);
	picker_release(&p);
}

static void
test_take(void **state)
{
	struct picker p = { 0 };

	(void)state;
	hosts(&p, false);
	assert_int_equal(picker_action(&p, ACT_ENTER), PICKER_CHOSEN);
	assert_int_equal(picker_action(&p, ACT_DOWN), PICKER_MOVED);
	assert_string_equal(selected(&p), "host3");
	assert_int_equal(picker_action(&p, ACT_ENTER), PICKER_REFUSED);
	assert_string_equal(picker_selected(&p)->refused,
	    "host 'host3' is protected");
	assert_int_equal(picker_action(&p, ACT_HOME), PICKER_MOVED);
	assert_string_equal(selected(&p), "host1");
	assert_int_equal(picker_action(&p, ACT_ESCAPE), PICKER_CANCEL);
	assert_int_equal(picker_action(&p, ACT_BACK), PICKER_CANCEL);
	assert_int_equal(picker_action(&p, ACT_SORT), PICKER_NONE);
	picker_release(&p);
}

static void
test_click(void **state)
{
	struct picker p = { 0 };

	(void)state;
	hosts(&p, false);
	/* As picker_draw() would place three rows from screen row 5. */
	list_place(&p.list, 5, 0, 3, 40);
	assert_int_equal(picker_click(&p, 4, 2, false), PICKER_NONE);
	assert_int_equal(picker_click(&p, 5, 50, false), PICKER_NONE);
	assert_string_equal(selected(&p), "host2");
	assert_int_equal(picker_click(&p, 5, 2, false), PICKER_MOVED);
	assert_string_equal(selected(&p), "host1");
	/* The second click of a double on the row the first selected. */
	assert_int_equal(picker_click(&p, 5, 2, true), PICKER_CHOSEN);
	/* A double click's second half on another row only selects it. */
	assert_int_equal(picker_click(&p, 7, 2, true), PICKER_MOVED);
	assert_int_equal(picker_click(&p, 7, 2, true), PICKER_REFUSED);
	picker_release(&p);
}

static void
test_empty(void **state)
{
	struct picker p = { 0 };

	(void)state;
	picker_clear(&p);
	picker_done(&p);
	assert_null(picker_selected(&p));
	assert_int_equal(picker_action(&p, ACT_ENTER), PICKER_MOVED);
	picker_release(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_and_keep),
		cmocka_unit_test(test_take),
		cmocka_unit_test(test_click),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
