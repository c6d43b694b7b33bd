package dev.spool.broker.replication;

/**
 * Who leads a partition as far as this broker knows (KIP-951 hint): the handler adds the endpoint
 * from the metadata image. {@code leaderId} is -1 when unknown. Immutable; any thread.
 */
public record LeaderHintInfo(int leaderId, int leaderEpoch) {
  public static final LeaderHintInfo UNKNOWN = new LeaderHintInfo(-1, -1);
}
