#!/usr/bin/env bash
# Spool beside Apache Kafka, same machine, same sitting, same workload (not part of the test command).
#
#   scripts/bench.sh single [REPS] [--quick]    1 node, RF 1   (issue: data path)
#   scripts/bench.sh cluster [REPS] [--quick]   3 nodes, RF 3, min ISR 2, plus partition-leader failover
#   scripts/bench.sh kafka-tools [REPS] [--quick]  Kafka's own perf tools on Spool's Kafka listener
#                                                and on Kafka, 3 nodes RF 3 (scripts/bench-kafka-tools.sh)
#   scripts/bench.sh metrics [REPS]             what metrics cost: metrics on against off, same build,
#                                                and a 10,000-partition scrape (scripts/bench-metrics.sh)
#
# Per rep, interleaved: Spool's matrix, then Kafka's (the Kafka peer harness, its own tools).
# Matrix (as the Kafka harness): 6 partitions, acks=all; producer 100 B and 1 KiB records, first with
# the SAME producer settings on both sides (SAME_PRODUCER below; Kafka's harness calls them "tuned"),
# then with EACH SIDE'S client defaults; consumer reading everything with the settings Kafka's
# ConsumerPerformance uses, timed over the same window; end-to-end latency of 1 KiB records at fixed
# 1,000 and 10,000 records/s (linger 0, Kafka's other client defaults on both sides).
# The run stops (exit 4) at the first step whose tool reports errors or prints no result.
# CPU per byte: every step's client runs under scripts/bench-cpu.py (Kafka's through JAVA=
# scripts/bench-cpu-java), which records the CPU seconds of each broker process (sampled from /proc just
# before the client starts and just after it exits) and of the client (its rusage) in STEP.cpu.jsonl;
# the summary gives broker CPU-ms per MB produced (all brokers, replication included) and consumed,
# and client CPU-ms per MB, both sides, and a table of every step's CPU time.
# Everything a run keeps (the command, commit, machine, every tool's raw output, Kafka's raw results,
# node logs, summary.md) is in bench-results/bench-<mode>-<timestamp>/ (git-ignored).
# --quick: a smoke run of the scripts (small record counts, 5 s e2e, 2 failover trials, no warm-up);
#      its figures are not for quoting and its summary says so.
# Env: N100 N1K (records per producer run), E2E_SECS (20), SKIP_KAFKA=1, FAILOVER_TRIALS (20),
#      WARMUP_N (Spool's JIT warm-up before each rep, twice that many 512 B records, default 1000000
#      as Kafka's harness; 0 = no warm-up on either side),
#      SPOOL_HEAP (512m: the broker heap target), KAFKA_HARNESS (the harness directory; not in this
#      repository, default ../shared/peers/kafka: see find_kafka_harness in bench-common.sh),
#      PRODUCE_ONLY=1 (only the producer rows, both sides, warm-up included: no consumer, end-to-end
#      or failover step on Spool's side; Kafka's harness runs with SKIP_E2E=1 and CONS_N=1, so its
#      consumer step reads one record and the summary leaves it out).
set -uo pipefail
[ "${1:-}" = kafka-tools ] && { shift; exec "$(dirname "$0")/bench-kafka-tools.sh" "$@"; }
[ "${1:-}" = metrics ] && { REPS="${2:-${REPS:-3}}" exec "$(dirname "$0")/bench-metrics.sh"; }
source "$(dirname "$0")/bench-common.sh"
COMMAND="$(command_line N100 N1K E2E_SECS SKIP_KAFKA FAILOVER_TRIALS WARMUP_N SPOOL_HEAP KAFKA_HARNESS PRODUCE_ONLY -- "$0" "$@")"
QUICK=0; ARGS=()
for a in "$@"; do if [ "$a" = --quick ]; then QUICK=1; else ARGS+=("$a"); fi; done
set -- "${ARGS[@]}"
if [ "$QUICK" = 1 ]; then
  : "${N100:=200000}"; : "${N1K:=100000}"; : "${E2E_SECS:=5}"; : "${FAILOVER_TRIALS:=2}"; : "${WARMUP_N:=0}"
fi
MODE="${1:?usage: bench.sh single|cluster|kafka-tools|metrics [REPS]}"; REPS="${2:-2}"
if [ "${SKIP_KAFKA:-0}" = 1 ]; then KAFKA_HARNESS=""; else KAFKA_HARNESS="$(find_kafka_harness)" || exit 2; fi
case "$MODE" in
  single)  NODES=1; RF=1; : "${N100:=4000000}"; : "${N1K:=2000000}";;
  cluster) NODES=3; RF=3; : "${N100:=3000000}"; : "${N1K:=1000000}";;
  *) echo "mode must be single, cluster, kafka-tools or metrics" >&2; exit 2;;
esac
: "${E2E_SECS:=20}"; : "${SPOOL_HEAP:=512m}"; : "${FAILOVER_TRIALS:=20}"; : "${WARMUP_N:=1000000}"
: "${PRODUCE_ONLY:=0}"
OUT="$(new_run_dir "bench-$MODE" "$COMMAND")"
DIR="$RESULTS/$(basename "$OUT")-cluster"; SPOOL="$ROOT/scripts/spool"   # cluster data: scratch, not kept
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/bench.log"; }
ensure_package

# The producer settings of the "same producer settings" rows. Spool gets every one on its command
# line. Kafka's harness passes acks=all linger.ms=5 batch.size=131072 (its "tuned" run); the rest are
# Kafka's client defaults, which check-settings reads from the Kafka jars and compares with this list
# before the first Kafka run, so the rows cannot silently compare different settings.
SAME_PRODUCER=(acks=all enable.idempotence=true batch.size=131072 linger.ms=5 buffer.memory=33554432
  max.in.flight.requests.per.connection=5 compression.type=none)
# The consumer settings of the "same consumer settings" rows: what Kafka's ConsumerPerformance runs
# with (its client defaults plus check.crcs=false; it also asks for a 2 MiB socket receive buffer,
# which Spool's client has no setting for). A Spool-only row repeats the read with check.crcs=true,
# the client default of both, which ConsumerPerformance turns off.
SAME_CONSUMER=(fetch.min.bytes=1 fetch.max.wait.ms=500 fetch.max.bytes=52428800
  max.partition.fetch.bytes=1048576 max.poll.records=500 check.crcs=false)
CRC_CONSUMER=("${SAME_CONSUMER[@]/check.crcs=false/check.crcs=true}")
# Fixed-rate end-to-end latency: FixedRateE2E's producer sets acks=all linger.ms=0 on Kafka's client
# defaults and its consumer runs on Kafka's consumer defaults; Spool gets the same values.
E2E_PRODUCER=(acks=all enable.idempotence=true batch.size=16384 linger.ms=0 buffer.memory=33554432
  max.in.flight.requests.per.connection=5 compression.type=none)
E2E_CONSUMER=(fetch.min.bytes=1 fetch.max.wait.ms=500 fetch.max.bytes=52428800
  max.partition.fetch.bytes=1048576 max.poll.records=500 check.crcs=true)
{ echo "mode=$MODE nodes=$NODES rf=$RF reps=$REPS quick=$QUICK n100=$N100 n1k=$N1K e2e_secs=$E2E_SECS"
  echo "warmup_n=$WARMUP_N failover_trials=$FAILOVER_TRIALS spool_heap=$SPOOL_HEAP kafka_harness=${KAFKA_HARNESS:-none} skip_kafka=${SKIP_KAFKA:-0} produce_only=$PRODUCE_ONLY"
  echo "same.producer=${SAME_PRODUCER[*]}"
  echo "same.consumer=${SAME_CONSUMER[*]}"
  echo "crc.consumer=${CRC_CONSUMER[*]}"
  echo "e2e.producer=${E2E_PRODUCER[*]}"
  echo "e2e.consumer=${E2E_CONSUMER[*]}"
  # What Kafka's harness passes (its bench.sh: cfg_props and the FixedRateE2E line); check-settings
  # finds these strings in the harness before it trusts them.
  echo "kafka.tuned=acks=all linger.ms=5 batch.size=131072"
  echo "kafka.default=acks=all"
  echo "kafka.e2e=acks=all linger.ms=0"
} > "$OUT/settings.txt"
prefixed() { local flag="$1" kv; shift; for kv in "$@"; do printf '%s\n%s\n' "$flag" "$kv"; done; }
mapfile -t SAME_PRODUCER_ARGS < <(prefixed --producer-prop "${SAME_PRODUCER[@]}")
mapfile -t SAME_CONSUMER_ARGS < <(prefixed --consumer-prop "${SAME_CONSUMER[@]}")
mapfile -t CRC_CONSUMER_ARGS < <(prefixed --consumer-prop "${CRC_CONSUMER[@]}")
mapfile -t E2E_ARGS < <(prefixed --producer-prop "${E2E_PRODUCER[@]}"; prefixed --consumer-prop "${E2E_CONSUMER[@]}")
# Spool's producer defaults, for the summary's "each side's defaults" rows.
"$SPOOL" produce --help-config > "$OUT/spool-producer-config.txt" 2>&1 \
  || step_failed "Spool producer defaults" "spool produce --help-config failed"

spool_start() {
  rm -rf "$DIR"
  SPOOL_NODE_OPTS="-Xms$SPOOL_HEAP -Xmx$SPOOL_HEAP -XX:+UseG1GC -XX:MaxGCPauseMillis=20" \
    "$ROOT/scripts/cluster.sh" start --nodes "$NODES" --dir "$DIR" --base-port 19092 >> "$OUT/cluster.log" 2>&1 \
    || step_failed "Spool cluster start" "see $OUT/cluster.log and $OUT/spool-logs-last/"
  BS="$(cat "$DIR/bootstrap")"
  export BENCH_CPU_BROKERS="$DIR/node-*/node.pid"   # the brokers whose CPU bench-cpu.py samples
  # Heap sampler: peak used heap of each broker JVM (jstat, every second).
  for f in "$DIR"/node-*/node.pid; do
    ( pid=$(cat "$f"); jstat -gc "$pid" 1000 2>/dev/null \
        | awk 'NR>1 {u=($3+$4+$6+$8)/1024; if (u>m) m=u} {print m > "/dev/stderr"}' 2> "$f.heapmax" ) &
  done
}
# Stops the cluster and keeps its node logs (the data is scratch and goes).
spool_stop() {
  [ -f "$DIR/cluster.env" ] || return 0
  "$ROOT/scripts/cluster.sh" stop --dir "$DIR" >> "$OUT/cluster.log" 2>&1 || true
  local n; for n in "$DIR"/node-*; do
    [ -f "$n/node.log" ] && mkdir -p "$OUT/spool-logs-${1:-last}" && cp "$n/node.log" "$OUT/spool-logs-${1:-last}/$(basename "$n").log"
  done
  rm -rf "$DIR"
}
spool_topic() {
  "$SPOOL" topic create "$1" --partitions 6 --replication-factor $RF --bootstrap "$BS" >> "$OUT/topics.log" 2>&1 \
    || step_failed "Spool topic create $1" "see $OUT/topics.log"
}

# spool_perf STEP NAME EXPECT ARGS...: runs `spool perf ARGS --json` (stdout to NAME.json, stderr to
# NAME.log, the command to commands.txt); the run stops naming STEP when the tool exits non-zero or
# its summary is missing or reports errors, or (EXPECT > 0) its "records" field differs from EXPECT.
# The tool runs under scripts/bench-cpu.py: the brokers' and the tool's CPU time go to NAME.cpu.jsonl.
spool_perf() {
  local step="$1" name="$2" expect="$3"; shift 3
  local cpu=(python3 "$ROOT/scripts/bench-cpu.py" run --out "$OUT/$name.cpu.jsonl" --)
  echo "$(printf '%q ' "${cpu[@]}" "$SPOOL" perf "$@" --json --bootstrap "$BS")> $name.json 2> $name.log" >> "$OUT/commands.txt"
  "${cpu[@]}" "$SPOOL" perf "$@" --json --bootstrap "$BS" > "$OUT/$name.json" 2> "$OUT/$name.log"
  local rc=$?
  [ "$rc" = 0 ] || step_failed "$step" "spool perf exited $rc: $(grep -i error "$OUT/$name.log" | tail -2)"
  python3 "$ROOT/scripts/bench-summary.py" check-json "$OUT/$name.json" "$expect" \
    || step_failed "$step" "no usable result in $OUT/$name.json"
  tail -1 "$OUT/$name.json" | tee -a "$OUT/bench.log"
}

spool_matrix() {
  local rep="$1"
  if [ "$WARMUP_N" -gt 0 ]; then
    spool_topic warmup
    log "Spool rep $rep: warm-up 2 x $WARMUP_N x 512 B (not recorded)"
    for w in 1 2; do spool_perf "Spool warm-up $w" "spool-warmup-$rep-$w" 0 produce --topic warmup \
        --num-records "$WARMUP_N" --record-size 512 --throughput -1; done
  fi
  for size in 100 1024; do
    local n=$N100; [ "$size" = 1024 ] && n=$N1K
    spool_topic "bench-$size"
    log "Spool producer size=$size same producer settings N=$n"
    spool_perf "Spool producer $size B, same settings" "spool-producer-$size-same-$rep" "$n" produce \
      --topic "bench-$size" --num-records "$n" --record-size "$size" --throughput -1 --acks all "${SAME_PRODUCER_ARGS[@]}"
    log "Spool producer size=$size Spool's client defaults N=$n"
    spool_perf "Spool producer $size B, client defaults" "spool-producer-$size-defaults-$rep" "$n" produce \
      --topic "bench-$size" --num-records "$n" --record-size "$size" --throughput -1 --acks all
    [ "$PRODUCE_ONLY" = 1 ] && continue
    # Both consumers read all the producers wrote, from the beginning (page cache), as Kafka's does.
    log "Spool consumer size=$size same consumer settings messages=$((n * 2))"
    spool_perf "Spool consumer $size B, same settings" "spool-consumer-$size-same-$rep" $((n * 2)) consume \
      --topic "bench-$size" --messages $((n * 2)) --timeout-ms 60000 "${SAME_CONSUMER_ARGS[@]}"
    log "Spool consumer size=$size same settings but check.crcs=true messages=$((n * 2))"
    spool_perf "Spool consumer $size B, check.crcs=true" "spool-consumer-$size-crc-$rep" $((n * 2)) consume \
      --topic "bench-$size" --messages $((n * 2)) --timeout-ms 60000 "${CRC_CONSUMER_ARGS[@]}"
  done
  [ "$PRODUCE_ONLY" = 1 ] && return
  spool_topic e2e
  for rate in 1000 10000; do
    log "Spool e2e rate=$rate/s 1 KiB acks=all linger 0, $E2E_SECS s"
    spool_perf "Spool e2e $rate/s" "spool-e2e-$rate-$rep" 0 e2e --topic e2e --rate "$rate" \
      --duration-s "$E2E_SECS" --record-size 1024 --acks all --linger-ms 0 "${E2E_ARGS[@]}"
  done
  for f in "$DIR"/node-*/node.pid.heapmax; do
    echo "{\"rep\": $rep, \"node\": \"$(basename "$(dirname "$f")")\", \"peak_heap_mib\": $(tail -1 "$f" 2>/dev/null || echo 0)}"
  done > "$OUT/spool-heap-$rep.json"
  cat "$OUT/spool-heap-$rep.json" | tee -a "$OUT/bench.log"
}

KAFKA_RUNNING=0
kafka_stop() {
  [ "$KAFKA_RUNNING" = 1 ] || return 0
  "$KAFKA_HARNESS/stop.sh" >> "$OUT/kafka.log" 2>&1; KAFKA_RUNNING=0
}
kafka_matrix() {
  local rep="$1"
  [ -n "$KAFKA_HARNESS" ] || { log "Kafka harness not found; skipping Kafka"; return; }
  log "Kafka rep $rep ($MODE)"
  touch "$OUT/.kafka-rep-$rep.start"
  KAFKA_RUNNING=1
  if [ "$MODE" = single ]; then "$KAFKA_HARNESS/start-single.sh" >> "$OUT/kafka.log" 2>&1
  else "$KAFKA_HARNESS/start-cluster.sh" >> "$OUT/kafka.log" 2>&1; fi \
    || { kafka_stop; step_failed "Kafka start ($MODE)" "see $OUT/kafka.log"; }
  if [ ! -f "$OUT/kafka-client-settings.txt" ]; then
    # The jars are in place once a start script ran; read Kafka's client settings from them.
    ( source "$KAFKA_HARNESS/env.sh" && java -cp "$CP" "$ROOT/scripts/bench-kafka-settings.java" ) \
      > "$OUT/kafka-client-settings.txt" 2> "$OUT/kafka-client-settings.log" \
      || { kafka_stop; step_failed "Kafka client settings" "see $OUT/kafka-client-settings.log"; }
    python3 "$ROOT/scripts/bench-summary.py" check-settings "$OUT" "$KAFKA_HARNESS" \
      || { kafka_stop; step_failed "same settings check" "Kafka's runs would not use the settings in $OUT/settings.txt"; }
  fi
  # The harness runs "tuned" (= the same producer settings) first, as Spool's matrix does.
  # The harness starts every tool as "$JAVA" with its output in STEP.log; JAVA=bench-cpu-java runs
  # each under scripts/bench-cpu.py, which writes the brokers' and the tool's CPU to STEP.cpu.jsonl.
  local env=(N100="$N100" N1K="$N1K" E2E_SECS="$E2E_SECS" CONFIGS="tuned default"
    JAVA="$ROOT/scripts/bench-cpu-java" BENCH_CPU_JAVA="${JAVA:-java}" BENCH_CPU_BROKERS="${KA_HOME:-/tmp/kafka-anchor}/pids/*.pid")
  [ "$QUICK" = 1 ] && env+=(WARMUP=0 E2E_MSGS=500)
  [ "$PRODUCE_ONLY" = 1 ] && env+=(SKIP_E2E=1 CONS_N=1)
  [ "$QUICK" = 1 ] || [ "$WARMUP_N" -gt 0 ] || env+=(WARMUP=0)
  echo "$(printf '%q ' env "${env[@]}" "$KAFKA_HARNESS/bench.sh" "$MODE" 1)>> kafka.log 2>&1   # Kafka rep $rep" >> "$OUT/commands.txt"
  env "${env[@]}" "$KAFKA_HARNESS/bench.sh" "$MODE" 1 >> "$OUT/kafka.log" 2>&1
  kafka_stop
  # The harness writes its results under its own home; take the directory this rep created.
  local raw; raw="$(find "${KA_HOME:-/tmp/kafka-anchor}/results" -maxdepth 1 -type d -name "$MODE-*" -newer "$OUT/.kafka-rep-$rep.start" | sort | tail -1)"
  [ -n "$raw" ] && [ -f "$raw/summary.tsv" ] || step_failed "Kafka rep $rep" "the harness wrote no results (see $OUT/kafka.log)"
  cp -r "$raw" "$OUT/kafka-raw-$rep" && cp "$raw/summary.tsv" "$OUT/kafka-summary-$rep.tsv"
  log "Kafka results: $OUT/kafka-raw-$rep"
  python3 "$ROOT/scripts/bench-summary.py" check-kafka "$OUT" "$rep" || exit 4
}

failover() {
  log "Spool partition-leader failover: $FAILOVER_TRIALS trials (SIGKILL of the leader -> first acked write)"
  local cp; cp="$(test_classpath data-plane)"
  echo "java -Xmx256m -cp <data-plane test classpath> dev.spool.bench.PartitionFailoverBench $BS $DIR $ROOT/scripts/cluster.sh $FAILOVER_TRIALS" >> "$OUT/commands.txt"
  java -Xmx256m -cp "$cp" dev.spool.bench.PartitionFailoverBench "$BS" "$DIR" "$ROOT/scripts/cluster.sh" \
    "$FAILOVER_TRIALS" 2>>"$OUT/failover.err" | tee "$OUT/spool-failover.log"
  [ "${PIPESTATUS[0]}" = 0 ] && grep -q '^RESULT' "$OUT/spool-failover.log" \
    || step_failed "Spool partition-leader failover" "no RESULT line; see $OUT/failover.err"
}

trap 'spool_stop; kafka_stop' EXIT
log "run directory: $OUT"
for rep in $(seq 1 "$REPS"); do
  spool_start; spool_matrix "$rep"
  [ "$MODE" = cluster ] && [ "$rep" = 1 ] && [ "$PRODUCE_ONLY" != 1 ] && failover
  spool_stop "$rep"
  [ "${SKIP_KAFKA:-0}" = 1 ] || kafka_matrix "$rep"
done
python3 "$ROOT/scripts/bench-summary.py" summary "$OUT" > "$OUT/summary.md" || step_failed "summary" "bench-summary.py failed"
cat "$OUT/summary.md"
log "results: $OUT"
