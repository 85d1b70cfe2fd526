#!/usr/bin/env bash
# The eth speed benchmark: two "hosts" (network namespaces joined by a veth pair, eth-transport/scripts/netns.sh),
# the same unmodified apps without the agent (JDK TCP) and with it on both ends (Sovia's raw Ethernet path), the
# client pinned to cpu0 in PREFIX-a (10.77.0.1), the server to cpu1 in PREFIX-b (10.77.0.2). Each run with the
# agent must have gone over eth (both ends' stats files count an eth connection and no TCP one). Prints every
# figure as it is measured, then a table against the targets, and writes every figure as CSV.
#
#   bash examples/eth-speed.sh                 every section
#   bash examples/eth-speed.sh rtt jumbo       only those sections
#
# Sections:
#   rtt      MTU 1500: round trips of PING_SIZES-byte pings (PingPongApp nio, TCP_NODELAY, demo.ping.bytes), and
#            the ring floor: ringpong (C, two busy-polled TPACKET_V2 rings, no JVM, no protocol) with frames as
#            long as the eth path's for the same ping: payload + 72 bytes of headers (14 Ethernet, 26 Sovia,
#            32 engine frame; TCP/IPv4 with timestamps would be 66), i.e. 136 and 1096 bytes on the wire
#   streams  MTU 1500: one-way throughput, StreamApp direct 64 KiB writes for SECONDS_PER_RUN, and the raw floor:
#            ringpong blast (MTU-sized frames, 32 per sendmmsg) into ringpong sink (a busy-polled TPACKET_V2 ring),
#            no protocol, no flow control, what the sink received (whole frames)
#   jumbo    MTU 9000: the same stream and floor
#   conns    MTU 1500: CONNS connections at once (ManyPingApp: a thread per connection at both ends, each
#            ping-ponging 64 B with TCP_NODELAY), round trips a second over all of them for SECONDS_PER_RUN; with
#            the agent, how many connections went over eth (a connect whose hello is not answered within
#            sovia.eth.connect.millis uses TCP: counted, not a failure)
#   busy     MTU 1500: 64 B round trips as in rtt (PINGS/2 of them) with a CPU-bound process pinned to each
#            core, so no wait spins and each message wakes its reader: the case where every core is busy
# Targets (a missed one is reported, not an error): round trips TCP/eth >= 2x and eth/floor <= 2x; streams at
# MTU 1500 >= 1.4 GB/s (1.4e9 B/s = 1335 MiB/s) over eth, at MTU 9000 eth/TCP >= 1x; many connections eth/TCP >= 1x
# (never slower than TCP); with busy cores TCP/eth >= 1x (never slower than TCP).
# Round trips are compared mean with mean and median with median (PingPongApp's rtt_us and rtt_p50_us, ringpong's
# mean and p50): the median is the path's usual cost, which one stall cannot lift as it can the mean.
# Exit status: 0 when every run ran (targets met or not); 1 when one failed (did not start, failed, timed out:
# every process runs under `timeout`, or with the agent did not go over eth; the runs' logs are then kept);
# 77 (skip) when the namespaces cannot be made (not root, no veth). Needs root, 2 CPUs, iproute2, taskset, and
# gcc for ringpong (without it the floor is left out).
# Environment: CONNS (default "10 100"), PINGS (default 100000; a quarter warm up: with 20,000 the JIT was still at work and eth measured
# 32-42 us, with 100,000 9 us), PING_SIZES (default "64 1024"), SECONDS_PER_RUN (default 3;
# not SECONDS, which bash keeps), CSV (default eth-speed.csv: section,mtu,api,size,agent,value,unit; agent is
# no, yes or reference, the ring rows' size is the ping size they stand for), SOVIA_NS_PREFIX (default sovia-speed,
# not netns.sh's sovia, so as not to tear down namespaces of tests that may be running), BUILD=1 (build even if
# the agent and the examples are there; by default `mvn -o package` runs only if one is missing or PingPongApp
# predates demo.ping.bytes), JAVA.
set -euo pipefail
cd "$(dirname "$0")/.."

SECTIONS=${*:-rtt streams jumbo conns busy}
CONNS=${CONNS:-10 100}
PINGS=${PINGS:-100000}
PING_SIZES=${PING_SIZES:-64 1024}
RUN_SECONDS=${SECONDS_PER_RUN:-3}
CSV=${CSV:-eth-speed.csv}
JAVA=${JAVA:-java}
export SOVIA_NS_PREFIX=${SOVIA_NS_PREFIX:-sovia-speed}
NETNS=$PWD/eth-transport/scripts/netns.sh
AGENT=$PWD/agent/target/sovia.jar
CLASSES=$PWD/examples/target/classes
IP_B=10.77.0.2
HEADERS=72 # what the eth path puts before a payload: 14 Ethernet + 26 Sovia + 32 engine frame header
OUT=$(mktemp -d)
HOSTS=$OUT/hosts.txt
PIDS=()
HOGS=()
FAILURES=()
declare -A R=() # results: rtt,SIZE,no|yes  ring,SIZE (p50)  stream,MTU,no|yes  busy,64,no|yes

say() { echo "eth-speed.sh: $*" >&2; }

cleanup() {
  local p
  for p in "${PIDS[@]}" "${HOGS[@]}"; do kill "$p" 2>/dev/null || true; done
  jobs -p | xargs -r kill 2>/dev/null || true
  "$NETNS" down >/dev/null 2>&1 || true
  if ((${#FAILURES[@]} > 0)); then
    rm -rf "$OUT/sovia.jar" "$OUT/classes" "$OUT/native"
    say "the logs of every run are kept in $OUT"
  else
    rm -rf "$OUT"
  fi
}
trap cleanup EXIT

for s in $SECTIONS; do
  case $s in
    rtt | streams | jumbo | conns | busy) ;;
    *) say "unknown section $s (rtt, streams, jumbo, conns, busy)"; exit 2 ;;
  esac
done
for n in $PINGS $RUN_SECONDS; do
  [[ $n =~ ^[0-9]+$ ]] && ((n > 0)) || { say "PINGS and SECONDS_PER_RUN must be positive integers"; exit 2; }
done
for n in $PING_SIZES; do
  # at least the ping's number; at most what one eth frame carries at MTU 1500 (1514 - 72), as ringpong's frame
  [[ $n =~ ^[0-9]+$ ]] && ((n >= 4 && n <= 1442)) || { say "ping size $n outside 4..1442"; exit 2; }
done
command -v taskset >/dev/null && command -v timeout >/dev/null || { say "needs taskset and timeout"; exit 1; }
(($(nproc) >= 2)) || { say "needs 2 CPUs (client on cpu0, server on cpu1), has $(nproc)"; exit 1; }

# every process gets a time limit: a hung run must not hang the benchmark
PING_TIMEOUT=$((60 + PINGS / 200))      # 5 ms a round trip, plus the JVM's start and exit
STREAM_TIMEOUT=$((60 + 2 * RUN_SECONDS)) # warm-up (a third) and run, plus start and exit

# --- build and classpath -------------------------------------------------------------------------------------------
if [[ ${BUILD:-} == 1 || ! -f $AGENT || ! -f $CLASSES/io/sovia/examples/StreamApp.class ]] \
  || ! grep -q demo.ping.bytes "$CLASSES/io/sovia/examples/PingPongApp.class" 2>/dev/null; then
  say "building (mvn -o package)"
  mvn -B -o -q -DskipTests package >"$OUT/mvn.log" 2>&1 || { cat "$OUT/mvn.log" >&2; say "FAILED: the build"; exit 1; }
fi
# a copy of both, so that a build running meanwhile cannot swap them under a run
cp "$AGENT" "$OUT/sovia.jar"
cp -r "$CLASSES" "$OUT/classes"
AGENT=$OUT/sovia.jar
CP=$OUT/classes
# not Sovia's own jars: on the app's class path their classes would shadow the agent jar's
if mvn -B -o -q dependency:build-classpath -pl examples -Dsovia.examples.standalone -DexcludeGroupIds=io.sovia \
  -Dmdep.outputFile="$OUT/cp.txt" >"$OUT/mvn-cp.log" 2>&1; then
  CP=$CP:$(cat "$OUT/cp.txt")
else
  say "warning: no dependency classpath (mvn dependency:build-classpath failed); PingPongApp and StreamApp need none"
fi
RINGPONG=
if true; then
  rc=0
  eth-transport/scripts/build-native.sh "$OUT/native" 2>"$OUT/native.log" || rc=$?
  if ((rc == 0)); then
    RINGPONG=$OUT/native/ringpong
  elif ((rc == 77)); then
    say "warning: $(tail -1 "$OUT/native.log"); the ring floor is left out"
  else
    cat "$OUT/native.log" >&2
    say "FAILED: building ringpong"
    exit 1
  fi
fi
echo "section,mtu,api,size,agent,value,unit" >"$CSV"

# --- helpers -------------------------------------------------------------------------------------------------------
# up MTU: fresh namespaces and host table
up() {
  local rc=0
  SOVIA_HOSTS_OUT=$HOSTS "$NETNS" up-direct "$1" 2>"$OUT/netns.log" || rc=$?
  if ((rc == 77)); then
    say "SKIP: cannot make the namespaces: $(tail -1 "$OUT/netns.log")"
    exit 77
  elif ((rc != 0)); then
    cat "$OUT/netns.log" >&2
    say "FAILED: netns.sh up-direct $1"
    exit 1
  fi
  MTU=$1
  PEER_MAC=$(awk -v ip="$IP_B" '$1 == ip { print $2 }' "$HOSTS")
}

fail() {
  FAILURES+=("$1")
  say "FAILED: $1"
  local f
  for f in "${@:2}"; do
    [[ -s $f ]] && { echo "--- ${f##*/} (last lines)" >&2; tail -15 "$f" >&2; }
  done
  return 0
}

alive() {
  local s
  s=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [[ $s != Z* ]]
}

# start LOG SECONDS a|b CPU COMMAND... -> BG (the pid of a background process, output in LOG.out and LOG.err)
start() {
  local log=$1 limit=$2 side=$3 cpu=$4
  shift 4
  timeout -k 5 "$limit" ip netns exec "$SOVIA_NS_PREFIX-$side" taskset -c "$cpu" "$@" >"$log.out" 2>"$log.err" &
  BG=$!
  PIDS+=("$BG")
}

# run LOG SECONDS a|b CPU COMMAND... -> its exit status (124: timed out), output in LOG.out and LOG.err
run() {
  local log=$1 limit=$2 side=$3 cpu=$4
  shift 4
  timeout -k 5 "$limit" ip netns exec "$SOVIA_NS_PREFIX-$side" taskset -c "$cpu" "$@" >"$log.out" 2>"$log.err"
}

# ready FILE PATTERN PID: waits up to 60 s for PATTERN in FILE while PID lives
ready() {
  local i
  for ((i = 0; i < 600; i++)); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    alive "$3" || return 1
    sleep 0.1
  done
  return 1
}

stop() {
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# field NAME FILE -> the value of NAME=... on the RESULT line
field() {
  sed -n "s/^RESULT .*$1=\([^ ]*\).*$/\1/p" "$2"
}

# path STATS KIND -> the count of KIND connections in an agent's stats file (empty if none was written)
path() {
  sed -n "s/.*\"connections\": {[^}]*\"$2\": \([0-9]*\).*/\1/p" "$1" 2>/dev/null || true
}

# over_eth TAG WHAT: with the agent, both ends must count an eth connection and no TCP one
over_eth() {
  local end eth tcp
  for end in client server; do
    eth=$(path "$OUT/$1.$end.json" eth)
    tcp=$(path "$OUT/$1.$end.json" tcp)
    if [[ -z $eth ]]; then
      fail "$2: the $end wrote no stats (cannot tell whether it went over eth)" "$OUT/$1.$end.err"
      return 1
    elif ((eth < 1 || tcp > 0)); then
      fail "$2: the $end's connections were eth $eth, tcp $tcp: not the eth path" "$OUT/$1.$end.err"
      return 1
    fi
  done
}

# flags TAG AGENT(no|yes) END -> JFLAGS: the agent with the host table and a stats file, or nothing
flags() {
  JFLAGS=()
  [[ $2 == yes ]] && JFLAGS=(-javaagent:"$AGENT=hosts=$HOSTS,stats=$OUT/$1.$3.json")
  return 0
}

record() { # SECTION API SIZE AGENT VALUE UNIT
  echo "$1,$MTU,$2,$3,$4,$5,$6" >>"$CSV"
}

# serve TAG TIMEOUT READY WHAT COMMAND...: starts a server in host b on cpu1 and waits for its READY line (a regex);
# SERVER is its pid. Returns 1, the failure reported, when it did not start.
serve() {
  local tag=$1 timeout=$2 pattern=$3 what=$4
  shift 4
  start "$OUT/$tag.server" "$timeout" b 1 "$@"
  SERVER=$BG
  if ! ready "$OUT/$tag.server.out" "$pattern" "$SERVER"; then
    fail "$what: the server did not start" "$OUT/$tag.server.err"
    stop "$SERVER"
    return 1
  fi
}

# ring SIZE: the ring floor for a SIZE-byte ping
ring() {
  local size=$1 frame=$(($1 + HEADERS)) tag=ring-$1 line mean p50 p99 lost
  serve "$tag" $((PING_TIMEOUT + 30)) '^ready' "ringpong (MTU $MTU)" "$RINGPONG" server svb || return 0
  local server=$SERVER
  local rc=0
  run "$OUT/$tag.client" "$PING_TIMEOUT" a 0 "$RINGPONG" client sva "$PEER_MAC" --count "$PINGS" --size "$frame" || rc=$?
  stop "$server"
  line=$(grep '^rtt_us_mean=' "$OUT/$tag.client.out" || true)
  if ((rc != 0)) || [[ -z $line ]]; then
    fail "ringpong client, $frame-byte frames (MTU $MTU): exit status $rc$( ((rc == 124)) && echo ', timed out')" \
      "$OUT/$tag.client.err" "$OUT/$tag.server.err"
    return 0
  fi
  mean=$(sed 's/.*rtt_us_mean=\([^ ]*\).*/\1/' <<<"$line")
  p50=$(sed 's/.* p50=\([^ ]*\).*/\1/' <<<"$line")
  p99=$(sed 's/.* p99=\([^ ]*\).*/\1/' <<<"$line")
  lost=$(sed 's/.* lost=\([^ ]*\).*/\1/' <<<"$line")
  R[ring,$size]=$mean
  R[ring,$size,p50]=$p50
  record rtt ringpong-p50 "$size" reference "$p50" rtt_us
  record rtt ringpong-mean "$size" reference "$mean" rtt_us
  printf 'rtt     mtu %-5s %-10s  %5s B  %10s us  (measured: ringpong, %d pings of %d-byte frames: p50 %s us, mean %s,\n' \
    "$MTU" "ring floor" "$size" "$p50" "$PINGS" "$frame" "$p50" "$mean"
  printf '%48s p99 %s, lost %s; meaning: a %s B ping in a frame like the eth path'"'"'s, %d B of headers included,\n' \
    "" "$p99" "$lost" "$size" "$HEADERS"
  printf '%48s takes about %s us a round trip on these veths without a JVM or a protocol)\n' "" "$p50"
}

# pings SIZE AGENT [SECTION]: PingPongApp nio round trips, recorded under SECTION (rtt, or busy with the hogs running)
pings() {
  local size=$1 agent=$2 section=${3:-rtt} port rc=0 src=0 value
  local tag=pings-$section-$size-$agent
  local what="PingPongApp nio $1 B, agent $2 (MTU $MTU${3:+, $3})"
  flags "$tag" "$agent" server
  serve "$tag" $((PING_TIMEOUT + 60)) '^PORT ' "$what" "$JAVA" "${JFLAGS[@]}" -Ddemo.host=$IP_B \
    -Ddemo.ping.bytes="$size" -cp "$CP" io.sovia.examples.PingPongApp server nio || return 0
  local server=$SERVER
  port=$(sed -n 's/^PORT //p' "$OUT/$tag.server.out")
  flags "$tag" "$agent" client
  run "$OUT/$tag.client" "$PING_TIMEOUT" a 0 "$JAVA" "${JFLAGS[@]}" -Ddemo.host=$IP_B -Ddemo.ping.bytes="$size" \
    -cp "$CP" io.sovia.examples.PingPongApp client nio "$port" "$PINGS" 0 || rc=$?
  if ((rc != 0)); then
    stop "$server"
  else
    wait "$server" || src=$? # serves one client, then exits (bounded by its timeout)
  fi
  value=$(field rtt_us "$OUT/$tag.client.out")
  if ((rc != 0)) || [[ -z $value ]]; then
    fail "$what: the client's exit status $rc$( ((rc == 124)) && echo ', timed out after '$PING_TIMEOUT' s')" \
      "$OUT/$tag.client.err" "$OUT/$tag.server.err"
    return 0
  fi
  ((src == 0)) || { fail "$what: the server's exit status $src" "$OUT/$tag.server.err"; return 0; }
  [[ $agent == no ]] || over_eth "$tag" "$what" || return 0
  R[$section,$size,$agent]=$value
  R[$section,$size,$agent,p50]=$(field rtt_p50_us "$OUT/$tag.client.out")
  record "$section" nio "$size" "$agent" "$value" rtt_us
  record "$section" nio-p50 "$size" "$agent" "${R[$section,$size,$agent,p50]}" rtt_us
  printf '%-7s mtu %-5s %-10s  %5s B  %10s us  (p50 %s, p99 %s)\n' "$section" "$MTU" \
    "$([[ $agent == yes ]] && echo 'Sovia eth' || echo 'JDK TCP')" "$size" "$value" \
    "${R[$section,$size,$agent,p50]}" "$(field rtt_p99_us "$OUT/$tag.client.out")"
}

# stream AGENT: StreamApp direct 64 KiB writes
stream() {
  local agent=$1 tag=stream-$MTU-$1 what="StreamApp direct 64 KiB, agent $1 (MTU $MTU)" port rc=0 value
  flags "$tag" "$agent" server
  serve "$tag" $((STREAM_TIMEOUT + 60)) '^PORT ' "$what" "$JAVA" "${JFLAGS[@]}" -Ddemo.host=$IP_B \
    -cp "$CP" io.sovia.examples.StreamApp server || return 0
  local server=$SERVER
  port=$(sed -n 's/^PORT //p' "$OUT/$tag.server.out")
  flags "$tag" "$agent" client
  run "$OUT/$tag.client" "$STREAM_TIMEOUT" a 0 "$JAVA" "${JFLAGS[@]}" -Ddemo.host=$IP_B \
    -cp "$CP" io.sovia.examples.StreamApp client "$port" direct 65536 "$RUN_SECONDS" || rc=$?
  stop "$server" # serves until killed; SIGTERM runs the agent's exit hook, which writes the stats
  value=$(field MiBps "$OUT/$tag.client.out")
  if ((rc != 0)) || [[ -z $value ]]; then
    fail "$what: the client's exit status $rc$( ((rc == 124)) && echo ', timed out after '$STREAM_TIMEOUT' s')" \
      "$OUT/$tag.client.err" "$OUT/$tag.server.err"
    return 0
  fi
  [[ $agent == no ]] || over_eth "$tag" "$what" || return 0
  R[stream,$MTU,$agent]=$value
  record streams direct 65536 "$agent" "$value" MiB/s
  printf 'streams mtu %-5s %-10s  64 KiB %10s MiB/s\n' "$MTU" "$([[ $agent == yes ]] && echo 'Sovia eth' || echo 'JDK TCP')" \
    "$value"
}

# stream_floor: ringpong blast from host a (cpu0) into ringpong sink in host b (cpu1) for RUN_SECONDS
stream_floor() {
  local tag=floor-$MTU value
  serve "$tag" $((RUN_SECONDS + 30)) '^ready' "stream floor (MTU $MTU)" "$RINGPONG" sink svb || return 0
  local sink=$SERVER
  run "$OUT/$tag.client" $((RUN_SECONDS + 30)) a 0 "$RINGPONG" blast sva "$PEER_MAC" --seconds "$RUN_SECONDS" \
    --batch 32 || fail "stream floor (MTU $MTU): blast failed" "$OUT/$tag.client.err"
  sleep 0.3
  stop "$sink"
  value=$(sed -n 's/^mib_s=\([^ ]*\).*/\1/p' "$OUT/$tag.server.out")
  [[ -n $value ]] || { fail "stream floor (MTU $MTU): no figure" "$OUT/$tag.server.err"; return 0; }
  R[floor,$MTU]=$value
  record streams raw-floor 65536 reference "$value" MiB/s
  printf 'streams mtu %-5s %-10s         %10s MiB/s  (%s)\n' "$MTU" "raw floor" "$value" \
    "$(sed -n 's/^mib_s=[^ ]* //p' "$OUT/$tag.server.out")"
}

# many N AGENT: ManyPingApp, N connections ping-ponging at once
many() {
  local n=$1 agent=$2 tag=many-$1-$2 what="ManyPingApp $1 connections, agent $2 (MTU $MTU)" port rc=0 value eth tcp note=
  flags "$tag" "$agent" server
  serve "$tag" $((RUN_SECONDS * 2 + 120)) '^PORT ' "$what" "$JAVA" "${JFLAGS[@]}" -Ddemo.host=$IP_B \
    -cp "$CP" io.sovia.examples.ManyPingApp server || return 0
  local server=$SERVER
  port=$(sed -n 's/^PORT //p' "$OUT/$tag.server.out")
  flags "$tag" "$agent" client
  run "$OUT/$tag.client" $((RUN_SECONDS * 2 + 90)) a 0 "$JAVA" "${JFLAGS[@]}" -Ddemo.host=$IP_B \
    -cp "$CP" io.sovia.examples.ManyPingApp client "$port" "$n" "$RUN_SECONDS" || rc=$?
  stop "$server" # serves until killed; SIGTERM runs the agent's exit hook, which writes the stats
  value=$(field pings_per_s "$OUT/$tag.client.out")
  if ((rc != 0)) || [[ -z $value ]]; then
    fail "$what: the client's exit status $rc$( ((rc == 124)) && echo ', timed out')" "$OUT/$tag.client.out" \
      "$OUT/$tag.client.err" "$OUT/$tag.server.err"
    return 0
  fi
  if [[ $agent == yes ]]; then
    eth=$(path "$OUT/$tag.client.json" eth)
    tcp=$(path "$OUT/$tag.client.json" tcp)
    [[ -n $eth ]] || { fail "$what: the client wrote no stats" "$OUT/$tag.client.err"; return 0; }
    R[conns-eth,$n]=$eth
    note="  ($eth on eth, ${tcp:-0} on TCP)"
  fi
  R[conns,$n,$agent]=$value
  record conns many-ping "$n" "$agent" "$value" pings/s
  printf 'conns   mtu %-5s %-10s  %5s    %10s round trips/s%s\n' "$MTU" \
    "$([[ $agent == yes ]] && echo 'Sovia eth' || echo 'JDK TCP')" "$n" "$value" "$note"
}

# others WHEN: warns of JVMs that are not this script's (there are none of ours before or after the runs)
others() {
  local n
  n=$(pgrep -cx java || true)
  ((n == 0)) || say "warning: $n other JVM(s) running $1 (pgrep -x java): the figures may be disturbed"
}

# --- measure -------------------------------------------------------------------------------------------------------
others "at the start"
if [[ " $SECTIONS " == *" rtt "* || " $SECTIONS " == *" streams "* || " $SECTIONS " == *" conns "* ||
      " $SECTIONS " == *" busy "* ]]; then
  up 1500
  if [[ " $SECTIONS " == *" rtt "* ]]; then
    for size in $PING_SIZES; do
      [[ -n $RINGPONG ]] && ring "$size"
      pings "$size" no
      pings "$size" yes
    done
  fi
  if [[ " $SECTIONS " == *" streams "* ]]; then
    [[ -n $RINGPONG ]] && stream_floor
    stream no
    stream yes
  fi
  if [[ " $SECTIONS " == *" conns "* ]]; then
    for n in $CONNS; do
      many "$n" no
      many "$n" yes
    done
  fi
  if [[ " $SECTIONS " == *" busy "* ]]; then
    for cpu in 0 1; do
      taskset -c "$cpu" bash -c 'while :; do :; done' &
      HOGS+=($!)
    done
    PINGS=$((PINGS / 2)) pings 64 no busy
    PINGS=$((PINGS / 2)) pings 64 yes busy
    for h in "${HOGS[@]}"; do kill "$h" 2>/dev/null || true; done
    HOGS=()
  fi
fi
if [[ " $SECTIONS " == *" jumbo "* ]]; then
  up 9000
  [[ -n $RINGPONG ]] && stream_floor
  stream no
  stream yes
fi
"$NETNS" down 2>/dev/null || true
others "at the end"

# --- the table -----------------------------------------------------------------------------------------------------
# ratio A B -> A/B to two places, or - if either is missing
ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || a + 0 == 0 || b + 0 == 0) print "-"; else printf "%.2f", a / b }'
}
# verdict VALUE OP LIMIT -> met / missed / n/a
verdict() {
  awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN { if (v == "-" || v == "") print "n/a";
    else if ((op == ">=" && v + 0 >= l + 0) || (op == "<=" && v + 0 <= l + 0)) print "met"; else print "missed" }'
}
v() { echo "${R[$1]:--}"; }
# judged RATIO OP LIMIT -> "2.10x met", or "-" if the ratio is missing
judged() {
  [[ $1 == - ]] && { echo -; return; }
  echo "${1}x $(verdict "$1" "$2" "$3")"
}

echo
if [[ " $SECTIONS " == *" rtt "* ]]; then
  echo "Round trips, MTU 1500, PingPongApp nio, $PINGS pings (us, mean and median of the timed three quarters;" \
    "client cpu0 in $SOVIA_NS_PREFIX-a, server cpu1 in $SOVIA_NS_PREFIX-b)"
  printf '%6s %-5s %9s %10s %11s   %-24s %-24s\n' size "" "JDK TCP" "Sovia eth" "ring floor" "TCP/eth (target >=2x)" \
    "eth/floor (target <=2x)"
  for size in $PING_SIZES; do
    for stat in mean p50; do
      key=$([[ $stat == mean ]] && echo "" || echo ",p50")
      a=$(ratio "$(v "rtt,$size,no$key")" "$(v "rtt,$size,yes$key")")
      b=$(ratio "$(v "rtt,$size,yes$key")" "$(v "ring,$size$key")")
      printf '%6s %-5s %9s %10s %11s   %-24s %-24s\n' "$([[ $stat == mean ]] && echo "$size B")" "$stat" \
        "$(v "rtt,$size,no$key")" "$(v "rtt,$size,yes$key")" "$(v "ring,$size$key")" "$(judged "$a" '>=' 2)" \
        "$(judged "$b" '<=' 2)"
    done
  done
  echo "  mean: what a stall lifts (a compile, a sleep, a retransmission after one); p50: the path's usual cost"
  echo "  ring floor: ringpong's round trips over frames of the ping + $HEADERS B (the eth path's headers)," \
    "e.g. $((64 + HEADERS)) B for 64 B:"
  echo "  what a round trip of that frame costs through two busy-polled packet rings on this veth pair"
  echo
fi
if [[ " $SECTIONS " == *" streams "* || " $SECTIONS " == *" jumbo "* ]]; then
  echo "Streams, StreamApp direct 64 KiB writes, ${RUN_SECONDS} s (MiB/s)"
  printf '%6s %10s %10s %10s %8s %10s   %s\n' MTU "JDK TCP" "Sovia eth" "raw floor" eth/TCP eth/floor target
  for mtu in 1500 9000; do
    if [[ $mtu == 1500 && " $SECTIONS " != *" streams "* ]] || [[ $mtu == 9000 && " $SECTIONS " != *" jumbo "* ]]; then
      continue
    fi
    a=$(ratio "$(v "stream,$mtu,yes")" "$(v "stream,$mtu,no")")
    if [[ $mtu == 1500 ]]; then
      gbs=$(awk -v m="$(v "stream,1500,yes")" 'BEGIN { if (m == "-") print "-"; else printf "%.2f", m * 1048576 / 1e9 }')
      target="eth >= 1.4 GB/s (1335 MiB/s): ${gbs} GB/s, $(verdict "$(v "stream,1500,yes")" '>=' 1335.1)"
    else
      target="eth/TCP >= 1x: $(verdict "$a" '>=' 1)"
    fi
    b=$(ratio "$(v "stream,$mtu,yes")" "$(v "floor,$mtu")")
    printf '%6s %10s %10s %10s %8s %10s   %s\n' "$mtu" "$(v "stream,$mtu,no")" "$(v "stream,$mtu,yes")" \
      "$(v "floor,$mtu")" "${a}x" "${b}x" "$target"
  done
  echo "  raw floor: MTU-sized raw frames, 32 per sendmmsg, into a busy-polled packet ring: what the kernel and this"
  echo "  veth pair carry one way with no protocol, no copy into an app and no flow control"
  echo
fi
if [[ " $SECTIONS " == *" conns "* ]]; then
  echo "Many connections at once, ManyPingApp (64 B round trips, a thread per connection at both ends), ${RUN_SECONDS} s" \
    "(round trips a second over all connections)"
  printf '%6s %10s %10s %8s %8s   %s\n' conns "JDK TCP" "Sovia eth" eth/TCP "on eth" "target"
  for n in $CONNS; do
    a=$(ratio "$(v "conns,$n,yes")" "$(v "conns,$n,no")")
    target="eth/TCP >= 1x: $(verdict "$a" '>=' 1)"
    [[ $(v "conns-eth,$n") == "$n" ]] || target="eth/TCP >= 1x: n/a (not every connection went over eth)"
    printf '%6s %10s %10s %8s %8s   %s\n' "$n" "$(v "conns,$n,no")" "$(v "conns,$n,yes")" "${a}x" \
      "$(v "conns-eth,$n")" "$target"
  done
  echo
fi
if [[ " $SECTIONS " == *" busy "* ]]; then
  echo "Round trips with a CPU-bound process on each core, MTU 1500, PingPongApp nio, $((PINGS / 2)) pings (mean us)"
  printf '%6s %10s %10s   %s\n' size "JDK TCP" "Sovia eth" "TCP/eth (target >=1x: never slower)"
  a=$(ratio "$(v "busy,64,no")" "$(v "busy,64,yes")")
  printf '%6s %10s %10s   %s\n' "64 B" "$(v "busy,64,no")" "$(v "busy,64,yes")" "$(judged "$a" '>=' 1)"
  echo
fi
echo "CSV: $CSV"
if ((${#FAILURES[@]} > 0)); then
  say "${#FAILURES[@]} run(s) failed:"
  printf '  %s\n' "${FAILURES[@]}" >&2
  exit 1
fi
