package dev.spool.chaos.run;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.chaos.checker.Anomaly;
import dev.spool.chaos.checker.CompactedKeys;
import dev.spool.chaos.checker.CompactedKeys.Outcome;
import dev.spool.chaos.history.OpType;
import dev.spool.chaos.history.SendErrors;
import dev.spool.chaos.nemesis.Plane;
import dev.spool.chaos.net.Capabilities;
import dev.spool.chaos.net.CommandRunner;
import dev.spool.chaos.net.FaultNetwork;
import dev.spool.chaos.net.NetNamespaces;
import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRecord;
import dev.spool.client.NewTopic;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.client.ReplicaLog;
import dev.spool.common.TopicPartition;
import dev.spool.testing.process.ProcessCluster;
import dev.spool.testing.process.Signal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A compacted topic under kills and partitions: keyed writes with 4 KiB segments, so the cleaner of
 * every replica really runs while leaders die and move; then every key's last acknowledged value
 * (or a later write of that key whose outcome is unknown) is what a final read returns, and no key
 * reads an older value after a newer one ({@link CompactedKeys}). Faults: SIGKILL of a partition
 * leader, the other partition's leader cut off from its followers on the data plane (network
 * namespaces, as root; without root it is SIGSTOPped instead, and the test says so) for 4 s while
 * the killed node restarts and catches up. About 40 s on 2 cores, most of it starting and stopping
 * the nodes.
 */
@Tag("chaos")
class CompactedTopicChaosTest {
  private static final Logger LOG = LoggerFactory.getLogger(CompactedTopicChaosTest.class);
  private static final String TOPIC = "compacted";
  private static final int WRITERS = 3;
  private static final int KEYS_PER_WRITER = 8;
  private static final List<TopicPartition> TPS =
      List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));
  private static final String PAD = "x".repeat(80);

  private final List<CompactedKeys.Write> writes = new CopyOnWriteArrayList<>();
  private final AtomicInteger acked = new AtomicInteger();
  private final AtomicBoolean stop = new AtomicBoolean();

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void everyKeyEndsWithItsLastAcknowledgedValueUnderKillsAndPartitions() throws Exception {
    boolean namespaces = Capabilities.detect(new CommandRunner()).canPartition();
    if (!namespaces) {
      System.out.println("!!! no network namespaces: the partition is a SIGSTOP of the leader");
    }
    Path dir =
        Path.of("target", "chaos", "compacted-" + System.currentTimeMillis()).toAbsolutePath();
    FaultNetwork network = new FaultNetwork(namespaces, false);
    try (ProcessCluster cluster =
        ProcessCluster.builder()
            .nodes(3)
            .dir(dir)
            .network(network)
            .clusterId("chaos-compacted")
            .config("log.cleaner.backoff.ms", "100")
            .start()) {
      cluster
          .admin()
          .createTopic(
              new NewTopic(
                  TOPIC,
                  TPS.size(),
                  3,
                  Map.of(
                      "cleanup.policy", "compact",
                      "segment.bytes", "4096",
                      "min.cleanable.dirty.ratio", "0.01")))
          .get(60, TimeUnit.SECONDS);
      cluster.awaitFullIsr(List.of(TOPIC), Duration.ofSeconds(60));

      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int id = w;
        Thread t = new Thread(() -> write(cluster.bootstrapServers(), id), "keyed-writer-" + w);
        t.start();
        writers.add(t);
      }
      awaitAcks(30);

      int killed = leader(cluster, TPS.get(0));
      LOG.info("fault: SIGKILL n{}, leader of {}", killed, TPS.get(0));
      cluster.kill(killed, Signal.KILL);
      await() // a new leader took over the killed one's partition
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> cluster.newestView(TPS.get(0)).map(p -> p.getLeaderId()).orElse(-1),
              leader -> leader >= 0 && leader != killed);
      awaitAcks(30);
      cluster.start(killed); // it catches up during the next fault

      int cut = leader(cluster, TPS.get(1));
      Optional<NetNamespaces> net = network.namespaces();
      LOG.info("fault: n{}, leader of {}, cut off from its followers", cut, TPS.get(1));
      if (net.isPresent()) {
        for (int other : cluster.nodes()) {
          if (other != cut) {
            net.get().drop(cut, other, Plane.DATA);
            net.get().drop(other, cut, Plane.DATA);
          }
        }
      } else {
        cluster.kill(cut, Signal.STOP);
      }
      // The cut-off leader's ISR shrinks below min.insync.replicas, so its partition takes no
      // writes until the heal: the fault lasts a fixed time rather than until some acks.
      TimeUnit.SECONDS.sleep(4); // the fault's length, not a wait for a condition
      if (net.isPresent()) {
        net.get().healAll();
      } else {
        cluster.kill(cut, Signal.CONT);
      }

      cluster.awaitFullIsr(List.of(TOPIC), Duration.ofSeconds(60));
      awaitAcks(30);
      stop.set(true);
      for (Thread t : writers) {
        t.join(30_000);
      }
      // Every replica cleaned since the faults: the final read sees the cleaned log.
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> everyReplicaCleaned(cluster));

      List<CompactedKeys.Read> read = readAll(cluster.bootstrapServers());
      List<Anomaly> anomalies = CompactedKeys.check(List.copyOf(writes), read);
      long ok = writes.stream().filter(w -> w.outcome() == Outcome.OK).count();
      LOG.info(
          "{} sends ({} acknowledged), {} records read after compaction, anomalies: {}",
          writes.size(),
          ok,
          read.size(),
          anomalies);
      assertEquals(List.of(), anomalies, "compacted topic anomalies (cluster in " + dir + ")");
      assertTrue(read.size() < ok, "compaction removed records: " + read.size() + " read of " + ok);
    } finally {
      stop.set(true);
    }
  }

  /**
   * One writer: its own keys in turn, one send at a time, versions 1, 2, 3... per key, all to one
   * partition (writer id mod partitions), so a stalled partition stalls only its writers.
   */
  private void write(String bootstrap, int id) {
    int partition = id % TPS.size();
    Map<String, Long> version = new HashMap<>();
    Producer producer = producer(bootstrap);
    try {
      for (long i = 0; !stop.get(); i++) {
        String key = "w" + id + "-k" + (i % KEYS_PER_WRITER);
        long v = version.merge(key, 1L, Long::sum);
        byte[] value = (v + ":" + PAD).getBytes(StandardCharsets.UTF_8);
        try {
          producer
              .send(
                  new ProducerRecord(
                      TOPIC,
                      partition,
                      key.getBytes(StandardCharsets.UTF_8),
                      value,
                      List.of(),
                      null))
              .get(30, TimeUnit.SECONDS);
          writes.add(new CompactedKeys.Write(key, v, Outcome.OK));
          acked.incrementAndGet();
        } catch (Exception e) {
          Throwable cause = e.getCause() == null ? e : e.getCause();
          boolean fail = SendErrors.classify(cause) == OpType.FAIL;
          writes.add(new CompactedKeys.Write(key, v, fail ? Outcome.FAIL : Outcome.INFO));
          // A new producer after an error, as the chaos workload does: the old one's state is
          // unknown.
          producer.close();
          producer = producer(bootstrap);
        }
      }
    } finally {
      producer.close();
    }
  }

  private static Producer producer(String bootstrap) {
    return new Producer(
        Map.of(
            "bootstrap.servers", bootstrap,
            "acks", "all",
            "linger.ms", "0",
            "request.timeout.ms", "3000",
            "delivery.timeout.ms", "10000",
            "max.block.ms", "5000",
            "retry.backoff.max.ms", "300"));
  }

  private void awaitAcks(int more) {
    int target = acked.get() + more;
    await()
        .atMost(Duration.ofSeconds(40))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> acked.get() >= target);
  }

  private static int leader(ProcessCluster cluster, TopicPartition tp) {
    return await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> cluster.newestView(tp).map(p -> p.getLeaderId()).orElse(-1),
            leader -> leader >= 0);
  }

  private static boolean everyReplicaCleaned(ProcessCluster cluster) throws Exception {
    List<ReplicaLog> logs = cluster.admin().describeLogs(List.of(TOPIC)).get(10, TimeUnit.SECONDS);
    return logs.size() == 3 * TPS.size()
        && logs.stream().allMatch(l -> l.compacted() && l.bytesCleaned() > 0);
  }

  /** Both partitions from the log start to their end offsets now, in offset order. */
  private static List<CompactedKeys.Read> readAll(String bootstrap) {
    List<CompactedKeys.Read> out = new ArrayList<>();
    try (Consumer consumer =
        new Consumer(Map.of("bootstrap.servers", bootstrap, "fetch.max.wait.ms", "200"))) {
      consumer.assign(TPS);
      consumer.seekToBeginning(TPS);
      Map<TopicPartition, Long> end = consumer.endOffsets(TPS);
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ZERO)
          .until(
              () -> {
                for (ConsumerRecord r : consumer.poll(Duration.ofMillis(200))) {
                  String v = r.valueAsString();
                  out.add(
                      new CompactedKeys.Read(
                          r.topicPartition(),
                          r.offset(),
                          r.keyAsString(),
                          Long.parseLong(v.substring(0, v.indexOf(':')))));
                }
                return TPS.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
              });
    }
    return out;
  }
}
