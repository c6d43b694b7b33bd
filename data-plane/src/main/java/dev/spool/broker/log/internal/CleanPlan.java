package dev.spool.broker.log.internal;

import dev.spool.broker.log.LogConfig;
import dev.spool.broker.log.ProducerStateEntry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one clean of a partition works on, taken on the log's owner thread so that it is one
 * consistent view: the inactive segments below the first uncleanable offset and the base offset of
 * the segment after them ({@code nextBase}), the dirty range, the offset of the last batch of each
 * live idempotent producer (kept so their sequences survive), the log's truncation count (a swap is
 * refused if the log was truncated meanwhile), its config and the time.
 */
public record CleanPlan(
    Path dir,
    String logPrefix,
    List<LogSegment> segments,
    long nextBase,
    CleanableRange range,
    Map<Long, Long> producerLastOffsets,
    long generation,
    LogConfig config,
    long nowMs) {
  public CleanPlan {
    segments = List.copyOf(segments);
    producerLastOffsets = Map.copyOf(producerLastOffsets);
  }

  /**
   * The plan for a log of {@code all} segments (ascending, the last active) in {@code range}, or
   * null when no inactive segment lies below its first uncleanable offset.
   */
  public static CleanPlan of(
      Path dir,
      String logPrefix,
      List<LogSegment> all,
      CleanableRange range,
      Map<Long, ProducerStateEntry> producers,
      long generation,
      LogConfig config,
      long nowMs) {
    List<LogSegment> planned = new ArrayList<>();
    for (LogSegment s : all.subList(0, all.size() - 1)) {
      if (s.baseOffset() < range.firstUncleanableOffset()) {
        planned.add(s);
      }
    }
    if (planned.isEmpty()) {
      return null;
    }
    Map<Long, Long> producerLast = new HashMap<>();
    producers.forEach(
        (pid, e) -> {
          if (e.lastOffset() >= 0) {
            producerLast.put(pid, e.lastOffset());
          }
        });
    return new CleanPlan(
        dir,
        logPrefix,
        planned,
        all.get(planned.size()).baseOffset(),
        range,
        producerLast,
        generation,
        config,
        nowMs);
  }
}
