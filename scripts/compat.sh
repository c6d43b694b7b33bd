#!/usr/bin/env bash
# Clients no one here wrote, against a local Spool cluster's Kafka listeners (not in the test
# command: it installs and fetches the tools).
#
#   scripts/compat.sh [--dir DIR] [--base-port P] [--keep]
#
# Installs, once (idempotently), Debian's kcat, python3-confluent-kafka (librdkafka) and
# python3-kafka (kafka-python), Kafka's 4.4 jars through the peer harness (KAFKA_HARNESS,
# default ../shared/peers/kafka beside the repository) and the kafka-streams jar through Maven
# (the harness does not fetch it; java compiles the word count from source). Starts a 3-node cluster with
# scripts/cluster.sh in DIR (default ./.spool-compat, removed first; stopped at the end unless
# --keep), then runs each step and prints "pass" or "FAIL" with its name. A step that needs
# consumer groups prints "skip" while the listener does not advertise FindCoordinator, one that
# needs classic groups while it does not advertise JoinGroup.
# Hold the machine lock: flock /tmp/spool-heavy.lock scripts/compat.sh. Build nothing while it runs:
# the nodes load their classes from data-plane/target, and a new jar there fails them mid-run.
# Exit status: 0 every step that ran passed, 1 a step failed, 3 setup failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HARNESS="${KAFKA_HARNESS:-$ROOT/../shared/peers/kafka}"
DIR="./.spool-compat"; BASE_PORT=19292; KEEP=""
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) DIR="$2"; shift 2 ;;
    --base-port) BASE_PORT="$2"; shift 2 ;;
    --keep) KEEP=1; shift ;;
    -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "compat.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

# ---------------------------------------------------------------- tools
need=()
for p in kcat python3-confluent-kafka python3-kafka; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "compat: installing ${need[*]}"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}") >/dev/null \
    || { echo "compat: apt-get install ${need[*]} failed" >&2; exit 3; }
fi
[ -f "$HARNESS/env.sh" ] || { echo "compat: no Kafka peer harness at $HARNESS (set KAFKA_HARNESS)" >&2; exit 3; }
# shellcheck disable=SC1091
. "$HARNESS/env.sh"
ensure_jars
KCP="$KA_LIB/*"
LOG4J="-Dlog4j2.configurationFile=$HARNESS/config/log4j2-tools.properties"
kafka_tool() { "$JAVA" -Xmx512m "$LOG4J" -cp "$KCP" "$@"; }

# Debian's python3, where apt-get put the two libraries (a python3 earlier on PATH, e.g. pyenv's,
# does not see them).
PY=/usr/bin/python3

# ---------------------------------------------------------------- cluster
CLUSTER="$ROOT/scripts/cluster.sh"
"$CLUSTER" stop --dir "$DIR" >/dev/null 2>&1 || true
rm -rf "$DIR"
"$CLUSTER" start --nodes 3 --dir "$DIR" --base-port "$BASE_PORT" >/dev/null || { echo "compat: cluster did not start" >&2; "$CLUSTER" stop --dir "$DIR"; exit 3; }
DIR="$(cd "$DIR" && pwd)"
[ -n "$KEEP" ] || trap '"$CLUSTER" stop --dir "$DIR" >/dev/null' EXIT
BS="$(cat "$DIR/kafka-bootstrap")"
WORK="$DIR/compat"; mkdir -p "$WORK"
echo "compat: cluster in $DIR, Kafka bootstrap $BS, step output in $WORK"

FAILED=0; PASSED=0; SKIPPED=0
# step NAME COMMAND...: runs COMMAND with output to $WORK/NAME.log; pass when it exits 0.
step() {
  local name="$1"; shift
  if ( "$@" ) > "$WORK/$name.log" 2>&1; then
    echo "pass  $name"; PASSED=$((PASSED + 1))
  else
    echo "FAIL  $name (log: $WORK/$name.log)"; tail -n 5 "$WORK/$name.log" | sed 's/^/      /'; FAILED=$((FAILED + 1))
  fi
}
skip() { echo "skip  $1 ($2)"; SKIPPED=$((SKIPPED + 1)); }
# expect_lines FILE N: FILE has at least N lines.
expect_lines() { [ "$(wc -l < "$1")" -ge "$2" ] || { echo "expected $2 lines in $1, got $(wc -l < "$1")"; return 1; }; }

GROUPS_ON=""; CLASSIC_ON=""
kafka_tool org.apache.kafka.tools.BrokerApiVersionsCommand --bootstrap-server "$BS" > "$WORK/api-versions.txt" 2>&1 || true
grep -q "FindCoordinator(10): [0-9]" "$WORK/api-versions.txt" && GROUPS_ON=1
grep -q "JoinGroup(11): [0-9]" "$WORK/api-versions.txt" && CLASSIC_ON=1

# ---------------------------------------------------------------- Kafka's CLI tools (4.4 jars)
step kafka-broker-api-versions grep -q "Produce(0): 0 to 13" "$WORK/api-versions.txt"
# Spool creates no topic on first use (auto.create.topics.enable is off): every step's topic first.
create_topics() {
  local t
  for t in compat:3 perf:3 kcat:1 kafkapython:1; do
    kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BS" \
      --create --topic "${t%:*}" --partitions "${t#*:}" --replication-factor 3 || return 1
  done
}
step kafka-topics-create create_topics
topics_list() { kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BS" --list | grep -qx compat; }
step kafka-topics-list topics_list
topics_describe() { kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BS" --describe --topic compat | grep -c "Leader:" | grep -qx 3; }
step kafka-topics-describe topics_describe
step kafka-configs-alter kafka_tool org.apache.kafka.tools.ConfigCommand --bootstrap-server "$BS" \
  --entity-type topics --entity-name compat --alter --add-config retention.ms=86400000
configs_describe() { kafka_tool org.apache.kafka.tools.ConfigCommand --bootstrap-server "$BS" --entity-type topics --entity-name compat --describe | grep -q retention.ms=86400000; }
step kafka-configs-describe configs_describe
seq 1 100 | sed 's/^/console-/' > "$WORK/console-in.txt"
console_produce() { kafka_tool org.apache.kafka.tools.ConsoleProducer --bootstrap-server "$BS" --topic compat < "$WORK/console-in.txt"; }
step kafka-console-producer console_produce
console_consume() {
  for p in 0 1 2; do
    kafka_tool org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$BS" --topic compat \
      --partition "$p" --offset earliest --timeout-ms 10000 2>/dev/null
  done | sort > "$WORK/console-out.txt"
  sort "$WORK/console-in.txt" | diff - "$WORK/console-out.txt"
}
step kafka-console-consumer-assign console_consume
get_offsets() { kafka_tool org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$BS" --topic compat | awk -F: '{s+=$3} END {exit s==100?0:1}'; }
step kafka-get-offsets get_offsets
step kafka-producer-perf-test kafka_tool org.apache.kafka.tools.ProducerPerformance --topic perf \
  --num-records 200000 --record-size 100 --throughput -1 --producer-props bootstrap.servers="$BS" acks=all
# KIP-848 groups (group.protocol=consumer) are served; the classic protocol (JoinGroup), kafka-clients'
# default and the only one of librdkafka and kafka-python, is checked by the steps gated on CLASSIC_ON.
if [ -n "$GROUPS_ON" ]; then
  printf 'group.protocol=consumer\n' > "$WORK/kip848.properties"
  step kafka-consumer-perf-test kafka_tool org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$BS" \
    --topic perf --num-records 200000 --timeout 60000 --command-config "$WORK/kip848.properties"
  console_group() { kafka_tool org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$BS" --topic compat --group compat-cli --from-beginning --max-messages 100 --timeout-ms 30000 --command-property group.protocol=consumer | wc -l | grep -qx 100; }
  step kafka-console-consumer-group console_group
  groups_tool() { kafka_tool org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$BS" "$@"; }
  groups_list() { groups_tool --list | grep -qx compat-cli; }
  step kafka-consumer-groups-list groups_list
  # --describe: one line per partition of compat with CURRENT-OFFSET = LOG-END-OFFSET (all 100 read).
  groups_describe() { groups_tool --describe --group compat-cli | awk '$2=="compat" {n++; s+=$4; if ($4!=$5) bad=1} END {exit (n==3 && s==100 && !bad)?0:1}'; }
  step kafka-consumer-groups-describe groups_describe
  groups_reset() {
    groups_tool --reset-offsets --group compat-cli --topic compat --to-earliest --execute || return 1
    groups_tool --describe --group compat-cli | awk '$2=="compat" {n++; s+=$4} END {exit (n==3 && s==0)?0:1}'
  }
  step kafka-consumer-groups-reset-offsets groups_reset
else
  for s in kafka-consumer-perf-test kafka-console-consumer-group kafka-consumer-groups-list kafka-consumer-groups-describe kafka-consumer-groups-reset-offsets; do skip "$s" "no consumer groups on this listener yet"; done
fi
if [ -n "$CLASSIC_ON" ]; then
  console_classic() { kafka_tool org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$BS" --topic compat --group compat-classic --from-beginning --max-messages 100 --timeout-ms 30000 | wc -l | grep -qx 100; }
  step kafka-console-consumer-classic-group console_classic
else
  skip kafka-console-consumer-classic-group "no classic groups (JoinGroup) on this listener yet"
fi

# ---------------------------------------------------------------- librdkafka: kcat
step kcat-metadata sh -c "kcat -b '$BS' -L -t compat | grep -q 'partition 2, leader'"
step kcat-produce sh -c "seq 1 50 | sed 's/^/kcat-/' | kcat -b '$BS' -P -t kcat -p 0 -X topic.request.required.acks=all"
step kcat-consume sh -c "kcat -b '$BS' -C -t kcat -p 0 -o beginning -e -q | grep -c '^kcat-' | grep -qx 50"
if [ -n "$CLASSIC_ON" ]; then
  step kcat-group sh -c "timeout 60 kcat -b '$BS' -G compat-kcat kcat -o beginning -e -q | grep -c '^kcat-' | grep -qx 50"
else
  skip kcat-group "no classic groups (JoinGroup) on this listener yet"
fi

# ---------------------------------------------------------------- librdkafka: python3-confluent-kafka
cat > "$WORK/confluent.py" <<'PY'
import sys
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
bs, step = sys.argv[1], sys.argv[2]
def drain(c, n):
    """The distinct values read within about a minute, stopping at n."""
    got = set()
    for _ in range(60):
        for m in c.consume(100, 1.0):
            assert m.error() is None, m.error()
            got.add(m.value())
        if len(got) == n:
            break
    return got
if step == "admin":
    a = AdminClient({"bootstrap.servers": bs})
    for f in a.create_topics([NewTopic("confluent", 2, 3)]).values():
        f.result(30)
    md = a.list_topics(timeout=30)
    assert len(md.topics["confluent"].partitions) == 2, md.topics
elif step == "produce":
    p = Producer({"bootstrap.servers": bs, "enable.idempotence": True, "acks": "all"})
    errors = []
    for i in range(200):
        p.produce("confluent", value=b"ck-%d" % i, partition=i % 2,
                  on_delivery=lambda e, m: errors.append(e) if e else None)
    assert p.flush(30) == 0, "undelivered"
    assert not errors, errors
elif step == "consume":
    c = Consumer({"bootstrap.servers": bs, "group.id": "unused", "enable.auto.commit": False})
    c.assign([TopicPartition("confluent", 0, 0), TopicPartition("confluent", 1, 0)])
    got = drain(c, 200)
    c.close()
    assert got == {b"ck-%d" % i for i in range(200)}, len(got)
elif step == "group":
    c = Consumer({"bootstrap.servers": bs, "group.id": "compat-confluent",
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe(["confluent"])
    got = drain(c, 200)
    assert len(got) == 200, len(got)
    c.commit(asynchronous=False)
    done = c.committed([TopicPartition("confluent", 0), TopicPartition("confluent", 1)], timeout=30)
    c.close()
    assert sum(tp.offset for tp in done) == 200, done
PY
for s in admin produce consume; do step "confluent-kafka-$s" "$PY" "$WORK/confluent.py" "$BS" "$s"; done
if [ -n "$CLASSIC_ON" ]; then
  step confluent-kafka-group "$PY" "$WORK/confluent.py" "$BS" group
else
  skip confluent-kafka-group "no classic groups (JoinGroup) on this listener yet"
fi

# ---------------------------------------------------------------- kafka-python (python3-kafka)
cat > "$WORK/kafkapython.py" <<'PY'
import sys
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
bs, step = sys.argv[1].split(","), sys.argv[2]
if step == "produce":
    p = KafkaProducer(bootstrap_servers=bs, acks="all")
    for i in range(100):
        p.send("kafkapython", value=b"kp-%d" % i, partition=0).get(timeout=30)
    p.close()
elif step == "consume":
    c = KafkaConsumer(bootstrap_servers=bs, enable_auto_commit=False, consumer_timeout_ms=10000)
    tp = TopicPartition("kafkapython", 0)
    c.assign([tp])
    c.seek_to_beginning(tp)
    got = [m.value for m in c]
    assert got == [b"kp-%d" % i for i in range(100)], got[:5]
elif step == "group":
    c = KafkaConsumer("kafkapython", bootstrap_servers=bs, group_id="compat-kafkapython",
                      auto_offset_reset="earliest", enable_auto_commit=False, consumer_timeout_ms=10000)
    got = [m.value for m in c]
    assert sorted(got) == sorted(b"kp-%d" % i for i in range(100)), len(got)
    c.commit()
    done = c.committed(TopicPartition("kafkapython", 0))
    c.close()
    assert getattr(done, "offset", done) == 100, done
PY
for s in produce consume; do step "kafka-python-$s" "$PY" "$WORK/kafkapython.py" "$BS" "$s"; done
if [ -n "$CLASSIC_ON" ]; then
  step kafka-python-group "$PY" "$WORK/kafkapython.py" "$BS" group
else
  skip kafka-python-group "no classic groups (JoinGroup) on this listener yet"
fi

# ---------------------------------------------------------------- Kafka Streams
# A word count (at-least-once, in-memory store) compiled from source by `java` itself: Streams creates
# its repartition and compacted changelog topics through CreateTopics and assigns its tasks through
# a classic group. The kafka-streams jar (not in the peer harness's set) comes through Maven.
cat > "$WORK/WordCount.java" <<'JAVA'
import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.*;
import org.apache.kafka.streams.*;
import org.apache.kafka.streams.kstream.*;
import org.apache.kafka.streams.state.Stores;

public class WordCount {
  public static void main(String[] args) throws Exception {
    String bs = args[0];
    String[] words = {"log", "quorum", "segment", "replica", "leader", "offset", "batch"};
    List<String> lines = new ArrayList<>();
    Map<String, Long> expected = new HashMap<>();
    for (int i = 0; i < 300; i++) {
      StringBuilder line = new StringBuilder();
      for (int j = 0; j <= i % 4; j++) {
        String w = words[(i * 5 + j * 3) % words.length];
        line.append(j == 0 ? "" : " ").append(w);
        expected.merge(w, 1L, Long::sum);
      }
      lines.add(line.toString());
    }
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "compat-wordcount");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bs);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
    p.put(StreamsConfig.STATE_DIR_CONFIG, args[1]);
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
    p.put("consumer.auto.offset.reset", "earliest");
    StreamsBuilder b = new StreamsBuilder();
    b.stream("wc-lines", Consumed.with(Serdes.String(), Serdes.String()))
        .flatMapValues(v -> List.of(v.split(" ")))
        .groupBy((k, w) -> w, Grouped.with(Serdes.String(), Serdes.String()))
        .count(Materialized.as(Stores.inMemoryKeyValueStore("counts")))
        .toStream().to("wc-counts", Produced.with(Serdes.String(), Serdes.Long()));
    Map<String, Long> latest = new HashMap<>();
    try (KafkaStreams streams = new KafkaStreams(b.build(), p)) {
      streams.start();
      Properties pp = new Properties();
      pp.put("bootstrap.servers", bs);
      try (var prod = new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer())) {
        for (int i = 0; i < lines.size(); i++) {
          prod.send(new ProducerRecord<>("wc-lines", "line-" + i, lines.get(i))).get();
        }
      }
      Properties cp = new Properties();
      cp.put("bootstrap.servers", bs);
      try (var c = new KafkaConsumer<>(cp, new StringDeserializer(), new LongDeserializer())) {
        c.assign(List.of(new TopicPartition("wc-counts", 0), new TopicPartition("wc-counts", 1), new TopicPartition("wc-counts", 2)));
        c.seekToBeginning(c.assignment());
        long deadline = System.nanoTime() + 90_000_000_000L;
        while (!latest.equals(expected) && System.nanoTime() < deadline) {
          c.poll(Duration.ofMillis(300)).forEach(r -> latest.put(r.key(), r.value()));
        }
        c.poll(Duration.ofSeconds(1)).forEach(r -> latest.put(r.key(), r.value()));
      }
    }
    System.out.println("expected " + new TreeMap<>(expected) + "\ncounted  " + new TreeMap<>(latest));
    System.exit(latest.equals(expected) ? 0 : 1);
  }
}
JAVA
streams_wordcount() {
  local jars="$WORK/streams-jars"
  (cd "$ROOT" && ./mvnw -q -B -N dependency:copy -Dartifact="org.apache.kafka:kafka-streams:$KAFKA_VERSION" -DoutputDirectory="$jars") || return 1
  for t in wc-lines wc-counts; do
    kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BS" --create --topic "$t" --partitions 3 --replication-factor 3 || return 1
  done
  "$JAVA" -Xmx512m "$LOG4J" -cp "$KCP:$jars/*" "$WORK/WordCount.java" "$BS" "$WORK/streams-state" || return 1
  # The changelog is compacted, the repartition topic is not.
  kafka_tool org.apache.kafka.tools.ConfigCommand --bootstrap-server "$BS" --entity-type topics \
    --entity-name compat-wordcount-counts-changelog --describe --all | grep -q "cleanup.policy=compact" || return 1
  kafka_tool org.apache.kafka.tools.ConfigCommand --bootstrap-server "$BS" --entity-type topics \
    --entity-name compat-wordcount-counts-repartition --describe --all | grep -q "cleanup.policy=delete"
}
if [ -n "$CLASSIC_ON" ]; then
  step kafka-streams-wordcount streams_wordcount
else
  skip kafka-streams-wordcount "Kafka Streams needs classic groups (JoinGroup)"
fi

echo "compat: $PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
