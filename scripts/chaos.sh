#!/usr/bin/env bash
# Long chaos runs against a real Spool cluster (the JUnit chaos tier runs the short scenarios).
#
#   scripts/chaos.sh --nodes 5 --duration 30m --nemesis kill,pause,partition,disk[,restart,latency] --seed S [--dir DIR]
#   scripts/chaos.sh --scenario NAME --seed S [--dir DIR]      (a fixed scenario of the chaos tier)
#   scripts/chaos.sh ... --secure      (either, with mutual TLS everywhere, ACLs and an intruder:
#                                       chaos-tests/README.md, "Security on")
#   scripts/chaos.sh --system kafka --nodes 3 --duration 180s --nemesis kill,pause,partition --seed S
#                                      (the same workload, schedule and checkers against Apache Kafka
#                                       4.x: chaos-tests/README.md, "Kafka under the same faults")
#   scripts/chaos.sh --help
#
# Kafka runs need the Kafka server jars, which are not in this repository: set KAFKA_LIB to a
# directory holding them (kafka_2.13-*.jar and its dependencies), or let the Kafka peer harness
# provide them (KAFKA_HARNESS, default ../shared/peers/kafka beside this checkout, found by
# scripts/bench-common.sh's find_kafka_harness; its env.sh fetches the jars on first use).
#
# Builds what is missing, then runs dev.spool.chaos.run.ChaosMain from chaos-tests/target. Prints
# progress as it goes (acks/s, counts, current fault), then the verdict, the figures and the report
# path (DIR/<run>/index.html). The harness log goes to DIR/chaos-harness-<time>.log. Partitions
# need root (network namespaces); without it they are skipped, loudly.
# Exit status: 0 no anomaly, 1 anomalies found, 2 usage error, 3 harness failure.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="$ROOT/chaos-tests/target"

find_jar() { ls "$TARGET"/spool-chaos-tests-*.jar 2>/dev/null | grep -v -- '-tests.jar' | head -n 1 || true; }

DIR="./chaos-runs"
ARGS=("$@")
for ((i = 0; i < ${#ARGS[@]}; i++)); do
  if [ "${ARGS[$i]}" = "--dir" ] && [ $((i + 1)) -lt ${#ARGS[@]} ]; then DIR="${ARGS[$((i + 1))]}"; fi
done

JAR="$(find_jar)"
if [ -z "$JAR" ] || [ ! -d "$TARGET/lib" ] || [ -n "${CHAOS_REBUILD:-}" ]; then
  echo "chaos: building chaos-tests and what it needs (skipping tests)…" >&2
  (cd "$ROOT" && ./mvnw -B -q -DskipTests -pl chaos-tests -am package) >&2 || { echo "chaos: build failed" >&2; exit 3; }
  JAR="$(find_jar)"
fi

SYSTEM=spool
for ((i = 0; i < ${#ARGS[@]}; i++)); do
  if [ "${ARGS[$i]}" = "--system" ] && [ $((i + 1)) -lt ${#ARGS[@]} ]; then SYSTEM="${ARGS[$((i + 1))]}"; fi
done
KAFKA_OPTS=()
if [ "$SYSTEM" = "kafka" ]; then
  if [ -z "${KAFKA_LIB:-}" ]; then
    # shellcheck source=scripts/bench-common.sh
    source "$ROOT/scripts/bench-common.sh"
    HARNESS="$(find_kafka_harness 2>/dev/null)" || {
      echo "chaos: --system kafka needs Kafka's server jars, and there is no Kafka peer harness in" >&2
      echo "       ${KAFKA_HARNESS:-$KAFKA_HARNESS_DEFAULT} (it is not part of this repository). Either" >&2
      echo "       KAFKA_LIB=/dir/of/kafka-4.x/jars scripts/chaos.sh --system kafka ...  or" >&2
      echo "       KAFKA_HARNESS=/path/to/peers/kafka scripts/chaos.sh --system kafka ...  (it fetches the jars)" >&2
      exit 3
    }
    # The harness's env.sh knows where its jars live and fetches them when missing (ensure_jars).
    KAFKA_LIB="$(cd "$HARNESS" && bash -c 'source ./env.sh && ensure_jars >&2 && echo "$KA_LIB"')" \
      || { echo "chaos: the Kafka peer harness in $HARNESS could not provide the jars" >&2; exit 3; }
  fi
  if ! ls "$KAFKA_LIB"/kafka_2.13-*.jar >/dev/null 2>&1; then
    echo "chaos: no kafka_2.13-*.jar in KAFKA_LIB=$KAFKA_LIB" >&2
    exit 3
  fi
  echo "chaos: Kafka jars from $KAFKA_LIB" >&2
  KAFKA_OPTS=("-Dspool.chaos.kafka.lib=$KAFKA_LIB")
fi

mkdir -p "$DIR" || { echo "chaos: cannot create $DIR" >&2; exit 2; }
LOG="$(cd "$DIR" && pwd)/chaos-harness-$(date +%Y%m%d-%H%M%S).log"
JAVA="${JAVA:-java}"
# The harness JVM holds the whole history in memory for the checkers: give it room on long runs.
OPTS="${CHAOS_OPTS:--Xmx2g -XX:+UseParallelGC}"
echo "chaos: harness log $LOG" >&2
# shellcheck disable=SC2086
"$JAVA" $OPTS -Djava.net.preferIPv4Stack=true -Dlogback.configurationFile=chaos-logback.xml \
  -Dchaos.log.file="$LOG" "${KAFKA_OPTS[@]}" -cp "$JAR:$TARGET/lib/*" dev.spool.chaos.run.ChaosMain "$@"
