package dev.spool.broker.log.internal;

import java.nio.file.Path;

/**
 * Sparse timestamp → offset index of one segment ({@code NNNNNNNNNNNNNNNNNNNN.timeindex}).
 *
 * <p>File layout: entries back to back, no header, no checksum (rebuilt after a crash):
 *
 * <pre>
 * pos  field           type    meaning
 *   0  timestamp       int64   largest record timestamp in the segment so far (ms)
 *   8  relativeOffset  uint32  last offset of the batch holding it - segment base offset
 * </pre>
 *
 * Timestamps strictly increase from entry to entry. An entry (T, O) means every record at an offset
 * ≤ O has a timestamp ≤ T. To find the first record with timestamp ≥ X, start scanning after the
 * greatest entry with T &lt; X. Threads: see {@link MmapIndex}.
 */
public final class TimeIndex extends MmapIndex {
  public static final int ENTRY_SIZE = 12;

  public TimeIndex(Path file, long baseOffset, int maxIndexBytes, boolean active) {
    super(file, baseOffset, maxIndexBytes, ENTRY_SIZE, active);
  }

  public long timestampAt(int slot) {
    return buffer().getLong(slot * ENTRY_SIZE);
  }

  public long offsetAt(int slot) {
    return baseOffset + Integer.toUnsignedLong(buffer().getInt(slot * ENTRY_SIZE + 8));
  }

  /** Last entry's timestamp, or -1 when empty. */
  public long lastTimestamp() {
    int n = entries();
    return n == 0 ? -1L : timestampAt(n - 1);
  }

  /** Appends when {@code timestamp} is larger than the last entry's. Owner thread. */
  public void maybeAppend(long timestamp, long offset) {
    int slot = entries();
    if (slot > 0 && timestamp <= timestampAt(slot - 1)) {
      return;
    }
    if (slot >= maxEntries()) {
      throw new IllegalStateException("time index " + file() + " is full (" + slot + " entries)");
    }
    long relative = offset - baseOffset;
    if (relative < 0 || relative > 0xffffffffL || (slot > 0 && offset < offsetAt(slot - 1))) {
      throw new IllegalStateException(
          "offset " + offset + " cannot follow in time index " + file());
    }
    buffer().putLong(slot * ENTRY_SIZE, timestamp);
    buffer().putInt(slot * ENTRY_SIZE + 8, (int) relative);
    publishAppend(slot);
  }

  /** Greatest slot with timestamp strictly below {@code timestamp}, or -1. */
  public int lastSlotBelow(long timestamp) {
    return floorSlot(timestamp - 1, entries(), this::timestampAt);
  }

  /** Drops entries whose offset is ≥ {@code offset}. */
  public void truncateToOffset(long offset) {
    int n = entries();
    int keep = n;
    while (keep > 0 && offsetAt(keep - 1) >= offset) {
      keep--;
    }
    truncateToEntries(keep);
  }

  /** Null when the entries make sense for a segment whose next offset is {@code nextOffset}. */
  public String sanityCheck(long nextOffset) {
    int n = entries();
    long prevTs = Long.MIN_VALUE;
    long prevOffset = -1;
    for (int i = 0; i < n; i++) {
      long t = timestampAt(i);
      long o = offsetAt(i);
      if (t <= prevTs || o < prevOffset || o >= nextOffset) {
        return "entry "
            + i
            + " ("
            + t
            + ", "
            + o
            + ") is out of order or past offset "
            + nextOffset;
      }
      prevTs = t;
      prevOffset = o;
    }
    return null;
  }
}
