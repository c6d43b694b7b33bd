package dev.spool.broker.log;

/**
 * What the cleaner knows of one partition, kept in the data directory's {@code
 * cleaner-offset-checkpoint} file and restored when the log opens. Immutable.
 *
 * @param firstDirtyOffset everything below it is cleaned; -1 when the cleaner has not run
 * @param lastCleanTimeMs when the last clean finished (-1 never)
 * @param lastCleanDurationMs how long it took
 * @param bytesCleaned bytes the cleaner has read and rewritten for this partition, in total
 * @param tombstoneExpiryMs the earliest delete horizon of a tombstone the last clean kept (-1
 *     none): the cleaner runs again once it passes, even without new writes
 */
public record CleanerCheckpoint(
    long firstDirtyOffset,
    long lastCleanTimeMs,
    long lastCleanDurationMs,
    long bytesCleaned,
    long tombstoneExpiryMs) {

  /** A partition the cleaner has not seen. */
  public static final CleanerCheckpoint NONE = new CleanerCheckpoint(-1, -1, 0, 0, -1);

  /** This state with the first dirty offset moved down to at most {@code offset} (truncation). */
  public CleanerCheckpoint truncatedTo(long offset) {
    if (firstDirtyOffset <= offset) {
      return this;
    }
    return new CleanerCheckpoint(
        offset, lastCleanTimeMs, lastCleanDurationMs, bytesCleaned, tombstoneExpiryMs);
  }
}
