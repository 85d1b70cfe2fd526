#!/usr/bin/env bash
# Builds Sovia, then runs PingPongApp (plain NIO, never heard of Sovia) as two JVMs on this host,
# without and with the agent, pinned to one core and to separate cores. Prints the path each
# connection took (from the agent's stats files) and the with/without ratios.
#
#   bash examples/demo.sh            two JVMs (client and server processes)
#   bash examples/demo.sh one-jvm    client and server threads in one JVM (the jvm path)
# Environment: PINGS (64-byte round trips), MIB (streamed in 64 KiB writes), SKIP_BUILD=1, JAVA.
set -euo pipefail
MODE=${1:-two-jvm}
cd "$(dirname "$0")/.."

PINGS=${PINGS:-20000}
MIB=${MIB:-512}
JAVA=${JAVA:-java}
AGENT=$PWD/agent/target/sovia.jar
CP=$PWD/examples/target/classes
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

if [ "${SKIP_BUILD:-}" != 1 ]; then
  mvn -B -q -DskipTests package
fi

# path_of STATS_FILE -> "tcp=1" style list of the paths that carried connections
path_of() {
  sed -e 's/.*"connections": {\([^}]*\)}.*/\1/' -e 's/"//g' -e 's/: /=/g' -e 's/, / /g' "$1" |
    tr ' ' '\n' | grep -v '=0$' | tr '\n' ' '
}

# run_one LABEL CPUS AGENT(yes|no): client and server in one JVM -> sets RTT, TP and PATHS
run_one() {
  local label=$1 cpus=$2 agent=$3 flags=()
  if [ "$agent" = yes ]; then
    flags=(-javaagent:"$AGENT" -Dsovia.stats="$OUT/$label.json")
  fi
  taskset -c "$cpus" "$JAVA" "${flags[@]}" -cp "$CP" io.sovia.examples.PingPongApp both "$PINGS" "$MIB" >"$OUT/$label.out"
  RTT=$(sed -n 's/^RESULT rtt_us=\([^ ]*\) .*$/\1/p' "$OUT/$label.out")
  TP=$(sed -n 's/^RESULT .* stream_MiBps=\(.*\)$/\1/p' "$OUT/$label.out")
  PATHS=""
  if [ "$agent" = yes ]; then
    PATHS="both ends on [$(path_of "$OUT/$label.json")]"
  fi
}

# run LABEL SERVER_CPU CLIENT_CPU AGENT(yes|no) -> sets RTT and TP (no subshell: the EXIT trap must stay)
run() {
  local label=$1 scpu=$2 ccpu=$3 agent=$4 sflags=() cflags=()
  if [ "$agent" = yes ]; then
    sflags=(-javaagent:"$AGENT" -Dsovia.stats="$OUT/$label.server.json")
    cflags=(-javaagent:"$AGENT" -Dsovia.stats="$OUT/$label.client.json")
  fi
  rm -f "$OUT/port"
  taskset -c "$scpu" "$JAVA" "${sflags[@]}" -cp "$CP" io.sovia.examples.PingPongApp server >"$OUT/port" &
  local server=$!
  for _ in $(seq 100); do grep -q PORT "$OUT/port" 2>/dev/null && break; sleep 0.1; done
  local port
  port=$(sed -n 's/^PORT //p' "$OUT/port")
  taskset -c "$ccpu" "$JAVA" "${cflags[@]}" -cp "$CP" io.sovia.examples.PingPongApp client "$port" "$PINGS" "$MIB" >"$OUT/$label.out"
  wait "$server"
  RTT=$(sed -n 's/^RESULT rtt_us=\([^ ]*\) .*$/\1/p' "$OUT/$label.out")
  TP=$(sed -n 's/^RESULT .* stream_MiBps=\(.*\)$/\1/p' "$OUT/$label.out")
  PATHS=""
  if [ "$agent" = yes ]; then
    PATHS="client on [$(path_of "$OUT/$label.client.json")] server on [$(path_of "$OUT/$label.server.json")]"
  fi
}

printf '%-15s %-6s %10s %15s   %s\n' pinning agent "rtt (us)" "stream (MiB/s)" "connection paths"
for pin in "same-core 0 0" "separate-cores 0 1"; do
  set -- $pin
  if [ "$MODE" = one-jvm ]; then
    cpus=$2; [ "$2" = "$3" ] || cpus="$2,$3"
    run_one "$1-plain" "$cpus" no
  else
    run "$1-plain" "$2" "$3" no
  fi
  rtt0=$RTT tp0=$TP
  printf '%-15s %-6s %10s %15s\n' "$1" no "$rtt0" "$tp0"
  if [ "$MODE" = one-jvm ]; then
    run_one "$1-sovia" "$cpus" yes
  else
    run "$1-sovia" "$2" "$3" yes
  fi
  printf '%-15s %-6s %10s %15s   %s\n' "$1" yes "$RTT" "$TP" "$PATHS"
  awk -v a="$rtt0" -v b="$RTT" -v c="$tp0" -v d="$TP" -v p="$1" \
    'BEGIN { printf "%-15s ratio: rtt plain/sovia = %.2fx, stream sovia/plain = %.2fx\n", p, a / b, d / c }'
done
