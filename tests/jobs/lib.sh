# lib.sh: what the job tests share (sourced, after they define fail).
#
# until_ok SECONDS CMD...: until CMD succeeds; the test fails past SECONDS
# (a bound for a stuck run, never a pace: nothing waits on it otherwise).
until_ok() {
	local limit=$(($(date +%s) + $1))
	shift
	until "$@"; do
		if [ "$(date +%s)" -gt "$limit" ]; then
			fail "timed out waiting for: $*"
			return 1
		fi
		sleep 0.05
	done
}

# stop_jobs JOBS_DIR: every job still running under JOBS_DIR stopped: its
# tool's process group and its supervisor (a test's exit trap).
stop_jobs() {
	"${PY:-python3}" - "$1" <<'PYEOF' 2>/dev/null
import glob, json, os, signal, sys
for f in glob.glob(sys.argv[1] + "/*/job.json"):
	try:
		j = json.load(open(f))
	except ValueError:
		continue
	if j.get("state") != "running":
		continue
	for p in (-(j.get("pid") or 0), j.get("supervisor_pid") or 0):
		try:
			if p:
				os.kill(p, signal.SIGKILL)
		except OSError:
			pass
PYEOF
}

# local_lab NAME CHIPS RUNNER: T, a new folder (a blank in its path)
# removed on exit, its jobs folder T/jobs ($CALOPS_JOBS_DIR; what still
# runs there stopped on exit), a copy of the labdemo workspace in T/ws and
# T/lab.yaml: one local host with CHIPS (a YAML list) and it, the lab's
# runner RUNNER.  SRC is the source tree.
local_lab() {
	T=$(mktemp -d "/tmp/calops $1.XXXXXX")
	export CALOPS_JOBS_DIR=$T/jobs
	trap 'stop_jobs "$T/jobs"; rm -rf "$T"' EXIT
	cp -r "$SRC/share/examples/labdemo" "$T/ws"
	cat >"$T/lab.yaml" <<LABEOF
hosts:
  - {name: local, transport: local, chips: $2}
workspaces:
  - {host: local, path: "$T/ws"}
runner: $3
LABEOF
}
