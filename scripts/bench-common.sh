# Shared by the bench scripts (sourced). Builds test classpaths and keeps results out of the repo.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RESULTS="${SPOOL_BENCH_RESULTS:-/tmp/spool-bench}"
mkdir -p "$RESULTS"

# The Kafka peer harness (scripts/bench.sh runs Apache Kafka beside Spool with it) is not part of
# this repository. find_kafka_harness prints its directory: $KAFKA_HARNESS if set, else the
# default below; when it is missing it says on stderr where it looked and how to get one, and fails.
KAFKA_HARNESS_DEFAULT="$(dirname "$ROOT")/shared/peers/kafka"
find_kafka_harness() {
  local dir="${KAFKA_HARNESS:-$KAFKA_HARNESS_DEFAULT}"
  if [ -x "$dir/start-single.sh" ] && [ -x "$dir/start-cluster.sh" ] && [ -x "$dir/bench.sh" ]; then
    (cd "$dir" && pwd)
    return 0
  fi
  cat >&2 <<EOF
bench: no Kafka peer harness in $dir
  The harness runs Apache Kafka (KRaft) and its own perf tools on this machine, so Spool is measured
  beside Kafka on the same hardware: start-single.sh, start-cluster.sh, bench.sh, stop.sh (they fetch
  Kafka's jars from Maven Central into /tmp/kafka-anchor on first use). It is not in this repository.
  Point KAFKA_HARNESS at a copy:   KAFKA_HARNESS=/path/to/peers/kafka scripts/bench.sh single
  or measure Spool alone:          SKIP_KAFKA=1 scripts/bench.sh single
EOF
  return 1
}

# test_classpath MODULE: compiles MODULE's tests (and what it needs) and prints its test classpath.
test_classpath() {
  local module="$1" cpfile="$RESULTS/cp-$1.txt"
  # One reactor run: sibling modules resolve to their target/classes (nothing is installed to
  # ~/.m2); each module writes the file in turn and $module, built last, writes it last.
  (cd "$ROOT" && ./mvnw -B -q -pl "$module" -am -DskipTests test-compile dependency:build-classpath \
     -Dmdep.outputFile="$cpfile" -Dmdep.includeScope=test) >&2 \
    || { echo "build of $module failed" >&2; exit 3; }
  echo "$ROOT/$module/target/test-classes:$ROOT/$module/target/classes:$(cat "$cpfile")"
}

ensure_package() {
  if ! ls "$ROOT"/data-plane/target/spool-data-plane-*.jar >/dev/null 2>&1 || [ ! -d "$ROOT/data-plane/target/lib" ]; then
    (cd "$ROOT" && ./mvnw -B -q -DskipTests package) >&2 || { echo "build failed" >&2; exit 3; }
  fi
}

percentiles() { # reads numbers (one per line) on stdin; prints "n p50 p99 max"
  sort -n | awk '{a[NR]=$1} END {if (NR==0) {print "0 - - -"; exit}
    p50=a[int((NR-1)*0.50)+1]; p99=a[int((NR-1)*0.99)+1]; printf "%d %s %s %s\n", NR, p50, p99, a[NR]}'
}
