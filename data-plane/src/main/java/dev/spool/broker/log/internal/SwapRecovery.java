package dev.spool.broker.log.internal;

import dev.spool.broker.log.LogStorageException;
import dev.spool.record.CorruptRecordException;
import dev.spool.record.RecordBatch;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finishes or undoes, at open, a replacement of segments by a cleaned one that a crash interrupted
 * (the protocol is in {@link LogSegments#replace}):
 *
 * <ul>
 *   <li>{@code *.cleaned} files: the cleaner had not committed; they are deleted and the old
 *       segments stay;
 *   <li>{@code NNN.log.swap}: committed. Its batches are read (they were flushed before the commit)
 *       to find the offsets it covers, {@code [NNN, next offset)}; every segment whose base offset
 *       lies in that range is one it replaces and is deleted; then the swap file takes its final
 *       name. Index {@code .swap} files are deleted: the loader rebuilds the indexes.
 * </ul>
 *
 * Each step is idempotent, so a crash during recovery repeats it. A swap file that does not read
 * back cleanly is not a crash's leftover but corruption: the partition is refused (a {@link
 * LogStorageException} naming the file) rather than opened with a mix of old and cleaned data.
 *
 * <p>Threads: the partition's recovery thread, before the log is published.
 */
final class SwapRecovery {
  private static final Logger log = LoggerFactory.getLogger(SwapRecovery.class);
  private static final int SCAN_BUFFER_BYTES = 1 << 20;

  private final Path dir;
  private final String logPrefix;

  SwapRecovery(Path dir, String logPrefix) {
    this.dir = dir;
    this.logPrefix = logPrefix;
  }

  /** Runs the recovery; returns the base offsets of the swaps it finished. */
  TreeSet<Long> run() {
    TreeSet<Long> swaps = new TreeSet<>();
    for (Path p : list()) {
      String name = p.getFileName().toString();
      if (name.endsWith(LogSegment.CLEANED_SUFFIX)) {
        log.info("{}removing {}: a clean that had not committed", logPrefix, name);
        delete(p);
      } else if (name.endsWith(LogSegment.LOG_SUFFIX + LogSegment.SWAP_SUFFIX)) {
        swaps.add(parseBase(name));
      } else if (name.endsWith(LogSegment.SWAP_SUFFIX)) {
        delete(p); // an index of a swap: rebuilt from the log file
      }
    }
    for (long base : swaps) {
      finish(base);
    }
    if (!swaps.isEmpty()) {
      CheckpointFile.fsyncDirectory(dir);
    }
    return swaps;
  }

  private void finish(long base) {
    Path swap = swapFile(base);
    long next = nextOffset(swap, base);
    List<Long> replaced = new ArrayList<>();
    for (Path p : list()) {
      String name = p.getFileName().toString();
      if (name.endsWith(LogSegment.LOG_SUFFIX)) {
        long b = parseBase(name);
        if (b >= base && b < Math.max(next, base + 1)) {
          replaced.add(b);
        }
      }
    }
    for (long b : replaced) {
      delete(LogSegment.offsetIndexFile(dir, b));
      delete(LogSegment.timeIndexFile(dir, b));
      delete(LogSegment.logFile(dir, b));
    }
    delete(LogSegment.offsetIndexFile(dir, base));
    delete(LogSegment.timeIndexFile(dir, base));
    try {
      Files.move(swap, LogSegment.logFile(dir, base));
    } catch (IOException e) {
      throw new LogStorageException(
          logPrefix + "cannot rename " + swap + " to its final name: " + e.getMessage(), e);
    }
    log.info(
        "{}finished the cleaner's swap of {}: it replaces segments {} (offsets {} to {})",
        logPrefix,
        swap.getFileName(),
        replaced,
        base,
        next);
  }

  /** The offset after the last batch of the swap file, which must read back whole. */
  private long nextOffset(Path swap, long base) {
    try (FileChannel ch = FileChannel.open(swap, StandardOpenOption.READ)) {
      SegmentScanner scanner = new SegmentScanner(ch, swap, 0, ch.size(), SCAN_BUFFER_BYTES, true);
      long next = base;
      for (RecordBatch b = scanner.next(); b != null; b = scanner.next()) {
        String problem = LogLoader.offsetProblem(b, next, base, null);
        if (problem != null) {
          throw new CorruptRecordException(problem, scanner.batchPosition());
        }
        next = b.nextOffset();
      }
      return next;
    } catch (CorruptRecordException e) {
      throw new LogStorageException(
          logPrefix
              + swap
              + " was committed but is corrupt at position "
              + e.position()
              + " ("
              + e.getMessage()
              + "); refusing to open the partition with it or without it",
          e);
    } catch (IOException e) {
      throw new LogStorageException(logPrefix + "cannot read " + swap + ": " + e.getMessage(), e);
    }
  }

  private Path swapFile(long base) {
    Path log = LogSegment.logFile(dir, base);
    return log.resolveSibling(log.getFileName() + LogSegment.SWAP_SUFFIX);
  }

  private List<Path> list() {
    try (Stream<Path> files = Files.list(dir)) {
      return files.sorted().toList();
    } catch (IOException e) {
      throw new LogStorageException(logPrefix + "cannot list " + dir + ": " + e.getMessage(), e);
    }
  }

  private long parseBase(String name) {
    String digits = name.substring(0, Math.min(20, name.length()));
    try {
      if (digits.length() != 20 || name.charAt(20) != '.') {
        throw new NumberFormatException(name);
      }
      return Long.parseLong(digits);
    } catch (NumberFormatException | IndexOutOfBoundsException e) {
      throw new LogStorageException(logPrefix + "unexpected file name " + dir.resolve(name));
    }
  }

  private void delete(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException e) {
      throw new LogStorageException(logPrefix + "cannot delete " + p + ": " + e.getMessage(), e);
    }
  }
}
