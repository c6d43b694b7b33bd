package dev.spool.broker.kafka.codec;

import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.TopicImage;
import java.util.UUID;
import org.apache.kafka.common.Uuid;

/**
 * Topic ids between Spool and Kafka: Spool keeps a topic's id as the text of a random (version 4)
 * UUID, Kafka sends the same 128 bits as a {@link Uuid}; the two convert without loss. An id that
 * is not a UUID (none is written so) becomes Kafka's zero id, which names no topic.
 *
 * <p>Threads: stateless; any thread.
 */
final class TopicIds {
  private TopicIds() {}

  static Uuid toKafka(String spoolId) {
    if (spoolId == null || spoolId.isEmpty()) {
      return Uuid.ZERO_UUID;
    }
    try {
      UUID u = UUID.fromString(spoolId);
      return new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits());
    } catch (IllegalArgumentException e) {
      return Uuid.ZERO_UUID;
    }
  }

  static String toSpool(Uuid id) {
    return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits()).toString();
  }

  /** The topic with Kafka id {@code id} in {@code image}, or null. */
  static TopicImage topic(MetadataImage image, Uuid id) {
    return id == null || Uuid.ZERO_UUID.equals(id) ? null : image.topicById(toSpool(id));
  }

  /** Kafka's id of topic {@code name} in {@code image}, or the zero id when it does not exist. */
  static Uuid idOf(MetadataImage image, String name) {
    TopicImage t = image.topic(name);
    return t == null ? Uuid.ZERO_UUID : toKafka(t.id());
  }
}
