/* sim_fault.c: `fault`, one failure injected and recovered (runbook §11.3). */
#include "calops.h"

#include <math.h>

#include "sim_common.h"

/* Each scenario: what is broken, where the runner notices, how long a
 * healthy runner takes to detect it and to recover. */
static const struct scenario {
	const char	*name;
	const char	*code;
	const char	*call;		/* the CalRT call that reports it */
	const char	*inject;
	const char	*recovery;
	double		 detect_ms, recover_ms;
} scenarios[] = {
	{ "missing-tensor", "CALRT_E_TENSOR_MISSING", "CreateCalbin",
	  "tensor 'decode/layers.7.mlp.down_proj.weight' dropped from the "
	  "calbin's tensor table",
	  "calbin rejected before any device allocation; device state clean",
	  3, 12 },
	{ "bad-csr", "CALRT_E_CSR_INVALID", "configure",
	  "cur_seq_len[0] written past past_kv_cur_seq_len[0] + 1",
	  "CSR rolled back to the last committed sequence length", 1, 4 },
	{ "oob-slice", "CALRT_E_SLICE_OOB", "buffer",
	  "KV slice requested past max_seq",
	  "request rejected; buffer pool intact", 1, 3 },
	{ "kv-full", "CALRT_E_KV_FULL", "KV",
	  "decode continued past the sequence's KV capacity",
	  "sequence released; its slot is reusable", 2, 9 },
	{ "submit-busy", "CALRT_E_SUBMIT_BUSY", "infer",
	  "submission to a full queue", "retried after backoff; accepted", 1, 2 },
	{ "wait-timeout", "CALRT_E_WAIT_TIMEOUT", "Wait",
	  "completion interrupt held past wait_ms 5000",
	  "job cancelled, queue drained, next request served", 5000, 5012 },
	{ "ccu-exception", "CALRT_E_CCU_EXCEPTION", "Wait",
	  "CCU exception raised on core 3 mid-decode",
	  "CCU reset, calbin reloaded, next request served", 40, 1840 },
	{ "reset-warmup", "CALRT_E_DEVICE_RESET", "infer",
	  "device reset mid-inference",
	  "device re-created, calbin reloaded, warmup passed", 25, 3275 },
};

static const struct scenario *
find_scenario(const char *name)
{
	size_t i;

	for (i = 0; i < nitems(scenarios); i++)
		if (strcmp(scenarios[i].name, name) == 0)
			return &scenarios[i];
	return NULL;
}

/* The outcome, as both the fault event and faults/<S>.json carry it. */
struct outcome {
	const char	*code;
	bool		 structured, aborted, recovered;
	double		 recover_ms;
};

/* Play the scenario on the simulated clock and decide its outcome. */
static void
play(struct sim *s, const struct scenario *sc, struct outcome *out)
{
	struct rng r;
	double ms;

	rng_init(&r, s->o.seed, sc->name);
	ms = s->o.recover_ms >= 0 ? s->o.recover_ms :
	    round(sc->recover_ms * (0.92 + 0.16 * rng_uniform(&r)));
	out->code = s->o.error_code != NULL ? s->o.error_code :
	    s->o.unstructured ? "" : sc->code;
	out->structured = !s->o.unstructured;
	out->aborted = s->o.abort_run;
	out->recovered = !s->o.abort_run && !s->o.no_recover;
	sim_log(s, "info", "inject %s: %s", sc->name, sc->inject);
	sim_advance_ms(s, fmin(sc->detect_ms, ms));
	if (out->structured)
		sim_log(s, "warn", "%s() returned %s", sc->call, out->code);
	else
		sim_log(s, "warn", "%s() returned -1 with no status record",
		    sc->call);
	if (out->aborted) {
		sim_log(s, "error", "runner called abort() after %s(): SIGABRT",
		    sc->call);
		out->recover_ms = 0;
		return;
	}
	/* A runner that never recovers gives up after three tries. */
	out->recover_ms = out->recovered ? ms : 3 * ms;
	sim_advance_ms(s, out->recover_ms - fmin(sc->detect_ms, ms));
	if (out->recovered)
		sim_log(s, "info", "recovered in %.0f ms: %s", ms, sc->recovery);
	else
		sim_log(s, "error", "no recovery after %.0f ms: the chip needs a "
		    "manual reset", out->recover_ms);
}

static json_t *
outcome_json(const struct sim *s, const struct scenario *sc,
    const struct outcome *out)
{
	return json_pack("{sssisbsssbsbsI}", "scenario", sc->name, "chip",
	    s->o.chips[0], "structured_error", out->structured, "error_code",
	    out->code, "aborted", out->aborted, "recovered", out->recovered,
	    "recover_ms", (json_int_t)out->recover_ms);
}

int
sim_fault(struct sim *s)
{
	const struct scenario *sc = find_scenario(s->o.scenario);
	char err[512], *path, *rel;
	json_t *doc, *ev, *summary;
	struct outcome out;
	struct tree t;
	int rc;

	if (sc == NULL)
		return sim_fail(s, "no fault scenario '%s' (runbook §11.3)",
		    s->o.scenario);
	if (sim_tree_hash(s, &t, err, sizeof err) == -1) {
		hashtree_release(&t);
		return sim_fail(s, "%s", err);
	}
	sim_log(s, "info", "CreateVDevice chip %d; CreateCalbin tree %.12s…",
	    s->o.chips[0], t.hex);
	play(s, sc, &out);
	doc = outcome_json(s, sc, &out);
	ev = sim_event(s, "fault");
	json_object_update(ev, doc);
	sim_emit(s, ev);
	json_object_set_new(doc, "calbin_tree_sha256", json_string(t.hex));
	path = s->o.output != NULL ? xstrdup(s->o.output) :
	    xasprintf("%s/06-runtime/faults/%s.json", s->ws, sc->name);
	rel = sim_relpath(s, path);
	if (sim_stopping)
		rc = sim_fail(s, "stopped by a signal; nothing written");
	else if (sim_mkparent(path, err, sizeof err) == -1 ||
	    sim_write_evidence(path, doc, err, sizeof err) == -1)
		rc = sim_fail(s, "%s", err);
	else {
		summary = json_deep_copy(doc);
		json_object_del(summary, "calbin_tree_sha256");
		rc = sim_result(s, out.structured && !out.aborted &&
		    out.recovered ? "pass" : "fail", summary, json_pack("[s]",
		    rel));
	}
	json_decref(doc);
	hashtree_release(&t);
	free(rel);
	free(path);
	return rc;
}
