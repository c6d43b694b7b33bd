package dev.spool.chaos.history;

/**
 * One record batch of a replica's log, as the white-box probe sees it: enough to tell whether two
 * replicas hold the same bytes without shipping the bytes.
 *
 * @param baseOffset offset of the batch's first record
 * @param lastOffset offset of its last record (baseOffset + lastOffsetDelta)
 * @param leaderEpoch the partition leader epoch stamped in the batch header
 * @param crc the batch's CRC-32C from its header (covers attributes to the end of the batch)
 */
public record BatchSummary(long baseOffset, long lastOffset, int leaderEpoch, long crc) {
  public BatchSummary {
    if (lastOffset < baseOffset) {
      throw new IllegalArgumentException(
          "lastOffset " + lastOffset + " < baseOffset " + baseOffset);
    }
  }

  public boolean overlaps(BatchSummary other) {
    return baseOffset <= other.lastOffset && other.baseOffset <= lastOffset;
  }
}
