#!/usr/bin/env bash
# What Spool's metrics cost (issue 15: at most 2 % of produce and consume throughput, a scrape of a
# node with 10,000 partitions under 200 ms and 20 MiB), same build, same sitting:
#
#  1. throughput: a local 3-node cluster (RF 3, acks=all) started REPS times with metrics on and
#     REPS times with them off (SPOOL_METRICS=0), alternating on, off, on, off so drift hits both
#     alike; each start produces RECORDS records of RECORD_SIZE bytes into a 6-partition topic and
#     reads them back CONSUME_PASSES times (a pass of 1 M small records lasts about a second, too
#     short to compare alone; a run's consume figure is the median of its passes). With metrics on, every node is scraped every SCRAPE_INTERVAL_S seconds
#     during the runs, as Prometheus would (its default is 15 s; 5 s here is the harsher case).
#  2. scrape: dev.spool.bench.ScrapeBench (data-plane's test classes) starts one node in a JVM,
#     creates PARTITIONS partitions and measures /metrics over HTTP: time, and what the node's ops
#     thread allocated per scrape.
#
#   scripts/bench-metrics.sh    # REPS=3 RECORDS=1000000 RECORD_SIZE=100 CONSUME_PASSES=5 SCRAPE_INTERVAL_S=5 PARTITIONS=10000
#   scripts/bench.sh metrics [REPS] runs the same.
# The summary compares the medians of the REPS runs with metrics on and off.
#   SKIP_THROUGHPUT=1 / SKIP_SCRAPE=1 run one part only.
#
# Holds the machine lock itself (flock /tmp/spool-heavy.lock), stops the clusters it started, and
# keeps the raw outputs and summary.md in bench-results/bench-metrics-<timestamp>/ (git-ignored).
set -uo pipefail
source "$(dirname "$0")/bench-common.sh"
COMMAND="$(command_line REPS RECORDS RECORD_SIZE CONSUME_PASSES SCRAPE_INTERVAL_S PARTITIONS SKIP_THROUGHPUT SKIP_SCRAPE -- "$0" "$@")"
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

one_run() { # NAME METRICS(1|0)
  local name="$1" metrics="$2" b="127.0.0.1:$BASE"
  rm -rf "$DIR"
  SPOOL_METRICS="$metrics" "$ROOT/scripts/cluster.sh" start --nodes 3 --dir "$DIR" --base-port "$BASE" >> "$OUT/cluster.log" 2>&1 \
    || step_failed "$name" "cluster start failed; see $OUT/cluster.log"
  "$SPOOL" topic create bench-metrics --partitions 6 --replication-factor 3 -b "$b" >> "$OUT/cluster.log" 2>&1 \
    || step_failed "$name" "topic create failed"
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
if [ "${SKIP_SCRAPE:-0}" != 1 ]; then
  CP="$(test_classpath data-plane)"
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
  if [ -f "$OUT/scrape.log" ]; then echo; echo "## Scrape, $PARTITIONS partitions (target < 200 ms, < 20 MiB)"; echo; sed 's/^/    /' "$OUT/scrape.log"; fi
} > "$OUT/summary.md"
cat "$OUT/summary.md"
