#!/usr/bin/env bash
# A local Spool cluster of combined (broker + controller) nodes on 127.0.0.1.
#
#   scripts/cluster.sh start --nodes N [--dir DIR] [--base-port P]
#   scripts/cluster.sh stop|status [--dir DIR]
#   scripts/cluster.sh kill NODE_ID [--signal KILL|TERM|STOP|CONT] [--dir DIR]
#   scripts/cluster.sh restart NODE_ID [--dir DIR]
#
# Node i listens for Spool clients on P+10*(i-1), for the quorum on P+10*(i-1)+1 and for Kafka's
# clients and tools (its Kafka-protocol listener) on P+10*(i-1)+2 (P = 9092), and serves Prometheus
# metrics and health checks on http://127.0.0.1:P+10*(i-1)+3/metrics, /health/ready (SPOOL_METRICS=0: off).
# SPOOL_NODE_PROPS (newline-separated key=value lines) is appended to every node's new config;
# SPOOL_CLIENT_PROPS (the same form) are the client keys the readiness check needs (TLS listeners).
# Everything lives under DIR (default ./.spool-cluster): per node its config, data, log and
# PID file. A new cluster gets one cluster id (`spool storage random-uuid`, kept in
# DIR/cluster.env) and `start` formats every node that is not running with it (`spool storage
# format --ignore-formatted`) before starting it, so a directory of another cluster is refused.
# A node logs to node-i/node.log, rolled at SPOOL_LOG_MAX_FILE_SIZE (default 50MB) into
# node.log.1.gz .. node.log.5.gz; what the JVM prints itself (a start that fails before logging
# starts, a crash) goes to node-i/node.out. SPOOL_LOG_STDOUT=1: the node logs to stdout, appended
# to node.log without a cap. The script signals only PIDs it recorded, after checking the
# process's command line carries this cluster's marker, so it never touches anything else.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SPOOL="$ROOT/scripts/spool"

usage() { sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }

CMD="${1:-}"; [ -n "$CMD" ] || usage
shift
NODES=""; DIR="./.spool-cluster"; BASE_PORT=9092; SIGNAL="KILL"; NODE_ARG=""
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) NODES="$2"; shift 2 ;;
    --dir) DIR="$2"; shift 2 ;;
    --base-port) BASE_PORT="$2"; shift 2 ;;
    --signal) SIGNAL="$2"; shift 2 ;;
    -h|--help) usage 0 ;;
    [0-9]*) NODE_ARG="$1"; shift ;;
    *) echo "cluster.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"

node_dir() { echo "$DIR/node-$1"; }
client_port() { echo $((BASE_PORT + 10 * ($1 - 1))); }
quorum_port() { echo $((BASE_PORT + 10 * ($1 - 1) + 1)); }
kafka_port() { echo $((BASE_PORT + 10 * ($1 - 1) + 2)); }
metrics_port() { echo $((BASE_PORT + 10 * ($1 - 1) + 3)); }
# metrics.listener (Prometheus /metrics, /health/*) is on unless SPOOL_METRICS=0 (benchmarks compare both).
metrics_line() { [ "${SPOOL_METRICS:-1}" = 0 ] || echo "metrics.listener=127.0.0.1:$(metrics_port "$1")"; }
marker() { echo "-Dspool.node.dir=$(node_dir "$1")"; }

# Logging: size-capped rolling files (spool-node-logback.xml in the node's jar) unless
# SPOOL_LOG_STDOUT=1; log_opts gives the JVM options, log_out where the process's output goes.
log_opts() {
  [ "${SPOOL_LOG_STDOUT:-0}" = 1 ] && return 0
  echo "-Dlogback.configurationFile=spool-node-logback.xml -Dspool.log.file=$(node_dir "$1")/node.log -Dspool.log.max.file.size=${SPOOL_LOG_MAX_FILE_SIZE:-50MB}"
}
log_out() { if [ "${SPOOL_LOG_STDOUT:-0}" = 1 ]; then echo "$(node_dir "$1")/node.log"; else echo "$(node_dir "$1")/node.out"; fi; }

# The PID recorded for node $1 if that process is alive and is ours, else nothing.
live_pid() {
  local f; f="$(node_dir "$1")/node.pid"
  [ -f "$f" ] || return 0
  local pid; pid="$(cat "$f")"
  if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "$(marker "$1")"; then
    echo "$pid"
  fi
}

known_nodes() {
  if [ -f "$DIR/cluster.env" ]; then
    # shellcheck disable=SC1091
    . "$DIR/cluster.env"
    seq 1 "$CLUSTER_NODES"
  fi
}

load_env() {
  [ -f "$DIR/cluster.env" ] || { echo "cluster.sh: no cluster in $DIR (run: cluster.sh start --nodes N --dir $DIR)" >&2; exit 1; }
  # shellcheck disable=SC1091
  . "$DIR/cluster.env"
  BASE_PORT="$CLUSTER_BASE_PORT"
}

bootstrap() {
  local n="$1" out="" i
  for i in $(seq 1 "$n"); do out="${out:+$out,}127.0.0.1:$(client_port "$i")"; done
  echo "$out"
}

kafka_bootstrap() {
  local n="$1" out="" i
  for i in $(seq 1 "$n"); do out="${out:+$out,}127.0.0.1:$(kafka_port "$i")"; done
  echo "$out"
}

write_config() {
  local i="$1" n="$2" voters="" j
  for j in $(seq 1 "$n"); do voters="${voters:+$voters,}$j@127.0.0.1:$(quorum_port "$j")"; done
  mkdir -p "$(node_dir "$i")"
  cat > "$(node_dir "$i")/node.properties" <<PROPS
# Written by scripts/cluster.sh; edit freely, it is kept on restart.
node.id=$i
process.roles=broker,controller
listener=127.0.0.1:$(client_port "$i")
kafka.listener=127.0.0.1:$(kafka_port "$i")
$(metrics_line "$i")
data.dir=$(node_dir "$i")/data
controller.quorum.voters=$voters
controller.quorum.bind.host=127.0.0.1
${SPOOL_NODE_PROPS:-}
PROPS
}

# Formats the directories of every node given that is not running (in parallel: each is a JVM
# start); a directory of another cluster or node, or one holding data from before formatting
# existed, stops the script with the node's message.
format_nodes() {
  local i d pids=() nodes=() failed=0
  for i in "$@"; do
    [ -z "$(live_pid "$i")" ] || continue
    d="$(node_dir "$i")"
    "$SPOOL" storage format --config "$d/node.properties" --cluster-id "$CLUSTER_ID" \
      --ignore-formatted > "$d/format.out" 2>&1 &
    pids+=($!); nodes+=("$i")
  done
  for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}"; then
      echo "cluster.sh: node ${nodes[$i]}: spool storage format failed:" >&2
      sed 's/^/  /' "$(node_dir "${nodes[$i]}")/format.out" >&2
      failed=1
    fi
  done
  if [ "$failed" = 1 ]; then
    echo "cluster.sh: (a directory from before storage format existed: stop the cluster and remove $DIR)" >&2
    exit 1
  fi
}

start_node() {
  local i="$1" d; d="$(node_dir "$i")"
  if [ -n "$(live_pid "$i")" ]; then
    echo "node $i already running (pid $(live_pid "$i"))"
    return
  fi
  # The node outlives this script, so it must not inherit the script's other open files: a caller
  # holding the machine lock (`flock /tmp/spool-heavy.lock scripts/compat.sh`) would otherwise
  # keep it locked for as long as the cluster runs.
  (
    for fd in /proc/"$BASHPID"/fd/*; do
      fd="${fd##*/}"
      if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2> /dev/null; fi
    done
    SPOOL_NODE_OPTS="${SPOOL_NODE_OPTS:--Xms256m -Xmx512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20} $(marker "$i") $(log_opts "$i")" \
      exec setsid "$SPOOL" node start --config "$d/node.properties"
  ) >> "$(log_out "$i")" 2>&1 < /dev/null &
  echo $! > "$d/node.pid"
  echo "node $i started (pid $!, client 127.0.0.1:$(client_port "$i"), Kafka 127.0.0.1:$(kafka_port "$i"), metrics http://127.0.0.1:$(metrics_port "$i")/metrics, log $d/node.log)"
}

wait_ready() {
  local n="$1" deadline=$((SECONDS + ${SPOOL_START_TIMEOUT_S:-90})) status=""
  local kv client=()
  # Client keys the status check needs (security.protocol=SSL and ssl.* when SPOOL_NODE_PROPS
  # makes the Spool listener TLS): SPOOL_CLIENT_PROPS, newline-separated key=value lines.
  while IFS= read -r kv; do [ -n "$kv" ] && client+=(--admin-prop "$kv"); done <<<"${SPOOL_CLIENT_PROPS:-}"
  echo -n "waiting for the quorum to elect a leader and $n brokers to unfence"
  while [ $SECONDS -lt $deadline ]; do
    if status="$("$SPOOL" cluster status --json --bootstrap "$(bootstrap "$n")" "${client[@]}" 2>/dev/null)" \
       && python3 - "$n" "$status" <<'PY'
import json, sys
n, s = int(sys.argv[1]), json.loads(sys.argv[2])
leader = s.get("controller", {}).get("leader", -1)
live = [b for b in s.get("brokers", []) if not b.get("fenced", True)]
sys.exit(0 if leader not in (-1, None) and len(live) >= n else 1)
PY
    then
      echo " ready."
      return 0
    fi
    echo -n "."
    sleep 1
  done
  echo " timed out. Last status:"; echo "$status"
  echo "node logs: $DIR/node-*/node.log (the JVM's own output: $DIR/node-*/node.out)" >&2
  return 1
}

stop_node() {
  local i="$1" pid; pid="$(live_pid "$i")"
  [ -n "$pid" ] || { echo "node $i not running"; return 0; }
  kill -CONT "$pid" 2>/dev/null || true   # a paused node cannot act on SIGTERM
  kill -TERM "$pid"
  local deadline=$((SECONDS + 60))
  while [ -n "$(live_pid "$i")" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  if [ -n "$(live_pid "$i")" ]; then
    echo "node $i did not stop in 60 s; SIGKILL"; kill -KILL "$pid"
  fi
  echo "node $i stopped"
}

case "$CMD" in
  start)
    if [ -f "$DIR/cluster.env" ]; then
      load_env
      [ -z "$NODES" ] || [ "$NODES" = "$CLUSTER_NODES" ] || {
        echo "cluster.sh: $DIR holds a $CLUSTER_NODES-node cluster; use another --dir or stop and remove it" >&2; exit 1; }
      NODES="$CLUSTER_NODES"
      for i in $(seq 1 "$NODES"); do
        # Clusters written before the Kafka listener existed get one (the rest of the file is kept).
        f="$(node_dir "$i")/node.properties"
        grep -q '^kafka.listener=' "$f" || echo "kafka.listener=127.0.0.1:$(kafka_port "$i")" >> "$f"
      done
      if [ -z "${CLUSTER_ID:-}" ]; then
        # Written before storage format: the configs name the cluster (cluster.id=local).
        CLUSTER_ID="$(sed -n 's/^cluster\.id=//p' "$(node_dir 1)/node.properties" | tail -n 1)"
        CLUSTER_ID="${CLUSTER_ID:-spool}"
        echo "CLUSTER_ID=$CLUSTER_ID" >> "$DIR/cluster.env"
      fi
    else
      [ -n "$NODES" ] || { echo "cluster.sh: start needs --nodes N" >&2; exit 2; }
      CLUSTER_ID="$("$SPOOL" storage random-uuid)"
      printf 'CLUSTER_NODES=%s\nCLUSTER_BASE_PORT=%s\nCLUSTER_ID=%s\n' "$NODES" "$BASE_PORT" "$CLUSTER_ID" > "$DIR/cluster.env"
      for i in $(seq 1 "$NODES"); do write_config "$i" "$NODES"; done
    fi
    format_nodes $(seq 1 "$NODES")
    for i in $(seq 1 "$NODES"); do start_node "$i"; done
    bootstrap "$NODES" > "$DIR/bootstrap"
    kafka_bootstrap "$NODES" > "$DIR/kafka-bootstrap"
    wait_ready "$NODES"
    echo "bootstrap: $(bootstrap "$NODES")"
    echo "Kafka bootstrap (Kafka's clients and tools): $(kafka_bootstrap "$NODES")"
    ;;
  stop)
    load_env
    for i in $(known_nodes); do stop_node "$i"; done
    ;;
  status)
    load_env
    for i in $(known_nodes); do
      pid="$(live_pid "$i")"
      echo "node $i: ${pid:+running (pid $pid)}${pid:-not running}  client 127.0.0.1:$(client_port "$i")  Kafka 127.0.0.1:$(kafka_port "$i")"
    done
    "$SPOOL" cluster status --bootstrap "$(bootstrap "$CLUSTER_NODES")" || true
    ;;
  kill)
    load_env
    [ -n "$NODE_ARG" ] || { echo "cluster.sh: kill needs a NODE_ID" >&2; exit 2; }
    pid="$(live_pid "$NODE_ARG")"
    [ -n "$pid" ] || { echo "node $NODE_ARG not running" >&2; exit 1; }
    case "$SIGNAL" in KILL|TERM|STOP|CONT) ;; *) echo "cluster.sh: --signal KILL|TERM|STOP|CONT" >&2; exit 2 ;; esac
    kill -"$SIGNAL" "$pid"
    echo "sent SIG$SIGNAL to node $NODE_ARG (pid $pid)"
    ;;
  restart)
    load_env
    [ -n "$NODE_ARG" ] || { echo "cluster.sh: restart needs a NODE_ID" >&2; exit 2; }
    stop_node "$NODE_ARG"
    start_node "$NODE_ARG"
    ;;
  *) echo "cluster.sh: unknown command '$CMD'" >&2; usage ;;
esac
