/* g03_opsupport.c: G3, the op support gap table (runbook §7). */
#include "calops.h"

#include "base/csv.h"
#include "engine/artifact.h"
#include "engine/gate.h"
#include "engine/query.h"

#define TABLE "02-onnx/op-support.csv"
#define INVENTORY "02-onnx/op-inventory.json"

enum col {
	C_NODE, C_OP, C_DOMAIN, C_OPSET, C_SHAPES, C_DTYPES, C_QUANT,
	C_SUPPORT, C_LOWERING, C_KERNEL, C_FALLBACK, C_OWNER, C_BLOCKING,
	C_COUNT
};

static const char *const header[C_COUNT] = {
	"node_name", "op_type", "domain", "opset", "input_shapes", "dtypes",
	"quant", "support(C0-C4)", "lowering", "kernel", "fallback", "owner",
	"blocking_issue",
};

static const char *const lowerings[] = {
	"direct", "fuse", "decompose", "custom", "cpu_fallback", "unsupported",
};

static void
row_finding(struct gate_result *gr, const char *check, const struct csv_row *r,
    size_t rowno, const char *fmt, ...) PRINTFLIKE(5, 6);

static void
row_finding(struct gate_result *gr, const char *check, const struct csv_row *r,
    size_t rowno, const char *fmt, ...)
{
	char where[48], *msg;
	va_list ap;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	snprintf(where, sizeof where, "row %zu", rowno);
	(void)r;
	gate_add(gr, SEV_ERROR, check, TABLE, where, "%s", msg);
	free(msg);
}

static bool
check_header(struct gate_result *gr, const struct csv *c)
{
	const struct csv_row *h = &c->rows[0];
	size_t i;

	if (h->nfields != C_COUNT)
		goto bad;
	for (i = 0; i < C_COUNT; i++) {
		if (strcmp(h->fields[i], header[i]) == 0)
			continue;
		if (i == C_SUPPORT && strcmp(h->fields[i], "support") == 0)
			continue;
		goto bad;
	}
	return true;
bad:
	gate_add(gr, SEV_ERROR, "G3.csv", TABLE, "row 1",
	    "the header is not the runbook §7 header (node_name,op_type,...,"
	    "blocking_issue)");
	return false;
}

static bool
one_of(const char *s, const char *const *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(s, set[i]) == 0)
			return true;
	return false;
}

static void
check_row(struct gate_result *gr, const struct csv_row *r, size_t rowno)
{
	static const char *const supports[] = { "C0", "C1", "C2", "C3", "C4" };
	const char *lowering;

	if (r->nfields != C_COUNT) {
		row_finding(gr, "G3.csv", r, rowno, "%zu fields, the header has %d",
		    r->nfields, C_COUNT);
		return;
	}
	if (r->fields[C_OP][0] == '\0')
		row_finding(gr, "G3.csv", r, rowno, "op_type is empty");
	if (!one_of(r->fields[C_SUPPORT], supports, nitems(supports)))
		row_finding(gr, "G3.csv", r, rowno,
		    "support '%s' is not one of C0..C4", r->fields[C_SUPPORT]);
	lowering = r->fields[C_LOWERING];
	if (!one_of(lowering, lowerings, nitems(lowerings))) {
		row_finding(gr, "G3.csv", r, rowno, "lowering '%s' is not one of "
		    "direct fuse decompose custom cpu_fallback unsupported",
		    lowering);
		return;
	}
	if (strcmp(lowering, "unsupported") == 0)
		row_finding(gr, "G3.unsupported", r, rowno,
		    "node '%s' (%s) is unsupported; blocking issue: %s",
		    r->fields[C_NODE], r->fields[C_OP],
		    r->fields[C_BLOCKING][0] != '\0' ? r->fields[C_BLOCKING] :
		    "(none named)");
	if (strcmp(lowering, "cpu_fallback") == 0 &&
	    r->fields[C_FALLBACK][0] == '\0')
		row_finding(gr, "G3.fallback", r, rowno,
		    "node '%s' falls back to the CPU with no measured cost in "
		    "'fallback': no silent fallback", r->fields[C_NODE]);
	if ((strcmp(lowering, "custom") == 0 ||
	    strcmp(lowering, "cpu_fallback") == 0 ||
	    strcmp(lowering, "unsupported") == 0) &&
	    r->fields[C_OWNER][0] == '\0')
		row_finding(gr, "G3.row_owner", r, rowno,
		    "node '%s' (%s lowering) has no owner", r->fields[C_NODE],
		    lowering);
}

static bool
has_row(const struct csv *c, const char *op)
{
	size_t j;

	for (j = 1; j < c->nrows; j++)
		if (c->rows[j].nfields == C_COUNT &&
		    strcmp(c->rows[j].fields[C_OP], op) == 0)
			return true;
	return false;
}

/*
 * Every op_type of the inventory has at least one row.  G2.op_inventory
 * reports what is wrong with the inventory; an entry whose op_type cannot
 * be read leaves the check unjudged (workspace.md §2), never quietly held.
 */
static void
check_coverage(struct gate_result *gr, const struct csv *c)
{
	const struct artifact *inv;
	const char *op;
	char where[64], *ptr;
	size_t i, unread = 0, first = 0;
	json_t *e;

	inv = artifact_input(gr, INVENTORY, "G3.coverage");
	if (inv == NULL)
		return;
	if (!json_is_array(inv->doc.root)) {
		gate_skip(gr, "G3.coverage", INVENTORY, "", "check skipped: "
		    "its input '%s' is not an array", INVENTORY);
		return;
	}
	if (query_empty(gr, "G3.coverage", inv, inv->doc.root, "",
	    "'%s' lists no operator", INVENTORY))
		return;
	gate_judged(gr, "G3.coverage", NULL);
	json_array_foreach(inv->doc.root, i, e) {
		op = json_string_value(json_object_get(e, "op_type"));
		if (op == NULL && unread++ == 0)
			first = i;
		else if (op != NULL && !has_row(c, op))
			gate_add(gr, SEV_ERROR, "G3.coverage", TABLE, "",
			    "op_type '%s' of the op inventory has no row", op);
	}
	if (unread > 0) {
		ptr = doc_ptr_index("", first);
		gate_skip(gr, "G3.coverage", INVENTORY, doc_where(&inv->doc, ptr,
		    where, sizeof where), "check skipped: %zu entr%s of its "
		    "input '%s' without a string op_type", unread,
		    unread == 1 ? "y" : "ies", INVENTORY);
		free(ptr);
	}
}

/* The row rules judge every row: a table of a header alone judged none
 * (workspace.md §6, v3), and each says so. */
static void
judge_rows(struct gate_result *gr, size_t nrows)
{
	static const char *const checks[] = { "G3.csv", "G3.unsupported",
	    "G3.fallback", "G3.row_owner" };
	size_t i;

	for (i = 0; i < nitems(checks); i++) {
		if (nrows > 0)
			gate_judged(gr, checks[i], NULL);
		else
			gate_skip(gr, checks[i], TABLE, "", "nothing to "
			    "judge: the table has no row below its header");
	}
}

void
g03_opsupport(struct eval *ev, struct gate_result *gr)
{
	const struct artifact *a = artifact_raw(gr, TABLE);
	char msg[256], where[32];
	struct csv c;
	size_t i, line = 0, nrows = 0;

	(void)ev;
	if (a == NULL)
		return;
	if (csv_parse(&c, a->data, a->size, msg, sizeof msg, &line) != 0) {
		snprintf(where, sizeof where, "%zu:1", line);
		gate_add(gr, SEV_ERROR, "G3.parse", TABLE, where, "%s", msg);
		return;
	}
	if (c.nrows == 0 || !check_header(gr, &c)) {
		if (c.nrows == 0)
			gate_add(gr, SEV_ERROR, "G3.csv", TABLE, "row 1",
			    "the table is empty");
		csv_release(&c);
		return;
	}
	for (i = 1; i < c.nrows; i++) {
		if (c.rows[i].nfields == 1 && c.rows[i].fields[0][0] == '\0')
			continue;	/* a blank line */
		check_row(gr, &c.rows[i], i + 1);
		nrows++;
	}
	judge_rows(gr, nrows);
	check_coverage(gr, &c);
	csv_release(&c);
}
