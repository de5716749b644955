/*
 * test_labmodel.c: the console's lab model (src/lab/labmodel.c, labstream.c)
 * starting again from what an earlier console left in
 * $XDG_STATE_HOME/calops/streams: a soak's and a fault's mirrors replayed
 * into the model (metrics, fault results, progress, end state), the bad
 * lines of a mirror (garbage, a repeated seq, a line cut by a crash) counted
 * and dropped, the cut line cut off the file so that appending goes on from
 * a whole line, a corrupt job record reported through the warn hook and the
 * other jobs kept, and the exact commands built from the lab's runner.
 */
#include "calops.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "base/buf.h"
#include "base/fileio.h"
#include "lab/labcmd.h"
#include "lab/labmodel.h"
#include "lab/labmodel_int.h"
#include "lab/labpoll.h"
#include "lab/labstream.h"
#include "loop/loop.h"
#include "metrics/metrics.h"
#include "metrics/metricsview.h"
#include "proto/event.h"
#include "proto/hostcmd.h"
#include "remote/lab.h"
#include "remote/transport.h"

static char tmpdir[] = "/tmp/calops-labmodel.XXXXXX";
static char warned[512];
static int nwarn;

static void
put(const char *rel, const char *text)
{
	char *path = xasprintf("%s/calops/streams/%s", tmpdir, rel);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(path);
}

static void
on_warn(struct labmodel *lm, const char *msg, void *arg)
{
	(void)lm;
	(void)arg;
	snprintf(warned, sizeof warned, "%s", msg);
	nwarn++;
}

static void
stop(struct loop *l, void *arg)
{
	(void)arg;
	loop_stop(l);
}

static const char soak_meta[] =
    "{\"v\":1,\"id\":\"soak1\",\"host\":\"local\",\"kind\":\"soak\","
    "\"gate\":9,\"chip\":-1,\"chips\":[0,1],\"target_s\":3600,"
    "\"command\":\"calrt-sim stress\",\"label\":\"soak 1h\","
    "\"started\":1000,\"sla\":{\"ttft_ms_p99\":1500,\"tpot_ms_p99\":60,"
    "\"success_rate_min\":0.995}}";

static const char fault_meta[] =
    "{\"v\":1,\"id\":\"fault1\",\"host\":\"local\",\"kind\":\"fault\","
    "\"gate\":7,\"chip\":2,\"chips\":[2],\"target_s\":0,"
    "\"scenario\":\"kv-full\",\"command\":\"calrt-sim fault\","
    "\"label\":\"fault kv-full\",\"started\":2000}";

/* Four good events, garbage, a repeat, the end, then a line cut short. */
static const char soak_mirror[] =
    "{\"v\":1,\"seq\":1,\"ts\":100,\"type\":\"hello\",\"tool\":\"calops\"}\n"
    "{\"v\":1,\"seq\":2,\"ts\":100,\"type\":\"metric\",\"chip\":0,"
    "\"values\":{\"ttft_ms\":200,\"request_ok\":1}}\n"
    "not json at all\n"
    "{\"v\":1,\"seq\":3,\"ts\":160,\"type\":\"metric\",\"chip\":1,"
    "\"values\":{\"ttft_ms\":300,\"request_ok\":1}}\n"
    "{\"v\":1,\"seq\":3,\"ts\":160,\"type\":\"metric\",\"chip\":1,"
    "\"values\":{\"ttft_ms\":999,\"request_ok\":0}}\n"
    "{\"v\":1,\"seq\":4,\"ts\":170,\"type\":\"progress\",\"phase\":\"soak\","
    "\"done\":70,\"total\":3600,\"unit\":\"s\"}\n"
    "{\"v\":1,\"seq\":5,\"ts\":171,\"type\":\"end\",\"exit_code\":0}\n"
    "{\"v\":1,\"seq\":6,\"ts\":172,\"ty";

static const char fault_mirror[] =
    "{\"v\":1,\"seq\":1,\"ts\":5,\"type\":\"hello\"}\n"
    "{\"v\":1,\"seq\":2,\"ts\":6,\"type\":\"fault\",\"scenario\":\"kv-full\","
    "\"chip\":2,\"error_code\":\"CALRT_E_KV_FULL\",\"structured_error\":true,"
    "\"aborted\":false,\"recovered\":true,\"recover_ms\":9.5}\n"
    "{\"v\":1,\"seq\":3,\"ts\":7,\"type\":\"end\",\"signal\":15}\n";

/* Outcome records in the action log. */
static int
count_outcomes(void)
{
	char *path = xasprintf("%s/calops/actions.jsonl", tmpdir), line[4096];
	FILE *f = fopen(path, "r");
	int n = 0;

	free(path);
	if (f == NULL)
		return 0;
	while (fgets(line, sizeof line, f) != NULL)
		n += strstr(line, "\"outcome\"") != NULL;
	fclose(f);
	return n;
}

/* A state folder of the test's own (dir a mkdtemp template) with the local
 * host's streams folder; returns the XDG_STATE_HOME to go back to. */
static char *
private_state(char *dir)
{
	char *old = xstrdup(getenv("XDG_STATE_HOME")), *p, err[256];

	assert_non_null(mkdtemp(dir));
	setenv("XDG_STATE_HOME", dir, 1);
	p = xasprintf("%s/calops/streams/local", dir);
	assert_int_equal(fileio_make_dirs(p, 0700, err, sizeof err), 0);
	free(p);
	return old;
}

static void
end_private_state(const char *dir, char *old)
{
	fileio_remove_tree(dir);
	setenv("XDG_STATE_HOME", old, 1);
	free(old);
}

/* Write text (freed here) as a local host's file under state dir dir. */
static void
put_in(const char *dir, const char *name, char *text)
{
	char *path = xasprintf("%s/calops/streams/local/%s", dir, name);
	char err[256];

	assert_int_equal(fileio_replace(path, text, strlen(text), 0600, false,
	    err, sizeof err), 0);
	free(path);
	free(text);
}

/*
 * Two fault jobs on one cell: the older ended with its result, the newer
 * is still running with its own.  A restart replays the unfinished one
 * first, yet the newer job's result is the latest, as it was live.
 */
static void
test_fault_order(void **state)
{
	const char *text = "hosts:\n  - {name: local, transport: local, "
	    "chips: [2]}\n";
	const char meta[] = "{\"v\":1,\"id\":\"%s\",\"host\":\"local\","
	    "\"kind\":\"fault\",\"gate\":7,\"chip\":2,\"chips\":[2],"
	    "\"target_s\":0,\"scenario\":\"kv-full\",\"command\":\"x\","
	    "\"label\":\"fault kv-full\",\"started\":%d}";
	/* hello, the result (ts, aborted), and the end when asked. */
	const char mirror[] = "{\"v\":1,\"seq\":1,\"ts\":1,\"type\":"
	    "\"hello\"}\n{\"v\":1,\"seq\":2,\"ts\":%d,\"type\":\"fault\","
	    "\"scenario\":\"kv-full\",\"chip\":2,\"error_code\":"
	    "\"CALRT_E_KV_FULL\",\"structured_error\":true,\"aborted\":%s,"
	    "\"recovered\":true,\"recover_ms\":1}\n%s";
	const char end[] = "{\"v\":1,\"seq\":3,\"ts\":901,\"type\":\"end\","
	    "\"exit_code\":0}\n";
	const struct labmodel_cb cb = { .warn = on_warn };
	char dir[] = "/tmp/calops-faultorder.XXXXXX", err[512];
	char *old_state;
	struct labmodel *lm;
	struct loop *l;
	struct lab lab;
	size_t n;

	(void)state;
	old_state = private_state(dir);
	/* The older job: ended, aborted (at a later ts of the tool's clock);
	 * the newer one: still running, recovered. */
	put_in(dir, "fault-old.json", xasprintf(meta, "fault-old", 3000));
	put_in(dir, "fault-old.jsonl", xasprintf(mirror, 900, "true", end));
	put_in(dir, "fault-new.json", xasprintf(meta, "fault-new", 4000));
	put_in(dir, "fault-new.jsonl", xasprintf(mirror, 5, "false", ""));

	assert_int_equal(lab_parse(&lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);
	l = loop_new();
	lm = labmodel_new(l, &lab, "/nonexistent/calops", &cb, err,
	    sizeof err);
	assert_non_null(lm);
	loop_add_timer(l, 200, stop, NULL);
	loop_run(l);
	n = labmodel_nfaults(lm);
	assert_int_equal(n, 2);
	assert_string_equal(labmodel_fault(lm, 0)->job, "fault-old");
	assert_true(labmodel_fault(lm, 0)->aborted);
	assert_string_equal(labmodel_fault(lm, n - 1)->job, "fault-new");
	assert_false(labmodel_fault(lm, n - 1)->aborted);
	labmodel_free(lm);
	loop_free(l);
	lab_release(&lab);
	end_private_state(dir, old_state);
}

/* Files of a job in state dir dir that exist, of .json, .jsonl, .acks. */
static int
files_of(const char *dir, const char *id)
{
	static const char *const exts[] = { "json", "jsonl", "acks" };
	char *path;
	int i, n = 0;

	for (i = 0; i < 3; i++) {
		path = xasprintf("%s/calops/streams/local/%s.%s", dir, id,
		    exts[i]);
		n += access(path, F_OK) == 0;
		free(path);
	}
	return n;
}

/*
 * The files of ended jobs past the LAB_JOBS_MAX newest go when a console
 * starts; an unfinished job's stay however old it is, and a watching
 * console removes nothing.
 */
static void
test_old_files_go(void **state)
{
	const char *text = "hosts:\n  - {name: local, transport: local}\n";
	const char meta[] = "{\"v\":1,\"id\":\"old%02d\",\"host\":\"local\","
	    "\"kind\":\"golden\",\"gate\":7,\"chip\":-1,\"chips\":[0],"
	    "\"target_s\":0,\"command\":\"x\",\"label\":\"golden\","
	    "\"started\":%d,\"outcome_logged\":true}";
	const char unlogged[] = "{\"v\":1,\"id\":\"old99\",\"host\":"
	    "\"local\",\"kind\":\"golden\",\"gate\":7,\"chip\":-1,\"chips\":"
	    "[0],\"target_s\":0,\"command\":\"x\",\"label\":\"golden\","
	    "\"started\":%d}";
	const char ended[] = "{\"v\":1,\"seq\":1,\"ts\":1,\"type\":\"hello\"}\n"
	    "{\"v\":1,\"seq\":2,\"ts\":2,\"type\":\"end\",\"exit_code\":0}\n";
	const struct labmodel_cb cb = { .warn = on_warn };
	char dir[] = "/tmp/calops-oldfiles.XXXXXX", err[512], *p, id[16];
	char *old_state;
	struct labmodel *lm, *watcher;
	struct loop *l;
	struct lab lab;
	int i, lockfd, n = LAB_JOBS_MAX + 3;

	(void)state;
	old_state = private_state(dir);
	/* old00 is the oldest and still running; old01 … ended. */
	for (i = 0; i < n; i++) {
		snprintf(id, sizeof id, "old%02d", i);
		p = xasprintf("%s.json", id);
		put_in(dir, p, xasprintf(meta, i, 1000 + i));
		free(p);
		p = xasprintf("%s.jsonl", id);
		put_in(dir, p, xstrdup(i == 0 ? "{\"v\":1,\"seq\":1,\"ts\":1,"
		    "\"type\":\"hello\"}\n" : ended));
		free(p);
		p = xasprintf("%s.acks", id);
		put_in(dir, p, xstrdup(""));
		free(p);
	}
	/* A copy of old10's record under another name, older than all: it
	 * is not a record of its own, and must not stand for old10 (whose
	 * files would go with it). */
	put_in(dir, "copy.json", xasprintf(meta, 10, 999));
	/* The oldest ended job, its outcome not logged yet (a console died
	 * between mirroring its end and logging it). */
	put_in(dir, "old99.json", xasprintf(unlogged, 500));
	put_in(dir, "old99.jsonl", xstrdup(ended));
	assert_int_equal(lab_parse(&lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);
	l = loop_new();
	/* While another console holds the lock, a watching one removes
	 * nothing. */
	p = xasprintf("%s/calops/streams/.lock", dir);
	lockfd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	free(p);
	assert_true(lockfd != -1 && flock(lockfd, LOCK_EX) == 0);
	watcher = labmodel_new(l, &lab, "/nonexistent/calops", &cb, err,
	    sizeof err);
	assert_true(labmodel_watching(watcher));
	labmodel_free(watcher);
	close(lockfd);
	for (i = 0; i < n; i++) {
		snprintf(id, sizeof id, "old%02d", i);
		assert_int_equal(files_of(dir, id), 3);
	}
	lm = labmodel_new(l, &lab, "/nonexistent/calops", &cb, err,
	    sizeof err);
	assert_non_null(lm);
	assert_false(labmodel_watching(lm));
	loop_add_timer(l, 100, stop, NULL);
	loop_run(l);
	/* old00 (running) and the newest 63 ended ones are shown; the
	 * three oldest ended ones are not, and their files are gone.  old99
	 * is shown until its replay has logged its outcome. */
	assert_int_equal(labmodel_njobs(lm), LAB_JOBS_MAX + 1);
	assert_int_equal(files_of(dir, "old00"), 3);
	for (i = 1; i <= 3; i++) {
		snprintf(id, sizeof id, "old%02d", i);
		assert_int_equal(files_of(dir, id), 0);
	}
	for (i = 4; i < n; i++) {
		snprintf(id, sizeof id, "old%02d", i);
		assert_int_equal(files_of(dir, id), 3);
	}
	assert_int_equal(files_of(dir, "old99"), 2);	/* no acks */
	p = xasprintf("%s/calops/streams/local/copy.json", dir);
	assert_int_equal(access(p, F_OK), 0);
	free(p);
	labmodel_free(lm);
	/* Its outcome logged, the next start removes old99's files. */
	lm = labmodel_new(l, &lab, "/nonexistent/calops", &cb, err,
	    sizeof err);
	assert_int_equal(labmodel_njobs(lm), LAB_JOBS_MAX);
	assert_int_equal(files_of(dir, "old99"), 0);
	labmodel_free(lm);
	loop_free(l);
	lab_release(&lab);
	end_private_state(dir, old_state);
}

/* labmirror_ended() on a file of these bytes (n of them). */
static bool
ended_with(const char *bytes, size_t n)
{
	char *path = xasprintf("%s/ended.jsonl", tmpdir), err[256];
	bool ended;

	assert_int_equal(fileio_replace(path, bytes, n, 0600, false, err,
	    sizeof err), 0);
	ended = labmirror_ended(path);
	free(path);
	return ended;
}

/* Whether a mirror ends with the job's end, whatever a crash left after
 * it and however long its lines are. */
static void
test_mirror_ended(void **state)
{
	const char hello[] = "{\"v\":1,\"seq\":1,\"ts\":1,\"type\":\"hello\"}\n";
	const char end[] = "{\"v\":1,\"seq\":2,\"ts\":2,\"type\":\"end\","
	    "\"exit_code\":0}\n";
	struct buf b;
	size_t i;

	(void)state;
	assert_false(ended_with("", 0));
	assert_false(ended_with(hello, strlen(hello)));
	buf_init(&b, 256 << 10);
	buf_add(&b, hello, strlen(hello));
	buf_add(&b, end, strlen(end));
	assert_true(ended_with(b.data, b.len));
	/* A line cut by a crash after the end. */
	buf_add(&b, "{\"v\":1,\"seq\":3,", 15);
	assert_true(ended_with(b.data, b.len));
	assert_false(ended_with(b.data, strlen(hello) + 20));
	/* An end near the longest event, then 20 KiB a crash cut: more
	 * than one event's length from the file's end to the end's start. */
	buf_reset(&b);
	buf_add(&b, hello, strlen(hello));
	buf_adds(&b, "{\"v\":1,\"seq\":2,\"ts\":2,\"type\":\"end\","
	    "\"exit_code\":0,\"note\":\"");
	for (i = 0; i < EVENT_LINE_MAX - 200; i++)
		buf_addc(&b, 'x');
	buf_adds(&b, "\"}\n");
	for (i = 0; i < 20000; i++)
		buf_addc(&b, 'y');
	assert_true(ended_with(b.data, b.len));
	/* A last line longer than any event is not an end. */
	buf_reset(&b);
	buf_add(&b, hello, strlen(hello));
	for (i = 0; i < EVENT_LINE_MAX + 100; i++)
		buf_addc(&b, 'z');
	buf_add(&b, end, strlen(end) - 1);
	buf_addc(&b, '\n');
	assert_false(ended_with(b.data, b.len));
	/* Garbage with no LF at all, longer than an event. */
	buf_reset(&b);
	for (i = 0; i < 3 * EVENT_LINE_MAX; i++)
		buf_addc(&b, 'q');
	assert_false(ended_with(b.data, b.len));
	buf_release(&b);
}

static int
setup(void **state)
{
	char *dir;

	(void)state;
	assert_non_null(mkdtemp(tmpdir));
	setenv("XDG_STATE_HOME", tmpdir, 1);
	dir = xasprintf("%s/calops", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	free(dir);
	dir = xasprintf("%s/calops/streams", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	free(dir);
	dir = xasprintf("%s/calops/streams/local", tmpdir);
	assert_int_equal(mkdir(dir, 0700), 0);
	free(dir);
	put("local/soak1.json", soak_meta);
	put("local/soak1.jsonl", soak_mirror);
	put("local/fault1.json", fault_meta);
	put("local/fault1.jsonl", fault_mirror);
	put("local/broken.json", "{\"v\":1, \"id\": ");
	return 0;
}

static void
test_replay(void **state)
{
	const struct labmodel_cb cb = { .warn = on_warn };
	struct loop *l = loop_new();
	struct labmodel *lm;
	struct lab lab;
	struct ljob *soak, *fault;
	const struct lfault *f;
	struct mseries *s;
	struct mcell tot;
	struct stat st;
	char err[512], *path;

	(void)state;
	assert_int_equal(lab_parse(&lab, "hosts:\n  - {name: local, "
	    "transport: local, chips: [0, 1, 2]}\nworkspaces:\n  - {host: "
	    "local, path: /srv/ws}\nrunner: calrt-sim --time-scale 3000\n",
	    strlen("hosts:\n  - {name: local, transport: local, chips: [0, 1, "
	    "2]}\nworkspaces:\n  - {host: local, path: /srv/ws}\nrunner: "
	    "calrt-sim --time-scale 3000\n"), "lab.yaml", err, sizeof err), 0);
	lm = labmodel_new(l, &lab, "/nonexistent/calops", &cb, err,
	    sizeof err);
	assert_non_null(lm);
	/* The corrupt record is said, not fatal. */
	assert_int_equal(nwarn, 1);
	assert_non_null(strstr(warned, "broken.json"));
	loop_add_timer(l, 200, stop, NULL);
	loop_run(l);

	/* Newest first: the fault (started 2000), then the soak (1000). */
	assert_int_equal(labmodel_njobs(lm), 2);
	fault = labmodel_job(lm, 0);
	soak = labmodel_job(lm, 1);
	assert_string_equal(fault->id, "fault1");
	assert_int_equal(fault->state, LJ_KILLED);
	assert_int_equal(fault->sig, 15);
	assert_string_equal(soak->id, "soak1");
	assert_int_equal(soak->state, LJ_DONE);
	assert_int_equal(soak->exit_code, 0);
	assert_int_equal(soak->last_seq, 5);
	assert_int_equal(soak->events, 5);
	assert_int_equal(soak->bad_lines, 2);	/* garbage, the repeat */
	assert_false(soak->replaying);
	assert_true(soak->done == 70 && soak->total == 3600);
	assert_true(soak->first_ts == 100 && soak->last_ts == 160);
	assert_ptr_equal(labmodel_latest(lm, LJOB_SOAK, NULL), soak);
	assert_null(labmodel_gate_job(lm, 9, NULL, NULL));	/* it ended */

	/* The metrics of the soak, the repeated seq's sample not among them. */
	s = metrics_find(soak->metrics, "local", 1, "ttft_ms");
	assert_non_null(s);
	metricsview_series_totals(s, &tot);
	assert_int_equal(tot.count, 1);
	assert_true(tot.max == 300);

	/* The fault's structured result. */
	assert_int_equal(labmodel_nfaults(lm), 1);
	f = labmodel_fault(lm, 0);
	assert_string_equal(f->scenario, "kv-full");
	assert_string_equal(f->error_code, "CALRT_E_KV_FULL");
	assert_int_equal(f->chip, 2);
	assert_true(f->structured && f->recovered && !f->aborted);
	assert_true(fabs(f->recover_ms - 9.5) < 1e-9);

	/* The cut line is gone from the mirror: it ends with a whole line. */
	path = xasprintf("%s/calops/streams/local/soak1.jsonl", tmpdir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal((size_t)st.st_size, strlen(soak_mirror) -
	    strlen("{\"v\":1,\"seq\":6,\"ts\":172,\"ty"));
	free(path);

	labmodel_free(lm);

	/* Both outcomes reached the action log once, and are not logged
	 * again by the next console. */
	assert_int_equal(count_outcomes(), 2);
	lm = labmodel_new(l, &lab, "/nonexistent/calops", &cb, err,
	    sizeof err);
	loop_add_timer(l, 200, stop, NULL);
	loop_run(l);
	labmodel_free(lm);
	assert_int_equal(count_outcomes(), 2);
	lab_release(&lab);
	loop_free(l);
}

/* The exact commands: the runner's own options after its command, the
 * package under the host's workspace, a fault on the chip asked. */
static void
test_commands(void **state)
{
	const struct labmodel_cb cb = { .warn = on_warn };
	struct ljob_spec spec = { .host = "local" };
	struct loop *l = loop_new();
	struct labmodel *lm;
	struct lab lab;
	char err[512], cmd[4096];
	const char *text = "hosts:\n  - {name: local, transport: local, "
	    "chips: [0, 1, 2, 3]}\n  - {name: far, transport: ssh, address: "
	    "far.example, protected: true}\nworkspaces:\n  - {host: local, "
	    "path: /srv/ws}\n  - {host: local, path: /srv/ws2}\nrunner: "
	    "calrt-sim --time-scale 3000\n";
	struct transport_status st;
	struct transport *t;

	(void)state;
	assert_int_equal(lab_parse(&lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);
	lm = labmodel_new(l, &lab, "/nonexistent/calops", &cb, err,
	    sizeof err);
	assert_non_null(lm);
	spec.kind = LJOB_FAULT;
	spec.chip = 3;
	spec.scenario = "wait-timeout";
	assert_int_equal(labmodel_command(lm, &spec, cmd, sizeof cmd, err,
	    sizeof err), 0);
	/* The runner is a command prefix: its command comes after it. */
	assert_string_equal(cmd, "calrt-sim --time-scale 3000 fault --calbin "
	    "/srv/ws/05-calbin/package --chips 3 --scenario wait-timeout");
	spec.kind = LJOB_SOAK;
	spec.duration_s = 8 * 3600;
	assert_int_equal(labmodel_command(lm, &spec, cmd, sizeof cmd, err,
	    sizeof err), 0);
	assert_string_equal(cmd, "calrt-sim --time-scale 3000 stress --calbin "
	    "/srv/ws/05-calbin/package --duration 8h --chips 0-3");
	spec.kind = LJOB_GATE;
	spec.gate = 7;
	assert_int_equal(labmodel_command(lm, &spec, cmd, sizeof cmd, err,
	    sizeof err), 0);
	assert_non_null(strstr(cmd, "/bin/sh -c '"));
	/* The scenarios go as one argument, in the runbook's order. */
	assert_non_null(strstr(cmd, "' calops-g7 /srv/ws/05-calbin/package 0 "
	    "'missing-tensor bad-csr oob-slice kv-full submit-busy wait-timeout "
	    "ccu-exception reset-warmup' calrt-sim --time-scale 3000"));
	assert_non_null(strstr(cmd, "for s in $scenarios; do"));
	/* The host's second workspace when named; not one of its own:
	 * refused. */
	spec.workspace = "/srv/ws2";
	assert_int_equal(labmodel_command(lm, &spec, cmd, sizeof cmd, err,
	    sizeof err), 0);
	assert_non_null(strstr(cmd, "' calops-g7 /srv/ws2/05-calbin/package "));
	/* Two workspaces on the host: the label says which. */
	assert_int_equal(labmodel_label(lm, &spec, cmd, sizeof cmd, err,
	    sizeof err), 0);
	assert_string_equal(cmd, "G7 golden + 8 faults · chip 0 · ws2");
	spec.workspace = "/srv/ws3";
	assert_int_equal(labmodel_command(lm, &spec, cmd, sizeof cmd, err,
	    sizeof err), -1);
	assert_string_equal(err, "'/srv/ws3' is not a workspace of host "
	    "'local' in the lab file");
	spec.workspace = NULL;
	/* No such scenario; no lab job for G3; no workspace on far. */
	spec.kind = LJOB_FAULT;
	spec.scenario = "meltdown";
	assert_int_equal(labmodel_command(lm, &spec, cmd, sizeof cmd, err,
	    sizeof err), -1);
	spec.kind = LJOB_GATE;
	spec.gate = 3;
	assert_int_equal(labmodel_command(lm, &spec, cmd, sizeof cmd, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "G3 has no command"));
	spec.gate = 9;
	spec.host = "far";
	assert_int_equal(labmodel_command(lm, &spec, cmd, sizeof cmd, err,
	    sizeof err), -1);
	/* far is an ssh host: it has a transport, connecting. */
	t = labmodel_transport(lm, "far", err, sizeof err);
	assert_non_null(t);
	transport_status(t, &st);
	assert_int_equal(st.state, TRANSPORT_CONNECTING);
	/* far is protected: no job there until --write far. */
	assert_true(labmodel_host_protected(lm, "far"));
	assert_false(labmodel_host_protected(lm, "local"));
	assert_null(labmodel_start(lm, &spec, err, sizeof err));
	assert_non_null(strstr(err, "host 'far' is protected"));
	assert_non_null(strstr(err, "--write far"));
	assert_int_equal(labmodel_allow_write(lm, "nowhere", err, sizeof err),
	    -1);
	assert_non_null(strstr(err, "no host 'nowhere'"));
	assert_int_equal(labmodel_allow_write(lm, "far", err, sizeof err), 0);
	assert_false(labmodel_host_protected(lm, "far"));
	assert_string_equal(labmodel_default_host(lm), "local");
	labmodel_free(lm);
	lab_release(&lab);
	loop_free(l);
}

/* The lab of text, parsed into lab, and its host "local" with the
 * workspace /srv/ws as labcmd_build() is given them into w. */
static void
local_where(struct lab *lab, const char *text, struct labcmd_where *w)
{
	char err[512];

	assert_int_equal(lab_parse(lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);
	w->lab = lab;
	w->host = lab_host(lab, "local");
}

/* A gate's job is recognised from its argv alone, as run-gate sees the
 * jobs another console or script started: every gate's job, with the
 * workspace its argv names; a fault or golden run as G7's (as the console
 * counts them); nothing for any other command, a script whose $0 only
 * looks like a gate's, or a package path that is not a workspace's. */
static void
test_job_gate(void **state)
{
	const char *text = "hosts:\n  - {name: local, transport: local, "
	    "chips: [0, 1]}\nworkspaces:\n  - {host: local, path: /srv/ws}\n"
	    "runner: calrt-sim\ngates:\n"
	    "  G1: [python3, gen.py]\n  G2: [calrt-sim, onnx-check]\n"
	    "  G5: [./compile.sh]\n  G6: [ruby, v.rb, --full-hash]\n"
	    "  G8: [calrt-sim, conformance]\n";
	static const int gates[] = { 1, 2, 5, 6, 7, 8, 9 };
	struct labcmd_where w = { NULL, NULL, "/srv/ws", NULL };
	struct ljob_spec spec = { .host = "local", .kind = LJOB_GATE };
	static const enum ljob_kind seven[] = { LJOB_FAULT, LJOB_GOLDEN };
	char *other[] = { "sleep", "60", NULL };
	char *fake[] = { "/bin/sh", "-c", "x", "calops-g6x", "/srv/ws", NULL };
	char *g11[] = { "/bin/sh", "-c", "x", "calops-g11", "/srv/ws", NULL };
	char *g06[] = { "/bin/sh", "-c", "x", "calops-g06", "/srv/ws", NULL };
	char *g7[] = { "/bin/sh", "-c", "x", "calops-g7", "/srv/ws", NULL };
	char *g6[] = { "/bin/sh", "-c", "x", "calops-g6", "ws/", NULL };
	char *soak[] = { "sim", "stress", "--calbin", "/srv/ws/pkg", NULL };
	struct strv argv;
	struct lab lab;
	char err[512], label[160], *ws;
	size_t i;

	(void)state;
	local_where(&lab, text, &w);
	for (i = 0; i < nitems(gates) + nitems(seven); i++) {
		if (i < nitems(gates)) {
			spec.gate = gates[i];
			spec.again = gates[i] == 5;
		} else {
			spec.kind = seven[i - nitems(gates)];
			spec.chip = 1;
			spec.scenario = "kv-full";
		}
		assert_int_equal(labcmd_build(&w, &spec, &argv, label,
		    sizeof label, err, sizeof err), 0);
		assert_int_equal(labcmd_job_gate(argv.v, argv.n, &ws),
		    i < nitems(gates) ? gates[i] : 7);
		assert_string_equal(ws, "/srv/ws");
		free(ws);
		strv_free(&argv);
	}
	assert_int_equal(labcmd_job_gate(other, 2, &ws), -1);
	assert_null(ws);
	assert_int_equal(labcmd_job_gate(fake, 5, &ws), -1);
	assert_int_equal(labcmd_job_gate(g11, 5, &ws), -1);
	assert_int_equal(labcmd_job_gate(g06, 5, &ws), -1);
	/* G7's script is given the package, not the workspace. */
	assert_int_equal(labcmd_job_gate(g7, 5, &ws), -1);
	assert_null(ws);
	assert_int_equal(labcmd_job_gate(soak, 4, &ws), -1);
	assert_int_equal(labcmd_job_gate(g6, 5, &ws), 6);
	assert_string_equal(ws, "ws/");
	free(ws);
	lab_release(&lab);
}

/* What a job is, read back from the argv labcmd_build() made for it (how
 * a console learns what another's job is): the same kind, gate, chips and
 * label, for every kind of lab job. */
static void
test_job_describe(void **state)
{
	const char *text = "hosts:\n  - {name: local, transport: local, "
	    "chips: [0, 1, 2]}\nworkspaces:\n  - {host: local, path: /srv/ws}"
	    "\nrunner: calrt-sim --time-scale 3000\ngates:\n"
	    "  G1: [python3, gen.py]\n";
	static const struct ljob_spec specs[] = {
		{ .kind = LJOB_GATE, .gate = 7 },
		{ .kind = LJOB_GATE, .gate = 9, .duration_s = 5400 },
		{ .kind = LJOB_GATE, .gate = 1 },
		{ .kind = LJOB_SOAK, .duration_s = 30 },
		{ .kind = LJOB_FAULT, .chip = 2, .scenario = "kv-full" },
		{ .kind = LJOB_GOLDEN },
		{ .kind = LJOB_CHIPSTEP, .chip = 1, .generation = 3 },
	};
	static const enum ljob_kind kinds[] = { LJOB_GATE, LJOB_SOAK,
	    LJOB_GATE, LJOB_SOAK, LJOB_FAULT, LJOB_GOLDEN, LJOB_CHIPSTEP };
	static const int gates[] = { 7, 9, 1, 9, 7, 7, -1 };
	static const size_t nchips[] = { 1, 3, 0, 3, 1, 1, 1 };
	struct labcmd_where w = { NULL, NULL, "/srv/ws", NULL };
	char *bysh[] = { "sleep", "60", NULL };
	struct labcmd_job d;
	struct strv argv;
	struct lab lab;
	char err[512], label[160];
	size_t i;

	(void)state;
	local_where(&lab, text, &w);
	for (i = 0; i < nitems(specs); i++) {
		assert_int_equal(labcmd_build(&w, &specs[i], &argv, label,
		    sizeof label, err, sizeof err), 0);
		assert_int_equal(labcmd_job_describe(argv.v, argv.n, &d), 0);
		assert_int_equal(d.kind, kinds[i]);
		assert_int_equal(d.gate, gates[i]);
		assert_int_equal(d.nchips, nchips[i]);
		assert_string_equal(d.ws, "/srv/ws");
		/* A gate of the gates: map is labelled by its gate alone. */
		if (gates[i] != 1)
			assert_string_equal(d.label, label);
		labcmd_job_release(&d);
		strv_free(&argv);
	}
	assert_int_equal(labcmd_job_describe(bysh, 2, &d), -1);
	lab_release(&lab);
}

/* Only the newest LAB_SOAKS_LOADED soaks keep their samples. */
static void
test_soaks_loaded(void **state)
{
	const struct labmodel_cb cb = { .warn = on_warn };
	const char *text = "hosts:\n  - {name: local, transport: local}\n";
	struct loop *l = loop_new();
	struct labmodel *lm;
	struct lab lab;
	struct ljob *j;
	char err[512], name[64], *meta;
	size_t i, loaded = 0, soaks = 0;
	int k;

	(void)state;
	for (k = 2; k <= 6; k++) {
		meta = xstrdup(soak_meta);
		memcpy(strstr(meta, "soak1"), name, (size_t)snprintf(name,
		    sizeof name, "soak%d", k));
		memcpy(strstr(meta, "1000"), name, (size_t)snprintf(name,
		    sizeof name, "%d000", k + 1));
		snprintf(name, sizeof name, "local/soak%d.json", k);
		put(name, meta);
		snprintf(name, sizeof name, "local/soak%d.jsonl", k);
		put(name, soak_mirror);
		free(meta);
	}
	assert_int_equal(lab_parse(&lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);
	lm = labmodel_new(l, &lab, "/nonexistent/calops", &cb, err,
	    sizeof err);
	loop_add_timer(l, 200, stop, NULL);
	loop_run(l);
	for (i = 0; (j = labmodel_job(lm, i)) != NULL; i++) {
		if (j->kind != LJOB_SOAK)
			continue;
		soaks++;
		assert_int_equal(j->state, LJ_DONE);
		if (j->metrics != NULL) {
			loaded++;
			assert_true(soaks <= LAB_SOAKS_LOADED);
			assert_non_null(j->alerts);
		}
	}
	assert_int_equal(soaks, 6);
	assert_int_equal(loaded, LAB_SOAKS_LOADED);
	assert_string_equal(labmodel_latest(lm, LJOB_SOAK, NULL)->id, "soak6");
	labmodel_free(lm);
	lab_release(&lab);
	loop_free(l);
}

static int
teardown(void **state)
{
	(void)state;
	fileio_remove_tree(tmpdir);
	return 0;
}

/* Every 10 ms until no job replays any more; a condition, not a time. */
static void
until_replayed(struct loop *l, void *arg)
{
	struct labmodel *lm = arg;
	size_t i;

	for (i = 0; i < labmodel_njobs(lm); i++)
		if (labmodel_job(lm, i)->replaying) {
			loop_add_timer(l, 10, until_replayed, lm);
			return;
		}
	loop_stop(l);
}

/* A model of the one-host lab text on the state folder set up, run until
 * every mirror is replayed (its loop in *l, its lab in *lab). */
static struct labmodel *
replayed_model(const char *text, struct lab *lab, struct loop **l)
{
	const struct labmodel_cb cb = { .warn = on_warn };
	struct labmodel *lm;
	char err[512];

	assert_int_equal(lab_parse(lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);
	*l = loop_new();
	lm = labmodel_new(*l, lab, "/nonexistent/calops", &cb, err,
	    sizeof err);
	assert_non_null(lm);
	loop_add_timer(*l, 10, until_replayed, lm);
	loop_run(*l);
	return lm;
}

/*
 * A stream from a host whose disk filled: the lines it lost (gap events)
 * are counted on the job, and while its supervisor says it is stalled the
 * job is degraded, with the reason; a resumed event ends that.  A tool's
 * forged ts is not an event (never drawn on a time axis).
 */
static void
test_disk_full_stream(void **state)
{
	const char mirror[] =
	    "{\"v\":1,\"seq\":1,\"ts\":10,\"type\":\"hello\"}\n"
	    "{\"v\":1,\"seq\":2,\"ts\":11,\"type\":\"stalled\",\"since\":11,"
	    "\"reason\":\"disk full\",\"msg\":\"x\"}\n"
	    "{\"v\":1,\"seq\":3,\"ts\":15,\"type\":\"gap\",\"lost\":900,"
	    "\"since\":12,\"until\":14}\n"
	    "{\"v\":1,\"seq\":4,\"ts\":15,\"type\":\"resumed\",\"since\":11}\n"
	    "{\"v\":1,\"seq\":5,\"ts\":1e300,\"type\":\"metric\","
	    "\"values\":{\"ttft_ms\":1}}\n"
	    "{\"v\":1,\"seq\":5,\"ts\":20,\"type\":\"gap\",\"lost\":21,"
	    "\"since\":18,\"until\":19}\n"
	    "{\"v\":1,\"seq\":6,\"ts\":21,\"type\":\"stalled\",\"since\":21,"
	    "\"reason\":\"disk full\"}\n";
	char dir[] = "/tmp/calops-diskfull.XXXXXX", *old_state;
	const char *text = "hosts:\n  - {name: local, transport: local}\n";
	const struct ljob *j;
	struct labmodel *lm;
	struct loop *l;
	struct lab lab;

	(void)state;
	old_state = private_state(dir);
	put_in(dir, "full.json", xstrdup("{\"v\":1,\"id\":\"full\",\"host\":"
	    "\"local\",\"kind\":\"soak\",\"gate\":9,\"chip\":-1,\"chips\":"
	    "[0],\"target_s\":86400,\"command\":\"x\",\"label\":\"soak\","
	    "\"started\":5}"));
	put_in(dir, "full.jsonl", xstrdup(mirror));
	lm = replayed_model(text, &lab, &l);
	assert_int_equal(labmodel_njobs(lm), 1);
	j = labmodel_job(lm, 0);
	assert_int_equal(j->lost_lines, 921);
	assert_int_equal(j->bad_lines, 1);	/* the ts of 1e300 */
	assert_true(j->stalled_since == 21);
	assert_string_equal(j->stalled_why, "disk full");
	labmodel_free(lm);
	loop_free(l);
	lab_release(&lab);
	end_private_state(dir, old_state);
}

/*
 * A job started before this console is not running until its host says
 * so: replayed from its mirror it is catching up (live, yet not drawn as
 * running), and with no event from the host it never becomes running.  A
 * job belongs to the workspace it ran on: a soak of another workspace on
 * the same host is listed, but it is neither this lab's G9 job nor its
 * soak; one recorded before workspaces were kept is taken as this lab's.
 */
static void
test_catching_up_and_workspaces(void **state)
{
	const char meta[] = "{\"v\":1,\"id\":\"%s\",\"host\":\"local\","
	    "\"kind\":\"soak\",\"gate\":9,\"chip\":-1,\"chips\":[0],"
	    "\"target_s\":86400,\"command\":\"x\",\"label\":\"soak 24h\","
	    "\"started\":%d%s}";
	const char mirror[] = "{\"v\":1,\"seq\":1,\"ts\":1,\"type\":"
	    "\"hello\"}\n";
	const struct labmodel_cb cb = { .warn = on_warn };
	char dir[] = "/tmp/calops-catchup.XXXXXX", err[512], *text, *ws;
	char *old_state, *real, *other, *ws2, *real2, *dotted;
	const struct ljob *mine, *theirs, *old, *second;
	struct labmodel *lm;
	struct loop *l;
	struct lab lab;
	size_t i;

	(void)state;
	old_state = private_state(dir);
	ws = xasprintf("%s/ws", dir);
	assert_int_equal(mkdir(ws, 0700), 0);
	real = realpath(ws, NULL);
	assert_non_null(real);
	ws2 = xasprintf("%s/ws2", dir);
	assert_int_equal(mkdir(ws2, 0700), 0);
	real2 = realpath(ws2, NULL);
	assert_non_null(real2);
	other = xasprintf(",\"workspace\":\"%s/elsewhere\"", dir);
	put_in(dir, "soak-mine.json", xasprintf("{\"v\":1,\"id\":"
	    "\"soak-mine\",\"host\":\"local\",\"kind\":\"soak\","
	    "\"gate\":9,\"chip\":-1,\"chips\":[0],\"target_s\":86400,"
	    "\"command\":\"x\",\"label\":\"soak 24h\",\"started\":3000,"
	    "\"workspace\":\"%s\"}", real));
	put_in(dir, "soak-mine.jsonl", xstrdup(mirror));
	put_in(dir, "soak-second.json", xasprintf("{\"v\":1,\"id\":"
	    "\"soak-second\",\"host\":\"local\",\"kind\":\"soak\","
	    "\"gate\":9,\"chip\":-1,\"chips\":[0],\"target_s\":86400,"
	    "\"command\":\"x\",\"label\":\"soak 24h\",\"started\":2000,"
	    "\"workspace\":\"%s\"}", real2));
	put_in(dir, "soak-second.jsonl", xstrdup(mirror));
	put_in(dir, "soak-theirs.json", xasprintf(meta, "soak-theirs", 4000,
	    other));
	put_in(dir, "soak-theirs.jsonl", xstrdup(mirror));
	put_in(dir, "soak-old.json", xasprintf(meta, "soak-old", 1000, ""));
	put_in(dir, "soak-old.jsonl", xstrdup(mirror));
	text = xasprintf("hosts:\n  - {name: local, transport: local, "
	    "chips: [0]}\nworkspaces:\n  - {host: local, path: %s}\n"
	    "  - {host: local, path: %s}\n", ws, ws2);
	assert_int_equal(lab_parse(&lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);
	l = loop_new();
	lm = labmodel_new(l, &lab, "/nonexistent/calops", &cb, err,
	    sizeof err);
	assert_non_null(lm);
	assert_int_equal(labmodel_njobs(lm), 4);
	mine = theirs = old = second = NULL;
	for (i = 0; i < labmodel_njobs(lm); i++) {
		const struct ljob *j = labmodel_job(lm, i);

		/* Not running: its host has not said so yet. */
		assert_int_equal(j->state, LJ_CATCHING_UP);
		assert_true(labmodel_job_live(j));
		assert_string_equal(labmodel_job_state_name(j->state),
		    "catching up");
		if (strcmp(j->id, "soak-mine") == 0)
			mine = j;
		if (strcmp(j->id, "soak-theirs") == 0)
			theirs = j;
		if (strcmp(j->id, "soak-old") == 0)
			old = j;
		if (strcmp(j->id, "soak-second") == 0)
			second = j;
	}
	assert_non_null(mine);
	assert_non_null(theirs);
	assert_true(mine->here);
	assert_false(theirs->here);
	assert_non_null(old);
	assert_true(old->here);		/* recorded with no workspace */
	/* The newest job of this lab's: mine, not theirs (newer). */
	assert_ptr_equal(labmodel_gate_job(lm, 9, NULL, NULL), mine);
	/* Per workspace of the host: the second's soak is its own, however
	 * its folder is spelt, and the first's (mine) is not it. */
	assert_non_null(second);
	assert_true(second->here);
	assert_ptr_equal(labmodel_gate_job(lm, 9, "local", ws), mine);
	assert_ptr_equal(labmodel_gate_job(lm, 9, "local", ws2), second);
	dotted = xasprintf("%s/../ws2/", ws);
	assert_ptr_equal(labmodel_gate_job(lm, 9, "local", dotted), second);
	assert_string_equal(labmodel_host_workspace(lm, "local", dotted), ws2);
	assert_string_equal(labmodel_host_workspace(lm, "local", NULL), ws);
	assert_null(labmodel_host_workspace(lm, "local", dir));
	free(dotted);
	assert_ptr_equal(labmodel_latest(lm, LJOB_SOAK, NULL), mine);
	loop_add_timer(l, 10, until_replayed, lm);
	loop_run(l);
	/* Replayed, and no host to say so (no calops there): never running. */
	for (i = 0; i < labmodel_njobs(lm); i++)
		assert_int_not_equal(labmodel_job(lm, i)->state, LJ_RUNNING);
	labmodel_free(lm);
	loop_free(l);
	lab_release(&lab);
	free(text);
	free(other);
	free(real);
	free(ws);
	free(real2);
	free(ws2);
	end_private_state(dir, old_state);
}

/*
 * A soak's record and mirror in state dir dir: one metric event a name,
 * name_0 to name_<n - 1>, then the last `again` of them once more, then
 * its end when asked.  Returns the events written.
 */
static int
put_names_soak(const char *dir, const char *id, int n, int again, bool end)
{
	char *name;
	struct buf b;
	int i, seq = 0;

	buf_init(&b, 0);
	for (i = 0; i < n + again; i++)
		buf_addf(&b, "{\"v\":1,\"seq\":%d,\"ts\":%d,\"type\":\"metric\","
		    "\"chip\":0,\"values\":{\"name_%d\":1}}\n", ++seq, 100 + i,
		    i < n ? i : i - again);
	if (end)
		buf_addf(&b, "{\"v\":1,\"seq\":%d,\"ts\":9000,\"type\":"
		    "\"end\",\"exit_code\":0}\n", ++seq);
	name = xasprintf("%s.jsonl", id);
	put_in(dir, name, buf_detach(&b, NULL));
	free(name);
	name = xasprintf("%s.json", id);
	put_in(dir, name, xasprintf("{\"v\":1,\"id\":\"%s\",\"host\":"
	    "\"local\",\"kind\":\"soak\",\"gate\":9,\"chip\":-1,\"chips\":[0],"
	    "\"target_s\":3600,\"command\":\"x\",\"label\":\"soak 1h\","
	    "\"started\":%d}", id, 3000 + n));
	free(name);
	return seq;
}

/*
 * A soak whose runner prints more metric names than a job's cap: its
 * store keeps METRICS_JOB_SERIES series and counts the samples of the
 * others, and the warn hook says so once however many come; a soak under
 * the cap says nothing.  Every soak's store counts into the console's cap.
 */
#define KEPT	(METRICS_JOB_SERIES * 3 / 4)

static void
test_series_cap(void **state)
{
	const char *text = "hosts:\n  - {name: local, transport: local}\n";
	char dir[] = "/tmp/calops-seriescap.XXXXXX", err[512], *old_state;
	const struct ljob *big, *small;
	struct labmodel *lm;
	struct mdropped d;
	struct loop *l;
	struct lab lab;
	int events;

	(void)state;
	old_state = private_state(dir);
	/* Every name new, then the last 200 again: 100 kept, 100 not (of
	 * new names a store keeps three quarters of its cap). */
	events = put_names_soak(dir, "soak-big", KEPT + 100, 200, true);
	put_names_soak(dir, "soak-small", 10, 0, false);
	nwarn = 0;
	lm = replayed_model(text, &lab, &l);
	assert_non_null(big = labmodel_find(lm, "local", "soak-big"));
	assert_non_null(small = labmodel_find(lm, "local", "soak-small"));
	assert_int_equal(big->events, (uint64_t)events);
	assert_int_equal(metrics_count(big->metrics), KEPT);
	metrics_dropped(big->metrics, &d);
	assert_int_equal(d.samples, 200);
	assert_int_equal(d.series, 100);
	assert_int_equal(d.cap, METRICS_JOB_SERIES);
	assert_false(d.quota);
	/* Said once, for the big one only. */
	assert_int_equal(nwarn, 1);
	snprintf(err, sizeof err, "soak 1h on local: past its cap of %d "
	    "metric series (a quarter of it kept for the names calops knows): "
	    "samples of new ones are counted, not kept", METRICS_JOB_SERIES);
	assert_string_equal(warned, err);
	metrics_dropped(small->metrics, &d);
	assert_int_equal(d.samples, 0);
	assert_int_equal(metrics_count(small->metrics), 10);
	/* The console's cap counts both stores. */
	assert_int_equal(lm->series.max, METRICS_CONSOLE_SERIES);
	assert_int_equal(lm->series.used, KEPT + 10);
	labmodel_free(lm);
	loop_free(l);
	lab_release(&lab);
	end_private_state(dir, old_state);
}

/*
 * The record kept beside a job's mirror when its command and names are not
 * UTF-8 (a host's output, a user's path): every member is kept, the bytes
 * as \xHH (json_pack() refused the whole record: no record was kept).
 */
static void
test_meta_bytes(void **state)
{
	struct ljob_int ji;
	json_error_t je;
	json_t *o;
	char *s;

	(void)state;
	memset(&ji, 0, sizeof ji);
	ji.pub.kind = LJOB_GATE;
	ji.pub.gate = 7;
	ji.pub.chip = -1;
	ji.pub.id = xstrdup("j1");
	ji.pub.host = xstrdup("lab\xff");
	ji.pub.command = xstrdup("calops run -- echo \xc3(");
	ji.pub.label = xstrdup("G7 \xfe");
	ji.pub.workspace = xstrdup("/ws/\xff");
	assert_non_null(s = labstream_meta_json(&ji));
	assert_non_null(o = json_loads(s, 0, &je));
	assert_string_equal(json_string_value(json_object_get(o, "host")),
	    "lab\\xff");
	assert_non_null(strstr(json_string_value(json_object_get(o,
	    "command")), "echo \\xc3("));
	assert_string_equal(json_string_value(json_object_get(o, "label")),
	    "G7 \\xfe");
	assert_string_equal(json_string_value(json_object_get(o,
	    "workspace")), "/ws/\\xff");
	json_decref(o);
	free(s);
	free(ji.pub.id);
	free(ji.pub.host);
	free(ji.pub.command);
	free(ji.pub.label);
	free(ji.pub.workspace);
}

/* A lab job the Jobs screen lists but the poll does not take in (ended
 * three days ago: older than LABPOLL_RECENT_S): its kind read from its
 * argv as the poll reads it, and taken in once when asked for (Enter on
 * it), with who started it; a command by hand is no lab job's. */
static void
test_take_entry(void **state)
{
	const char *text = "hosts:\n  - {name: local, transport: local, "
	    "chips: [0, 1, 2]}\nworkspaces:\n  - {host: local, path: /srv/ws}"
	    "\nrunner: calrt-sim --time-scale 3000\n";
	static const struct ljob_spec soak = { .kind = LJOB_SOAK,
	    .duration_s = 30 };
	const struct labmodel_cb cb = { .warn = on_warn };
	struct labcmd_where w = { NULL, NULL, "/srv/ws", NULL };
	struct loop *l = loop_new();
	struct strv argv = { NULL, 0, 0 };
	const struct ljob *j;
	struct labmodel *lm;
	enum ljob_kind kind;
	json_t *rec, *words;
	struct lab lab;
	char err[512], label[160];
	size_t i, n;

	(void)state;
	local_where(&lab, text, &w);
	assert_int_equal(labcmd_build(&w, &soak, &argv, label, sizeof label,
	    err, sizeof err), 0);
	words = json_array();
	for (i = 0; i < argv.n; i++)
		json_array_append_new(words, json_string(argv.v[i]));
	rec = json_pack("{s:s, s:s, s:o, s:s}", "id", "old-soak", "state",
	    "done", "argv", words, "actor", "eng@lab");
	assert_non_null(rec);
	assert_true(labpoll_entry_kind(rec, &kind));
	assert_int_equal(kind, LJOB_SOAK);
	lm = labmodel_new(l, &lab, "/nonexistent/calops", &cb, err,
	    sizeof err);
	assert_non_null(lm);
	n = labmodel_njobs(lm);
	assert_null(labmodel_find(lm, "local", "old-soak"));
	j = labpoll_take_entry(lm, "local", rec, 3 * 86400.0, err,
	    sizeof err);
	if (j == NULL)
		fail_msg("not taken in: %s", err);
	assert_int_equal(j->kind, LJOB_SOAK);
	assert_string_equal(j->label, label);
	assert_string_equal(j->actor, "eng@lab");
	assert_int_equal(labmodel_njobs(lm), n + 1);
	/* Asked again: the same job, not a second one. */
	assert_ptr_equal(labpoll_take_entry(lm, "local", rec, 3 * 86400.0,
	    err, sizeof err), j);
	assert_int_equal(labmodel_njobs(lm), n + 1);
	json_object_set_new(rec, "id", json_string("by-hand"));
	json_object_set_new(rec, "argv", json_pack("[s, s]", "sleep", "60"));
	assert_false(labpoll_entry_kind(rec, &kind));
	assert_null(labpoll_take_entry(lm, "local", rec, 0, err, sizeof err));
	assert_string_equal(err, "not a lab job's command");
	assert_int_equal(labmodel_njobs(lm), n + 1);
	json_decref(rec);
	strv_free(&argv);
	labmodel_free(lm);
	loop_free(l);
	lab_release(&lab);
}

/* What the poll told ended: "ID STATE EXIT" lines. */
static void
on_host_ended(struct labmodel *lm, const struct ljob_end *e, void *arg)
{
	struct buf *told = arg;

	(void)lm;
	buf_addf(told, "%s %s %d\n", e->id, e->state, e->exit_code);
}

/* A list, as `calops jobs --json` would print these entries, taken in
 * as the poll takes one. */
static void
list(struct labmodel *lm, const char *entries)
{
	struct hostcmd_jobs jobs;
	char *text = xasprintf("{\"schema\":\"calops-jobs/v1\",\"jobs\":"
	    "[%s]}", entries), err[256];

	if (hostcmd_jobs_parse(text, strlen(text), &jobs, err,
	    sizeof err) != 0)
		fail_msg("%s: %s", text, err);
	labpoll_list(lm, labmodel_host_at(lm, "local"), &jobs);
	hostcmd_jobs_release(&jobs);
	free(text);
}

/* A job's entry: id, state, exit code, started, ended (0: null), as
 * listed at 112 (first) or at 130, and the argv fault (a kv-full fault run
 * on chip 0 of /srv/ws) or by hand. */
static char *
entry(const char *id, const char *state, int code, double started,
    double ended, bool fault, bool first)
{
	return xasprintf("{\"id\":\"%s\",\"state\":\"%s\",\"exit_code\":"
	    "%d,\"started\":%.1f,\"ended\":%s,\"age\":%.1f,\"argv\":%s}",
	    id, state, code, started, ended > 0 ? (ended == 121 ? "121.0" :
	    ended == 120 ? "120.0" : "100.0") : "null", (first ? 112 : 130) -
	    started,
	    fault ? "[\"calrt-sim\",\"fault\",\"--calbin\","
	    "\"/srv/ws/05-calbin/package\",\"--chips\",\"0\",\"--scenario\","
	    "\"kv-full\"]" : "[\"sh\",\"-c\",\"exit 1\"]");
}

/* Every job of a host that ended is told once, whoever started it, in
 * the first list after its end: not one that ended (or was lost) before
 * the host's first list; a fault job is kept with the state the last
 * list gave, the newest LABPOLL_FAULT_JOBS of them. */
static void
test_poll_tells(void **state)
{
	const char *text = "hosts:\n  - {name: local, transport: local, "
	    "chips: [0]}\nworkspaces:\n  - {host: local, path: /srv/ws}\n"
	    "runner: calrt-sim\n";
	struct buf told = BUF_INIT;
	struct labmodel_cb cb = { .warn = on_warn,
	    .host_ended = on_host_ended, .arg = &told };
	struct loop *l = loop_new();
	json_t *const *fj;
	struct labmodel *lm;
	struct lab lab;
	char err[512], *e[6], *all;
	size_t n, i;

	(void)state;
	assert_int_equal(lab_parse(&lab, text, strlen(text), "lab.yaml", err,
	    sizeof err), 0);
	lm = labmodel_new(l, &lab, "/nonexistent/calops", &cb, err,
	    sizeof err);
	assert_non_null(lm);
	buf_add(&told, "", 0);
	e[0] = entry("old", "failed", 4, 90, 100, false, true);
	e[1] = entry("lost1", "lost", -1, 95, 0, false, true);
	e[2] = entry("f", "running", -1, 110, 0, true, true);
	all = xasprintf("%s,%s,%s", e[0], e[1], e[2]);
	list(lm, all);
	free(all);
	assert_string_equal(told.data, "");
	fj = labpoll_fault_jobs(lm, "local", &n);
	assert_int_equal(n, 1);
	assert_string_equal(json_string_value(json_object_get(fj[0],
	    "state")), "running");
	for (i = 0; i < 3; i++)
		free(e[i]);
	e[0] = entry("old", "failed", 4, 90, 100, false, false);
	e[1] = entry("lost1", "lost", -1, 95, 0, false, false);
	e[2] = entry("f", "failed", 1, 110, 120, true, false);
	e[3] = entry("quick", "done", 0, 120.5, 121, false, false);
	e[4] = entry("lost2", "lost", -1, 115, 0, false, false);
	all = xasprintf("%s,%s,%s,%s,%s", e[0], e[1], e[2], e[3], e[4]);
	list(lm, all);
	assert_string_equal(told.data, "f failed 1\nquick done 0\n"
	    "lost2 lost -1\n");
	/* The same list again: nothing twice. */
	list(lm, all);
	free(all);
	assert_string_equal(told.data, "f failed 1\nquick done 0\n"
	    "lost2 lost -1\n");
	fj = labpoll_fault_jobs(lm, "local", &n);
	assert_int_equal(n, 1);
	assert_string_equal(json_string_value(json_object_get(fj[0],
	    "state")), "failed");
	for (i = 0; i < 5; i++)
		free(e[i]);
	/* The newest LABPOLL_FAULT_JOBS by start: one older than those
	 * kept is not taken, and the oldest goes for a newer one. */
	for (i = 0; i < LABPOLL_FAULT_JOBS + 1; i++) {
		all = xasprintf("{\"id\":\"n%zu\",\"state\":\"done\","
		    "\"started\":%zu.0,\"age\":1.0,\"argv\":[\"calrt-sim\","
		    "\"fault\",\"--calbin\",\"/srv/ws/05-calbin/package\","
		    "\"--chips\",\"0\","
		    "\"--scenario\",\"kv-full\"]}", i, 1000 + i);
		list(lm, all);
		free(all);
	}
	fj = labpoll_fault_jobs(lm, "local", &n);
	assert_int_equal(n, LABPOLL_FAULT_JOBS);
	for (i = 0; i < n; i++) {
		assert_string_not_equal(json_string_value(json_object_get(fj[i],
		    "id")), "f");
		assert_string_not_equal(json_string_value(json_object_get(fj[i],
		    "id")), "n0");
	}
	buf_release(&told);
	labmodel_free(lm);
	loop_free(l);
	lab_release(&lab);
}

/* A job list's last_seq for a job catching up (labstream.h): how far it
 * goes, in the words the screens show, raised by a later list and never
 * lowered; reached, the job is running; a host that does not say leaves it
 * unknown. */
static void
test_catchup(void **state)
{
	const char *text = "hosts:\n  - {name: local, transport: local, "
	    "chips: [0]}\nworkspaces:\n  - {host: local, path: /srv/ws}"
	    "\nrunner: calrt-sim --time-scale 3000\n";
	static const struct ljob_spec soak = { .kind = LJOB_SOAK,
	    .duration_s = 30 };
	const struct labmodel_cb cb = { .warn = on_warn };
	struct labcmd_where w = { NULL, NULL, "/srv/ws", NULL };
	struct loop *l = loop_new();
	struct strv argv = { NULL, 0, 0 };
	struct ljob_int *ji;
	const struct ljob *j;
	struct labmodel *lm;
	json_t *rec, *words;
	struct lab lab;
	char err[512], label[160], say[128], *old_state;
	char dir[] = "/tmp/calops-catchup.XXXXXX";
	size_t i;
	int pct;

	(void)state;
	old_state = private_state(dir);
	local_where(&lab, text, &w);
	assert_int_equal(labcmd_build(&w, &soak, &argv, label, sizeof label,
	    err, sizeof err), 0);
	words = json_array();
	for (i = 0; i < argv.n; i++)
		json_array_append_new(words, json_string(argv.v[i]));
	rec = json_pack("{s:s, s:s, s:O, s:i}", "id", "soak-a", "state",
	    "done", "argv", words, "last_seq", 500);
	lm = labmodel_new(l, &lab, "/nonexistent/calops", &cb, err,
	    sizeof err);
	assert_non_null(lm);
	j = labpoll_take_entry(lm, "local", rec, 60, err, sizeof err);
	if (j == NULL)
		fail_msg("not taken in: %s", err);
	ji = (struct ljob_int *)j;
	assert_int_equal(j->state, LJ_CATCHING_UP);
	assert_int_equal(j->catchup_seq, 500);
	assert_true(labmodel_job_catchup(j, say, sizeof say, &pct));
	assert_string_equal(say, "catching up: 0 of 500 events (0%)");
	assert_int_equal(pct, 0);
	/* A later list says more (a job writing on), never less. */
	labstream_catchup(ji, 800);
	labstream_catchup(ji, 300);
	assert_int_equal(j->catchup_seq, 800);
	ji->pub.last_seq = 799;
	assert_true(labmodel_job_catchup(j, say, sizeof say, &pct));
	assert_string_equal(say, "catching up: 799 of 800 events (99%)");
	/* A list that says no more than it holds: caught up. */
	labstream_catchup(ji, 799);
	assert_int_equal(j->catchup_seq, 0);
	assert_true(labmodel_job_catchup(j, say, sizeof say, &pct));
	assert_string_equal(say, "catching up: 799 events");
	assert_int_equal(pct, -1);
	/* Caught up, a list is not heeded again (a live job is not said
	 * to catch up with the events of the last 40 ms). */
	labstream_catchup(ji, 900);
	assert_int_equal(j->catchup_seq, 0);
	/* A stream broken on the way is not said to catch up. */
	ji->catching = true;
	labstream_catchup(ji, 900);
	assert_int_equal(j->catchup_seq, 900);
	ji->pub.state = LJ_BROKEN;
	assert_false(labmodel_job_catchup(j, say, sizeof say, &pct));

	/* A host whose calops does not say: not known. */
	json_object_set_new(rec, "id", json_string("soak-b"));
	json_object_del(rec, "last_seq");
	j = labpoll_take_entry(lm, "local", rec, 60, err, sizeof err);
	assert_non_null(j);
	assert_int_equal(j->state, LJ_CATCHING_UP);
	assert_int_equal(j->catchup_seq, 0);
	assert_true(labmodel_job_catchup(j, say, sizeof say, &pct));
	assert_string_equal(say, "catching up: 0 events");
	assert_int_equal(pct, -1);
	json_decref(words);
	json_decref(rec);
	strv_free(&argv);
	labmodel_free(lm);
	loop_free(l);
	lab_release(&lab);
	end_private_state(dir, old_state);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_catchup),
		cmocka_unit_test(test_meta_bytes),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_job_gate),
		cmocka_unit_test(test_job_describe),
		cmocka_unit_test(test_soaks_loaded),
		cmocka_unit_test(test_mirror_ended),
		cmocka_unit_test(test_fault_order),
		cmocka_unit_test(test_old_files_go),
		cmocka_unit_test(test_catching_up_and_workspaces),
		cmocka_unit_test(test_disk_full_stream),
		cmocka_unit_test(test_series_cap),
		cmocka_unit_test(test_take_entry),
		cmocka_unit_test(test_poll_tells),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
