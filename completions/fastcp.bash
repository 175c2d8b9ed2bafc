# bash completion for fastcp and fastcp-bench.
# The options are read from the program's own --help, so they never fall
# behind it; the values of options that take a word are listed here.

_fastcp_longopts()
{
	"$@" --help 2>/dev/null | grep -E '^ +-' | grep -oE -- '--[a-z0-9][a-z0-9-]*(\[?=)?' |
		sed 's/\[=$/=/' | sort -u
}

_fastcp_values()
{
	case $1 in
	--symlinks) echo keep follow rewrite skip ;;
	--reflink) echo auto always never ;;
	--direct-read) echo auto always never ;;
	--no-preserve | --preserve) echo mode ownership timestamps xattr links context all ;;
	--dedup) echo off reflink hardlink ;;
	--progress) echo auto bar plain none ;;
	--sparse) echo auto always never ;;
	--update) echo all none older ;;
	--backup) echo none off numbered t existing nil simple never ;;
	--fresh-fs) echo xfs ext4 btrfs ;;
	esac
}

_fastcp_complete()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} prog=$1
	local -a cmd=("$prog")

	# fastcp-bench MODE: the mode first, then its own options
	if [[ $prog == fastcp-bench ]]; then
		if ((COMP_CWORD == 1)); then
			COMPREPLY=($(compgen -W 'gen compare disk floor files seekfs --help --version' -- "$cur"))
			return
		fi
		cmd+=("${COMP_WORDS[1]}")
		if ((COMP_CWORD == 2)) && [[ ${COMP_WORDS[1]} == gen ]] && [[ $cur != -* ]]; then
			COMPREPLY=($(compgen -W 'small folders large mixed links dupes million' -- "$cur"))
			return
		fi
	fi
	# --opt=value, and --opt value for the options that take a word
	if [[ $cur == --*=* ]]; then
		local opt=${cur%%=*}
		COMPREPLY=($(compgen -P "$opt=" -W "$(_fastcp_values "$opt")" -- "${cur#*=}"))
		[[ -n ${COMPREPLY[*]} ]] && return
		COMPREPLY=($(compgen -P "$opt=" -f -- "${cur#*=}"))
		return
	fi
	if [[ $prev == -* && -n $(_fastcp_values "$prev") ]]; then
		COMPREPLY=($(compgen -W "$(_fastcp_values "$prev")" -- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_fastcp_longopts "${cmd[@]}")" -- "$cur"))
		[[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
	compopt -o filenames 2>/dev/null
}

complete -F _fastcp_complete fastcp fastcp-bench
