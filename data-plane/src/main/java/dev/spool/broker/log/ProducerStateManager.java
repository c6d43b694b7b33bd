package dev.spool.broker.log;

import dev.spool.broker.log.ProducerStateEntry.BatchMetadata;
import dev.spool.broker.log.internal.CheckpointFile;
import dev.spool.broker.log.internal.LogSegment;
import dev.spool.broker.log.internal.ProducerSnapshotCodec;
import dev.spool.record.RecordBatch;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Idempotent-producer state of one partition: per producer id, its epoch and its newest 5 batches,
 * so that a retried batch is recognised and answered with its original offsets, and a gap in
 * sequences is refused. Rules on the leader (as Kafka since KIP-360):
 *
 * <ul>
 *   <li>producer id -1: no check;
 *   <li>epoch older than the known one: {@link InvalidProducerEpochException};
 *   <li>(epoch, firstSeq, lastSeq) equal to one of the cached batches: duplicate;
 *   <li>same epoch: firstSeq must follow the newest cached lastSeq (wrapping past {@link
 *       Integer#MAX_VALUE} to 0); newer epoch: firstSeq must be 0; else {@link
 *       OutOfOrderSequenceException};
 *   <li>unknown producer id: accepted (its state may have been removed with old segments).
 * </ul>
 *
 * Followers and recovery apply batches without checks ({@link #update}). The state is snapshotted
 * to {@code NNNNNNNNNNNNNNNNNNNN.snapshot} files (layout in {@link ProducerSnapshotCodec}) at
 * segment roll and clean shutdown; the newest 2 are kept.
 *
 * <p>Threads: owned by the partition's owner thread, like the log's mutations.
 */
public final class ProducerStateManager {
  private static final Logger log = LoggerFactory.getLogger(ProducerStateManager.class);
  public static final int NUM_BATCHES_TO_RETAIN = 5;
  public static final String SNAPSHOT_SUFFIX = ".snapshot";
  static final int SNAPSHOTS_TO_KEEP = 2;

  private final Path dir; // null: in memory only
  private final String logPrefix;
  private final Map<Long, ProducerStateEntry> producers = new HashMap<>();
  private long mapEndOffset;

  public ProducerStateManager(Path dir, String logPrefix) {
    this.dir = dir;
    this.logPrefix = logPrefix;
  }

  /** The offset up to which the state reflects the log. */
  public long mapEndOffset() {
    return mapEndOffset;
  }

  public Optional<ProducerStateEntry> entry(long producerId) {
    return Optional.ofNullable(producers.get(producerId));
  }

  public Map<Long, ProducerStateEntry> activeProducers() {
    return Map.copyOf(producers);
  }

  // ---- leader appends: check against a staged copy, commit after the write ----

  /** Starts checking the batches of one leader append. */
  public Staging stage() {
    return new Staging();
  }

  /**
   * The producer states one leader append would produce. Batches are checked in order, each against
   * the state left by the ones before it, so several batches of one producer in one request are
   * checked as if appended one by one. Nothing changes until {@link #commit}.
   */
  public final class Staging {
    private final Map<Long, ProducerStateEntry> staged = new HashMap<>();

    private Staging() {}

    /**
     * Checks a batch that would occupy {@code [firstOffset, lastOffset]}. Returns the cached
     * metadata when it is a duplicate (nothing is staged), else null after staging it.
     */
    public BatchMetadata checkAndStage(RecordBatch batch, long firstOffset, long lastOffset) {
      long pid = batch.producerId();
      if (pid == RecordBatch.NO_PRODUCER_ID) {
        return null;
      }
      short epoch = batch.producerEpoch();
      ProducerStateEntry known = staged.containsKey(pid) ? staged.get(pid) : producers.get(pid);
      if (known != null && epoch < known.producerEpoch()) {
        throw new InvalidProducerEpochException(
            "producer "
                + pid
                + " epoch "
                + epoch
                + " is older than the current epoch "
                + known.producerEpoch());
      }
      if (batch.isControl()) {
        staged.put(pid, withBatch(known, pid, epoch, null, batch.maxTimestamp()));
        return null;
      }
      int firstSeq = batch.baseSequence();
      if (firstSeq < 0) {
        throw new dev.spool.record.InvalidRecordException(
            "idempotent batch of producer " + pid + " has no base sequence");
      }
      int lastSeq = batch.lastSequence();
      BatchMetadata dup = known == null ? null : known.findDuplicate(epoch, firstSeq, lastSeq);
      if (dup != null) {
        return dup;
      }
      if (known != null) {
        if (epoch != known.producerEpoch()) {
          if (firstSeq != 0) {
            throw new OutOfOrderSequenceException(
                "producer "
                    + pid
                    + " starts new epoch "
                    + epoch
                    + " at sequence "
                    + firstSeq
                    + ", expected 0");
          }
        } else if (known.lastSeq() >= 0 && !inSequence(known.lastSeq(), firstSeq)) {
          throw new OutOfOrderSequenceException(
              "producer "
                  + pid
                  + " epoch "
                  + epoch
                  + " sent sequence "
                  + firstSeq
                  + " after "
                  + known.lastSeq()
                  + ", expected "
                  + RecordBatch.incrementSequence(known.lastSeq(), 1));
        }
      }
      staged.put(
          pid,
          withBatch(
              known,
              pid,
              epoch,
              new BatchMetadata(firstSeq, lastSeq, firstOffset, lastOffset, batch.maxTimestamp()),
              batch.maxTimestamp()));
      return null;
    }
  }

  static boolean inSequence(int lastSeq, int nextSeq) {
    return nextSeq == lastSeq + 1L || (nextSeq == 0 && lastSeq == Integer.MAX_VALUE);
  }

  private static ProducerStateEntry withBatch(
      ProducerStateEntry known, long pid, short epoch, BatchMetadata batch, long timestampMs) {
    List<BatchMetadata> batches = new ArrayList<>();
    if (known != null && known.producerEpoch() == epoch) {
      batches.addAll(known.batches());
    }
    if (batch != null) {
      batches.add(batch);
      while (batches.size() > NUM_BATCHES_TO_RETAIN) {
        batches.remove(0);
      }
    }
    return new ProducerStateEntry(pid, epoch, batches, timestampMs);
  }

  /**
   * Applies a staged append after it was written; the state now covers offsets below {@code
   * logEndOffset}.
   */
  public void commit(Staging staging, long logEndOffset) {
    producers.putAll(staging.staged);
    mapEndOffset = logEndOffset;
  }

  // ---- followers and recovery ----

  /**
   * Applies a batch without checks (follower append, log replay). Batches must come in offset
   * order.
   */
  public void update(RecordBatch batch) {
    long pid = batch.producerId();
    if (pid != RecordBatch.NO_PRODUCER_ID) {
      ProducerStateEntry known = producers.get(pid);
      BatchMetadata meta =
          batch.isControl() || batch.baseSequence() < 0
              ? null
              : new BatchMetadata(
                  batch.baseSequence(),
                  batch.lastSequence(),
                  batch.baseOffset(),
                  batch.lastOffset(),
                  batch.maxTimestamp());
      short epoch =
          known != null && batch.producerEpoch() < known.producerEpoch()
              ? known.producerEpoch()
              : batch.producerEpoch();
      producers.put(pid, withBatch(known, pid, epoch, meta, batch.maxTimestamp()));
    }
    mapEndOffset = Math.max(mapEndOffset, batch.nextOffset());
  }

  /** Declares that the state covers the log up to {@code offset} (after a replay). */
  public void setMapEndOffset(long offset) {
    mapEndOffset = offset;
  }

  /** Forgets producers whose last batch lies below the new log start offset (retention). */
  /**
   * Forgets the producers whose newest batch's timestamp is {@code expirationMs} or more before
   * {@code nowMs} (Kafka's producer.id.expiration.ms): a retry from one of them is then accepted as
   * from an unknown producer. Returns how many were forgotten.
   */
  public int removeExpiredProducers(long nowMs, long expirationMs) {
    int before = producers.size();
    producers.values().removeIf(e -> nowMs - e.lastTimestampMs() >= expirationMs);
    return before - producers.size();
  }

  public void onLogStartOffsetIncremented(long logStartOffset) {
    producers.values().removeIf(e -> e.lastOffset() >= 0 && e.lastOffset() < logStartOffset);
    for (long offset : snapshotOffsets()) {
      if (offset < logStartOffset && snapshotOffsets().size() > 1) {
        deleteSnapshot(offset);
      }
    }
  }

  public void clear(long offset) {
    producers.clear();
    mapEndOffset = offset;
  }

  // ---- snapshots ----

  /**
   * Writes a snapshot at {@link #mapEndOffset()} and keeps only the newest {@value
   * #SNAPSHOTS_TO_KEEP}.
   */
  public void takeSnapshot() {
    if (dir == null) {
      return;
    }
    Path file = snapshotFile(mapEndOffset);
    CheckpointFile.writeAtomically(
        file, ProducerSnapshotCodec.encode(mapEndOffset, producers.values()));
    List<Long> offsets = new ArrayList<>(snapshotOffsets());
    for (int i = 0; i < offsets.size() - SNAPSHOTS_TO_KEEP; i++) {
      deleteSnapshot(offsets.get(i));
    }
  }

  private Path snapshotFile(long offset) {
    return dir.resolve(LogSegment.filenamePrefix(offset) + SNAPSHOT_SUFFIX);
  }

  /** Offsets of the snapshot files present, ascending. */
  public TreeSet<Long> snapshotOffsets() {
    TreeSet<Long> out = new TreeSet<>();
    if (dir == null) {
      return out;
    }
    try (Stream<Path> files = Files.list(dir)) {
      files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(SNAPSHOT_SUFFIX) && n.length() == 20 + SNAPSHOT_SUFFIX.length())
          .forEach(
              n -> {
                try {
                  out.add(Long.parseLong(n.substring(0, 20)));
                } catch (NumberFormatException ignored) {
                  // not one of ours
                }
              });
    } catch (IOException e) {
      throw new LogStorageException(logPrefix + "cannot list " + dir + ": " + e.getMessage(), e);
    }
    return out;
  }

  private void deleteSnapshot(long offset) {
    try {
      Files.deleteIfExists(snapshotFile(offset));
    } catch (IOException e) {
      throw new LogStorageException(
          logPrefix + "cannot delete snapshot " + snapshotFile(offset), e);
    }
  }

  /**
   * Resets the state to the newest valid snapshot at or below {@code offset}, deleting snapshots
   * above it (and invalid ones). With none, the state is empty from {@code fallbackStartOffset}.
   * The caller then replays the log from {@link #mapEndOffset()} to its end.
   */
  public void truncateAndReload(long offset, long fallbackStartOffset) {
    for (long o : snapshotOffsets().descendingSet()) {
      if (o > offset) {
        deleteSnapshot(o);
      }
    }
    producers.clear();
    mapEndOffset = fallbackStartOffset;
    for (long o : snapshotOffsets().descendingSet()) {
      try {
        ProducerSnapshotCodec.Snapshot s =
            ProducerSnapshotCodec.decode(Files.readAllBytes(snapshotFile(o)));
        if (s.snapshotOffset() != o) {
          throw new IllegalArgumentException("holds offset " + s.snapshotOffset());
        }
        s.producers().forEach(p -> producers.put(p.producerId(), p));
        mapEndOffset = Math.max(o, fallbackStartOffset);
        return;
      } catch (IOException | IllegalArgumentException e) {
        log.warn(
            "{}producer snapshot {} is unusable ({}); deleting it",
            logPrefix,
            snapshotFile(o),
            e.getMessage());
        deleteSnapshot(o);
      }
    }
  }

  /** Deletes every snapshot (the log was emptied). */
  public void deleteAllSnapshots() {
    for (long o : snapshotOffsets()) {
      deleteSnapshot(o);
    }
  }

  Collection<ProducerStateEntry> entries() {
    return producers.values();
  }
}
