#!/usr/bin/env bash
# Log cleaner throughput on a keyed data set, Spool beside Kafka's cleaner on the same data.
#
#   flock /tmp/spool-heavy.lock scripts/bench-compaction.sh
#
# Env: RECORDS (250000 records of ~1 KiB, about 260 MiB), KEYS (50000: most records are outdated
#      by a later one of their key), SKIP_KAFKA=1 (Spool alone), KAFKA_HARNESS (see bench-common.sh).
# Both sides get the same records (scripts/bench-compaction-kafka.java and
# dev.spool.broker.log.bench.CleanerThroughputCheck share one seeded generator, KeyedEvents) in one partition
# with 16 MiB segments and cleanup.policy=delete, then the topic is switched to compact and the
# broker's own cleaner thread (1 thread, 128 MiB dedupe buffer, the defaults of both) cleans it.
# Each cleaner logs Kafka's summary ("X MB of log processed in Y seconds (Z MB/sec)"); the table
# compares those. Spool's side runs in one JVM without a network (the storage engine alone); Kafka's
# runs in a single-node broker that is idle while it cleans. Results: bench-results/compaction-<ts>/.
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
COMMAND="$(command_line RECORDS KEYS SKIP_KAFKA KAFKA_HARNESS -- "$0" "$@")"
cd "$ROOT"
RECORDS=${RECORDS:-250000}
KEYS=${KEYS:-50000}
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

echo "spool: $RECORDS records over $KEYS keys, then one clean ..."
DATA=$(mktemp -d "$RESULTS/spool-compaction-XXXXXX")
echo "java -Xms1g -Xmx1g -cp <data-plane test classpath> dev.spool.broker.log.bench.CleanerThroughputCheck $DATA $RECORDS $KEYS" >> "$OUT/commands.txt"
java -Xms1g -Xmx1g -Dlogback.configurationFile="$OUT/logback.xml" -cp "$CP" \
  dev.spool.broker.log.bench.CleanerThroughputCheck "$DATA" "$RECORDS" "$KEYS" > "$OUT/spool.log" 2>&1 \
  || { rm -rf "$DATA"; step_failed spool "see $OUT/spool.log"; }
rm -rf "$DATA"
cat "$OUT/spool.log"
SPOOL_MBS=$(sed -n "$MBS_OF" "$OUT/spool.log" | head -1)
[ -n "$SPOOL_MBS" ] || step_failed spool "no cleaner summary line in $OUT/spool.log"

KAFKA_MBS="-"
if [ -n "$KAFKA_HARNESS" ]; then
  echo "kafka: the same records, then one clean ..."
  KLOG="${KA_HOME:-/tmp/kafka-anchor}/logs/single.log"
  kafka_stop() { "$KAFKA_HARNESS/stop.sh" >> "$OUT/kafka.log" 2>&1 || true; }
  trap kafka_stop EXIT
  "$KAFKA_HARNESS/start-single.sh" >> "$OUT/kafka.log" 2>&1 || step_failed "Kafka start" "see $OUT/kafka.log"
  echo "java -cp '\$KA_LIB/*:data-plane/target/test-classes' scripts/bench-compaction-kafka.java 127.0.0.1:9092 compaction $RECORDS $KEYS" >> "$OUT/commands.txt"
  ( source "$KAFKA_HARNESS/env.sh" && java -cp "$CP:$ROOT/data-plane/target/test-classes" "$ROOT/scripts/bench-compaction-kafka.java" \
      127.0.0.1:9092 compaction "$RECORDS" "$KEYS" ) > "$OUT/kafka-producer.log" 2>&1 \
    || step_failed "Kafka producer" "see $OUT/kafka-producer.log"
  for _ in $(seq 600); do
    grep -q "MB of log processed" "$KLOG" && break
    sleep 1
  done
  grep -B2 -A10 "MB of log processed" "$KLOG" > "$OUT/kafka-cleaner.log" || true
  cp "$KLOG" "$OUT/kafka-broker.log"
  kafka_stop
  trap - EXIT
  cat "$OUT/kafka-cleaner.log"
  KAFKA_MBS=$(sed -n "$MBS_OF" "$OUT/kafka-cleaner.log" | head -1)
  [ -n "$KAFKA_MBS" ] || step_failed "Kafka clean" "no cleaner summary within 10 minutes (see $OUT/kafka-broker.log)"
fi

{
  run_facts "$OUT"
  echo
  printf "%-44s %10s %10s %8s\n" "cleaner throughput (MB of log processed/s)" spool kafka ratio
  printf "%-44s %10s %10s %8s\n" "$RECORDS records, $KEYS keys, 16 MiB segments" "$SPOOL_MBS" "$KAFKA_MBS" \
    "$(awk -v s="$SPOOL_MBS" -v k="$KAFKA_MBS" 'BEGIN { if (k + 0 > 0) printf "%.2f", s / k; else print "-" }')"
} | tee "$OUT/summary.txt"
