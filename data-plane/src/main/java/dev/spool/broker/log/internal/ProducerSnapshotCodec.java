package dev.spool.broker.log.internal;

import dev.spool.broker.log.ProducerStateEntry;
import dev.spool.broker.log.ProducerStateEntry.BatchMetadata;
import dev.spool.broker.log.ProducerStateManager;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Encodes the producer-state snapshot files {@code NNNNNNNNNNNNNNNNNNNN.snapshot} (named by the
 * offset up to which the state reflects the log). Spool's own layout, big-endian:
 *
 * <pre>
 * pos  field            type     notes
 *   0  magic            int32    0x53505053 ("SPPS")
 *   4  version          int16    1
 *   6  crc              uint32   CRC-32C of every byte from position 10 to the end
 *  10  snapshotOffset   int64    the state covers offsets below this
 *  18  producerCount    int32
 *  22  producers        producerCount x {
 *                         producerId       int64
 *                         producerEpoch    int16
 *                         lastTimestampMs  int64
 *                         batchCount       int8 (0..5), then batchCount x {
 *                           firstSeq int32, lastSeq int32, firstOffset int64,
 *                           lastOffset int64, maxTimestampMs int64 }  (oldest first)
 *                       }
 * </pre>
 *
 * A file that fails any check is rejected whole with the reason (the caller falls back to an older
 * snapshot or to replaying the log). Pure; no I/O.
 */
public final class ProducerSnapshotCodec {
  public static final int MAGIC = 0x53505053;
  public static final short VERSION = 1;
  private static final int CRC_POSITION = 6;
  private static final int BODY_POSITION = 10;
  private static final int PRODUCER_FIXED_BYTES = 8 + 2 + 8 + 1;
  private static final int BATCH_BYTES = 4 + 4 + 8 + 8 + 8;

  private ProducerSnapshotCodec() {}

  public record Snapshot(long snapshotOffset, List<ProducerStateEntry> producers) {}

  public static byte[] encode(long snapshotOffset, Collection<ProducerStateEntry> producers) {
    int size = BODY_POSITION + 8 + 4;
    for (ProducerStateEntry p : producers) {
      size += PRODUCER_FIXED_BYTES + p.batches().size() * BATCH_BYTES;
    }
    ByteBuffer b = ByteBuffer.allocate(size);
    b.putInt(MAGIC).putShort(VERSION).putInt(0).putLong(snapshotOffset).putInt(producers.size());
    for (ProducerStateEntry p : producers) {
      if (p.batches().size() > 127) {
        throw new IllegalArgumentException("too many batches for producer " + p.producerId());
      }
      b.putLong(p.producerId())
          .putShort(p.producerEpoch())
          .putLong(p.lastTimestampMs())
          .put((byte) p.batches().size());
      for (BatchMetadata m : p.batches()) {
        b.putInt(m.firstSeq())
            .putInt(m.lastSeq())
            .putLong(m.firstOffset())
            .putLong(m.lastOffset())
            .putLong(m.maxTimestampMs());
      }
    }
    CRC32C crc = new CRC32C();
    crc.update(b.array(), BODY_POSITION, size - BODY_POSITION);
    b.putInt(CRC_POSITION, (int) crc.getValue());
    return b.array();
  }

  /** Decodes a snapshot; throws IllegalArgumentException naming what is wrong. */
  public static Snapshot decode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    try {
      int magic = b.getInt();
      if (magic != MAGIC) {
        throw new IllegalArgumentException("bad magic " + Integer.toHexString(magic));
      }
      short version = b.getShort();
      if (version != VERSION) {
        throw new IllegalArgumentException("unsupported version " + version);
      }
      long stored = b.getInt() & 0xffffffffL;
      CRC32C crc = new CRC32C();
      crc.update(bytes, BODY_POSITION, bytes.length - BODY_POSITION);
      if (crc.getValue() != stored) {
        throw new IllegalArgumentException("CRC mismatch");
      }
      long snapshotOffset = b.getLong();
      int count = b.getInt();
      if (count < 0 || count > (bytes.length - b.position()) / PRODUCER_FIXED_BYTES) {
        throw new IllegalArgumentException("invalid producer count " + count);
      }
      List<ProducerStateEntry> producers = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        long pid = b.getLong();
        short epoch = b.getShort();
        long lastTs = b.getLong();
        int batches = b.get();
        if (batches < 0 || batches > ProducerStateManager.NUM_BATCHES_TO_RETAIN) {
          throw new IllegalArgumentException(
              "invalid batch count " + batches + " for producer " + pid);
        }
        List<BatchMetadata> list = new ArrayList<>(batches);
        for (int j = 0; j < batches; j++) {
          list.add(
              new BatchMetadata(b.getInt(), b.getInt(), b.getLong(), b.getLong(), b.getLong()));
        }
        producers.add(new ProducerStateEntry(pid, epoch, list, lastTs));
      }
      if (b.hasRemaining()) {
        throw new IllegalArgumentException(b.remaining() + " trailing bytes");
      }
      return new Snapshot(snapshotOffset, producers);
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException("file ends early");
    }
  }
}
