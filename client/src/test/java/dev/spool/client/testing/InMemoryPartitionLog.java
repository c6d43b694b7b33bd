package dev.spool.client.testing;

import dev.spool.common.ErrorCode;
import dev.spool.record.RecordBatch;
import dev.spool.record.RecordCursor;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An in-memory partition for the fake cluster: stored batches with broker-assigned base offsets and
 * leader epochs, idempotent-producer deduplication over the last five batches per producer
 * (answering a duplicate with its original offset, as Kafka does), a leader-epoch history for
 * divergence checks, and truncation to simulate an unclean leader change. Thread-safe.
 */
public final class InMemoryPartitionLog {
  /** The outcome of appending one batch. */
  public record AppendResult(ErrorCode error, long baseOffset, boolean duplicate) {}

  private record Stored(long baseOffset, long lastOffset, int epoch, byte[] bytes) {}

  private record SeqEntry(int firstSeq, int lastSeq, long baseOffset) {}

  private record EpochStart(int epoch, long startOffset) {}

  private final List<Stored> batches = new ArrayList<>();
  private final Map<Long, ArrayDeque<SeqEntry>> producers = new HashMap<>();
  private final Map<Long, Short> producerEpochs = new HashMap<>();
  private final List<EpochStart> epochs = new ArrayList<>();
  private long logEndOffset;

  public synchronized long logEndOffset() {
    return logEndOffset;
  }

  public synchronized int batchCount() {
    return batches.size();
  }

  /** Appends one batch (bytes from the producer) at {@code leaderEpoch}. */
  public synchronized AppendResult append(byte[] batchBytes, int leaderEpoch) {
    ByteBuffer buf = ByteBuffer.wrap(batchBytes);
    RecordBatch b = RecordBatch.at(buf, 0);
    String problem = b.validationError();
    if (problem != null) {
      return new AppendResult(ErrorCode.CORRUPT_MESSAGE, -1, false);
    }
    long pid = b.producerId();
    if (pid >= 0) {
      ArrayDeque<SeqEntry> seqs = producers.computeIfAbsent(pid, k -> new ArrayDeque<>());
      Short knownEpoch = producerEpochs.get(pid);
      if (knownEpoch != null && b.producerEpoch() < knownEpoch) {
        return new AppendResult(ErrorCode.INVALID_PRODUCER_EPOCH, -1, false);
      }
      for (SeqEntry e : seqs) {
        if (e.firstSeq() == b.baseSequence() && e.lastSeq() == b.lastSequence()) {
          return new AppendResult(ErrorCode.NONE, e.baseOffset(), true);
        }
      }
      int expected =
          seqs.isEmpty() ? 0 : RecordBatch.incrementSequence(seqs.peekLast().lastSeq(), 1);
      if (b.baseSequence() != expected) {
        return new AppendResult(ErrorCode.OUT_OF_ORDER_SEQUENCE, -1, false);
      }
      producerEpochs.put(pid, b.producerEpoch());
    }
    long base = logEndOffset;
    b.setBaseOffset(base);
    b.setPartitionLeaderEpoch(leaderEpoch);
    if (epochs.isEmpty() || epochs.get(epochs.size() - 1).epoch() < leaderEpoch) {
      epochs.add(new EpochStart(leaderEpoch, base));
    }
    long last = base + b.lastOffsetDelta();
    batches.add(new Stored(base, last, leaderEpoch, batchBytes.clone()));
    logEndOffset = last + 1;
    if (pid >= 0) {
      ArrayDeque<SeqEntry> seqs = producers.get(pid);
      seqs.addLast(new SeqEntry(b.baseSequence(), b.lastSequence(), base));
      while (seqs.size() > 5) {
        seqs.pollFirst();
      }
    }
    return new AppendResult(ErrorCode.NONE, base, false);
  }

  /** Batches from the one holding {@code offset}, at least one, up to {@code maxBytes}. */
  public synchronized byte[] read(long offset, int maxBytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Stored s : batches) {
      if (s.lastOffset() < offset) {
        continue;
      }
      if (out.size() > 0 && out.size() + s.bytes().length > maxBytes) {
        break;
      }
      out.writeBytes(s.bytes());
    }
    return out.toByteArray();
  }

  /** First offset whose record timestamp is >= {@code timestamp}, or -1. */
  public synchronized long offsetForTimestamp(long timestamp) {
    RecordCursor cursor = new RecordCursor();
    for (Stored s : batches) {
      RecordBatch b = RecordBatch.at(ByteBuffer.wrap(s.bytes()), 0);
      if (b.maxTimestamp() < timestamp) {
        continue;
      }
      cursor.reset(b);
      while (cursor.next()) {
        if (cursor.timestamp() >= timestamp) {
          return cursor.offset();
        }
      }
    }
    return -1;
  }

  /** Timestamp of the record at {@code offset}, or -1. */
  public synchronized long timestampAt(long offset) {
    RecordCursor cursor = new RecordCursor();
    for (Stored s : batches) {
      if (s.lastOffset() < offset || s.baseOffset() > offset) {
        continue;
      }
      cursor.reset(RecordBatch.at(ByteBuffer.wrap(s.bytes()), 0));
      while (cursor.next()) {
        if (cursor.offset() == offset) {
          return cursor.timestamp();
        }
      }
    }
    return -1;
  }

  /** Every record value as UTF-8, in offset order. */
  public synchronized List<String> values() {
    List<String> out = new ArrayList<>();
    RecordCursor cursor = new RecordCursor();
    for (Stored s : batches) {
      cursor.reset(RecordBatch.at(ByteBuffer.wrap(s.bytes()), 0));
      while (cursor.next()) {
        out.add(cursor.valueAsString());
      }
    }
    return out;
  }

  /** The latest epoch, or -1 for an empty history. */
  public synchronized int latestEpoch() {
    return epochs.isEmpty() ? -1 : epochs.get(epochs.size() - 1).epoch();
  }

  /**
   * Kafka's divergence check: for the follower/consumer's {@code lastFetchedEpoch} and {@code
   * fetchOffset}, the largest epoch <= lastFetchedEpoch and its end offset, when they show the
   * fetcher's log diverged from this one; {@code null} when it did not.
   */
  public synchronized long[] divergence(int lastFetchedEpoch, long fetchOffset) {
    if (lastFetchedEpoch < 0 || epochs.isEmpty()) {
      return null;
    }
    int idx = -1;
    for (int i = 0; i < epochs.size(); i++) {
      if (epochs.get(i).epoch() <= lastFetchedEpoch) {
        idx = i;
      }
    }
    if (idx < 0) {
      return new long[] {-1, epochs.get(0).startOffset()};
    }
    int epoch = epochs.get(idx).epoch();
    long end = idx + 1 < epochs.size() ? epochs.get(idx + 1).startOffset() : logEndOffset;
    if (epoch != lastFetchedEpoch || end < fetchOffset) {
      return new long[] {epoch, end};
    }
    return null;
  }

  /**
   * Simulates an unclean leader change: drops everything from {@code offset} on and starts {@code
   * newEpoch} there.
   */
  public synchronized void truncateAndStartEpoch(long offset, int newEpoch) {
    if (offset < logEndOffset && batches.stream().noneMatch(s -> s.baseOffset() == offset)) {
      throw new IllegalArgumentException(
          "the fake log truncates at batch boundaries only, not at " + offset);
    }
    batches.removeIf(s -> s.baseOffset() >= offset);
    logEndOffset = batches.isEmpty() ? 0 : batches.get(batches.size() - 1).lastOffset() + 1;
    epochs.removeIf(e -> e.startOffset() >= offset && e.epoch() < newEpoch);
    epochs.add(new EpochStart(newEpoch, logEndOffset));
    producers.clear();
  }
}
