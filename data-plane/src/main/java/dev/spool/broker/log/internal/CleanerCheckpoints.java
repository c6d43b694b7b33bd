package dev.spool.broker.log.internal;

import dev.spool.broker.log.CleanerCheckpoint;
import dev.spool.common.TopicPartition;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The data directory's {@code cleaner-offset-checkpoint}: per compacted partition, where its dirty
 * part starts and what the cleaner did (layout of {@link CheckpointFile}, version 1; Kafka's
 * version 0 file holds the first three fields only, and is read too):
 *
 * <pre>
 * 1                                            version
 * 1                                            entry count
 * orders 0 5000 1700000000000 850 52428800 -1  topic, partition, first dirty offset, last clean time
 *                                              (ms, -1 never), its duration (ms), bytes cleaned in
 *                                              total, earliest tombstone expiry (ms, -1 none)
 * </pre>
 */
public final class CleanerCheckpoints {
  public static final String FILE = "cleaner-offset-checkpoint";

  private record Entry(TopicPartition tp, CleanerCheckpoint state) {}

  private static final CheckpointFile.EntryFormat<Entry> FORMAT =
      new CheckpointFile.EntryFormat<>() {
        @Override
        public String format(Entry e) {
          CleanerCheckpoint c = e.state;
          return e.tp.topic()
              + " "
              + e.tp.partition()
              + " "
              + c.firstDirtyOffset()
              + " "
              + c.lastCleanTimeMs()
              + " "
              + c.lastCleanDurationMs()
              + " "
              + c.bytesCleaned()
              + " "
              + c.tombstoneExpiryMs();
        }

        @Override
        public Entry parse(String line) {
          String[] f = line.trim().split(" ");
          if (f.length != 7) {
            throw new IllegalArgumentException(
                "expected 'topic partition firstDirty lastCleanMs durationMs bytes expiryMs', got '"
                    + line
                    + "'");
          }
          TopicPartition tp = new TopicPartition(f[0], Integer.parseInt(f[1]));
          long firstDirty = Long.parseLong(f[2]);
          if (firstDirty < 0) {
            throw new IllegalArgumentException("negative offset in '" + line + "'");
          }
          return new Entry(
              tp,
              new CleanerCheckpoint(
                  firstDirty,
                  Long.parseLong(f[3]),
                  Long.parseLong(f[4]),
                  Long.parseLong(f[5]),
                  Long.parseLong(f[6])));
        }
      };

  private final CheckpointFile<Entry> file;

  public CleanerCheckpoints(Path dataDir) {
    this.file = new CheckpointFile<>(dataDir.resolve(FILE), 1, FORMAT);
  }

  public Path file() {
    return file.file();
  }

  /** The states, or an empty map when the file is missing or unparsable. */
  public Map<TopicPartition, CleanerCheckpoint> read() {
    Map<TopicPartition, CleanerCheckpoint> out = new TreeMap<>();
    file.read().ifPresent(list -> list.forEach(e -> out.put(e.tp, e.state)));
    return out;
  }

  /** Writes the states of the partitions the cleaner has seen. */
  public void write(Map<TopicPartition, CleanerCheckpoint> states) {
    List<Entry> entries =
        new TreeMap<>(states)
            .entrySet().stream()
                .filter(e -> !e.getValue().equals(CleanerCheckpoint.NONE))
                .map(e -> new Entry(e.getKey(), e.getValue()))
                .toList();
    file.write(entries);
  }
}
