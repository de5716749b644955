/* g06_package.c: G6, static validation of the calbin package (runbook §10). */
#include "calops.h"

#include "base/text.h"
#include "engine/artifact.h"
#include "engine/gate.h"
#include "engine/query.h"
#include "ws/hashtree.h"

#define VALIDATION "05-calbin/validation.json"
#define LISTING "05-calbin/file-sha256.txt"
#define PACKAGE "05-calbin/package"

static const char *const levels[] = { "ERROR", "WARN",
    "BLOCKED_REPRODUCIBILITY" };

/* Surface each validator finding as ours; count them per level. */
static void
surface_findings(struct gate_result *gr, const struct artifact *a,
    json_t *list, json_int_t counts[3])
{
	const char *level, *code, *file, *msg;
	json_t *f;
	size_t i, k;
	char *ptr;

	json_array_foreach(list, i, f) {
		ptr = doc_ptr_index("/findings", i);
		level = json_string_value(json_object_get(f, "level"));
		code = json_string_value(json_object_get(f, "code"));
		file = json_string_value(json_object_get(f, "file"));
		msg = json_string_value(json_object_get(f, "message"));
		for (k = 0; level != NULL && k < nitems(levels); k++)
			if (strcmp(level, levels[k]) == 0)
				break;
		if (level == NULL || k == nitems(levels)) {
			query_gate_at(gr, SEV_ERROR, "G6.errors", a, ptr,
			    "validator finding has no level ERROR, WARN or "
			    "BLOCKED_REPRODUCIBILITY");
			free(ptr);
			continue;
		}
		counts[k]++;
		query_gate_at(gr,
		    k == 0	 ? SEV_ERROR
			: k == 1 ? SEV_WARN
				 : SEV_BLOCKED,
		    k == 2 ? "G6.repro" : "G6.errors", a, ptr, "%s %s%s%s: %s",
		    level, code != NULL ? code : "?",
		    file != NULL ? " in " : "", file != NULL ? file : "",
		    msg != NULL ? msg : "");
		free(ptr);
	}
}

static void
check_summary(struct gate_result *gr, const struct artifact *a, json_t *root)
{
	json_t *sum = query_object(gr, "G6.errors", a, root, "", "summary");
	json_t *list = query_array(gr, "G6.errors", a, root, "", "findings");
	json_int_t want[3], got[3] = { 0, 0, 0 };
	bool have[3];
	size_t k;

	if (list != NULL)
		surface_findings(gr, a, list, got);
	if (sum == NULL)
		return;
	for (k = 0; k < nitems(levels); k++)
		have[k] = query_int(gr, k == 2 ? "G6.repro" : "G6.errors", a,
		    sum, "/summary", levels[k], &want[k]);
	if (have[0] && want[0] != 0)
		query_gate_at(gr, SEV_ERROR, "G6.errors", a, "/summary/ERROR",
		    "the validator reports %lld error(s)", (long long)want[0]);
	if (have[2] && want[2] != 0)
		query_gate_at(gr, SEV_BLOCKED, "G6.repro", a,
		    "/summary/BLOCKED_REPRODUCIBILITY", "%lld reproducibility "
		    "finding(s) block the package", (long long)want[2]);
	for (k = 0; list != NULL && k < nitems(levels); k++)
		if (have[k] && want[k] != got[k])
			query_gate_at(gr, SEV_ERROR, "G6.errors", a, "/summary",
			    "summary says %lld %s but findings list %lld",
			    (long long)want[k], levels[k], (long long)got[k]);
}

/* One line of file-sha256.txt: "<hex>  <path>", or a line of sha256sum's
 * escaped form, "\\<hex>  <path>" (hashtree_parse_line()). */
static const struct tree_entry *
listing_line(struct gate_result *gr, const struct tree *t, char *line,
    size_t lineno, unsigned char *seen)
{
	char where[32], *hex, *path;
	const char *why;
	size_t lo = 0, hi = t->nfiles, mid;
	int c;

	snprintf(where, sizeof where, "%zu:1", lineno);
	if ((why = hashtree_parse_line(line, &hex, &path)) != NULL) {
		gate_add(gr, SEV_ERROR, "G6.hashes", LISTING, where, "%s", why);
		return NULL;
	}
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(path, t->files[mid].path);
		if (c == 0) {
			if (seen[mid]++)
				gate_add(gr, SEV_ERROR, "G6.hashes", LISTING,
				    where, "'%s' is listed twice",
				    t->files[mid].path);
			else if (strcmp(hex, t->files[mid].hash.hex) != 0)
				gate_add(gr, SEV_ERROR, "G6.hashes", LISTING,
				    where, "'%s' has sha256 %.12s…, the listing "
				    "says %.12s…", t->files[mid].path,
				    t->files[mid].hash.hex, hex);
			return &t->files[mid];
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	gate_add(gr, SEV_ERROR, "G6.hashes", LISTING, where,
	    "'%s' is listed but not in package/", path);
	return NULL;
}

static void
check_listing(struct gate_result *gr, const struct tree *t)
{
	const struct artifact *a;
	unsigned char *seen;
	char *copy, *line, *save = NULL;
	size_t i, lineno = 0;

	if ((a = artifact_raw_needed(gr, LISTING, "G6.hashes", SEV_ERROR,
	    "file-sha256.txt is missing")) == NULL)
		return;
	seen = xcalloc(t->nfiles + 1, 1);
	i = text_bom_len(a->data, a->size);
	copy = xstrndup(a->data + i, a->size - i);
	for (line = copy; line != NULL; line = save) {
		save = strchr(line, '\n');
		if (save != NULL)
			*save++ = '\0';
		lineno++;
		if (line[0] == '\0' && save == NULL)
			break;
		listing_line(gr, t, line, lineno, seen);
	}
	for (i = 0; i < t->nfiles; i++)
		if (!seen[i])
			gate_add(gr, SEV_ERROR, "G6.hashes", LISTING, "",
			    "'%s' of package/ is not listed", t->files[i].path);
	free(copy);
	free(seen);
}

/*
 * A link of package/ the tree walk could not show to stay inside: the
 * workspace's own resolution tells a loop and a dangling link from one
 * that leads out, and each is said for what it is (all fail G6.path: the
 * package would not be what its listing says).
 */
static void
link_not_inside(struct gate_result *gr, const struct tree_link *l)
{
	char *rel = xasprintf("%s/%s", PACKAGE, l->path), msg[320];
	struct stat st;
	const char *why;

	switch (workspace_locate(&gr->ev->ws, rel, &st, msg, sizeof msg)) {
	case WS_LOOP:
		why = "is a symlink loop (or a chain of links too deep to "
		    "follow)";
		break;
	case WS_ABSENT:
		why = "dangles: nothing is there";
		break;
	default:
		why = "leads outside the workspace";
		break;
	}
	gate_add(gr, SEV_ERROR, "G6.path", PACKAGE, "", "symbolic link '%s' "
	    "-> '%s' %s", l->path, l->target, why);
	free(rel);
}

static void
check_package(struct gate_result *gr, const struct artifact *a, json_t *root)
{
	const struct tree *t;
	const char *want;
	char msg[320];
	size_t i;

	if ((t = artifact_tree(gr, PACKAGE, msg, sizeof msg)) == NULL) {
		gate_add(gr, SEV_ERROR, "G6.hashes", PACKAGE, "", "%s", msg);
		return;
	}
	for (i = 0; i < t->nlinks; i++)
		if (t->links[i].outside)
			link_not_inside(gr, &t->links[i]);
	check_listing(gr, t);
	/* A listing of no file matches an empty package, and judges nothing
	 * (workspace.md §6, v3). */
	if (t->nfiles == 0)
		gate_skip(gr, "G6.hashes", PACKAGE, "", "nothing to judge: "
		    "package/ holds no regular file to list");
	gate_judged(gr, "G6.bound", NULL);
	want = query_str(gr, "G6.bound", a, root, "", "package_tree_sha256");
	if (want != NULL && strcmp(want, t->hex) != 0)
		query_gate_at(gr, SEV_STALE, "G6.bound", a,
		    "/package_tree_sha256",
		    "package/ changed since validation (tree now %.12s…, "
		    "validated %.12s…): re-run the validator",
		    t->hex, want);
}

void
g06_package(struct eval *ev, struct gate_result *gr)
{
	const struct artifact *a = artifact_doc(gr, VALIDATION);
	json_int_t chips;

	if (a == NULL)
		return;
	if (!json_is_object(a->doc.root)) {
		query_gate_at(
		    gr, SEV_ERROR, "G6.parse", a, "", "not a JSON object");
		return;
	}
	/* The validator's fields are required, package/ too (G6.hashes). */
	gate_judged(gr, "G6.errors", "G6.repro", "G6.hashes", "G6.single_chip",
	    NULL);
	check_summary(gr, a, a->doc.root);
	if (query_int(gr, "G6.single_chip", a, a->doc.root, "", "chip_nums",
	    &chips)) {
		if (!ev->src.have_targets)
			gate_skip(gr, "G6.single_chip",
			    "00-source/source-manifest.json", "/targets/chips",
			    "check skipped: G0's targets are missing or invalid");
		else if (ev->src.all_chips_one && chips != 1)
			query_gate_at(gr, SEV_ERROR, "G6.single_chip", a,
			    "/chip_nums",
			    "every target is single-chip but the package has "
			    "chip_nums %lld: a single-chip calbin must come from "
			    "the vendor compiler (runbook §1)",
			    (long long)chips);
	}
	check_package(gr, a, a->doc.root);
}
