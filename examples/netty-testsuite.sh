#!/usr/bin/env bash
# Runs Netty's own published transport testsuite (io.netty:netty-testsuite, every class of
# io.netty.testsuite.transport.socket, NIO and OIO permutations of SocketTestPermutation) from its jar,
# three times: on the plain JDK, under the agent with sovia.paths=jvm,tcp and with sovia.paths=shm,tcp.
# Prints per run the test counts, pass/fail/skip per class and per permutation, the agent's connection
# counts from its stats file, and every failed test with the permutation it failed on; checks from the
# stats files that the agent runs' connections really took jvm resp. shm.
#
#   bash examples/netty-testsuite.sh
# Environment: RUNS (default "plain jvm shm"; any of them), SKIP_BUILD=1 (the agent jar is already built).
# Extra arguments go to Maven, e.g. -Dit.test=SocketEchoTest,SocketRstTest to run some classes only.
# Takes long (SocketSslEchoTest alone has over a hundred parameter sets): about 30-40 minutes per run here.
# The Maven module is examples/netty-testsuite; `mvn -B verify` runs its bounded selection (jvm and shm).
# Exit status: 0 when every agent run's connections took its path, whatever Netty's tests found
# (those are the findings, in examples/netty-testsuite/target/nts/summary.txt); 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-plain jvm shm}
NTS=examples/netty-testsuite/target/nts
LOG=examples/netty-testsuite/target/netty-testsuite-mvn.log

if [ "${SKIP_BUILD:-}" != 1 ]; then
  mvn -B -q package -DskipTests -pl spi,shm-transport,eth-transport,agent -am
fi

flags=()
for run in plain jvm shm; do
  case " $RUNS " in
    *" $run "*) flags+=("-Dnts.$run.skip=false") ;;
    *) flags+=("-Dnts.$run.skip=true") ;;
  esac
done

rm -rf "$NTS"
mkdir -p "$(dirname "$LOG")"
echo "Netty testsuite runs: $RUNS (Maven log: $LOG)"
# -Dnts.full: every socket class, no sampling; failures do not stop the build, so all runs happen
mvn -B -pl examples/netty-testsuite -Dsovia.examples.standalone -Dnts.full -Dmaven.test.failure.ignore=true \
  "${flags[@]}" "$@" verify >"$LOG" 2>&1 || { tail -40 "$LOG"; echo "Maven failed (log: $LOG)"; exit 1; }
grep -E "^\[INFO\] --- failsafe:[^ ]+:integration-test|Tests run:.*in io\.netty|Tests run:.*Fail" "$LOG" |
  sed -e 's/^\[[A-Z]*\] //' || true

echo
echo "=== summary ($NTS/summary.txt) ==="
cat "$NTS/summary.txt"

check=$NTS/path-check/summary.xml
if grep -q "<failures>0</failures>" "$check" && grep -q "<errors>0</errors>" "$check"; then
  echo "path check: the agent runs' connections took their paths (stats files in $NTS/<run>/stats.json)"
else
  echo "path check FAILED: see $NTS/path-check/"
  grep -h -A3 "<failure\|<error" "$NTS"/path-check/*.xml | head -20 || true
  exit 1
fi
