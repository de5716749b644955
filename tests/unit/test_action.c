/*
 * test_action.c: keys and actions (views/core/action.c), with no terminal.  A
 * view's table is searched before the global one, unknown keys mean
 * nothing, every action has a name and help text, and every key the help
 * screen shows (a binding with a keyname) leads to an action it can
 * describe; every action some table binds can be found on the help screen.
 */
#include "calops.h"

#include <setjmp.h>

#include <cmocka.h>
#include <curses.h>

#include "views/core/action.h"
#include "views/view.h"

/* Every screen with its own keys, as the help screen would be opened from
 * it. */
/* Every screen, from the registry (view.h). */
static const struct view_entry *
all_views(size_t *n)
{
	*n = view_count;
	return view_registry;
}

static void
test_lookup(void **state)
{
	static const struct keybinding mine[] = {
		{ 'j', ACT_SORT, "j" },		/* shadows the global j */
		{ 'x', ACT_WHY, "x" },
		{ KEY_F(5), ACT_REFRESH, "F5" },
		{ 0, ACT_NONE, NULL },
		{ 'y', ACT_OPEN, "y" },		/* past the end */
	};
	static const struct keybinding empty[] = { { 0, ACT_NONE, NULL } };

	(void)state;
	/* the global table alone */
	assert_int_equal(action_for_key(NULL, 'j'), ACT_DOWN);
	assert_int_equal(action_for_key(NULL, KEY_DOWN), ACT_DOWN);
	assert_int_equal(action_for_key(NULL, 'k'), ACT_UP);
	assert_int_equal(action_for_key(NULL, KEY_NPAGE), ACT_PAGE_DOWN);
	assert_int_equal(action_for_key(NULL, ' '), ACT_PAGE_DOWN);
	assert_int_equal(action_for_key(NULL, KEY_CTRL('f')), ACT_PAGE_DOWN);
	assert_int_equal(action_for_key(NULL, 'q'), ACT_BACK);
	assert_int_equal(action_for_key(NULL, 27), ACT_ESCAPE);
	assert_int_equal(action_for_key(NULL, 'Q'), ACT_QUIT);
	assert_int_equal(action_for_key(NULL, KEY_CTRL('c')), ACT_QUIT);
	assert_int_equal(action_for_key(NULL, '\r'), ACT_ENTER);
	assert_int_equal(action_for_key(NULL, '\n'), ACT_ENTER);
	assert_int_equal(action_for_key(NULL, KEY_ENTER), ACT_ENTER);
	assert_int_equal(action_for_key(NULL, '?'), ACT_HELP);
	assert_int_equal(action_for_key(NULL, KEY_F(1)), ACT_HELP);
	assert_int_equal(action_for_key(NULL, '\t'), ACT_NEXT_VIEW);
	assert_int_equal(action_for_key(NULL, KEY_BTAB), ACT_PREV_VIEW);
	assert_int_equal(action_for_key(NULL, '3'), ACT_VIEW_TAB);
	assert_int_equal(action_for_key(NULL, '9'), ACT_VIEW_TAB);
	assert_int_equal(action_for_key(NULL, '0'), ACT_NONE);
	assert_int_equal(action_for_key(NULL, 'R'), ACT_REFRESH);
	/* the view's table first */
	assert_int_equal(action_for_key(mine, 'j'), ACT_SORT);
	assert_int_equal(action_for_key(mine, 'x'), ACT_WHY);
	assert_int_equal(action_for_key(mine, KEY_F(5)), ACT_REFRESH);
	assert_int_equal(action_for_key(mine, 'k'), ACT_UP);
	assert_int_equal(action_for_key(mine, 'y'), ACT_NONE);
	assert_int_equal(action_for_key(empty, 'k'), ACT_UP);
	assert_int_equal(action_for_key(NULL, 'x'), ACT_NONE);
	/* unknown keys */
	assert_int_equal(action_for_key(NULL, 'y'), ACT_NONE);
	assert_int_equal(action_for_key(mine, 'Z'), ACT_NONE);
	assert_int_equal(action_for_key(NULL, 0), ACT_NONE);
	assert_int_equal(action_for_key(mine, 0), ACT_NONE);
	assert_int_equal(action_for_key(NULL, -1), ACT_NONE);
	assert_int_equal(action_for_key(NULL, ERR), ACT_NONE);
	assert_int_equal(action_for_key(NULL, KEY_RESIZE), ACT_NONE);
	assert_int_equal(action_for_key(NULL, KEY_MOUSE), ACT_NONE);
	assert_int_equal(action_for_key(NULL, KEY_MAX + 1000), ACT_NONE);
	assert_int_equal(action_for_key(NULL, INT_MAX), ACT_NONE);
	assert_int_equal(action_for_key(NULL, INT_MIN), ACT_NONE);
	assert_int_equal(action_for_key(NULL, 0x20ac), ACT_NONE);
}

/* The screens' own keys, and the global ones still work there. */
static void
test_view_keys(void **state)
{
	(void)state;
	assert_int_equal(action_for_key(board_view.keys, 'w'), ACT_WHY);
	assert_int_equal(action_for_key(board_view.keys, 'j'), ACT_DOWN);
	assert_int_equal(action_for_key(findings_view.keys, 'o'), ACT_OPEN);
	assert_int_equal(action_for_key(findings_view.keys, 's'), ACT_SORT);
	/* One key for the least severity, on every screen that has one. */
	assert_int_equal(action_for_key(findings_view.keys, 'v'), ACT_LEVEL);
	assert_int_equal(action_for_key(joblog_view.keys, 'v'), ACT_LEVEL);
	assert_int_equal(action_for_key(findings_view.keys, 'e'), ACT_LEVEL);
	assert_int_equal(action_for_key(findings_view.keys, 'Q'), ACT_QUIT);
	assert_int_equal(action_for_key(gate_view.keys, 'o'), ACT_OPEN);
	assert_int_equal(action_for_key(gate_view.keys, 'w'), ACT_NONE);
	assert_int_equal(action_for_key(tickets_view.keys, '?'), ACT_HELP);
	assert_int_equal(action_for_key(help_view.keys, 'q'), ACT_BACK);
}

/* Every action has a unique name and, but for ACT_NONE, help text. */
static void
test_action_info(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < ACT_COUNT; i++) {
		if (action_info[i].name == NULL ||
		    action_info[i].name[0] == '\0')
			fail_msg("action %zu has no name", i);
		if (action_info[i].help == NULL)
			fail_msg("action '%s' has no help", action_info[i].name);
		if (i != ACT_NONE && action_info[i].help[0] == '\0')
			fail_msg("action '%s' has empty help",
			    action_info[i].name);
		for (j = 0; j < i; j++)
			if (strcmp(action_info[i].name,
			    action_info[j].name) == 0)
				fail_msg("two actions are called '%s'",
				    action_info[i].name);
	}
}

/* A key table as the help screen reads it: every binding with a keyname
 * is shown with its action's help, so it needs one; no key is bound twice
 * (the second would never be reached). */
static void
check_table(const char *what, const struct keybinding *t)
{
	const struct keybinding *k, *j;

	for (k = t; k->key != 0; k++) {
		if (k->action <= ACT_NONE || k->action >= ACT_COUNT)
			fail_msg("%s: key %d has no action", what, k->key);
		if (k->keyname != NULL && k->keyname[0] == '\0')
			fail_msg("%s: key %d has an empty name", what, k->key);
		if (k->keyname != NULL &&
		    action_info[k->action].help[0] == '\0')
			fail_msg("%s: key %s leads to '%s', which has no help",
			    what, k->keyname, action_info[k->action].name);
		for (j = t; j != k; j++)
			if (j->key == k->key)
				fail_msg("%s: key %d is bound twice", what,
				    k->key);
	}
}

/* Is action a shown on the help screen from this table? */
static bool
listed(const struct keybinding *t, enum action a)
{
	const struct keybinding *k;

	for (k = t; t != NULL && k->key != 0; k++)
		if (k->action == a && k->keyname != NULL)
			return true;
	return false;
}

static void
test_help_tables(void **state)
{
	const struct view_entry *v;
	const struct keybinding *k;
	size_t i, n;

	(void)state;
	check_table("global", action_global_keys);
	/* every global action is on the help screen */
	for (k = action_global_keys; k->key != 0; k++)
		if (!listed(action_global_keys, k->action))
			fail_msg("'%s' has keys but none the help screen shows",
			    action_info[k->action].name);
	v = all_views(&n);
	for (i = 0; i < n; i++) {
		if (v[i].ops->keys == NULL)
			continue;
		check_table(v[i].name, v[i].ops->keys);
		for (k = v[i].ops->keys; k->key != 0; k++) {
			if (!listed(v[i].ops->keys, k->action))
				fail_msg("%s: '%s' is not on the help screen",
				    v[i].name, action_info[k->action].name);
			/* a screen's key that hides a global one would be
			 * shown twice, with two meanings: only Space, which
			 * marks a choice in the picker (as lazygit's and
			 * htop's do), while PgDn and ^F still page there */
			if (action_for_key(NULL, k->key) != ACT_NONE &&
			    !(k->key == ' ' && k->action == ACT_MARK))
				fail_msg("%s: key %s hides a global key",
				    v[i].name, k->keyname);
		}
	}
}

/* Every action but ACT_NONE is reachable: some table binds it to a key
 * the help screen shows. */
static void
test_every_action_bound(void **state)
{
	const struct view_entry *v;
	size_t i, n;
	int a;
	bool found;

	(void)state;
	v = all_views(&n);
	for (a = ACT_NONE + 1; a < ACT_COUNT; a++) {
		found = listed(action_global_keys, (enum action)a);
		for (i = 0; i < n && !found; i++)
			found = v[i].ops->keys != NULL &&
			    listed(v[i].ops->keys, (enum action)a);
		if (!found)
			fail_msg("no key for '%s'", action_info[a].name);
	}
}

/* The registry is the one list of screens: tabs in its order with the
 * digits 1 to 9, :name for every screen not reached by drilling down, and
 * no name or view_ops twice. */
static void
test_registry(void **state)
{
	size_t i, j, tabs = 0;

	(void)state;
	assert_true(view_ntabs() >= 1 && view_ntabs() <= 9);
	assert_ptr_equal(view_tab(0), &board_view);
	assert_ptr_equal(view_tab(5), &faults_view);
	assert_null(view_tab(view_ntabs()));
	assert_int_equal(view_tab_index(&findings_view), 2);
	assert_int_equal(view_tab_index(&help_view), SIZE_MAX);
	assert_ptr_equal(view_by_name("jobs"), &jobs_view);
	assert_ptr_equal(view_by_name("help"), &help_view);
	assert_null(view_by_name("gate"));	/* it needs a gate */
	assert_null(view_by_name("nosuch"));
	for (i = 0; i < view_count; i++) {
		assert_non_null(view_registry[i].ops->title);
		assert_true(view_registry[i].help[0] != '\0');
		assert_ptr_equal(view_entry(view_registry[i].ops),
		    &view_registry[i]);
		if (view_registry[i].kind == VIEW_TAB)
			assert_ptr_equal(view_tab(tabs++),
			    view_registry[i].ops);
		for (j = i + 1; j < view_count; j++) {
			assert_string_not_equal(view_registry[i].name,
			    view_registry[j].name);
			assert_ptr_not_equal(view_registry[i].ops,
			    view_registry[j].ops);
		}
	}
	assert_int_equal(tabs, view_ntabs());
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_view_keys),
		cmocka_unit_test(test_action_info),
		cmocka_unit_test(test_help_tables),
		cmocka_unit_test(test_every_action_bound),
		cmocka_unit_test(test_registry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
