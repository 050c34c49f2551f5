#!/usr/bin/env bash
# Makes docs/html-report.png, the docs' picture of the HTML report, from a
# real run of the demo:
#
#   1. runs the demo (scripts/demo.sh: Docker, the local images, behaves run)
#      with its report in a temporary folder;
#   2. renders the page with `behaves html`, as the action's html input does;
#   3. takes a screenshot of its top with Debian's headless Chromium, the
#      page's own script running under its Content-Security-Policy (the
#      page is not edited: a script added to it would be refused).
#
# chromium and its fonts are installed from Debian's packages when missing.
# The figures in the picture (times, run ID) are this machine's.
#
# Usage: bash scripts/html-picture.sh [--out PATH] [--height PIXELS]
#        (default docs/html-report.png, 1500)
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export DEBIAN_FRONTEND=noninteractive

log() { printf 'html-picture.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=scripts/lib.sh
. scripts/lib.sh # ensure_packages

out=docs/html-report.png
height=1500
while [ $# -gt 0 ]; do
	case "$1" in
	--out) [ $# -ge 2 ] || die "--out needs a path"; out="$2"; shift 2 ;;
	--out=*) out="${1#--out=}"; shift ;;
	--height) [ $# -ge 2 ] || die "--height needs a number"; height="$2"; shift 2 ;;
	--height=*) height="${1#--height=}"; shift ;;
	*) die "unknown argument $1 (usage: bash scripts/html-picture.sh [--out PATH] [--height PIXELS])" ;;
	esac
done
[[ "$height" =~ ^[0-9]+$ ]] && [ "$height" -ge 200 ] || die "--height wants a number of pixels, 200 or more"

ensure_packages chromium fonts-dejavu-core

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The demo exits 1 (it has false samples on purpose); anything else is a
# failure to make the picture from.
rc=0
bash scripts/demo.sh --report "$work/report.json" >"$work/demo.log" 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat "$work/demo.log" >&2; die "the demo exited $rc, not 1"; }

bin/behaves html --report "$work/report.json" -o "$work/report.html" >"$work/html.log" 2>&1 ||
	{ cat "$work/html.log" >&2; die "behaves html failed"; }

mkdir -p "$(dirname "$out")"
# Chromium runs as root here, which needs --no-sandbox; it loads only the
# page made above, from a local file. The first pass checks, through the
# DOM it dumps, that the page's script ran (it sets data-filter="ready" on
# <html>; a CSP refusal would leave the page without it).
chrome=(chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1
	--user-data-dir="$work/profile" --window-size="1280,$height")
"${chrome[@]}" --dump-dom "file://$work/report.html" >"$work/dom.html" 2>"$work/chromium.log" ||
	{ cat "$work/chromium.log" >&2; die "chromium failed"; }
grep -q 'data-filter="ready"' "$work/dom.html" || { cat "$work/chromium.log" >&2; die "the page's script did not run"; }
"${chrome[@]}" --screenshot="$work/shot.png" "file://$work/report.html" >>"$work/chromium.log" 2>&1 ||
	{ cat "$work/chromium.log" >&2; die "chromium failed"; }
[ -s "$work/shot.png" ] || { cat "$work/chromium.log" >&2; die "chromium wrote no screenshot"; }
mv "$work/shot.png" "$out"
log "wrote $out from a run of the demo"
