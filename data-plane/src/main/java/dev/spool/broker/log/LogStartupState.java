package dev.spool.broker.log;

/**
 * What the data directory's checkpoints say about one partition when it is opened: where recovery
 * starts, the log start offset and the high watermark (-1 = unknown), whether the previous process
 * shut down cleanly (then nothing is scanned), and the cleaner's state.
 */
public record LogStartupState(
    long recoveryPoint,
    long logStartOffset,
    long highWatermark,
    boolean cleanShutdown,
    CleanerCheckpoint cleaner) {
  /** A partition nothing is known about: recover everything. */
  public static final LogStartupState UNKNOWN = new LogStartupState(0L, 0L, 0L, false);

  /** Offsets and shutdown state only; the cleaner has not seen the partition. */
  public LogStartupState(
      long recoveryPoint, long logStartOffset, long highWatermark, boolean cleanShutdown) {
    this(recoveryPoint, logStartOffset, highWatermark, cleanShutdown, CleanerCheckpoint.NONE);
  }
}
