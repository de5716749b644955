/* csv.c: an RFC 4180 reader (see csv.h). */
#include "calops.h"

#include "base/buf.h"
#include "base/csv.h"
#include "base/doc.h"
#include "base/text.h"

#define CSV_MAX_FIELD (1u << 20)

void
csv_release(struct csv *c)
{
	size_t i, j;

	for (i = 0; i < c->nrows; i++) {
		for (j = 0; j < c->rows[i].nfields; j++)
			free(c->rows[i].fields[j]);
		free(c->rows[i].fields);
	}
	free(c->rows);
	c->rows = NULL;
	c->nrows = c->cap = c->cost = 0;
}

static void
end_field(struct csv *c, struct csv_row *r, struct buf *f)
{
	c->cost += CSV_FIELD_COST + f->len;
	r->fields = xreallocarray(r->fields, r->nfields + 1, sizeof *r->fields);
	r->fields[r->nfields++] = buf_detach(f, NULL);
	buf_init(f, CSV_MAX_FIELD);
}

static void
end_row(struct csv *c, struct csv_row *r)
{
	if (c->nrows == c->cap) {
		c->cap = c->cap > 0 ? 2 * c->cap : 64;
		c->rows = xreallocarray(c->rows, c->cap, sizeof *c->rows);
	}
	c->cost += CSV_ROW_COST;
	c->rows[c->nrows++] = *r;
	memset(r, 0, sizeof *r);
}

/* Parse one field starting at *i; on return *i is at the separator. */
static int
parse_field(const char *d, size_t len, size_t *i, size_t *line, struct buf *f,
    char *err, size_t errlen, size_t *errline)
{
	size_t start_line = *line;

	if (*i < len && d[*i] == '"') {
		for ((*i)++;; (*i)++) {
			if (*i >= len) {
				errbuf_set(err, errlen, "unterminated quoted field");
				*errline = start_line;
				return -1;
			}
			if (d[*i] == '"') {
				if (*i + 1 < len && d[*i + 1] == '"')
					(*i)++;
				else {
					(*i)++;
					break;
				}
			} else if (d[*i] == '\n')
				(*line)++;
			else if (d[*i] == '\0')
				goto nul;
			if (buf_addc(f, d[*i]) != 0)
				goto toolong;
		}
		if (*i < len && d[*i] != ',' && d[*i] != '\n' &&
		    !(d[*i] == '\r' && *i + 1 < len && d[*i + 1] == '\n') &&
		    !(d[*i] == '\r' && *i + 1 == len)) {
			errbuf_set(err, errlen, "text after a closing quote");
			*errline = *line;
			return -1;
		}
		return 0;
	}
	for (; *i < len && d[*i] != ',' && d[*i] != '\n'; (*i)++) {
		if (d[*i] == '\r' && (*i + 1 == len || d[*i + 1] == '\n'))
			break;
		if (d[*i] == '"') {
			errbuf_set(err, errlen, "quote inside an unquoted field");
			*errline = *line;
			return -1;
		}
		if (d[*i] == '\0')
			goto nul;
		if (buf_addc(f, d[*i]) != 0)
			goto toolong;
	}
	return 0;
toolong:
	errbuf_set(err, errlen, "field longer than %u bytes", CSV_MAX_FIELD);
	*errline = start_line;
	return -1;
nul:
	/* Fields are C strings: a NUL would cut one short unseen. */
	errbuf_set(err, errlen, "a NUL byte inside a field");
	*errline = *line;
	return -1;
}

int
csv_parse(struct csv *c, const char *d, size_t len, char *err, size_t errlen,
    size_t *errline)
{
	struct csv_row row;
	struct buf f;
	size_t i = text_bom_len(d, len), line = 1;
	size_t budget = doc_tree_budget(len);

	memset(c, 0, sizeof *c);
	memset(&row, 0, sizeof row);
	buf_init(&f, CSV_MAX_FIELD);
	while (i < len) {
		if (row.nfields == 0)
			row.line = line;
		if (parse_field(d, len, &i, &line, &f, err, errlen,
		    errline) != 0)
			goto fail;
		end_field(c, &row, &f);
		if (c->cost > budget) {
			errbuf_set(err, errlen, "table would take more than %zu "
			    "MiB in memory, the most calops keeps for a file of "
			    "its size: refused", budget >> 20);
			*errline = line;
			goto fail;
		}
		if (i < len && d[i] == ',') {
			i++;
			if (i == len)	/* "a," ends on an empty field */
				end_field(c, &row, &f);
			continue;
		}
		if (i < len && d[i] == '\r')
			i++;
		if (i < len && d[i] == '\n')
			i++, line++;
		end_row(c, &row);
	}
	if (row.nfields > 0)
		end_row(c, &row);
	buf_release(&f);
	return 0;
fail:
	buf_release(&f);
	for (i = 0; i < row.nfields; i++)
		free(row.fields[i]);
	free(row.fields);
	csv_release(c);
	return -1;
}
