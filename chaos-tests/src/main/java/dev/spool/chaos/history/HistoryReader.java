package dev.spool.chaos.history;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a {@code history.jsonl} back. A run that crashed may have left its last line half written;
 * that line alone is dropped and reported in {@link Result#tornTail()}. A bad line anywhere else
 * means the file is not a history and is an error.
 */
public final class HistoryReader {
  private HistoryReader() {}

  /**
   * @param history the entries that parsed
   * @param tornTail the unparseable last line, or {@code null} when the file ended cleanly
   */
  public record Result(History history, String tornTail) {}

  public static Result read(Path path) throws IOException {
    List<String> lines = new ArrayList<>();
    try (BufferedReader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (!line.isBlank()) {
          lines.add(line);
        }
      }
    }
    return parse(lines, path.toString());
  }

  /** Parses lines already in memory; {@code source} names them in error messages. */
  public static Result parse(List<String> lines, String source) throws IOException {
    List<HistoryEntry> entries = new ArrayList<>(lines.size());
    String torn = null;
    for (int i = 0; i < lines.size(); i++) {
      try {
        entries.add(HistoryCodec.decode(lines.get(i)));
      } catch (IOException e) {
        if (i == lines.size() - 1) {
          torn = lines.get(i);
        } else {
          throw new IOException(
              source + ":" + (i + 1) + ": not a history line: " + e.getMessage(), e);
        }
      }
    }
    return new Result(History.of(entries), torn);
  }
}
