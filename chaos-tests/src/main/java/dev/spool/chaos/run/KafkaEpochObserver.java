package dev.spool.chaos.run;

import dev.spool.chaos.cluster.KafkaCluster;
import dev.spool.chaos.history.EpochObservation;
import dev.spool.chaos.history.HistoryRecorder;
import dev.spool.common.TopicPartition;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link EpochObserver} for Kafka runs: every {@code intervalMs}, asks each serving Kafka node for
 * its own metadata ({@link KafkaCluster#views}) and records an {@link EpochObservation} whenever
 * that node's view of a partition's leader or leader epoch changed, for the {@code
 * leader-epoch-monotonic} checker. Kafka's metadata answer carries no metadata offset, so unlike
 * Spool's observer nothing guards against a restarted node answering from an older image; a Kafka
 * broker serves requests only after it caught up with the metadata log at start, so none is
 * expected.
 */
final class KafkaEpochObserver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaEpochObserver.class);

  private record View(int leader, int epoch) {}

  private final KafkaCluster cluster;
  private final HistoryRecorder recorder;
  private final List<String> topics;
  private final long intervalMs;
  private final Map<String, View> last = new HashMap<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final Thread thread;

  KafkaEpochObserver(
      KafkaCluster cluster, HistoryRecorder recorder, List<String> topics, long intervalMs) {
    this.cluster = cluster;
    this.recorder = recorder;
    this.topics = List.copyOf(topics);
    this.intervalMs = intervalMs;
    this.thread = new Thread(this::run, "kafka-epoch-observer");
    thread.setDaemon(true);
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

  /** One round over the serving nodes. */
  synchronized void observeOnce() {
    for (Map.Entry<Integer, MetadataResponseData> e : cluster.views(topics).entrySet()) {
      int node = e.getKey();
      for (MetadataResponseData.MetadataResponseTopic t : e.getValue().topics()) {
        if (t.errorCode() != Errors.NONE.code()) {
          continue;
        }
        for (MetadataResponseData.MetadataResponsePartition p : t.partitions()) {
          if (p.errorCode() != Errors.NONE.code()
              && p.errorCode() != Errors.LEADER_NOT_AVAILABLE.code()) {
            continue;
          }
          TopicPartition tp = new TopicPartition(t.name(), p.partitionIndex());
          View v =
              new View(
                  p.leaderId() < 0 ? EpochObservation.NO_LEADER : p.leaderId(), p.leaderEpoch());
          if (!v.equals(last.put(node + "/" + tp, v))) {
            recorder.epochObservation(node, tp, v.leader(), v.epoch());
          }
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
