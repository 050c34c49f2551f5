#!/usr/bin/env bash
# Makes docs/summary.png, the README's picture of the job summary the action
# writes, from a real run of the demo:
#
#   1. runs the demo (scripts/demo.sh: Docker, the local images, behaves run)
#      with its report in a temporary folder;
#   2. writes the job summary from that report with `behaves publish`, as the
#      action does (GITHUB_STEP_SUMMARY; no token, no event: nothing is posted);
#   3. renders the Markdown as GitHub does (cmark-gfm with GitHub's
#      extensions), inside a page with GitHub-like styles, with the first
#      case's <details> opened, as a reader who clicks it sees it;
#   4. takes a screenshot with Debian's headless Chromium.
#
# cmark-gfm and chromium are installed from Debian's packages when missing.
# The figures in the picture (times, image IDs) are this machine's.
#
# Usage: bash scripts/summary-picture.sh [--out PATH]   (default docs/summary.png)
set -euo pipefail
shopt -s inherit_errexit
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export DEBIAN_FRONTEND=noninteractive

log() { printf 'summary-picture.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=scripts/lib.sh
. scripts/lib.sh # ensure_packages, screenshot_page

out=docs/summary.png
while [ $# -gt 0 ]; do
	case "$1" in
	--out) [ $# -ge 2 ] || die "--out needs a path"; out="$2"; shift 2 ;;
	--out=*) out="${1#--out=}"; shift ;;
	*) die "unknown argument $1 (usage: bash scripts/summary-picture.sh [--out PATH])" ;;
	esac
done

ensure_packages cmark-gfm chromium fonts-dejavu-core fonts-noto-color-emoji

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The demo exits 1 (it has false samples on purpose); anything else is a
# failure to make the picture from.
rc=0
bash scripts/demo.sh --report "$work/report.json" >"$work/demo.log" 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat "$work/demo.log" >&2; die "the demo exited $rc, not 1"; }

# Outside Actions (no GITHUB_ACTIONS, no event, no token) publish writes the
# summary and posts nothing.
rc=0
env -i PATH="$PATH" HOME="$HOME" GITHUB_STEP_SUMMARY="$work/summary.md" \
	bin/behaves publish --report "$work/report.json" --annotations=false >"$work/publish.log" 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat "$work/publish.log" >&2; die "behaves publish exited $rc, not 1"; }
[ -s "$work/summary.md" ] || die "behaves publish wrote no summary"

{
	cat <<'EOF'
<!doctype html>
<html><head><meta charset="utf-8"><style>
body { margin: 0; background: #fff; color: #1f2328; font: 14px/1.5 -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
main { width: 920px; box-sizing: border-box; margin: 16px; padding: 16px 24px; border: 1px solid #d0d7de; border-radius: 6px; }
h2 { font-size: 1.5em; border-bottom: 1px solid #d8dee4; padding-bottom: .3em; margin-top: 0; }
h3 { font-size: 1.25em; }
table { border-collapse: collapse; margin: 0 0 16px; }
th, td { border: 1px solid #d0d7de; padding: 6px 13px; white-space: nowrap; }
tr:nth-child(2n) { background: #f6f8fa; }
code { font: 12px "DejaVu Sans Mono", monospace; background: #eff1f3; padding: .2em .4em; border-radius: 6px; }
pre { background: #f6f8fa; padding: 12px; border-radius: 6px; overflow: hidden; }
pre code { background: none; padding: 0; }
summary { cursor: pointer; margin: 4px 0; }
a { color: #0969da; text-decoration: none; }
</style></head><body><main>
EOF
	cmark-gfm --unsafe -e table -e tagfilter -e autolink -e strikethrough "$work/summary.md"
	cat <<'EOF'
</main><script>
const d = document.querySelector("details"); if (d) d.open = true;
// The first pass (--dump-dom) reads the page's height from here.
document.title = "height=" + Math.ceil(document.querySelector("main").getBoundingClientRect().bottom + 16);
</script></body></html>
EOF
} >"$work/summary.html"

screenshot_page "$work/summary.html" "$out" 952
log "wrote $out from a run of the demo"
