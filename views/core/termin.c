/* termin.c: keys and mouse reports from getch() values (see termin.h). */
#include "calops.h"

#include <limits.h>

#include "views/core/termin.h"

#define ESC	27

void
termin_init(struct termin *t, int double_ms)
{
	memset(t, 0, sizeof *t);
	t->click_ms = INT64_MIN;
	t->double_ms = double_ms;
}

static void
hold(struct termin *t, int key)
{
	if (t->nheld < TERMIN_HELD)
		t->held[t->nheld++] = key;
	else
		t->overlong = true;
}

static void
drop(struct termin *t)
{
	t->nheld = 0;
	t->overlong = false;
}

static bool
key_event(int key, struct termin_event *ev)
{
	memset(ev, 0, sizeof *ev);
	ev->kind = TERMIN_KEY;
	ev->key = key;
	return true;
}

/*
 * A report of button state b at cell (y, x) (0-based): the wheel steps at
 * once; button 1 clicks when it is let go (on the cell it went down on, as
 * ncurses's BUTTON1_CLICKED); motion, other buttons and modifiers mean
 * nothing here.
 */
static bool
report(struct termin *t, int b, int y, int x, bool release, int64_t now,
    struct termin_event *ev)
{
	if (y < 0 || x < 0 || (b & 32))
		return false;
	memset(ev, 0, sizeof *ev);
	if (b & 64) {
		if ((b & 3) > 1 || release)
			return false;
		ev->kind = TERMIN_WHEEL;
		ev->wheel = (b & 3) == 0 ? -1 : 1;
		return true;
	}
	if (!release) {
		t->pressed = (b & 3) == 0;
		t->press_y = y;
		t->press_x = x;
		return false;
	}
	if (!t->pressed)
		return false;
	t->pressed = false;
	ev->kind = TERMIN_CLICK;
	ev->y = t->press_y;
	ev->x = t->press_x;
	ev->twice = t->click_ms != INT64_MIN && now - t->click_ms <=
	    t->double_ms && t->click_y == ev->y && t->click_x == ev->x;
	/* A third click starts the next pair. */
	t->click_ms = ev->twice ? INT64_MIN : now;
	t->click_y = ev->y;
	t->click_x = ev->x;
	return true;
}

/* The numbers of a CSI's parameters held from index from: exactly n of
 * them, decimal, split by ';'. */
static bool
params(const struct termin *t, size_t from, int *v, size_t n)
{
	size_t i, k = 0;
	bool digit = false;

	v[0] = 0;
	for (i = from; i < t->nheld; i++) {
		if (t->held[i] == ';' && digit && k + 1 < n) {
			v[++k] = 0;
			digit = false;
		} else if (t->held[i] >= '0' && t->held[i] <= '9' &&
		    v[k] < 100000) {
			v[k] = v[k] * 10 + t->held[i] - '0';
			digit = true;
		} else
			return false;
	}
	return digit && k + 1 == n;
}

/* A CSI ended by final: an SGR (1006) or urxvt (1015) mouse report, or a
 * sequence ncurses did not know, dropped. */
static bool
csi_done(struct termin *t, int final, int64_t now, struct termin_event *ev)
{
	int v[3];
	bool r = false;

	if (t->overlong)
		r = false;
	else if (t->nheld > 2 && t->held[2] == '<' && (final == 'M' ||
	    final == 'm') && params(t, 3, v, 3))
		r = report(t, v[0], v[2] - 1, v[1] - 1, final == 'm', now, ev);
	else if (final == 'M' && params(t, 2, v, 3) && v[0] >= 32)
		r = report(t, v[0] - 32, v[2] - 1, v[1] - 1, (v[0] & 3) == 3,
		    now, ev);
	drop(t);
	return r;
}

/* Esc [ M and three bytes: an X10 (1000) report, each value plus 32. */
static bool
x10_done(struct termin *t, int64_t now, struct termin_event *ev)
{
	int b = t->held[3] - 32, x = t->held[4] - 33, y = t->held[5] - 33;

	drop(t);
	return b >= 0 && report(t, b, y, x, (b & 3) == 3, now, ev);
}

bool
termin_feed(struct termin *t, int key, int64_t now_ms,
    struct termin_event *ev)
{
	if (t->nheld == 0) {
		if (key != ESC)
			return key_event(key, ev);
		hold(t, key);
		return false;
	}
	if (t->nheld == 1) {
		/* Two Escs are two: the first is a key. */
		if (key == ESC)
			return key_event(ESC, ev);
		if (key == '[' || key == 'O') {
			hold(t, key);
			return false;
		}
		/* Esc and a key at once: an Alt key, nothing here; a curses
		 * key code (an arrow, a resize) is kept. */
		drop(t);
		return key > 0xff ? termin_feed(t, key, now_ms, ev) : false;
	}
	/* Esc O and its letter: a key ncurses did not know. */
	if (t->held[1] == 'O' && key <= 0xff) {
		drop(t);
		return false;
	}
	if (t->held[1] == '[' && t->nheld >= 3 && t->held[2] == 'M' &&
	    key <= 0xff) {
		hold(t, key);
		return t->nheld == 6 ? x10_done(t, now_ms, ev) : false;
	}
	if (t->held[1] == '[' && key >= 0x40 && key <= 0x7e) {
		if (key == 'M' && t->nheld == 2) {
			hold(t, key);
			return false;
		}
		return csi_done(t, key, now_ms, ev);
	}
	if (t->held[1] == '[' && key >= 0x20 && key <= 0x3f) {
		hold(t, key);
		return false;
	}
	/* Not part of a sequence (a control key, a curses key code): what
	 * was held is dropped, the key is read afresh. */
	drop(t);
	return termin_feed(t, key, now_ms, ev);
}

bool
termin_idle(struct termin *t, struct termin_event *ev)
{
	if (t->nheld != 1)
		return false;
	drop(t);
	return key_event(ESC, ev);
}

bool
termin_pending(const struct termin *t)
{
	return t->nheld > 0;
}

void
termin_expire(struct termin *t)
{
	drop(t);
}
