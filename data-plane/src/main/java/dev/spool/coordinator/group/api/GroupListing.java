package dev.spool.coordinator.group.api;

/**
 * One group of ListGroups: its id, state name (Empty, Assigning, Reconciling, Stable for
 * consumer-protocol groups; Kafka's classic states for classic ones), its type ("consumer" or
 * "classic") and protocol type ("consumer" for both kinds of Kafka consumer groups).
 */
public record GroupListing(String groupId, String state, String type, String protocolType) {

  public static final String CONSUMER = "consumer";
  public static final String CLASSIC = "classic";

  /** A consumer-protocol group. */
  public GroupListing(String groupId, String state) {
    this(groupId, state, CONSUMER, CONSUMER);
  }
}
