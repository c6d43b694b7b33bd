package dev.spool.common;

import java.util.Locale;
import java.util.Optional;

/**
 * An operation an ACL allows or denies, Kafka's {@code AclOperation} with its wire codes
 * (docs/security.md#acls). Threads: immutable.
 */
public enum AclOperation {
  ALL(2),
  READ(3),
  WRITE(4),
  CREATE(5),
  DELETE(6),
  ALTER(7),
  DESCRIBE(8),
  CLUSTER_ACTION(9),
  DESCRIBE_CONFIGS(10),
  ALTER_CONFIGS(11),
  IDEMPOTENT_WRITE(12);

  private final int kafkaCode;

  AclOperation(int kafkaCode) {
    this.kafkaCode = kafkaCode;
  }

  /** Kafka's int8 code for the operation. */
  public int kafkaCode() {
    return kafkaCode;
  }

  /** The operation of Kafka's code, or empty (UNKNOWN, ANY and unknown codes). */
  public static Optional<AclOperation> forKafkaCode(int code) {
    for (AclOperation o : values()) {
      if (o.kafkaCode == code) {
        return Optional.of(o);
      }
    }
    return Optional.empty();
  }

  /** The operation named (any case, '-' for '_'), or empty. */
  public static Optional<AclOperation> forName(String name) {
    String n = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
    for (AclOperation o : values()) {
      if (o.name().equals(n)) {
        return Optional.of(o);
      }
    }
    return Optional.empty();
  }

  /**
   * Whether an ALLOW ACL for this operation also allows {@code requested}: ALL allows everything;
   * READ, WRITE, DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS (Kafka's
   * implications). A DENY ACL denies only its own operation (or everything, for ALL).
   */
  public boolean allows(AclOperation requested) {
    if (this == ALL || this == requested) {
      return true;
    }
    return switch (requested) {
      case DESCRIBE -> this == READ || this == WRITE || this == DELETE || this == ALTER;
      case DESCRIBE_CONFIGS -> this == ALTER_CONFIGS;
      default -> false;
    };
  }
}
