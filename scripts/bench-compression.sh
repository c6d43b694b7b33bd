#!/usr/bin/env bash
# Compressed produce and consume, Spool beside Apache Kafka: same machine, same sitting, same data.
#
#   scripts/bench-compression.sh [REPS] [--quick]
#
# 3 nodes, RF 3 (min ISR 2 on both), 6 partitions, acks=all. Per codec (lz4 and zstd at their
# default levels) one topic; a producer sends N records drawn from one payload file of JSON-like
# 1 KiB events (scripts/bench-payload.py, seeded; both tools split it at newlines and pick records
# with a SplittableRandom seeded 0, so both sides send the same values), then a consumer reads the N
# records back. Producer settings, the same on both sides: acks=all enable.idempotence=true
# batch.size=131072 linger.ms=5 buffer.memory=33554432 max.in.flight.requests.per.connection=5
# compression.type=<codec> (Kafka: passed on ProducerPerformance's command line where they differ
# from its defaults). Consumer: each tool's consumer with the settings of scripts/bench.sh's "same
# consumer settings" rows. The compression ratio is N x 1024 over the bytes of the topic's .log files
# on one node.
# REPS reps (default 3), Spool then Kafka in each, interleaved; the summary gives medians and every
# figure. Hold the machine lock: flock /tmp/spool-heavy.lock scripts/bench-compression.sh
# Before measuring, each side's fresh cluster takes WARMUP_N lz4 records of the same file (not
# recorded): a cold broker JVM on 2 cores is several times slower for its first few hundred MB.
# Env: N (records per producer run, default 1000000), CODECS ("lz4 zstd"), SPOOL_HEAP (512m),
#      WARMUP_N (500000; 0 = none), SKIP_KAFKA=1, KAFKA_HARNESS (see bench-common.sh).
#      --quick: N=100000, WARMUP_N=0, 1 rep, a smoke run.
set -uo pipefail
source "$(dirname "$0")/bench-common.sh"
COMMAND="$(command_line N CODECS SPOOL_HEAP WARMUP_N SKIP_KAFKA KAFKA_HARNESS -- "$0" "$@")"
QUICK=0; ARGS=()
for a in "$@"; do if [ "$a" = --quick ]; then QUICK=1; else ARGS+=("$a"); fi; done
set -- "${ARGS[@]}"
REPS="${1:-3}"
if [ "$QUICK" = 1 ]; then : "${N:=100000}"; : "${WARMUP_N:=0}"; REPS=1; fi
: "${N:=1000000}"; : "${CODECS:=lz4 zstd}"; : "${SPOOL_HEAP:=512m}"; : "${WARMUP_N:=500000}"
if [ "${SKIP_KAFKA:-0}" = 1 ]; then KAFKA_HARNESS=""; else KAFKA_HARNESS="$(find_kafka_harness)" || exit 2; fi
OUT="$(new_run_dir bench-compression "$COMMAND")"
DIR="$RESULTS/$(basename "$OUT")-cluster"; SPOOL="$ROOT/scripts/spool"
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/bench.log"; }
# Always build: a package left from an older checkout would measure old code.
(cd "$ROOT" && ./mvnw -B -q -DskipTests package) > "$OUT/build.log" 2>&1 || step_failed "build" "see $OUT/build.log"

PAYLOAD="$OUT/payload.txt"
python3 "$ROOT/scripts/bench-payload.py" --seed 20240601 --count 10000 --size 1024 > "$PAYLOAD" \
  || step_failed "payload" "bench-payload.py failed"
PRODUCER=(acks=all enable.idempotence=true batch.size=131072 linger.ms=5 buffer.memory=33554432
  max.in.flight.requests.per.connection=5)
CONSUMER=(fetch.min.bytes=1 fetch.max.wait.ms=500 fetch.max.bytes=52428800
  max.partition.fetch.bytes=1048576 max.poll.records=500 check.crcs=false)
{ echo "n=$N warmup_n=$WARMUP_N codecs=$CODECS reps=$REPS quick=$QUICK spool_heap=$SPOOL_HEAP kafka_harness=${KAFKA_HARNESS:-none}"
  echo "payload=$(md5sum < "$PAYLOAD" | cut -d' ' -f1) $(wc -l < "$PAYLOAD") lines of 1024 B (+1)"
  echo "producer=${PRODUCER[*]} compression.type=<codec>"
  echo "consumer=${CONSUMER[*]}"
} > "$OUT/settings.txt"
prefixed() { local flag="$1" kv; shift; for kv in "$@"; do printf '%s\n%s\n' "$flag" "$kv"; done; }
mapfile -t PRODUCER_ARGS < <(prefixed --producer-prop "${PRODUCER[@]}")
mapfile -t CONSUMER_ARGS < <(prefixed --consumer-prop "${CONSUMER[@]}")
RESULT="$OUT/results.tsv"
printf "system\tcodec\trep\tkind\trecords\trec_per_s\tMB_per_s\tstored_bytes\tratio\n" > "$RESULT"

log_bytes() { # DIR-GLOB: bytes of the .log files under the given partition directories
  find $1 -name '*.log' -type f -printf '%s\n' 2>/dev/null | awk '{s+=$1} END {print s+0}'
}
ratio() { python3 -c "import sys; print('%.2f' % (int(sys.argv[1]) * 1024 / max(1, int(sys.argv[2]))))" "$1" "$2"; }

spool_rep() {
  local rep="$1"
  rm -rf "$DIR"
  SPOOL_NODE_OPTS="-Xms$SPOOL_HEAP -Xmx$SPOOL_HEAP -XX:+UseG1GC -XX:MaxGCPauseMillis=20" \
    "$ROOT/scripts/cluster.sh" start --nodes 3 --dir "$DIR" --base-port 19092 >> "$OUT/cluster.log" 2>&1 \
    || step_failed "Spool cluster start" "see $OUT/cluster.log"
  local bs; bs="$(cat "$DIR/bootstrap")"
  if [ "$WARMUP_N" -gt 0 ]; then
    log "Spool rep $rep: warm-up, $WARMUP_N lz4 records (not recorded)"
    "$SPOOL" topic create cbench-warmup --partitions 6 --replication-factor 3 --bootstrap "$bs" >> "$OUT/topics.log" 2>&1
    "$SPOOL" perf produce --topic cbench-warmup --num-records "$WARMUP_N" --payload-file "$PAYLOAD" --throughput -1 \
      --acks all "${PRODUCER_ARGS[@]}" --producer-prop compression.type=lz4 --bootstrap "$bs" > "$OUT/spool-warmup-$rep.log" 2>&1 \
      || step_failed "Spool warm-up" "see $OUT/spool-warmup-$rep.log"
  fi
  for codec in $CODECS; do
    local t="cbench-$codec"
    "$SPOOL" topic create "$t" --partitions 6 --replication-factor 3 --bootstrap "$bs" >> "$OUT/topics.log" 2>&1 \
      || step_failed "Spool topic $t" "see $OUT/topics.log"
    local f="$OUT/spool-producer-$codec-$rep"
    log "Spool rep $rep: producer $codec N=$N"
    echo "$(printf '%q ' "$SPOOL" perf produce --topic "$t" --num-records "$N" --payload-file payload.txt --throughput -1 --acks all "${PRODUCER_ARGS[@]}" --producer-prop "compression.type=$codec" --json --bootstrap "$bs")" >> "$OUT/commands.txt"
    "$SPOOL" perf produce --topic "$t" --num-records "$N" --payload-file "$PAYLOAD" --throughput -1 --acks all \
      "${PRODUCER_ARGS[@]}" --producer-prop "compression.type=$codec" --json --bootstrap "$bs" > "$f.json" 2> "$f.log" \
      || step_failed "Spool producer $codec" "see $f.log"
    python3 "$ROOT/scripts/bench-summary.py" check-json "$f.json" "$N" || step_failed "Spool producer $codec" "no result in $f.json"
    local stored; stored="$(log_bytes "$DIR/node-1/data/$t-*")"
    python3 - "$f.json" "$codec" "$rep" "$stored" "$(ratio "$N" "$stored")" >> "$RESULT" <<'PY'
import json, sys
j = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
print("spool\t%s\t%s\tproducer\t%d\t%.1f\t%.2f\t%s\t%s" % (sys.argv[2], sys.argv[3], j["records"], j["recordsPerSec"], j["mbPerSec"], sys.argv[4], sys.argv[5]))
PY
    tail -1 "$RESULT" | tee -a "$OUT/bench.log"
    f="$OUT/spool-consumer-$codec-$rep"
    log "Spool rep $rep: consumer $codec messages=$N"
    echo "$(printf '%q ' "$SPOOL" perf consume --topic "$t" --messages "$N" --timeout-ms 60000 "${CONSUMER_ARGS[@]}" --json --bootstrap "$bs")" >> "$OUT/commands.txt"
    "$SPOOL" perf consume --topic "$t" --messages "$N" --timeout-ms 60000 "${CONSUMER_ARGS[@]}" --json --bootstrap "$bs" \
      > "$f.json" 2> "$f.log" || step_failed "Spool consumer $codec" "see $f.log"
    python3 "$ROOT/scripts/bench-summary.py" check-json "$f.json" "$N" || step_failed "Spool consumer $codec" "no result in $f.json"
    python3 - "$f.json" "$codec" "$rep" >> "$RESULT" <<'PY'
import json, sys
j = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
print("spool\t%s\t%s\tconsumer\t%d\t%.1f\t%.2f\t-\t-" % (sys.argv[2], sys.argv[3], j["records"], j["recordsPerSec"], j["mbPerSec"]))
PY
    tail -1 "$RESULT" | tee -a "$OUT/bench.log"
  done
  "$ROOT/scripts/cluster.sh" stop --dir "$DIR" >> "$OUT/cluster.log" 2>&1 || true
  mkdir -p "$OUT/spool-logs-$rep"; cp "$DIR"/node-*/node.log "$OUT/spool-logs-$rep/" 2>/dev/null
  rm -rf "$DIR"
}

KAFKA_RUNNING=0
kafka_stop() { [ "$KAFKA_RUNNING" = 1 ] || return 0; "$KAFKA_HARNESS/stop.sh" >> "$OUT/kafka.log" 2>&1; KAFKA_RUNNING=0; }
kafka_rep() {
  local rep="$1"
  [ -n "$KAFKA_HARNESS" ] || return 0
  KAFKA_RUNNING=1
  "$KAFKA_HARNESS/start-cluster.sh" >> "$OUT/kafka.log" 2>&1 || { kafka_stop; step_failed "Kafka start" "see $OUT/kafka.log"; }
  # The harness's settings and tools: $JAVA, $TOOL_HEAP, $CP, $KA_DATA, $HARNESS_DIR.
  source "$KAFKA_HARNESS/env.sh"
  local bs=127.0.0.1:9192,127.0.0.1:9292,127.0.0.1:9392
  tool() { "$JAVA" $TOOL_HEAP -Dlog4j2.configurationFile="$HARNESS_DIR/config/log4j2-tools.properties" -cp "$CP" "$@"; }
  if [ "$WARMUP_N" -gt 0 ]; then
    log "Kafka rep $rep: warm-up, $WARMUP_N lz4 records (not recorded)"
    tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$bs" --create --topic cbench-warmup --partitions 6 \
      --replication-factor 3 >> "$OUT/topics.log" 2>&1
    tool org.apache.kafka.tools.ProducerPerformance --topic cbench-warmup --num-records "$WARMUP_N" --payload-file "$PAYLOAD" \
      --throughput -1 --producer-props bootstrap.servers="$bs" "${PRODUCER[@]}" compression.type=lz4 > "$OUT/kafka-warmup-$rep.log" 2>&1
    grep -q '99.9th' "$OUT/kafka-warmup-$rep.log" || { kafka_stop; step_failed "Kafka warm-up" "see $OUT/kafka-warmup-$rep.log"; }
  fi
  for codec in $CODECS; do
    local t="cbench-$codec" f="$OUT/kafka-producer-$codec-$rep.log"
    tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$bs" --create --topic "$t" --partitions 6 \
      --replication-factor 3 >> "$OUT/topics.log" 2>&1 || { kafka_stop; step_failed "Kafka topic $t" "see $OUT/topics.log"; }
    log "Kafka rep $rep: producer $codec N=$N"
    local props=(bootstrap.servers="$bs" "${PRODUCER[@]}" compression.type="$codec")
    echo "java -cp <kafka 4.4 jars> org.apache.kafka.tools.ProducerPerformance --topic $t --num-records $N --payload-file payload.txt --throughput -1 --producer-props ${props[*]}" >> "$OUT/commands.txt"
    tool org.apache.kafka.tools.ProducerPerformance --topic "$t" --num-records "$N" --payload-file "$PAYLOAD" \
      --throughput -1 --producer-props "${props[@]}" > "$f" 2>&1
    local line; line="$(grep '99.9th' "$f" | tail -1)"
    [ -n "$line" ] || { kafka_stop; step_failed "Kafka producer $codec" "no result in $f"; }
    local stored; stored="$(log_bytes "$KA_DATA/node1/$t-*")"
    echo "$line" | sed -E 's/^([0-9]+) records sent, ([0-9.]+) records\/sec \(([0-9.]+) MB\/sec\).*/\1 \2 \3/' \
      | awk -v c="$codec" -v r="$rep" -v s="$stored" -v q="$(ratio "$N" "$stored")" \
          'NF==3 {printf "kafka\t%s\t%s\tproducer\t%s\t%s\t%s\t%s\t%s\n", c, r, $1, $2, $3, s, q}' >> "$RESULT"
    tail -1 "$RESULT" | tee -a "$OUT/bench.log"
    f="$OUT/kafka-consumer-$codec-$rep.log"
    log "Kafka rep $rep: consumer $codec messages=$N"
    echo "java -cp <kafka 4.4 jars> org.apache.kafka.tools.ConsumerPerformance --bootstrap-server $bs --topic $t --messages $N --group <new> --timeout 60000" >> "$OUT/commands.txt"
    tool org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$bs" --topic "$t" --messages "$N" \
      --group "cbench-$codec-$rep-$RANDOM" --timeout 60000 > "$f" 2>&1
    line="$(grep -A1 '^start.time' "$f" | tail -1)"
    [ -n "$line" ] || { kafka_stop; step_failed "Kafka consumer $codec" "no result in $f"; }
    # start, end, MB, MB/s, nMsg, nMsg/s, rebalance ms, fetch ms, fetch MB/s, fetch nMsg/s
    echo "$line" | awk -F', *' -v c="$codec" -v r="$rep" \
      'NF>=10 {printf "kafka\t%s\t%s\tconsumer\t%s\t%s\t%s\t-\t-\n", c, r, $5, $6, $4}' >> "$RESULT"
    tail -1 "$RESULT" | tee -a "$OUT/bench.log"
  done
  kafka_stop
}

trap '"$ROOT/scripts/cluster.sh" stop --dir "$DIR" >/dev/null 2>&1; rm -rf "$DIR"; kafka_stop' EXIT
log "run directory: $OUT"
for rep in $(seq 1 "$REPS"); do
  spool_rep "$rep"
  kafka_rep "$rep"
done
python3 - "$RESULT" "$QUICK" > "$OUT/summary.md" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
def med(system, codec, kind, col):
    v = [float(r[col]) for r in rows if r[0] == system and r[1] == codec and r[3] == kind and r[col] != "-"]
    return (statistics.median(v), v) if v else (None, [])
print("# Compressed produce/consume, 3 nodes RF 3, 6 partitions, acks=all, 1 KiB JSON-like events")
print("\nSee machine.txt for the load average at the start: other work on the machine lowers both sides' figures.")
if sys.argv[2] == "1":
    print("\n**--quick run: smoke test only, not for quoting.**")
print("\n| codec | | Spool | Kafka | Spool / Kafka | target |")
print("|---|---|---:|---:|---:|---|")
for codec in sorted({r[1] for r in rows}):
    for kind, target in (("producer", ">= 1.0"), ("consumer", ">= 1.2")):
        s, sv = med("spool", codec, kind, 6); k, kv = med("kafka", codec, kind, 6)
        ratio = "%.2f" % (s / k) if s and k else "-"
        print("| %s | %s MB/s (median) | %s | %s | %s | %s |" % (codec, kind,
              "%.1f" % s if s else "-", "%.1f" % k if k else "-", ratio, target))
    for system in ("spool", "kafka"):
        c, cv = med(system, codec, "producer", 8)
        if c:
            print("| %s | %s compression ratio (1 KiB x N / .log bytes) | %s | | | |" % (codec, system, "%.2f" % c))
print("\nEvery figure (MB/s of uncompressed values):\n")
print("| system | codec | rep | kind | records | rec/s | MB/s | stored bytes | ratio |")
print("|---|---|---|---|---:|---:|---:|---:|---:|")
for r in rows:
    print("| " + " | ".join(r) + " |")
PY
cat "$OUT/summary.md"
log "results: $OUT"
