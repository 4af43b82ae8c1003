#!/usr/bin/env bash
# Network-namespace topologies for MetaRoCE tests: hosts in their own network namespaces, one network per plane.
#
# Usage: netns.sh <command> [arguments]
#
#   ensure-tools                         install iproute2 and nftables if missing (root; apt-get)
#   check                                exit 0 if topologies can be built here, else print why
#                                        (exit 2: not root, 3: tools missing, 4: namespaces unusable)
#   up <topology> <planes> [<prefix>] [--hosts <n>] [--owner <pid>]         (<prefix>: 10.<x> or <x>)
#                                        create hosts <topology>-a, -b (… up to -h) joined by one network per plane
#   down <topology>                      kill every process inside, delete the namespaces (and with them the
#                                        veths, qdiscs and nft tables); succeeds if already gone
#   show <topology>                      the topology as key=value lines: hosts, planes, devices, addresses
#   list                                 topologies present, with owner PID and alive or stale
#   clean [--all]                        tear down stale topologies (owner process gone); --all: every topology
#   drop <topology> <plane> <percent> [<host>]
#                                        drop <percent> (0.01 steps, 0 removes) of UDP arriving on <plane> at
#                                        <host> (default b), at random, counted
#   rate <topology> <plane> <mbit>|off [<host>]
#                                        tc tbf on the egress of <host>'s (default a) device of <plane>
#   link <topology> <plane> down|up [<host>]
#                                        take <host>'s (default b) device of <plane> down or up
#   udp-stats <topology> <host>          the Udp: lines of /proc/net/snmp in <host>'s namespace
#   udp-sockets <topology> <host>        UDP sockets in <host>'s namespace: local address, rx queue, drops
#   nft-stats <topology> [<host>]        per host and plane: UDP packets arriving, packets dropped, drop percent
#   tc-stats <topology> [<host>]         per host and plane: root qdisc and its sent/dropped/overlimit counters
#   exec <topology> <host> <command...>  run a command inside <host>'s namespace (exec: same PID)
#
# Topology names match [a-z][a-z0-9]{0,11} (for example mr<pid>) because they prefix device names, which Linux
# limits to 15 characters. Hosts are letters a, b, c, …; planes are numbered from 0. Host <h> of plane <i> owns
# device <topology><h><i> and address <prefix>.<i>.<n> where n is 1 for a, 2 for b, …; <prefix> is "10.<x>", by
# default with <x> derived from the topology name. Two hosts are joined by one veth pair per plane; three or more
# by one bridge per plane in the namespace <topology>-sw. IPv6 is off on plane devices.
#
# Every host namespace has the nftables table "inet metaroce": a chain on the input hook counts UDP arriving on
# each plane (counter rx_plane<i>) and jumps to chain plane<i>, where "drop" puts a rule
# "numgen random mod 10000 < basis points" that drops into counter drop_plane<i>.
#
# tbf settings: rate as given, burst max(32 KiB, 1 ms at the rate) so that at least twenty full frames pass per
# timer wake-up at any rate, latency 20 ms (the queue holds 20 ms at the rate, then tbf drops). Over any interval
# T the plane carries at most rate * T + burst bytes.
#
# Only the project's own namespaces are touched: never the root namespace's devices, routes or ruleset. State
# lives in /run/metaroce-netns (METAROCE_NETNS_STATE_DIR), one file per topology, written before any namespace is
# made and removed after the last one is gone; the owner (--owner, default the caller's PID, or sudo's caller) and
# its start time tell a live topology from the leftover of a killed run: "clean" removes a topology whose owner is
# gone, so one made by hand lives as long as the shell that made it, unless --owner names another process.
set -euo pipefail

readonly STATE_DIR="${METAROCE_NETNS_STATE_DIR:-/run/metaroce-netns}"
readonly TABLE=metaroce
readonly HOST_LETTERS=abcdefgh
readonly MAX_PLANES=16
readonly TBF_LATENCY_MS=20
readonly TBF_MIN_BURST_BYTES=32768
readonly NAME_PATTERN='^[a-z][a-z0-9]{0,11}$'
UP_DONE=1

die()
{
    echo "netns.sh: $*" >&2
    exit 1
}

usage()
{
    sed -n '2,/^set -euo pipefail$/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
}

require_root()
{
    [[ ${EUID} -eq 0 ]] || die "$1 needs root (network namespaces, nftables and tc need CAP_NET_ADMIN)"
}

missing_tools()
{
    local tool
    for tool in ip tc nft flock awk; do
        command -v "${tool}" >/dev/null 2>&1 || echo "${tool}"
    done
}

require_tools()
{
    local missing
    missing="$(missing_tools | tr '\n' ' ')"
    [[ -z "${missing}" ]] || die "missing tools: ${missing}(run: $0 ensure-tools)"
}

check_name()
{
    [[ "$1" =~ ${NAME_PATTERN} ]] ||
        die "topology name '$1' must match [a-z][a-z0-9]{0,11}: it prefixes device names of at most 15 characters"
}

is_uint()
{
    [[ "$1" =~ ^(0|[1-9][0-9]{0,8})$ ]]
}

# Is $1 an integer in $2..$3?
in_range()
{
    if is_uint "$1"; then
        (($1 >= $2 && $1 <= $3))
    else
        return 1
    fi
}

host_letter()
{
    echo "${HOST_LETTERS:$1:1}"
}

host_index()
{
    local prefix="${HOST_LETTERS%%"$1"*}"
    [[ ${#1} -eq 1 && "${prefix}" != "${HOST_LETTERS}" ]] || die "host '$1' is not one of a..h"
    echo "${#prefix}"
}

lock_state()
{
    mkdir -p "${STATE_DIR}"
    exec 9>"${STATE_DIR}/.lock"
    flock -w 60 9 || die "timed out waiting for ${STATE_DIR}/.lock"
}

# The process a topology made by hand belongs to: the caller, or the caller's parent when the caller is sudo, su or
# doas (which exit at once).
default_owner()
{
    local stat fields
    if [[ "$(cat "/proc/${PPID}/comm" 2>/dev/null || true)" =~ ^(sudo|su|doas)$ ]]; then
        stat="$(cat "/proc/${PPID}/stat")"
        read -r -a fields <<< "${stat##*) }"
        echo "${fields[1]}"
    else
        echo "${PPID}"
    fi
}

process_start_time()
{
    local stat fields
    stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
    read -r -a fields <<< "${stat##*) }"
    echo "${fields[19]}"
}

# Loads the state file of topology $1 into the globals T_NAME, T_HOSTS, T_PLANES, T_PREFIX, T_OWNER, T_OWNER_START.
load_state()
{
    local file="${STATE_DIR}/$1" key value
    [[ -f "${file}" ]] || die "no topology '$1' (see: $0 list)"
    T_NAME="$1"
    T_HOSTS=""
    T_PLANES=""
    T_PREFIX=""
    T_OWNER=""
    T_OWNER_START=""
    while IFS='=' read -r key value; do
        case "${key}" in
            hosts) T_HOSTS="${value}" ;;
            planes) T_PLANES="${value}" ;;
            prefix) T_PREFIX="${value}" ;;
            owner) T_OWNER="${value}" ;;
            owner_start) T_OWNER_START="${value}" ;;
            *) ;;
        esac
    done < "${file}"
    in_range "${T_HOSTS}" 2 "${#HOST_LETTERS}" || die "corrupt state file ${file}"
    in_range "${T_PLANES}" 1 "${MAX_PLANES}" || die "corrupt state file ${file}"
}

owner_alive()
{
    [[ -n "${T_OWNER}" ]] && [[ "$(process_start_time "${T_OWNER}" || true)" == "${T_OWNER_START}" ]]
}

namespace_of()
{
    echo "${T_NAME}-$(host_letter "$1")"
}

device_of()
{
    echo "${T_NAME}$(host_letter "$1")$2"
}

address_of()
{
    echo "${T_PREFIX}.$2.$(($1 + 1))"
}

check_plane()
{
    in_range "$1" 0 $((T_PLANES - 1)) || die "plane '$1' is not in 0..$((T_PLANES - 1)) of topology ${T_NAME}"
}

check_host()
{
    local index
    index="$(host_index "$1")"
    ((index < T_HOSTS)) || die "host '$1' is not in topology ${T_NAME} (hosts: $(hosts_list))"
    echo "${index}"
}

hosts_list()
{
    echo "${HOST_LETTERS:0:${T_HOSTS}}" | sed 's/./& /g; s/ $//'
}

# Namespaces of topology $1 that exist, whatever the state file says.
existing_namespaces()
{
    ip netns list 2>/dev/null | awk -v t="$1" '$1 ~ "^" t "-(sw|[a-h])$" { print $1 }'
}

kill_namespace_processes()
{
    local namespace="$1" pids attempt
    for attempt in $(seq 1 100); do
        pids="$(ip netns pids "${namespace}" 2>/dev/null | tr '\n' ' ')"
        [[ -n "${pids// /}" ]] || return 0
        if ((attempt == 1)); then
            echo "killing processes in ${namespace}: ${pids}"
        fi
        # shellcheck disable=SC2086 # a list of PIDs
        kill -KILL ${pids} 2>/dev/null || true
        sleep 0.05
    done
    die "processes still running in ${namespace}: ${pids}"
}

teardown()
{
    local name="$1" namespace
    for namespace in $(existing_namespaces "${name}"); do
        kill_namespace_processes "${namespace}"
        ip netns del "${namespace}" 2>/dev/null || true
    done
    [[ -z "$(existing_namespaces "${name}")" ]] || die "cannot delete namespaces: $(existing_namespaces "${name}")"
    rm -f "${STATE_DIR:?}/${name}"
}

default_prefix()
{
    local sum
    sum="$(printf '%s' "$1" | cksum | awk '{ print $1 }')"
    echo "10.$((sum % 250 + 2))"
}

cmd_ensure_tools()
{
    local missing packages=()
    missing="$(missing_tools | tr '\n' ' ')"
    if [[ -z "${missing}" ]]; then
        echo "netns.sh: ip, tc, nft, flock and awk are present; nothing to install"
        return 0
    fi
    [[ "${missing}" == *ip* || "${missing}" == *tc* ]] && packages+=(iproute2)
    [[ "${missing}" == *nft* ]] && packages+=(nftables)
    [[ "${missing}" == *flock* ]] && packages+=(util-linux)
    [[ "${missing}" == *awk* ]] && packages+=(mawk)
    [[ ${EUID} -eq 0 ]] || die "missing ${missing}; installing ${packages[*]} needs root"
    command -v apt-get >/dev/null 2>&1 || die "missing ${missing}and no apt-get to install ${packages[*]}"
    echo "netns.sh: missing ${missing}-> apt-get install ${packages[*]}"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y --no-install-recommends "${packages[@]}"; then
        echo "netns.sh: install failed; running apt-get update and retrying"
        apt-get update || die "apt-get update failed"
        apt-get install -y --no-install-recommends "${packages[@]}" || die "apt-get install ${packages[*]} failed"
    fi
    missing="$(missing_tools | tr '\n' ' ')"
    [[ -z "${missing}" ]] || die "still missing after installing ${packages[*]}: ${missing}"
    echo "netns.sh: installed ${packages[*]}"
}

cmd_check()
{
    local missing error probe="mrchk$$-a"
    if [[ ${EUID} -ne 0 ]]; then
        echo "not root: network namespaces, nftables and tc need root"
        exit 2
    fi
    missing="$(missing_tools | tr '\n' ' ')"
    if [[ -n "${missing}" ]]; then
        echo "missing tools: ${missing}(run: $0 ensure-tools)"
        exit 3
    fi
    if ! error="$(ip netns add "${probe}" 2>&1)"; then
        echo "cannot create a network namespace: ${error}"
        exit 4
    fi
    trap 'ip netns del "${probe}" 2>/dev/null || true' EXIT
    ip netns del "${probe}"
    trap - EXIT
    echo "ok"
}

nft_ruleset()
{
    local host="$1" plane device
    echo "table inet ${TABLE} {"
    for ((plane = 0; plane < T_PLANES; plane++)); do
        echo "    counter rx_plane${plane} { }"
        echo "    counter drop_plane${plane} { }"
        echo "    chain plane${plane} { }"
    done
    echo "    chain input {"
    echo "        type filter hook input priority 0; policy accept;"
    for ((plane = 0; plane < T_PLANES; plane++)); do
        device="$(device_of "${host}" "${plane}")"
        echo "        iifname \"${device}\" meta l4proto udp counter name \"rx_plane${plane}\" jump plane${plane}"
    done
    echo "    }"
    echo "}"
}

make_host()
{
    local host="$1" namespace
    namespace="$(namespace_of "${host}")"
    ip netns add "${namespace}"
    ip -n "${namespace}" link set lo up
    if ip netns exec "${namespace}" test -e /proc/sys/net/ipv6/conf/default/disable_ipv6; then
        echo 1 | ip netns exec "${namespace}" tee /proc/sys/net/ipv6/conf/default/disable_ipv6 >/dev/null
    fi
    nft_ruleset "${host}" | ip netns exec "${namespace}" nft -f -
}

# Commands (one ip -batch per namespace) that configure plane devices: address and up.
host_link_commands()
{
    local host="$1" plane
    for ((plane = 0; plane < T_PLANES; plane++)); do
        echo "addr add $(address_of "${host}" "${plane}")/24 dev $(device_of "${host}" "${plane}")"
        echo "link set dev $(device_of "${host}" "${plane}") up"
    done
}

make_links()
{
    local plane host switch="${T_NAME}-sw"
    if ((T_HOSTS == 2)); then
        for ((plane = 0; plane < T_PLANES; plane++)); do
            echo "link add $(device_of 0 "${plane}") type veth peer name $(device_of 1 "${plane}") netns ${T_NAME}-b"
        done | ip -n "${T_NAME}-a" -batch -
    else
        ip netns add "${switch}"
        ip -n "${switch}" link set lo up
        for ((plane = 0; plane < T_PLANES; plane++)); do
            echo "link add br${plane} type bridge"
            echo "link set dev br${plane} up"
            for ((host = 0; host < T_HOSTS; host++)); do
                echo "link add $(host_letter "${host}")${plane} type veth peer name $(device_of "${host}" "${plane}")" \
                    "netns $(namespace_of "${host}")"
                echo "link set dev $(host_letter "${host}")${plane} master br${plane}"
                echo "link set dev $(host_letter "${host}")${plane} up"
            done
        done | ip -n "${switch}" -batch -
    fi
    for ((host = 0; host < T_HOSTS; host++)); do
        host_link_commands "${host}" | ip -n "$(namespace_of "${host}")" -batch -
    done
}

up_rollback()
{
    if ((UP_DONE == 0)); then
        echo "netns.sh: up ${T_NAME} failed; tearing down" >&2
        teardown "${T_NAME}"
    fi
}

# Waits until every named device of namespace $1 is operationally up: until then (carrier not yet seen by the
# kernel's link watcher) the device's queue discards every packet.
wait_operational()
{
    local namespace="$1" attempt device state
    shift
    for attempt in $(seq 1 250); do
        state=up
        for device in "$@"; do
            if [[ "$(ip -n "${namespace}" -br link show dev "${device}" | awk '{ print $2 }')" != UP ]]; then
                state=down
                break
            fi
        done
        [[ "${state}" == down ]] || return 0
        ((attempt < 250)) && sleep 0.02
    done
    die "devices of ${namespace} not operationally up after 5 s: $*"
}

host_devices()
{
    local plane
    for ((plane = 0; plane < T_PLANES; plane++)); do
        device_of "$1" "${plane}"
    done
}

cmd_up()
{
    local positional=() hosts=2 owner="" name planes prefix host
    while (($# > 0)); do
        case "$1" in
            --hosts) (($# >= 2)) || die "--hosts needs a value"; hosts="$2"; shift 2 ;;
            --owner) (($# >= 2)) || die "--owner needs a value"; owner="$2"; shift 2 ;;
            *) positional+=("$1"); shift ;;
        esac
    done
    ((${#positional[@]} >= 2 && ${#positional[@]} <= 3)) ||
        die "usage: up <topology> <planes> [<prefix>] [--hosts <n>] [--owner <pid>]"
    name="${positional[0]}"
    planes="${positional[1]}"
    check_name "${name}"
    in_range "${planes}" 1 "${MAX_PLANES}" || die "planes '${planes}' is not in 1..${MAX_PLANES}"
    in_range "${hosts}" 2 "${#HOST_LETTERS}" || die "hosts '${hosts}' is not in 2..${#HOST_LETTERS}"
    owner="${owner:-$(default_owner)}"
    is_uint "${owner}" || die "owner '${owner}' is not a PID"
    prefix="${positional[2]:-$(default_prefix "${name}")}"
    [[ "${prefix}" =~ ^[0-9]{1,3}$ ]] && prefix="10.${prefix}"
    [[ "${prefix}" =~ ^10\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$ ]] ||
        die "prefix '${prefix}' must be 10.<0..255>: planes use <prefix>.<plane>.<host>/24"
    require_root "up"
    require_tools
    lock_state
    [[ ! -e "${STATE_DIR}/${name}" && -z "$(existing_namespaces "${name}")" ]] ||
        die "topology ${name} already exists (netns.sh down ${name} removes it)"
    printf 'hosts=%s\nplanes=%s\nprefix=%s\nowner=%s\nowner_start=%s\n' "${hosts}" "${planes}" "${prefix}" \
        "${owner}" "$(process_start_time "${owner}" || echo gone)" > "${STATE_DIR}/${name}"
    load_state "${name}"
    UP_DONE=0
    trap up_rollback EXIT
    for ((host = 0; host < T_HOSTS; host++)); do
        make_host "${host}"
    done
    make_links
    for ((host = 0; host < T_HOSTS; host++)); do
        # shellcheck disable=SC2046 # device names have no spaces
        wait_operational "$(namespace_of "${host}")" $(host_devices "${host}")
    done
    UP_DONE=1
    trap - EXIT
    cmd_show "${name}"
}

cmd_down()
{
    (($# == 1)) || die "usage: down <topology>"
    check_name "$1"
    require_root "down"
    lock_state
    teardown "$1"
}

cmd_show()
{
    local host plane
    (($# == 1)) || die "usage: show <topology>"
    check_name "$1"
    load_state "$1"
    echo "topology=${T_NAME} hosts=${T_HOSTS} planes=${T_PLANES} prefix=${T_PREFIX} owner=${T_OWNER}"
    for ((host = 0; host < T_HOSTS; host++)); do
        for ((plane = 0; plane < T_PLANES; plane++)); do
            echo "host=$(host_letter "${host}") plane=${plane} namespace=$(namespace_of "${host}")" \
                "device=$(device_of "${host}" "${plane}") address=$(address_of "${host}" "${plane}")"
        done
    done
}

cmd_list()
{
    local file name status
    [[ -d "${STATE_DIR}" ]] || return 0
    for file in "${STATE_DIR}"/*; do
        [[ -f "${file}" ]] || continue
        name="${file##*/}"
        load_state "${name}"
        status=stale
        owner_alive && status=alive
        echo "${name} hosts=${T_HOSTS} planes=${T_PLANES} prefix=${T_PREFIX} owner=${T_OWNER} status=${status}" \
            "namespaces=$(existing_namespaces "${name}" | tr '\n' ',' | sed 's/,$//')"
    done
}

cmd_clean()
{
    local all=0 file name
    case "${1:-}" in
        --all) all=1 ;;
        "") ;;
        *) die "usage: clean [--all]" ;;
    esac
    require_root "clean"
    lock_state
    for file in "${STATE_DIR}"/*; do
        [[ -f "${file}" ]] || continue
        name="${file##*/}"
        [[ "${name}" =~ ${NAME_PATTERN} ]] || continue
        load_state "${name}"
        if ((all == 1)) || ! owner_alive; then
            echo "netns.sh: removing topology ${name} (owner ${T_OWNER})"
            teardown "${name}"
        fi
    done
}

# Converts a percentage with at most two decimals (0.01 steps) into basis points (0..10000).
basis_points()
{
    [[ "$1" =~ ^([0-9]{1,3})(\.([0-9]{1,2}))?$ ]] || die "percent '$1' must be 0..100 in steps of 0.01"
    local whole="${BASH_REMATCH[1]}" fraction="${BASH_REMATCH[3]:-0}"
    [[ ${#fraction} -eq 1 ]] && fraction="${fraction}0"
    local points=$((10#${whole} * 100 + 10#${fraction}))
    ((points <= 10000)) || die "percent '$1' is above 100"
    echo "${points}"
}

cmd_drop()
{
    ((${#} >= 3 && ${#} <= 4)) || die "usage: drop <topology> <plane> <percent> [<host>]"
    check_name "$1"
    load_state "$1"
    check_plane "$2"
    local points host namespace
    points="$(basis_points "$3")"
    host="$(check_host "${4:-b}")"
    namespace="$(namespace_of "${host}")"
    {
        echo "flush chain inet ${TABLE} plane$2"
        if ((points > 0)); then
            echo "add rule inet ${TABLE} plane$2 numgen random mod 10000 lt ${points} counter name \"drop_plane$2\" drop"
        fi
    } | ip netns exec "${namespace}" nft -f -
}

cmd_rate()
{
    ((${#} >= 3 && ${#} <= 4)) || die "usage: rate <topology> <plane> <mbit>|off [<host>]"
    check_name "$1"
    load_state "$1"
    check_plane "$2"
    local host namespace device burst
    host="$(check_host "${4:-a}")"
    namespace="$(namespace_of "${host}")"
    device="$(device_of "${host}" "$2")"
    if [[ "$3" == off ]]; then
        if tc -n "${namespace}" qdisc show dev "${device}" root | grep -q '^qdisc tbf '; then
            tc -n "${namespace}" qdisc del dev "${device}" root
        fi
        return 0
    fi
    in_range "$3" 1 100000 || die "rate '$3' must be 1..100000 (mbit) or off"
    burst=$(($3 * 125))
    ((burst >= TBF_MIN_BURST_BYTES)) || burst=${TBF_MIN_BURST_BYTES}
    tc -n "${namespace}" qdisc replace dev "${device}" root tbf rate "$3mbit" burst "${burst}" \
        latency "${TBF_LATENCY_MS}ms"
}

cmd_link()
{
    ((${#} >= 3 && ${#} <= 4)) || die "usage: link <topology> <plane> down|up [<host>]"
    check_name "$1"
    load_state "$1"
    check_plane "$2"
    [[ "$3" == down || "$3" == up ]] || die "link state '$3' must be down or up"
    local host namespace device
    host="$(check_host "${4:-b}")"
    namespace="$(namespace_of "${host}")"
    device="$(device_of "${host}" "$2")"
    ip -n "${namespace}" link set dev "${device}" "$3"
    if [[ "$3" == up ]]; then
        wait_operational "${namespace}" "${device}"
    fi
}

cmd_udp_stats()
{
    (($# == 2)) || die "usage: udp-stats <topology> <host>"
    check_name "$1"
    load_state "$1"
    local host
    host="$(check_host "$2")"
    ip netns exec "$(namespace_of "${host}")" grep '^Udp:' /proc/net/snmp
}

# /proc/net/udp prints an IPv4 address as the hexadecimal of a host-order read of the network-order bytes: on a
# little-endian machine the octets come out reversed.
hex_address()
{
    local hex="$1"
    printf '%d.%d.%d.%d' "0x${hex:6:2}" "0x${hex:4:2}" "0x${hex:2:2}" "0x${hex:0:2}"
}

cmd_udp_sockets()
{
    (($# == 2)) || die "usage: udp-sockets <topology> <host>"
    check_name "$1"
    load_state "$1"
    local host local_address queues rest address port
    host="$(check_host "$2")"
    ip netns exec "$(namespace_of "${host}")" cat /proc/net/udp | tail -n +2 |
        while read -r _ local_address _ _ queues rest; do
            address="$(hex_address "${local_address%%:*}")"
            port=$((16#${local_address##*:}))
            echo "local=${address}:${port} rx_queue=$((16#${queues##*:})) drops=${rest##* }"
        done
}

nft_counter_values()
{
    ip netns exec "$1" nft list counters table inet "${TABLE}" |
        awk '$1 == "counter" { name = $2 } $1 == "packets" { print name, $2, $4 }'
}

cmd_nft_stats()
{
    ((${#} >= 1 && ${#} <= 2)) || die "usage: nft-stats <topology> [<host>]"
    check_name "$1"
    load_state "$1"
    local hosts host namespace values plane points rule
    if (($# == 2)); then hosts="$(check_host "$2")"; else hosts="$(seq 0 $((T_HOSTS - 1)))"; fi
    for host in ${hosts}; do
        namespace="$(namespace_of "${host}")"
        values="$(nft_counter_values "${namespace}")"
        for ((plane = 0; plane < T_PLANES; plane++)); do
            rule="$(ip netns exec "${namespace}" nft list chain inet "${TABLE}" "plane${plane}")"
            points="$(echo "${rule}" | sed -n 's/.*numgen random mod 10000 < \([0-9]*\).*/\1/p')"
            points="${points:-0}"
            echo "${values}" | awk -v h="$(host_letter "${host}")" -v p="${plane}" -v bp="${points}" '
                $1 == "rx_plane" p { rxp = $2; rxb = $3 }
                $1 == "drop_plane" p { dp = $2; db = $3 }
                END {
                    printf "host=%s plane=%s rx_packets=%d rx_bytes=%d drop_packets=%d drop_bytes=%d " \
                        "drop_percent=%d.%02d\n", h, p, rxp, rxb, dp, db, bp / 100, bp % 100
                }'
        done
    done
}

json_number()
{
    local value
    value="$(echo "$1" | grep -o "\"$2\":[0-9]*" | head -n 1 | cut -d: -f2 || true)"
    echo "${value:-0}"
}

cmd_tc_stats()
{
    ((${#} >= 1 && ${#} <= 2)) || die "usage: tc-stats <topology> [<host>]"
    check_name "$1"
    load_state "$1"
    local hosts host plane json kind
    if (($# == 2)); then hosts="$(check_host "$2")"; else hosts="$(seq 0 $((T_HOSTS - 1)))"; fi
    for host in ${hosts}; do
        for ((plane = 0; plane < T_PLANES; plane++)); do
            json="$(tc -n "$(namespace_of "${host}")" -j -s qdisc show dev "$(device_of "${host}" "${plane}")" root)"
            kind="$(echo "${json}" | grep -o '"kind":"[a-z_]*"' | head -n 1 | cut -d'"' -f4)"
            echo "host=$(host_letter "${host}") plane=${plane} qdisc=${kind:-none}" \
                "sent_bytes=$(json_number "${json}" bytes) sent_packets=$(json_number "${json}" packets)" \
                "dropped=$(json_number "${json}" drops) overlimits=$(json_number "${json}" overlimits)" \
                "backlog_bytes=$(json_number "${json}" backlog) backlog_packets=$(json_number "${json}" qlen)"
        done
    done
}

cmd_exec()
{
    (($# >= 3)) || die "usage: exec <topology> <host> <command...>"
    check_name "$1"
    load_state "$1"
    local host
    host="$(check_host "$2")"
    shift 2
    exec ip netns exec "$(namespace_of "${host}")" "$@"
}

main()
{
    local command="${1:-help}"
    shift || true
    case "${command}" in
        ensure-tools) cmd_ensure_tools "$@" ;;
        check) cmd_check "$@" ;;
        up) cmd_up "$@" ;;
        down) cmd_down "$@" ;;
        show) cmd_show "$@" ;;
        list) cmd_list "$@" ;;
        clean) cmd_clean "$@" ;;
        drop) cmd_drop "$@" ;;
        rate) cmd_rate "$@" ;;
        link) cmd_link "$@" ;;
        udp-stats) cmd_udp_stats "$@" ;;
        udp-sockets) cmd_udp_sockets "$@" ;;
        nft-stats) cmd_nft_stats "$@" ;;
        tc-stats) cmd_tc_stats "$@" ;;
        exec) cmd_exec "$@" ;;
        help | -h | --help) usage ;;
        *) usage >&2; die "unknown command '${command}'" ;;
    esac
}

main "$@"
