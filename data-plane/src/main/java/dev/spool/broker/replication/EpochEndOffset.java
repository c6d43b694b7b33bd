package dev.spool.broker.replication;

/**
 * An epoch and the offset where it ended: the start offset of the next epoch, or the log end offset
 * when it is the latest. {@link #UNDEFINED} when the log has no epoch at or below the one asked
 * for.
 */
public record EpochEndOffset(int epoch, long endOffset) {
  public static final EpochEndOffset UNDEFINED = new EpochEndOffset(-1, -1L);

  public boolean isUndefined() {
    return epoch < 0;
  }
}
