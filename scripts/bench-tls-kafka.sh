#!/usr/bin/env bash
# What TLS costs Spool and Apache Kafka, measured the same way on both: Kafka's own perf tools
# (ProducerPerformance, ConsumerPerformance from the Kafka peer harness's 4.4 jars) as the one client,
# against 3-node clusters of each on 127.0.0.1, plaintext and TLS, interleaved per rep:
#
#   scripts/bench-tls-kafka.sh [REPS]      # REPS=3 by default
#   RECORDS=300000 CONFIGS="kafka-plain spool-plain kafka-tls spool-tls" scripts/bench-tls-kafka.sh 3
#
# kafka-plain / kafka-tls: Kafka 4.4 KRaft, 3 combined nodes (the harness's server.properties
# template); TLS makes the broker listener SSL for clients and inter-broker replication alike.
# spool-plain / spool-tls: Spool, 3 combined nodes (scripts/cluster.sh), clients on its Kafka
# listener; TLS is KAFKA:SSL and SPOOL:SSL, so replication is TLS too (the default engine, OpenSSL).
# Neither side puts TLS on the controller quorum. TLS everywhere is TLSv1.3 with
# TLS_AES_128_GCM_SHA256 only (brokers, replication and the tools), with an EC P-256 key and CA made
# by keytool into scratch space for the run and removed after it.
# Per config and rep, in a fresh cluster: a topic of 6 partitions, RF 3, min.insync.replicas=2; a
# warm-up (WARMUP_N records of RECORD_SIZE to another topic, not recorded); ProducerPerformance of
# RECORDS x RECORD_SIZE, acks=all, PRODUCER_PROPS (default linger.ms=5 batch.size=131072), as fast
# as it goes; ConsumerPerformance reading the RECORDS back with a new group (its fetch-only rate is
# the row; the whole window, group join included, is kept beside it). Each run (a config and a rep:
# cluster start to stop) holds the machine lock (flock /tmp/spool-heavy.lock) and releases it after,
# so other work can slip in between runs, not into one. Broker heaps HEAP (512m) on both sides.
# Brokers' and tool's CPU per step (scripts/bench-cpu.py) and the CPU of every process that is not
# this run's (sampled every 2 s: "other cores") are recorded, so runs that shared the machine show.
# Results: bench-results/bench-tls-kafka-<ts>/ (results.tsv, every tool's output, summary.md with
# the medians, TLS/plaintext per system and Spool/Kafka per mode). Starts and stops only its own
# processes (PIDs in the run's pids.txt).
# Env: RECORDS RECORD_SIZE WARMUP_N PRODUCER_PROPS CONFIGS HEAP KAFKA_HARNESS
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
COMMAND="$(command_line RECORDS RECORD_SIZE WARMUP_N PRODUCER_PROPS CONFIGS HEAP KAFKA_HARNESS -- "$0" "$@")"
REPS="${1:-3}"
: "${RECORDS:=300000}"; : "${RECORD_SIZE:=1024}"; : "${WARMUP_N:=100000}"; : "${HEAP:=512m}"
: "${PRODUCER_PROPS:=linger.ms=5 batch.size=131072}"
: "${CONFIGS:=kafka-plain spool-plain kafka-tls spool-tls}"
for c in $CONFIGS; do
  case "$c" in kafka-plain|kafka-tls|spool-plain|spool-tls) ;;
    *) echo "bench-tls-kafka: unknown config '$c' in CONFIGS (kafka-plain kafka-tls spool-plain spool-tls)" >&2; exit 2 ;;
  esac
done
KAFKA_HARNESS="$(find_kafka_harness)" || exit 2
LOCK=/tmp/spool-heavy.lock
PASS=spool-bench-pass
TLS_VERSION=TLSv1.3
TLS_CIPHER=TLS_AES_128_GCM_SHA256
# Scratch: keys, both clusters' data and the Kafka JVMs' pid files (a KA_HOME of our own, so the
# harness's stop logic can only ever see the brokers this script started).
SCRATCH="$(mktemp -d "$RESULTS/tls-kafka.XXXXXX")"
OUT="$(new_run_dir bench-tls-kafka "$COMMAND")"
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/bench.log"; }
(flock "$LOCK" true) # wait for the lock before building, so a build does not land on someone's run
flock "$LOCK" bash -c "source '$ROOT/scripts/bench-common.sh' && ensure_package"
# shellcheck disable=SC1091
source "$KAFKA_HARNESS/env.sh"
KA_HOME="$SCRATCH/kafka"; KA_DATA="$KA_HOME/data"; KA_LOGS="$KA_HOME/logs"; KA_PIDS="$KA_HOME/pids"; KA_CONF="$KA_HOME/conf"
KA_LIB="${KAFKA_LIB:-/tmp/kafka-anchor/lib-$KAFKA_VERSION}"; CP="$KA_LIB/*"
BROKER_HEAP="-Xms$HEAP -Xmx$HEAP"
ensure_jars
SPOOL_DIR="$SCRATCH/spool"
make_tls_keys "$SCRATCH/keys" "$PASS"
K="$SCRATCH/keys"
TLS_KEYS="$(tls_key_props "$K" "$PASS")
ssl.enabled.protocols=$TLS_VERSION
ssl.cipher.suites=$TLS_CIPHER"
printf '' > "$SCRATCH/client-plain.properties"
printf 'security.protocol=SSL\nssl.truststore.location=%s/truststore.p12\nssl.truststore.password=%s\nssl.truststore.type=PKCS12\nssl.enabled.protocols=%s\nssl.cipher.suites=%s\n' \
  "$K" "$PASS" "$TLS_VERSION" "$TLS_CIPHER" > "$SCRATCH/client-tls.properties"
{ echo "records=$RECORDS record_size=$RECORD_SIZE warmup_n=$WARMUP_N reps=$REPS heap=$HEAP configs=$CONFIGS"
  echo "producer: acks=all $PRODUCER_PROPS (other keys: kafka-clients 4.4 defaults)"
  echo "tls: $TLS_VERSION $TLS_CIPHER, EC P-256 (keytool), brokers and replication and tools"
  echo "topic: 6 partitions, replication factor 3, min.insync.replicas=2"; } > "$OUT/settings.txt"
TSV="$OUT/results.tsv"
printf "config\trep\tkind\trec_per_s\tMB_per_s\tp50_ms\tp99_ms\tbroker_cpu_s\tclient_cpu_s\twall_s\tother_cores\twindow_MB_per_s\n" > "$TSV"

# Cores used by processes other than this run's (cmdline not naming $SCRATCH: its brokers, and its
# tools through -Dbench.scratch), every 2 s, while the run holds the lock.
OTHER_PID=""
other_start() {
  python3 - "$SCRATCH" "$1" <<'PY' &
import os, sys, time
mine, log = sys.argv[1], sys.argv[2]
hz = os.sysconf("SC_CLK_TCK")
def snap():
    out = {}
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == os.getpid():
            continue
        try:
            st = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
            cmd = open(f"/proc/{p}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        out[p] = (int(st[11]) + int(st[12]), mine in cmd, cmd[:80])
    return out
prev, t0 = snap(), time.time()
with open(log, "a", buffering=1) as f:
    while True:
        time.sleep(2)
        cur, t1 = snap(), time.time()
        d = [(cur[p][0] - prev[p][0], cur[p][2]) for p in cur if p in prev and not cur[p][1]]
        top = max(d, default=(0, ""))
        f.write(f"{t1:.1f}\t{sum(x for x, _ in d) / hz / (t1 - t0):.2f}\t{top[0] / hz / (t1 - t0):.2f} {top[1]}\n")
        prev, t0 = cur, t1
PY
  OTHER_PID=$!
}
other_stop() { [ -z "$OTHER_PID" ] || kill "$OTHER_PID" 2>/dev/null || true; OTHER_PID=""; }
# Mean other cores in the sampler's log between two unix times.
other_mean() {
  awk -v a="$2" -v b="$3" '$1 >= a && $1 <= b + 2 {s += $2; n++} END {if (n) printf "%.2f", s / n; else print "-"}' "$1"
}

# cpu_of FILE: "brokers' CPU s<TAB>tool's CPU s<TAB>wall s" of the step bench-cpu.py recorded last in FILE.
cpu_of() {
  python3 -c 'import json, sys
d = json.loads(open(sys.argv[1]).readlines()[-1])
b = d["broker_cpu_s"]
print("%s\t%.1f\t%.1f" % ("-" if b is None else "%.1f" % b, d["client"]["cpu_s"], d["wall_s"]))' "$1"
}
tool() { "$JAVA" $TOOL_HEAP -Dbench.scratch="$SCRATCH" -Dlog4j2.configurationFile="$KAFKA_HARNESS/config/log4j2-tools.properties" -cp "$CP" "$@"; }
# step NAME BROKER_PID_GLOB ARGS...: a tool run under scripts/bench-cpu.py, output in NAME.log.
step() {
  local name="$1" brokers="$2"; shift 2
  echo "$(printf '%q ' "$@")> $name.log" >> "$OUT/commands.txt"
  BENCH_CPU_BROKERS="$brokers" python3 "$ROOT/scripts/bench-cpu.py" run --out "$OUT/$name.cpu.jsonl" -- \
    "$JAVA" $TOOL_HEAP -Dbench.scratch="$SCRATCH" -Dlog4j2.configurationFile="$KAFKA_HARNESS/config/log4j2-tools.properties" \
    -cp "$CP" "$@" > "$OUT/$name.log" 2>&1 || step_failed "$name" "see $OUT/$name.log"
}

kafka_start() { # TLS: plain|tls
  local tls="$1" i conf voters="1@127.0.0.1:9193,2@127.0.0.1:9293,3@127.0.0.1:9393"
  rm -rf "$KA_HOME/data" && mkdir -p "$KA_DATA" "$KA_LOGS" "$KA_PIDS" "$KA_CONF"
  local cid; cid="$("$JAVA" -Xmx128m -cp "$CP" kafka.tools.StorageTool random-uuid 2>/dev/null | tail -1)"
  for i in 1 2 3; do
    conf="$KA_CONF/node$i.properties"
    render_config "$i" "9${i}92" "9${i}93" "$voters" "$KA_DATA/node$i" 3 2 "$conf"
    if [ "$tls" = tls ]; then
      sed -i -e 's#^listeners=PLAINTEXT://#listeners=SSL://#' -e 's#^advertised.listeners=PLAINTEXT://#advertised.listeners=SSL://#' \
        -e 's#^inter.broker.listener.name=PLAINTEXT$#inter.broker.listener.name=SSL#' \
        -e 's#^listener.security.protocol.map=.*#listener.security.protocol.map=CONTROLLER:PLAINTEXT,SSL:SSL#' "$conf"
      printf '%s\nssl.protocol=%s\n' "$TLS_KEYS" "$TLS_VERSION" >> "$conf"
      [ "$(grep -c -e '^listeners=SSL://' -e '^advertised.listeners=SSL://' -e '^inter.broker.listener.name=SSL$' \
           -e '^listener.security.protocol.map=CONTROLLER:PLAINTEXT,SSL:SSL$' "$conf")" = 4 ] \
        || step_failed "Kafka TLS config" "the harness's template changed: $conf is not all SSL"
    fi
    # The brokers outlive this step and must not hold the machine lock's descriptor.
    (for fd in /proc/"$BASHPID"/fd/*; do fd="${fd##*/}"; [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null; done
     start_node "node$i" "$conf" "$cid") >> "$OUT/kafka-start.log" 2>&1 || step_failed "Kafka start" "see $OUT/kafka-start.log"
  done
  for i in 1 2 3; do echo "$(date +%T) kafka node$i pid $(cat "$KA_PIDS/node$i.pid")" >> "$OUT/pids.txt"; done
  local deadline=$((SECONDS + 120)) n=0
  while [ $SECONDS -lt $deadline ]; do
    n="$(tool org.apache.kafka.tools.BrokerApiVersionsCommand --bootstrap-server 127.0.0.1:9192,127.0.0.1:9292,127.0.0.1:9392 \
         --command-config "$SCRATCH/client-$tls.properties" 2>/dev/null | grep -c '(id:' || true)"
    [ "${n:-0}" -ge 3 ] && return 0
    sleep 2
  done
  step_failed "Kafka start" "3 brokers not ready in 120 s (logs $KA_LOGS)"
}
kafka_stop() { KA_HOME="$KA_HOME" "$KAFKA_HARNESS/stop.sh" >> "$OUT/kafka-start.log" 2>&1 || true; }
spool_start() {
  local tls="$1" props="group.initial.rebalance.delay.ms=0" client="" i
  if [ "$tls" = tls ]; then
    props="$props
listener.security.protocol.map=SPOOL:SSL,KAFKA:SSL
$TLS_KEYS"
    client="security.protocol=SSL
$TLS_KEYS"
  fi
  rm -rf "$SPOOL_DIR"
  SPOOL_METRICS=0 SPOOL_NODE_OPTS="-Xms$HEAP -Xmx$HEAP -XX:+UseG1GC -XX:MaxGCPauseMillis=20" \
    SPOOL_NODE_PROPS="$props" SPOOL_CLIENT_PROPS="$client" \
    "$ROOT/scripts/cluster.sh" start --nodes 3 --dir "$SPOOL_DIR" --base-port 29092 >> "$OUT/spool-start.log" 2>&1 \
    || step_failed "Spool start" "see $OUT/spool-start.log and $SPOOL_DIR/node-*/node.log"
  for i in 1 2 3; do echo "$(date +%T) spool node-$i pid $(cat "$SPOOL_DIR/node-$i/node.pid")" >> "$OUT/pids.txt"; done
  grep -h -m1 "TLS engine" "$SPOOL_DIR"/node-1/node.log >> "$OUT/spool-engine.txt" 2>/dev/null || true
}
spool_stop() { [ -f "$SPOOL_DIR/cluster.env" ] && "$ROOT/scripts/cluster.sh" stop --dir "$SPOOL_DIR" >> "$OUT/spool-start.log" 2>&1 || true; }
UP=""
cleanup() { other_stop; case "$UP" in kafka) kafka_stop ;; spool) spool_stop ;; esac; rm -rf "$SCRATCH"; }
trap cleanup EXIT

# one CONFIG REP: a whole run, holding the machine lock on descriptor 9.
one() {
  local config="$1" rep="$2" side="${1%-*}" tls="${1#*-}" bs brokers
  exec 9> "$LOCK"; flock 9
  local t0; t0="$(date +%s)"
  other_start "$OUT/other-$config-$rep.tsv"
  log "$config rep $rep: start (load $(cut -d' ' -f1-3 /proc/loadavg))"
  if [ "$side" = kafka ]; then
    UP=kafka; kafka_start "$tls"; bs=127.0.0.1:9192,127.0.0.1:9292,127.0.0.1:9392; brokers="$KA_PIDS/*.pid"
  else
    UP=spool; spool_start "$tls"; bs="$(cat "$SPOOL_DIR/kafka-bootstrap")"; brokers="$SPOOL_DIR/node-*/node.pid"
  fi
  local cc="$SCRATCH/client-$tls.properties" t
  for t in warmup bench; do
    step "$config-$rep-topic-$t" "$brokers" org.apache.kafka.tools.TopicCommand --bootstrap-server "$bs" --command-config "$cc" \
      --create --topic "$t" --partitions 6 --replication-factor 3 --config min.insync.replicas=2
  done
  # shellcheck disable=SC2086
  [ "$WARMUP_N" -gt 0 ] && step "$config-$rep-warmup" "$brokers" org.apache.kafka.tools.ProducerPerformance --topic warmup \
    --num-records "$WARMUP_N" --record-size "$RECORD_SIZE" --throughput -1 --command-config "$cc" \
    --producer-props bootstrap.servers="$bs" acks=all $PRODUCER_PROPS
  local f="$config-$rep-produce" a b line cpu
  a="$(date +%s.%N)"
  # shellcheck disable=SC2086
  step "$f" "$brokers" org.apache.kafka.tools.ProducerPerformance --topic bench --num-records "$RECORDS" \
    --record-size "$RECORD_SIZE" --throughput -1 --command-config "$cc" --producer-props bootstrap.servers="$bs" acks=all $PRODUCER_PROPS
  b="$(date +%s.%N)"
  line="$(grep '99.9th' "$OUT/$f.log" | tail -1)"; log "  produce: $line"
  cpu="$(cpu_of "$OUT/$f.cpu.jsonl")"
  echo "$line" | sed -E 's/^[0-9]+ records sent, ([0-9.]+) records\/sec \(([0-9.]+) MB\/sec\).* ([0-9]+) ms 50th, [0-9]+ ms 95th, ([0-9]+) ms 99th.*/\1 \2 \3 \4/' \
    | awk -v c="$config" -v r="$rep" -v cpu="$cpu" -v o="$(other_mean "$OUT/other-$config-$rep.tsv" "$a" "$b")" \
      'NF==4 {printf "%s\t%s\tproduce\t%s\t%s\t%s\t%s\t%s\t%s\t-\n",c,r,$1,$2,$3,$4,cpu,o}' >> "$TSV"
  f="$config-$rep-consume"; a="$(date +%s.%N)"
  step "$f" "$brokers" org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$bs" --topic bench \
    --num-records "$RECORDS" --group "cperf-$config-$rep-$RANDOM" --timeout 60000 --command-config "$cc"
  b="$(date +%s.%N)"
  line="$(grep -A1 '^start.time' "$OUT/$f.log" | tail -1)"; log "  consume: $line"
  cpu="$(cpu_of "$OUT/$f.cpu.jsonl")"
  # fields: start, end, MB, MB/s, nMsg, nMsg/s, rebalance ms, fetch ms, fetch MB/s, fetch nMsg/s
  echo "$line" | awk -F', *' -v c="$config" -v r="$rep" -v cpu="$cpu" -v o="$(other_mean "$OUT/other-$config-$rep.tsv" "$a" "$b")" \
    'NF>=10 {printf "%s\t%s\tconsume\t%s\t%s\t-\t-\t%s\t%s\t%s\n",c,r,$10,$9,cpu,o,$4}' >> "$TSV"
  if [ "$side" = kafka ]; then kafka_stop; else spool_stop; fi
  UP=""
  other_stop
  log "$config rep $rep: done in $(( $(date +%s) - t0 )) s"
  flock -u 9; exec 9>&-
}

for rep in $(seq 1 "$REPS"); do
  for config in $CONFIGS; do one "$config" "$rep"; done
done

python3 - "$TSV" "$OUT" > "$OUT/summary.md" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
def med(config, kind, col):
    v = [float(r[col]) for r in rows if r["config"] == config and r["kind"] == kind and r[col] not in ("-", "")]
    return statistics.median(v) if v else None
def f(x, d=1):
    return "-" if x is None else f"{x:,.{d}f}"
print(f"# TLS vs plaintext, Kafka and Spool, Kafka's perf tools (medians of the reps)\n\nraw: {sys.argv[2]}\n")
print("| config | kind | MB/s | rec/s | p50/p99 ms | brokers' CPU-s (step) | other cores | runs |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
configs = [c for c in ("kafka-plain", "kafka-tls", "spool-plain", "spool-tls") if any(r["config"] == c for r in rows)]
for kind in ("produce", "consume"):
    for c in configs:
        mbs, cpu = med(c, kind, "MB_per_s"), med(c, kind, "broker_cpu_s")
        runs = ", ".join("%.1f" % float(r["MB_per_s"]) for r in rows if r["config"] == c and r["kind"] == kind)
        lat = "-" if kind == "consume" else f'{f(med(c, kind, "p50_ms"), 0)}/{f(med(c, kind, "p99_ms"), 0)}'
        print(f"| {c} | {kind} | {f(mbs)} | {f(med(c, kind, 'rec_per_s'), 0)} | {lat} | {f(cpu)} s | {f(med(c, kind, 'other_cores'), 2)} | {runs} |")
print("\n| kind | TLS/plain Kafka | TLS/plain Spool | Spool/Kafka plain | Spool/Kafka TLS |\n| --- | --- | --- | --- | --- |")
for kind in ("produce", "consume"):
    m = {c: med(c, kind, "MB_per_s") for c in configs}
    r = lambda a, b: f"{m[a] / m[b]:.2f}" if m.get(a) and m.get(b) else "-"
    print(f"| {kind} | {r('kafka-tls', 'kafka-plain')} | {r('spool-tls', 'spool-plain')} | {r('spool-plain', 'kafka-plain')} | {r('spool-tls', 'kafka-tls')} |")
PY
cat "$OUT/summary.md"
log "results: $OUT"
