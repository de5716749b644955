/*
 * bench_console_helper.c: run the console under a real pty and watch what it
 * writes, for tests/bench/bench_console.sh.
 *
 *   bench_console_helper startup COLS ROWS -- CALOPS [ARG…]
 *	Start the console in a COLS x ROWS pty and feed everything it writes
 *	to a small terminal emulator (enough of xterm for what ncurses sends
 *	with TERM=xterm-256color).  Prints, in ms since the fork:
 *	  first=T     the first frame: title row and status bar on screen
 *	  complete=T  the first complete board: a row for each of G0…G10 with
 *	              its status word, and "gates pass" in the status bar
 *	then sends 'Q' and waits for the console to end.
 *
 *   bench_console_helper frames COLS ROWS OUT -- CALOPS [ARG…]
 *	Run a console whose environment holds CALOPS_BENCH_FRAMES (the
 *	benchmark hook in views/app/app.c), time-stamp every read from the pty
 *	master, and when it has ended read OUT ("start_ns end_ns cells", then
 *	"paint_ns changed" per frame).  Prints the paint times, the changed
 *	share of the cells and the bytes read between start and end (+100 ms:
 *	the last frame's bytes are read just after the console's clock stops).
 *
 * Not a test: it prints numbers; the script compares them with targets.
 */
#define _GNU_SOURCE
#include <sys/ioctl.h>
#include <sys/wait.h>

#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#define TIMEOUT_MS 10000

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void
die(const char *what)
{
	fprintf(stderr, "bench_console_helper: %s: %s\n", what,
	    strerror(errno));
	exit(2);
}

/* ---- a terminal, just enough of xterm ---- */

static int rows, cols;
static wchar_t *cell;		/* rows*cols; 0 = right half of a wide char */
static int cy, cx, top, bot, sy, sx;
static bool wrapnext;
static wchar_t last = L' ';

static enum { GROUND, ESC, CSI, OSC, OSC_ESC, SKIP1 } state;
static char params[64];
static size_t nparams;
static bool private;
static unsigned char u8[4];
static int u8len, u8need;

#define AT(y, x) cell[(y) * cols + (x)]

static void
blank(int y, int x0, int x1)
{
	for (; x0 < x1 && x0 < cols; x0++)
		AT(y, x0) = L' ';
}

static void
scroll_up(int t, int b, int n)
{
	for (; n > 0; n--) {
		memmove(&AT(t, 0), &AT(t + 1, 0),
		    sizeof *cell * cols * (b - t));
		blank(b, 0, cols);
	}
}

static void
scroll_down(int t, int b, int n)
{
	for (; n > 0; n--) {
		memmove(&AT(t + 1, 0), &AT(t, 0),
		    sizeof *cell * cols * (b - t));
		blank(t, 0, cols);
	}
}

static void
linefeed(void)
{
	if (cy == bot)
		scroll_up(top, bot, 1);
	else if (cy < rows - 1)
		cy++;
}

static void
put(wchar_t wc)
{
	int w = wcwidth(wc);

	if (w < 1)
		w = 1;
	if (wrapnext || cx + w > cols) {
		cx = 0;
		linefeed();
		wrapnext = false;
	}
	AT(cy, cx) = wc;
	if (w == 2 && cx + 1 < cols)
		AT(cy, cx + 1) = 0;
	last = wc;
	cx += w;
	if (cx >= cols) {
		cx = cols - 1;
		wrapnext = true;
	}
}

static int
param(int i, int dflt)
{
	const char *p = params;
	int v;

	params[nparams] = '\0';
	while (i-- > 0 && (p = strchr(p, ';')) != NULL)
		p++;
	if (p == NULL || *p == '\0' || *p == ';')
		return dflt;
	v = (int)strtol(p, NULL, 10);
	return v == 0 ? dflt : v;
}

static int
clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void
csi(char f)
{
	int n = param(0, 1), i;

	if (private)
		return;		/* modes: ?1049h, ?25l, … */
	wrapnext = false;
	switch (f) {
	case 'A': cy = clamp(cy - n, 0, rows - 1); break;
	case 'B': cy = clamp(cy + n, 0, rows - 1); break;
	case 'C': cx = clamp(cx + n, 0, cols - 1); break;
	case 'D': cx = clamp(cx - n, 0, cols - 1); break;
	case 'E': cy = clamp(cy + n, 0, rows - 1); cx = 0; break;
	case 'F': cy = clamp(cy - n, 0, rows - 1); cx = 0; break;
	case 'G': case '`': cx = clamp(n - 1, 0, cols - 1); break;
	case 'd': cy = clamp(n - 1, 0, rows - 1); break;
	case 'H': case 'f':
		cy = clamp(param(0, 1) - 1, 0, rows - 1);
		cx = clamp(param(1, 1) - 1, 0, cols - 1);
		break;
	case 'J':
		n = param(0, 0);
		if (n == 0) {
			blank(cy, cx, cols);
			for (i = cy + 1; i < rows; i++)
				blank(i, 0, cols);
		} else if (n == 1) {
			for (i = 0; i < cy; i++)
				blank(i, 0, cols);
			blank(cy, 0, cx + 1);
		} else
			for (i = 0; i < rows; i++)
				blank(i, 0, cols);
		break;
	case 'K':
		n = param(0, 0);
		blank(cy, n == 0 ? cx : 0, n == 1 ? cx + 1 : cols);
		break;
	case 'X': blank(cy, cx, cx + n); break;
	case '@':
		n = clamp(n, 0, cols - cx);
		memmove(&AT(cy, cx + n), &AT(cy, cx),
		    sizeof *cell * (cols - cx - n));
		blank(cy, cx, cx + n);
		break;
	case 'P':
		n = clamp(n, 0, cols - cx);
		memmove(&AT(cy, cx), &AT(cy, cx + n),
		    sizeof *cell * (cols - cx - n));
		blank(cy, cols - n, cols);
		break;
	case 'L':
		if (cy >= top && cy <= bot)
			scroll_down(cy, bot, clamp(n, 0, bot - cy + 1));
		break;
	case 'M':
		if (cy >= top && cy <= bot)
			scroll_up(cy, bot, clamp(n, 0, bot - cy + 1));
		break;
	case 'S': scroll_up(top, bot, n); break;
	case 'T': scroll_down(top, bot, n); break;
	case 'b': for (i = 0; i < n; i++) put(last); break;
	case 'r':
		top = clamp(param(0, 1) - 1, 0, rows - 1);
		bot = clamp(param(1, rows) - 1, top, rows - 1);
		cy = cx = 0;
		break;
	case 's': sy = cy; sx = cx; break;
	case 'u': cy = sy; cx = sx; break;
	default: break;	/* m (colours), h/l, t, n, c: nothing to draw */
	}
}

static void
esc(unsigned char c)
{
	state = GROUND;
	wrapnext = false;
	switch (c) {
	case '[': state = CSI; nparams = 0; private = false; break;
	case ']': case 'P': case '_': case '^': state = OSC; break;
	case '(': case ')': case '*': case '+': case '#': state = SKIP1; break;
	case '7': sy = cy; sx = cx; break;
	case '8': cy = sy; cx = sx; break;
	case 'D': linefeed(); break;
	case 'E': cx = 0; linefeed(); break;
	case 'M':
		if (cy == top)
			scroll_down(top, bot, 1);
		else if (cy > 0)
			cy--;
		break;
	default: break;
	}
}

static void
feed(const unsigned char *p, size_t n)
{
	wchar_t wc;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = p[i];

		switch (state) {
		case ESC: esc(c); continue;
		case SKIP1: state = GROUND; continue;
		case OSC:
			if (c == 7)
				state = GROUND;
			else if (c == 27)
				state = OSC_ESC;
			continue;
		case OSC_ESC: state = c == '\\' ? GROUND : OSC; continue;
		case CSI:
			if (c >= 0x40 && c <= 0x7e) {
				state = GROUND;
				csi((char)c);
			} else if (c == '?' || c == '>' || c == '=' || c == '<')
				private = true;
			else if (((c >= '0' && c <= '9') || c == ';') &&
			    nparams + 1 < sizeof params)
				params[nparams++] = (char)c;
			continue;
		case GROUND: break;
		}
		if (c == 27) { state = ESC; u8need = 0; continue; }
		if (c < 0x20 || c == 0x7f) {
			if (c == '\r') { cx = 0; wrapnext = false; }
			else if (c == '\n' || c == 11 || c == 12) linefeed();
			else if (c == '\b' && cx > 0) {
				cx--;
				wrapnext = false;
			} else if (c == '\t')
				cx = clamp((cx / 8 + 1) * 8, 0, cols - 1);
			continue;
		}
		if (c < 0x80) { put(c); u8need = 0; continue; }
		if (u8need == 0) {
			u8len = 0;
			u8need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 :
			    c >= 0xc0 ? 2 : 1;
		}
		u8[u8len++] = c;
		if (u8len < u8need)
			continue;
		u8need = 0;
		if (mbtowc(&wc, (const char *)u8, (size_t)u8len) < 0)
			wc = L'?';
		put(wc);
	}
}

/* Row y as text, wide characters once. */
static void
row_text(int y, wchar_t *out)
{
	int x, n = 0;

	for (x = 0; x < cols; x++)
		if (AT(y, x) != 0)
			out[n++] = AT(y, x);
	out[n] = 0;
}

static bool
row_has(int y, const wchar_t *s)
{
	wchar_t buf[1024];

	row_text(y, buf);
	return wcsstr(buf, s) != NULL;
}

/* Title row and a status bar: ncurses has drawn a frame. */
static bool
first_frame(void)
{
	return row_has(0, L"calops") && (row_has(rows - 1, L"evaluating") ||
	    row_has(rows - 1, L"help"));
}

/* Every gate row with its status, and the board's status bar line. */
static bool
complete_board(void)
{
	static const wchar_t *const st[] = { L" pass", L" fail", L" stale",
	    L" blocked", L" pending" };
	wchar_t buf[1024], id[8];
	int g, y;
	size_t k;

	if (!row_has(rows - 1, L"gates pass"))
		return false;
	for (g = 0; g <= 10; g++) {
		swprintf(id, 8, L" G%d ", g);
		for (y = 1; y < rows - 1; y++) {
			row_text(y, buf);
			if (wcsncmp(buf, id, wcslen(id)) != 0)
				continue;
			for (k = 0; k < sizeof st / sizeof *st; k++)
				if (wcsstr(buf, st[k]) != NULL)
					break;
			if (k < sizeof st / sizeof *st)
				break;
		}
		if (y == rows - 1)
			return false;
	}
	/* The demo's last gate: "G10 … · pending". */
	for (y = 1; y < rows - 1; y++) {
		row_text(y, buf);
		if (wcsncmp(buf, L" G10 ", 5) == 0)
			return wcsstr(buf, L"pending") != NULL ||
			    getenv("BENCH_ANY_G10") != NULL;
	}
	return false;
}

/* ---- running the console ---- */

static pid_t
spawn(char **argv, int *master)
{
	struct winsize ws = { .ws_row = (unsigned short)rows,
	    .ws_col = (unsigned short)cols };
	pid_t pid = forkpty(master, NULL, NULL, &ws);

	if (pid == -1)
		die("forkpty");
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Read what is there; -1 at the end (EIO once the slave side is gone). */
static ssize_t
drain(int fd, unsigned char *buf, size_t len, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, ms) == 0)
		return 0;
	while ((n = read(fd, buf, len)) == -1 && errno == EINTR)
		;
	return n <= 0 ? -1 : n;
}

static int
finish(pid_t pid, int master)
{
	unsigned char buf[65536];
	int64_t give_up = now_ns() + 3000000000LL;
	int status;

	while (now_ns() < give_up && drain(master, buf, sizeof buf, 100) >= 0)
		if (waitpid(pid, &status, WNOHANG) == pid)
			goto done;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
done:
	close(master);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int
startup(char **argv)
{
	unsigned char buf[65536];
	int64_t t0, first = -1, complete = -1, t;
	ssize_t n;
	int master;
	pid_t pid;

	cell = calloc((size_t)rows * cols, sizeof *cell);
	top = 0;
	bot = rows - 1;
	for (n = 0; n < (ssize_t)rows * cols; n++)
		cell[n] = L' ';
	t0 = now_ns();
	pid = spawn(argv, &master);
	while (complete < 0 && now_ns() - t0 < TIMEOUT_MS * 1000000LL) {
		if ((n = drain(master, buf, sizeof buf, 100)) < 0)
			break;
		t = now_ns();
		feed(buf, (size_t)n);
		if (first < 0 && first_frame())
			first = t - t0;
		if (complete_board())
			complete = t - t0;
	}
	(void)!write(master, "Q", 1);
	finish(pid, master);
	if (complete < 0) {
		fprintf(stderr, "bench_console_helper: no complete board in "
		    "%d ms; the screen was:\n", TIMEOUT_MS);
		for (n = 0; n < rows; n++) {
			wchar_t line[1024];

			row_text((int)n, line);
			fprintf(stderr, "|%ls\n", line);
		}
		return 1;
	}
	printf("first=%.2f complete=%.2f\n", first / 1e6, complete / 1e6);
	return 0;
}

static int
cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int
frames(const char *out, char **argv)
{
	unsigned char buf[65536];
	int64_t *rt = NULL, *rn = NULL, start, end, *ns = NULL, sum = 0;
	long long s, e, pn;
	size_t nr = 0, cap = 0, nf = 0, fcap = 0, i;
	long ch, cmin = -1, cmax = 0;
	double csum = 0;
	unsigned long long bytes = 0, total = 0;
	int master, ncells, rc;
	ssize_t n;
	pid_t pid;
	FILE *f;

	unlink(out);
	pid = spawn(argv, &master);
	for (;;) {
		if ((n = drain(master, buf, sizeof buf, 20000)) <= 0)
			break;
		if (nr == cap) {
			cap = cap ? cap * 2 : 4096;
			rt = realloc(rt, cap * sizeof *rt);
			rn = realloc(rn, cap * sizeof *rn);
		}
		rt[nr] = now_ns();
		rn[nr++] = n;
	}
	rc = finish(pid, master);
	if ((f = fopen(out, "r")) == NULL ||
	    fscanf(f, "%lld %lld %d", &s, &e, &ncells) != 3) {
		fprintf(stderr, "bench_console_helper: no results in '%s' "
		    "(console exit %d)\n", out, rc);
		return 1;
	}
	start = s;
	end = e + 100000000LL;
	while (fscanf(f, "%lld %ld", &pn, &ch) == 2) {
		if (nf == fcap) {
			fcap = fcap ? fcap * 2 : 1024;
			ns = realloc(ns, fcap * sizeof *ns);
		}
		ns[nf++] = pn;
		sum += pn;
		csum += (double)ch;
		cmin = cmin < 0 || ch < cmin ? ch : cmin;
		cmax = ch > cmax ? ch : cmax;
	}
	fclose(f);
	for (i = 0; i < nr; i++) {
		total += (unsigned long long)rn[i];
		if (rt[i] > start && rt[i] <= end)
			bytes += (unsigned long long)rn[i];
	}
	if (nf == 0)
		return 1;
	qsort(ns, nf, sizeof *ns, cmp64);
	printf("frames=%zu mean_ms=%.4f p50_ms=%.4f p99_ms=%.4f max_ms=%.4f "
	    "changed=%.4f changed_min=%.4f changed_max=%.4f "
	    "bytes_per_frame=%.0f bytes_total=%llu wall_ms=%.4f\n", nf,
	    (double)sum / (double)nf / 1e6, ns[nf / 2] / 1e6,
	    ns[(size_t)((double)nf * 0.99) < nf ? (size_t)((double)nf * 0.99) :
	    nf - 1] / 1e6, ns[nf - 1] / 1e6, csum / (double)nf / ncells,
	    (double)cmin / ncells, (double)cmax / ncells,
	    (double)bytes / (double)nf, total,
	    (double)(e - s) / (double)nf / 1e6);
	return 0;
}

int
main(int argc, char **argv)
{
	setlocale(LC_ALL, "C.UTF-8");
	signal(SIGPIPE, SIG_IGN);
	if (argc < 5)
		goto usage;
	cols = (int)strtol(argv[2], NULL, 10);
	rows = (int)strtol(argv[3], NULL, 10);
	if (cols < 20 || rows < 5 || cols > 1000 || rows > 1000)
		goto usage;
	if (strcmp(argv[1], "startup") == 0 && strcmp(argv[4], "--") == 0 &&
	    argc > 5)
		return startup(argv + 5);
	if (strcmp(argv[1], "frames") == 0 && argc > 6 &&
	    strcmp(argv[5], "--") == 0)
		return frames(argv[4], argv + 6);
usage:
	fprintf(stderr, "usage: bench_console_helper startup COLS ROWS -- "
	    "CALOPS [ARG...]\n"
	    "       bench_console_helper frames COLS ROWS OUT -- CALOPS "
	    "[ARG...]\n");
	return 2;
}
