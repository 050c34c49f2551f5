#!/usr/bin/env bash
# The quickstart demo: makes Docker available, builds (or reuses) the two
# local images the demo runs (busybox and python; the tests build the others
# with scripts/images.sh), builds behaves into bin/, and runs the demo spec
# end to end.
#
#   bash scripts/demo.sh [more flags for behaves run]
#
# Local image IDs differ between machines, so the demo passes them with
# --image PROFILE=sha256:<id> instead of writing them into demo/behaves.yml.
# BEHAVES_IMAGES_ENV=FILE points the demo at an images file of your own: it
# reads BEHAVES_IMAGE_BUSYBOX and BEHAVES_IMAGE_PYTHON from there and never
# writes to it (when it lacks either, both are built, or reused, and passed
# without being recorded there). Without it, the images are built (or
# reused) and recorded in /tmp/behaves-images.env, the file the tests read.
# The exit code is behaves' own (1: the demo has false samples on purpose).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/docker-up.sh
BEHAVES_IMAGE_BUSYBOX="" BEHAVES_IMAGE_PYTHON=""
if [ -n "${BEHAVES_IMAGES_ENV:-}" ] && [ -f "$BEHAVES_IMAGES_ENV" ]; then
	# shellcheck disable=SC1090
	. "$BEHAVES_IMAGES_ENV"
fi
if [ -z "$BEHAVES_IMAGE_BUSYBOX" ] || [ -z "$BEHAVES_IMAGE_PYTHON" ]; then
	# images.sh records what it built in its env file: the shared one, unless
	# the user named a file of their own, which stays as it is.
	env_file=/tmp/behaves-images.env
	[ -z "${BEHAVES_IMAGES_ENV:-}" ] || env_file="$(mktemp "${TMPDIR:-/tmp}/behaves-demo-images.XXXXXX")"
	bash scripts/images.sh --only busybox,python --env-file "$env_file" >/dev/null
	# shellcheck disable=SC1090
	. "$env_file"
	[ -z "${BEHAVES_IMAGES_ENV:-}" ] || rm -f "$env_file"
fi
go build -o bin/behaves .
set -x
exec bin/behaves run --spec demo/behaves.yml \
	--image "python=$BEHAVES_IMAGE_PYTHON" --image "shell=$BEHAVES_IMAGE_BUSYBOX" "$@"
