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
import dev.spool.chaos.nemesis.Plane;
import dev.spool.chaos.net.Capabilities;
import dev.spool.chaos.net.CommandRunner;
import dev.spool.chaos.net.FaultNetwork;
import dev.spool.chaos.net.NetNamespaces;
import dev.spool.chaos.net.ProxyGroup;
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
import dev.spool.testing.process.ProcessCluster;
import dev.spool.testing.process.Signal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * group's coordinator is SIGKILLed, paused (a frozen coordinator is cut off from everyone while its
 * sockets stay open), isolated from the other brokers (network namespaces: it still answers the
 * members but can neither replicate their commits nor hear from the controller, so another broker
 * takes its offsets partition over while it still thinks it leads; once its leadership lease lapses
 * it answers NOT_COORDINATOR and the members find the new one) and cut off from the members (its
 * client links black-holed for longer than the session timeout, so the members are fenced and
 * rejoin); and one member leaves while another joins, so partitions are handed over at their
 * commits. After healing, the members poll until they caught up, and the four group checkers must
 * find the history valid: every acknowledged value consumed, no member skipping an offset it owns,
 * no commit moving backwards, and every new owner starting at or before the last commit.
 *
 * <p>The nodes run in network namespaces when the run is root; otherwise the isolation is replaced
 * by a SIGKILL of another node and the test says so. Every broker sits behind a fault proxy (the
 * client-link faults of {@link ClientLinkFaultsChaosTest}), which brokers use between each other
 * too: black-holing the coordinator's proxy also stops the writer's sends to the partitions it
 * leads and its followers' fetches from it, while its quorum traffic goes on. About a minute on 2
 * cores.
 */
@Tag("chaos")
@Timeout(180)
class GroupReaderChaosTest {
  private static final Logger LOG = LoggerFactory.getLogger(GroupReaderChaosTest.class);
  private static final String TOPIC = "group-chaos";
  private static final String GROUP = "chaos-readers";
  private static final int PARTITIONS = 6;

  private final GroupHistory.Recorder recorder = new GroupHistory.Recorder();
  private final Set<Long> consumed = ConcurrentHashMap.newKeySet();
  private final Set<Long> acked = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean stop = new AtomicBoolean();
  // What each member owns now, by its rebalance listener.
  private final Map<String, Set<TopicPartition>> owned = new ConcurrentHashMap<>();

  /** Longer than the group's session timeout (3 s): the cut-off members are fenced. */
  private static final Duration CUT_WINDOW = Duration.ofSeconds(4);

  @Test
  void aGroupReadsEveryAcknowledgedRecordThroughKillsPausesAndPartitions() throws Exception {
    boolean namespaces = Capabilities.detect(new CommandRunner()).canPartition();
    if (!namespaces) {
      System.out.println("!!! no network namespaces: the coordinator isolation is a SIGKILL");
    }
    Path dir = Path.of("target", "chaos", "group-" + System.currentTimeMillis()).toAbsolutePath();
    FaultNetwork network = new FaultNetwork(namespaces, true);
    try (ProcessCluster cluster =
        ProcessCluster.builder()
            .nodes(3)
            .dir(dir)
            .network(network)
            .clusterId("chaos-group")
            .config("offsets.topic.num.partitions", "3")
            .config("group.consumer.session.timeout.ms", "3000")
            .config("group.consumer.heartbeat.interval.ms", "200")
            .start()) {
      readThroughFaults(cluster, network);
    }
  }

  private void readThroughFaults(ProcessCluster cluster, FaultNetwork network) throws Exception {
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

      isolateCoordinator(cluster, network.namespaces());
      awaitGroupServing("the coordinator isolation");
      cutMembersFromCoordinator(cluster, network.clientLinks().orElseThrow());
      awaitGroupServing("the members' cut from the coordinator");
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

  /**
   * Cuts the coordinator from the other brokers on both planes, both ways, for {@link #CUT_WINDOW};
   * the members and the writer still reach it. Without namespaces another node is SIGKILLed and
   * restarted instead, so the scenario still moves partition leaders.
   */
  private void isolateCoordinator(ProcessCluster cluster, Optional<NetNamespaces> net)
      throws Exception {
    int isolated = coordinatorNode(cluster);
    if (net.isEmpty()) {
      int other = isolated % 3 + 1;
      LOG.info("SIGKILL node {} (no namespaces to isolate coordinator {})", other, isolated);
      cluster.kill(other, Signal.KILL);
      awaitProgress(200);
      cluster.start(other);
      cluster.awaitReady(Duration.ofSeconds(60));
      return;
    }
    LOG.info("isolate the coordinator, node {}, from the other brokers", isolated);
    for (int other : cluster.nodes()) {
      if (other != isolated) {
        for (Plane plane : Plane.values()) {
          net.get().drop(isolated, other, plane);
          net.get().drop(other, isolated, plane);
        }
      }
    }
    // The window is the fault's length whatever the writes do: they may all stop for a moment.
    awaitProgress(0, CUT_WINDOW);
    net.get().healAll();
    LOG.info("healed the isolation of node {}", isolated);
    cluster.awaitFullIsr(List.of(TOPIC), Duration.ofSeconds(60));
  }

  /**
   * Black-holes every client link to the coordinator for {@link #CUT_WINDOW}: heartbeats and
   * commits go unanswered until the coordinator fences the members, which then rejoin.
   */
  private void cutMembersFromCoordinator(ProcessCluster cluster, ProxyGroup links) {
    int cut = coordinatorNode(cluster);
    LOG.info("black-hole the client links of the coordinator, node {}", cut);
    links.proxy(cut).setBlackHole(true);
    try {
      // A fixed window: when the coordinator leads every partition of the topic by now (after
      // the faults before), no write is acknowledged until the links heal, as its followers
      // fetch through the same proxy and it keeps its leadership (its quorum traffic goes on).
      awaitProgress(0, CUT_WINDOW);
    } finally {
      links.proxy(cut).setBlackHole(false);
      LOG.info("healed the client links of node {}", cut);
    }
  }

  /**
   * After a fault healed: waits until the group owns every partition again and has consumed every
   * value acknowledged before now (the group was reassigned and reads again).
   */
  private void awaitGroupServing(String after) {
    Set<Long> before = Set.copyOf(acked);
    long start = System.nanoTime();
    Awaitility.await("the group reading again after " + after)
        .atMost(60, TimeUnit.SECONDS)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () ->
                // Distinct: a fenced member that has not heard of it yet still lists partitions
                // their new owner holds too.
                owned.values().stream().flatMap(Set::stream).distinct().count() >= PARTITIONS
                    && consumed.containsAll(before));
    LOG.info(
        "the group owns every partition and caught up {} ms after {}",
        (System.nanoTime() - start) / 1_000_000,
        after);
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
        owned.computeIfAbsent(member, m -> ConcurrentHashMap.newKeySet()).removeAll(partitions);
      }

      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        recorder.add(new Assigned(member, Set.copyOf(partitions)));
        owned.computeIfAbsent(member, m -> ConcurrentHashMap.newKeySet()).addAll(partitions);
      }

      @Override
      public void onPartitionsLost(Collection<TopicPartition> partitions) {
        recorder.add(new Lost(member, Set.copyOf(partitions)));
        owned.computeIfAbsent(member, m -> ConcurrentHashMap.newKeySet()).removeAll(partitions);
      }
    };
  }
}
