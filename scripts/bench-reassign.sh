#!/usr/bin/env bash
# Replica reassignment, Spool beside Apache Kafka 4.x on the same machine, same sitting.
#
#   flock /tmp/spool-heavy.lock scripts/bench-reassign.sh [--quick] [move|drain]...
#
# move   (Spool) 4 combined nodes. A topic of MOVE_PARTITIONS (8) partitions, RF 1, is placed on
#        broker 1 while empty (a reassignment), then SIZE (4GiB) of RECORD_SIZE (1024) B records is
#        loaded into it. A steady acks=all load of RATE (1000) records/s of RECORD_SIZE B runs on a
#        second topic (3 partitions, RF 3, linger 0; dev.spool.bench.SteadyProduceBench, latency of
#        every record from its scheduled send time) for WARMUP_S (30) s not counted (a cold JVM and
#        cold broker paths: p99 falls from ~450 ms to ~15 ms over the first 30 s here) and BEFORE_S
#        (60; with 30 s the window's p99 varied 6.7-52 ms between runs here) s that are the 'before'
#        window, then the topic is moved to
#        broker 4: `spool reassign plan --brokers 4` + `execute --throttle THROTTLE` (50MB/s,
#        1024-based). Every second (curl) the brokers' spool_replication_throttled_bytes_total and
#        broker 1's spool_partitions are read from their /metrics; the move is complete at the first
#        sample where broker 1 dropped the moved replicas, then confirmed by one `reassign status`.
#        Reports: the move rate over the move without its first and last TRIM_S (5) s against the
#        throttle (target ±10 %), the move's time, and the load's produce p99 before the move against
#        during it (target ratio <= 2).
# drain  (Spool, then Kafka with the harness) 3 combined nodes each. A topic of DRAIN_PARTITIONS
#        (100) partitions, RF 2, every partition on broker 1 and one of brokers 2, 3 (placed while
#        empty: a Spool reassignment; Kafka's --replica-assignment), loaded with DRAIN_SIZE (= SIZE)
#        of RECORD_SIZE B records, acks=all, by each side's perf tool. Then broker 1 is drained: the
#        plan is Spool's `reassign plan --brokers 2,3` (each partition's broker-1 replica goes to the
#        other of 2, 3), and the SAME plan file is executed on both sides: `spool reassign execute` +
#        `status` every POLL_S s; Kafka's kafka-reassign-partitions `--execute` + `--verify` every
#        POLL_S s (`--generate` is run too and its proposal kept, not executed: it reshuffles replicas
#        between 2 and 3 as well, which would not be the same data). Rows: unthrottled, and with
#        DRAIN_THROTTLE (default THROTTLE; empty: skip) on both sides. Time = execute started ->
#        first poll that sees every partition complete (the polls are JVM starts, ~1-2 s, on both).
#
# --quick: SIZE=256MiB, DRAIN_PARTITIONS=20, WARMUP_S=5, BEFORE_S=10, TRIM_S=1 (a smoke run; the figures mean little).
# Sizes: bytes, or with KiB/MiB/GiB. THROTTLE: a Spool rate (N, NB/s, NKB/s, NMB/s, NGB/s; 1024-based);
# Kafka gets the same number of bytes/s. Env: SKIP_KAFKA=1, KAFKA_HARNESS (see bench-common.sh).
# Everything a run keeps (command, commit, machine, raw samples, logs, summary.md) is in
# bench-results/reassign-<ts>/; the summary is also printed. Cluster data goes to $RESULTS (scratch).
set -uo pipefail
source "$(dirname "$0")/bench-common.sh"
COMMAND="$(command_line SIZE THROTTLE RATE RECORD_SIZE MOVE_PARTITIONS WARMUP_S BEFORE_S TRIM_S POLL_S DRAIN_SIZE \
  DRAIN_PARTITIONS DRAIN_THROTTLE SKIP_KAFKA KAFKA_HARNESS -- "$0" "$@")"
PARTS=()
for a in "$@"; do
  case "$a" in
    --quick) : "${SIZE:=256MiB}" "${DRAIN_PARTITIONS:=20}" "${WARMUP_S:=5}" "${BEFORE_S:=10}" "${TRIM_S:=1}" ;;
    move|drain) PARTS+=("$a") ;;
    *) echo "bench-reassign: unknown argument '$a' (--quick, move, drain)" >&2; exit 2 ;;
  esac
done
[ "${#PARTS[@]}" = 0 ] && PARTS=(move drain)
: "${SIZE:=4GiB}" "${THROTTLE:=50MB/s}" "${RATE:=1000}" "${RECORD_SIZE:=1024}" "${MOVE_PARTITIONS:=8}"
: "${WARMUP_S:=30}" "${BEFORE_S:=60}" "${TRIM_S:=5}" "${POLL_S:=2}" "${DRAIN_PARTITIONS:=100}"
: "${DRAIN_SIZE:=$SIZE}"
DRAIN_THROTTLE="${DRAIN_THROTTLE-$THROTTLE}"

# bytes SIZE: 123, 4GiB, 256MiB, 10KiB -> bytes (1024-based).
bytes() {
  local v="$1" n u
  n="${v%%[!0-9]*}"; u="${v#"$n"}"
  [ -n "$n" ] || { echo "bench-reassign: not a size: '$v'" >&2; exit 2; }
  case "$u" in
    ""|B) echo "$n" ;; KiB|K) echo $((n * 1024)) ;; MiB|M) echo $((n * 1048576)) ;;
    GiB|G) echo $((n * 1073741824)) ;; *) echo "bench-reassign: unknown unit in '$v'" >&2; exit 2 ;;
  esac
}
# rate_bytes RATE: a Spool --throttle value -> bytes/s (as Spool parses it: 1024-based).
rate_bytes() {
  local v="$1" n u
  n="${v%%[!0-9]*}"; u="${v#"$n"}"
  [ -n "$n" ] || { echo "bench-reassign: not a rate: '$v'" >&2; exit 2; }
  case "$u" in
    ""|B/s) echo "$n" ;; KB/s) echo $((n * 1024)) ;; MB/s) echo $((n * 1048576)) ;;
    GB/s) echo $((n * 1073741824)) ;; *) echo "bench-reassign: unknown rate unit in '$v'" >&2; exit 2 ;;
  esac
}
SIZE_B="$(bytes "$SIZE")" || exit 2; DRAIN_SIZE_B="$(bytes "$DRAIN_SIZE")" || exit 2
THROTTLE_B="$(rate_bytes "$THROTTLE")" || exit 2
DRAIN_THROTTLES=(""); [ -n "$DRAIN_THROTTLE" ] && { rate_bytes "$DRAIN_THROTTLE" > /dev/null || exit 2; DRAIN_THROTTLES+=("$DRAIN_THROTTLE"); }
MOVE_RECORDS=$((SIZE_B / RECORD_SIZE)); DRAIN_RECORDS=$((DRAIN_SIZE_B / RECORD_SIZE))

KAFKA_HARNESS_DIR=""
if [[ " ${PARTS[*]} " == *" drain "* ]] && [ "${SKIP_KAFKA:-0}" != 1 ]; then
  KAFKA_HARNESS_DIR="$(find_kafka_harness)" || exit 2
fi
OUT="$(new_run_dir reassign "$COMMAND")"
DIR="$RESULTS/$(basename "$OUT")-cluster"   # Spool's cluster data: scratch, not kept
# Ports below the kernel's ephemeral range (a client's outgoing connection can hold a port there);
# the first base from 21092 up whose 4 nodes x 4 ports nobody listens on.
free_base_port() {
  local b p used
  used="$(ss -Htln 2>/dev/null | awk '{n = split($4, a, ":"); print a[n]}')"
  for ((b = 21092; b < 32000; b += 100)); do
    for ((p = b; p < b + 40; p++)); do grep -qx "$p" <<< "$used" && continue 2; done
    echo "$b"; return 0
  done
  return 1
}
BASE_PORT="$(free_base_port)" || { echo "bench-reassign: no free ports below 32000" >&2; exit 2; }
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/bench.log"; }
now_ms() { date +%s%3N; }
ensure_package
CP="$(test_classpath data-plane)"
quiet_logback "$OUT/logback.xml" > /dev/null
SPOOL="$ROOT/scripts/spool"
KAFKA_BS=127.0.0.1:9192,127.0.0.1:9292,127.0.0.1:9392
KA_LIB="${KA_HOME:-/tmp/kafka-anchor}/lib-4.4.0"

SPOOL_UP=0; KAFKA_UP=0; DRIVER_PID=""; SAMPLER_PID=""
spool_start() { # NODES
  rm -rf "$DIR"; SPOOL_UP=1   # before the start: a start that fails half way is stopped too
  SPOOL_NODE_OPTS="-Xms1g -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=20" \
    "$ROOT/scripts/cluster.sh" start --nodes "$1" --dir "$DIR" --base-port "$BASE_PORT" >> "$OUT/cluster.log" 2>&1 \
    || step_failed "Spool cluster start" "see $OUT/cluster.log"
  SPOOL_BS="$(cat "$DIR/bootstrap")"; SPOOL_NODES="$1"
}
spool_stop() { # LABEL
  [ "$SPOOL_UP" = 1 ] || return 0
  "$ROOT/scripts/cluster.sh" stop --dir "$DIR" >> "$OUT/cluster.log" 2>&1 || true
  local n; for n in "$DIR"/node-*; do
    [ -f "$n/node.log" ] && mkdir -p "$OUT/spool-logs-$1" && cp "$n/node.log" "$OUT/spool-logs-$1/$(basename "$n").log"
  done
  rm -rf "$DIR"; SPOOL_UP=0
}
kafka_start() {
  KAFKA_UP=1
  "$KAFKA_HARNESS_DIR/start-cluster.sh" >> "$OUT/kafka.log" 2>&1 || step_failed "Kafka cluster start" "see $OUT/kafka.log"
}
kafka_stop() {
  [ "$KAFKA_UP" = 1 ] || return 0
  "$KAFKA_HARNESS_DIR/stop.sh" >> "$OUT/kafka.log" 2>&1 || true
  mkdir -p "$OUT/kafka-logs-$1"; cp "${KA_HOME:-/tmp/kafka-anchor}"/logs/node*.log "$OUT/kafka-logs-$1/" 2>/dev/null || true
  rm -rf "${KA_HOME:-/tmp/kafka-anchor}"/data/node{1,2,3}
  KAFKA_UP=0
}
stop_own() { # the driver and the sampler, by the PIDs recorded when they started
  [ -n "$SAMPLER_PID" ] && kill "$SAMPLER_PID" 2>/dev/null; SAMPLER_PID=""
  [ -n "$DRIVER_PID" ] && kill "$DRIVER_PID" 2>/dev/null; DRIVER_PID=""
}
trap 'stop_own; spool_stop last; kafka_stop last' EXIT

spool() { "$SPOOL" "$@" -b "$SPOOL_BS"; }
ktool() { # CLASS ARGS...: a Kafka tool from the harness's jars
  local cls="$1"; shift
  java -Xmx512m -Dlog4j2.configurationFile="$KAFKA_HARNESS_DIR/config/log4j2-tools.properties" -cp "$KA_LIB/*" "$cls" "$@"
}

# spool_place TOPIC PARTITIONS REPLICAS_FN: executes a plan placing each partition i on
# $(REPLICAS_FN i) (a JSON list) while the topic is empty, and waits until it is complete.
plan_json() { # TOPIC PARTITIONS REPLICAS_FN
  local t="$1" n="$2" fn="$3" i sep=""
  printf '{"version":1,"partitions":['
  for ((i = 0; i < n; i++)); do printf '%s{"topic":"%s","partition":%d,"replicas":%s}' "$sep" "$t" "$i" "$($fn "$i")"; sep=","; done
  printf ']}\n'
}
# spool_wait_complete PLAN LABEL: polls `reassign status PLAN --json` every POLL_S s until every
# partition is complete; prints the epoch ms of the poll that saw it.
spool_wait_complete() {
  local plan="$1" label="$2" i=0 st
  while :; do
    i=$((i + 1))
    spool reassign status "$plan" --json > "$OUT/$label-status.json" 2>> "$OUT/$label-status.err"
    st="$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); s=[p["state"] for p in d["partitions"]]
print("done" if s and all(x=="complete" for x in s) else "%d/%d" % (sum(x=="complete" for x in s), len(s)))' \
      "$OUT/$label-status.json" 2>/dev/null)"
    [ "$st" = done ] && { now_ms; return 0; }
    [ $((i % 10)) = 0 ] && echo "[$(date +%T)] $label: $st complete" >> "$OUT/bench.log"
    [ "$i" -gt 3000 ] && step_failed "$label" "not complete after $i polls; see $OUT/$label-status.json"
    sleep "$POLL_S"   # the poll interval (a benchmark against live processes, not a test)
  done
}
spool_place() { # TOPIC PARTITIONS REPLICAS_FN
  plan_json "$1" "$2" "$3" > "$OUT/place-$1.json"
  spool reassign execute "$OUT/place-$1.json" >> "$OUT/place-$1.log" 2>&1 || step_failed "place $1" "see $OUT/place-$1.log"
  spool_wait_complete "$OUT/place-$1.json" "place-$1" > /dev/null
}
on_broker_1() { echo "[1]"; }
drain_replicas() { echo "[1,$((2 + $1 % 2))]"; }

SUMMARY="$OUT/summary.md"
{ echo "# bench-reassign $(date -u '+%Y-%m-%d %H:%M UTC')"; echo; run_facts "$OUT" | sed 's/^/    /'; echo; } > "$SUMMARY"

part_move() {
  log "move: 4 Spool nodes; $MOVE_PARTITIONS partitions RF 1 on broker 1, $SIZE; load $RATE/s x $RECORD_SIZE B; throttle $THROTTLE"
  spool_start 4
  spool topic create move --partitions "$MOVE_PARTITIONS" --replication-factor 1 >> "$OUT/move.log" 2>&1 \
    || step_failed "create move" "see $OUT/move.log"
  spool_place move "$MOVE_PARTITIONS" on_broker_1
  spool topic create load --partitions 3 --replication-factor 3 >> "$OUT/move.log" 2>&1 \
    || step_failed "create load" "see $OUT/move.log"
  log "move: loading $MOVE_RECORDS records"
  local t0; t0="$(now_ms)"
  spool perf produce --topic move --num-records "$MOVE_RECORDS" --record-size "$RECORD_SIZE" --throughput -1 \
    --acks 1 --producer-prop batch.size=131072 --producer-prop linger.ms=5 > "$OUT/move-load.log" 2>&1 \
    || step_failed "load move" "see $OUT/move-load.log"
  log "move: loaded in $(( ($(now_ms) - t0) / 1000 )) s: $(tail -1 "$OUT/move-load.log")"
  # The load leaves SIZE of dirty pages; writing them back would land in the 'before' window.
  t0="$(now_ms)"; sync; log "move: sync (the load's dirty pages written back) took $(( ($(now_ms) - t0) / 1000 )) s"

  rm -f "$OUT/steady.stop"
  java -Xmx512m -Dlogback.configurationFile="$OUT/logback.xml" -cp "$CP" dev.spool.bench.SteadyProduceBench \
    "$SPOOL_BS" load "$RATE" "$RECORD_SIZE" "$OUT/steady-latency.txt" "$OUT/steady.stop" \
    > "$OUT/steady.log" 2> "$OUT/steady.err" &
  DRIVER_PID=$!
  # Sampler: every second, the sum over the brokers of spool_replication_throttled_bytes_total, and
  # broker 1's spool_partitions (the replicas it hosts: it drops by MOVE_PARTITIONS when the move
  # completes and broker 1's replicas are removed). curl, not a JVM: the 2 cores stay with the load.
  (
    while :; do
      local s=0 i v p1=""
      for ((i = 1; i <= SPOOL_NODES; i++)); do
        v="$(curl -s --max-time 1 "http://127.0.0.1:$((BASE_PORT + 10 * (i - 1) + 3))/metrics" \
          | awk '$1 ~ /^spool_replication_throttled_bytes_total/ {s += $2}
                 $1 ~ /^spool_partitions($|[{])/ {p += $2} END {printf "%.0f %.0f", s, p}')"
        s=$((s + ${v%% *})); [ "$i" = 1 ] && p1="${v##* }"
      done
      echo "$(date +%s%3N) $s ${p1:--1}"
      sleep 1   # the sampling interval
    done
  ) > "$OUT/move-samples.txt" 2>/dev/null &
  SAMPLER_PID=$!
  local warm_end=$(( $(now_ms) + WARMUP_S * 1000 ))
  log "move: steady load for $WARMUP_S s of warm-up (not counted), then $BEFORE_S s before the move"
  sleep $((WARMUP_S + BEFORE_S))   # the warm-up and the 'before' window of the produce load
  spool reassign plan --brokers 4 --topics move --output "$OUT/move-plan.json" > "$OUT/move-plan.log" 2>&1 \
    || step_failed "plan move" "see $OUT/move-plan.log"
  local p_before p_after t_exec t_done
  p_before="$(tail -1 "$OUT/move-samples.txt" | cut -d' ' -f3)"; p_after=$((p_before - MOVE_PARTITIONS))
  [ "$p_before" -ge "$MOVE_PARTITIONS" ] || step_failed "move" "broker 1's spool_partitions is '$p_before'; see $OUT/move-samples.txt"
  t_exec="$(now_ms)"
  spool reassign execute "$OUT/move-plan.json" --throttle "$THROTTLE" > "$OUT/move-execute.log" 2>&1 \
    || step_failed "execute move" "see $OUT/move-execute.log"
  log "move: executing (throttle $THROTTLE)"
  # Complete = the first sample where broker 1 hosts MOVE_PARTITIONS replicas fewer (the controller
  # finished the move and broker 1 dropped its replicas); one `reassign status` then confirms it.
  t_done=""
  while [ -z "$t_done" ]; do
    t_done="$(awk -v t="$t_exec" -v p="$p_after" '$1 >= t && $3 >= 0 && $3 <= p {print $1; exit}' "$OUT/move-samples.txt")"
    [ -n "$t_done" ] || sleep 1   # the sampling interval
    [ $(( $(now_ms) - t_exec )) -gt 7200000 ] && step_failed "move" "not complete after 2 h"
  done
  [ -n "$(spool_wait_complete "$OUT/move-plan.json" move)" ] || step_failed "move" "reassign status did not confirm"
  log "move: complete after $(( (t_done - t_exec) / 1000 )) s"
  touch "$OUT/steady.stop"
  wait "$DRIVER_PID"; DRIVER_PID=""
  kill "$SAMPLER_PID" 2>/dev/null; wait "$SAMPLER_PID" 2>/dev/null; SAMPLER_PID=""
  grep -q '^RESULT' "$OUT/steady.log" || step_failed "steady load" "no RESULT; see $OUT/steady.err"
  du -sb "$DIR"/node-4/data >> "$OUT/move.log" 2>&1
  spool_stop move
  python3 - "$OUT" "$warm_end" "$t_exec" "$t_done" "$THROTTLE_B" "$TRIM_S" "$THROTTLE" "$SIZE" \
    "$(cat "$OUT/steady.log" | sed -n 's/^RESULT //p')" >> "$SUMMARY" <<'PY'
import sys
out, warm_end, t_exec, t_done, thr, trim, thr_s, size, steady = sys.argv[1:10]
warm_end, t_exec, t_done, thr, trim = int(warm_end), int(t_exec), int(t_done), int(thr), int(trim)
samples = [tuple(map(int, l.split()[:2])) for l in open(out + "/move-samples.txt") if len(l.split()) == 3]
moved = samples[-1][1] if samples else 0
# the move's samples: from the first that grew to the last before the counter stopped growing
grew = [i for i in range(1, len(samples)) if samples[i][1] > samples[i - 1][1]]
rate = dev = None
if grew:
    first_t = samples[grew[0] - 1][0]; last_t = samples[grew[-1]][0]
    win = [s for s in samples if first_t + trim * 1000 <= s[0] <= last_t - trim * 1000]
    if len(win) >= 2 and win[-1][0] > win[0][0]:
        rate = (win[-1][1] - win[0][1]) / ((win[-1][0] - win[0][0]) / 1000)
        dev = (rate / thr - 1) * 100
# per-second rates, for the record
with open(out + "/move-rate-per-s.txt", "w") as f:
    for a, b in zip(samples, samples[1:]):
        f.write("%d %.0f\n" % (b[0], (b[1] - a[1]) / max(1e-3, (b[0] - a[0]) / 1000)))
lat = [tuple(map(int, l.split())) for l in open(out + "/steady-latency.txt") if len(l.split()) == 2]
def pct(xs, p):
    if not xs: return float("nan")
    xs = sorted(xs); k = max(0, -(-len(xs) * p // 100) - 1); return xs[int(k)] / 1000.0
before = [us for t, us in lat if warm_end <= t < t_exec]
during = [us for t, us in lat if t_exec <= t < t_done]
pb, pd = pct(before, 99), pct(during, 99)
mib = lambda b: b / 1048576
print("## move: %s from broker 1 to broker 4 under a steady acks=all load (Spool, 4 nodes)\n" % size)
print("| measure | figure | target |")
print("|---|---:|---|")
print("| bytes moved (spool_replication_throttled_bytes_total, all brokers) | %.1f MiB | |" % mib(moved))
print("| move time (execute -> broker 1 dropped the replicas) | %.1f s | |" % ((t_done - t_exec) / 1000))
print("| average rate over the whole move | %.1f MiB/s | |" % (mib(moved) / max(1e-3, (t_done - t_exec) / 1000)))
if rate is not None:
    ok = "met" if abs(dev) <= 10 else "MISSED"
    print("| steady move rate (first/last %d s trimmed) vs throttle %s | %.1f MiB/s (%+.1f %%) | ±10 %%: %s |" % (trim, thr_s, mib(rate), dev, ok))
else:
    print("| steady move rate | (move too short to trim %d s each end) | |" % trim)
ratio = pd / pb if pb else float("nan")
print("| produce p99 before the move (%d records) | %.2f ms | |" % (len(before), pb))
print("| produce p99 during the move (%d records) | %.2f ms | |" % (len(during), pd))
print("| p50 before / during | %.2f / %.2f ms | |" % (pct(before, 50), pct(during, 50)))
print("| p99 during / before | %.2fx | <= 2x: %s |" % (ratio, "met" if ratio <= 2 else "MISSED"))
print("| steady load driver | %s | |" % steady)
print()
PY
  log "move: done"
}

# part_drain_spool: for each throttle row, a fresh 3-node cluster, the layout, the load, the timed drain.
part_drain_spool() {
  log "drain/spool: 3 Spool nodes; $DRAIN_PARTITIONS partitions RF 2 on broker 1 + one of 2,3; $DRAIN_SIZE"
  local thr label
  for thr in "${DRAIN_THROTTLES[@]}"; do
    label="unthrottled"; [ -n "$thr" ] && label="throttle $thr"
    spool_start 3
    spool topic create drain --partitions "$DRAIN_PARTITIONS" --replication-factor 2 >> "$OUT/drain-spool.log" 2>&1 \
      || step_failed "create drain" "see $OUT/drain-spool.log"
    spool_place drain "$DRAIN_PARTITIONS" drain_replicas
    log "drain/spool ($label): loading $DRAIN_RECORDS records"
    spool perf produce --topic drain --num-records "$DRAIN_RECORDS" --record-size "$RECORD_SIZE" --throughput -1 \
      --acks all --producer-prop batch.size=131072 --producer-prop linger.ms=5 > "$OUT/drain-spool-load-${thr:+t}.log" 2>&1 \
      || step_failed "load drain (spool)" "see $OUT/drain-spool-load-${thr:+t}.log"
    sync   # both sides: the load's dirty pages written back before the timed drain
    [ -f "$OUT/drain-plan.json" ] || spool reassign plan --brokers 2,3 --topics drain --output "$OUT/drain-plan.json" \
      > "$OUT/drain-plan.log" 2>&1 || step_failed "plan drain" "see $OUT/drain-plan.log"
    local t0 t1; t0="$(now_ms)"
    spool reassign execute "$OUT/drain-plan.json" ${thr:+--throttle "$thr"} > "$OUT/drain-spool-execute.log" 2>&1 \
      || step_failed "execute drain (spool)" "see $OUT/drain-spool-execute.log"
    t1="$(spool_wait_complete "$OUT/drain-plan.json" "drain-spool${thr:+-t}")"
    log "drain/spool ($label): $(( (t1 - t0) / 1000 )) s"
    echo "spool|$label|$(( t1 - t0 ))" >> "$OUT/drain-times.txt"
    spool_stop "drain${thr:+-t}"
  done
}
# kafka_wait_complete LABEL: --verify every POLL_S s until no partition is still in progress.
kafka_wait_complete() {
  local i=0
  while :; do
    i=$((i + 1))
    ktool org.apache.kafka.tools.reassign.ReassignPartitionsCommand --bootstrap-server "$KAFKA_BS" --verify \
      --reassignment-json-file "$OUT/drain-plan.json" > "$OUT/$1-verify.log" 2>&1
    if grep -q 'is completed' "$OUT/$1-verify.log" && ! grep -qi 'in progress\|failed\|error' "$OUT/$1-verify.log"; then
      now_ms; return 0
    fi
    [ "$i" -gt 3000 ] && step_failed "$1" "not complete after $i polls; see $OUT/$1-verify.log"
    sleep "$POLL_S"   # the poll interval
  done
}
part_drain_kafka() {
  local thr label assign="" i
  for ((i = 0; i < DRAIN_PARTITIONS; i++)); do assign="${assign:+$assign,}1:$((2 + i % 2))"; done
  for thr in "${DRAIN_THROTTLES[@]}"; do
    label="unthrottled"; [ -n "$thr" ] && label="throttle $thr"
    log "drain/kafka ($label): 3 Kafka nodes, same topic layout, $DRAIN_RECORDS records"
    kafka_start
    ktool org.apache.kafka.tools.TopicCommand --bootstrap-server "$KAFKA_BS" --create --topic drain \
      --replica-assignment "$assign" >> "$OUT/drain-kafka.log" 2>&1 || step_failed "create drain (kafka)" "see $OUT/drain-kafka.log"
    ktool org.apache.kafka.tools.ProducerPerformance --topic drain --num-records "$DRAIN_RECORDS" --record-size "$RECORD_SIZE" \
      --throughput -1 --producer-props bootstrap.servers="$KAFKA_BS" acks=all batch.size=131072 linger.ms=5 \
      > "$OUT/drain-kafka-load-${thr:+t}.log" 2>&1 || step_failed "load drain (kafka)" "see $OUT/drain-kafka-load-${thr:+t}.log"
    sync   # both sides: the load's dirty pages written back before the timed drain
    echo '{"version":1,"topics":[{"topic":"drain"}]}' > "$OUT/drain-topics.json"
    ktool org.apache.kafka.tools.reassign.ReassignPartitionsCommand --bootstrap-server "$KAFKA_BS" --generate \
      --topics-to-move-json-file "$OUT/drain-topics.json" --broker-list 2,3 > "$OUT/drain-kafka-generate.log" 2>&1 || true
    local t0 t1; t0="$(now_ms)"
    ktool org.apache.kafka.tools.reassign.ReassignPartitionsCommand --bootstrap-server "$KAFKA_BS" --execute \
      --reassignment-json-file "$OUT/drain-plan.json" ${thr:+--throttle "$(rate_bytes "$thr")"} \
      > "$OUT/drain-kafka-execute${thr:+-t}.log" 2>&1 || step_failed "execute drain (kafka)" "see $OUT/drain-kafka-execute${thr:+-t}.log"
    t1="$(kafka_wait_complete "drain-kafka${thr:+-t}")"
    log "drain/kafka ($label): $(( (t1 - t0) / 1000 )) s"
    echo "kafka|$label|$(( t1 - t0 ))" >> "$OUT/drain-times.txt"
    kafka_stop "drain${thr:+-t}"
  done
}
part_drain() {
  part_drain_spool
  if [ -n "$KAFKA_HARNESS_DIR" ]; then part_drain_kafka; fi
  {
    echo "## drain: every replica off broker 1, $DRAIN_PARTITIONS partitions RF 2, $DRAIN_SIZE (3 nodes each, same plan file)"
    echo
    echo "| throttle | Spool | Kafka $( [ -n "$KAFKA_HARNESS_DIR" ] && echo 4.4.0 || echo '(skipped)') | Spool/Kafka |"
    echo "|---|---:|---:|---:|"
    awk -F'|' '{t[$2] = t[$2]; v[$1 "|" $2] = $3 / 1000; if (!($2 in seen)) {seen[$2] = 1; order[++n] = $2}}
      END {for (i = 1; i <= n; i++) {l = order[i]; s = v["spool|" l]; k = v["kafka|" l]
        printf "| %s | %s | %s | %s |\n", l, (s ? sprintf("%.1f s", s) : "-"), (k ? sprintf("%.1f s", k) : "-"),
          (s && k ? sprintf("%.2fx", s / k) : "-")}}' "$OUT/drain-times.txt"
    echo
    echo "Time = execute started -> first status/--verify poll (every $POLL_S s) that saw every partition complete."
    echo
  } >> "$SUMMARY"
}

for p in "${PARTS[@]}"; do "part_$p"; done
echo; cat "$SUMMARY"
