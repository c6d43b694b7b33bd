#!/usr/bin/env bash
# Log cleaner throughput on a keyed data set, Spool beside Kafka's cleaner on the same data.
#
#   flock /tmp/spool-heavy.lock scripts/bench-compaction.sh
#
# Env: RECORDS (250000 records of ~1 KiB, about 260 MiB), KEYS (50000: most records are outdated
#      by a later one of their key), REPS (3: each figure is the median of REPS runs),
#      SKIP_KAFKA=1 (Spool alone), KAFKA_HARNESS (see bench-common.sh),
#      PRODUCE_RECORDS (300000 records of 1 KiB per produce run, 0 = skip part 2), KEY_SPACE (10000).
# Both sides get the same records (scripts/bench-compaction-kafka.java and
# dev.spool.broker.log.bench.CleanerThroughputCheck share one seeded generator, KeyedEvents) in one partition
# with 16 MiB segments and cleanup.policy=delete, then the topic is switched to compact and the
# broker's own cleaner thread (1 thread, 128 MiB dedupe buffer, the defaults of both) cleans it.
# Each cleaner logs Kafka's summary ("X MB of log processed in Y seconds (Z MB/sec)"); the table
# compares those. Spool's side runs in one JVM without a network (the storage engine alone); Kafka's
# runs in a single-node broker that is idle while it cleans.
# Part 2, produce while cleaning: a 3-node Spool cluster (RF 3, acks=all), `spool perf produce
# --key-space KEY_SPACE` of 1 KiB records into a topic with cleanup.policy=compact (8 MiB segments,
# and log.cleaner.backoff.ms=1000, so the cleaners run during the run; their bytes cleaned are read
# back with topic describe --logs)
# and, alternating, into the same topic settings with cleanup.policy=delete; the ratio of the
# medians is the cost of cleaning to producers. Results: bench-results/compaction-<ts>/.
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
COMMAND="$(command_line RECORDS KEYS REPS SKIP_KAFKA KAFKA_HARNESS PRODUCE_RECORDS KEY_SPACE -- "$0" "$@")"
cd "$ROOT"
RECORDS=${RECORDS:-250000}
KEYS=${KEYS:-50000}
REPS=${REPS:-3}
PRODUCE_RECORDS=${PRODUCE_RECORDS:-300000}
KEY_SPACE=${KEY_SPACE:-10000}
median() { sort -g | awk '{a[NR] = $1} END { if (NR == 0) print "-"; else if (NR % 2) print a[(NR + 1) / 2]; else printf "%.2f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
if [ "${SKIP_KAFKA:-0}" = 1 ]; then KAFKA_HARNESS=""; else KAFKA_HARNESS="$(find_kafka_harness)" || exit 2; fi
OUT="$(new_run_dir compaction "$COMMAND")"
echo "building (test classpath)..."
CP="$(test_classpath data-plane)"
cat > "$OUT/logback.xml" <<'XML'
<configuration>
  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{0} - %msg%n</pattern></encoder>
  </appender>
  <logger name="dev.spool.broker.log.internal.Cleaner" level="INFO"/>
  <root level="WARN"><appender-ref ref="OUT"/></root>
</configuration>
XML
MBS_OF='s/.*MB of log processed in [0-9.]* seconds (\([0-9.]*\) MB\/sec).*/\1/p'

SPOOL_ALL=""
for rep in $(seq "$REPS"); do
  echo "spool rep $rep: $RECORDS records over $KEYS keys, then one clean ..."
  DATA=$(mktemp -d "$RESULTS/spool-compaction-XXXXXX")
  echo "java -Xms1g -Xmx1g -cp <data-plane test classpath> dev.spool.broker.log.bench.CleanerThroughputCheck $DATA $RECORDS $KEYS" >> "$OUT/commands.txt"
  java -Xms1g -Xmx1g -Dlogback.configurationFile="$OUT/logback.xml" -cp "$CP" \
    dev.spool.broker.log.bench.CleanerThroughputCheck "$DATA" "$RECORDS" "$KEYS" > "$OUT/spool-$rep.log" 2>&1 \
    || { rm -rf "$DATA"; step_failed spool "see $OUT/spool-$rep.log"; }
  rm -rf "$DATA"
  cat "$OUT/spool-$rep.log"
  MBS=$(sed -n "$MBS_OF" "$OUT/spool-$rep.log" | head -1)
  [ -n "$MBS" ] || step_failed spool "no cleaner summary line in $OUT/spool-$rep.log"
  SPOOL_ALL="$SPOOL_ALL $MBS"
done
SPOOL_MBS=$(echo $SPOOL_ALL | tr ' ' '\n' | median)

KAFKA_MBS="-"
KAFKA_ALL=""
if [ -n "$KAFKA_HARNESS" ]; then
  KLOG="${KA_HOME:-/tmp/kafka-anchor}/logs/single.log"
  kafka_stop() { "$KAFKA_HARNESS/stop.sh" >> "$OUT/kafka.log" 2>&1 || true; }
  trap kafka_stop EXIT
  for rep in $(seq "$REPS"); do
    echo "kafka rep $rep: the same records, then one clean ..."
    "$KAFKA_HARNESS/start-single.sh" >> "$OUT/kafka.log" 2>&1 || step_failed "Kafka start" "see $OUT/kafka.log"
    echo "java -cp '<data-plane test classpath>' scripts/bench-compaction-kafka.java 127.0.0.1:9092 compaction $RECORDS $KEYS" >> "$OUT/commands.txt"
    java -cp "$CP" "$ROOT/scripts/bench-compaction-kafka.java" \
        127.0.0.1:9092 compaction "$RECORDS" "$KEYS" > "$OUT/kafka-producer-$rep.log" 2>&1 \
      || step_failed "Kafka producer" "see $OUT/kafka-producer-$rep.log"
    for _ in $(seq 600); do
      grep -q "MB of log processed" "$KLOG" && break
      sleep 1
    done
    grep -B2 -A10 "MB of log processed" "$KLOG" > "$OUT/kafka-cleaner-$rep.log" || true
    cp "$KLOG" "$OUT/kafka-broker-$rep.log"
    kafka_stop
    cat "$OUT/kafka-cleaner-$rep.log"
    MBS=$(sed -n "$MBS_OF" "$OUT/kafka-cleaner-$rep.log" | head -1)
    [ -n "$MBS" ] || step_failed "Kafka clean" "no cleaner summary within 10 minutes (see $OUT/kafka-broker-$rep.log)"
    KAFKA_ALL="$KAFKA_ALL $MBS"
  done
  trap - EXIT
  KAFKA_MBS=$(echo $KAFKA_ALL | tr ' ' '\n' | median)
fi

# Part 2: produce throughput on a compacted topic while its cleaners run, against the same without.
PLAIN_ALL=""
COMPACT_ALL=""
CLEANED_ALL=""
if [ "$PRODUCE_RECORDS" -gt 0 ]; then
  SPOOL="$ROOT/scripts/spool"
  DIR="$RESULTS/$(basename "$OUT")-cluster"
  rm -rf "$DIR"
  trap '"$ROOT/scripts/cluster.sh" stop --dir "$DIR" >/dev/null 2>&1; rm -rf "$DIR"' EXIT
  # Started once to write the node configs, then again with a 1 s cleaner backoff (default 15 s,
  # longer than a run): the cleaners clean as soon as a segment rolls, the worst case for producers.
  for attempt in 1 2; do
    SPOOL_NODE_OPTS="-Xms1g -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=20" \
      "$ROOT/scripts/cluster.sh" start --nodes 3 --dir "$DIR" --base-port 19092 >> "$OUT/cluster.log" 2>&1 \
      || step_failed "Spool cluster start" "see $OUT/cluster.log"
    [ "$attempt" = 2 ] && break
    "$ROOT/scripts/cluster.sh" stop --dir "$DIR" >> "$OUT/cluster.log" 2>&1
    for f in "$DIR"/node-*/node.properties; do echo "log.cleaner.backoff.ms=1000" >> "$f"; done
  done
  BS="$(cat "$DIR/bootstrap")"
  produce() { # TOPIC POLICY LOG: creates TOPIC and prints the run's records/s
    "$SPOOL" topic create "$1" --partitions 3 --replication-factor 3 --config "cleanup.policy=$2" \
      --config segment.bytes=8388608 --bootstrap "$BS" >> "$OUT/topics.log" 2>&1 || step_failed "topic $1" "see $OUT/topics.log"
    echo "$(printf '%q ' "$SPOOL" perf produce --topic "$1" --num-records "$PRODUCE_RECORDS" --record-size 1024 --throughput -1 --acks all --key-space "$KEY_SPACE" --json --bootstrap "$BS")" >> "$OUT/commands.txt"
    "$SPOOL" perf produce --topic "$1" --num-records "$PRODUCE_RECORDS" --record-size 1024 --throughput -1 --acks all \
      --key-space "$KEY_SPACE" --json --bootstrap "$BS" > "$3.json" 2> "$3.log" || step_failed "produce $1" "see $3.log"
    python3 -c 'import json, sys; print("%.1f" % json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])["recordsPerSec"])' "$3.json"
  }
  for rep in $(seq "$REPS"); do
    echo "produce rep $rep: $PRODUCE_RECORDS keyed 1 KiB records, cleanup.policy=delete ..."
    PLAIN_ALL="$PLAIN_ALL $(produce "plain-$rep" delete "$OUT/produce-plain-$rep")"
    echo "produce rep $rep: the same, cleanup.policy=compact ..."
    COMPACT_ALL="$COMPACT_ALL $(produce "table-$rep" compact "$OUT/produce-compact-$rep")"
    "$SPOOL" topic describe "table-$rep" --logs --json --bootstrap "$BS" > "$OUT/produce-compact-$rep-logs.json" 2>> "$OUT/topics.log" \
      || step_failed "describe table-$rep" "see $OUT/topics.log"
    CLEANED=$(python3 -c 'import json, sys; j = json.loads(open(sys.argv[1]).read()); print(sum(l["cleaner"]["bytesCleaned"] for l in j["logs"] if "cleaner" in l))' "$OUT/produce-compact-$rep-logs.json")
    echo "  delete: $(echo $PLAIN_ALL | awk '{print $NF}') rec/s; compact: $(echo $COMPACT_ALL | awk '{print $NF}') rec/s; bytes cleaned by the 3 replicas by the end of the run: $CLEANED"
    CLEANED_ALL="$CLEANED_ALL $CLEANED"
  done
  "$ROOT/scripts/cluster.sh" stop --dir "$DIR" >> "$OUT/cluster.log" 2>&1 || true
  mkdir -p "$OUT/spool-logs"; cp "$DIR"/node-*/node.log "$OUT/spool-logs/" 2>/dev/null || true
  rm -rf "$DIR"
  trap - EXIT
fi

{
  run_facts "$OUT"
  echo
  printf "%-52s %10s %10s %8s\n" "cleaner throughput (MB of log processed/s, median)" spool kafka ratio
  printf "%-52s %10s %10s %8s\n" "$RECORDS records, $KEYS keys, 16 MiB segments" "$SPOOL_MBS" "$KAFKA_MBS" \
    "$(awk -v s="$SPOOL_MBS" -v k="$KAFKA_MBS" 'BEGIN { if (k + 0 > 0) printf "%.2f", s / k; else print "-" }')"
  echo "  spool runs:$SPOOL_ALL; kafka runs:${KAFKA_ALL:- -}"
  if [ -n "$PLAIN_ALL" ]; then
    P=$(echo $PLAIN_ALL | tr ' ' '\n' | median)
    C=$(echo $COMPACT_ALL | tr ' ' '\n' | median)
    echo
    printf "%-52s %10s %10s %8s\n" "spool produce, 3 nodes RF 3 acks=all (records/s, median)" delete compact ratio
    printf "%-52s %10s %10s %8s\n" "$PRODUCE_RECORDS x 1 KiB, $KEY_SPACE keys, 8 MiB segments" "$P" "$C" \
      "$(awk -v c="$C" -v p="$P" 'BEGIN { if (p + 0 > 0) printf "%.2f", c / p; else print "-" }')"
    echo "  delete runs:$PLAIN_ALL; compact runs:$COMPACT_ALL; bytes cleaned during each compact run:$CLEANED_ALL"
  fi
} | tee "$OUT/summary.txt"
