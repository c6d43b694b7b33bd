package dev.spool.broker.log.internal;

import dev.spool.broker.log.LogStorageException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A checkpoint in Kafka's text format:
 *
 * <pre>
 * line 1   version      integer (0)
 * line 2   entry count  integer n
 * line 3.. n entries    one per line, fields separated by one space (format per file)
 * </pre>
 *
 * Written to {@code <name>.tmp}, fsynced, atomically renamed over the old file, then the directory
 * is fsynced, so a crash leaves either the old or the new file. A file that cannot be parsed is
 * logged with its name and line number and treated as absent: a bad checkpoint only costs a longer
 * recovery, never the process.
 *
 * <p>Threads: not thread-safe; each file has one writer at a time.
 */
public final class CheckpointFile<T> {
  private static final Logger log = LoggerFactory.getLogger(CheckpointFile.class);

  /** Formats and parses one entry line; parse throws on a malformed line. */
  public interface EntryFormat<T> {
    String format(T entry);

    T parse(String line);
  }

  private final Path file;
  private final int version;
  private final EntryFormat<T> format;

  public CheckpointFile(Path file, int version, EntryFormat<T> format) {
    this.file = file;
    this.version = version;
    this.format = format;
  }

  public Path file() {
    return file;
  }

  public void write(Collection<T> entries) {
    StringBuilder sb = new StringBuilder();
    sb.append(version).append('\n').append(entries.size()).append('\n');
    for (T e : entries) {
      sb.append(format.format(e)).append('\n');
    }
    writeAtomically(file, sb.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** Writes {@code bytes} to {@code target} via a fsynced temp file and an atomic rename. */
  public static void writeAtomically(Path target, byte[] bytes) {
    Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
    try {
      try (FileChannel ch =
          FileChannel.open(
              tmp,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING)) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
          ch.write(b);
        }
        ch.force(true);
      }
      try {
        Files.move(
            tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      fsyncDirectory(target.getParent());
    } catch (IOException e) {
      throw new LogStorageException("cannot write " + target + ": " + e.getMessage(), e);
    }
  }

  /** Makes a rename or file creation in {@code dir} durable. */
  public static void fsyncDirectory(Path dir) {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // Some filesystems refuse to open directories; the rename itself already happened.
      log.debug("cannot fsync directory {}: {}", dir, e.toString());
    }
  }

  /** The entries, or empty when the file is missing or unparsable (logged with the line). */
  public Optional<List<T>> read() {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException | java.io.UncheckedIOException e) {
      log.warn("checkpoint {} cannot be read, treating it as absent: {}", file, e.toString());
      return Optional.empty();
    }
    int lineNo = 0;
    try {
      lineNo = 1;
      if (lines.isEmpty()) {
        throw new IllegalArgumentException("empty file");
      }
      int v = Integer.parseInt(lines.get(0).trim());
      if (v != version) {
        throw new IllegalArgumentException("unsupported version " + v + ", expected " + version);
      }
      lineNo = 2;
      if (lines.size() < 2) {
        throw new IllegalArgumentException("missing entry count");
      }
      int count = Integer.parseInt(lines.get(1).trim());
      if (count < 0 || lines.size() - 2 < count) {
        throw new IllegalArgumentException(
            "entry count " + count + " but " + (lines.size() - 2) + " entry lines");
      }
      List<T> out = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        lineNo = 3 + i;
        out.add(format.parse(lines.get(2 + i)));
      }
      for (int i = 2 + count; i < lines.size(); i++) {
        if (!lines.get(i).isBlank()) {
          lineNo = i + 1;
          throw new IllegalArgumentException("unexpected line after " + count + " entries");
        }
      }
      return Optional.of(out);
    } catch (RuntimeException e) {
      log.warn(
          "checkpoint {} is unparsable at line {} ({}); treating it as absent",
          file,
          lineNo,
          e.getMessage());
      return Optional.empty();
    }
  }
}
