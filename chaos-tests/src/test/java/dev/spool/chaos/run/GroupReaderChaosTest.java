package dev.spool.chaos.run;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.chaos.checker.CheckResult;
import dev.spool.chaos.checker.GroupChecker;
import dev.spool.chaos.checker.GroupHistory;
import dev.spool.chaos.checker.GroupHistory.Acked;
import dev.spool.chaos.checker.GroupHistory.Assigned;
import dev.spool.chaos.checker.GroupHistory.CommitStarted;
import dev.spool.chaos.checker.GroupHistory.CommitUnknown;
import dev.spool.chaos.checker.GroupHistory.Committed;
import dev.spool.chaos.checker.GroupHistory.Lost;
import dev.spool.chaos.checker.GroupHistory.Polled;
import dev.spool.chaos.checker.GroupHistory.Revoked;
import dev.spool.chaos.checker.Validity;
import dev.spool.chaos.history.OffsetValue;
import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRebalanceListener;
import dev.spool.client.ConsumerRecord;
import dev.spool.client.NewTopic;
import dev.spool.client.OffsetAndMetadata;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.runtime.OffsetsTopic;
import dev.spool.testing.ClusterMode;
import dev.spool.testing.SpoolClusterTest;
import dev.spool.testing.process.ProcessCluster;
import dev.spool.testing.process.Signal;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The chaos scenario with a consumer group as the reader: a writer acknowledges records into a
 * 6-partition topic while three members of one group poll and commit after every poll, and the
 * nodes are SIGKILLed (the group's coordinator first) and paused (the coordinator again: a frozen
 * coordinator is cut off from everyone while its sockets stay open), and one member leaves while
 * another joins, so partitions are handed over at their commits. After healing, the members poll
 * until they caught up, and the four group checkers must find the history valid: every acknowledged
 * value consumed, no member skipping an offset it owns, no commit moving backwards, and every new
 * owner starting at or before the last commit.
 *
 * <p>Network partitions are not in this scenario: they need the chaos suite's network namespaces
 * (root), which the named scenarios (e.g. {@link NetworkPartitionsChaosTest}) use for the log
 * itself.
 */
@Tag("chaos")
@SpoolClusterTest(
    nodes = 3,
    mode = ClusterMode.PROCESS,
    config = {
      "offsets.topic.num.partitions=3",
      "group.consumer.session.timeout.ms=3000",
      "group.consumer.heartbeat.interval.ms=200"
    })
@Timeout(120)
class GroupReaderChaosTest {
  private static final Logger LOG = LoggerFactory.getLogger(GroupReaderChaosTest.class);
  private static final String TOPIC = "group-chaos";
  private static final String GROUP = "chaos-readers";
  private static final int PARTITIONS = 6;

  private final GroupHistory.Recorder recorder = new GroupHistory.Recorder();
  private final Set<Long> consumed = ConcurrentHashMap.newKeySet();
  private final Set<Long> acked = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean stop = new AtomicBoolean();

  @Test
  void aGroupReadsEveryAcknowledgedRecordThroughKillsAndPauses(ProcessCluster cluster)
      throws Exception {
    cluster
        .admin()
        .createTopic(new NewTopic(TOPIC, PARTITIONS, 3, Map.of()))
        .get(60, TimeUnit.SECONDS);
    cluster.awaitFullIsr(List.of(TOPIC), Duration.ofSeconds(60));
    List<Thread> threads = new ArrayList<>();
    threads.add(new Thread(() -> write(cluster.bootstrapServers()), "chaos-writer"));
    AtomicBoolean m0Leaves = new AtomicBoolean();
    for (int m = 0; m < 3; m++) {
      String member = "m" + m;
      AtomicBoolean leave = m == 0 ? m0Leaves : new AtomicBoolean();
      threads.add(
          new Thread(() -> read(cluster.bootstrapServers(), member, leave), "chaos-" + member));
    }
    threads.forEach(Thread::start);
    try {
      awaitProgress(200);
      int coordinator = coordinatorNode(cluster);
      LOG.info("SIGKILL the coordinator, node {}", coordinator);
      cluster.kill(coordinator, Signal.KILL);
      awaitProgress(200);
      cluster.start(coordinator);
      cluster.awaitReady(Duration.ofSeconds(60));
      // Membership changes hand partitions over at their commits: m0 leaves, m3 joins.
      leftAt = recorder.history().events().size();
      m0Leaves.set(true);
      Thread m3 =
          new Thread(() -> read(cluster.bootstrapServers(), "m3", new AtomicBoolean()), "chaos-m3");
      threads.add(m3);
      m3.start();

      int paused = coordinatorNode(cluster);
      LOG.info("SIGSTOP the coordinator, node {}, for longer than the session timeout", paused);
      cluster.kill(paused, Signal.STOP);
      awaitProgress(200, Duration.ofMillis(3500));
      cluster.kill(paused, Signal.CONT);

      int other = paused % 3 + 1;
      LOG.info("SIGKILL node {}", other);
      cluster.kill(other, Signal.KILL);
      awaitProgress(200);
      cluster.start(other);
      cluster.awaitReady(Duration.ofSeconds(60));
      awaitProgress(200);
    } finally {
      stop.set(true);
      threads.get(0).join();
    }
    // Healed and no more writes: the members catch up.
    Awaitility.await()
        .atMost(60, TimeUnit.SECONDS)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> consumed.containsAll(acked));
    readersDone.set(true);
    for (Thread t : threads) {
      t.join();
    }

    GroupHistory h = recorder.history();
    Map<String, CheckResult> results = GroupChecker.checkAll(GroupChecker.all(), h);
    results.forEach((name, r) -> LOG.info("{}: {} ({})", name, r.valid(), r.note()));
    String bad =
        results.values().stream()
            .filter(r -> r.valid() != Validity.TRUE)
            .map(CheckResult::toString)
            .collect(Collectors.joining("\n"));
    assertTrue(bad.isEmpty(), bad);
    // The membership change the test made really handed partitions over (the first three
    // members' assignments alone would not show that).
    List<GroupHistory.Event> afterLeave = h.events().subList(leftAt, h.events().size());
    assertTrue(
        afterLeave.stream()
            .anyMatch(
                e ->
                    e instanceof Assigned a
                        && a.member().equals("m3")
                        && !a.partitions().isEmpty()),
        "m3 was given partitions when it joined");
  }

  private final AtomicBoolean readersDone = new AtomicBoolean();
  private volatile int leftAt;
  private final AtomicLong ackCount = new AtomicLong();

  /** Waits until {@code n} more writes were acknowledged (the cluster serves writes again). */
  private void awaitProgress(int n) {
    awaitProgress(n, Duration.ZERO);
  }

  /** Also lets at least {@code atLeast} pass: a fault's window, whatever the writes do. */
  private void awaitProgress(int n, Duration atLeast) {
    long target = ackCount.get() + n;
    Awaitility.await()
        .pollDelay(atLeast)
        .atMost(60, TimeUnit.SECONDS)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> ackCount.get() >= target);
  }

  private static int coordinatorNode(ProcessCluster cluster) {
    return cluster
        .partitionLeader(new TopicPartition(OffsetsTopic.NAME, OffsetsTopic.partitionFor(GROUP, 3)))
        .orElseThrow();
  }

  private void write(String bootstrap) {
    try (Producer p =
        new Producer(
            Map.of(
                "bootstrap.servers",
                bootstrap,
                "linger.ms",
                "1",
                "request.timeout.ms",
                "5000",
                "delivery.timeout.ms",
                "30000"))) {
      long value = 0;
      while (!stop.get()) {
        long v = value++;
        int partition = (int) (v % PARTITIONS);
        p.send(
                new ProducerRecord(
                    TOPIC,
                    partition,
                    null,
                    ByteBuffer.allocate(8).putLong(v).array(),
                    List.of(),
                    null))
            .whenComplete(
                (md, e) -> {
                  if (e == null) {
                    recorder.add(new Acked(new TopicPartition(TOPIC, partition), md.offset(), v));
                    acked.add(v);
                    ackCount.incrementAndGet();
                  }
                });
        Thread.sleep(2);
      }
      p.flush();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void read(String bootstrap, String member, AtomicBoolean leave) {
    Map<String, String> props = new HashMap<>();
    props.put("bootstrap.servers", bootstrap);
    props.put("group.id", GROUP);
    props.put("client.id", member);
    props.put("enable.auto.commit", "false");
    props.put("auto.offset.reset", "earliest");
    props.put("fetch.max.wait.ms", "100");
    props.put("default.api.timeout.ms", "10000");
    try (Consumer c = new Consumer(props)) {
      c.subscribe(List.of(TOPIC), listener(member));
      while (!readersDone.get() && !leave.get()) {
        Map<TopicPartition, List<OffsetValue>> polled = new HashMap<>();
        try {
          for (ConsumerRecord r : c.poll(Duration.ofMillis(100))) {
            long v = ByteBuffer.wrap(r.value()).getLong();
            polled
                .computeIfAbsent(r.topicPartition(), k -> new ArrayList<>())
                .add(new OffsetValue(r.offset(), v));
          }
        } catch (SpoolException e) {
          LOG.info("{} poll: {}", member, e.toString());
          continue;
        }
        polled.forEach(
            (tp, records) -> {
              recorder.add(new Polled(member, tp, records));
              records.forEach(r -> consumed.add(r.value()));
            });
        Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
        polled.forEach(
            (tp, records) ->
                positions.put(
                    tp, new OffsetAndMetadata(records.get(records.size() - 1).offset() + 1)));
        if (positions.isEmpty()) {
          continue;
        }
        positions.forEach((tp, o) -> recorder.add(new CommitStarted(member, tp, o.offset())));
        try {
          c.commitSync(positions);
          positions.forEach((tp, o) -> recorder.add(new Committed(member, tp, o.offset())));
        } catch (SpoolException e) {
          // No failure says the commit was not applied: the client retries retriable errors
          // inside commitSync, so even a fencing error may answer a retry whose first attempt the
          // old coordinator wrote before it froze.
          positions.forEach((tp, o) -> recorder.add(new CommitUnknown(member, tp, o.offset())));
          LOG.info("{} commit: {}", member, e.toString());
        }
      }
    }
  }

  private ConsumerRebalanceListener listener(String member) {
    return new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        recorder.add(new Revoked(member, Set.copyOf(partitions)));
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        recorder.add(new Assigned(member, Set.copyOf(partitions)));
      }

      @Override
      public void onPartitionsLost(Collection<TopicPartition> partitions) {
        recorder.add(new Lost(member, Set.copyOf(partitions)));
      }
    };
  }
}
