package dev.spool.broker.log.internal;

import java.nio.file.Path;

/**
 * Sparse offset → position index of one segment ({@code NNNNNNNNNNNNNNNNNNNN.index}).
 *
 * <p>File layout: entries back to back, no header, no checksum (it is rebuilt after a crash):
 *
 * <pre>
 * pos  field           type    meaning
 *   0  relativeOffset  uint32  a batch's LAST offset - segment base offset
 *   4  position        uint32  byte position of that batch's first byte in the .log file
 * </pre>
 *
 * Both columns strictly increase. One entry is added per {@code index.interval.bytes} of log.
 * Lookup of offset X: the greatest entry with offset ≤ X gives a position at or before the batch
 * holding X; scanning batch headers from there finds it. Threads: see {@link MmapIndex}.
 */
public final class OffsetIndex extends MmapIndex {
  public static final int ENTRY_SIZE = 8;

  public OffsetIndex(Path file, long baseOffset, int maxIndexBytes, boolean active) {
    super(file, baseOffset, maxIndexBytes, ENTRY_SIZE, active);
  }

  public long offsetAt(int slot) {
    return baseOffset + Integer.toUnsignedLong(buffer().getInt(slot * ENTRY_SIZE));
  }

  public int positionAt(int slot) {
    return buffer().getInt(slot * ENTRY_SIZE + 4);
  }

  public long lastOffset() {
    int n = entries();
    return n == 0 ? baseOffset : offsetAt(n - 1);
  }

  /** Appends (lastOffsetOfBatch, position). Both must exceed the last entry's. Owner thread. */
  public void append(long offset, int position) {
    int slot = entries();
    if (slot >= maxEntries()) {
      throw new IllegalStateException("offset index " + file() + " is full (" + slot + " entries)");
    }
    long relative = offset - baseOffset;
    if (relative < 0 || relative > 0xffffffffL) {
      throw new IllegalStateException("offset " + offset + " does not fit in index " + file());
    }
    if (slot > 0 && (offset <= offsetAt(slot - 1) || position <= positionAt(slot - 1))) {
      throw new IllegalStateException(
          "offset index "
              + file()
              + " must increase: ("
              + offset
              + ", "
              + position
              + ") after ("
              + offsetAt(slot - 1)
              + ", "
              + positionAt(slot - 1)
              + ")");
    }
    buffer().putInt(slot * ENTRY_SIZE, (int) relative);
    buffer().putInt(slot * ENTRY_SIZE + 4, position);
    publishAppend(slot);
  }

  /** Greatest slot with offset ≤ target among the first {@code count} entries, or -1. */
  public int floorSlotForOffset(long target, int count) {
    return floorSlot(target, count, this::offsetAt);
  }

  /** Greatest slot with position ≤ target among the first {@code count} entries, or -1. */
  public int floorSlotForPosition(long target, int count) {
    return floorSlot(target, count, this::positionAt);
  }

  /** Position to start scanning for {@code offset}: at or before its batch. */
  public int lookupPosition(long offset) {
    int slot = floorSlotForOffset(offset, entries());
    return slot < 0 ? 0 : positionAt(slot);
  }

  /** Drops entries whose position is ≥ {@code position} (after a log truncation). */
  public void truncateToPosition(int position) {
    int slot = floorSlotForPosition(position - 1L, entries());
    truncateToEntries(slot + 1);
  }

  /** Null when the entries make sense for a log of {@code logSizeBytes}, else the reason. */
  public String sanityCheck(long logSizeBytes) {
    int n = entries();
    long prevOffset = -1;
    long prevPosition = -1;
    for (int i = 0; i < n; i++) {
      long o = offsetAt(i);
      long p = Integer.toUnsignedLong(positionAt(i));
      if (o <= prevOffset || p <= prevPosition || p >= logSizeBytes) {
        return "entry "
            + i
            + " ("
            + o
            + ", "
            + p
            + ") is not increasing or lies past the log end "
            + logSizeBytes;
      }
      prevOffset = o;
      prevPosition = p;
    }
    return null;
  }
}
