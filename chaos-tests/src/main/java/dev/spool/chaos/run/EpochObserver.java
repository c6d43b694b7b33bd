package dev.spool.chaos.run;

import dev.spool.chaos.history.EpochObservation;
import dev.spool.chaos.history.HistoryRecorder;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.protocol.message.TopicMetadata;
import dev.spool.testing.process.ProcessCluster;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * White-box: every {@code intervalMs}, asks each running broker directly for its metadata and
 * records an {@link EpochObservation} whenever that node's view of a partition's leader or leader
 * epoch changed, for the {@code leader-epoch-monotonic} checker.
 *
 * <p>A restarted node rebuilds its image from the quorum, so for a moment it may describe an older
 * state than it did before it died; that is lag, not a rewind. Its answers are therefore only
 * recorded once its metadata offset has reached the highest one it answered with before, so the
 * checker sees each node's view along a metadata offset that never goes back.
 */
final class EpochObserver implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EpochObserver.class);

  private record View(int leader, int epoch) {}

  private final ProcessCluster cluster;
  private final HistoryRecorder recorder;
  private final List<String> topics;
  private final long intervalMs;
  private final Map<String, View> last = new HashMap<>();
  private final Map<Integer, Long> highestOffset = new HashMap<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final Thread thread;

  EpochObserver(
      ProcessCluster cluster, HistoryRecorder recorder, List<String> topics, long intervalMs) {
    this.cluster = cluster;
    this.recorder = recorder;
    this.topics = List.copyOf(topics);
    this.intervalMs = intervalMs;
    this.thread = new Thread(this::run, "chaos-epoch-observer");
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

  /** One round over the running brokers. */
  void observeOnce() {
    for (Map.Entry<Integer, MetadataResponse> e : cluster.views(topics).entrySet()) {
      int node = e.getKey();
      MetadataResponse m = e.getValue();
      long before = highestOffset.getOrDefault(node, -1L);
      if (m.getMetadataOffset() < before) {
        continue; // a restarted node still catching up to where it was
      }
      highestOffset.put(node, m.getMetadataOffset());
      for (TopicMetadata t : m.getTopicsList()) {
        if (t.getErrorCode() != ErrorCode.NONE) {
          continue;
        }
        for (PartitionMetadata p : t.getPartitionsList()) {
          TopicPartition tp = new TopicPartition(t.getName(), p.getPartition());
          View v =
              new View(
                  p.getLeaderId() < 0 ? EpochObservation.NO_LEADER : p.getLeaderId(),
                  p.getLeaderEpoch());
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
