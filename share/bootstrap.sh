#!/bin/sh
# bootstrap.sh: set up a fresh Debian 12 machine for calops, build it, and
# either open the demo or run the whole test suite.
#
#   share/bootstrap.sh demo    install what is missing, build, open the console
#                              on the demo lab (no PATH: a private copy of
#                              share/examples/labdemo with the simulator)
#   share/bootstrap.sh test    install what is missing, build with -Werror,
#                              run every test, the terminal tests again
#                              from clones at paths of two lengths (a
#                              blank and a quote in each), the
#                              unit tests built with gcc -O3 and clang,
#                              every test again under ASan+UBSan, then a
#                              short smoke run of each fuzz target
#   share/bootstrap.sh build   install and build only
#
# Packages are installed only when missing (apt-get update first).  Run as
# root, or as a user who may sudo.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-demo}
jobs=$(nproc 2>/dev/null || echo 2)

build_pkgs="build-essential cmake pkg-config libncurses-dev libyaml-dev
	libjansson-dev libssh2-1-dev libssl-dev"
# chromium (with a font that has the status glyphs) and python3-markdown:
# the decision record read as its readers get it (tests/report/).
# systemd (its systemd-socket-activate), iproute2 and util-linux: a lab
# behind a bastion, its hosts in a network namespace (sshlab.sh --bastion).
# curl: the hook that posts an alert to a receiver (tests/alerts/).
test_pkgs="libcmocka-dev python3 clang libclang-rt-14-dev tmux openssh-server
	openssl coreutils zsh time chromium fonts-dejavu-core python3-markdown
	systemd iproute2 util-linux curl"

say() { printf 'bootstrap: %s\n' "$*" >&2; }

# Each phase of the test mode says when it starts, so that a slow CI run
# shows where its time went.
started=$(date +%s)
phase() { say "$* [$(( $(date +%s) - started )) s in]"; }

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

install_missing() {
	missing=
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		    grep -q 'install ok installed' || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	say "installing:$missing"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	    --no-install-recommends $missing
}

# The bash and zsh completions, where bash-completion and zsh look for
# them: the system's folders as root, else the user's (zsh: add
# ~/.local/share/zsh/site-functions to fpath before compinit).  Used once
# calops is on PATH.
install_completion() {
	data=${XDG_DATA_HOME:-$HOME/.local/share}
	if [ "$(id -u)" = 0 ]; then
		dir=/usr/share/bash-completion/completions
		zdir=/usr/share/zsh/vendor-completions
	else
		dir=$data/bash-completion/completions
		zdir=$data/zsh/site-functions
	fi
	mkdir -p "$dir" && cp "$top/share/completion/calops.bash" "$dir/calops" ||
	    say "cannot install the bash completion in $dir"
	mkdir -p "$zdir" && cp "$top/share/completion/_calops" "$zdir/_calops" ||
	    say "cannot install the zsh completion in $zdir"
}

# The demo and build modes configure the tests (and the benchmarks beside
# them) only where cmocka is installed: only the test mode installs it, and
# a newcomer's first command must work on a machine that has never seen
# calops.  The test mode asks for them whatever the build folder said.
testing() {
	if pkg-config --exists cmocka 2>/dev/null; then echo ON; else echo OFF; fi
}

configure_build() {
	dir=$1; shift
	cmake -S "$top" -B "$top/$dir" "$@" >/dev/null
	cmake --build "$top/$dir" -j "$jobs"
}

case $mode in
demo)
	install_missing $build_pkgs
	configure_build build -DBUILD_TESTING="$(testing)" \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo
	install_completion
	if [ -t 0 ] && [ -t 1 ]; then
		exec "$top/build/calops"
	fi
	say "no terminal: printing the demo board instead of opening the console"
	exec "$top/build/calops" --plain
	;;
build)
	install_missing $build_pkgs
	configure_build build -DBUILD_TESTING="$(testing)" \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo
	install_completion
	;;
test)
	install_missing $build_pkgs $test_pkgs
	phase "the -Werror build"
	configure_build build -DBUILD_TESTING=ON -DCALOPS_WERROR=ON \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo
	install_completion
	phase "every test"
	(cd "$top/build" && ctest --output-on-failure --no-tests=error -j "$jobs")
	# The main suite ran them from CI's clone, whatever its path: once
	# more from a clone at 120 characters with a blank and a quote, where
	# every line that holds the path wraps at both widths (the 21
	# characters of paths.sh's default add the blank and quote unwrapped:
	# eight minutes of CI for little more; run it by hand).
	phase "the terminal tests again from a clone at a path of 120" \
	    "characters, with a blank and a quote"
	sh "$top/tests/paths.sh" 120
	# As packagers and newcomers build it: gcc at -O3 (Release) and
	# clang, each with -Werror and the tests, each running the unit tests.
	phase "the gcc -O3 (Release) build, and its unit tests"
	configure_build build-release -DBUILD_TESTING=ON -DCALOPS_WERROR=ON \
	    -DCMAKE_BUILD_TYPE=Release
	(cd "$top/build-release" &&
	    ctest --output-on-failure --no-tests=error -j "$jobs" -L unit)
	phase "the clang build, and its unit tests"
	(CC=clang; export CC
	configure_build build-clang -DBUILD_TESTING=ON -DCALOPS_WERROR=ON \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cd "$top/build-clang" &&
	    ctest --output-on-failure --no-tests=error -j "$jobs" -L unit)
	phase "the ASan+UBSan build"
	configure_build build-asan -DBUILD_TESTING=ON -DCALOPS_WERROR=ON \
	    -DCALOPS_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
	phase "every test again under AddressSanitizer and UndefinedBehaviorSanitizer"
	(cd "$top/build-asan" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    ctest --output-on-failure --no-tests=error -j "$jobs")
	if [ -f "$top/tests/fuzz/CMakeLists.txt" ]; then
		phase "a short smoke run of each libFuzzer target"
		(CC=clang; export CC
		# The fuzz build instruments everything and reports warnings
		# without failing: clang's -Werror leg is above.
		configure_build build-fuzz -DCALOPS_FUZZ=ON -DCALOPS_WERROR=OFF \
		    -DCALOPS_FUZZ_SECONDS=5 -DCMAKE_BUILD_TYPE=Debug
		cd "$top/build-fuzz" && ctest --output-on-failure --no-tests=error -L fuzz)
	fi
	phase "done"
	;;
*)
	say "usage: share/bootstrap.sh [demo|test|build]"
	exit 2
	;;
esac
