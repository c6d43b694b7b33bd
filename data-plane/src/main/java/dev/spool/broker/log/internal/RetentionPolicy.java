package dev.spool.broker.log.internal;

import java.util.List;

/**
 * Which segments retention deletes: the oldest ones, in order, while each is past {@code
 * retention.ms} (by its newest timestamp) or the partition would still hold at least {@code
 * retention.bytes} without it; never the active (last) segment and only segments whose every offset
 * is below the high watermark. Pure.
 */
public final class RetentionPolicy {
  private RetentionPolicy() {}

  /** What retention needs to know of a segment. */
  public record SegmentInfo(long baseOffset, long sizeBytes, long largestTimestampMs) {}

  /**
   * How many of {@code segments} (ascending by base offset, the last one active) to delete; {@code
   * retentionMs}/{@code retentionBytes} of -1 mean no limit.
   */
  public static int segmentsToDelete(
      List<SegmentInfo> segments,
      long highWatermark,
      long retentionMs,
      long retentionBytes,
      long nowMs) {
    long totalBytes = 0;
    for (SegmentInfo s : segments) {
      totalBytes += s.sizeBytes();
    }
    int count = 0;
    for (int i = 0; i + 1 < segments.size(); i++) {
      SegmentInfo s = segments.get(i);
      long nextBase = segments.get(i + 1).baseOffset();
      if (nextBase > highWatermark) {
        break;
      }
      boolean byTime = retentionMs >= 0 && nowMs - s.largestTimestampMs() > retentionMs;
      boolean bySize = retentionBytes >= 0 && totalBytes - s.sizeBytes() >= retentionBytes;
      if (!byTime && !bySize) {
        break;
      }
      totalBytes -= s.sizeBytes();
      count++;
    }
    return count;
  }
}
