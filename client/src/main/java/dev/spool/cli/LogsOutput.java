package dev.spool.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.spool.client.ReplicaLog;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * How {@code spool topic describe --logs} prints each broker's replicas (text lines or a JSON
 * array). Stateless; called on the command's thread.
 */
final class LogsOutput {
  private LogsOutput() {}

  /** One line per replica, after the partition lines. */
  static void printText(PrintStream out, List<ReplicaLog> logs) {
    for (ReplicaLog l : logs) {
      StringBuilder line =
          new StringBuilder()
              .append("\tLog: ")
              .append(l.partition())
              .append("\tBroker: ")
              .append(l.brokerId())
              .append("\tSize: ")
              .append(l.sizeBytes())
              .append("\tSegments: ")
              .append(l.segments())
              .append("\tOffsets: ")
              .append(l.logStartOffset())
              .append("..")
              .append(l.logEndOffset())
              .append("\tHighWatermark: ")
              .append(l.highWatermark());
      if (l.compacted()) {
        line.append("\tDirtyRatio: ")
            .append(String.format(Locale.ROOT, "%.3f", l.dirtyRatio()))
            .append("\tCleanable: ")
            .append(l.cleanableBytes())
            .append(" bytes [")
            .append(l.firstDirtyOffset())
            .append(", ")
            .append(l.firstUncleanableOffset())
            .append(")\tLastClean: ")
            .append(
                l.lastCleanTimeMs() < 0
                    ? "never"
                    : Instant.ofEpochMilli(l.lastCleanTimeMs())
                        + " ("
                        + l.lastCleanDurationMs()
                        + " ms)")
            .append("\tBytesCleaned: ")
            .append(l.bytesCleaned());
        if (!l.uncleanableReason().isEmpty()) {
          line.append("\tUncleanable: ").append(l.uncleanableReason());
        }
      }
      out.println(line);
    }
  }

  /**
   * The {@code "logs"} field: one object per replica, a {@code "cleaner"} object when compacted.
   */
  static void writeJson(JsonGenerator g, List<ReplicaLog> logs) throws IOException {
    g.writeArrayFieldStart("logs");
    for (ReplicaLog l : logs) {
      g.writeStartObject();
      g.writeNumberField("partition", l.partition().partition());
      g.writeNumberField("broker", l.brokerId());
      g.writeNumberField("sizeBytes", l.sizeBytes());
      g.writeNumberField("segments", l.segments());
      g.writeNumberField("logStartOffset", l.logStartOffset());
      g.writeNumberField("logEndOffset", l.logEndOffset());
      g.writeNumberField("highWatermark", l.highWatermark());
      if (l.compacted()) {
        g.writeObjectFieldStart("cleaner");
        g.writeNumberField("firstDirtyOffset", l.firstDirtyOffset());
        g.writeNumberField("firstUncleanableOffset", l.firstUncleanableOffset());
        g.writeNumberField("cleanableBytes", l.cleanableBytes());
        g.writeNumberField("dirtyRatio", l.dirtyRatio());
        g.writeNumberField("lastCleanTimeMs", l.lastCleanTimeMs());
        g.writeNumberField("lastCleanDurationMs", l.lastCleanDurationMs());
        g.writeNumberField("bytesCleaned", l.bytesCleaned());
        JsonLines.nullableString(
            g, "uncleanableReason", l.uncleanableReason().isEmpty() ? null : l.uncleanableReason());
        g.writeEndObject();
      }
      g.writeEndObject();
    }
    g.writeEndArray();
  }
}
