package dev.spool.chaos.run;

import dev.spool.chaos.cluster.KafkaCluster;
import dev.spool.chaos.history.EpochObservation;
import dev.spool.chaos.history.HistoryRecorder;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.protocol.message.TopicMetadata;
import dev.spool.testing.process.ProcessCluster;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * White-box: every {@code intervalMs}, asks each running broker directly for its metadata and
 * records an {@link EpochObservation} whenever that node's view of a partition's leader or leader
 * epoch changed, for the {@code leader-epoch-monotonic} and {@code leadership-ping-pong} checkers.
 * {@link #spool} asks Spool's nodes, {@link #kafka} Kafka's.
 *
 * <p>A restarted node rebuilds its image from the quorum, so for a moment it may describe an older
 * state than it did before it died; that is lag, not a rewind. Where the answer carries the node's
 * metadata offset (Spool's does), it is therefore only recorded once that offset has reached the
 * highest one the node answered with before, so the checker sees each node's view along a metadata
 * offset that never goes back. Kafka's answer carries none; a Kafka broker serves requests only
 * after it caught up with the metadata log at start, so none is expected there.
 */
final class EpochObserver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EpochObserver.class);

  /** One partition as one node saw it. */
  record PartitionView(TopicPartition partition, int leader, int epoch) {}

  /**
   * One node's answer: its metadata offset ({@code -1}: the answer has none) and the partitions.
   */
  record NodeView(long metadataOffset, List<PartitionView> partitions) {}

  private record View(int leader, int epoch) {}

  private final Supplier<Map<Integer, NodeView>> source;
  private final HistoryRecorder recorder;
  private final long intervalMs;
  private final Map<String, View> last = new HashMap<>();
  private final Map<Integer, Long> highestOffset = new HashMap<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final Thread thread;

  EpochObserver(
      Supplier<Map<Integer, NodeView>> source,
      HistoryRecorder recorder,
      long intervalMs,
      String threadName) {
    this.source = source;
    this.recorder = recorder;
    this.intervalMs = intervalMs;
    this.thread = new Thread(this::run, threadName);
    thread.setDaemon(true);
  }

  /** Observes Spool's running brokers. */
  static EpochObserver spool(
      ProcessCluster cluster, HistoryRecorder recorder, List<String> topics, long intervalMs) {
    List<String> names = List.copyOf(topics);
    return new EpochObserver(
        () -> {
          Map<Integer, NodeView> out = new LinkedHashMap<>();
          cluster.views(names).forEach((node, m) -> out.put(node, spoolView(m)));
          return out;
        },
        recorder,
        intervalMs,
        "chaos-epoch-observer");
  }

  /** Observes Kafka's serving nodes. */
  static EpochObserver kafka(
      KafkaCluster cluster, HistoryRecorder recorder, List<String> topics, long intervalMs) {
    List<String> names = List.copyOf(topics);
    return new EpochObserver(
        () -> {
          Map<Integer, NodeView> out = new LinkedHashMap<>();
          cluster.views(names).forEach((node, m) -> out.put(node, kafkaView(m)));
          return out;
        },
        recorder,
        intervalMs,
        "kafka-epoch-observer");
  }

  private static NodeView spoolView(MetadataResponse m) {
    List<PartitionView> out = new ArrayList<>();
    for (TopicMetadata t : m.getTopicsList()) {
      if (t.getErrorCode() != ErrorCode.NONE) {
        continue;
      }
      for (PartitionMetadata p : t.getPartitionsList()) {
        out.add(
            new PartitionView(
                new TopicPartition(t.getName(), p.getPartition()),
                p.getLeaderId(),
                p.getLeaderEpoch()));
      }
    }
    return new NodeView(m.getMetadataOffset(), out);
  }

  private static NodeView kafkaView(MetadataResponseData m) {
    List<PartitionView> out = new ArrayList<>();
    for (MetadataResponseData.MetadataResponseTopic t : m.topics()) {
      if (t.errorCode() != Errors.NONE.code()) {
        continue;
      }
      for (MetadataResponseData.MetadataResponsePartition p : t.partitions()) {
        if (p.errorCode() != Errors.NONE.code()
            && p.errorCode() != Errors.LEADER_NOT_AVAILABLE.code()) {
          continue;
        }
        out.add(
            new PartitionView(
                new TopicPartition(t.name(), p.partitionIndex()), p.leaderId(), p.leaderEpoch()));
      }
    }
    return new NodeView(-1, out);
  }

  void start() {
    thread.start();
  }

  private void run() {
    while (!stop.get()) {
      try {
        observeOnce();
        Thread.sleep(intervalMs); // sampling real processes on a period
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        LOG.warn("epoch observation failed: {}", e.toString());
      }
    }
  }

  /** One round over the running brokers. */
  synchronized void observeOnce() {
    for (Map.Entry<Integer, NodeView> e : source.get().entrySet()) {
      int node = e.getKey();
      NodeView nv = e.getValue();
      if (nv.metadataOffset() >= 0) {
        long before = highestOffset.getOrDefault(node, -1L);
        if (nv.metadataOffset() < before) {
          continue; // a restarted node still catching up to where it was
        }
        highestOffset.put(node, nv.metadataOffset());
      }
      for (PartitionView p : nv.partitions()) {
        View v = new View(p.leader() < 0 ? EpochObservation.NO_LEADER : p.leader(), p.epoch());
        if (!v.equals(last.put(node + "/" + p.partition(), v))) {
          recorder.epochObservation(node, p.partition(), v.leader(), v.epoch());
        }
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    thread.interrupt();
    thread.join(10_000);
  }
}
