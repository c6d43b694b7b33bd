package dev.spool.chaos.cluster;

import dev.spool.broker.BrokerConfig;
import dev.spool.broker.log.FileSlice;
import dev.spool.broker.log.LogManager;
import dev.spool.broker.log.LogReadResult;
import dev.spool.broker.log.PartitionLog;
import dev.spool.chaos.history.BatchSummary;
import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import dev.spool.record.RecordBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Reads a node's partition logs offline with the broker's own storage classes: the data directory
 * is copied first (the metadata quorum's files are left out), so opening it — which runs crash
 * recovery if the node did not stop cleanly — never touches the node's files. For the white-box
 * replica-divergence check and for tests that compare replicas byte for byte.
 */
public final class ReplicaLogs {
  /** Bytes read per call when walking a log; a batch larger than this is still returned whole. */
  private static final int READ_BYTES = 1 << 20;

  /** Where a node keeps its Raft log under data.dir by default (now and before the rename). */
  private static final java.util.Set<String> QUORUM_DIRS =
      java.util.Set.of("__cluster_metadata", "metadata");

  private ReplicaLogs() {}

  /**
   * One replica as its files hold it.
   *
   * @param highWatermark the checkpointed high watermark (what the node would start with)
   * @param batches every batch from the log start to the log end, in offset order
   */
  public record Replica(
      int node,
      TopicPartition partition,
      long highWatermark,
      long logStartOffset,
      long logEndOffset,
      List<BatchSummary> batches) {
    public Replica {
      batches = List.copyOf(batches);
    }

    /** The batches entirely below the high watermark: the committed part of this replica. */
    public List<BatchSummary> belowHighWatermark() {
      return batches.stream().filter(b -> b.lastOffset() < highWatermark).toList();
    }
  }

  /** Every partition replica in {@code dataDir}, read from a copy made under {@code scratch}. */
  public static Map<TopicPartition, Replica> read(int node, Path dataDir, Path scratch)
      throws IOException {
    Path copy = Files.createTempDirectory(Files.createDirectories(scratch), "n" + node + "-");
    try {
      copyLogs(dataDir, copy);
      Map<TopicPartition, Replica> out = new TreeMap<>();
      try (LogManager logs =
          LogManager.open(copy, BrokerConfig.defaultLogManagerConfig(), Clock.SYSTEM)) {
        for (PartitionLog log : logs.all()) {
          out.put(log.topicPartition(), replica(node, log));
        }
        if (!logs.failedPartitions().isEmpty()) {
          throw new IOException(
              "n" + node + ": partitions could not be opened: " + logs.failedPartitions());
        }
      }
      return out;
    } finally {
      LogManager.deleteRecursively(copy);
    }
  }

  private static Replica replica(int node, PartitionLog log) throws IOException {
    List<BatchSummary> batches = new ArrayList<>();
    long offset = log.logStartOffset();
    long end = log.logEndOffset();
    while (offset < end) {
      LogReadResult r = log.read(offset, READ_BYTES, end, true);
      FileSlice slice = r.slice();
      if (slice.isEmpty()) {
        break;
      }
      ByteBuffer buf = ByteBuffer.allocate(slice.sizeInBytes());
      while (buf.hasRemaining()) {
        if (slice.channel().read(buf, slice.position() + buf.position()) < 0) {
          throw new IOException(log.topicPartition() + " on n" + node + ": log file ended early");
        }
      }
      buf.flip();
      int pos = 0;
      while (pos + RecordBatch.LOG_OVERHEAD <= buf.limit()) {
        RecordBatch b = RecordBatch.at(buf, pos);
        if (pos + b.sizeInBytes() > buf.limit()) {
          break;
        }
        batches.add(
            new BatchSummary(
                b.baseOffset(), b.lastOffset(), b.partitionLeaderEpoch(), b.checksum()));
        offset = b.nextOffset();
        pos += b.sizeInBytes();
      }
      if (pos == 0) {
        throw new IOException(
            log.topicPartition() + " on n" + node + ": no whole batch at offset " + offset);
      }
    }
    return new Replica(
        node, log.topicPartition(), log.highWatermark(), log.logStartOffset(), end, batches);
  }

  private static void copyLogs(Path from, Path to) throws IOException {
    if (!Files.isDirectory(from)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(from)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.naturalOrder())::iterator) {
        Path rel = from.relativize(p);
        if (!rel.toString().isEmpty() && QUORUM_DIRS.contains(rel.getName(0).toString())) {
          continue; // the quorum's Raft log, not a partition
        }
        Path target = to.resolve(rel.toString());
        try {
          if (Files.isDirectory(p)) {
            Files.createDirectories(target);
          } else {
            Files.copy(p, target);
          }
        } catch (UncheckedIOException e) {
          throw e.getCause();
        }
      }
    }
  }
}
