#!/usr/bin/env bash
# Builds Sovia, then runs PingPongApp (a plain client and server that never heard of Sovia) without
# and with the agent, pinned to one core and to separate cores, and prints the path each connection
# took (from the agent's stats files), round trips, stream rates and the with/without ratios.
# With two JVMs it also times BareRingPing, 64-byte ping-pong over bare shared memory (the floor), and
# UnixSocketPing, the same over a UNIX domain socket (what same-host IPC costs in the kernel).
#
#   bash examples/demo.sh            two JVMs, client and server processes (the shm path)
#   bash examples/demo.sh one-jvm    client and server threads of one JVM (the jvm path)
#   ... --full                       the papers' experiments in full (below) instead of short
# Then, unless PAPERS=0, the seed papers' experiments through examples/speed.sh, short (a few minutes: fewer
# sizes, calls and rounds, the 19 MB file only): latency and bandwidth curves over message sizes, SOVIA's RPC
# experiment (RMI and gRPC) and its FTP experiment, drawn by examples/charts.sh into demo-charts/ (with
# --full: every size, SOVIA's two files, into docs/charts/, about fifteen minutes).
# Environment: APIS (default "nio net selector"), PINGS (64-byte round trips, default 200000),
# STREAM_SECONDS (how long each write size streams, timed, default 1; each stream is preceded by untimed runs
# as long again, and the pings by an untimed quarter, for the JIT),
# CSV (a file: every row below also as pinning,api,agent,rtt_us,w64_MiBps,w4096_MiBps,w65536_MiBps,paths, with
# the references as agent "bare-ring" and "unix-socket"), SKIP_BUILD=1, JAVA.
set -euo pipefail
cd "$(dirname "$0")/.."

FULL=no
ARGS=()
for arg in "$@"; do
  if [ "$arg" = --full ]; then FULL=yes; else ARGS+=("$arg"); fi
done
MODE=${ARGS[0]:-two-jvm}
APIS=${APIS:-nio net selector}
PINGS=${PINGS:-200000}
STREAM_SECONDS=${STREAM_SECONDS:-1}
CSV=${CSV:-}
JAVA=${JAVA:-java}
AGENT=$PWD/agent/target/sovia.jar
CP=$PWD/examples/target/classes
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

if [ "${SKIP_BUILD:-}" != 1 ]; then
  mvn -B -q -DskipTests package
fi

# path_of STATS_FILE -> e.g. "shm=1", the paths that carried connections
path_of() {
  sed -e 's/.*"connections": {\([^}]*\)}.*/\1/' -e 's/"//g' -e 's/: /=/g' -e 's/, / /g' "$1" |
    tr ' ' '\n' | grep -v '=0$' | tr '\n' ' ' | sed 's/ $//'
}

# field NAME FILE -> the value of NAME=... on the RESULT line
field() {
  sed -n "s/^RESULT .*$1=\([^ ]*\).*$/\1/p" "$2"
}

# run LABEL API SERVER_CPU CLIENT_CPU AGENT(yes|no): leaves $OUT/LABEL.out, and stats files with the agent
run() {
  local label=$1 api=$2 scpu=$3 ccpu=$4 agent=$5 sflags=() cflags=()
  if [ "$agent" = yes ]; then
    sflags=(-javaagent:"$AGENT" -Dsovia.stats="$OUT/$label.server.json")
    cflags=(-javaagent:"$AGENT" -Dsovia.stats="$OUT/$label.client.json")
  fi
  if [ "$MODE" = one-jvm ]; then
    local cpus=$scpu
    [ "$scpu" = "$ccpu" ] || cpus="$scpu,$ccpu"
    taskset -c "$cpus" "$JAVA" "${cflags[@]}" -cp "$CP" io.sovia.examples.PingPongApp both "$api" "$PINGS" \
      "$STREAM_SECONDS" >"$OUT/$label.out"
    return
  fi
  rm -f "$OUT/port"
  taskset -c "$scpu" "$JAVA" "${sflags[@]}" -cp "$CP" io.sovia.examples.PingPongApp server "$api" >"$OUT/port" &
  local server=$!
  for _ in $(seq 100); do grep -q PORT "$OUT/port" 2>/dev/null && break; sleep 0.1; done
  taskset -c "$ccpu" "$JAVA" "${cflags[@]}" -cp "$CP" io.sovia.examples.PingPongApp client "$api" \
    "$(sed -n 's/^PORT //p' "$OUT/port")" "$PINGS" "$STREAM_SECONDS" >"$OUT/$label.out"
  wait "$server"
}

# reference CLASS PATH SERVER_CPU CLIENT_CPU -> the round trip (us) of a reference ping-pong (BareRingPing,
# UnixSocketPing): its pong end at PATH prints READY, its ping end prints the RESULT line
reference() {
  local ready=$OUT/$1.ready
  rm -f "$ready"
  taskset -c "$3" "$JAVA" -cp "$CP" "io.sovia.examples.$1" pong "$2" >"$ready" &
  local pong=$!
  for _ in $(seq 100); do grep -q READY "$ready" 2>/dev/null && break; sleep 0.1; done
  taskset -c "$4" "$JAVA" -cp "$CP" "io.sovia.examples.$1" ping "$2" "$PINGS" >"$OUT/$1.out"
  wait "$pong"
  field rtt_us "$OUT/$1.out"
}

# bare SERVER_CPU CLIENT_CPU -> the round trip (us) of BareRingPing, the floor for the shm path
bare() {
  local file=/dev/shm/sovia-bare-$$
  rm -f "$file"
  reference BareRingPing "$file" "$1" "$2"
  rm -f "$file"
}

# csv FIELDS... -> one row appended to $CSV, when set
csv() {
  if [ -n "$CSV" ]; then
    (IFS=,; echo "$*") >>"$CSV"
  fi
}
[ -z "$CSV" ] || echo "pinning,api,agent,rtt_us,w64_MiBps,w4096_MiBps,w65536_MiBps,paths" >"$CSV"

printf '%-15s %-9s %-6s %9s %11s %11s %11s   %s\n' pinning api agent "rtt us" "64B MiB/s" "4K MiB/s" \
  "64K MiB/s" "paths (client / server)"
for pin in "same-core 0 0" "separate-cores 0 1"; do
  set -- $pin
  for api in $APIS; do
    for agent in no yes; do
      label="$1-$api-$agent"
      run "$label" "$api" "$2" "$3" "$agent"
      paths=""
      if [ "$agent" = yes ]; then
        paths="$(path_of "$OUT/$label.client.json")"
        [ -f "$OUT/$label.server.json" ] && paths="$paths / $(path_of "$OUT/$label.server.json")"
      fi
      figures=("$(field rtt_us "$OUT/$label.out")" "$(field w64_MiBps "$OUT/$label.out")" \
        "$(field w4096_MiBps "$OUT/$label.out")" "$(field w65536_MiBps "$OUT/$label.out")")
      printf '%-15s %-9s %-6s %9s %11s %11s %11s   %s\n' "$1" "$api" "$agent" "${figures[@]}" "$paths"
      csv "$1" "$api" "$agent" "${figures[@]}" "$paths"
    done
    plain="$OUT/$1-$api-no.out" sovia="$OUT/$1-$api-yes.out"
    awk -v p="$1" -v a="$api" -v r0="$(field rtt_us "$plain")" -v r1="$(field rtt_us "$sovia")" \
      -v s0="$(field w64_MiBps "$plain")" -v s1="$(field w64_MiBps "$sovia")" \
      -v m0="$(field w4096_MiBps "$plain")" -v m1="$(field w4096_MiBps "$sovia")" \
      -v l0="$(field w65536_MiBps "$plain")" -v l1="$(field w65536_MiBps "$sovia")" \
      'BEGIN { printf "%-15s %-9s ratio  %8.1fx %10.1fx %10.1fx %10.1fx   (rtt plain/sovia, streams sovia/plain)\n",
               p, a, r0 / r1, s1 / s0, m1 / m0, l1 / l0 }'
  done
  if [ "$MODE" = two-jvm ]; then
    floor=$(bare "$2" "$3")
    first_api=$(set -- $APIS; echo "$1")
    sovia=$(field rtt_us "$OUT/$1-$first_api-yes.out")
    awk -v p="$1" -v b="$floor" -v s="$sovia" -v a="$first_api" \
      -v why="(each end spins 1,000 pauses before it yields: on one core every wait burns them first)" \
      'BEGIN { printf "%-15s %-9s %-6s %9s   %s rtt with the agent is %.1fx the bare ring%s\n", p, "bare-ring", "-",
               b, a, s / b, p == "same-core" ? " " why : "" }'
    csv "$1" - bare-ring "$floor" "" "" "" ""
    uds=$(reference UnixSocketPing "$OUT/ping.sock" "$2" "$3")
    csv "$1" - unix-socket "$uds" "" "" "" ""
    awk -v p="$1" -v u="$uds" -v s="$sovia" -v a="$first_api" \
      'BEGIN { printf "%-15s %-9s %-6s %9s   %s rtt with the agent is %.2fx a UNIX socket'"'"'s\n", p, "unix-sock", "-", u, a, s / u }'
  fi
done

if [ "${PAPERS:-1}" != 0 ]; then
  echo
  echo "The seed papers' experiments (examples/speed.sh curves rpc ftp$([ "$FULL" = yes ] || echo ', short')):"
  if [ "$FULL" = yes ]; then
    CSV=papers.csv SKIP_BUILD=1 JAVA=$JAVA bash examples/speed.sh curves rpc ftp
    SKIP_BUILD=1 JAVA=$JAVA bash examples/charts.sh papers.csv docs/charts
  else
    CSV=demo-charts/papers.csv SKIP_BUILD=1 JAVA=$JAVA PINGS=20000 SECONDS_PER_RUN=1 \
      CURVE_SIZES="1 256 65536 1048576" RPC_CALLS=2000 FTP_ROUNDS=2 FTP_SIZES=19090223 \
      bash examples/speed.sh curves rpc ftp
    SKIP_BUILD=1 JAVA=$JAVA bash examples/charts.sh demo-charts/papers.csv demo-charts
  fi
fi
