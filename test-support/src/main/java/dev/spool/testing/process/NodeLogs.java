package dev.spool.testing.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The tails of node logs, for failure reports. Stateless. */
final class NodeLogs {
  private NodeLogs() {}

  /** A heading naming the node and its log file, then the last {@code lines} lines of the log. */
  static String tail(int node, Path logFile, int lines) {
    try {
      List<String> all =
          Files.exists(logFile) ? Files.readAllLines(logFile, StandardCharsets.UTF_8) : List.of();
      String tail = String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
      return "---- last " + lines + " lines of n" + node + " log " + logFile + " ----\n" + tail;
    } catch (IOException | UncheckedIOException e) {
      return "---- cannot read n" + node + " log " + logFile + ": " + e + " ----";
    }
  }
}
