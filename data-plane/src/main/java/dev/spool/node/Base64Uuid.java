package dev.spool.node;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.UUID;

/**
 * A 128-bit id written as Kafka writes its {@code Uuid}: the 16 bytes (most significant half first)
 * in URL-safe Base64 without padding, 22 characters. {@code spool storage random-uuid} prints one;
 * {@code meta.properties} stores the directory id in this form
 * (docs/operations.md#storage-format-and-node-identity).
 *
 * <p>As Kafka's {@code Uuid.randomUuid()}, a random id is never one of the two reserved values (all
 * zero bits, or only the lowest bit set) and never starts with {@code -}, so it cannot be mistaken
 * for a command-line option. Immutable.
 *
 * @param mostSignificantBits the first 8 bytes
 * @param leastSignificantBits the last 8 bytes
 */
public record Base64Uuid(long mostSignificantBits, long leastSignificantBits) {
  /** A new random id: the bits of {@link UUID#randomUUID()}, as Kafka's {@code Uuid} takes them. */
  public static Base64Uuid random() {
    while (true) {
      UUID u = UUID.randomUUID();
      Base64Uuid id = new Base64Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits());
      if (!id.isReserved() && !id.toString().startsWith("-")) {
        return id;
      }
    }
  }

  /** Parses the 22-character form; throws {@link IllegalArgumentException} saying what is wrong. */
  public static Base64Uuid parse(String s) {
    if (s == null || s.length() != 22) {
      throw new IllegalArgumentException(
          "'" + s + "' is not a 22-character base64url id (spool storage random-uuid makes one)");
    }
    byte[] b;
    try {
      b = Base64.getUrlDecoder().decode(s);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + s + "' is not base64url: " + e.getMessage(), e);
    }
    if (b.length != 16) {
      throw new IllegalArgumentException("'" + s + "' does not decode to 16 bytes");
    }
    ByteBuffer buf = ByteBuffer.wrap(b);
    Base64Uuid id = new Base64Uuid(buf.getLong(), buf.getLong());
    if (!id.toString().equals(s)) {
      // The last character carries 2 spare bits: only one spelling of each id is accepted.
      throw new IllegalArgumentException("'" + s + "' is not the canonical form of its 16 bytes");
    }
    return id;
  }

  /** The reserved ids Kafka never hands out: all zero, and the metadata topic's (0, 1). */
  public boolean isReserved() {
    return mostSignificantBits == 0 && (leastSignificantBits == 0 || leastSignificantBits == 1);
  }

  @Override
  public String toString() {
    ByteBuffer buf = ByteBuffer.allocate(16);
    buf.putLong(mostSignificantBits).putLong(leastSignificantBits);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(buf.array());
  }
}
