package dev.spool.broker.log.internal;

import java.util.Locale;

/**
 * Counters of one clean, for its log line and the partition's cleaner state. Mutable; owned by the
 * cleaner thread doing the clean.
 */
public final class CleanerStats {
  final long startNs;
  long mapDoneNs;
  long endNs;
  long mapBytesRead;
  long mapRecordsRead;
  long bytesRead;
  long bytesWritten;
  long recordsRead;
  long recordsKept;
  long keylessDropped;
  long tombstonesDropped;
  int groups;
  int groupsSwapped;
  double mapUtilization;

  CleanerStats(long startNs) {
    this.startNs = startNs;
  }

  public long bytesRead() {
    return bytesRead;
  }

  public long bytesWritten() {
    return bytesWritten;
  }

  public long durationMs() {
    return (endNs - startNs) / 1_000_000L;
  }

  /**
   * Kafka's log-cleaner.log summary of a clean, with the same figures: "MB of log processed" is
   * what the clean phase read (the map phase's reads are the "Indexed" figure, not added to it),
   * over the whole clean's time, as Kafka's LogCleaner computes it.
   */
  String summary(String logName, long firstDirty, long endOffset) {
    double totalS = Math.max(1, endNs - startNs) / 1e9;
    double mapS = Math.max(1, mapDoneNs - startNs) / 1e9;
    double cleanS = Math.max(1, endNs - mapDoneNs) / 1e9;
    double mb = 1024.0 * 1024.0;
    return String.format(
        Locale.ROOT,
        "cleaned %s (dirty section = [%d, %d]): %.1f MB of log processed in %.1f seconds"
            + " (%.1f MB/sec). Indexed %.1f MB in %.1f seconds (%.1f MB/sec, %.1f%% of total time)."
            + " Buffer utilization: %.1f%%. Cleaned %.1f MB in %.1f seconds (%.1f MB/sec, %.1f%% of"
            + " total time). Start size: %.1f MB (%d records). End size: %.1f MB (%d records). %.1f%%"
            + " size reduction (%.1f%% fewer records); %d keyless and %d expired tombstones dropped;"
            + " %d of %d segment groups swapped.",
        logName,
        firstDirty,
        endOffset,
        bytesRead / mb,
        totalS,
        bytesRead / mb / totalS,
        mapBytesRead / mb,
        mapS,
        mapBytesRead / mb / mapS,
        100 * mapS / totalS,
        100 * mapUtilization,
        bytesRead / mb,
        cleanS,
        bytesRead / mb / cleanS,
        100 * cleanS / totalS,
        bytesRead / mb,
        recordsRead,
        bytesWritten / mb,
        recordsKept,
        bytesRead == 0 ? 0 : 100.0 * (bytesRead - bytesWritten) / bytesRead,
        recordsRead == 0 ? 0 : 100.0 * (recordsRead - recordsKept) / recordsRead,
        keylessDropped,
        tombstonesDropped,
        groupsSwapped,
        groups);
  }
}
