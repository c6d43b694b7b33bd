#!/usr/bin/env bash
# Spool beside Apache Kafka, same machine, same sitting, same workload (not part of the test command).
#
#   scripts/bench.sh single [REPS]    1 node, RF 1   (issue: data path)
#   scripts/bench.sh cluster [REPS]   3 nodes, RF 3, min ISR 2, plus partition-leader failover
#
# Per rep, interleaved: Spool's matrix, then Kafka's (the Kafka peer harness, its own tools).
# Matrix (as the Kafka harness): 6 partitions, acks=all; producer 100 B and 1 KiB records with each
# system's client defaults and "tuned" (linger.ms=5 batch.size=131072); consumer reading everything;
# end-to-end latency of 1 KiB records at fixed 1,000 and 10,000 records/s (linger 0).
# Env: N100 N1K (records per producer run), E2E_SECS (20), SKIP_KAFKA=1, FAILOVER_TRIALS (20),
#      SPOOL_HEAP (512m: the broker heap target), KAFKA_HARNESS (the harness directory; not in this
#      repository, default ../shared/peers/kafka: see find_kafka_harness in bench-common.sh).
set -uo pipefail
source "$(dirname "$0")/bench-common.sh"
MODE="${1:?usage: bench.sh single|cluster [REPS]}"; REPS="${2:-2}"
if [ "${SKIP_KAFKA:-0}" = 1 ]; then KAFKA_HARNESS=""; else KAFKA_HARNESS="$(find_kafka_harness)" || exit 2; fi
case "$MODE" in
  single)  NODES=1; RF=1; : "${N100:=4000000}"; : "${N1K:=2000000}";;
  cluster) NODES=3; RF=3; : "${N100:=3000000}"; : "${N1K:=1000000}";;
  *) echo "mode must be single or cluster" >&2; exit 2;;
esac
: "${E2E_SECS:=20}"; : "${SPOOL_HEAP:=512m}"; : "${FAILOVER_TRIALS:=20}"
OUT="$RESULTS/bench-$MODE-$(date +%Y%m%d-%H%M%S)"; mkdir -p "$OUT"
DIR="$OUT/spool-cluster"; SPOOL="$ROOT/scripts/spool"
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/bench.log"; }
ensure_package

spool_start() {
  rm -rf "$DIR"
  SPOOL_NODE_OPTS="-Xms$SPOOL_HEAP -Xmx$SPOOL_HEAP -XX:+UseG1GC -XX:MaxGCPauseMillis=20" \
    "$ROOT/scripts/cluster.sh" start --nodes "$NODES" --dir "$DIR" --base-port 19092 >> "$OUT/cluster.log" 2>&1 \
    || { log "Spool cluster did not start; see $DIR/node-*/node.log"; exit 3; }
  BS="$(cat "$DIR/bootstrap")"
  # Heap sampler: peak used heap of each broker JVM (jstat, every second).
  for f in "$DIR"/node-*/node.pid; do
    ( pid=$(cat "$f"); jstat -gc "$pid" 1000 2>/dev/null \
        | awk 'NR>1 {u=($3+$4+$6+$8)/1024; if (u>m) m=u} {print m > "/dev/stderr"}' 2> "$f.heapmax" ) &
  done
}
spool_stop() { "$ROOT/scripts/cluster.sh" stop --dir "$DIR" >> "$OUT/cluster.log" 2>&1 || true; }
spool_topic() { "$SPOOL" topic create "$1" --partitions 6 --replication-factor $RF --bootstrap "$BS" >> "$OUT/topics.log" 2>&1; }

spool_matrix() {
  local rep="$1"
  log "Spool rep $rep: warm-up 2 x 1M x 512 B (not recorded)"
  spool_topic warmup
  for w in 1 2; do "$SPOOL" perf produce --topic warmup --num-records 1000000 --record-size 512 --throughput -1 \
      --bootstrap "$BS" > "$OUT/spool-warmup-$rep-$w.log" 2>&1; done
  for size in 100 1024; do
    local n=$N100; [ "$size" = 1024 ] && n=$N1K
    spool_topic "bench-$size"
    for cfg in default tuned; do
      local props=(); [ "$cfg" = tuned ] && props=(--producer-prop linger.ms=5 --producer-prop batch.size=131072)
      log "Spool producer size=$size cfg=$cfg N=$n"
      "$SPOOL" perf produce --topic "bench-$size" --num-records "$n" --record-size "$size" --throughput -1 --acks all \
        "${props[@]}" --json --bootstrap "$BS" > "$OUT/spool-producer-$size-$cfg-$rep.json" 2> "$OUT/spool-producer-$size-$cfg-$rep.log"
      tail -1 "$OUT/spool-producer-$size-$cfg-$rep.json" | tee -a "$OUT/bench.log"
    done
    log "Spool consumer size=$size messages=$((n * 2))"
    "$SPOOL" perf consume --topic "bench-$size" --messages $((n * 2)) --timeout-ms 60000 --json --bootstrap "$BS" \
      > "$OUT/spool-consumer-$size-$rep.json" 2> "$OUT/spool-consumer-$size-$rep.log"
    tail -1 "$OUT/spool-consumer-$size-$rep.json" | tee -a "$OUT/bench.log"
  done
  spool_topic e2e
  for rate in 1000 10000; do
    log "Spool e2e rate=$rate/s 1 KiB acks=all linger 0, $E2E_SECS s"
    "$SPOOL" perf e2e --topic e2e --rate "$rate" --duration-s "$E2E_SECS" --record-size 1024 --acks all --linger-ms 0 \
      --json --bootstrap "$BS" > "$OUT/spool-e2e-$rate-$rep.json" 2> "$OUT/spool-e2e-$rate-$rep.log"
    tail -1 "$OUT/spool-e2e-$rate-$rep.json" | tee -a "$OUT/bench.log"
  done
  for f in "$DIR"/node-*/node.pid.heapmax; do
    echo "{\"rep\": $rep, \"node\": \"$(basename "$(dirname "$f")")\", \"peak_heap_mib\": $(tail -1 "$f" 2>/dev/null || echo 0)}"
  done > "$OUT/spool-heap-$rep.json"
  cat "$OUT/spool-heap-$rep.json" | tee -a "$OUT/bench.log"
}

kafka_matrix() {
  local rep="$1"
  [ -n "$KAFKA_HARNESS" ] || { log "Kafka harness not found; skipping Kafka"; return; }
  log "Kafka rep $rep ($MODE)"
  if [ "$MODE" = single ]; then "$KAFKA_HARNESS/start-single.sh" >> "$OUT/kafka.log" 2>&1
  else "$KAFKA_HARNESS/start-cluster.sh" >> "$OUT/kafka.log" 2>&1; fi
  N100=$N100 N1K=$N1K E2E_SECS=$E2E_SECS "$KAFKA_HARNESS/bench.sh" "$MODE" 1 >> "$OUT/kafka.log" 2>&1
  "$KAFKA_HARNESS/stop.sh" >> "$OUT/kafka.log" 2>&1
  local sum; sum="$(ls -td /tmp/kafka-anchor/results/"$MODE"-* | head -1)/summary.tsv"
  cp "$sum" "$OUT/kafka-summary-$rep.tsv" && log "Kafka summary: $OUT/kafka-summary-$rep.tsv"
}

failover() {
  log "Spool partition-leader failover: $FAILOVER_TRIALS trials (SIGKILL of the leader -> first acked write)"
  local cp; cp="$(test_classpath data-plane)"
  java -Xmx256m -cp "$cp" dev.spool.bench.PartitionFailoverBench "$BS" "$DIR" "$ROOT/scripts/cluster.sh" \
    "$FAILOVER_TRIALS" 2>>"$OUT/failover.err" | tee "$OUT/spool-failover.log"
}

trap 'spool_stop' EXIT
for rep in $(seq 1 "$REPS"); do
  spool_start; spool_matrix "$rep"
  [ "$MODE" = cluster ] && [ "$rep" = 1 ] && failover
  spool_stop
  [ "${SKIP_KAFKA:-0}" = 1 ] || kafka_matrix "$rep"
done
python3 "$ROOT/scripts/bench-summary.py" "$OUT" | tee "$OUT/summary.md"
log "results: $OUT"
