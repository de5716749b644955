# views.sh: the tickets view (Tab, 2) flags M07 as claimed done without its
# evidence; the findings view (3) lists every finding, s changes the sort,
# e cycles the severity shown, / filters as it is typed and Esc clears it.
. "$(dirname "$0")/lib.sh"

# The checks of the findings listed, top to bottom, on one line: their
# first 12 characters, what the CHECK column shows at any size.
checks() {
	screen | awk '/^ (proj|G[0-9]+) +(error|blocked|stale|warn|info) / {
	    printf "%s%s", sep, substr($3, 1, 12); sep = " " }
	    END { print "" }'
}

# want_checks WANT: wait until the findings listed are these.
want_checks() {
	local end=$(($(now_ms) + WAIT_SECS * 1000))

	until [ "$(checks)" = "$1" ]; do
		[ "$(now_ms)" -ge "$end" ] &&
		    fail "findings listed: '$(checks)', not '$1'"
		sleep 0.05
	done
}

start
launch "$MIDPROJECT"
wait_for "3 of 11 gates pass"

# Tickets, by Tab.
keys Tab
wait_for "[2 Tickets]"
expect_re "^ ID +TICKET +PROGRESS +STATE +EST +OWNER"
expect_re "^ M01  source/tokenizer freeze .* 100% +done "
expect_re "^ M07  reproducible compile .* 67% +done .*⚠ claimed done, "
[ "$(screen | grep -cE '^ M[0-9]+ .*claimed done')" = 1 ] ||
    fail "only M07 is claimed done without evidence"
expect "5 of 13 tickets have their evidence"
[ "$COLS" -ge 120 ] && expect_re "^ M07 .*⚠ claimed done, evidence missing"
# Selected, its whole claim and its checks show at the bottom.
expect_re "^ M01 checks: G0.schema ✔"
keys j j j j j j
wait_re "^ M07 checks: ⚠ claimed done, evidence missing  G5.config ✔  G5.script ✘"

# Findings, by 3; then 2 and 1 come back to the others.
keys 3
wait_for "[3 Findings]"
want_checks "vendor.compi G0.complexit G2.bound G3.unsupport G5.script"
expect_re "^ proj +blocked +vendor.compile_com"
# FILE:POSITION is cut from the front when it must be: its end says most.
expect_re "^ G2 +stale +G2.bound +[^ ]*\.json#/model_sha256 "
expect_re "^ G3 +error +G3.unsupported +[^ ]*op-support.csv:row 23 "
expect_re "^ G5 +blocked +G5.script +04-compiler/compile.sh"
expect "5 of 5 findings · sorted by gate"
# The selected finding's whole message, below the list.
expect "vendor deliverable missing: the vendor's compile command"

keys s
wait_for "sorted by severity"
want_checks "G3.unsupport vendor.compi G5.script G2.bound G0.complexit"
keys s
wait_for "sorted by file"
want_checks "G0.complexit G2.bound G3.unsupport vendor.compi G5.script"
keys s
wait_for "sorted by check"
want_checks "G0.complexit G2.bound G3.unsupport G5.script vendor.compi"
keys s
wait_for "sorted by gate"
want_checks "vendor.compi G0.complexit G2.bound G3.unsupport G5.script"

# v: the least severity shown, as on a job's log: warn and up, … errors
# alone, then every severity again.
keys v
wait_for "showing warn and up"
want_checks "vendor.compi G2.bound G3.unsupport G5.script"
keys v
wait_for "showing stale and up"
want_checks "vendor.compi G2.bound G3.unsupport G5.script"
keys v
wait_for "showing blocked and up"
want_checks "vendor.compi G3.unsupport G5.script"
keys v
wait_for "showing error"
want_checks "G3.unsupport"
keys v
wait_for "showing every severity"
want_checks "vendor.compi G0.complexit G2.bound G3.unsupport G5.script"

# The filter applies as it is typed, before Enter.
keys /
wait_re "^/$"
send_text G3
wait_re "^/G3$"
want_checks "G3.unsupport"
reject "G2.bound"
keys Escape
want_checks "vendor.compi G0.complexit G2.bound G3.unsupport G5.script"
wait_for "5 of 5 findings"
reject "filter:"

# Enter keeps it (the status bar says so); Esc then clears it, q does not
# quit while a filter is applied.
keys / ; send_text blocked ; keys Enter
want_checks "vendor.compi G5.script"
wait_for "2 of 5 findings"
expect "filter: blocked"
keys q
want_checks "vendor.compi G0.complexit G2.bound G3.unsupport G5.script"
wait_for "5 of 5 findings"
reject "filter:"
expect "[3 Findings]"

# Back to the board by 1; the filter works there too.
keys 1
wait_for "[1 Board]"
keys / ; send_text pending ; keys Enter
wait_for "filter: pending"
[ "$(screen | grep -cE '^ G[0-9]+ ')" = 5 ] || fail "not the five pending gates"
reject_re "^ G3 "
keys Escape
wait_gone "filter: pending"
wait_re "^ G3 "
keys q
wait_exit 0
finish
