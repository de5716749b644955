/*
 * fuzz_csv.c: csv_parse on anything.  A table either parses, with rows
 * starting on lines that never go back, or fails with a message and the
 * line of the problem.
 */
#include "calops.h"

#include "base/csv.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct csv c;
	char err[256] = "";
	size_t errline = 0, i, j, lines = 1, last = 0;

	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (csv_parse(&c, (const char *)data, size, err, sizeof err,
	    &errline) != 0) {
		if (c.rows != NULL || err[0] == '\0' || errline == 0 ||
		    errline > lines)
			abort();
		return 0;
	}
	for (i = 0; i < c.nrows; i++) {
		if (c.rows[i].nfields == 0 || c.rows[i].line <= last ||
		    c.rows[i].line > lines)
			abort();
		last = c.rows[i].line;
		for (j = 0; j < c.rows[i].nfields; j++)
			if (c.rows[i].fields[j] == NULL)
				abort();
	}
	csv_release(&c);
	return 0;
}
