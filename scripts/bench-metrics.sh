#!/usr/bin/env bash
# What Spool's metrics cost (target: at most 2 % of produce and consume throughput, a scrape of a
# node with 10,000 partitions under 200 ms and 20 MiB), same build, same sitting:
#
#  1. throughput: a local 3-node cluster (RF 3, acks=all) started REPS times with metrics on and
#     REPS times with them off (SPOOL_METRICS=0), alternating on, off, on, off so drift hits both
#     alike; each start produces RECORDS records of RECORD_SIZE bytes into a 6-partition topic and
#     reads them back CONSUME_PASSES times (a pass of 1 M small records lasts about a second, too
#     short to compare alone; a run's consume figure is the median of its passes). With metrics on, every node is scraped every SCRAPE_INTERVAL_S seconds
#     during the runs, as Prometheus would (its default is 15 s; 5 s here is the harsher case).
#     Before each cluster stops, the script reads every node's CPU time (/proc/<pid>/stat) and, with
#     metrics on, its ops thread's CPU time (ops-http-<id>, where scrapes run) and its served
#     requests (spool_requests_total).
#  2. recording cost: dev.spool.bench.MetricsRecordingBenchmark (JMH) times what a request thread
#     records per request and per partition, metrics on against off. With the runs' request counts
#     and CPU times this gives the metrics' share of the cluster's CPU: (extra ns per request x
#     requests + ops-thread CPU) / node CPU, counting 6 partitions per request (an upper bound).
#     The cluster runs are CPU-bound on this machine, so that share is what metrics cost in
#     throughput; the throughput medians alone cannot resolve 2 % (runs differ by up to ~25 %).
#  3. scrape: dev.spool.bench.ScrapeBench (data-plane's test classes) starts one node in a JVM,
#     creates PARTITIONS partitions and scrapes /metrics with curl (a separate process, as
#     Prometheus is): time, and what the node's ops thread allocated per scrape.
#
#   scripts/bench-metrics.sh    # REPS=3 RECORDS=1000000 RECORD_SIZE=100 CONSUME_PASSES=5 SCRAPE_INTERVAL_S=5 PARTITIONS=10000
#   scripts/bench.sh metrics [REPS] runs the same.
# The summary compares the medians of the REPS runs with metrics on and off.
#   SKIP_THROUGHPUT=1 / SKIP_RECORDING=1 / SKIP_SCRAPE=1 skip a part.
#
# Holds the machine lock itself (flock /tmp/spool-heavy.lock), stops the clusters it started, and
# keeps the raw outputs and summary.md in bench-results/bench-metrics-<timestamp>/ (git-ignored).
set -uo pipefail
source "$(dirname "$0")/bench-common.sh"
COMMAND="$(command_line REPS RECORDS RECORD_SIZE CONSUME_PASSES SCRAPE_INTERVAL_S PARTITIONS SKIP_THROUGHPUT SKIP_RECORDING SKIP_SCRAPE -- "$0" "$@")"
if [ -z "${SPOOL_BENCH_LOCKED:-}" ]; then
  exec env SPOOL_BENCH_LOCKED=1 flock /tmp/spool-heavy.lock "$0" "$@"
fi
REPS="${REPS:-3}"; RECORDS="${RECORDS:-1000000}"; RECORD_SIZE="${RECORD_SIZE:-100}"; CONSUME_PASSES="${CONSUME_PASSES:-5}"
SCRAPE_INTERVAL_S="${SCRAPE_INTERVAL_S:-5}"; PARTITIONS="${PARTITIONS:-10000}"
OUT="$(new_run_dir bench-metrics "$COMMAND")"
DIR="$RESULTS/$(basename "$OUT")-cluster"; SPOOL="$ROOT/scripts/spool"; BASE=29192
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/bench.log"; }
ensure_package

SCRAPER=""
stop_all() {
  [ -z "$SCRAPER" ] || kill "$SCRAPER" 2>/dev/null || true
  "$ROOT/scripts/cluster.sh" stop --dir "$DIR" >> "$OUT/cluster.log" 2>&1 || true
  rm -rf "$DIR"
}
trap stop_all EXIT

# scrape_loop: every node's /metrics every SCRAPE_INTERVAL_S seconds until killed; notes failures.
scrape_loop() {
  while true; do
    for i in 1 2 3; do
      curl -sf -o /dev/null "http://127.0.0.1:$((BASE + 10 * (i - 1) + 3))/metrics" || echo "scrape of node $i failed" >> "$OUT/scrapes.err"
    done
    sleep "$SCRAPE_INTERVAL_S"
  done
}

# cpu_snapshot NAME METRICS PHASE: one line per node into cpu.txt: name, metrics, phase (start:
# cluster up and topic made, end: load done), node, CPU seconds of the node's process and of its
# ops thread, requests served (the last two with metrics on only), the time, and the machine's busy
# and total CPU ticks (/proc/stat). The summary uses end - start.
cpu_snapshot() {
  local name="$1" metrics="$2" phase="$3" i pid t tck total ops req machine
  tck="$(getconf CLK_TCK)"
  machine="$(awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9}' /proc/stat)"
  for i in 1 2 3; do
    pid="$(cat "$DIR/node-$i/node.pid" 2>/dev/null)"
    [ -n "$pid" ] && [ -r "/proc/$pid/stat" ] || step_failed "$name" "node $i has no live process to read"
    # Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    total="$(sed 's/.*) //' "/proc/$pid/stat" | awk -v t="$tck" '{print ($12 + $13) / t}')"
    ops=0; req=0
    if [ "$metrics" = 1 ]; then
      for t in /proc/"$pid"/task/*; do
        if [ "$(cat "$t/comm" 2>/dev/null)" = "ops-http-$i" ]; then
          ops="$(sed 's/.*) //' "$t/stat" | awk -v t="$tck" '{print ($12 + $13) / t}')"
        fi
      done
      req="$(curl -sf "http://127.0.0.1:$((BASE + 10 * (i - 1) + 3))/metrics" \
        | awk '/^spool_requests_total\{/ {s += $2} END {printf "%.0f", s}')"
      [ -n "$req" ] || step_failed "$name" "node $i's metrics could not be read"
    fi
    echo "$name $metrics $phase $i $total $ops $req $(date +%s.%N) $machine" >> "$OUT/cpu.txt"
  done
}

one_run() { # NAME METRICS(1|0)
  local name="$1" metrics="$2" b="127.0.0.1:$BASE"
  rm -rf "$DIR"
  SPOOL_METRICS="$metrics" "$ROOT/scripts/cluster.sh" start --nodes 3 --dir "$DIR" --base-port "$BASE" >> "$OUT/cluster.log" 2>&1 \
    || step_failed "$name" "cluster start failed; see $OUT/cluster.log"
  "$SPOOL" topic create bench-metrics --partitions 6 --replication-factor 3 -b "$b" >> "$OUT/cluster.log" 2>&1 \
    || step_failed "$name" "topic create failed"
  cpu_snapshot "$name" "$metrics" start
  if [ "$metrics" = 1 ]; then scrape_loop & SCRAPER=$!; fi
  log "$name: produce $RECORDS x $RECORD_SIZE B (acks=all, RF 3), then consume them"
  "$SPOOL" perf produce -b "$b" --topic bench-metrics --num-records "$RECORDS" --record-size "$RECORD_SIZE" \
    --throughput -1 > "$OUT/$name-produce.log" 2>&1 || step_failed "$name produce" "see $OUT/$name-produce.log"
  local pass
  for pass in $(seq 1 "$CONSUME_PASSES"); do
    "$SPOOL" perf consume -b "$b" --topic bench-metrics --messages "$RECORDS" > "$OUT/$name-consume$pass.log" 2>&1 \
      || step_failed "$name consume" "see $OUT/$name-consume$pass.log"
  done
  if [ -n "$SCRAPER" ]; then kill "$SCRAPER" 2>/dev/null; wait "$SCRAPER" 2>/dev/null; SCRAPER=""; fi
  cpu_snapshot "$name" "$metrics" end
  "$ROOT/scripts/cluster.sh" stop --dir "$DIR" >> "$OUT/cluster.log" 2>&1
  local p c
  p="$(grep -o '[0-9.]* records/sec' "$OUT/$name-produce.log" | tail -1 | cut -d' ' -f1)"
  c="$(for pass in $(seq 1 "$CONSUME_PASSES"); do grep -o '[0-9.]* records/sec' "$OUT/$name-consume$pass.log" | tail -1 | cut -d' ' -f1; done \
    | sort -g | awk '{v[NR] = $1} END {if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2)}')"
  [ -n "$p" ] && [ -n "$c" ] || step_failed "$name" "no throughput line in its produce or consume output"
  [ "$(cat "$OUT/$name"-consume*.log | grep -c 'records/sec')" -ge "$CONSUME_PASSES" ] \
    || step_failed "$name consume" "a consume pass printed no throughput line"
  echo "$name $metrics $p $c" >> "$OUT/throughput.txt"
  log "$name: produce $p records/s, consume $c records/s (median of $CONSUME_PASSES passes)"
}

if [ "${SKIP_THROUGHPUT:-0}" != 1 ]; then
  for r in $(seq 1 "$REPS"); do
    one_run "rep$r-on" 1
    one_run "rep$r-off" 0
  done
fi
CP=""
if [ "${SKIP_RECORDING:-0}" != 1 ]; then
  CP="$(test_classpath data-plane)" || step_failed recording "the build of data-plane's test classes failed"
  log "recording cost: MetricsRecordingBenchmark (JMH), metrics on and off"
  java -cp "$CP" org.openjdk.jmh.Main -f 1 -wi 5 -w 1s -i 5 -r 1s -rf csv -rff "$OUT/recording.csv" \
    MetricsRecordingBenchmark > "$OUT/recording.log" 2>&1 \
    || step_failed recording "JMH failed; see $OUT/recording.log"
  grep -E '^MetricsRecordingBenchmark|^Benchmark' "$OUT/recording.log" | tee -a "$OUT/bench.log"
fi
if [ "${SKIP_SCRAPE:-0}" != 1 ]; then
  [ -n "$CP" ] || CP="$(test_classpath data-plane)" || step_failed scrape "the build of data-plane's test classes failed"
  log "scrape: ScrapeBench $PARTITIONS partitions"
  java -Xms1g -Xmx1g -XX:+UseG1GC -Dlogback.configurationFile="$(quiet_logback "$OUT/logback.xml")" \
    -cp "$CP" dev.spool.bench.ScrapeBench "$PARTITIONS" 10 30 > "$OUT/scrape.log" 2> "$OUT/scrape.err" \
    || step_failed scrape "ScrapeBench failed; see $OUT/scrape.err"
  tee -a "$OUT/bench.log" < "$OUT/scrape.log"
fi

{ echo "# Metrics cost"; echo; run_facts "$OUT"; echo
  if [ -f "$OUT/throughput.txt" ]; then
    python3 - "$OUT/throughput.txt" "$RECORDS" "$RECORD_SIZE" "$SCRAPE_INTERVAL_S" "$CONSUME_PASSES" <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1])]
on = [r for r in rows if r[1] == "1"]; off = [r for r in rows if r[1] == "0"]
print(f"3 nodes, RF 3, acks=all, {sys.argv[2]} records of {sys.argv[3]} B per run, read back {sys.argv[5]} times (consume: the median pass); metrics on: every node scraped every {sys.argv[4]} s.")
print()
print("| run | metrics | produce records/s | consume records/s |")
print("|---|---|---|---|")
for r in rows:
    print(f"| {r[0]} | {'on' if r[1] == '1' else 'off'} | {float(r[2]):,.0f} | {float(r[3]):,.0f} |")
print()
for i, what in ((2, "produce"), (3, "consume")):
    a = statistics.median(float(r[i]) for r in on); b = statistics.median(float(r[i]) for r in off)
    print(f"- {what}, median of {len(on)} runs on and {len(off)} off: metrics on {a:,.0f}/s, off {b:,.0f}/s: on is {100 * (a - b) / b:+.1f} % against off (target: no worse than -2 %)")
PY
  fi
  if [ -f "$OUT/cpu.txt" ] && [ -f "$OUT/recording.csv" ]; then
    python3 - "$OUT/cpu.txt" "$OUT/recording.csv" "$RECORDS" <<'PY'
import csv, sys, statistics
runs = {}
for l in open(sys.argv[1]):
    name, metrics, phase, node, total, ops, req, at, busy, ticks = l.split()
    sign = 1 if phase == "end" else -1
    r = runs.setdefault(name, {"metrics": metrics, "cpu": 0.0, "ops": 0.0, "req": 0, "wall": 0.0, "busy": 0.0, "ticks": 0.0})
    r["busy"] += sign * float(busy) / 3; r["ticks"] += sign * float(ticks) / 3
    r["cpu"] += sign * float(total); r["ops"] += sign * float(ops); r["req"] += sign * int(req)
    r["wall"] += sign * float(at) / 3
ns = {}
for row in csv.DictReader(open(sys.argv[2])):
    ns[(row["Benchmark"].rsplit(".", 1)[1], row["Param: metrics"])] = float(row["Score"])
per_request = ns[("request", "on")] - ns[("request", "off")]
per_partition = ns[("partition", "on")] - ns[("partition", "off")]
bound = per_request + 6 * per_partition
print()
print("## Metrics' share of the cluster's CPU")
print()
print(f"JMH, per request: {ns[('request', 'on')]:.1f} ns on, {ns[('request', 'off')]:.1f} ns off; per partition: {ns[('partition', 'on')]:.1f} ns on, {ns[('partition', 'off')]:.1f} ns off. Counted per request: {per_request:.1f} + 6 x {per_partition:.1f} = {bound:.1f} ns.")
print()
print("Node CPU, ops-thread CPU and requests are counted from after the topic was made to the end of the load.")
print()
print("| run | metrics | wall s | node CPU s (3 nodes) | machine busy (nodes) | CPU us per record | requests | recording CPU s | ops-thread CPU s | metrics' share |")
print("|---|---|---|---|---|---|---|---|---|---|")
shares = []
for name, r in runs.items():
    per_record = 1e6 * r["cpu"] / int(sys.argv[3])
    lead = f"| {name} | {'on' if r['metrics'] == '1' else 'off'} | {r['wall']:.1f} | {r['cpu']:.1f} | {100 * r['busy'] / r['ticks']:.0f} % ({100 * r['cpu'] / (2 * r['wall']):.0f} %) | {per_record:.1f} |"
    if r["metrics"] == "1":
        rec = r["req"] * bound / 1e9
        share = 100 * (rec + r["ops"]) / r["cpu"]
        shares.append(share)
        print(f"{lead} {r['req']:,} | {rec:.3f} | {r['ops']:.2f} | {share:.2f} % |")
    else:
        print(f"{lead} | | | |")
if shares:
    print()
    print(f"- metrics' share of node CPU, median of {len(shares)} runs: {statistics.median(shares):.2f} % (target: at most 2 % of throughput; where the machine is busy, CPU is what throughput is bound by)")
on = [r["cpu"] for r in runs.values() if r["metrics"] == "1"]; off = [r["cpu"] for r in runs.values() if r["metrics"] == "0"]
if on and off:
    a, b = statistics.median(on), statistics.median(off)
    print(f"- node CPU per run, median: on {a:.1f} s, off {b:.1f} s ({100 * (a - b) / b:+.1f} %; includes the same noise as the throughput)")
PY
  fi
  if [ -f "$OUT/scrape.log" ]; then echo; echo "## Scrape, $PARTITIONS partitions (target < 200 ms, < 20 MiB)"; echo; sed 's/^/    /' "$OUT/scrape.log"; fi
} > "$OUT/summary.md"
cat "$OUT/summary.md"
