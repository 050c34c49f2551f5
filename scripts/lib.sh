# shellcheck shell=bash
# Helpers shared by the scripts: building local images without a registry
# (scripts/images.sh, scripts/action-image.sh) and the pictures of the docs
# (scripts/*-picture.sh: screenshot_page). Source it after defining
# log and die; the caller sets force (1: ignore cached images), cache_dir (the
# cache folder) and work (its temporary folder, removed by remove_work).
#
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# remove_work: the EXIT trap's body. debootstrap may leave /proc, /sys or /dev
# mounted under its target on failure: unmount everything below $work (deepest
# first) before deleting, and never cross into another file system while
# deleting. The module cache is read-only: make it writable first.
remove_work() {
	local m
	if [ -d "$work" ]; then
		awk -v w="$work/" 'index($2, w) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do
			umount -l "$m" 2>/dev/null || true
		done
		chmod -R u+w "$work" 2>/dev/null || true
		rm -rf --one-file-system "$work"
	fi
}

ensure_packages() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update >&2
	apt-get install -y --no-install-recommends "${missing[@]}" >&2
}

sha() { printf '%s\n' "$@" | sha256sum | cut -d' ' -f1; }

# recipe FUNCTION...: a hash of the functions' own text, so that an edit to a recipe
# rebuilds its image while an edit elsewhere in this script (logging, options) does not.
recipe() { declare -f "$@" | sha256sum | cut -d' ' -f1; }

# cached_id REPO KEY: prints the ID of REPO:<key12> if its label matches KEY.
cached_id() {
	local repo="$1" key="$2" got
	[ "$force" = 1 ] && return 1
	got="$(docker image inspect -f '{{index .Config.Labels "behaves.cache-key"}}' "$repo:${key:0:12}" 2>/dev/null)" || return 1
	[ "$got" = "$key" ] || return 1
	docker image inspect -f '{{.Id}}' "$repo:${key:0:12}"
}

# tag_image ID REPO KEY: tags ID as REPO:<key12> and REPO:latest, and drops the
# tags of older keys (an image a container still uses stays: no -f).
tag_image() {
	local old
	docker tag "$1" "$2:${3:0:12}"
	docker tag "$1" "$2:latest"
	docker image ls --format '{{.Repository}}:{{.Tag}}' "$2" | while read -r old; do
		case "$old" in
		"$2:${3:0:12}" | "$2:latest") ;;
		*) docker rmi "$old" >/dev/null 2>&1 && log "removed the stale $old" || true ;;
		esac
	done
}

# debian_mirror: the first Debian archive URI apt uses for a main (non -updates/-security) suite.
debian_mirror() {
	if [ -n "${BEHAVES_DEBIAN_MIRROR:-}" ]; then
		printf '%s\n' "${BEHAVES_DEBIAN_MIRROR%/}"
		return
	fi
	local files=() f uri=""
	[ -f /etc/apt/sources.list ] && files+=(/etc/apt/sources.list)
	for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && files+=("$f")
	done
	if [ ${#files[@]} -gt 0 ]; then
		uri="$(awk '
			function pick(u, suites,   n, i, s) {
				if (found || u !~ /^https?:\/\//) return
				n = split(suites, s, /[ \t]+/)
				for (i = 1; i <= n; i++)
					if (s[i] != "" && s[i] !~ /-(security|updates|backports|proposed-updates)$/ && s[i] !~ /\//) {
						print u; found = 1; return
					}
			}
			function flush() {
				if (types ~ /(^|[ \t])deb([ \t]|$)/ && enabled !~ /^[Nn][Oo]$/) pick(uris, suites)
				types = ""; uris = ""; suites = ""; enabled = ""
			}
			FILENAME ~ /\.sources$/ {
				if (FNR == 1) flush()
				if ($0 ~ /^[ \t]*$/) { flush(); next }
				if ($0 ~ /^#/) next
				k = tolower($1)
				v = $0; sub(/^[^:]*:[ \t]*/, "", v)
				if (k == "types:") types = v
				else if (k == "uris:") { split(v, a, /[ \t]+/); uris = a[1] }
				else if (k == "suites:") suites = v
				else if (k == "enabled:") enabled = v
				next
			}
			{
				if (FNR == 1) flush()
				sub(/#.*/, "")
				if ($1 != "deb") next
				i = 2
				if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
				pick($i, $(i + 1))
			}
			END { flush() }
		' "${files[@]}" | head -n1)"
	fi
	printf '%s\n' "${uri:-http://deb.debian.org/debian}" | sed 's:/*$::'
}

# debootstrap_root TARGET SUITE MIRROR ARCH PACKAGES: a trimmed Debian root in
# TARGET (debootstrap --variant=minbase --include=PACKAGES, comma-separated),
# without package caches and lists, docs, logs, the host's resolver and name.
debootstrap_root() {
	local root="$1" suite="$2" mirror="$3" arch="$4" include="$5"
	ensure_packages debootstrap debian-archive-keyring
	log "debootstrap --variant=minbase --include=$include $suite from $mirror"
	debootstrap --variant=minbase --include="$include" --arch="$arch" \
		"$suite" "$root" "$mirror" >&2 ||
		{ [ -f "$root/debootstrap/debootstrap.log" ] && tail -n 30 "$root/debootstrap/debootstrap.log" >&2; die "debootstrap failed"; }
	if awk -v r="$root/" 'index($2, r) == 1 { found = 1 } END { exit !found }' /proc/mounts; then
		die "file systems still mounted under $root after debootstrap"
	fi
	rm -rf --one-file-system \
		"$root"/var/cache/apt/* "$root"/var/lib/apt/lists/* "$root"/var/cache/debconf/*-old \
		"$root"/var/log/* "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* \
		"$root"/usr/share/locale/* "$root"/usr/share/lintian "$root"/debootstrap \
		"$root"/dev/* "$root"/proc/* "$root"/sys/* "$root"/run/* "$root"/tmp/*
	: >"$root/etc/resolv.conf"
	printf 'behaves\n' >"$root/etc/hostname"
	mkdir -p "$root/tmp"
	chmod 1777 "$root/tmp"
}

# write_env FILE LINE...: replaces, in FILE, the assignments to the variables
# the LINEs assign (NAME=value) and keeps every other line (the other scripts'),
# atomically.
write_env() {
	local file="$1" line names=()
	shift
	for line in "$@"; do names+=(-e "^${line%%=*}="); done
	mkdir -p "$(dirname "$file")"
	{
		[ ! -f "$file" ] || grep -v "${names[@]}" "$file" || true
		printf '%s\n' "$@"
	} >"$file.tmp.$$"
	mv -f "$file.tmp.$$" "$file"
}

# debian_tarball NAME KEY SUITE MIRROR ARCH PACKAGES FILE: prints the path of
# the trimmed Debian root NAME (debootstrap_root with PACKAGES) kept as a
# tarball in $cache_dir under KEY, making it when it is missing (or force is
# 1), so that a pruned image store costs an import, not a debootstrap. FILE
# (relative to the root) must exist in a fresh root. Older keys' tarballs of
# NAME are deleted.
debian_tarball() {
	local name="$1" key="$2" suite="$3" mirror="$4" arch="$5" include="$6" file="$7"
	local tarball="$cache_dir/$name-${key:0:12}.tar" root="$work/$name"
	if [ "$force" != 1 ] && [ -s "$tarball" ]; then
		log "$name: the cached root file system $tarball"
		printf '%s\n' "$tarball"
		return
	fi
	log "$name: making a Debian root"
	debootstrap_root "$root" "$suite" "$mirror" "$arch" "$include"
	[ -e "$root/$file" ] || die "debootstrap produced no /$file"
	rm -f "$cache_dir/$name"-*.tar
	tar --sort=name --numeric-owner -C "$root" -cf "$tarball.tmp" .
	mv -f "$tarball.tmp" "$tarball"
	rm -rf --one-file-system "$root"
	printf '%s\n' "$tarball"
}

# image_script_args SCRIPT ARGS...: the options of the image scripts, into
# env_file (--env-file PATH, default $BEHAVES_IMAGES_ENV or
# /tmp/behaves-images.env) and force (--force); --help prints SCRIPT's header.
image_script_args() {
	local script="$1"
	shift
	env_file="${BEHAVES_IMAGES_ENV:-/tmp/behaves-images.env}"
	force=0
	while [ $# -gt 0 ]; do
		case "$1" in
		--env-file) [ $# -ge 2 ] || die "--env-file needs a path"; env_file="$2"; shift 2 ;;
		--env-file=*) env_file="${1#--env-file=}"; shift ;;
		--force) force=1; shift ;;
		-h | --help) sed -n '2,/^set -euo/p' "$script" | sed '$d; s/^# \{0,1\}//' >&2; exit 0 ;;
		*) die "unknown argument: $1 (see --help)" ;;
		esac
	done
}

# image_script_start NAME: what an image script needs before it builds: root,
# a reachable daemon, the cache folder (cache_dir), the lock NAME.lock in it
# (one build at a time on this machine: a concurrent run waits instead of
# racing), and a temporary folder (work) removed on exit.
image_script_start() {
	[ "$(id -u)" = 0 ] || die "run as root (debootstrap and the image file ownership need it)"
	command -v docker >/dev/null || die "docker CLI not found"
	docker info >/dev/null 2>&1 || die "the Docker daemon is not reachable (docker info failed)"
	cache_dir="${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/behaves"
	mkdir -p "$cache_dir"
	exec 9>"$cache_dir/$1.lock"
	if ! flock -n 9; then
		log "another run is building ($cache_dir/$1.lock); waiting for it"
		flock 9
	fi
	work="$(mktemp -d "${TMPDIR:-/tmp}/behaves-$1.XXXXXX")"
	trap remove_work EXIT
}

# screenshot_page HTML OUT WIDTH: a screenshot of the local page HTML, WIDTH
# pixels wide and exactly as tall as the page, with Debian's headless
# Chromium. The page sets document.title to "height=<pixels>" (read in a
# first pass with --dump-dom). Chromium runs as root here, which needs
# --no-sandbox; it renders only the local page, with no network. The caller
# sets work (its temporary folder).
screenshot_page() {
	local html="$1" out="$2" width="$3" height
	local chrome=(chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1)
	"${chrome[@]}" --window-size="$width,4000" --dump-dom "file://$html" >"$work/dom.html" 2>"$work/chromium.log" ||
		{ cat "$work/chromium.log" >&2; die "chromium failed"; }
	height="$(sed -n 's/.*<title>height=\([0-9]*\)<\/title>.*/\1/p' "$work/dom.html" | head -n 1)"
	[[ "$height" =~ ^[0-9]+$ ]] && [ "$height" -gt 100 ] || die "chromium gave no page height (got '$height')"
	"${chrome[@]}" --window-size="$width,$height" --screenshot="$work/shot.png" "file://$html" >>"$work/chromium.log" 2>&1 ||
		{ cat "$work/chromium.log" >&2; die "chromium failed"; }
	[ -s "$work/shot.png" ] || { cat "$work/chromium.log" >&2; die "chromium wrote no screenshot"; }
	mkdir -p "$(dirname "$out")"
	mv "$work/shot.png" "$out"
}
