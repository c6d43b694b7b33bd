package dev.spool.broker.log;

/**
 * What the data directory's checkpoints say about one partition when it is opened: where recovery
 * starts, the log start offset and the high watermark (-1 = unknown), and whether the previous
 * process shut down cleanly (then nothing is scanned).
 */
public record LogStartupState(
    long recoveryPoint, long logStartOffset, long highWatermark, boolean cleanShutdown) {
  /** A partition nothing is known about: recover everything. */
  public static final LogStartupState UNKNOWN = new LogStartupState(0L, 0L, 0L, false);
}
