#!/usr/bin/env bash
# Builds the agent image the Docker runtime's tests run, or reuses it, and prints its name as the
# last line on stdout (everything else goes to stderr):
#   image=$(scripts/docker-test-image.sh | tail -n 1)
# No image registry is reachable from CI, so the image is made without one: Debian bookworm by
# debootstrap (minbase) with perl-base (the in-container `orange` client is a Perl script), git and
# ca-certificates, imported with `docker import`. No node: a test that needs it mounts the host's
# read-only at its own path (the scripted agents' commands name process.execPath). The tag is a
# hash of this file, so a changed recipe builds anew and a repeated run on the same machine reuses
# the image (45 to 80 s to build here, 0.05 s to reuse).
# Needs: a Docker engine that answers (scripts/docker-engine.sh), debootstrap, root (or sudo -n).
# ORANGE_DEBIAN_MIRROR overrides the Debian mirror (http://deb.debian.org/debian).
set -euo pipefail

fail() { echo "docker-test-image: $*" >&2; exit 1; }

key=$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-12)
image="orange-test-agent:$key"
mirror="${ORANGE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"

docker info >/dev/null 2>&1 || fail "no Docker engine answers 'docker info' (scripts/docker-engine.sh starts one)"
if docker image inspect "$image" >/dev/null 2>&1; then
  echo "docker-test-image: reusing $image" >&2
  echo "$image"
  exit 0
fi

debootstrap=$(command -v debootstrap 2>/dev/null || true)
[ -n "$debootstrap" ] || [ ! -x /usr/sbin/debootstrap ] || debootstrap=/usr/sbin/debootstrap
[ -n "$debootstrap" ] || fail "debootstrap is not installed (on Debian: apt-get install debootstrap)"
# debootstrap makes device files and chowns, and some of the tree is readable by root only.
if [ "$(id -u)" -eq 0 ]; then as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then as_root=(sudo -n)
else fail "building $image needs root (or sudo without a password)"; fi

# Not /tmp: it may be a tmpfs mounted nodev or noexec, where debootstrap cannot work.
work=$(mktemp -d "${TMPDIR:-/var/tmp}/orange-test-image.XXXXXX")
cleanup() { "${as_root[@]}" rm -rf --one-file-system "$work"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
root="$work/rootfs"
log="$work/debootstrap.log"
started=$SECONDS

echo "docker-test-image: building $image (debootstrap bookworm from $mirror)" >&2
if ! "${as_root[@]}" "$debootstrap" --variant=minbase --include=perl-base,git,ca-certificates \
  bookworm "$root" "$mirror" >"$log" 2>&1; then
  # debootstrap's own log says which package or download failed.
  tail -n 20 "$log" >&2
  [ -f "$root/debootstrap/debootstrap.log" ] && tail -n 20 "$root/debootstrap/debootstrap.log" >&2
  fail "debootstrap bookworm from $mirror failed (see above; ORANGE_DEBIAN_MIRROR sets another mirror)"
fi
# Smaller: no package lists, apt caches, logs, docs or manuals (nothing runs apt in the image).
"${as_root[@]}" sh -c 'cd "$1" && rm -rf var/lib/apt/lists/* var/cache/apt/*.bin var/cache/apt/archives/*.deb \
  usr/share/doc/* usr/share/man/* usr/share/info/* && find var/log -type f -delete' sh "$root" \
  || fail "could not trim the tree debootstrap made in $root"

# Imported and checked under a tag of its own, then tagged: $image never names a half-made image.
candidate="orange-test-agent:building-$key-$$"
discard() { docker image rm "$candidate" >/dev/null 2>&1 || true; }
trap 'discard; cleanup' EXIT
"${as_root[@]}" tar -C "$root" --numeric-owner -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'WORKDIR /' \
  --change 'CMD ["/bin/sh"]' \
  --message "orange test agent image, built by scripts/docker-test-image.sh" \
  - "$candidate" >/dev/null || fail "docker import of the tree debootstrap made failed"

# What the tests rely on: git, and perl as a non-root user (Orange runs containers as the host's uid).
docker run --rm "$candidate" git --version >&2 \
  && docker run --rm --user 1000:1000 "$candidate" perl -e 'print "perl $^V as uid $<\n"' >&2 \
  || fail "the image built does not run git, or perl as uid 1000; removed it"
docker tag "$candidate" "$image" || fail "could not tag $image"

echo "docker-test-image: built $image in $((SECONDS - started)) s" >&2
echo "$image"
