package dev.spool.broker.replication;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Which leaders a follower reports it cannot reach (docs/architecture.md#isr-changes): those whose
 * fetcher has waited longer than {@code replica.silent.time.max.ms} for an answer. Pure: the
 * fetchers' waits and the time come in. Checked by every heartbeat; a gap of more than half the
 * silence between two checks means this broker itself stood still (a GC pause, SIGSTOP), when
 * answers may be queued unread: waits then count from the end of the gap. Not thread-safe: its
 * owner ({@link ReplicaFetcherManager}) calls it under its monitor.
 */
final class UnreachableLeaders {
  private final long silenceMs;
  private long lastCheckMs = -1L;
  private long floorMs = Long.MIN_VALUE;

  UnreachableLeaders(long silenceMs) {
    this.silenceMs = silenceMs;
  }

  /**
   * The sources, in id order, whose wait (the value: since when a fetcher has wanted an answer and
   * got none, -1 when answered) is longer than the silence at {@code nowMs}.
   */
  List<Integer> check(Map<Integer, Long> waitingSinceBySource, long nowMs) {
    if (lastCheckMs >= 0 && nowMs - lastCheckMs > silenceMs / 2) {
      floorMs = nowMs;
    }
    lastCheckMs = Math.max(lastCheckMs, nowMs);
    List<Integer> out = new ArrayList<>();
    waitingSinceBySource.forEach(
        (source, since) -> {
          if (since >= 0 && nowMs - Math.max(since, floorMs) > silenceMs) {
            out.add(source);
          }
        });
    out.sort(null);
    return out;
  }
}
