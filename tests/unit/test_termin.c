/*
 * test_termin.c: what the terminal sends, read as keys and clicks
 * (views/core/termin.c), with no terminal: mouse reports in the SGR, urxvt
 * and X10 formats, whole or split anywhere past their Esc, become one click
 * or wheel step and never keys; a double click is two on one cell in time;
 * a sequence nobody names, an Alt key and one whose rest never came are
 * dropped; a lone Esc is the Esc key, and two are two.
 */
#include "calops.h"

#include <setjmp.h>

#include <cmocka.h>
#include <curses.h>

#include "views/core/termin.h"

#define DOUBLE_MS 166

/* Feed s (bytes) at now; the events into ev (at most max); how many.  With
 * idle, termin_idle() after the last byte, as after a read that ended
 * there. */
static size_t
feed(struct termin *t, const char *s, int64_t now, bool idle,
    struct termin_event *ev, size_t max)
{
	size_t n = 0;

	for (; *s != '\0'; s++) {
		if (termin_feed(t, (unsigned char)*s, now, &ev[n]) && n + 1 <
		    max)
			n++;
	}
	if (idle && termin_idle(t, &ev[n]) && n + 1 < max)
		n++;
	return n;
}

static void
want_click(const struct termin_event *ev, int y, int x, bool twice)
{
	assert_int_equal(ev->kind, TERMIN_CLICK);
	assert_int_equal(ev->y, y);
	assert_int_equal(ev->x, x);
	assert_int_equal(ev->twice, twice);
}

static void
test_sgr(void **state)
{
	struct termin t;
	struct termin_event ev[8];

	(void)state;
	termin_init(&t, DOUBLE_MS);
	/* The click: row 12, column 10, 1-based. */
	assert_int_equal(feed(&t, "\033[<0;10;12M", 0, true, ev, 8), 0);
	assert_true(termin_pending(&t) == false);
	assert_int_equal(feed(&t, "\033[<0;10;12m", 10, true, ev, 8), 1);
	want_click(&ev[0], 11, 9, false);
	/* The wheel, either way; motion and the right button: nothing. */
	assert_int_equal(feed(&t, "\033[<64;3;4M\033[<65;3;4M", 20, true,
	    ev, 8), 2);
	assert_int_equal(ev[0].kind, TERMIN_WHEEL);
	assert_int_equal(ev[0].wheel, -1);
	assert_int_equal(ev[1].wheel, 1);
	assert_int_equal(feed(&t, "\033[<32;3;4M\033[<2;3;4M\033[<2;3;4m",
	    30, true, ev, 8), 0);
	/* A release with no press before it. */
	assert_int_equal(feed(&t, "\033[<0;3;4m", 40, true, ev, 8), 0);
}

/* Split after every byte past an Esc, the reads apart: one click, and
 * nothing before it. */
static void
test_split(void **state)
{
	static const char *const reports[] = { "\033[<0;101;37M\033[<0;101;37m",
	    "\033[M !!\033[M#!!", "\033[32;101;37M\033[35;101;37M" };
	struct termin t;
	struct termin_event ev[4];
	char head[64];
	size_t r, cut, len, n, mid;
	int64_t now = 0;

	(void)state;
	for (r = 0; r < nitems(reports); r++) {
		len = strlen(reports[r]);
		mid = (size_t)(strchr(reports[r] + 1, '\033') - reports[r]);
		for (cut = 2; cut < len; cut++) {
			/* A read that ends on a lone Esc: ncurses has waited
			 * ESCDELAY for its rest already (termin.h). */
			if (cut == mid + 1)
				continue;
			termin_init(&t, DOUBLE_MS);
			snprintf(head, sizeof head, "%.*s", (int)cut,
			    reports[r]);
			now += 1000;
			/* Nothing yet; held unless cut between the two. */
			assert_int_equal(feed(&t, head, now, true, ev, 4), 0);
			assert_true(termin_pending(&t) || cut == mid);
			n = 0;
			n += feed(&t, reports[r] + cut, now, true, ev + n,
			    4 - n);
			assert_int_equal(n, 1);
			if (r == 1)
				want_click(&ev[0], 0, 0, false);
			else
				want_click(&ev[0], 36, 100, false);
			assert_false(termin_pending(&t));
		}
	}
}

static void
test_double(void **state)
{
	static const char click[] = "\033[<0;5;6M\033[<0;5;6m";
	struct termin t;
	struct termin_event ev[4];

	(void)state;
	termin_init(&t, DOUBLE_MS);
	assert_int_equal(feed(&t, click, 1000, true, ev, 4), 1);
	want_click(&ev[0], 5, 4, false);
	assert_int_equal(feed(&t, click, 1100, true, ev, 4), 1);
	want_click(&ev[0], 5, 4, true);
	/* A third starts the next pair. */
	assert_int_equal(feed(&t, click, 1150, true, ev, 4), 1);
	want_click(&ev[0], 5, 4, false);
	/* Too late, or another cell: single. */
	assert_int_equal(feed(&t, click, 2000, true, ev, 4), 1);
	want_click(&ev[0], 5, 4, false);
	assert_int_equal(feed(&t, "\033[<0;6;6M\033[<0;6;6m", 2050, true,
	    ev, 4), 1);
	want_click(&ev[0], 5, 5, false);
}

static void
test_keys(void **state)
{
	struct termin t;
	struct termin_event ev[8];

	(void)state;
	termin_init(&t, DOUBLE_MS);
	/* Keys as they come; a sequence nobody names (Ctrl-F12, its 2 and
	 * 4 would be tabs), Esc O with a letter and an Alt key: nothing. */
	assert_int_equal(feed(&t, "j\033[24;5~\033OX\0332k", 0, false, ev, 8),
	    2);
	assert_int_equal(ev[0].key, 'j');
	assert_int_equal(ev[1].key, 'k');
	/* A lone Esc is the key once nothing more comes; two are two. */
	assert_int_equal(feed(&t, "\033", 0, false, ev, 8), 0);
	assert_true(termin_pending(&t));
	assert_true(termin_idle(&t, &ev[0]));
	assert_int_equal(ev[0].kind, TERMIN_KEY);
	assert_int_equal(ev[0].key, 27);
	assert_int_equal(feed(&t, "\033\033", 0, false, ev, 8), 1);
	assert_int_equal(ev[0].key, 27);
	assert_true(termin_idle(&t, &ev[0]));
	assert_int_equal(ev[0].key, 27);
	assert_false(termin_idle(&t, &ev[0]));
	/* A curses key code after Esc or inside a sequence is kept. */
	assert_int_equal(feed(&t, "\033[<0;1", 0, false, ev, 8), 0);
	assert_true(termin_feed(&t, KEY_UP, 0, &ev[0]));
	assert_int_equal(ev[0].key, KEY_UP);
	assert_int_equal(feed(&t, "\033", 0, false, ev, 8), 0);
	assert_true(termin_feed(&t, KEY_RESIZE, 0, &ev[0]));
	assert_int_equal(ev[0].key, KEY_RESIZE);
	/* A control key inside a sequence: the sequence dropped, the key
	 * read. */
	assert_int_equal(feed(&t, "\033[<0;1\003", 0, false, ev, 8), 1);
	assert_int_equal(ev[0].key, 3);
}

static void
test_expire(void **state)
{
	struct termin t;
	struct termin_event ev[4];
	char big[128];

	(void)state;
	termin_init(&t, DOUBLE_MS);
	/* Begun, its rest never came: dropped, and what comes next is read
	 * afresh. */
	assert_int_equal(feed(&t, "\033[<0;10", 0, true, ev, 4), 0);
	assert_true(termin_pending(&t));
	assert_false(termin_idle(&t, &ev[0]));
	termin_expire(&t);
	assert_false(termin_pending(&t));
	assert_int_equal(feed(&t, "q", 0, true, ev, 4), 1);
	assert_int_equal(ev[0].key, 'q');
	/* Longer than is kept: dropped whole at its end. */
	snprintf(big, sizeof big, "\033[<0;%060d;1Mj", 1);
	assert_int_equal(feed(&t, big, 0, true, ev, 4), 1);
	assert_int_equal(ev[0].key, 'j');
	/* Numbers too big for a cell. */
	assert_int_equal(feed(&t, "\033[<0;99999999;1M\033[<0;99999999;1m",
	    0, true, ev, 4), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sgr),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_double),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_expire),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
