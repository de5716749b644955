/*
 * csv.h: RFC 4180 CSV (quoted fields, "" escapes, CRLF or LF record ends,
 * line breaks inside quotes).  The whole text is parsed at once: CSV
 * artifacts here are tables of operators, not streams.
 *
 * A struct csv owns its rows and fields; csv_release frees them.
 */
#ifndef CALOPS_CSV_H
#define CALOPS_CSV_H

#include "calops.h"

struct csv_row {
	char	**fields;
	size_t	  nfields;
	size_t	  line;		/* the line the record starts on, 1-based */
};

struct csv {
	struct csv_row	*rows;	/* rows[0] is the header when there is one */
	size_t		 nrows;
	size_t		 cap;	/* rows allocated */
	size_t		 cost;	/* bytes the table takes, as costed below */
};

/* What a field and a row cost in memory beside a field's bytes (an
 * allocation and its pointer; a row's record and field array), measured;
 * a table past doc_tree_budget() of its text is refused as it is read,
 * as a document is (doc.h). */
#define CSV_FIELD_COST	88
#define CSV_ROW_COST	128

/* Returns 0, or -1 with a message and the line of the problem. */
int	csv_parse(struct csv *c, const char *data, size_t len, char *err,
	    size_t errlen, size_t *errline);
void	csv_release(struct csv *c);

#endif
