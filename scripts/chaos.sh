#!/usr/bin/env bash
# Long chaos runs against a real Spool cluster (the JUnit chaos tier runs the short scenarios).
#
#   scripts/chaos.sh --nodes 5 --duration 30m --nemesis kill,pause,partition,disk[,restart,latency] --seed S [--dir DIR]
#   scripts/chaos.sh --scenario NAME --seed S [--dir DIR]      (a fixed scenario of the chaos tier)
#   scripts/chaos.sh ... --secure      (either, with mutual TLS everywhere, ACLs and an intruder:
#                                       chaos-tests/README.md, "Security on")
#   scripts/chaos.sh --help
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

mkdir -p "$DIR" || { echo "chaos: cannot create $DIR" >&2; exit 2; }
LOG="$(cd "$DIR" && pwd)/chaos-harness-$(date +%Y%m%d-%H%M%S).log"
JAVA="${JAVA:-java}"
# The harness JVM holds the whole history in memory for the checkers: give it room on long runs.
OPTS="${CHAOS_OPTS:--Xmx2g -XX:+UseParallelGC}"
echo "chaos: harness log $LOG" >&2
# shellcheck disable=SC2086
"$JAVA" $OPTS -Djava.net.preferIPv4Stack=true -Dlogback.configurationFile=chaos-logback.xml \
  -Dchaos.log.file="$LOG" -cp "$JAR:$TARGET/lib/*" dev.spool.chaos.run.ChaosMain "$@"
