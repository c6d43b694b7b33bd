#!/usr/bin/env bash
# Spool in one command: build what is missing, start a local 3-node cluster, create a topic,
# produce and consume a few records, show the cluster, and say how to go on. Safe to run again:
# a running cluster is reused and the demo topic is kept.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DIR="${SPOOL_CLUSTER_DIR:-$ROOT/.spool-cluster}"
SPOOL="$ROOT/scripts/spool"
TOPIC=quickstart

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "Building Spool (skipped when already built)"
if ! ls data-plane/target/spool-data-plane-*.jar >/dev/null 2>&1 || [ ! -d data-plane/target/lib ]; then
  ./mvnw -B -q -DskipTests package
  echo "built."
else
  echo "already built (rebuild with: ./mvnw -B -q -DskipTests package)."
fi

step "Starting a local 3-node cluster in $DIR"
scripts/cluster.sh start --nodes 3 --dir "$DIR"
BOOTSTRAP="$(cat "$DIR/bootstrap")"
KAFKA_BOOTSTRAP="$(cat "$DIR/kafka-bootstrap")"
export SPOOL_BOOTSTRAP="$BOOTSTRAP"

step "Creating topic '$TOPIC' (3 partitions, replication factor 3)"
if "$SPOOL" topic describe "$TOPIC" >/dev/null 2>&1; then
  echo "topic '$TOPIC' exists already."
else
  "$SPOOL" topic create "$TOPIC" --partitions 3 --replication-factor 3
fi
"$SPOOL" topic describe "$TOPIC"

step "Producing 5 records (key:value), acks=all"
RUN="$(date +%H:%M:%S)"
printf 'alice:hello at %s\nbob:replicated log\ncarol:three copies\ndave:no zookeeper\nerin:bye\n' "$RUN" \
  | "$SPOOL" produce "$TOPIC" --key-separator : --output json

step "Consuming everything in '$TOPIC' from the beginning"
"$SPOOL" consume "$TOPIC" --from-beginning --timeout-ms 3000 --print-key

step "Cluster status"
"$SPOOL" cluster status

cat <<MSG

Spool is running: bootstrap $BOOTSTRAP (export SPOOL_BOOTSTRAP=$BOOTSTRAP, or run
commands from $ROOT, where the CLI finds the cluster by itself).
Kafka's clients and tools: bootstrap.servers=$KAFKA_BOOTSTRAP (Spool's Kafka-protocol listener;
e.g. kafka-console-consumer.sh --bootstrap-server $KAFKA_BOOTSTRAP --topic $TOPIC --group demo
--from-beginning; consumer groups, classic and KIP-848, are served on it).

Go on:
  scripts/spool --help                       # every command, each with --help
  scripts/spool produce $TOPIC                 # type lines, Ctrl-D to end
  scripts/spool consume $TOPIC --from-beginning
  scripts/spool perf produce --topic $TOPIC --num-records 100000 --record-size 100
  scripts/cluster.sh status  --dir "$DIR"
  scripts/cluster.sh kill 1  --dir "$DIR"    # SIGKILL node 1 ...
  scripts/cluster.sh restart 1 --dir "$DIR"  # ... and bring it back

Stop the cluster (its data stays in $DIR; delete that for a fresh start):
  scripts/cluster.sh stop --dir "$DIR"
MSG
