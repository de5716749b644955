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
