#!/usr/bin/env bash
# Draws a speed benchmark CSV (examples/speed.sh) as PNG charts with JFreeChart (SpeedCharts).
#
#   bash examples/charts.sh [CSV [DIR]]     defaults: speed.csv, docs/charts
# Environment: SKIP_BUILD=1, JAVA.
set -euo pipefail
cd "$(dirname "$0")/.."
CSV=${1:-speed.csv}
DIR=${2:-docs/charts}
if [ "${SKIP_BUILD:-}" != 1 ]; then
  mvn -B -q -DskipTests package
fi
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
mvn -B -q dependency:build-classpath -pl examples -Dsovia.examples.standalone -Dmdep.outputFile="$OUT"
"${JAVA:-java}" -Djava.awt.headless=true -cp "examples/target/classes:$(cat "$OUT")" \
  io.sovia.examples.charts.SpeedCharts "$CSV" "$DIR"
