#!/usr/bin/env bash
# The system calls of an idle standalone driver (SHARED threading, default idle strategy) that holds N two-plane UDP
# subscription channels, counted with perf for 10 s: the idle cost per channel. Needs perf and a built tree.
#
#   perf/scripts/idle-syscalls.sh [channels]      (default 10)
#   DRIVER_OPTS=-Dmetaroce.transport=batched perf/scripts/idle-syscalls.sh 10
set -euo pipefail
cd "$(dirname "$0")/../.."
CHANNELS=${1:-10}
DIR=$(mktemp -u /dev/shm/metaroce-idle-XXXXXX)
FLAGS=(--add-exports java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED
    -Dmetaroce.dir="$DIR")
# shellcheck disable=SC2086
java "${FLAGS[@]}" ${DRIVER_OPTS:-} -Dmetaroce.threading.mode=SHARED -Dmetaroce.dir.delete.on.shutdown=true \
    -cp driver-dist/target/metaroce-driver.jar io.metaroce.driver.MediaDriver >/dev/null &
DRIVER=$!
trap 'kill $DRIVER 2>/dev/null || true' EXIT
sleep 3
java "${FLAGS[@]}" -cp perf/target/benchmarks.jar io.metaroce.perf.rig.IdleChannelsProbe \
    "$CHANNELS" $((40000 + RANDOM % 2000 * 10)) 25 >/dev/null &
PROBE=$!
sleep 6
echo "idle driver with $CHANNELS subscription channels (2 planes each), 10 s:"
perf stat -e raw_syscalls:sys_enter,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_recvfrom,syscalls:sys_enter_futex \
    -p "$DRIVER" -- sleep 10 2>&1 | grep -E "sys_enter"
kill $PROBE 2>/dev/null || true
wait $PROBE 2>/dev/null || true
