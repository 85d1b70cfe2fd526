#!/usr/bin/env bash
# The speed benchmark: the same unmodified apps without and with the agent (two JVMs, the shm path), pinned to one
# core and to separate cores, printed side by side with ratios, and every figure also as CSV; then issue 12's
# targets met or missed (examples/speed-targets.sh).
#
#   bash examples/speed.sh                 every section
#   bash examples/speed.sh setup streams   only those sections (rtt, sleeping, busy, streams, setup, conns, curves, rpc,
#                                          ftp)
#
# Sections:
#   rtt       64-byte round trips (PingPongApp: blocking NIO, java.net, a Selector loop), with the references of
#             examples/demo.sh: the bare shared-memory ring (BareRingPing) and a UNIX domain socket (UnixSocketPing)
#   sleeping  the same round trips with every wait sleeping (sovia.spin.micros=0)
#   busy      round trips (PINGS/2) and a 64 KiB stream with a CPU-bound process on each core
#   streams   one-way throughput (StreamApp) for write sizes SIZES through APIS (net: java.net streams, heap:
#             Channels streams over a heap array, direct: a direct buffer, file: FileChannel.transferTo)
#   setup     connections opened, one byte each way, closed (ConnectApp; also in one JVM, the jvm path), for
#             SETUP_SECONDS (default 15) after a third of that as warm-up; size 1 is that steady state, size 0 the
#             warm-up's own figure (the JVM's first connections, while the JIT still compiles the connect path)
#   conns     CONNS connections at once (default "10 100"; ManyPingApp: a thread per connection at both ends, 64-byte
#             ping-pong over java.net streams), round trips a second over all of them; size is the connection count
#   curves    one-way latency (half a blocking-NIO ping-pong's round trip) and bandwidth (StreamApp, direct-buffer
#             writes) for message sizes CURVE_SIZES (default "1 16 256 4096 65536 1048576"), separate cores: JDK TCP,
#             a UNIX domain socket (latency), Sovia's jvm path (one JVM) and shm path (two JVMs); drawn by
#             examples/charts.sh
#   rpc       SOVIA's RPC experiment (RpcBench): a null call and calls with a 0 B to 4 KiB string argument, in
#             Java RMI and in gRPC (which the agent steers off Netty's native transport, no flag), RPC_CALLS timed
#             calls per size (default 20000); mean, p50 and p99 per size; and a gRPC server-streaming call of 64 KiB
#             messages (MB/s)
#   ftp       SOVIA's FTP experiment (FtpBench: Apache FtpServer and commons-net): files of 19,090,223 and
#             145,864,380 bytes from RAM to RAM (a directory in /dev/shm, removed after), STOR and RETR in
#             passive and active mode, FTP_ROUNDS times each (default 4); MB/s averaged over all rounds but the
#             first, which the JIT's warm-up dominates
# Environment: SECONDS_PER_RUN (default 3), PINGS (default 100000), SIZES (default "64 4096 65536 1048576"), FTP_ROUNDS,
# FTP_SIZES (default SOVIA's two), CURVE_SIZES, RPC_CALLS, SETUP_SECONDS,
# APIS (default "heap direct net file"), CSV (default speed.csv: section,pinning,api,size,agent,value,unit),
# SKIP_BUILD=1, JAVA.
set -euo pipefail
cd "$(dirname "$0")/.."

SECTIONS=${*:-rtt sleeping busy streams setup conns curves rpc ftp}
RUN_SECONDS=${SECONDS_PER_RUN:-3}
PINGS=${PINGS:-100000}
SIZES=${SIZES:-64 4096 65536 1048576}
APIS=${APIS:-heap direct net file}
CSV=${CSV:-speed.csv}
JAVA=${JAVA:-java}
AGENT=$PWD/agent/target/sovia.jar
CP=$PWD/examples/target/classes
OUT=$(mktemp -d)
HOGS=()
FTP_DIR=/dev/shm/sovia-ftpbench-$$
cleanup() {
  for h in "${HOGS[@]}"; do kill "$h" 2>/dev/null || true; done
  jobs -p | xargs -r kill 2>/dev/null || true
  rm -rf "$OUT" "$FTP_DIR"
}
trap cleanup EXIT

if [ "${SKIP_BUILD:-}" != 1 ]; then
  mvn -B -q -DskipTests package
fi
mkdir -p "$(dirname "$CSV")"
echo "section,pinning,api,size,agent,value,unit" >"$CSV"

# field NAME FILE -> the value of NAME=... on the RESULT line
field() {
  sed -n "s/^RESULT .*$1=\([^ ]*\).*$/\1/p" "$2"
}

# serve CLASS CPU AGENT(yes|no) [FLAGS...] -> starts a server printing PORT n; sets SERVER and PORT
serve() {
  local class=$1 cpu=$2 agent=$3 flags=()
  shift 3
  [ "$agent" = yes ] && flags=(-javaagent:"$AGENT" "$@")
  rm -f "$OUT/port"
  taskset -c "$cpu" "$JAVA" "${flags[@]}" -cp "$CP" "io.sovia.examples.$class" server >"$OUT/port" 2>"$OUT/server.err" &
  SERVER=$!
  for _ in $(seq 100); do grep -q PORT "$OUT/port" 2>/dev/null && break; sleep 0.1; done
  PORT=$(sed -n 's/^PORT //p' "$OUT/port")
}

# client CLASS CPU AGENT [FLAGS...] -- ARGS... -> runs a client, its output in $OUT/client.out
client() {
  local class=$1 cpu=$2 agent=$3 flags=()
  shift 3
  while [ "$1" != -- ]; do flags+=("$1"); shift; done
  shift
  local jflags=()
  [ "$agent" = yes ] && jflags=(-javaagent:"$AGENT" "${flags[@]}")
  taskset -c "$cpu" "$JAVA" "${jflags[@]}" -cp "$CP" "io.sovia.examples.$class" client "$@" >"$OUT/client.out"
}

stop_server() {
  kill "$SERVER" 2>/dev/null || true
  wait "$SERVER" 2>/dev/null || true
}

# row SECTION PINNING API SIZE UNIT PLAIN SOVIA HIGHER(better: yes|no)
row() {
  local ratio
  ratio=$(awk -v p="$6" -v s="$7" -v h="$8" 'BEGIN { if (p == "" || s == "" || p == 0 || s == 0) print "-";
    else printf "%.2fx", (h == "yes" ? s / p : p / s) }')
  printf '%-9s %-15s %-9s %8s %12s %12s %8s  %s\n' "$1" "$2" "$3" "$4" "$6" "$7" "$ratio" "$5"
  echo "$1,$2,$3,$4,no,$6,$5" >>"$CSV"
  echo "$1,$2,$3,$4,yes,$7,$5" >>"$CSV"
}

# pings SERVER_CPU CLIENT_CPU API AGENT [FLAGS...] -> rtt in us (PingPongApp, streams left out)
pings() {
  local scpu=$1 ccpu=$2 api=$3 agent=$4
  shift 4
  local flags=()
  [ "$agent" = yes ] && flags=(-javaagent:"$AGENT" "$@")
  rm -f "$OUT/port"
  taskset -c "$scpu" "$JAVA" "${flags[@]}" -cp "$CP" io.sovia.examples.PingPongApp server "$api" >"$OUT/port" &
  local server=$!
  for _ in $(seq 100); do grep -q PORT "$OUT/port" 2>/dev/null && break; sleep 0.1; done
  taskset -c "$ccpu" "$JAVA" "${flags[@]}" -cp "$CP" io.sovia.examples.PingPongApp client "$api" \
    "$(sed -n 's/^PORT //p' "$OUT/port")" "$PINGS" 0 >"$OUT/pings.out"
  wait "$server"
  field rtt_us "$OUT/pings.out"
}

# reference CLASS PATH SERVER_CPU CLIENT_CPU -> the round trip (us) of BareRingPing or UnixSocketPing
reference() {
  rm -f "$OUT/ready" "$2"
  taskset -c "$3" "$JAVA" -cp "$CP" "io.sovia.examples.$1" pong "$2" >"$OUT/ready" &
  local pong=$!
  for _ in $(seq 100); do grep -q READY "$OUT/ready" 2>/dev/null && break; sleep 0.1; done
  taskset -c "$4" "$JAVA" -cp "$CP" "io.sovia.examples.$1" ping "$2" "$PINGS" >"$OUT/ref.out"
  wait "$pong"
  rm -f "$2"
  field rtt_us "$OUT/ref.out"
}

# curve_rtt PATH SIZE PINGS -> the round trip (us) of SIZE-byte pings on PATH (tcp, unix, jvm, shm), separate cores
curve_rtt() {
  local path=$1 size=$2 n=$3 flags=(-Ddemo.ping.bytes="$2")
  case $path in
  unix)
    rm -f "$OUT/ready" "$OUT/uds.sock"
    taskset -c 1 "$JAVA" "${flags[@]}" -cp "$CP" io.sovia.examples.UnixSocketPing pong "$OUT/uds.sock" >"$OUT/ready" &
    local pong=$!
    for _ in $(seq 100); do grep -q READY "$OUT/ready" 2>/dev/null && break; sleep 0.1; done
    taskset -c 0 "$JAVA" "${flags[@]}" -cp "$CP" io.sovia.examples.UnixSocketPing ping "$OUT/uds.sock" "$n" >"$OUT/curve.out"
    wait "$pong"
    ;;
  jvm)
    taskset -c 0,1 "$JAVA" -javaagent:"$AGENT" "${flags[@]}" -cp "$CP" io.sovia.examples.PingPongApp both nio "$n" 0 \
      >"$OUT/curve.out"
    ;;
  *)
    [ "$path" = shm ] && flags+=(-javaagent:"$AGENT")
    rm -f "$OUT/port"
    taskset -c 1 "$JAVA" "${flags[@]}" -cp "$CP" io.sovia.examples.PingPongApp server nio >"$OUT/port" &
    local server=$!
    for _ in $(seq 100); do grep -q PORT "$OUT/port" 2>/dev/null && break; sleep 0.1; done
    taskset -c 0 "$JAVA" "${flags[@]}" -cp "$CP" io.sovia.examples.PingPongApp client nio \
      "$(sed -n 's/^PORT //p' "$OUT/port")" "$n" 0 >"$OUT/curve.out"
    wait "$server"
    ;;
  esac
  field rtt_us "$OUT/curve.out"
}

# curve_rate PATH SIZE -> MiB/s of a stream of SIZE-byte direct-buffer writes on PATH (tcp, jvm, shm), separate cores
curve_rate() {
  local path=$1 size=$2
  if [ "$path" = jvm ]; then
    taskset -c 0,1 "$JAVA" -javaagent:"$AGENT" -cp "$CP" io.sovia.examples.StreamApp both direct "$size" "$RUN_SECONDS" \
      >"$OUT/client.out"
  else
    local agent=no
    [ "$path" = shm ] && agent=yes
    serve StreamApp 1 "$agent"
    client StreamApp 0 "$agent" -- "$PORT" direct "$size" "$RUN_SECONDS"
    stop_server
  fi
  field MiBps "$OUT/client.out"
}

# curve_row KIND SIZE UNIT PATH=VALUE... -> one printed line (TCP against shm, the others after the unit) and CSV rows
curve_row() {
  local kind=$1 size=$2 unit=$3 tcp="" shm="" others=() pair
  shift 3
  for pair in "$@"; do
    echo "curves,separate-cores,$kind,$size,${pair%%=*},${pair#*=},$unit" >>"$CSV"
    case ${pair%%=*} in
    tcp) tcp=${pair#*=} ;;
    shm) shm=${pair#*=} ;;
    *) others+=("$pair") ;;
    esac
  done
  local ratio
  ratio=$(awk -v p="$tcp" -v s="$shm" -v h="$([ "$kind" = bandwidth ] && echo yes)" 'BEGIN {
    if (p == "" || s == "" || p == 0 || s == 0) print "-"; else printf "%.2fx", (h == "yes" ? s / p : p / s) }')
  printf '%-9s %-15s %-9s %8s %12s %12s %8s  %s\n' curves separate-cores "$kind" "$size" "$tcp" "$shm" "$ratio" \
    "$unit (Sovia shm; also ${others[*]})"
}

# deps_classpath -> DEPS_CP: the examples' classes with their dependencies (FtpServer, gRPC, ...), once; not
# Sovia's own jars, whose classes on the app's class path would shadow the agent jar's (the local repository's copy,
# perhaps of another build, ran instead of $AGENT)
deps_classpath() {
  if [ -z "${DEPS_CP:-}" ]; then
    mvn -B -q dependency:build-classpath -pl examples -Dsovia.examples.standalone -DexcludeGroupIds=io.sovia \
      -Dmdep.outputFile="$OUT/deps.cp"
    DEPS_CP=$CP:$(cat "$OUT/deps.cp")
  fi
}

# stdin_server CPU AGENT(yes|no) CLASS ARGS... -> starts `CLASS server ARGS` (DEPS_CP), which serves until its
# standard input ends, fed from a FIFO held open on descriptor 7; sets SERVER, PORT and FLAGS (the agent's, if any)
stdin_server() {
  local cpu=$1 agent=$2 class=$3
  shift 3
  FLAGS=()
  [ "$agent" = yes ] && FLAGS=(-javaagent:"$AGENT")
  rm -f "$OUT/port" "$OUT/server.in"
  mkfifo "$OUT/server.in"
  taskset -c "$cpu" "$JAVA" "${FLAGS[@]}" -cp "$DEPS_CP" "io.sovia.examples.$class" server "$@" \
    <"$OUT/server.in" >"$OUT/port" 2>"$OUT/server.err" &
  SERVER=$!
  exec 7>"$OUT/server.in"
  for _ in $(seq 100); do grep -q PORT "$OUT/port" 2>/dev/null && break; sleep 0.1; done
  PORT=$(sed -n 's/^PORT //p' "$OUT/port")
}

# stop_stdin_server -> ends the standard input of the stdin_server and waits for it
stop_stdin_server() {
  exec 7>&-
  wait "$SERVER"
  rm -f "$OUT/server.in"
}

PINNINGS=("same-core 0 0" "separate-cores 0 1")
printf '%-9s %-15s %-9s %8s %12s %12s %8s  %s\n' section pinning api size "JDK TCP" Sovia ratio unit

for section in $SECTIONS; do
  case $section in
  rtt | sleeping)
    flags=()
    [ "$section" = sleeping ] && flags=(-Dsovia.spin.micros=0)
    for pin in "${PINNINGS[@]}"; do
      set -- $pin
      for api in nio net selector; do
        row "$section" "$1" "$api" 64 "rtt_us" "$(pings "$2" "$3" "$api" no)" \
          "$(pings "$2" "$3" "$api" yes "${flags[@]}")" no
      done
      if [ "$section" = rtt ]; then
        unix=$(reference UnixSocketPing "$OUT/uds.sock" "$2" "$3")
        ring=$(reference BareRingPing "/dev/shm/sovia-bare-$$" "$2" "$3")
        printf '%-9s %-15s %-9s %8s %12s %12s %8s  %s\n' rtt "$1" "unix|ring" 64 "$unix" "$ring" - \
          "rtt_us of the references: a UNIX domain socket | the bare shared-memory ring"
        echo "rtt,$1,unix-socket,64,reference,$unix,rtt_us" >>"$CSV"
        echo "rtt,$1,bare-ring,64,reference,$ring,rtt_us" >>"$CSV"
      fi
    done
    ;;
  busy)
    for cpu in 0 1; do
      taskset -c "$cpu" bash -c 'while :; do :; done' &
      HOGS+=($!)
    done
    # half the pings: with a tenth (a quarter of them untimed warm-up) the timed part still had the JIT compiling
    # against the hogs (0.45x TCP against 1.01x over 60,000 pings, 2026-11-26)
    row busy separate-cores nio 64 "rtt_us" "$(PINGS=$((PINGS / 2)) pings 0 1 nio no)" \
      "$(PINGS=$((PINGS / 2)) pings 0 1 nio yes)" no
    figures=()
    for agent in no yes; do
      serve StreamApp 0 "$agent"
      client StreamApp 1 "$agent" -- "$PORT" heap 65536 "$RUN_SECONDS"
      figures+=("$(field MiBps "$OUT/client.out")")
      stop_server
    done
    row busy separate-cores heap 65536 "MiB/s" "${figures[@]}" yes
    for h in "${HOGS[@]}"; do kill "$h" 2>/dev/null || true; done
    HOGS=()
    ;;
  streams)
    for pin in "${PINNINGS[@]}"; do
      set -- $pin
      for api in $APIS; do
        for size in $SIZES; do
          figures=()
          for agent in no yes; do
            serve StreamApp "$2" "$agent"
            client StreamApp "$3" "$agent" -- "$PORT" "$api" "$size" "$RUN_SECONDS"
            figures+=("$(field MiBps "$OUT/client.out")")
            stop_server
          done
          row streams "$1" "$api" "$size" "MiB/s" "${figures[@]}" yes
        done
      done
    done
    ;;
  conns)
    for pin in "${PINNINGS[@]}"; do
      set -- $pin
      for n in ${CONNS:-10 100}; do
        figures=()
        for agent in no yes; do
          serve ManyPingApp "$2" "$agent"
          client ManyPingApp "$3" "$agent" -- "$PORT" "$n" "$RUN_SECONDS"
          figures+=("$(field pings_per_s "$OUT/client.out")")
          stop_server
        done
        row conns "$1" net "$n" "round trips/s" "${figures[@]}" yes
      done
    done
    ;;
  setup)
    for pin in "${PINNINGS[@]}"; do
      set -- $pin
      figures=()
      firsts=()
      for agent in no yes; do
        serve ConnectApp "$2" "$agent"
        client ConnectApp "$3" "$agent" -- "$PORT" "${SETUP_SECONDS:-15}"
        figures+=("$(field connect_us "$OUT/client.out")")
        firsts+=("$(field first_us "$OUT/client.out")")
        stop_server
      done
      row setup "$1" net 0 "us/connection (the first third)" "${firsts[@]}" no
      row setup "$1" net 1 "us/connection" "${figures[@]}" no
    done
    # client and server threads of one JVM (the jvm path), free to use both cores
    figures=()
    firsts=()
    for agent in no yes; do
      flags=()
      [ "$agent" = yes ] && flags=(-javaagent:"$AGENT")
      taskset -c 0,1 "$JAVA" "${flags[@]}" -cp "$CP" io.sovia.examples.ConnectApp both "${SETUP_SECONDS:-15}" \
        >"$OUT/client.out"
      figures+=("$(field connect_us "$OUT/client.out")")
      firsts+=("$(field first_us "$OUT/client.out")")
    done
    row setup one-jvm net 0 "us/connection (the first third)" "${firsts[@]}" no
    row setup one-jvm net 1 "us/connection" "${figures[@]}" no
    ;;
  curves)
    for size in ${CURVE_SIZES:-1 16 256 4096 65536 1048576}; do
      # as many pings as move 1 GiB, within 2000..PINGS (fewer leave big messages timed while the JIT still works)
      n=$((1073741824 / size))
      [ "$n" -gt "$PINGS" ] && n=$PINGS
      [ "$n" -lt 2000 ] && n=2000
      figures=()
      for path in tcp unix jvm shm; do
        figures+=("$path=$(awk -v r="$(curve_rtt "$path" "$size" "$n")" 'BEGIN { if (r != "") printf "%.2f", r / 2 }')")
      done
      curve_row latency "$size" one_way_us "${figures[@]}"
      figures=()
      for path in tcp jvm shm; do
        figures+=("$path=$(curve_rate "$path" "$size")")
      done
      curve_row bandwidth "$size" MiB/s "${figures[@]}"
    done
    ;;
  rpc)
    deps_classpath
    for pin in "${PINNINGS[@]}"; do
      set -- $pin
      for rpc in rmi grpc; do
        for agent in no yes; do
          stdin_server "$2" "$agent" RpcBench "$rpc"
          taskset -c "$3" "$JAVA" "${FLAGS[@]}" -cp "$DEPS_CP" io.sovia.examples.RpcBench client "$rpc" "$PORT" \
            "${RPC_CALLS:-20000}" >"$OUT/rpc.$agent"
          stop_stdin_server
          grep -q verified "$OUT/rpc.$agent" || { echo "RPC run failed" >&2; exit 1; }
        done
        for size in null 0 16 64 256 1024 4096; do
          for stat in mean_us p50_us p99_us; do
            figures=()
            for agent in no yes; do
              figures+=("$(sed -n "s/^RESULT rpc=$rpc size=$size .*$stat=\([^ ]*\).*$/\1/p" "$OUT/rpc.$agent")")
            done
            row rpc "$1" "$rpc" "$size" "$stat" "${figures[@]}" no
          done
        done
        if [ "$rpc" = grpc ]; then
          row rpc "$1" grpc-stream 65536 "MB/s" "$(field stream_MBps "$OUT/rpc.no")" "$(field stream_MBps "$OUT/rpc.yes")" yes
        fi
      done
    done
    ;;
  ftp)
    deps_classpath
    mkdir -p "$FTP_DIR/home" "$FTP_DIR/client"
    for size in ${FTP_SIZES:-19090223 145864380}; do
      head -c "$size" /dev/urandom >"$FTP_DIR/client/file.bin"
      # SOVIA's "local copy" row: the same file copied from RAM to RAM by cp, no network at all
      t0=$(date +%s%N)
      cp "$FTP_DIR/client/file.bin" "$FTP_DIR/copy.bin"
      t1=$(date +%s%N)
      rm -f "$FTP_DIR/copy.bin"
      copy=$(awk -v b="$size" -v ns=$((t1 - t0)) 'BEGIN { printf "%.1f", b / (ns / 1e9) / 1e6 }')
      printf '%-9s %-15s %-9s %8s %12s %12s %8s  %s\n' ftp local cp "$size" - "$copy" - "MB/s of the local copy (reference)"
      echo "ftp,local,copy,$size,reference,$copy,MB/s" >>"$CSV"
      for pin in "${PINNINGS[@]}"; do
        set -- $pin
        for agent in no yes; do
          stdin_server "$2" "$agent" FtpBench "$FTP_DIR/home"
          taskset -c "$3" "$JAVA" "${FLAGS[@]}" -cp "$DEPS_CP" io.sovia.examples.FtpBench client "$PORT" \
            "$FTP_DIR/client/file.bin" "${FTP_ROUNDS:-4}" >"$OUT/ftp.$agent"
          stop_stdin_server
          grep -q verified "$OUT/ftp.$agent" || { echo "FTP transfer failed" >&2; exit 1; }
        done
        for op in STOR RETR; do
          for mode in passive active; do
            figures=()
            for agent in no yes; do
              figures+=("$(awk -v op=$op -v mode=$mode '$0 ~ "mode=" mode " op=" op " " && $0 !~ "round=1 " {
                split($6, v, "="); sum += v[2]; n++ } END { if (n) printf "%.1f", sum / n }' "$OUT/ftp.$agent")")
            done
            row ftp "$1" "$op-$mode" "$size" "MB/s" "${figures[@]}" yes
          done
        done
      done
    done
    rm -rf "$FTP_DIR"
    ;;
  *)
    echo "unknown section $section" >&2
    exit 2
    ;;
  esac
done
echo "CSV: $CSV"
bash examples/speed-targets.sh "$CSV"
