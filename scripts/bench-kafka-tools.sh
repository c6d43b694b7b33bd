#!/usr/bin/env bash
# The same client on both brokers: Kafka's own perf tools (from the Kafka peer harness's 4.4 jars)
# first against Spool's Kafka listener, then against Apache Kafka, interleaved per rep; medians of
# the reps (not part of the test command). Run through scripts/bench.sh:
#
#   scripts/bench.sh kafka-tools [REPS] [--quick]      3 nodes, RF 3, min ISR 2, acks=all
#
# Per side and rep, in one fresh cluster: warm-up (2 x WARMUP_N x 512 B, not recorded); per record
# size 100 B and 1 KiB a topic of 6 partitions: ProducerPerformance with the client's defaults
# ("default") and with linger.ms=5 batch.size=131072 ("tuned"), as the harness runs them; then
# ConsumerPerformance reading all of it (it subscribes with a classic group; its fetch-only rate is
# recorded, and both sides run group.initial.rebalance.delay.ms=0, as the Kafka harness's brokers do); EndToEndLatency (5,000 sequential round trips) per size; the harness's
# FixedRateE2E at 1,000 and 10,000 records/s of 1 KiB. The commands are identical on both sides
# but for the bootstrap address. Every tool runs under scripts/bench-cpu.py, which records the CPU time
# of the side's 3 brokers and of the tool over the step (SIDE-STEP.cpu.jsonl); the summary gives broker
# and client CPU-ms per MB beside each other, so the client is identical and the broker the only
# difference. Results: bench-results/bench-kafka-tools-<ts>/ (results.tsv, every tool's output and CPU
# record, summary.md with medians and Spool/Kafka ratios).
# Env: N100 N1K WARMUP_N E2E_SECS E2E_MSGS SPOOL_HEAP KAFKA_HARNESS. Hold the machine lock.
set -uo pipefail
source "$(dirname "$0")/bench-common.sh"
COMMAND="$(command_line N100 N1K WARMUP_N E2E_SECS E2E_MSGS SPOOL_HEAP KAFKA_HARNESS -- "$0" "$@")"
QUICK=0; ARGS=()
for a in "$@"; do if [ "$a" = --quick ]; then QUICK=1; else ARGS+=("$a"); fi; done
set -- "${ARGS[@]}"
if [ "$QUICK" = 1 ]; then : "${N100:=200000}"; : "${N1K:=100000}"; : "${E2E_SECS:=5}"; : "${E2E_MSGS:=500}"; : "${WARMUP_N:=0}"; fi
REPS="${1:-3}"
: "${N100:=3000000}"; : "${N1K:=1000000}"; : "${E2E_SECS:=20}"; : "${E2E_MSGS:=5000}"; : "${WARMUP_N:=1000000}"; : "${SPOOL_HEAP:=512m}"
KAFKA_HARNESS="$(find_kafka_harness)" || exit 2
OUT="$(new_run_dir bench-kafka-tools "$COMMAND")"
DIR="$RESULTS/$(basename "$OUT")-cluster"
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/bench.log"; }
ensure_package
# shellcheck disable=SC1091
source "$KAFKA_HARNESS/env.sh"
ensure_jars
TOOL() { "$JAVA" $TOOL_HEAP -Dlog4j2.configurationFile="$KAFKA_HARNESS/config/log4j2-tools.properties" -cp "$CP" "$@"; }
TSV="$OUT/results.tsv"
printf "side\tkind\tsize\tconfig\trep\trec_per_s\tMB_per_s\tp50_ms\tp99_ms\tp999_ms\n" > "$TSV"
echo "n100=$N100 n1k=$N1K warmup_n=$WARMUP_N e2e_secs=$E2E_SECS e2e_msgs=$E2E_MSGS reps=$REPS quick=$QUICK spool_heap=$SPOOL_HEAP" > "$OUT/settings.txt"

# run SIDE NAME ARGS...: a tool run with its output kept as SIDE-NAME.log; stops the run on failure.
# The tool runs under scripts/bench-cpu.py: SIDE's brokers' CPU and the tool's go to SIDE-NAME.cpu.jsonl.
run() {
  local side="$1" name="$2"; shift 2
  local brokers="$DIR/node-*/node.pid"; [ "$side" = kafka ] && brokers="$KA_PIDS/*.pid"
  echo "$(printf '%q ' "$@")> $side-$name.log" >> "$OUT/commands.txt"
  BENCH_CPU_BROKERS="$brokers" python3 "$ROOT/scripts/bench-cpu.py" run --out "$OUT/$side-$name.cpu.jsonl" -- \
    "$JAVA" $TOOL_HEAP -Dlog4j2.configurationFile="$KAFKA_HARNESS/config/log4j2-tools.properties" -cp "$CP" "$@" \
    > "$OUT/$side-$name.log" 2>&1 || step_failed "$side $name" "see $OUT/$side-$name.log"
}

matrix() {
  local side="$1" bs="$2" rep="$3" size n cfg props f line
  topic() { run "$side" "topic-$1-$rep" org.apache.kafka.tools.TopicCommand --bootstrap-server "$bs" --create \
      --topic "$1" --partitions 6 --replication-factor 3 --config min.insync.replicas=2; }
  if [ "$WARMUP_N" -gt 0 ]; then
    topic warmup; log "$side rep $rep: warm-up"
    for w in 1 2; do run "$side" "warmup-$rep-$w" org.apache.kafka.tools.ProducerPerformance --topic warmup \
        --num-records "$WARMUP_N" --record-size 512 --throughput -1 --producer-props bootstrap.servers="$bs" acks=all; done
  fi
  for size in 100 1024; do
    n=$N100; [ "$size" = 1024 ] && n=$N1K
    topic "bench-$size"
    for cfg in default tuned; do
      props=""; [ "$cfg" = tuned ] && props="linger.ms=5 batch.size=131072"
      f="producer-$size-$cfg-$rep"; log "$side $f N=$n"
      # shellcheck disable=SC2086
      run "$side" "$f" org.apache.kafka.tools.ProducerPerformance --topic "bench-$size" --num-records "$n" \
        --record-size "$size" --throughput -1 --producer-props bootstrap.servers="$bs" acks=all $props
      line="$(grep '99.9th' "$OUT/$side-$f.log" | tail -1)"; log "  $line"
      echo "$line" | sed -E 's/^([0-9]+) records sent, ([0-9.]+) records\/sec \(([0-9.]+) MB\/sec\).* ([0-9]+) ms 50th, [0-9]+ ms 95th, ([0-9]+) ms 99th, ([0-9]+) ms 99.9th.*/\2 \3 \4 \5 \6/' \
        | awk -v s="$side" -v z="$size" -v c="$cfg" -v r="$rep" 'NF==5 {printf "%s\tproducer\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",s,z,c,r,$1,$2,$3,$4,$5}' >> "$TSV"
    done
    if [ "$side" = kafka ] || grep -q "FindCoordinator(10): [0-9]" "$OUT/spool-api-versions-$rep.log"; then
      f="consumer-$size-$rep"; log "$side $f messages=$((n * 2))"
      run "$side" "$f" org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$bs" --topic "bench-$size" \
        --messages $((n * 2)) --group "cperf-$size-$rep-$RANDOM" --timeout 60000
      line="$(grep -A1 '^start.time' "$OUT/$side-$f.log" | tail -1)"; log "  $line"
      # The fetch-only rate (fetch.nMsg.sec, fetch.MB.sec): the tool's whole window also holds the
      # group join, which is not what this row compares.
      echo "$line" | awk -F', *' -v s="$side" -v z="$size" -v r="$rep" 'NF>=10 {printf "%s\tconsumer\t%s\tdefault\t%s\t%s\t%s\t-\t-\t-\n",s,z,r,$10,$9}' >> "$TSV"
    else
      log "$side consumer-$size-$rep skipped: the listener has no group APIs yet"
    fi
  done
  topic e2e
  for size in 100 1024; do
    f="e2e-seq-$size-$rep"; log "$side $f"
    run "$side" "$f" org.apache.kafka.tools.EndToEndLatency "$bs" e2e "$E2E_MSGS" all "$size"
    line="$(grep 'Percentiles' "$OUT/$side-$f.log")"; log "  $line"
    echo "$line" | sed -E 's/.*50th = ([0-9]+).*99th = ([0-9]+),.*99.9th = ([0-9]+).*/\1 \2 \3/' \
      | awk -v s="$side" -v z="$size" -v r="$rep" 'NF==3 {printf "%s\te2e-seq\t%s\tlinger0\t%s\t-\t-\t%s\t%s\t%s\n",s,z,r,$1,$2,$3}' >> "$TSV"
  done
  for rate in 1000 10000; do
    f="e2e-rate-$rate-$rep"; log "$side $f"
    run "$side" "$f" "$KAFKA_HARNESS/FixedRateE2E.java" "$bs" e2e "$rate" "$E2E_SECS" 1024 all 0
    line="$(grep '^FixedRateE2E' "$OUT/$side-$f.log")"; log "  $line"
    echo "$line" | sed -E 's/.*achieved~([0-9]+).* p50 ([0-9.]+) p90 [0-9.]+ p99 ([0-9.]+) p99.9 ([0-9.]+).*/\1 \2 \3 \4/' \
      | awk -v s="$side" -v t="$rate" -v r="$rep" 'NF==4 {printf "%s\te2e-rate%s\t1024\tlinger0\t%s\t%s\t-\t%s\t%s\t%s\n",s,t,r,$1,$2,$3,$4}' >> "$TSV"
  done
}

SPOOL_UP=0; KAFKA_UP=0
spool_stop() { [ "$SPOOL_UP" = 1 ] || return 0; "$ROOT/scripts/cluster.sh" stop --dir "$DIR" >> "$OUT/cluster.log" 2>&1; SPOOL_UP=0; rm -rf "$DIR"; }
kafka_stop() { [ "$KAFKA_UP" = 1 ] || return 0; "$KAFKA_HARNESS/stop.sh" >> "$OUT/kafka.log" 2>&1; KAFKA_UP=0; }
trap 'spool_stop; kafka_stop' EXIT
for rep in $(seq 1 "$REPS"); do
  rm -rf "$DIR"; SPOOL_UP=1
  SPOOL_NODE_OPTS="-Xms$SPOOL_HEAP -Xmx$SPOOL_HEAP -XX:+UseG1GC -XX:MaxGCPauseMillis=20" \
    SPOOL_NODE_PROPS="group.initial.rebalance.delay.ms=0" \
    "$ROOT/scripts/cluster.sh" start --nodes 3 --dir "$DIR" --base-port 19092 >> "$OUT/cluster.log" 2>&1 \
    || step_failed "Spool cluster start" "see $OUT/cluster.log"
  SBS="$(cat "$DIR/kafka-bootstrap")"
  TOOL org.apache.kafka.tools.BrokerApiVersionsCommand --bootstrap-server "$SBS" > "$OUT/spool-api-versions-$rep.log" 2>&1
  matrix spool "$SBS" "$rep"
  spool_stop
  KAFKA_UP=1
  "$KAFKA_HARNESS/start-cluster.sh" >> "$OUT/kafka.log" 2>&1 || step_failed "Kafka start" "see $OUT/kafka.log"
  matrix kafka 127.0.0.1:9192,127.0.0.1:9292,127.0.0.1:9392 "$rep"
  kafka_stop
done

python3 - "$TSV" "$OUT" > "$OUT/summary.md" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print(f"# Kafka's perf tools on Spool's Kafka listener and on Kafka (medians of the reps)\n\nraw: {sys.argv[2]}\n")
keys = sorted({(r["kind"], r["size"], r["config"]) for r in rows})
def med(side, k, col):
    v = [float(r[col]) for r in rows if r["side"] == side and (r["kind"], r["size"], r["config"]) == k and r[col] not in ("-", "")]
    return statistics.median(v) if v else None
fmt = lambda x: "-" if x is None else (f"{x:,.0f}" if x >= 100 else f"{x:g}")
print("| kind | size | config | Spool rec/s | Kafka rec/s | Spool/Kafka | Spool p50/p99/p99.9 ms | Kafka p50/p99/p99.9 ms |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for k in keys:
    s, ka = med("spool", k, "rec_per_s"), med("kafka", k, "rec_per_s")
    ratio = f"{s / ka:.2f}" if s and ka else "-"
    lat = lambda side: "/".join(fmt(med(side, k, c)) for c in ("p50_ms", "p99_ms", "p999_ms"))
    print(f"| {k[0]} | {k[1]} | {k[2]} | {fmt(s)} | {fmt(ka)} | {ratio} | {lat('spool')} | {lat('kafka')} |")
PY
python3 "$ROOT/scripts/bench-summary.py" kafka-tools-cpu "$OUT" >> "$OUT/summary.md" || step_failed "summary" "bench-summary.py kafka-tools-cpu failed"
cat "$OUT/summary.md"
log "results: $OUT"
