#!/usr/bin/env bash
# Storage engine benchmarks (JMH) beside their raw baselines, plus the heap of 1,000 open partitions.
#
#   scripts/bench-storage.sh [REPS]        REPS full runs (default 3); the table shows medians
#
# Env: SPOOL_BENCH_DIR (where benchmark files go, default /tmp), JMH_OPTS (override JMH settings),
#      SINK (devnull|socket, default devnull) for the read benchmark.
# Settings are modest on purpose (2 shared cores): 1 fork, 2 x 2 s warm-up, 3 x 2 s measurement.
# The command, commit, machine, raw JMH output and the summary go to bench-results/storage-<timestamp>/
# (git-ignored). The run stops (exit 4) when a step fails or a benchmark gives no score.
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
COMMAND="$(command_line SPOOL_BENCH_DIR JMH_OPTS SINK -- "$0" "$@")"
cd "$ROOT"
REPS=${1:-3}
BENCH_DIR=${SPOOL_BENCH_DIR:-/tmp}
SINK=${SINK:-devnull}
JMH_OPTS=${JMH_OPTS:-"-f 1 -wi 2 -w 2s -i 3 -r 2s"}
OUT="$(new_run_dir storage "$COMMAND")"

echo "building (test-compile + class path)..."
"$ROOT/mvnw" -B -q -pl data-plane -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=test || step_failed build "see the Maven output above"
CP="data-plane/target/test-classes:data-plane/target/classes:$(cat data-plane/target/classpath.txt)"
LOGCFG="-Dlogback.configurationFile=$(quiet_logback "$OUT/logback-quiet.xml")"
JVM="-Xms512m -Xmx512m -XX:+UseParallelGC -Dspool.bench.dir=$BENCH_DIR $LOGCFG"

for rep in $(seq 1 "$REPS"); do
  echo "JMH run $rep/$REPS ..."
  # shellcheck disable=SC2086
  echo "java -cp <data-plane test classpath> org.openjdk.jmh.Main $JMH_OPTS -jvmArgs '$JVM' -p sink=$SINK -rf csv -rff $OUT/jmh-$rep.csv 'dev.spool.broker.log.bench.*Benchmark'" >> "$OUT/commands.txt"
  java -cp "$CP" org.openjdk.jmh.Main $JMH_OPTS -jvmArgs "$JVM" -p sink="$SINK" \
    -rf csv -rff "$OUT/jmh-$rep.csv" 'dev.spool.broker.log.bench.*Benchmark' > "$OUT/jmh-$rep.log" 2>&1 \
    || { tail -20 "$OUT/jmh-$rep.log"; step_failed "JMH run $rep" "JMH failed, see $OUT/jmh-$rep.log"; }
  # Every benchmark the table uses must have a score (JMH skips a benchmark whose setup threw).
  for b in spoolAppendAsLeader baselineFileChannelWrite spoolReadSlicesTransferTo baselinePlainTransferTo \
           referenceChunkedTransferTo spoolRecoveryScan baselineReadAndCrc32c; do
    grep -q "\.$b\"" "$OUT/jmh-$rep.csv" || step_failed "JMH run $rep" "no score for $b in $OUT/jmh-$rep.csv"
  done
done

echo "heap check: 1,000 partitions ..."
HEAP_DIR=$(mktemp -d "$BENCH_DIR/spool-heap-XXXXXX")
java -cp "$CP" $LOGCFG dev.spool.broker.log.bench.LogManagerHeapCheck "$HEAP_DIR" 1000 create \
  || step_failed "heap check (create)" "LogManagerHeapCheck failed"
java -cp "$CP" $LOGCFG dev.spool.broker.log.bench.LogManagerHeapCheck "$HEAP_DIR" 1000 measure \
  | tee "$OUT/heap.log" || step_failed "heap check (measure)" "LogManagerHeapCheck failed"
HEAP64=fail
if java -Xmx64m -cp "$CP" $LOGCFG dev.spool.broker.log.bench.LogManagerHeapCheck "$HEAP_DIR" 1000 measure \
  > "$OUT/heap-xmx64m.log" 2>&1 && grep -q "partitions open: 1000" "$OUT/heap-xmx64m.log"; then HEAP64=ok; fi
rm -rf "$HEAP_DIR"
HEAP_BYTES=$(sed -n 's/^HEAP_USED_BYTES=//p' "$OUT/heap.log")
[ -n "$HEAP_BYTES" ] || step_failed "heap check (measure)" "no HEAP_USED_BYTES line in $OUT/heap.log"
{ run_facts "$OUT"; echo; } | tee "$OUT/summary.txt"

# Table: the machine is shared, so load drifts between benchmarks. Each run's Spool score is
# divided by the baseline score of the SAME run; the table shows the median of those ratios and
# the median scores (operations per second, an operation moving the same bytes on both sides).
for f in "$OUT"/jmh-*.csv; do awk -F, -v run="$f" '$1 != "\"Benchmark\"" && NF >= 5 {
    gsub(/"/, "", $1); name = $1; sub(/.*\./, "", name); print run, name, $5 }' "$f"; done \
| awk -v heap="$HEAP_BYTES" -v heap64="$HEAP64" -v sink="$SINK" '
  function median(list,   n, i, j, t, a) {
    n = split(list, a, " ");
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2;
  }
  { score[$1, $2] = $3; scores[$2] = scores[$2] " " $3; runs[$1] = 1 }
  function row(label, spool, base, unitBytes, target,   r, ratios, s, b, m) {
    ratios = "";
    for (r in runs) if (((r, spool) in score) && ((r, base) in score) && score[r, base] > 0)
      ratios = ratios " " score[r, spool] / score[r, base];
    s = median(scores[spool]); b = median(scores[base]); m = median(ratios);
    printf "%-42s %14s %14s %7.2f %7s  %s\n", label, sprintf("%.0f MiB/s", s * unitBytes),
      sprintf("%.0f MiB/s", b * unitBytes), m, sprintf(">=%.2f", target), (m >= target ? "PASS" : "FAIL");
  }
  END {
    printf "%-42s %14s %14s %7s %7s  %s\n", "measure (median of runs)", "Spool", "baseline", "ratio", "target", "result";
    row("append 16 KiB batches", "spoolAppendAsLeader", "baselineFileChannelWrite", 16205 / 1048576, 0.80);
    row("read 256 MiB via 1 MiB slices (" sink ")", "spoolReadSlicesTransferTo", "baselinePlainTransferTo", 256, 0.90);
    row("  same vs 1 MiB-chunk transferTo", "spoolReadSlicesTransferTo", "referenceChunkedTransferTo", 256, 0.90);
    row("recovery scan 256 MiB", "spoolRecoveryScan", "baselineReadAndCrc32c", 256, 0.70);
    printf "%-42s %14s %14s %7s %7s  %s\n", "heap, 1,000 partitions open", sprintf("%.1f MiB", heap / 1048576), "-", "-", "<64MiB",
      (heap < 64 * 1048576 && heap64 == "ok") ? "PASS (also ran with -Xmx64m)" : "FAIL";
  }' | tee -a "$OUT/summary.txt"
