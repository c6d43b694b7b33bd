package dev.spool.chaos.history;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Appends history entries to a JSON-lines file while a run goes on. Each line is written whole and
 * flushed to the OS before {@link #append} returns, so a run that crashes (or is SIGKILLed) leaves
 * every recorded line readable; at worst the last line is torn, which {@link HistoryReader}
 * tolerates. Not fsynced per line: the OS keeps the data if only the JVM dies, which is the crash
 * that matters here. Thread-safe.
 */
public final class HistoryWriter implements HistorySink, Closeable {
  private final Path path;
  private final BufferedWriter out;

  private HistoryWriter(Path path, BufferedWriter out) {
    this.path = path;
    this.out = out;
  }

  /** Creates (or truncates) {@code path}. */
  public static HistoryWriter create(Path path) throws IOException {
    Files.createDirectories(path.toAbsolutePath().getParent());
    BufferedWriter w =
        Files.newBufferedWriter(
            path,
            StandardCharsets.UTF_8,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE);
    return new HistoryWriter(path, w);
  }

  @Override
  public synchronized void append(HistoryEntry entry) {
    String line = HistoryCodec.encode(entry);
    try {
      out.write(line);
      out.write('\n');
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to history " + path, e);
    }
  }

  public Path path() {
    return path;
  }

  @Override
  public synchronized void close() throws IOException {
    out.close();
  }
}
