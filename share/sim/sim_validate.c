/*
 * sim_validate.c: `validate`, a stand-in for the package validator of
 * runbook §10 (`ruby calculet_package_validate.rb --full-hash --output
 * 05-calbin/validation.json 05-calbin/package`), so that G6's lab job can
 * run without the vendor's tool: every file of the package hashed, the
 * listing written to 05-calbin/file-sha256.txt as sha256sum writes it,
 * and validation.json with the tree hash, chip_nums and the findings
 * (none, or the one --finding asks for) in the shape G6 reads
 * (workspace.md G6).
 */
#include "calops.h"

#include "base/buf.h"
#include "base/fileio.h"
#include "sim_common.h"
#include "ws/hashtree.h"

/* The listing of the package's files, as G6.hashes reads it. */
static int
write_listing(struct sim *s, const struct tree *t, char *err, size_t len)
{
	char *path = xasprintf("%s/05-calbin/file-sha256.txt", s->ws);
	struct buf b = BUF_INIT;
	size_t i;
	int rc = 0;

	buf_init(&b, 256u << 20);
	for (i = 0; i < t->nfiles && rc == 0; i++)
		if (hashtree_line(&b, t->files[i].hash.hex, t->files[i].path,
		    "", false) != 0) {
			errbuf_set(err, len, "the listing is too long");
			rc = -1;
		}
	if (rc == 0 && fileio_replace(path, b.data != NULL ? b.data : "",
	    b.len, 0644, true, err, len) != 0)
		rc = -1;
	buf_release(&b);
	free(path);
	return rc;
}

int
sim_validate(struct sim *s)
{
	char err[512], *out, *rel;
	json_t *summary, *findings, *v;
	struct tree t;
	int e = 0, w = 0, b = 0, rc;

	/* main() has located the workspace and started the clock. */
	sim_log(s, "info", "validating %s", s->calbin);
	if (sim_tree_hash(s, &t, err, sizeof err) != 0) {
		hashtree_release(&t);
		return sim_fail(s, "%s", err);
	}
	findings = json_array();
	if (s->o.finding_level != NULL) {
		json_array_append_new(findings, json_pack("{s:s, s:s, s:s, s:s}",
		    "level", s->o.finding_level, "code", s->o.finding_code,
		    "file", t.nfiles > 0 ? t.files[0].path : "",
		    "message", "reported as asked (calrt-sim validate "
		    "--finding)"));
		e = strcmp(s->o.finding_level, "ERROR") == 0;
		w = strcmp(s->o.finding_level, "WARN") == 0;
		b = strcmp(s->o.finding_level, "BLOCKED_REPRODUCIBILITY") == 0;
	}
	summary = json_pack("{s:i, s:i, s:i}", "ERROR", e, "WARN", w,
	    "BLOCKED_REPRODUCIBILITY", b);
	v = json_pack("{s:s, s:i, s:o, s:o}", "package_tree_sha256", t.hex,
	    "chip_nums", (int)s->o.chip_nums, "summary", summary, "findings",
	    findings);
	out = s->o.output != NULL ? xstrdup(s->o.output) :
	    xasprintf("%s/05-calbin/validation.json", s->ws);
	rc = write_listing(s, &t, err, sizeof err);
	if (rc == 0)
		rc = sim_write_evidence(out, v, err, sizeof err);
	json_decref(v);
	if (rc != 0) {
		free(out);
		hashtree_release(&t);
		return sim_fail(s, "%s", err);
	}
	sim_log(s, "info", "%zu files, tree %s", t.nfiles, t.hex);
	rel = sim_relpath(s, out);
	rc = sim_result(s, e > 0 || b > 0 ? "fail" : "pass", json_pack(
	    "{s:i, s:i, s:i}", "ERROR", e, "WARN", w, "BLOCKED_REPRODUCIBILITY",
	    b), json_pack("[s, s]", rel, "05-calbin/file-sha256.txt"));
	free(rel);
	free(out);
	hashtree_release(&t);
	return rc;
}
