#!/usr/bin/env bash
# Makes docs/terminal.png, the README's picture of what `behaves run` prints
# on a terminal, from a real run of the demo:
#
#   1. runs the demo (scripts/demo.sh: Docker, the local images, behaves run)
#      with --color always, as a terminal would get it;
#   2. turns its stdout into a page: the text HTML-escaped, and behaves' own
#      colour escapes (the only ones it prints: program output is escaped)
#      into coloured spans;
#   3. takes a screenshot with Debian's headless Chromium.
#
# chromium is installed from Debian's packages when missing. The figures in
# the picture (times, run ID, paths) are this machine's.
#
# Usage: bash scripts/terminal-picture.sh [--out PATH]   (default docs/terminal.png)
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export DEBIAN_FRONTEND=noninteractive

log() { printf 'terminal-picture.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=scripts/lib.sh
. scripts/lib.sh # ensure_packages, screenshot_page

out=docs/terminal.png
while [ $# -gt 0 ]; do
	case "$1" in
	--out) [ $# -ge 2 ] || die "--out needs a path"; out="$2"; shift 2 ;;
	--out=*) out="${1#--out=}"; shift ;;
	*) die "unknown argument $1 (usage: bash scripts/terminal-picture.sh [--out PATH])" ;;
	esac
done

ensure_packages chromium fonts-dejavu-core

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The demo exits 1 (it has false samples on purpose).
rc=0
bash scripts/demo.sh --report "$work/report.json" --color always >"$work/stdout.txt" 2>"$work/demo.log" || rc=$?
[ "$rc" = 1 ] || { cat "$work/demo.log" >&2; die "the demo exited $rc, not 1"; }
grep -q $'\e\[31mfalse' "$work/stdout.txt" || die "the run printed no colour"

{
	cat <<'HTML'
<!doctype html>
<html><head><meta charset="utf-8"><style>
body { margin: 0; background: #fff; }
pre { margin: 16px; padding: 16px; width: 1100px; box-sizing: border-box; background: #1e1e1e; color: #d4d4d4;
  font: 13px/1.45 "DejaVu Sans Mono", monospace; border-radius: 6px; white-space: pre-wrap; }
.c31 { color: #f14c4c; } .c32 { color: #23d18b; } .c33 { color: #e5e510; } .c39 { color: inherit; }
</style></head><body><pre>
HTML
	# Escape the text first, then turn behaves' SGR escapes (colour on:
	# 31, 32, 33, 39; off: 0) into spans. Nothing else in the output is an
	# escape: behaves prints every other control byte escaped.
	sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' \
		-e 's/\x1b\[\(3[1239]\)m/<span class="c\1">/g' -e 's/\x1b\[0m/<\/span>/g' "$work/stdout.txt"
	cat <<'HTML'
</pre><script>
document.title = "height=" + Math.ceil(document.querySelector("pre").getBoundingClientRect().bottom + 16);
</script></body></html>
HTML
} >"$work/terminal.html"

screenshot_page "$work/terminal.html" "$out" 1132
log "wrote $out from a run of the demo"
