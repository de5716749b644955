# calops.bash: completion for calops(1) in bash: the commands, each one's
# options, the console's options, gate ids after --gate, themes after
# --theme, release's subcommands, report's formats, and the ids of the durable jobs (`calops jobs --json`, from the
# calops being completed) for tail and kill.  share/bootstrap.sh installs
# it where bash-completion looks (/usr/share/bash-completion/completions,
# or ~/.local/share/bash-completion/completions); source it to try it.

# The job ids the calops at $1 lists, one a line.
_calops_jobs() {
	"$1" jobs --json 2>/dev/null |
	    sed -n 's/^ *"id": *"\([A-Za-z0-9._-]*\)",\{0,1\}$/\1/p'
}

_calops() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= w i
	local console='--theme --readonly --plain --ascii --color --config
	    --headless --script --write --help --version'
	# calops' commands, from its own table: share/gendocs.sh writes them.
	# gendocs: bash begin
	local commands='check hash run tail jobs kill watch cat ls version hosts alerts run-gate repro-build release report'
	# gendocs: end

	[ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ " $commands " == *" ${COMP_WORDS[i]} "* ]]; then
			cmd=${COMP_WORDS[i]}; break
		fi
	done
	# After run's --, the command being run is not calops'.
	[ "$cmd" = run ] && for ((; i < COMP_CWORD; i++)); do
		[ "${COMP_WORDS[i]}" = -- ] && { COMPREPLY=(); return; }
	done
	case $prev in
	--color)
		COMPREPLY=($(compgen -W 'auto always never' -- "$cur")); return ;;
	--format)
		COMPREPLY=($(compgen -W 'md html json' -- "$cur")); return ;;
	--gate)
		COMPREPLY=($(compgen -W 'G0 G1 G2 G3 G4 G5 G6 G7 G8 G9 G10' \
		    -- "$cur")); return ;;
	--theme)
		COMPREPLY=($(compgen -W 'dark light high-contrast monochrome' \
		    -- "$cur") $(compgen -f -X '!*.yaml' -- "$cur")); return ;;
	--config|--script|--ssh-config|--key|--output|-o|--lab)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	--jobs|--workspace|--cwd)
		COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--threads|--from|--grace|--id|--headless|--timeout|--write|--lines|\
	--confirm|--to|--actor|--reason|--passphrase-fd|--hold|--builds|\
	--chip|--host|--gate)
		COMPREPLY=(); return ;;
	esac
	case $cmd in
	'')
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$console" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$commands" -- "$cur") \
			    $(compgen -d -- "$cur") \
			    $(compgen -f -X '!*.yaml' -- "$cur"))
		fi ;;
	check)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--json --stream --gate --no-cache
			    --threads --color --help' -- "$cur"))
		else
			COMPREPLY=($(compgen -d -- "$cur"))
		fi ;;
	hash)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--list --no-cache --threads
			    --help' -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi ;;
	run)
		COMPREPLY=($(compgen -W '--id --jobs --cwd --gate --actor --help --' \
		    -- "$cur")) ;;
	jobs)
		COMPREPLY=($(compgen -W '--json --running --since --jobs --help' \
		    -- "$cur")) ;;
	version)
		COMPREPLY=($(compgen -W '--json --help' -- "$cur")) ;;
	hosts)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--json --timeout --ssh-config
			    --help' -- "$cur"))
		else
			COMPREPLY=($(compgen -f -X '!*.yaml' -- "$cur") \
			    $(compgen -d -- "$cur"))
		fi ;;
	run-gate)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--host --workspace --write
			    --timeout --ssh-config --again --help' -- "$cur"))
		elif [[ $cur == G* ]]; then
			COMPREPLY=($(compgen -W 'G0 G1 G2 G3 G4 G5 G6 G7 G8 G9
			    G10' -- "$cur"))
		else
			COMPREPLY=($(compgen -f -X '!*.yaml' -- "$cur") \
			    $(compgen -d -- "$cur"))
		fi ;;
	repro-build)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--builds --again --help --' \
			    -- "$cur"))
		else
			COMPREPLY=($(compgen -d -- "$cur"))
		fi ;;
	watch)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--help' -- "$cur"))
		else
			COMPREPLY=($(compgen -d -- "$cur"))
		fi ;;
	cat)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--from --lines --help' -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi ;;
	release)
		if [ "${COMP_WORDS[COMP_CWORD - 1]}" = release ]; then
			COMPREPLY=($(compgen -W 'status audit verify promote
			    rollback revoke apply' -- "$cur"))
		elif [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--json --key --confirm --to
			    --actor --reason --passphrase-fd --hold --lab --host
			    --chip --workspace --no-chip-step --chip-step --timeout
			    --write --ssh-config --help' -- "$cur"))
		else
			COMPREPLY=($(compgen -d -- "$cur"))
		fi ;;
	report)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--format --write --output
			    --force --no-cache --quiet --help' -- "$cur"))
		else
			COMPREPLY=($(compgen -d -- "$cur"))
		fi ;;
	tail|kill)
		if [[ $cur == -* ]]; then
			[ "$cmd" = tail ] && w='--from --follow --jobs --help' ||
			    w='--grace --jobs --help'
			COMPREPLY=($(compgen -W "$w" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_calops_jobs \
			    "${COMP_WORDS[0]}")" -- "$cur"))
		fi ;;
	esac
}

complete -o filenames -F _calops calops
