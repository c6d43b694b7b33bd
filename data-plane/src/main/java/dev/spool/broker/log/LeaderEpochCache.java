package dev.spool.broker.log;

import dev.spool.broker.log.internal.CheckpointFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partition's leader-epoch history: for each epoch, the first offset written in it. Followers
 * use {@link #endOffsetFor} (Kafka's OffsetForLeaderEpoch) to find where their log diverges from a
 * new leader's. Persisted after every change in {@code leader-epoch-checkpoint} (Kafka's format):
 *
 * <pre>
 * 0            version
 * 2            entry count
 * 3 0          epoch (int32) and start offset (int64), ascending in both
 * 5 1200
 * </pre>
 *
 * Invariant: epochs and start offsets both strictly increase.
 *
 * <p>Threads: mutated by the partition's owner thread; readable from any thread (the entries are an
 * immutable list behind a volatile reference).
 */
public final class LeaderEpochCache {
  private static final Logger log = LoggerFactory.getLogger(LeaderEpochCache.class);
  public static final String CHECKPOINT_FILE = "leader-epoch-checkpoint";
  public static final int UNDEFINED_EPOCH = -1;
  public static final long UNDEFINED_OFFSET = -1L;

  public record EpochEntry(int epoch, long startOffset) {}

  /**
   * Answer of {@link #endOffsetFor}: (-1, -1) when the epoch is unknown and after every known one.
   */
  public record EpochEndOffset(int epoch, long endOffset) {}

  private static final CheckpointFile.EntryFormat<EpochEntry> FORMAT =
      new CheckpointFile.EntryFormat<>() {
        @Override
        public String format(EpochEntry e) {
          return e.epoch + " " + e.startOffset;
        }

        @Override
        public EpochEntry parse(String line) {
          String[] f = line.trim().split(" ");
          if (f.length != 2) {
            throw new IllegalArgumentException("expected 'epoch offset', got '" + line + "'");
          }
          return new EpochEntry(Integer.parseInt(f[0]), Long.parseLong(f[1]));
        }
      };

  private final CheckpointFile<EpochEntry> checkpoint; // null: in memory only
  private final LongSupplier logEndOffset;
  private final String logPrefix;
  private volatile List<EpochEntry> entries = List.of();

  /** An in-memory cache (for pure tests); {@code logEndOffset} answers the latest epoch's end. */
  public LeaderEpochCache(LongSupplier logEndOffset) {
    this(null, logEndOffset, "");
  }

  /**
   * A cache persisted in {@code partitionDir/leader-epoch-checkpoint}, loaded now. An unparsable or
   * non-monotonic file is logged and treated as empty (recovery re-derives epochs from the batches
   * it scans).
   */
  public static LeaderEpochCache load(
      Path partitionDir, LongSupplier logEndOffset, String logPrefix) {
    CheckpointFile<EpochEntry> file =
        new CheckpointFile<>(partitionDir.resolve(CHECKPOINT_FILE), 0, FORMAT);
    LeaderEpochCache cache = new LeaderEpochCache(file, logEndOffset, logPrefix);
    List<EpochEntry> loaded = file.read().orElse(List.of());
    for (int i = 1; i < loaded.size(); i++) {
      if (loaded.get(i).epoch <= loaded.get(i - 1).epoch
          || loaded.get(i).startOffset <= loaded.get(i - 1).startOffset) {
        log.warn("{}{} is not monotonic at entry {}; ignoring it", logPrefix, file.file(), i);
        loaded = List.of();
        break;
      }
    }
    cache.entries = List.copyOf(loaded);
    return cache;
  }

  private LeaderEpochCache(
      CheckpointFile<EpochEntry> checkpoint, LongSupplier logEndOffset, String logPrefix) {
    this.checkpoint = checkpoint;
    this.logEndOffset = logEndOffset;
    this.logPrefix = logPrefix;
  }

  public List<EpochEntry> entries() {
    return entries;
  }

  public OptionalInt latestEpoch() {
    List<EpochEntry> e = entries;
    return e.isEmpty() ? OptionalInt.empty() : OptionalInt.of(e.get(e.size() - 1).epoch);
  }

  public Optional<EpochEntry> latestEntry() {
    List<EpochEntry> e = entries;
    return e.isEmpty() ? Optional.empty() : Optional.of(e.get(e.size() - 1));
  }

  /**
   * Records that {@code epoch} starts at {@code startOffset}. A no-op when it is already the latest
   * epoch with an earlier or equal start. Entries that conflict (an epoch ≥ this one, or a start
   * offset ≥ this one) are removed first, as in Kafka. Owner thread.
   */
  public void assign(int epoch, long startOffset) {
    if (epoch < 0 || startOffset < 0) {
      throw new IllegalArgumentException(
          "invalid epoch entry (" + epoch + ", " + startOffset + ")");
    }
    List<EpochEntry> current = entries;
    EpochEntry latest = current.isEmpty() ? null : current.get(current.size() - 1);
    if (latest != null && latest.epoch == epoch && latest.startOffset <= startOffset) {
      return;
    }
    List<EpochEntry> next = new ArrayList<>(current.size() + 1);
    for (EpochEntry e : current) {
      if (e.epoch < epoch && e.startOffset < startOffset) {
        next.add(e);
      } else {
        log.info(
            "{}leader epoch entry {} removed by new entry ({}, {})",
            logPrefix,
            e,
            epoch,
            startOffset);
      }
    }
    next.add(new EpochEntry(epoch, startOffset));
    publish(next);
  }

  /**
   * Kafka's OffsetForLeaderEpoch: for the largest known epoch ≤ {@code requestedEpoch}, that epoch
   * and its end offset (the next epoch's start offset, or the log end offset for the latest epoch).
   * If the requested epoch is below every known epoch: (requested, first start offset). If it is
   * above every known epoch and not the latest: (-1, -1).
   */
  public EpochEndOffset endOffsetFor(int requestedEpoch, long logEndOffset) {
    List<EpochEntry> e = entries;
    if (requestedEpoch == UNDEFINED_EPOCH || e.isEmpty()) {
      return new EpochEndOffset(UNDEFINED_EPOCH, UNDEFINED_OFFSET);
    }
    EpochEntry latest = e.get(e.size() - 1);
    if (latest.epoch == requestedEpoch) {
      return new EpochEndOffset(requestedEpoch, logEndOffset);
    }
    int higher = -1;
    for (int i = 0; i < e.size(); i++) {
      if (e.get(i).epoch > requestedEpoch) {
        higher = i;
        break;
      }
    }
    if (higher < 0) {
      return new EpochEndOffset(UNDEFINED_EPOCH, UNDEFINED_OFFSET);
    }
    if (higher == 0) {
      return new EpochEndOffset(requestedEpoch, e.get(0).startOffset);
    }
    return new EpochEndOffset(e.get(higher - 1).epoch, e.get(higher).startOffset);
  }

  /** {@link #endOffsetFor(int, long)} with the log's current end offset. */
  public EpochEndOffset endOffsetFor(int requestedEpoch) {
    return endOffsetFor(requestedEpoch, logEndOffset.getAsLong());
  }

  /** The epoch of the batch holding {@code offset} as far as the history says, if known. */
  public OptionalInt epochForOffset(long offset) {
    List<EpochEntry> e = entries;
    for (int i = e.size() - 1; i >= 0; i--) {
      if (e.get(i).startOffset <= offset) {
        return OptionalInt.of(e.get(i).epoch);
      }
    }
    return OptionalInt.empty();
  }

  /** Removes entries starting at or after {@code endOffset} (the log was truncated there). */
  public void truncateFromEnd(long endOffset) {
    List<EpochEntry> e = entries;
    if (e.isEmpty() || e.get(e.size() - 1).startOffset < endOffset) {
      return;
    }
    publish(e.stream().filter(x -> x.startOffset < endOffset).toList());
  }

  /**
   * The log now starts at {@code startOffset}: entries wholly before it go, and the entry covering
   * it is moved to start there.
   */
  public void truncateFromStart(long startOffset) {
    List<EpochEntry> e = entries;
    if (e.isEmpty() || e.get(0).startOffset >= startOffset) {
      return;
    }
    List<EpochEntry> next = new ArrayList<>();
    EpochEntry covering = null;
    for (EpochEntry x : e) {
      if (x.startOffset <= startOffset) {
        covering = x;
      } else {
        next.add(x);
      }
    }
    if (covering != null) {
      next.add(0, new EpochEntry(covering.epoch, startOffset));
    }
    publish(next);
  }

  public void clear() {
    publish(List.of());
  }

  private void publish(List<EpochEntry> next) {
    for (int i = 1; i < next.size(); i++) {
      if (next.get(i).epoch <= next.get(i - 1).epoch
          || next.get(i).startOffset <= next.get(i - 1).startOffset) {
        throw new IllegalStateException(
            logPrefix + "leader epoch history would not be monotonic: " + next);
      }
    }
    entries = List.copyOf(next);
    if (checkpoint != null) {
      checkpoint.write(next);
    }
  }

  /** Persists the current entries again (e.g. after the partition directory was recreated). */
  public void flush() {
    if (checkpoint != null) {
      checkpoint.write(entries);
    }
  }

  @Override
  public String toString() {
    return "LeaderEpochCache" + entries;
  }
}
