package dev.spool.broker.log.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Which segments retention deletes: the oldest ones, in order, while each is past {@code
 * retention.ms} (by its newest timestamp) or the partition would still hold at least {@code
 * retention.bytes} without it; never the active (last) segment and only segments whose every offset
 * is below the high watermark. Pure.
 */
public final class RetentionPolicy {
  private RetentionPolicy() {}

  /**
   * How many of a log's {@code segments} (ascending, the last one active) to delete: those entirely
   * below {@code logStartOffset} whatever the policy (DeleteRecords moved it; nothing in them is
   * readable), and when {@code byRetention} those past the time or size limit as {@link
   * #segmentsToDelete(List, long, long, long, long)} says.
   */
  public static int segmentsToDelete(
      List<LogSegment> segments,
      long logStartOffset,
      long highWatermark,
      boolean byRetention,
      long retentionMs,
      long retentionBytes,
      long nowMs) {
    int count = 0;
    while (count + 1 < segments.size() && segments.get(count + 1).baseOffset() <= logStartOffset) {
      count++;
    }
    if (!byRetention) {
      return count;
    }
    List<SegmentInfo> infos = new ArrayList<>(segments.size());
    for (LogSegment s : segments) {
      infos.add(new SegmentInfo(s.baseOffset(), s.sizeBytes(), s.largestTimestampForRetention()));
    }
    return Math.max(
        count, segmentsToDelete(infos, highWatermark, retentionMs, retentionBytes, nowMs));
  }

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
