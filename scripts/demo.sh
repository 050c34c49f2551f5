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
# The exit code is behaves' own (1: the demo has false samples on purpose).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/docker-up.sh
env_file="${BEHAVES_IMAGES_ENV:-/tmp/behaves-images.env}"
bash scripts/images.sh --only busybox,python --env-file "$env_file" >/dev/null
# shellcheck disable=SC1090
. "$env_file"
go build -o bin/behaves .
set -x
exec bin/behaves run --spec demo/behaves.yml \
	--image "python=$BEHAVES_IMAGE_PYTHON" --image "shell=$BEHAVES_IMAGE_BUSYBOX" "$@"
