package dev.spool.client;

import dev.spool.record.Header;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * A record to send: a topic, optionally a partition (else chosen from the key as Kafka does: {@code
 * murmur2(key)}, or a sticky partition for a null key), a key and value (either may be {@code
 * null}), headers, and optionally a timestamp (else the producer's clock at send).
 *
 * @param partition {@code null} to let the producer choose
 * @param timestamp milliseconds since the epoch, {@code null} for "now"
 */
public record ProducerRecord(
    String topic,
    Integer partition,
    byte[] key,
    byte[] value,
    List<Header> headers,
    Long timestamp) {

  public ProducerRecord {
    Objects.requireNonNull(topic, "topic");
    if (partition != null && partition < 0) {
      throw new IllegalArgumentException("partition must be >= 0: " + partition);
    }
    if (timestamp != null && timestamp < 0) {
      throw new IllegalArgumentException("timestamp must be >= 0: " + timestamp);
    }
    headers = headers == null ? List.of() : List.copyOf(headers);
  }

  public ProducerRecord(String topic, byte[] value) {
    this(topic, null, null, value, List.of(), null);
  }

  public ProducerRecord(String topic, byte[] key, byte[] value) {
    this(topic, null, key, value, List.of(), null);
  }

  /** A record with UTF-8 encoded key and value (either may be null). */
  public static ProducerRecord of(String topic, String key, String value) {
    return new ProducerRecord(topic, null, utf8(key), utf8(value), List.of(), null);
  }

  private static byte[] utf8(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return "ProducerRecord("
        + topic
        + (partition == null ? "" : "-" + partition)
        + ", key "
        + (key == null ? "null" : key.length + " bytes")
        + ", value "
        + (value == null ? "null" : value.length + " bytes")
        + ", "
        + headers.size()
        + " headers)";
  }
}
