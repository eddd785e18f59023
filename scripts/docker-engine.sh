#!/usr/bin/env bash
# Makes sure a Docker engine answers `docker info`, for the Docker runtime's tests.
#   scripts/docker-engine.sh     nothing when an engine already answers; else starts dockerd in the
#                                background (as root, or through sudo -n) and waits for it, at most
#                                ORANGE_DOCKER_WAIT seconds (60). Installing Docker is not its job.
# Its log goes to ${RUNNER_TEMP:-/tmp}/orange-dockerd.log. On failure: one line on stderr, exit 1.
set -euo pipefail

fail() { echo "docker-engine: $*" >&2; exit 1; }
answers() { docker info >/dev/null 2>&1; }

command -v docker >/dev/null 2>&1 || fail "no docker client on PATH (on Debian: apt-get install docker.io)"
answers && exit 0
case "$(docker info 2>&1)" in
  *"permission denied"*) fail "an engine runs but this user may not use its socket (add the user to the docker group, or run as root)";;
esac

dockerd=$(command -v dockerd 2>/dev/null || true)
[ -n "$dockerd" ] || [ ! -x /usr/sbin/dockerd ] || dockerd=/usr/sbin/dockerd  # sbin: not on a user's PATH
[ -n "$dockerd" ] || fail "no engine answers 'docker info' and there is no dockerd to start (on Debian: apt-get install docker.io)"
if [ "$(id -u)" -eq 0 ]; then as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then as_root=(sudo -n)
else fail "no engine answers 'docker info', and starting dockerd needs root (or sudo without a password)"; fi

log="${RUNNER_TEMP:-/tmp}/orange-dockerd.log"
echo "docker-engine: starting dockerd (log: $log)" >&2
# setsid: dockerd outlives this script in a session of its own (a Ctrl-C in the caller's terminal
# does not stop it) and keeps running for later runs, as a system service would. --wait keeps $pid
# (setsid, or sudo around it) alive exactly as long as dockerd, whichever of them forks.
"${as_root[@]}" setsid --wait "$dockerd" >"$log" 2>&1 </dev/null &
pid=$!

deadline=$((SECONDS + ${ORANGE_DOCKER_WAIT:-60}))
until answers; do
  if [ ! -d "/proc/$pid" ] && ! answers; then
    fail "dockerd exited before answering; last lines of $log: $(tail -n 3 "$log" 2>/dev/null | tr '\n' ' ')"
  fi
  [ "$SECONDS" -lt "$deadline" ] || fail "dockerd did not answer 'docker info' within ${ORANGE_DOCKER_WAIT:-60} s (log: $log)"
  sleep 0.5
done
echo "docker-engine: dockerd answers after ${SECONDS} s" >&2
