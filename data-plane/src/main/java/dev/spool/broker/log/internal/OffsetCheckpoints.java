package dev.spool.broker.log.internal;

import dev.spool.common.TopicPartition;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Per-data-directory checkpoints of one offset per partition ({@code
 * recovery-point-offset-checkpoint}, {@code replication-offset-checkpoint}, {@code
 * log-start-offset-checkpoint}); Kafka's format:
 *
 * <pre>
 * 0                 version
 * 2                 entry count
 * orders 0 1234     topic, partition, offset (space separated; topic names have no spaces)
 * orders 1 99
 * </pre>
 */
public final class OffsetCheckpoints {
  public static final String RECOVERY_POINT_FILE = "recovery-point-offset-checkpoint";
  public static final String HIGH_WATERMARK_FILE = "replication-offset-checkpoint";
  public static final String LOG_START_OFFSET_FILE = "log-start-offset-checkpoint";

  private record Entry(TopicPartition tp, long offset) {}

  private static final CheckpointFile.EntryFormat<Entry> FORMAT =
      new CheckpointFile.EntryFormat<>() {
        @Override
        public String format(Entry e) {
          return e.tp.topic() + " " + e.tp.partition() + " " + e.offset;
        }

        @Override
        public Entry parse(String line) {
          String[] f = line.trim().split(" ");
          if (f.length != 3) {
            throw new IllegalArgumentException(
                "expected 'topic partition offset', got '" + line + "'");
          }
          long offset = Long.parseLong(f[2]);
          if (offset < 0) {
            throw new IllegalArgumentException("negative offset in '" + line + "'");
          }
          return new Entry(new TopicPartition(f[0], Integer.parseInt(f[1])), offset);
        }
      };

  private final CheckpointFile<Entry> file;

  public OffsetCheckpoints(Path dataDir, String name) {
    this.file = new CheckpointFile<>(dataDir.resolve(name), 0, FORMAT);
  }

  public Path file() {
    return file.file();
  }

  /** The offsets, or an empty map when the file is missing or unparsable. */
  public Map<TopicPartition, Long> read() {
    Map<TopicPartition, Long> out = new TreeMap<>();
    file.read().ifPresent(list -> list.forEach(e -> out.put(e.tp, e.offset)));
    return out;
  }

  public void write(Map<TopicPartition, Long> offsets) {
    List<Entry> entries =
        new TreeMap<>(offsets)
            .entrySet().stream().map(e -> new Entry(e.getKey(), e.getValue())).toList();
    file.write(entries);
  }
}
