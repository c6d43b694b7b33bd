package dev.spool.broker.replication;

import dev.spool.broker.log.FileSlice;
import dev.spool.broker.log.LogConfig;
import dev.spool.broker.log.LogStartupState;
import dev.spool.broker.log.PartitionLog;
import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.image.PartitionState;
import dev.spool.record.RecordBatchBuilder;
import dev.spool.record.TimestampType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** Logs, batches and partition states for replication tests and the simulation. */
public final class ReplicaTestSupport {
  public static final String TOPIC_ID = "topic-id-1";

  private ReplicaTestSupport() {}

  /** Small segments so rolls happen; no delay on file deletion. */
  public static LogConfig smallConfig() {
    return new LogConfig(
        16 * 1024,
        Long.MAX_VALUE / 4,
        4096,
        512,
        -1,
        -1,
        1 << 20,
        TimestampType.CREATE_TIME,
        Long.MAX_VALUE / 4,
        Long.MAX_VALUE / 4,
        0,
        false);
  }

  public static ScheduledExecutorService scheduler() {
    return Executors.newSingleThreadScheduledExecutor(
        r -> {
          Thread t = new Thread(r, "test-log-scheduler");
          t.setDaemon(true);
          return t;
        });
  }

  public static PartitionLog openLog(
      Path dir, TopicPartition tp, Clock clock, ScheduledExecutorService scheduler) {
    return PartitionLog.open(
        dir.resolve(tp.toString()),
        tp,
        TOPIC_ID,
        smallConfig(),
        LogStartupState.UNKNOWN,
        clock,
        scheduler);
  }

  /** One batch of {@code records} records whose values start with {@code prefix}. */
  public static ByteBuffer batch(int records, long timestampMs, String prefix) {
    RecordBatchBuilder b = new RecordBatchBuilder(256);
    for (int i = 0; i < records; i++) {
      b.append(timestampMs, ("k" + i).getBytes(), (prefix + "-" + i).getBytes());
    }
    return b.build();
  }

  public static ByteBuffer idempotentBatch(
      long producerId, short epoch, int baseSequence, int records, long timestampMs) {
    RecordBatchBuilder b = new RecordBatchBuilder(256).producer(producerId, epoch, baseSequence);
    for (int i = 0; i < records; i++) {
      b.append(timestampMs, null, ("v" + (baseSequence + i)).getBytes());
    }
    return b.build();
  }

  public static PartitionState state(
      TopicPartition tp,
      List<Integer> replicas,
      List<Integer> isr,
      int leader,
      int leaderEpoch,
      int partitionEpoch) {
    return new PartitionState(
        TOPIC_ID, tp.topic(), tp.partition(), replicas, isr, leader, leaderEpoch, partitionEpoch);
  }

  /** The bytes of a slice (a copy). */
  public static ByteBuffer bytes(FileSlice slice) {
    if (slice == null) {
      return ByteBuffer.allocate(0);
    }
    ByteBuffer b = ByteBuffer.allocate(slice.sizeInBytes());
    try {
      while (b.hasRemaining()) {
        int n = slice.channel().read(b, slice.position() + b.position());
        if (n < 0) {
          throw new IllegalStateException("slice runs past the end of the file");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return b.flip();
  }

  /** A listener that records what a partition sends. */
  public static final class RecordingListener implements PartitionListener {
    public final List<IsrChange> isrChanges = new ArrayList<>();
    public int highWatermarkChanges;
    public int appends;

    @Override
    public void sendIsrChange(Partition partition, IsrChange change) {
      isrChanges.add(change);
    }

    @Override
    public void onHighWatermarkChanged(TopicPartition tp, long highWatermark) {
      highWatermarkChanges++;
    }

    @Override
    public void onAppended(TopicPartition tp, long logEndOffset) {
      appends++;
    }
  }
}
