package dev.spool.broker.log.internal;

import dev.spool.broker.log.InvalidTimestampException;
import dev.spool.broker.log.LogConfig;
import dev.spool.record.Compression;
import dev.spool.record.CompressionType;
import dev.spool.record.CorruptRecordException;
import dev.spool.record.InvalidRecordException;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordCursor;
import dev.spool.record.RecordStreamReader;
import dev.spool.record.RecordTooLargeException;
import dev.spool.record.TimestampType;
import dev.spool.record.UnsupportedCompressionException;
import dev.spool.record.internal.ByteBufferOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The checks a leader makes on a produce request before anything is written, Kafka's LogValidator
 * for magic 2: every batch complete, magic 2, CRC valid, a known codec, within {@code
 * max.message.bytes} as sent, a record count equal to its last offset delta + 1, and then every
 * record, compressed or not: offset deltas 0..n-1 in order, records that fill the batch (or its
 * inflated payload) exactly, CreateTime timestamps within the before/after bounds of {@code nowMs},
 * and a key on every record of a compacted topic.
 *
 * <p>Compressed batches are read as a stream through a small window ({@link RecordStreamReader}),
 * never inflated whole: a batch that inflates past {@code message.max.decompressed.bytes} is
 * refused as soon as the bound is crossed. When the topic's {@code compression.type} is {@code
 * producer} or the batch's own codec, the batch is stored as sent (zero-copy fetch stays intact);
 * when it names another codec (or {@code none}), the batch is rebuilt in the same pass, its
 * inflated records fed into the topic's codec, header fields (producer id, epoch, sequence,
 * timestamps) kept, size and CRC recomputed, and {@link #validatedBatches()} is a new buffer. The
 * rebuilt batch must fit {@code max.message.bytes} too, as in Kafka.
 *
 * <p>Pure: no I/O, no clock (time comes in as {@code nowMs}); it remembers each batch's real max
 * timestamp for the caller. Threads: owned by the partition's owner thread (it reuses its view,
 * cursor and reader).
 */
public final class LeaderBatchValidator {
  private final String logPrefix;
  private final RecordBatch view = new RecordBatch();
  private final RecordCursor cursor = new RecordCursor();
  private final RecordStreamReader reader = new RecordStreamReader();
  private long[] batchMaxTimestamps = new long[16];
  private ByteBuffer validated;

  public LeaderBatchValidator(String logPrefix) {
    this.logPrefix = logPrefix;
  }

  /** The real max record timestamp of batch {@code index} of the last validated request. */
  public long maxTimestampOf(int index) {
    return batchMaxTimestamps[index];
  }

  /**
   * The batches of the last validated request as they are to be appended: the request's own buffer,
   * or a new one when a batch was recompressed to the topic's codec.
   */
  public ByteBuffer validatedBatches() {
    return validated;
  }

  /** Checks every batch; returns how many. Records each batch's true max timestamp. */
  public int validateLeaderBatches(ByteBuffer batches, LogConfig cfg, long nowMs) {
    int start = batches.position();
    int count = 0;
    ByteBufferOutputStream rebuilt = null;
    for (int pos = start; pos < batches.limit(); count++) {
      view.wrap(batches, pos);
      checkStructure(view, count, pos - start);
      int size = view.sizeInBytes();
      if (size > cfg.maxMessageBytes()) {
        throw new RecordTooLargeException(
            logPrefix + "batch " + count, size, cfg.maxMessageBytes());
      }
      checkHeader(view, count);
      if (count == batchMaxTimestamps.length) {
        batchMaxTimestamps = Arrays.copyOf(batchMaxTimestamps, count * 2);
      }
      Compression target = cfg.targetCompression();
      boolean recompress = target != null && target.type() != view.compressionType();
      if (recompress && rebuilt == null) {
        rebuilt = new ByteBufferOutputStream(Math.max(1024, batches.remaining()));
        rebuilt.write(batches.duplicate().limit(pos).position(start));
      }
      if (recompress) {
        batchMaxTimestamps[count] = rebuild(view, count, target, cfg, nowMs, rebuilt);
      } else {
        batchMaxTimestamps[count] = validateRecords(view, count, cfg, nowMs);
        if (rebuilt != null) {
          rebuilt.write(batches.duplicate().limit(pos + size).position(pos));
        }
      }
      pos += size;
    }
    validated = rebuilt == null ? batches : rebuilt.buffer().flip();
    return count;
  }

  private void checkStructure(RecordBatch batch, int index, int position) {
    String problem = batch.validationError();
    if (problem == null) {
      return;
    }
    int codec = batch.compressionCodecId();
    if (!CompressionType.isKnown(codec) && batch.checksum() == batch.computeChecksum()) {
      // Intact bytes naming a codec that does not exist: the producer's codec is the problem.
      throw new UnsupportedCompressionException(logPrefix + "batch " + index + ": ", codec);
    }
    throw new CorruptRecordException(logPrefix + "batch " + index + ": " + problem, position);
  }

  private void checkHeader(RecordBatch batch, int index) {
    int declared = batch.recordsCount();
    if (declared == 0) {
      throw new InvalidRecordException(logPrefix + "batch " + index + " has no records");
    }
    if (batch.lastOffsetDelta() != declared - 1) {
      throw new InvalidRecordException(
          logPrefix
              + "batch "
              + index
              + " declares "
              + declared
              + " records but a last offset delta of "
              + batch.lastOffsetDelta());
    }
    if (batch.isControl()) {
      // Control batches are transaction markers, the broker's to write: a client's would be taken
      // for one by the producer state (as Kafka's LogValidator, refused on both listeners).
      throw new InvalidRecordException(
          logPrefix
              + "batch "
              + index
              + " is a control batch; clients may not write control records");
    }
    if (batch.timestampType() == TimestampType.LOG_APPEND_TIME) {
      // Only the broker stamps LogAppendTime; trusting the bit would hide the record timestamps
      // from the CreateTime checks below.
      throw new InvalidRecordException(
          logPrefix
              + "batch "
              + index
              + " claims LogAppendTime; producers send CreateTime batches");
    }
  }

  /** Record-level checks of one batch stored as sent; returns its real max timestamp. */
  private long validateRecords(RecordBatch batch, int index, LogConfig cfg, long nowMs) {
    if (batch.isCompressed()) {
      return streamRecords(batch, index, cfg, nowMs, null);
    }
    boolean compacted = cfg.cleanup().compact();
    long max = RecordBatch.NO_TIMESTAMP;
    cursor.reset(batch);
    int n = 0;
    try {
      while (cursor.next()) {
        checkRecord(index, n, (int) (cursor.offset() - batch.baseOffset()));
        checkTimestamp(cursor.timestamp(), index, cfg, nowMs);
        if (compacted && cursor.keyLength() < 0) {
          throw keyless(index, n);
        }
        max = Math.max(max, cursor.timestamp());
        n++;
      }
    } catch (CorruptRecordException e) {
      throw new CorruptRecordException(logPrefix + "batch " + index + ": " + e.getMessage(), -1);
    }
    if (!cursor.consumedExactly()) {
      throw new InvalidRecordException(
          logPrefix
              + "batch "
              + index
              + " declares "
              + batch.recordsCount()
              + " records but its records leave "
              + cursor.remainingBytes()
              + " bytes unread");
    }
    return max;
  }

  /**
   * Reads every record of {@code batch} through the stream reader, inflated bytes going to {@code
   * sink} when not null; returns the real max timestamp. Errors carry the batch index.
   */
  private long streamRecords(
      RecordBatch batch, int index, LogConfig cfg, long nowMs, OutputStream sink) {
    int bound = cfg.maxDecompressedBytes();
    if (sink != null && cfg.targetCompression().type() == CompressionType.NONE) {
      // Stored uncompressed, the records must fit max.message.bytes: stop inflating there.
      bound = Math.min(bound, cfg.maxMessageBytes() - RecordBatch.HEADER_SIZE_BYTES);
    }
    long max = RecordBatch.NO_TIMESTAMP;
    try {
      reader.reset(batch, bound, sink);
      int n = 0;
      while (reader.next()) {
        checkRecord(index, n, reader.offsetDelta());
        checkTimestamp(reader.timestamp(), index, cfg, nowMs);
        if (cfg.cleanup().compact() && reader.keyLength() < 0) {
          throw keyless(index, n);
        }
        max = Math.max(max, reader.timestamp());
        n++;
      }
      reader.finish();
    } catch (CorruptRecordException e) {
      throw new CorruptRecordException(logPrefix + "batch " + index + ": " + e.getMessage(), -1);
    } catch (InvalidRecordException e) {
      // This class's own checks already name the batch; the reader's do not.
      throw e.getMessage().startsWith(logPrefix + "batch ")
          ? e
          : new InvalidRecordException(logPrefix + "batch " + index + ": " + e.getMessage());
    } catch (RecordTooLargeException e) {
      throw new RecordTooLargeException(
          logPrefix
              + "batch "
              + index
              + ": its records inflate past "
              + (bound == cfg.maxDecompressedBytes()
                  ? "message.max.decompressed.bytes"
                  : "max.message.bytes")
              + "; at least",
          e.sizeInBytes(),
          bound);
    } finally {
      reader.close();
    }
    return max;
  }

  /**
   * Validates {@code batch} while writing it, recompressed with {@code target}, to {@code out};
   * returns its real max timestamp.
   */
  private long rebuild(
      RecordBatch batch,
      int index,
      Compression target,
      LogConfig cfg,
      long nowMs,
      ByteBufferOutputStream out) {
    int at = out.position();
    out.write(
        batch
            .buffer()
            .duplicate()
            .limit(batch.position() + RecordBatch.HEADER_SIZE_BYTES)
            .position(batch.position()));
    long max;
    // Closing ends the frame (closing the buffer stream itself does nothing); on a refused batch
    // it frees the codec's native context, and what was written is dropped with the buffer.
    try (OutputStream codec = target.wrapForOutput(out)) {
      max = streamRecords(batch, index, cfg, nowMs, codec);
    } catch (IOException e) {
      throw new UncheckedIOException(logPrefix + "cannot recompress batch " + index, e);
    }
    ByteBuffer buf = out.buffer();
    int size = buf.position() - at;
    buf.putInt(at + RecordBatch.BATCH_LENGTH_POSITION, size - RecordBatch.LOG_OVERHEAD);
    short attributes = buf.getShort(at + RecordBatch.ATTRIBUTES_POSITION);
    buf.putShort(
        at + RecordBatch.ATTRIBUTES_POSITION,
        (short) ((attributes & ~RecordBatch.COMPRESSION_CODEC_MASK) | target.type().id()));
    RecordBatch rebuilt = RecordBatch.at(buf, at);
    buf.putInt(at + RecordBatch.CRC_POSITION, (int) rebuilt.computeChecksum());
    if (size > cfg.maxMessageBytes()) {
      throw new RecordTooLargeException(
          logPrefix + "batch " + index + " recompressed with " + target,
          size,
          cfg.maxMessageBytes());
    }
    return max;
  }

  private void checkRecord(int index, int n, int offsetDelta) {
    if (offsetDelta != n) {
      throw new InvalidRecordException(
          logPrefix
              + "batch "
              + index
              + " record "
              + n
              + " has offset delta "
              + offsetDelta
              + ", expected "
              + n);
    }
  }

  /**
   * Kafka refuses a record without a key in a compacted topic: the cleaner could only drop it, so
   * accepting it would acknowledge a write that is later lost for no reason the producer sees.
   */
  private InvalidRecordException keyless(int index, int record) {
    return new InvalidRecordException(
        logPrefix
            + "batch "
            + index
            + " record "
            + record
            + " has no key; the topic is compacted (cleanup.policy has compact), which needs a"
            + " key on every record");
  }

  private void checkTimestamp(long ts, int index, LogConfig cfg, long nowMs) {
    if (cfg.timestampType() != TimestampType.CREATE_TIME) {
      return;
    }
    boolean ok;
    if (ts >= nowMs) {
      ok = ts - nowMs <= cfg.timestampAfterMaxMs();
    } else {
      long behind = nowMs - ts;
      ok = behind >= 0 && behind <= cfg.timestampBeforeMaxMs(); // behind < 0: overflow, far past
    }
    if (!ok) {
      throw new InvalidTimestampException(
          logPrefix
              + "batch "
              + index
              + " has timestamp "
              + ts
              + " outside [now - "
              + cfg.timestampBeforeMaxMs()
              + " ms, now + "
              + cfg.timestampAfterMaxMs()
              + " ms] with now = "
              + nowMs);
    }
  }
}
