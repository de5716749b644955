/* sim_fault.c: `fault`, one failure injected and recovered (runbook §11.3). */
#include "calops.h"

#include <math.h>

#include "proto/scenario.h"
#include "sim_common.h"
#include "ws/hashtree.h"

/* How each scenario of proto/scenario.h plays on a simulated chip: what is
 * broken, where the runner notices, how long a healthy runner takes to
 * detect it and to recover.  Its name and error code are the table's. */
static const struct play {
	const char	*call;		/* the CalRT call that reports it */
	const char	*inject;
	const char	*recovery;
	double		 detect_ms, recover_ms;
} plays[SCENARIO_COUNT] = {
	[SCENARIO_MISSING_TENSOR] = { "CreateCalbin",
	  "tensor 'decode/layers.7.mlp.down_proj.weight' dropped from the "
	  "calbin's tensor table",
	  "calbin rejected before any device allocation; device state clean",
	  3, 12 },
	[SCENARIO_BAD_CSR] = { "configure",
	  "cur_seq_len[0] written past past_kv_cur_seq_len[0] + 1",
	  "CSR rolled back to the last committed sequence length", 1, 4 },
	[SCENARIO_OOB_SLICE] = { "buffer", "KV slice requested past max_seq",
	  "request rejected; buffer pool intact", 1, 3 },
	[SCENARIO_KV_FULL] = { "KV",
	  "decode continued past the sequence's KV capacity",
	  "sequence released; its slot is reusable", 2, 9 },
	[SCENARIO_SUBMIT_BUSY] = { "infer", "submission to a full queue",
	  "retried after backoff; accepted", 1, 2 },
	[SCENARIO_WAIT_TIMEOUT] = { "Wait",
	  "completion interrupt held past wait_ms 5000",
	  "job cancelled, queue drained, next request served", 5000, 5012 },
	[SCENARIO_CCU_EXCEPTION] = { "Wait",
	  "CCU exception raised on core 3 mid-decode",
	  "CCU reset, calbin reloaded, next request served", 40, 1840 },
	[SCENARIO_RESET_WARMUP] = { "infer", "device reset mid-inference",
	  "device re-created, calbin reloaded, warmup passed", 25, 3275 },
};

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
	const struct play *pl = &plays[sc - scenario_table];
	struct rng r;
	double ms;

	rng_init(&r, s->o.seed, sc->name);
	ms = s->o.recover_ms >= 0 ? s->o.recover_ms :
	    round(pl->recover_ms * (0.92 + 0.16 * rng_uniform(&r)));
	out->code = s->o.error_code != NULL ? s->o.error_code :
	    s->o.unstructured ? "" : sc->code;
	out->structured = !s->o.unstructured;
	out->aborted = s->o.abort_run;
	out->recovered = !s->o.abort_run && !s->o.no_recover;
	sim_log(s, "info", "inject %s: %s", sc->name, pl->inject);
	sim_advance_ms(s, fmin(pl->detect_ms, ms));
	if (out->structured)
		sim_log(s, "warn", "%s() returned %s", pl->call, out->code);
	else
		sim_log(s, "warn", "%s() returned -1 with no status record",
		    pl->call);
	if (out->aborted) {
		sim_log(s, "error", "runner called abort() after %s(): SIGABRT",
		    pl->call);
		out->recover_ms = 0;
		return;
	}
	/* A runner that never recovers gives up after three tries. */
	out->recover_ms = out->recovered ? ms : 3 * ms;
	sim_advance_ms(s, out->recover_ms - fmin(pl->detect_ms, ms));
	if (out->recovered)
		sim_log(s, "info", "recovered in %.0f ms: %s", ms, pl->recovery);
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
	const struct scenario *sc = scenario_find(s->o.scenario);
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
