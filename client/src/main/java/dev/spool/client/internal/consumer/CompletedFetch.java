package dev.spool.client.internal.consumer;

import dev.spool.client.ConsumerRecord;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.EpochEndOffset;
import dev.spool.protocol.message.FetchResponse;
import dev.spool.protocol.message.LeaderHint;
import dev.spool.record.CorruptRecordException;
import dev.spool.record.Header;
import dev.spool.record.MemoryRecords;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordCursor;
import dev.spool.record.UnsupportedCompressionException;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One partition's part of one fetch answer: its error or diverging epoch, and its record bytes (a
 * retained slice of the response frame, released when drained or dropped). Records are decoded
 * lazily, on the application thread, as {@link #drain} hands them out.
 *
 * <p>A trailing partial batch (a broker may cut the last batch at the byte limit) is ignored; the
 * next fetch starts at it. Records below the consumer's position (the start of the first batch when
 * the fetch offset is inside it) are skipped; control batches are skipped. A compressed batch is
 * inflated whole when its turn comes (into the reused array of the partition's cursor) and its
 * records are handed out like any others. A bad CRC or a corrupt compressed payload raises
 * CORRUPT_MESSAGE, an unknown codec id UNSUPPORTED_COMPRESSION_TYPE, never silently.
 */
final class CompletedFetch {
  final TopicPartition topicPartition;
  final int generation;
  final long fetchOffset;
  final ErrorCode error;
  final String errorMessage;
  final EpochEndOffset divergingEpoch;
  final LeaderHint currentLeader;
  final long highWatermark;
  private ByteBuf data;
  private ByteBuffer nio;
  private int validBytes;
  private long nextFetchOffset = -1;
  private int lastBatchEpoch = -1;
  private MemoryRecords.BatchIterator batches;
  private RecordBatch batch;
  private boolean inBatch;

  CompletedFetch(
      TopicPartition tp,
      int generation,
      long fetchOffset,
      FetchResponse.PartitionResponse p,
      ByteBuf data) {
    this.topicPartition = tp;
    this.generation = generation;
    this.fetchOffset = fetchOffset;
    this.error = p.getErrorCode();
    this.errorMessage = p.getErrorMessage();
    this.divergingEpoch = p.hasDivergingEpoch() ? p.getDivergingEpoch() : null;
    this.currentLeader = p.hasCurrentLeader() ? p.getCurrentLeader() : null;
    this.highWatermark = p.getHighWatermark();
    this.data = data;
  }

  boolean hasData() {
    return data != null && data.isReadable();
  }

  int sizeInBytes() {
    return validBytes;
  }

  /**
   * Walks the batch headers (no CRC yet) to find where the data ends: the offset to fetch next and
   * the epoch of the last whole batch. Returns false when there is no whole batch.
   */
  boolean scan() {
    // Records are parsed from a heap array: reading a direct buffer byte by byte (varints, keys,
    // values) costs an index check and an off-heap access per byte and measured about half the
    // consumer's CPU. The network client receives fetch answers into (pooled) heap arrays, so
    // this is normally a view; a direct buffer (a custom network setup) is copied once.
    if (data.hasArray()) {
      nio =
          ByteBuffer.wrap(
              data.array(), data.arrayOffset() + data.readerIndex(), data.readableBytes());
    } else {
      byte[] heap = io.netty.buffer.ByteBufUtil.getBytes(data);
      data.release();
      data = io.netty.buffer.Unpooled.wrappedBuffer(heap);
      nio = ByteBuffer.wrap(heap);
    }
    int start = nio.position();
    int pos = start;
    int end = nio.limit();
    RecordBatch view = new RecordBatch();
    while (end - pos >= RecordBatch.HEADER_SIZE_BYTES) {
      view.wrap(nio, pos);
      int size = view.batchLength() + RecordBatch.LOG_OVERHEAD;
      if (size < RecordBatch.HEADER_SIZE_BYTES || size > end - pos) {
        break;
      }
      nextFetchOffset = view.nextOffset();
      lastBatchEpoch = view.partitionLeaderEpoch();
      pos += size;
    }
    validBytes = pos - start;
    nio.limit(pos);
    return validBytes > 0;
  }

  long nextFetchOffset() {
    return nextFetchOffset;
  }

  int lastBatchEpoch() {
    return lastBatchEpoch;
  }

  /**
   * Appends up to {@code max} records at or after {@code state.position} to {@code out}, moving the
   * position (and its epoch) past each. Returns true when this fetch is used up.
   */
  boolean drain(int max, PartitionFetchState state, List<ConsumerRecord> out, boolean checkCrcs) {
    if (batches == null) {
      MemoryRecords records = MemoryRecords.wrap(nio);
      batches = checkCrcs ? records.batches() : records.batchesWithoutCrcCheck();
    }
    // The partition's cursor, not one per fetch: its inflate array then grows once per partition
    // instead of once per fetch answer. Safe because a partition's fetches drain in order, each to
    // its end (or are dropped) before the next starts, and the next one resets the cursor first.
    RecordCursor cursor = state.cursor;
    int taken = 0;
    while (taken < max) {
      if (!inBatch) {
        if (!batches.hasNext()) {
          return true;
        }
        try {
          batch = batches.next();
        } catch (CorruptRecordException e) {
          throw new SpoolException(
              ErrorCode.CORRUPT_MESSAGE,
              "fetched batch of "
                  + topicPartition
                  + " near offset "
                  + state.position
                  + " is corrupt: "
                  + e.getMessage(),
              e);
        }
        if (batch.lastOffset() < state.position) {
          continue;
        }
        if (batch.isControl()) {
          state.advanceTo(batch.nextOffset(), batch.partitionLeaderEpoch());
          continue;
        }
        try {
          cursor.reset(batch);
        } catch (UnsupportedCompressionException e) {
          throw new SpoolException(
              ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
              topicPartition + " at offset " + batch.baseOffset() + ": " + e.getMessage(),
              e);
        } catch (CorruptRecordException e) {
          throw new SpoolException(
              ErrorCode.CORRUPT_MESSAGE,
              "fetched batch of "
                  + topicPartition
                  + " at offset "
                  + batch.baseOffset()
                  + " cannot be read: "
                  + e.getMessage(),
              e);
        }
        inBatch = true;
      }
      if (!cursor.next()) {
        inBatch = false;
        state.advanceTo(batch.nextOffset(), batch.partitionLeaderEpoch());
        continue;
      }
      if (cursor.offset() < state.position) {
        continue;
      }
      out.add(toRecord(cursor, batch));
      state.advanceTo(cursor.offset() + 1, batch.partitionLeaderEpoch());
      taken++;
    }
    if (inBatch && cursor.remainingBytes() == 0) {
      inBatch = false;
      state.advanceTo(batch.nextOffset(), batch.partitionLeaderEpoch());
    }
    return !inBatch && !batches.hasNext();
  }

  private ConsumerRecord toRecord(RecordCursor c, RecordBatch b) {
    ByteBuffer buf = c.buffer();
    List<Header> headers;
    if (c.headerCount() == 0) {
      headers = List.of();
    } else {
      headers = new ArrayList<>(c.headerCount());
      while (c.nextHeader()) {
        headers.add(new Header(c.headerKeyAsString(), c.headerValueAsBytes()));
      }
    }
    return new ConsumerRecord(
        topicPartition.topic(),
        topicPartition.partition(),
        c.offset(),
        c.timestamp(),
        b.timestampType(),
        bytes(buf, c.keyPosition(), c.keyLength()),
        bytes(buf, c.valuePosition(), c.valueLength()),
        headers,
        b.partitionLeaderEpoch());
  }

  private static byte[] bytes(ByteBuffer buf, int pos, int len) {
    if (len < 0) {
      return null;
    }
    if (buf.hasArray()) {
      // copyOfRange skips zeroing the new array (it is filled at once).
      int from = buf.arrayOffset() + pos;
      return java.util.Arrays.copyOfRange(buf.array(), from, from + len);
    }
    byte[] out = new byte[len];
    buf.get(pos, out);
    return out;
  }

  /** Releases the record bytes; safe to call more than once. */
  void release() {
    ByteBuf d = data;
    data = null;
    nio = null;
    if (d != null && d.refCnt() > 0) {
      d.release();
    }
  }
}
