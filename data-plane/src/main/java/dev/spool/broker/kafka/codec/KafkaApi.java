package dev.spool.broker.kafka.codec;

import java.util.Optional;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The Kafka APIs the Kafka listener can serve, each with the versions it implements. Which of them
 * a broker advertises is decided by what the adapter registers ({@code KafkaApis}): an API whose
 * Spool counterpart is missing is neither advertised nor answered except with UNSUPPORTED_VERSION.
 *
 * <p>{@code advertisedMin} is lower than {@code acceptedMin} for Produce only: Kafka 4.x advertises
 * Produce from version 0 but accepts 3 and up, because librdkafka before 2.10 turns message format
 * v2 off unless the broker's Produce range starts at or below 2 (KAFKA-18659); the Kafka codec of
 * this build does not even know versions 0-2, so such a request closes the connection as on Kafka.
 * Every other range is what Kafka 4.4 advertises, with the same floors as Kafka's clients (the
 * table in docs/architecture.md#the-kafka-listener).
 *
 * <p>Threads: immutable; any thread.
 */
public enum KafkaApi {
  PRODUCE(ApiKeys.PRODUCE, 0, 3, 13),
  FETCH(ApiKeys.FETCH, 4, 4, 18),
  LIST_OFFSETS(ApiKeys.LIST_OFFSETS, 1, 1, 11),
  METADATA(ApiKeys.METADATA, 0, 0, 13),
  OFFSET_COMMIT(ApiKeys.OFFSET_COMMIT, 2, 2, 10),
  OFFSET_FETCH(ApiKeys.OFFSET_FETCH, 1, 1, 10),
  FIND_COORDINATOR(ApiKeys.FIND_COORDINATOR, 0, 0, 6),
  JOIN_GROUP(ApiKeys.JOIN_GROUP, 0, 0, 9),
  HEARTBEAT(ApiKeys.HEARTBEAT, 0, 0, 4),
  LEAVE_GROUP(ApiKeys.LEAVE_GROUP, 0, 0, 5),
  SYNC_GROUP(ApiKeys.SYNC_GROUP, 0, 0, 5),
  DESCRIBE_GROUPS(ApiKeys.DESCRIBE_GROUPS, 0, 0, 6),
  LIST_GROUPS(ApiKeys.LIST_GROUPS, 0, 0, 5),
  API_VERSIONS(ApiKeys.API_VERSIONS, 0, 0, 5),
  CREATE_TOPICS(ApiKeys.CREATE_TOPICS, 2, 2, 7),
  DELETE_TOPICS(ApiKeys.DELETE_TOPICS, 1, 1, 6),
  DELETE_RECORDS(ApiKeys.DELETE_RECORDS, 0, 0, 2),
  /** Version 6 is unstable in Kafka 4.4 and not advertised by its brokers either. */
  INIT_PRODUCER_ID(ApiKeys.INIT_PRODUCER_ID, 0, 0, 5),
  OFFSET_FOR_LEADER_EPOCH(ApiKeys.OFFSET_FOR_LEADER_EPOCH, 2, 2, 4),
  DESCRIBE_CONFIGS(ApiKeys.DESCRIBE_CONFIGS, 1, 1, 4),
  ALTER_CONFIGS(ApiKeys.ALTER_CONFIGS, 0, 0, 2),
  DESCRIBE_LOG_DIRS(ApiKeys.DESCRIBE_LOG_DIRS, 1, 1, 5),
  DELETE_GROUPS(ApiKeys.DELETE_GROUPS, 0, 0, 3),
  CREATE_PARTITIONS(ApiKeys.CREATE_PARTITIONS, 0, 0, 3),
  ELECT_LEADERS(ApiKeys.ELECT_LEADERS, 0, 0, 2),
  INCREMENTAL_ALTER_CONFIGS(ApiKeys.INCREMENTAL_ALTER_CONFIGS, 0, 0, 1),
  OFFSET_DELETE(ApiKeys.OFFSET_DELETE, 0, 0, 0),
  DESCRIBE_PRODUCERS(ApiKeys.DESCRIBE_PRODUCERS, 0, 0, 0),
  DESCRIBE_CLUSTER(ApiKeys.DESCRIBE_CLUSTER, 0, 0, 2),
  CONSUMER_GROUP_HEARTBEAT(ApiKeys.CONSUMER_GROUP_HEARTBEAT, 0, 0, 1),
  CONSUMER_GROUP_DESCRIBE(ApiKeys.CONSUMER_GROUP_DESCRIBE, 0, 0, 1),
  /**
   * Version 0 is not offered: after a version 0 handshake the client sends bare SASL tokens outside
   * Kafka's request framing; every client of the last years uses version 1 with SaslAuthenticate.
   */
  SASL_HANDSHAKE(ApiKeys.SASL_HANDSHAKE, 1, 1, 1),
  SASL_AUTHENTICATE(ApiKeys.SASL_AUTHENTICATE, 0, 0, 2),
  DESCRIBE_USER_SCRAM_CREDENTIALS(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, 0, 0, 0),
  ALTER_USER_SCRAM_CREDENTIALS(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, 0, 0, 0),
  UNREGISTER_BROKER(ApiKeys.UNREGISTER_BROKER, 0, 0, 0),
  ALTER_PARTITION_REASSIGNMENTS(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, 0, 0, 1),
  LIST_PARTITION_REASSIGNMENTS(ApiKeys.LIST_PARTITION_REASSIGNMENTS, 0, 0, 0),
  /** Version 0 has no pattern type (LITERAL only); Kafka 4's clients start at 2. */
  DESCRIBE_ACLS(ApiKeys.DESCRIBE_ACLS, 1, 1, 3),
  CREATE_ACLS(ApiKeys.CREATE_ACLS, 1, 1, 3),
  DELETE_ACLS(ApiKeys.DELETE_ACLS, 1, 1, 3),
  DESCRIBE_CLIENT_QUOTAS(ApiKeys.DESCRIBE_CLIENT_QUOTAS, 0, 0, 1),
  ALTER_CLIENT_QUOTAS(ApiKeys.ALTER_CLIENT_QUOTAS, 0, 0, 1);

  final ApiKeys key;
  private final short advertisedMin;
  private final short acceptedMin;
  private final short max;

  KafkaApi(ApiKeys key, int advertisedMin, int acceptedMin, int max) {
    this.key = key;
    this.advertisedMin = (short) advertisedMin;
    this.acceptedMin = (short) acceptedMin;
    this.max = (short) max;
  }

  /** Kafka's number for this API. */
  public short id() {
    return key.id;
  }

  public short advertisedMin() {
    return advertisedMin;
  }

  public short max() {
    return max;
  }

  /** Whether requests at {@code version} are served. */
  public boolean accepts(short version) {
    return version >= acceptedMin && version <= max;
  }

  private static final KafkaApi[] BY_ID = new KafkaApi[128];

  static {
    for (KafkaApi a : values()) {
      BY_ID[a.key.id] = a;
    }
  }

  /** The API with Kafka's number {@code id}, if the listener knows it. */
  public static Optional<KafkaApi> forId(int id) {
    return id >= 0 && id < BY_ID.length ? Optional.ofNullable(BY_ID[id]) : Optional.empty();
  }
}
