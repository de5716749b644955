# command.sh: the ':' command line: :tickets switches the view, :theme NAME
# switches the theme (the status bar says so, the colours change), Tab
# completes (what it completed runs, its blank after it), an unknown
# command is an error, :q quits.
. "$(dirname "$0")/lib.sh"

start
launch "$MIDPROJECT"
wait_for "3 of 11 gates pass"

keys :
wait_re "^:$"
send_text tickets
wait_re "^:tickets$"
keys Enter
wait_for "[2 Tickets]"
wait_for "5 of 13 tickets have their evidence"

# A theme by name: the message, and the title bar drawn in other colours.
before=$(screen_e | head -1)
keys : ; send_text "theme light" ; keys Enter
wait_re "^ theme light "
after=$(screen_e | head -1)
[ "$before" != "$after" ] || fail "the title bar looks the same in the light theme"
keys : ; send_text theme ; keys Enter
wait_re "^ theme light "
keys : ; send_text "theme no-such-theme" ; keys Enter
wait_for "no-such-theme"
expect "[2 Tickets]"

# Tab: one match completes (with a blank after a command); several are
# listed beside the prompt, completed as far as they agree.
keys : ; send_text th ; keys Tab
wait_re "^:theme$"
send_text mono ; keys Tab
wait_re "^:theme monochrome$"
keys Enter
wait_re "^ theme monochrome "
keys : ; send_text t ; keys Tab
wait_re "^:t  2 matches: tickets theme$"
keys C-u ; send_text "theme h" ; keys Tab
wait_re "^:theme high-contrast$"
keys Escape
wait_for "5 of 13 tickets have their evidence"
# What Tab completed runs as it stands, its blank after it (issue 30 (9)).
keys : ; send_text rel ; keys Tab
wait_re "^:release ?$"
keys Enter
wait_for "[9 Release]"
reject "unknown command"
keys : ; send_text "fin" ; keys Tab
wait_re "^:findings ?$"
keys Enter
wait_for "[3 Findings]"
keys : ; send_text "tickets   " ; keys Enter
wait_for "[2 Tickets]"
reject "unknown command"

# Unknown: an error that names it, and nothing else changes.
keys : ; send_text frobnicate ; keys Enter
wait_for "unknown command ':frobnicate' (Tab completes)"
expect "[2 Tickets]"
keys : ; send_text findings ; keys Enter
wait_for "[3 Findings]"
keys : ; send_text board ; keys Enter
wait_for "[1 Board]"
keys : ; send_text help ; keys Enter
wait_for "Help — q to close"
keys q
wait_for "3 of 11 gates pass"

# Esc leaves the prompt without running it; :q quits.
keys : ; send_text q ; keys Escape
wait_gone ":q"
expect "3 of 11 gates pass"
keys : ; send_text q ; keys Enter
wait_exit 0
finish
