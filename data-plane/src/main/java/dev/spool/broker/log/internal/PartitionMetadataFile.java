package dev.spool.broker.log.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code partition.metadata}: the topic id a partition directory belongs to, so a directory left by
 * a deleted topic is not mistaken for the new topic of the same name. Kafka's layout:
 *
 * <pre>
 * version: 0
 * topic_id: &lt;id&gt;
 * </pre>
 */
public final class PartitionMetadataFile {
  private static final Logger log = LoggerFactory.getLogger(PartitionMetadataFile.class);
  public static final String FILE_NAME = "partition.metadata";

  private PartitionMetadataFile() {}

  /** The topic id, if the file is there and valid (an invalid file is logged and ignored). */
  public static Optional<String> read(Path partitionDir) {
    Path file = partitionDir.resolve(FILE_NAME);
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      if (lines.size() >= 2
          && lines.get(0).trim().equals("version: 0")
          && lines.get(1).startsWith("topic_id: ")) {
        String id = lines.get(1).substring("topic_id: ".length()).trim();
        if (!id.isEmpty()) {
          return Optional.of(id);
        }
      }
      log.warn("{} is not a valid partition metadata file; ignoring it", file);
      return Optional.empty();
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      log.warn("cannot read {}: {}; ignoring it", file, e.toString());
      return Optional.empty();
    }
  }

  public static void write(Path partitionDir, String topicId) {
    if (topicId.isBlank() || topicId.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException("invalid topic id '" + topicId + "'");
    }
    CheckpointFile.writeAtomically(
        partitionDir.resolve(FILE_NAME),
        ("version: 0\ntopic_id: " + topicId + "\n").getBytes(StandardCharsets.UTF_8));
  }
}
