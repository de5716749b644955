/*
 * fuzz_lines.c: lines_next against a plain model of its contract, over a
 * memfd.  The first input byte picks the cap (1..64), the second the read
 * size (1..64), so lines meet read boundaries in every way; the rest is the
 * file.
 */
#include "calops.h"

#include <sys/mman.h>
#include <unistd.h>

#include "base/lines.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1;
static char path[64];

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text, *line, *nl;
	size_t cap, rsize, len, i, end, want, got;
	struct lines l;
	bool cut;

	if (size < 2)
		return 0;
	if (memfd == -1) {
		if ((memfd = memfd_create("fuzz_lines", MFD_CLOEXEC)) == -1)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
	}
	cap = 1 + data[0] % 64;
	rsize = 1 + data[1] % 64;
	text = (const char *)data + 2;
	len = size - 2;
	if (ftruncate(memfd, 0) == -1 ||
	    pwrite(memfd, text, len, 0) != (ssize_t)len)
		abort();
	if (lines_open(&l, path, cap) == -1)
		abort();
	l.size = rsize;

	/* The model: LF ends a line, one CR before the end goes, the last
	 * line may lack its LF, a line past the cap is cut to it. */
	for (i = 0; i < len; i = end + 1) {
		nl = memchr(text + i, '\n', len - i);
		end = nl != NULL ? (size_t)(nl - text) : len;
		want = end - i;
		if (want > 0 && text[i + want - 1] == '\r')
			want--;
		if (lines_next(&l, &line, &got, &cut) != 1)
			abort();
		if (cut != (want > cap) || got != (want > cap ? cap : want) ||
		    memcmp(line, text + i, got) != 0 || line[got] != '\0')
			abort();
	}
	if (lines_next(&l, &line, &got, &cut) != 0)
		abort();
	lines_close(&l);
	return 0;
}
