package dev.spool.coordinator.group.runtime;

/** The internal topic that holds group state and committed offsets. */
public final class OffsetsTopic {
  public static final String NAME = "__consumer_offsets";

  private OffsetsTopic() {}

  /**
   * The partition of {@code groupId}: Kafka's rule, {@code (hashCode & 0x7fffffff) % n} of the Java
   * string hash, so Kafka's tools find the same coordinator.
   */
  public static int partitionFor(String groupId, int partitionCount) {
    return (groupId.hashCode() & 0x7fffffff) % partitionCount;
  }

  /** Whether {@code topic} is internal (hidden from regular-expression subscriptions). */
  public static boolean isInternal(String topic) {
    return NAME.equals(topic);
  }
}
