#!/usr/bin/env bash
# The long fuzz campaign against a listener (the test command runs a short one on each).
#
#   scripts/kafka-fuzz.sh [--listener kafka|spool] [--requests N] [--seed S] [--dir DIR] [--base-port P]
#   scripts/kafka-fuzz.sh --slow-loris N [--dir DIR] [--base-port P]
#
# Starts a 3-node cluster with scripts/cluster.sh in DIR (default ./.spool-fuzz, removed first),
# creates the topic `fuzz` (RF 3), sends N (default 1000000) seeded, structure-aware mutations of
# valid requests to node 1's Kafka listener (default; dev.spool.chaos.fuzz.KafkaRequestFuzzer) or
# Spool listener (--listener spool; SpoolRequestFuzzer), a canary connection answered throughout,
# then checks that every node still runs, that no node log reports a leaked Netty buffer or a
# request that failed with an unexpected server error (bad input must be refused as such), and that
# each node's heap after a full GC and its network pool's direct memory are back within 64 MiB of
# where they were before the run (resident memory is printed too, for the record). Stops the
# cluster it started. --slow-loris N instead opens N connections to node 1, half on each listener,
# that announce 60 MiB frames and stall (dev.spool.chaos.fuzz.SlowLoris): the request pool must hold
# about 1 KiB each, a well-behaved client be answered on both listeners, and every one be closed
# within socket.request.receive.timeout.ms (30 s) with its memory returned. Hold the machine lock:
#   flock /tmp/spool-heavy.lock scripts/kafka-fuzz.sh
# Exit status: 0 all checks passed, 1 a check failed, 3 build or start failure.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="$ROOT/chaos-tests/target"
REQUESTS=1000000; SEED=1; DIR="./.spool-fuzz"; BASE_PORT=19192; LISTENER=kafka; LORIS=0
while [ $# -gt 0 ]; do
  case "$1" in
    --listener) LISTENER="$2"; shift 2 ;;
    --slow-loris) LORIS="$2"; shift 2 ;;
    --requests) REQUESTS="$2"; shift 2 ;;
    --seed) SEED="$2"; shift 2 ;;
    --dir) DIR="$2"; shift 2 ;;
    --base-port) BASE_PORT="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "kafka-fuzz.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

case "$LISTENER" in
  kafka) FUZZER=dev.spool.chaos.fuzz.KafkaRequestFuzzer; ADDR_FILE=kafka-bootstrap ;;
  spool) FUZZER=dev.spool.chaos.fuzz.SpoolRequestFuzzer; ADDR_FILE=bootstrap ;;
  *) echo "kafka-fuzz.sh: --listener must be kafka or spool, not '$LISTENER'" >&2; exit 2 ;;
esac

find_jar() { ls "$TARGET"/spool-chaos-tests-*.jar 2>/dev/null | grep -v -- '-tests.jar' | head -n 1 || true; }
JAR="$(find_jar)"
if [ -z "$JAR" ] || [ ! -d "$TARGET/lib" ] || [ -n "${FUZZ_REBUILD:-}" ]; then
  echo "fuzz: building chaos-tests and what it needs (skipping tests)…" >&2
  (cd "$ROOT" && ./mvnw -B -q -DskipTests -pl chaos-tests -am package) >&2 || { echo "fuzz: build failed" >&2; exit 3; }
  JAR="$(find_jar)"
fi

CLUSTER="$ROOT/scripts/cluster.sh"
"$CLUSTER" stop --dir "$DIR" >/dev/null 2>&1 || true
rm -rf "$DIR"
SPOOL_METRICS=1 "$CLUSTER" start --nodes 3 --dir "$DIR" --base-port "$BASE_PORT" || { "$CLUSTER" stop --dir "$DIR"; exit 3; }
DIR="$(cd "$DIR" && pwd)"
trap '"$CLUSTER" stop --dir "$DIR" >/dev/null' EXIT
"$ROOT/scripts/spool" topic create fuzz --partitions 1 --replication-factor 3 \
  --bootstrap "$(cat "$DIR/bootstrap")" || exit 3

rss_kib() { awk '/VmRSS/ {print $2}' "/proc/$(cat "$DIR/node-$1/node.pid")/status" 2>/dev/null || echo 0; }
# Heap used after a full GC and the network pool's direct memory, in MiB, from the node's /metrics
# (jcmd GC.run first, so what is left is what is still referenced: a leak, not garbage).
settled_mib() {
  jcmd "$(cat "$DIR/node-$1/node.pid")" GC.run >/dev/null 2>&1
  curl -s "http://127.0.0.1:$((BASE_PORT + 10 * ($1 - 1) + 3))/metrics" | python3 -c '
import sys
heap = direct = 0.0
for line in sys.stdin:
    if line.startswith("jvm_memory_used_bytes{area=\"heap\""):
        heap += float(line.split()[-1])
    elif line.startswith("spool_network_pool_direct_used_bytes "):
        direct = float(line.split()[-1])
print(int(heap / 1048576), int(direct / 1048576))'
}
declare -A RSS0 HEAP0 DIRECT0
for i in 1 2 3; do
  RSS0[$i]="$(rss_kib "$i")"
  read -r HEAP0[$i] DIRECT0[$i] < <(settled_mib "$i")
done

TARGET_ADDR="$(cut -d, -f1 "$DIR/$ADDR_FILE")"
FAILED=0
if [ "$LORIS" -gt 0 ]; then
  java -Xmx512m -cp "$JAR:$TARGET/lib/*" -Dlogback.configurationFile=/dev/null \
    dev.spool.chaos.fuzz.SlowLoris "$(cut -d, -f1 "$DIR/bootstrap")" "$(cut -d, -f1 "$DIR/kafka-bootstrap")" \
    "http://127.0.0.1:$((BASE_PORT + 3))/metrics" "$LORIS" $((60 << 20)) 90 || FAILED=1
  for i in 1 2 3; do
    pid="$(cat "$DIR/node-$i/node.pid")"
    if [ -d "/proc/$pid" ]; then echo "pass: node $i still running"; else echo "FAIL: node $i died"; FAILED=1; fi
  done
  exit "$FAILED"
fi
java -Xmx512m -cp "$JAR:$TARGET/lib/*" -Dlogback.configurationFile=/dev/null \
  "$FUZZER" "$TARGET_ADDR" "$SEED" "$REQUESTS" fuzz || { echo "FAIL: fuzzer (canary unanswered or broker gone)"; FAILED=1; }

for i in 1 2 3; do
  pid="$(cat "$DIR/node-$i/node.pid")"
  if [ -d "/proc/$pid" ]; then echo "pass: node $i still running"; else echo "FAIL: node $i died"; FAILED=1; fi
  if grep -q 'LEAK:' "$DIR/node-$i/node.log"; then echo "FAIL: node $i log reports a leaked buffer"; FAILED=1; else echo "pass: node $i log reports no leak"; fi
  failed="$(grep -a -c -E ' ERROR .* request .* failed$' "$DIR/node-$i/node.log" || true)"
  if [ "$failed" -gt 0 ]; then echo "FAIL: node $i: $failed requests failed with an unexpected server error (see its log)"; FAILED=1
  else echo "pass: node $i: no request failed with an unexpected server error"; fi
  read -r heap direct < <(settled_mib "$i")
  if [ "$((heap - ${HEAP0[$i]}))" -gt 64 ]; then echo "FAIL: node $i heap after GC grew from ${HEAP0[$i]} to $heap MiB"; FAILED=1
  else echo "pass: node $i heap after GC ${HEAP0[$i]} -> $heap MiB"; fi
  if [ "$((direct - ${DIRECT0[$i]}))" -gt 64 ]; then echo "FAIL: node $i network direct memory grew from ${DIRECT0[$i]} to $direct MiB"; FAILED=1
  else echo "pass: node $i network direct memory ${DIRECT0[$i]} -> $direct MiB"; fi
  # Resident memory only for the record: the heap may grow to -Xmx and the JVM keeps what it took.
  echo "info: node $i RSS grew by $(( ($(rss_kib "$i") - ${RSS0[$i]}) / 1024 )) MiB"
done
closes="$(grep -c 'closing connection' "$DIR/node-1/node.log" || true)"
echo "node 1 logged $closes connection closes (one line each)"
exit "$FAILED"
