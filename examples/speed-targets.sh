#!/usr/bin/env bash
# Issue 12's targets against a speed.sh CSV: one line per target that the CSV has the figures for, with what was
# measured and whether it was met. speed.sh runs it at its end; it also reads a CSV kept from an earlier run.
#
#   bash examples/speed-targets.sh [CSV]        (default speed.csv)
#
# Ratios are TCP/Sovia for round trips and setup times, Sovia/TCP for rates (above 1: Sovia is faster), and
# Sovia/ring for the bare shared-memory ring floor. Exit status 0 whatever was met; 1 when the CSV is missing.
set -euo pipefail
CSV=${1:-speed.csv}
[[ -r $CSV ]] || { echo "no CSV at $CSV" >&2; exit 1; }

awk -F, '
  NR == 1 { next }
  { v[$1 "," $2 "," $3 "," $4 "," $5] = $6 }
  function has(k) { return (k in v) && v[k] != "" && v[k] + 0 > 0 }
  function line(what, got, ok) {
    printf "  %-70s %-26s %s\n", what, got, ok ? "met" : "missed"
  }
  END {
    print "Targets (issue 12), from " FILENAME
    for (i = 1; i <= 2; i++) {
      api = i == 1 ? "nio" : "net"
      s = "rtt,separate-cores," api ",64,yes"; r = "rtt,separate-cores,bare-ring,64,reference"
      if (has(s) && has(r))
        line("64 B RTT " api ", separate cores, within 2x of the bare ring",
             sprintf("%.2fx the ring", v[s] / v[r]), v[s] <= 2 * v[r])
      t = "rtt,same-core," api ",64,no"
      if (has(s) && has(t))
        line("64 B RTT " api ", separate cores, >= 10x below TCP on one core",
             sprintf("%.1fx", v[t] / v[s]), v[t] >= 10 * v[s])
    }
    s = "rtt,separate-cores,selector,64,yes"; t = "rtt,separate-cores,selector,64,no"
    if (has(s) && has(t))
      line("64 B RTT selector loop, separate cores, >= 8x below TCP", sprintf("%.1fx", v[t] / v[s]), v[t] >= 8 * v[s])
    u = "rtt,same-core,unix-socket,64,reference"
    split("nio net selector", apis, " ")
    for (i = 1; i <= 3; i++) {
      s = "rtt,same-core," apis[i] ",64,yes"
      if (has(s) && has(u))
        line("64 B RTT " apis[i] ", same core, no slower than a UNIX socket",
             sprintf("%.2f against %.2f us", v[s], v[u]), v[s] <= v[u])
    }
    split("same-core separate-cores", pins, " ")
    for (p = 1; p <= 2; p++) for (i = 1; i <= 3; i++) {
      s = "sleeping," pins[p] "," apis[i] ",64,yes"; t = "sleeping," pins[p] "," apis[i] ",64,no"
      if (has(s) && has(t))
        line("every wait sleeping, " apis[i] ", " pins[p] ": RTT no slower than TCP",
             sprintf("%.2fx", v[t] / v[s]), v[s] <= v[t])
    }
    s = "busy,separate-cores,nio,64,yes"; t = "busy,separate-cores,nio,64,no"
    if (has(s) && has(t))
      line("busy cores: 64 B RTT no worse than TCP", sprintf("%.2fx", v[t] / v[s]), v[s] <= v[t])
    s = "busy,separate-cores,heap,65536,yes"; t = "busy,separate-cores,heap,65536,no"
    if (has(s) && has(t))
      line("busy cores: 64 KiB stream no worse than TCP", sprintf("%.2fx", v[s] / v[t]), v[s] >= v[t])
    split("heap direct net file", sapis, " ")
    for (p = 1; p <= 2; p++) for (i = 1; i <= 4; i++) {
      below = ""; n = 0; worst = 0
      for (k in v) {
        split(k, f, ",")
        if (f[1] != "streams" || f[2] != pins[p] || f[3] != sapis[i] || f[5] != "yes") continue
        t = "streams," pins[p] "," sapis[i] "," f[4] ",no"
        if (!has(k) || !has(t)) continue
        ratio = v[k] / v[t]; n++
        if (worst == 0 || ratio < worst) worst = ratio
        need = sapis[i] == "file" ? 1 : f[4] == 64 ? 20 : (f[4] == 4096 || f[4] == 65536) ? 4 : 1
        if (ratio < need) below = below " " f[4] "B:" sprintf("%.2fx", ratio) "<" need "x"
        if (ratio < 1) below = below "(below TCP)"
      }
      if (n > 0)
        line("streams " sapis[i] ", " pins[p] ": >= TCP" (sapis[i] == "file" ? "" : ", 4x at 4/64 KiB, 20x at 64 B"),
             below == "" ? sprintf("least %.2fx", worst) : substr(below, 2), below == "")
    }
    for (p = 1; p <= 2; p++) {
      s = "setup," pins[p] ",net,1,yes"; t = "setup," pins[p] ",net,1,no"
      if (has(s) && has(t))
        line("connection setup, " pins[p] ": no slower than TCP (2x to resolve)", sprintf("%.2fx", v[t] / v[s]),
             v[s] <= v[t])
    }
    for (k in v) {
      split(k, f, ",")
      if (f[1] != "conns" || f[5] != "yes") continue
      t = "conns," f[2] "," f[3] "," f[4] ",no"
      if (has(k) && has(t))
        line(f[4] " connections at once, " f[2] ": no slower than TCP", sprintf("%.2fx", v[k] / v[t]), v[k] >= v[t])
    }
  }' "$CSV"
