#!/usr/bin/env bash
# Consumer groups, Spool beside Apache Kafka 4.x (same machine, same sitting; not part of the test
# command). 3 nodes, RF 3, each system's own client: Spool's Consumer and Kafka's KafkaConsumer with
# group.protocol=consumer (KIP-848, as Spool's) and with classic. One driver runs both
# (dev.spool.bench.GroupBench in data-plane's test classes; kafka-clients is the Kafka version of
# the harness).
#
#   flock /tmp/spool-heavy.lock scripts/bench-groups.sh [all|rebalance|commits|consume]...
#   BENCH_LOCK=/tmp/spool-heavy.lock scripts/bench-groups.sh    # takes the lock per part instead
#
# rebalance  MEMBERS (10) members, threads of one JVM, share a PARTITIONS (60) partition topic while a
#            producer writes RATE (3000) records/s of 100 B round robin to every partition. TRIALS (20)
#            trials (after one warm-up trial that is not counted): an 11th member joins (a JVM of its
#            own; timed from its subscribe call), then that JVM is SIGKILLed (it never leaves; its
#            heartbeats stop, which is what a crashed member does on both systems). A trial's figure
#            is the time until every partition is owned by a live member that consumed it since the
#            event (for a join, the joiner also holds its share, 60/11 rounded down). A trial with no
#            such moment before its deadline (60 s for a join, 95 s with a warm joiner; session
#            timeout + 30 s for a kill) is failed: it stays in n and counts as slower than any figure.
#            Targets: join p99 <= 1 s, kill p99 <= session timeout + 1 s.
#            JOINER (warm): "warm" = the joiner JVM first joins a group of its own on the same topic,
#            reads a record of every partition and leaves, then subscribes as the trial's member
#            (new client, new connections): the trial times the rebalance, as when a running
#            service adds a consumer. "cold" = it subscribes right after the JVM starts, so the
#            figure also holds the JVM's class loading and first compilation (about 1 s here).
#            Both systems run the same way; the summary names the mode.
#            Session timeout SESSION_MS (10000, Spool's default) on every side: Spool's broker default;
#            Kafka classic sets the client's session.timeout.ms; Kafka's consumer protocol needs
#            group.consumer.session.timeout.ms AND group.consumer.min.session.timeout.ms (default
#            45000, below which Kafka refuses) set on its brokers, which the summary labels. Heartbeat
#            intervals are each side's default (Spool 300 ms, Kafka consumer protocol 5 s, classic 3 s).
# commits    COMMIT_MEMBERS (20) members of one group on the same topic and load; each polls (10 ms)
#            and commits its positions with commitSync after every poll. Commit calls/s (and offsets/s)
#            over COMMIT_SECONDS (30) once the group is stable and after 10 s of warm-up.
# consume    RECORDS (1000000) records of RECORD_SIZE (1024) B in a READ_PARTITIONS (12) partition
#            topic, read from the beginning by one consumer: by assign, then through a new group of
#            each protocol, interleaved, REPS (3) times; medians. Two windows: subscribe/assign call
#            to the last record (join included) and first record to last (steady state).
#
# Env: SKIP_KAFKA=1 (Spool alone), KAFKA_HARNESS (see bench-common.sh), BENCH_LOCK (a lock file
#      taken for each part and released between parts, so others can run tests between them).
# The run stops (exit 4) when a driver fails, prints no result, or reports errors. The command, commit,
# machine, every driver's raw output, node logs and summary.md are in bench-results/groups-<ts>/.
set -uo pipefail
source "$(dirname "$0")/bench-common.sh"
COMMAND="$(command_line JOINER TRIALS SESSION_MS MEMBERS PARTITIONS RATE COMMIT_MEMBERS COMMIT_SECONDS RECORDS \
  RECORD_SIZE READ_PARTITIONS REPS SKIP_KAFKA KAFKA_HARNESS BENCH_LOCK -- "$0" "$@")"
: "${JOINER:=warm}" "${TRIALS:=20}" "${SESSION_MS:=10000}" "${MEMBERS:=10}" "${PARTITIONS:=60}" "${RATE:=3000}"
: "${COMMIT_MEMBERS:=20}" "${COMMIT_SECONDS:=30}" "${RECORDS:=1000000}" "${RECORD_SIZE:=1024}"
: "${READ_PARTITIONS:=12}" "${REPS:=3}"
PARTS=("$@"); [ "${#PARTS[@]}" = 0 ] && PARTS=(all)
[ "${PARTS[*]}" = all ] && PARTS=(rebalance commits consume)
case "$JOINER" in warm|cold) ;; *) echo "JOINER must be warm or cold, not '$JOINER'" >&2; exit 2;; esac
for p in "${PARTS[@]}"; do
  case "$p" in rebalance|commits|consume) ;; *) echo "unknown part '$p' (all|rebalance|commits|consume)" >&2; exit 2;; esac
done
if [ "${SKIP_KAFKA:-0}" = 1 ]; then KAFKA_HARNESS=""; else KAFKA_HARNESS="$(find_kafka_harness)" || exit 2; fi
OUT="$(new_run_dir groups "$COMMAND")"
DIR="$RESULTS/$(basename "$OUT")-cluster"   # Spool's cluster data: scratch, not kept
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/bench.log"; }
ensure_package
CP="$(test_classpath data-plane)"
quiet_logback "$OUT/logback.xml" > /dev/null

# Kafka's brokers get the session timeout through a copy of the harness whose broker template has
# the group settings appended (the harness itself is shared and stays as it is).
KAFKA_BS=127.0.0.1:9192,127.0.0.1:9292,127.0.0.1:9392
KAFKA_GROUP_CONFIG=(group.consumer.session.timeout.ms=$SESSION_MS)
[ "$SESSION_MS" -lt 45000 ] && KAFKA_GROUP_CONFIG+=(group.consumer.min.session.timeout.ms=$SESSION_MS)
if [ -n "$KAFKA_HARNESS" ]; then
  KH="$RESULTS/$(basename "$OUT")-kafka-harness"
  rm -rf "$KH"; cp -r "$KAFKA_HARNESS" "$KH"
  { echo; echo "# bench-groups.sh: the same session timeout as Spool's"; printf '%s\n' "${KAFKA_GROUP_CONFIG[@]}"; } \
    >> "$KH/config/server.properties.tmpl"
  printf '%s\n' "${KAFKA_GROUP_CONFIG[@]}" > "$OUT/kafka-broker-overrides.txt"
fi

SPOOL_UP=0; KAFKA_UP=0
spool_start() {
  rm -rf "$DIR"
  SPOOL_NODE_OPTS="-Xms1g -Xmx1g -XX:+UseG1GC -XX:MaxGCPauseMillis=20" \
    "$ROOT/scripts/cluster.sh" start --nodes 3 --dir "$DIR" --base-port 39092 >> "$OUT/cluster.log" 2>&1 \
    || step_failed "Spool cluster start" "see $OUT/cluster.log"
  SPOOL_UP=1; SPOOL_BS="$(cat "$DIR/bootstrap")"
}
spool_stop() {
  [ "$SPOOL_UP" = 1 ] || return 0
  "$ROOT/scripts/cluster.sh" stop --dir "$DIR" >> "$OUT/cluster.log" 2>&1 || true
  local n; for n in "$DIR"/node-*; do
    [ -f "$n/node.log" ] && mkdir -p "$OUT/spool-logs-$1" && cp "$n/node.log" "$OUT/spool-logs-$1/$(basename "$n").log"
  done
  rm -rf "$DIR"; SPOOL_UP=0
}
kafka_start() {
  KAFKA_UP=1
  "$KH/start-cluster.sh" >> "$OUT/kafka.log" 2>&1 || step_failed "Kafka cluster start" "see $OUT/kafka.log"
}
kafka_stop() {
  [ "$KAFKA_UP" = 1 ] || return 0
  local logs="${KA_HOME:-/tmp/kafka-anchor}/logs"
  "$KH/stop.sh" >> "$OUT/kafka.log" 2>&1 || true
  mkdir -p "$OUT/kafka-logs-$1"; cp "$logs"/node*.log "$OUT/kafka-logs-$1/" 2>/dev/null || true
  KAFKA_UP=0
}
trap 'spool_stop last; kafka_stop last; rm -rf "${KH:-/nonexistent}"' EXIT

LOCKED=0
lock() { [ -n "${BENCH_LOCK:-}" ] || return 0; exec 9>"$BENCH_LOCK"; log "waiting for $BENCH_LOCK"; flock 9; LOCKED=1; }
unlock() { [ "$LOCKED" = 1 ] || return 0; flock -u 9; exec 9>&-; LOCKED=0; }

# drive NAME MODE ARGS...: runs the driver, its output in NAME.log; fails the run if it fails.
drive() {
  local name="$1"; shift
  echo "java -Xmx1g -cp <data-plane test classpath> dev.spool.bench.GroupBench $*   > $name.log" >> "$OUT/commands.txt"
  log "$name: GroupBench $*"
  java -Xmx1g -Dlogback.configurationFile="$OUT/logback.xml" -cp "$CP" dev.spool.bench.GroupBench "$@" \
    > "$OUT/$name.log" 2> "$OUT/$name.err"
  local rc=$?
  [ "$rc" = 0 ] || step_failed "$name" "GroupBench exited $rc; see $OUT/$name.log and $name.err"
}

# Systems in the order they run; Kafka's two protocols share one cluster start.
SYSTEMS=(spool); [ -n "$KAFKA_HARNESS" ] && SYSTEMS+=(kafka-consumer kafka-classic)
on_system() { # SYSTEM PART: starts the system's cluster unless it is up; prints its bootstrap
  case "$1" in
    spool) kafka_stop "$2"; [ "$SPOOL_UP" = 1 ] || spool_start; BS="$SPOOL_BS" ;;
    *) spool_stop "$2"; [ "$KAFKA_UP" = 1 ] || kafka_start; BS="$KAFKA_BS" ;;
  esac
}

part_rebalance() {
  for s in "${SYSTEMS[@]}"; do
    on_system "$s" rebalance
    drive "rebalance-$s" rebalance --system "$s" --bootstrap "$BS" --trials "$TRIALS" --members "$MEMBERS" \
      --partitions "$PARTITIONS" --rate "$RATE" --session-ms "$SESSION_MS" --classic-session-ms "$SESSION_MS" \
      --joiner "$JOINER"
    echo "$JOINER" > "$OUT/rebalance-joiner.txt"
    sed -n 's/^JOIN_MS //p' "$OUT/rebalance-$s.log" > "$OUT/rebalance-$s-join-ms.txt"
    sed -n 's/^KILL_MS //p' "$OUT/rebalance-$s.log" > "$OUT/rebalance-$s-kill-ms.txt"
    [ "$(wc -l < "$OUT/rebalance-$s-join-ms.txt")" = "$TRIALS" ] \
      || step_failed "rebalance-$s" "$TRIALS JOIN_MS lines expected; see $OUT/rebalance-$s.log"
    grep -E '^(warm-up|trial)' "$OUT/rebalance-$s.log" | tail -3
  done
  spool_stop rebalance; kafka_stop rebalance
}

part_commits() {
  for s in "${SYSTEMS[@]}"; do
    on_system "$s" commits
    drive "commits-$s" commits --system "$s" --bootstrap "$BS" --members "$COMMIT_MEMBERS" \
      --partitions "$PARTITIONS" --rate "$RATE" --seconds "$COMMIT_SECONDS" --classic-session-ms "$SESSION_MS"
    local r; r="$(grep '^RESULT' "$OUT/commits-$s.log")" || step_failed "commits-$s" "no RESULT line"
    echo "$s: $r"
    [[ "$r" == *" errors=0 "* ]] || step_failed "commits-$s" "commits or polls failed in the window: $r"
  done
  spool_stop commits; kafka_stop commits
}

part_consume() {
  on_system spool consume
  drive consume-spool consume --groups spool --bootstrap "$BS" --records "$RECORDS" --record-size "$RECORD_SIZE" \
    --partitions "$READ_PARTITIONS" --reps "$REPS"
  if [ -n "$KAFKA_HARNESS" ]; then
    on_system kafka-consumer consume
    drive consume-kafka consume --groups kafka-consumer,kafka-classic --bootstrap "$BS" --records "$RECORDS" \
      --record-size "$RECORD_SIZE" --partitions "$READ_PARTITIONS" --reps "$REPS"
  fi
  ! grep -h 'FAILED' "$OUT"/consume-*.log || step_failed consume "a read did not finish"
  grep -h '^READ' "$OUT"/consume-*.log
  spool_stop consume; kafka_stop consume
}

log "run directory: $OUT"
for p in "${PARTS[@]}"; do
  lock; "part_$p"; unlock
done

ROOT="$ROOT" python3 - "$OUT" "$SESSION_MS" "$TRIALS" <<'PY' > "$OUT/summary.md" || step_failed summary "the summary failed"
import glob, os, re, statistics, subprocess, sys
out, session_ms, trials = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
names = {"spool": "Spool", "kafka-consumer": "Kafka 4.x, group.protocol=consumer",
         "kafka-classic": "Kafka 4.x, group.protocol=classic"}
def pct(path):
    r = subprocess.run(["bash", "-c", 'source "$0"; percentiles < "$1"',
                        os.path.join(os.environ.get("ROOT", "."), "scripts/bench-common.sh"), path],
                       capture_output=True, text=True, check=True)
    return r.stdout.split()
print("# Consumer groups: " + os.path.basename(out) + "\n")
print(subprocess.run(["bash", "-c", 'source "$0"; run_facts "$1" | sed "s/^/- /"',
                      os.path.join(os.environ.get("ROOT", "."), "scripts/bench-common.sh"), out],
                     capture_output=True, text=True).stdout)
if glob.glob(f"{out}/rebalance-*-join-ms.txt"):
    print(f"## Rebalance: 10 members, 60 partitions, under load; session timeout {session_ms} ms on every side\n")
    print("Time until every partition is owned by a live member and consumed again (nearest rank; a failed trial counts as slower than any).")
    joiner = open(f"{out}/rebalance-joiner.txt").read().strip() if os.path.exists(f"{out}/rebalance-joiner.txt") else "cold"
    print("Joiner: " + ("**warm** (its JVM joined a group of its own and read every partition before it subscribed: the rebalance is timed, not the JVM's start)" if joiner == "warm"
          else "**cold** (subscribes right after its JVM starts: the figure includes class loading and first compilation)") + ", on every side.\n")
    print("| system | join p50 | join p99 | join n (failed) | kill p50 | kill p99 | kill n (failed) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for s in names:
        j = f"{out}/rebalance-{s}-join-ms.txt"
        if not os.path.exists(j):
            continue
        jn, jf, j50, j99, _ = pct(j)
        kn, kf, k50, k99, _ = pct(f"{out}/rebalance-{s}-kill-ms.txt")
        print(f"| {names[s]} | {j50} ms | {j99} ms | {jn} ({jf}) | {k50} ms | {k99} ms | {kn} ({kf}) |")
    print(f"\nTargets (Spool): join p99 <= 1000 ms; kill p99 <= {session_ms + 1000} ms.")
    if os.path.exists(f"{out}/kafka-broker-overrides.txt"):
        print("Kafka's brokers ran with " + ", ".join(open(f"{out}/kafka-broker-overrides.txt").read().split())
              + " (group.consumer.min.session.timeout.ms lowered from its default 45000 so the consumer protocol takes the same session timeout)."
              if session_ms < 45000 else "")
    print("Heartbeat intervals: each side's default (Spool 300 ms; Kafka consumer protocol 5000 ms; classic 3000 ms).\n")
commit_rows = sorted(glob.glob(f"{out}/commits-*.log"))
if commit_rows:
    print("## Offset commits, 3 nodes, 20 members committing (commitSync) after every poll\n")
    print("| system | commits/s | offsets/s | window |")
    print("|---|---:|---:|---|")
    for s in names:
        f = f"{out}/commits-{s}.log"
        if os.path.exists(f):
            m = re.search(r"RESULT commits_per_sec=(\S+) offsets_per_sec=(\S+) errors=(\d+) members=(\d+) seconds=(\S+) stable_at_end=(\S+)", open(f).read())
            if m:
                print(f"| {names[s]} | {m[1]} | {m[2]} | {m[5]} s, errors {m[3]}, group stable at the end: {m[6]} |")
    print()
reads = {}
for f in sorted(glob.glob(f"{out}/consume-*.log")):
    system = "Spool" if f.endswith("consume-spool.log") else "Kafka"
    for m in re.finditer(r"READ mode=(\S+) rep=\d+ records=\d+ total_s=\S+ records_per_sec=(\S+) steady_records_per_sec=(\S+)", open(f).read()):
        reads.setdefault((system, m[1]), []).append((float(m[2]), float(m[3])))
if reads:
    print("## Reading through a group vs assign (one consumer, same partitions; medians)\n")
    print("| system | mode | n | records/s, call to last record | steady records/s, first to last | vs assign (steady) |")
    print("|---|---|---:|---:|---:|---:|")
    for (system, mode), v in reads.items():
        tot = statistics.median(x[0] for x in v); st = statistics.median(x[1] for x in v)
        base = reads.get((system, "assign"))
        ratio = st / statistics.median(x[1] for x in base) if base else float("nan")
        print(f"| {system} | {mode} | {len(v)} | {tot:,.0f} | {st:,.0f} | {ratio:.3f} |")
    print("\nTarget: a group costs <= 5 % throughput against assign (ratio >= 0.95).")
PY
cat "$OUT/summary.md"
log "results: $OUT"
