#!/usr/bin/env bash
# option-table.sh - the README's table of mariabackup's options, one by one, and
# what we do with each: made from `mariabackup --help` (the installed 10.11) and
# our src/config/options.def, so the table cannot drift from either. Prints the
# markdown table on stdout (with --readme: replaces the table in README.md);
# test/check-docs.sh checks the README holds it.
set -u -o pipefail
cd "$(dirname "$0")/../.."
if [[ ${1:-} == --readme ]]; then
    table=$("$0") || exit 1
    awk -v t="$table" '/^<!-- option-table begin -->$/ {print; print t; skip=1; next}
        /^<!-- option-table end -->$/ {skip=0} !skip' README.md > README.md.tmp && mv README.md.tmp README.md
    exit
fi
command -v mariabackup >/dev/null || { echo "option-table.sh: mariabackup is not installed (make deps)" >&2; exit 1; }
def=src/config/options.def
# file options, handled by the option-file reader, not the table
file_opts=" defaults-file defaults-extra-file defaults-group-suffix no-defaults print-defaults "
echo "| mariabackup option | here |"
echo "| --- | --- |"
mariabackup --help 2>/dev/null | sed -nE 's/^  (-[a-zA-Z?], )?--([a-z0-9_-]+).*/\2/p' | sort -u | while read -r name; do
    line=$(grep -E "^XB_OPT\([A-Z_0-9]+, *\"$name\"," "$def" | head -1)
    if [[ $file_opts == *" $name "* ]]; then
        what="same"
    elif [[ -z $line ]]; then
        what="**missing**"
    else
        help=$(sed -E 's/.*, *"([^"]*)"\)$/\1/' <<<"$line")
        flags=$(awk -F', *' '{print $6}' <<<"$line")
        if [[ $flags == *OF_LATER* ]]; then
            cap=$(sed -nE 's/.*\(([^()]*)\)$/\1/p' <<<"$help")
            what="refused until implemented (${cap:-not yet available})"
        elif [[ $flags == *OF_OBSOLETE* ]]; then
            what="ignored with \"Obsolete option\", as mariabackup: $help"
        elif [[ $flags == *OF_COMPAT* ]]; then
            what="accepted, $help"
        else
            what="same"
        fi
    fi
    # where the same option does something different, say what
    case $name in
    compress) what="zstd instead of QuickLZ (files get .zst; mariabackup's .qp files are read by --decompress)" ;;
    compress-chunk-size) what="same (zstd chunks; default 1M instead of 64K)" ;;
    log-copy-interval) what="same (default 50 ms instead of 1 s)" ;;
    esac
    printf '| `--%s` | %s |\n' "$name" "$what"
done
