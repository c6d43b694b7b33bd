package dev.spool.common;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * A kind of resource an ACL protects, Kafka's {@code ResourceType} with its wire codes and the
 * operations Kafka accepts for each (docs/security.md#acls). Threads: immutable.
 */
public enum AclResourceType {
  TOPIC(
      2,
      EnumSet.of(
          AclOperation.ALL,
          AclOperation.READ,
          AclOperation.WRITE,
          AclOperation.CREATE,
          AclOperation.DELETE,
          AclOperation.ALTER,
          AclOperation.DESCRIBE,
          AclOperation.DESCRIBE_CONFIGS,
          AclOperation.ALTER_CONFIGS)),
  GROUP(
      3,
      EnumSet.of(AclOperation.ALL, AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE)),
  CLUSTER(
      4,
      EnumSet.of(
          AclOperation.ALL,
          AclOperation.CREATE,
          AclOperation.CLUSTER_ACTION,
          AclOperation.DESCRIBE_CONFIGS,
          AclOperation.ALTER_CONFIGS,
          AclOperation.IDEMPOTENT_WRITE,
          AclOperation.ALTER,
          AclOperation.DESCRIBE)),
  TRANSACTIONAL_ID(5, EnumSet.of(AclOperation.ALL, AclOperation.DESCRIBE, AclOperation.WRITE));

  /** The only name a CLUSTER resource has, as in Kafka. */
  public static final String CLUSTER_NAME = "kafka-cluster";

  private final int kafkaCode;
  private final Set<AclOperation> operations;

  AclResourceType(int kafkaCode, Set<AclOperation> operations) {
    this.kafkaCode = kafkaCode;
    this.operations = operations;
  }

  public int kafkaCode() {
    return kafkaCode;
  }

  /** The operations an ACL on this resource type may name. */
  public Set<AclOperation> operations() {
    return EnumSet.copyOf(operations);
  }

  public boolean supports(AclOperation op) {
    return operations.contains(op);
  }

  public static Optional<AclResourceType> forKafkaCode(int code) {
    for (AclResourceType t : values()) {
      if (t.kafkaCode == code) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }

  /** The type named (any case, '-' for '_'), or empty. */
  public static Optional<AclResourceType> forName(String name) {
    String n = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
    for (AclResourceType t : values()) {
      if (t.name().equals(n)) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }
}
