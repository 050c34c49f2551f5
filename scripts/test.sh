#!/usr/bin/env bash
# The test command: the one place that says how behaves is tested (the README and
# .ci/run both call it).
#
#   bash scripts/test.sh                                 # Docker, the images, every test
#   bash scripts/test.sh -run TestJudge ./internal/verdict   # extra arguments go to go test
#
# Runs `go test -race -count=1 -timeout=30m ./...` (or the packages/flags given as arguments).
# It first makes Docker available (scripts/docker-up.sh) and, unless
# BEHAVES_IMAGE_BUSYBOX is already set, builds or reuses the local test images
# (scripts/images.sh, cached by content) and loads their IDs. The integration
# tests skip without a daemon or the images only when BEHAVES_REQUIRE_DOCKER is
# not 1; CI sets it, so there they fail instead.
#
# -race needs cgo and a C compiler; without them it is left out with a warning
# (BEHAVES_RACE=0 leaves it out on purpose). CI installs gcc, so CI always races.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Docker and the images first: both steps are quick when already done (the
# images are cached by content).
bash scripts/docker-up.sh
if [ -z "${BEHAVES_IMAGE_BUSYBOX:-}" ]; then
	env_file="${BEHAVES_IMAGES_ENV:-/tmp/behaves-images.env}"
	bash scripts/images.sh --env-file "$env_file" >/dev/null
	set -a
	# shellcheck disable=SC1090
	. "$env_file"
	set +a
fi

# -timeout: go test's default of 10 minutes a package is less than
# internal/release needs on two busy cores (it builds behaves for two
# architectures twice, the second time from an empty build cache, while the
# other packages' tests run beside it). It is a guard against a hang, not a
# timing check; a -timeout given as an argument comes later and wins.
flags=(-count=1 -timeout=30m)
if [ "${BEHAVES_RACE:-1}" != 0 ]; then
	if [ "$(go env CGO_ENABLED)" = 1 ] && command -v "$(go env CC | cut -d' ' -f1)" >/dev/null 2>&1; then
		flags=(-race "${flags[@]}")
	else
		echo "test.sh: warning: cgo or a C compiler is missing, running without -race (apt-get install gcc)" >&2
	fi
fi

if [ $# -eq 0 ]; then
	set -- ./...
fi
set -x
exec go test "${flags[@]}" "$@"
