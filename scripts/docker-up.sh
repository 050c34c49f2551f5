#!/usr/bin/env bash
# Makes a Docker daemon available: uses the running one, else starts the installed
# dockerd in the background, else installs Debian's docker.io and starts it.
# Exits non-zero with the reason when Docker is still unavailable. Needs root to
# start or install Docker. Used by .ci/run, scripts/test.sh and scripts/demo.sh.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

die() { printf 'docker-up: error: %s\n' "$*" >&2; exit 1; }

apt_install() {
	apt-get update
	apt-get install -y --no-install-recommends "$@"
}

wait_for_docker() {
	local i
	for i in $(seq 1 60); do
		docker info >/dev/null 2>&1 && return 0
		sleep 1
	done
	return 1
}

start_dockerd() {
	echo "starting dockerd in the background (log: /tmp/dockerd.log)"
	nohup dockerd >/tmp/dockerd.log 2>&1 &
	if ! wait_for_docker; then
		tail -n 40 /tmp/dockerd.log >&2 || true
		die "dockerd did not answer 'docker info' within 60 s (log above, /tmp/dockerd.log)"
	fi
}

docker_up() {
	if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
		echo "Docker is running"
	elif command -v dockerd >/dev/null && command -v docker >/dev/null; then
		start_dockerd
	else
		echo "Docker is not installed: installing Debian's docker.io"
		local pkgs=(docker.io)
		# Inside a container the root is usually overlayfs, where overlay2 does not
		# work; dockerd then picks fuse-overlayfs when installed (instead of the slow vfs).
		[ -e /dev/fuse ] && pkgs+=(fuse-overlayfs)
		apt_install "${pkgs[@]}"
		# The package may have started the service itself (systemd); else start it.
		if ! docker info >/dev/null 2>&1; then
			start_dockerd
		fi
	fi
	docker info --format 'Docker {{.ServerVersion}}, storage {{.Driver}}, cgroup v{{.CgroupVersion}}' ||
		die "Docker is still unavailable: the integration tests cannot run (they are never skipped in CI)"
}

docker_up >&2
