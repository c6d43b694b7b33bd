package dev.spool.broker.log;

/**
 * The cleaner's view of one partition at one moment, for {@code spool topic describe --logs} and
 * the cleaner's choice of what to clean. Immutable.
 *
 * @param compacted whether the partition's cleanup.policy includes compact
 * @param firstDirtyOffset where the not-yet-cleaned part starts
 * @param firstUncleanableOffset nothing at or above it may be cleaned now (active segment, high
 *     watermark, min.compaction.lag.ms)
 * @param cleanableBytes bytes of the dirty part the cleaner may clean now
 * @param dirtyRatio cleanable bytes over the bytes up to the first uncleanable offset
 * @param checkpoint the persisted state: last clean, bytes cleaned, tombstone expiry
 */
public record CleanerStatus(
    boolean compacted,
    long firstDirtyOffset,
    long firstUncleanableOffset,
    long cleanableBytes,
    double dirtyRatio,
    CleanerCheckpoint checkpoint) {}
