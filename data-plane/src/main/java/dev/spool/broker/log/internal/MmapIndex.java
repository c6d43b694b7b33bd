package dev.spool.broker.log.internal;

import dev.spool.broker.log.LogStorageException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A memory-mapped file of fixed-size entries, preallocated to its maximum size while its segment is
 * active and trimmed to the written entries when the segment rolls or closes (so a clean restart
 * knows how many entries there are from the file length).
 *
 * <p>Threads: entries are appended and truncated by the partition's owner thread only. Any thread
 * may read: {@link #entries()} is a volatile published after the entry bytes are written, and
 * readers use absolute gets only. A mapping is never unmapped explicitly: a reader may still hold
 * it, and touching an unmapped buffer would crash the JVM; the GC unmaps it once unreachable.
 */
abstract class MmapIndex {
  private final int entrySize;
  protected final long baseOffset;
  private volatile Path file;
  private volatile MappedByteBuffer mmap;
  private volatile int maxEntries;
  private volatile int entries;

  MmapIndex(Path file, long baseOffset, int maxIndexBytes, int entrySize, boolean active) {
    this.entrySize = entrySize;
    this.baseOffset = baseOffset;
    this.file = file;
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      long length = raf.length();
      int existing = (int) Math.min(length / entrySize, Integer.MAX_VALUE);
      long wanted =
          active
              ? Math.max(roundDown(maxIndexBytes), (long) existing * entrySize)
              : (long) existing * entrySize;
      if (length != wanted) {
        raf.setLength(wanted);
      }
      this.mmap = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, wanted);
      this.maxEntries = (int) (wanted / entrySize);
      // A fresh file has no entries; an existing file of an active segment is taken at its
      // length (a trimmed file from a clean shutdown). The loader checks it and rebuilds
      // it when it does not make sense (a crash leaves a preallocated file full of zeros).
      this.entries = length == 0 ? 0 : existing;
    } catch (IOException e) {
      throw new LogStorageException("cannot open index " + file + ": " + e.getMessage(), e);
    }
  }

  private int roundDown(int bytes) {
    return bytes / entrySize * entrySize;
  }

  public Path file() {
    return file;
  }

  public int entries() {
    return entries;
  }

  public int maxEntries() {
    return maxEntries;
  }

  public boolean isFull() {
    return entries >= maxEntries;
  }

  public long baseOffset() {
    return baseOffset;
  }

  protected MappedByteBuffer buffer() {
    return mmap;
  }

  /** Writes the next entry through {@code writer} and publishes it. Owner thread. */
  protected void publishAppend(int slot) {
    entries = slot + 1;
  }

  /** Keeps the first {@code count} entries. Owner thread. */
  public void truncateToEntries(int count) {
    if (count < 0 || count > entries) {
      throw new IllegalStateException(
          "cannot truncate " + file + " with " + entries + " entries to " + count);
    }
    entries = count;
  }

  public void reset() {
    truncateToEntries(0);
  }

  /** Shrinks the file and mapping to the written entries (on roll and close). Owner thread. */
  public void trimToValidSize() {
    resize((long) entries * entrySize);
  }

  /** Grows the file and mapping to the maximum again (when a segment becomes active). */
  public void resizeToMax(int maxIndexBytes) {
    resize(Math.max((long) roundDown(maxIndexBytes), (long) entries * entrySize));
  }

  private void resize(long bytes) {
    if (bytes == (long) maxEntries * entrySize && Files.exists(file)) {
      return;
    }
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      mmap.force();
      raf.setLength(bytes);
      mmap = raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, bytes);
      maxEntries = (int) (bytes / entrySize);
    } catch (IOException e) {
      throw new LogStorageException("cannot resize index " + file + ": " + e.getMessage(), e);
    }
  }

  public void flush() {
    mmap.force();
  }

  /** Renames the file (if it exists), replacing an existing {@code target} when asked. */
  public void renameTo(Path target, boolean replaceExisting) {
    try {
      if (Files.exists(file)) {
        if (replaceExisting) {
          Files.move(file, target, StandardCopyOption.REPLACE_EXISTING);
        } else {
          Files.move(file, target);
        }
      }
      file = target;
    } catch (IOException e) {
      throw new LogStorageException(
          "cannot rename " + file + " to " + target + ": " + e.getMessage(), e);
    }
  }

  public void deleteIfExists() {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new LogStorageException("cannot delete " + file + ": " + e.getMessage(), e);
    }
  }

  /** Binary search: the largest slot whose key (per {@code keyAt}) is ≤ target, or -1. */
  protected int floorSlot(long target, int count, SlotKey keyAt) {
    int lo = 0;
    int hi = count - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (keyAt.key(mid) <= target) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  @FunctionalInterface
  protected interface SlotKey {
    long key(int slot);
  }
}
