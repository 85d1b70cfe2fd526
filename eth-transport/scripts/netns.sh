#!/usr/bin/env bash
# Network namespaces for Sovia's multi-host raw-Ethernet tests (root only; nothing leaves these namespaces).
#
#   netns.sh up-direct [MTU]    PREFIX-a (sva 10.77.0.1/24) <-veth-> PREFIX-b (svb 10.77.0.2/24)
#   netns.sh up-bridged [MTU]   PREFIX-a (sva) <-veth-> PREFIX-br (bra) ... (brb) PREFIX-br <-veth-> PREFIX-b (svb);
#                               PREFIX-br has no kernel bridge: run ethbridge there (this script does not start it):
#                               ip netns exec PREFIX-br ethbridge bra brb [--seed N --drop P --dup P --reorder P]
#   netns.sh up-root [MTU]      PREFIX-a (sva 10.77.9.2/24) <-veth-> this namespace (SOVIA_ROOT_IF, 10.77.9.1/24): a
#                               second host for a process that cannot move into a namespace (a test JVM)
#   netns.sh down               deletes the three namespaces (SIGTERM, then SIGKILL, to any process left inside)
#
# MTU defaults to 1500 and is set on every veth end (jumbo: 9000). Both up-* first tear down what a previous run
# left, bring lo and the veths up and disable IPv6 on the veths (no router solicitations or DAD in the captures).
# up-bridged also sets gso_max_size to the MTU on sva and svb, so that TCP sends wire-sized frames through the
# bridge (its faults are per frame) instead of 64 KiB GSO super-frames.
# Environment:
#   SOVIA_NS_PREFIX   namespace prefix (default sovia), so that two runs can coexist; interface names do not depend
#                     on it (each lives in its own namespace)
#   SOVIA_ROOT_IF     up-root: the name of the veth end in this namespace (default sovia-root)
#   SOVIA_HOSTS_OUT   if set, the file to write the host table to, one line "IP MAC IFNAME" per end, e.g.
#                     "10.77.0.1 6a:1f:..:..:..:.. sva" (IFNAME is the interface inside that host's namespace)
# Exit status 77 (skip) if not root, or if namespaces or veth pairs cannot be created.
set -euo pipefail

PREFIX=${SOVIA_NS_PREFIX:-sovia}
NS_A=$PREFIX-a
NS_B=$PREFIX-b
NS_BR=$PREFIX-br
IP_A=10.77.0.1
IP_B=10.77.0.2
ROOT_IP=10.77.9.1
ROOT_PEER_IP=10.77.9.2
ROOT_IF=${SOVIA_ROOT_IF:-sovia-root}

say() { echo "netns.sh: $*" >&2; }
skip() { say "SKIP: $*"; exit 77; }
usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[[ $PREFIX =~ ^[A-Za-z0-9_.-]{1,40}$ ]] || { say "bad SOVIA_NS_PREFIX '$PREFIX'"; exit 2; }

ns_exists() { [[ -e /run/netns/$1 || -e /var/run/netns/$1 ]]; }

do_down() {
  local ns pids
  for ns in "$NS_BR" "$NS_A" "$NS_B"; do
    ns_exists "$ns" || continue
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    if [[ -n $pids ]]; then
      kill -TERM $pids 2>/dev/null || true
      for _ in 1 2 3 4 5 6 7 8 9 10; do
        pids=$(ip netns pids "$ns" 2>/dev/null || true)
        [[ -z $pids ]] && break
        sleep 0.1
      done
      [[ -n $pids ]] && kill -KILL $pids 2>/dev/null || true
    fi
    ip netns del "$ns" 2>/dev/null || true
  done
  return 0
}

check_mtu() {
  [[ $1 =~ ^[0-9]+$ ]] && (( $1 >= 68 && $1 <= 65535 )) || { say "bad MTU '$1' (68..65535)"; exit 2; }
}

add_ns() {
  ip netns add "$1" 2>/dev/null || skip "cannot create network namespace $1 (needs root and CONFIG_NET_NS)"
  ip -n "$1" link set lo up
}

# veth NS1 IF1 NS2 IF2 MTU: a veth pair created directly inside the two namespaces (never in the caller's)
veth() {
  ip link add name "$2" netns "$1" mtu "$5" type veth peer name "$4" netns "$3" mtu "$5" 2>/dev/null \
    || skip "cannot create veth pair $1:$2 <-> $3:$4 (CONFIG_VETH?)"
  no_ipv6 "$1" "$2"
  no_ipv6 "$3" "$4"
  ip -n "$1" link set "$2" up
  ip -n "$3" link set "$4" up
}

no_ipv6() {
  [[ -d /proc/sys/net/ipv6 ]] || return 0
  ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1"
}

mac_of() { # NS IF
  ip -n "$1" -o link show dev "$2" | sed -n 's|.*link/ether \([0-9a-f:]\{17\}\).*|\1|p'
}

wait_carrier() { # NS IF: veth reports carrier a moment after both ends are up
  local i
  for (( i = 0; i < 50; i++ )); do
    ip -n "$1" -o link show dev "$2" | grep -q 'NO-CARRIER' || return 0
    sleep 0.02
  done
  say "warning: $1:$2 has no carrier yet"
}

hosts_out() { # [root]: the pair of up-root
  [[ -n ${SOVIA_HOSTS_OUT:-} ]] || return 0
  local tmp=$SOVIA_HOSTS_OUT.tmp.$$
  if [[ ${1:-} == root ]]; then
    printf '%s %s %s\n' "$ROOT_IP" "$(ip -o link show dev "$ROOT_IF" | sed -n 's|.*link/ether \([0-9a-f:]\{17\}\).*|\1|p')" \
      "$ROOT_IF" "$ROOT_PEER_IP" "$(mac_of "$NS_A" sva)" sva >"$tmp"
  else
    printf '%s %s %s\n' "$IP_A" "$(mac_of "$NS_A" sva)" sva "$IP_B" "$(mac_of "$NS_B" svb)" svb >"$tmp"
  fi
  mv -f "$tmp" "$SOVIA_HOSTS_OUT"
}

do_up_root() { # MTU
  local mtu=$1
  check_mtu "$mtu"
  do_down
  ip link del "$ROOT_IF" 2>/dev/null || true
  up_guard
  add_ns "$NS_A"
  ip link add name "$ROOT_IF" mtu "$mtu" type veth peer name sva netns "$NS_A" mtu "$mtu" 2>/dev/null \
    || skip "cannot create veth pair $ROOT_IF <-> $NS_A:sva (CONFIG_VETH?)"
  [[ -d /proc/sys/net/ipv6 ]] && sysctl -qw "net.ipv6.conf.$ROOT_IF.disable_ipv6=1"
  no_ipv6 "$NS_A" sva
  ip link set "$ROOT_IF" up
  ip -n "$NS_A" link set sva up
  ip addr add "$ROOT_IP/24" dev "$ROOT_IF"
  ip -n "$NS_A" addr add "$ROOT_PEER_IP/24" dev sva
  wait_carrier "$NS_A" sva
  hosts_out root
  say "up-root: $ROOT_IF $ROOT_IP <-> $NS_A:sva $ROOT_PEER_IP $(mac_of "$NS_A" sva), mtu $mtu"
}

# on any failure during up-*, remove what was created
up_guard() { trap 'rc=$?; trap - EXIT; if (( rc != 0 )); then do_down; fi; exit $rc' EXIT; }

do_up() { # MODE MTU
  local mode=$1 mtu=$2
  check_mtu "$mtu"
  do_down
  up_guard
  add_ns "$NS_A"
  add_ns "$NS_B"
  if [[ $mode == direct ]]; then
    veth "$NS_A" sva "$NS_B" svb "$mtu"
  else
    add_ns "$NS_BR"
    veth "$NS_A" sva "$NS_BR" bra "$mtu"
    veth "$NS_B" svb "$NS_BR" brb "$mtu"
    # one skb per wire frame: veth would otherwise hand TCP's 64 KiB TSO/GSO super-frames to the bridge, whose
    # per-frame faults would then hit 40 segments at once
    ip -n "$NS_A" link set sva gso_max_size "$mtu" && ip -n "$NS_B" link set svb gso_max_size "$mtu" \
      || say "warning: cannot limit gso_max_size; TCP super-frames will cross the bridge whole"
  fi
  ip -n "$NS_A" addr add "$IP_A/24" dev sva
  ip -n "$NS_B" addr add "$IP_B/24" dev svb
  wait_carrier "$NS_A" sva
  wait_carrier "$NS_B" svb
  if [[ $mode == bridged ]]; then
    wait_carrier "$NS_BR" bra
    wait_carrier "$NS_BR" brb
  fi
  hosts_out
  say "up-$mode: $NS_A:sva $IP_A $(mac_of "$NS_A" sva) <-> $NS_B:svb $IP_B $(mac_of "$NS_B" svb), mtu $mtu$(
    [[ $mode == bridged ]] && echo ", via $NS_BR:bra/brb (start ethbridge there)")"
}

(( $# >= 1 )) || usage
[[ $EUID -eq 0 ]] || skip "root required (network namespaces)"
command -v ip >/dev/null || skip "iproute2 'ip' not found"

case $1 in
  up-direct)  (( $# <= 2 )) || usage; do_up direct "${2:-1500}" ;;
  up-bridged) (( $# <= 2 )) || usage; do_up bridged "${2:-1500}" ;;
  up-root)    (( $# <= 2 )) || usage; do_up_root "${2:-1500}" ;;
  down)       (( $# == 1 )) || usage; do_down ;;
  *)          usage ;;
esac
