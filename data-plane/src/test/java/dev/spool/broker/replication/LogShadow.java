package dev.spool.broker.replication;

import dev.spool.broker.log.PartitionLog;
import dev.spool.record.RecordBatch;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the invariants of a {@link ReplicationSimulation} compare: the batches of one replica's log
 * as (base offset -> last offset, CRC, leader epoch, producer id, base sequence), kept in step with
 * the log after every change. A truncation marks it stale and it is read again from the log start.
 *
 * <p>Threads: the simulation's single thread.
 */
final class LogShadow {
  /** One stored batch: its last offset, CRC, leader epoch and producer id and sequence. */
  record Batch(long last, long crc, int epoch, long producerId, int baseSequence) {}

  final TreeMap<Long, Batch> batches = new TreeMap<>();
  long end;
  long start;
  boolean stale = true;

  /**
   * How many times the shadow was read afresh. While it stays the same, no batch it holds changed
   * or went: the log only grew at its end. Incremental checks ({@link VerifiedPrefixes}) rely on
   * it.
   */
  int generation;

  void sync(PartitionLog l) {
    if (!stale && (l.logEndOffset() < end || l.logStartOffset() != start || !lastMatches(l))) {
      stale = true;
    }
    if (stale) {
      generation++;
      batches.clear();
      start = l.logStartOffset();
      end = start;
      stale = false;
    }
    while (end < l.logEndOffset()) {
      ByteBuffer b = ReplicaTestSupport.bytes(l.read(end, 64 * 1024, Long.MAX_VALUE, true).slice());
      if (b.remaining() == 0) {
        break;
      }
      for (int pos = 0; pos < b.limit(); ) {
        RecordBatch rb = RecordBatch.at(b, pos);
        batches.put(
            rb.baseOffset(),
            new Batch(
                rb.lastOffset(),
                rb.checksum(),
                rb.partitionLeaderEpoch(),
                rb.producerId(),
                rb.baseSequence()));
        end = rb.nextOffset();
        pos += rb.sizeInBytes();
      }
    }
  }

  private boolean lastMatches(PartitionLog l) {
    Map.Entry<Long, Batch> last = batches.lastEntry();
    if (last == null) {
      return true;
    }
    ByteBuffer b = ReplicaTestSupport.bytes(l.read(last.getKey(), 1, Long.MAX_VALUE, true).slice());
    if (b.remaining() == 0) {
      return false;
    }
    RecordBatch rb = RecordBatch.at(b, 0);
    return rb.baseOffset() == last.getKey() && rb.checksum() == last.getValue().crc();
  }

  /** Batches with base offset in [{@code from}, {@code bound}). */
  Map<Long, Batch> between(long from, long bound) {
    return from >= bound ? Map.of() : batches.subMap(from, true, bound, false);
  }

  /** Batches with base offset below {@code bound}. */
  Map<Long, Batch> below(long bound) {
    return batches.headMap(bound, false);
  }

  /** The same, printable (failure messages only). */
  String describe(long bound) {
    Map<Long, Batch> all = below(bound);
    StringBuilder sb =
        new StringBuilder(all.size() > 8 ? "[" + (all.size() - 8) + " earlier, " : "[");
    for (Map.Entry<Long, Batch> e :
        all.entrySet().stream().skip(Math.max(0, all.size() - 8)).toList()) {
      sb.append(e.getKey())
          .append("..")
          .append(e.getValue().last())
          .append('#')
          .append(Long.toHexString(e.getValue().crc()))
          .append("/e")
          .append(e.getValue().epoch())
          .append(' ');
    }
    return sb.append(']').toString();
  }
}
