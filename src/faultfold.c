/* faultfold.c: fault results per chip folded into one line (faultfold.h). */
#include "calops.h"

#include <math.h>

#include "faultfold.h"

/* Runbook §11.3: what the real runner reports for each scenario. */
static const struct {
	const char	*scenario, *code;
} expected[] = {
	{ "missing-tensor", "CALRT_E_TENSOR_MISSING" },
	{ "bad-csr", "CALRT_E_CSR_INVALID" },
	{ "oob-slice", "CALRT_E_SLICE_OOB" },
	{ "kv-full", "CALRT_E_KV_FULL" },
	{ "submit-busy", "CALRT_E_SUBMIT_BUSY" },
	{ "wait-timeout", "CALRT_E_WAIT_TIMEOUT" },
	{ "ccu-exception", "CALRT_E_CCU_EXCEPTION" },
	{ "reset-warmup", "CALRT_E_DEVICE_RESET" },
};

static const char *const words[FO_COUNT] = {
	[FO_NEVER] = "never run",
	[FO_PENDING] = "pending",
	[FO_RUNNING] = "running",
	[FO_RECOVERED] = "recovered",
	[FO_NOT_RECOVERED] = "not recovered",
	[FO_CODE_MISMATCH] = "wrong error code",
	[FO_UNSTRUCTURED] = "unstructured",
	[FO_ABORTED] = "aborted",
};

const char *
faultfold_expected_code(const char *scenario)
{
	size_t i;

	for (i = 0; scenario != NULL && i < nitems(expected); i++)
		if (strcmp(expected[i].scenario, scenario) == 0)
			return expected[i].code;
	return NULL;
}

enum fold_outcome
faultfold_classify(const char *scenario, bool structured,
    const char *error_code, bool aborted, bool recovered)
{
	const char *want = faultfold_expected_code(scenario);

	if (aborted)
		return FO_ABORTED;
	if (!structured)
		return FO_UNSTRUCTURED;
	if (want != NULL && (error_code == NULL ||
	    strcmp(want, error_code) != 0))
		return FO_CODE_MISMATCH;
	return recovered ? FO_RECOVERED : FO_NOT_RECOVERED;
}

const char *
faultfold_word(enum fold_outcome o)
{
	return o < FO_COUNT ? words[o] : "?";
}

bool
faultfold_failed(enum fold_outcome o)
{
	return o >= FO_NOT_RECOVERED && o < FO_COUNT;
}

/* Append to buf at *off, keeping it NUL-terminated when it is full. */
static void PRINTFLIKE(4, 5)
cat(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off + 1 >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	*off = *off + (size_t)n >= len ? len - 1 : *off + (size_t)n;
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

char *
faultfold_ranges(const int *chips, size_t n, char *buf, size_t len)
{
	int *s;
	size_t i, j, off = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (n == 0)
		return buf;
	s = xreallocarray(NULL, n, sizeof *s);
	memcpy(s, chips, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_int);
	for (i = 0; i < n; i = j) {
		/* A run of consecutive chips, duplicates included. */
		for (j = i + 1; j < n && (s[j] == s[j - 1] ||
		    s[j] == s[j - 1] + 1); j++)
			;
		cat(buf, len, &off, "%s%d", i > 0 ? "," : "", s[i]);
		if (s[j - 1] != s[i])
			cat(buf, len, &off, "-%d", s[j - 1]);
	}
	free(s);
	return buf;
}

/* One group: its chips and word (with the recovery time or range). */
static void
format_group(const struct fold_cell *cells, size_t n, enum fold_outcome o,
    int *chips, char *buf, size_t len, size_t *off)
{
	char ranges[256], tlo[32], thi[32];
	double lo = INFINITY, hi = -INFINITY;
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (cells[i].outcome != o)
			continue;
		chips[k++] = cells[i].chip;
		if (isfinite(cells[i].recover_ms)) {
			lo = fmin(lo, cells[i].recover_ms);
			hi = fmax(hi, cells[i].recover_ms);
		}
	}
	faultfold_ranges(chips, k, ranges, sizeof ranges);
	cat(buf, len, off, k == 1 || strpbrk(ranges, ",-") == NULL ?
	    "chip%s %s" : "chip[%s] %s", ranges, words[o]);
	if (o != FO_RECOVERED || lo > hi)
		return;
	/* Fast recoveries (a CSR error: 4 ms) in milliseconds. */
	snprintf(tlo, sizeof tlo, "%.*f", hi < 1000 ? 0 : 1, hi < 1000 ? lo :
	    lo / 1000);
	snprintf(thi, sizeof thi, "%.*f", hi < 1000 ? 0 : 1, hi < 1000 ? hi :
	    hi / 1000);
	if (strcmp(tlo, thi) == 0)
		cat(buf, len, off, " %s %s", tlo, hi < 1000 ? "ms" : "s");
	else
		cat(buf, len, off, " %s-%s %s", tlo, thi, hi < 1000 ? "ms" :
		    "s");
}

char *
faultfold_format(const struct fold_cell *cells, size_t n, const char *sep,
    char *buf, size_t len)
{
	int first[FO_COUNT], *chips, o, best;
	bool done[FO_COUNT] = { false };
	size_t i, off = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (o = 0; o < FO_COUNT; o++)
		first[o] = INT_MAX;
	for (i = 0; i < n; i++)
		if (cells[i].outcome < FO_COUNT && cells[i].chip < first[
		    cells[i].outcome])
			first[cells[i].outcome] = cells[i].chip;
	chips = xreallocarray(NULL, n + 1, sizeof *chips);
	for (;;) {
		/* The group with the lowest chip not yet written. */
		for (best = -1, o = 0; o < FO_COUNT; o++)
			if (!done[o] && first[o] != INT_MAX && (best == -1 ||
			    first[o] < first[best]))
				best = o;
		if (best == -1)
			break;
		if (off > 0)
			cat(buf, len, &off, "%s", sep);
		format_group(cells, n, (enum fold_outcome)best, chips, buf, len,
		    &off);
		done[best] = true;
	}
	free(chips);
	return buf;
}
