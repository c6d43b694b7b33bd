package dev.spool.quorum.image;

import dev.spool.common.AclBinding;
import dev.spool.common.ClientQuotaEntity;
import dev.spool.common.ScramMechanism;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.message.ScramCredentialRecord;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The cluster metadata at one metadata offset: brokers, topics with their partitions and configs,
 * and the producer-id counter. Immutable once built (by {@link ImageBuilder}); readers on any
 * thread may hold it as long as they like. Unchanged topics and brokers are shared between
 * successive images, so publishing a new image costs a copy of the two top-level maps, not of every
 * partition.
 *
 * <p>Two images at the same offset built by replaying the same records are {@link #equals}: that is
 * what "replay is deterministic" means and what the tests check.
 */
public final class MetadataImage {
  public static final MetadataImage EMPTY =
      new MetadataImage(
          -1,
          Map.of(),
          Map.of(),
          Map.of(),
          0,
          Map.of(),
          MetadataVersion.UNSET,
          0,
          Map.of(),
          Map.of());

  private final long offset;
  private final Map<Integer, BrokerRegistration> brokers;
  private final Map<String, TopicImage> topicsById;
  private final Map<String, String> topicIdsByName;
  private final long nextProducerId;
  // user -> mechanism -> credential; the inner maps are immutable (docs/security.md#sasl)
  private final Map<String, Map<ScramMechanism, ScramCredentialRecord>> scram;
  private final int metadataVersion;
  private final long replicationThrottleBytesPerSec;
  // ACL id -> binding (docs/security.md#acls)
  private final Map<String, AclBinding> acls;
  // entity -> key -> value; the inner maps are immutable (docs/security.md#quotas)
  private final Map<ClientQuotaEntity, Map<String, Double>> clientQuotas;

  MetadataImage(
      long offset,
      Map<Integer, BrokerRegistration> brokers,
      Map<String, TopicImage> topicsById,
      Map<String, String> topicIdsByName,
      long nextProducerId,
      Map<String, Map<ScramMechanism, ScramCredentialRecord>> scram,
      int metadataVersion,
      long replicationThrottleBytesPerSec,
      Map<String, AclBinding> acls,
      Map<ClientQuotaEntity, Map<String, Double>> clientQuotas) {
    this.offset = offset;
    this.brokers = Collections.unmodifiableMap(brokers);
    this.topicsById = Collections.unmodifiableMap(topicsById);
    this.topicIdsByName = Collections.unmodifiableMap(topicIdsByName);
    this.nextProducerId = nextProducerId;
    this.scram = Collections.unmodifiableMap(scram);
    this.metadataVersion = metadataVersion;
    this.replicationThrottleBytesPerSec = replicationThrottleBytesPerSec;
    this.acls = Collections.unmodifiableMap(acls);
    this.clientQuotas = Collections.unmodifiableMap(clientQuotas);
  }

  /** The Raft index of the last entry applied; -1 for the empty image. */
  public long offset() {
    return offset;
  }

  /** The same content at another offset (entries without records still advance the offset). */
  public MetadataImage withOffset(long newOffset) {
    if (newOffset == offset) {
      return this;
    }
    return new MetadataImage(
        newOffset,
        brokers,
        topicsById,
        topicIdsByName,
        nextProducerId,
        scram,
        metadataVersion,
        replicationThrottleBytesPerSec,
        acls,
        clientQuotas);
  }

  // ---------------------------------------------------------------- features

  /**
   * The finalized metadata.version level; {@link MetadataVersion#UNSET} (0) until the first active
   * controller finalized one (docs/architecture.md#versioned-metadata).
   */
  public int metadataVersion() {
    return metadataVersion;
  }

  /**
   * The cluster's replication throttle: bytes/s of catch-up fetching per broker, for its adding
   * replicas of reassignments (docs/architecture.md#replica-reassignment). 0 = none.
   */
  public long replicationThrottleBytesPerSec() {
    return replicationThrottleBytesPerSec;
  }

  // ---------------------------------------------------------------- brokers

  public Map<Integer, BrokerRegistration> brokers() {
    return brokers;
  }

  /** The registration, or {@code null} if the broker never registered. */
  public BrokerRegistration broker(int id) {
    return brokers.get(id);
  }

  /** Registered, unfenced brokers (including those in controlled shutdown), by id. */
  public List<BrokerRegistration> liveBrokers() {
    return brokers.values().stream()
        .filter(b -> !b.fenced())
        .sorted(Comparator.comparingInt(BrokerRegistration::id))
        .toList();
  }

  /**
   * Unfenced brokers not in controlled shutdown: the ones that may get new replicas/leaderships.
   */
  public List<BrokerRegistration> eligibleBrokers() {
    return brokers.values().stream()
        .filter(BrokerRegistration::isEligible)
        .sorted(Comparator.comparingInt(BrokerRegistration::id))
        .toList();
  }

  /** True when the broker is registered, unfenced and not shutting down. */
  public boolean isEligible(int brokerId) {
    BrokerRegistration b = brokers.get(brokerId);
    return b != null && b.isEligible();
  }

  // ---------------------------------------------------------------- topics

  public Collection<TopicImage> topics() {
    return topicsById.values();
  }

  public Map<String, String> topicIdsByName() {
    return topicIdsByName;
  }

  /** The topic by name, or {@code null}. */
  public TopicImage topic(String name) {
    String id = topicIdsByName.get(name);
    return id == null ? null : topicsById.get(id);
  }

  /** The topic by id, or {@code null}. */
  public TopicImage topicById(String topicId) {
    return topicsById.get(topicId);
  }

  /** The partitions of a topic in partition order; empty if the topic does not exist. */
  public List<PartitionState> partitions(String topic) {
    TopicImage t = topic(topic);
    return t == null ? List.of() : t.partitions();
  }

  /** The partition, or {@code null} when the topic or partition does not exist. */
  public PartitionState partition(TopicPartition tp) {
    TopicImage t = topic(tp.topic());
    return t == null ? null : t.partition(tp.partition());
  }

  /** Every partition of every topic, topics by name. */
  public List<PartitionState> allPartitions() {
    return allPartitions(topicsById, topicIdsByName);
  }

  /** Partitions that have {@code brokerId} as a replica. */
  public List<PartitionState> partitionsOnBroker(int brokerId) {
    return partitionsOnBroker(topicsById, topicIdsByName, brokerId);
  }

  /** Every partition of the topics in these maps, topics by name (images and their builders). */
  static List<PartitionState> allPartitions(
      Map<String, TopicImage> topicsById, Map<String, String> topicIdsByName) {
    List<PartitionState> all = new ArrayList<>();
    topicIdsByName.keySet().stream()
        .sorted()
        .forEach(n -> all.addAll(topicsById.get(topicIdsByName.get(n)).partitions()));
    return all;
  }

  /** The partitions of these maps that have {@code brokerId} as a replica. */
  static List<PartitionState> partitionsOnBroker(
      Map<String, TopicImage> topicsById, Map<String, String> topicIdsByName, int brokerId) {
    return allPartitions(topicsById, topicIdsByName).stream()
        .filter(p -> p.isReplica(brokerId))
        .toList();
  }

  // ---------------------------------------------------------------- producer ids

  /** The first producer id not yet handed to any broker. */
  public long nextProducerId() {
    return nextProducerId;
  }

  // ---------------------------------------------------------------- SCRAM credentials

  /** The user's credential for {@code mechanism}, or {@code null}. */
  public ScramCredentialRecord scramCredential(String user, ScramMechanism mechanism) {
    Map<ScramMechanism, ScramCredentialRecord> m = scram.get(user);
    return m == null ? null : m.get(mechanism);
  }

  /** Every user with a SCRAM credential: user -> mechanism -> credential. */
  public Map<String, Map<ScramMechanism, ScramCredentialRecord>> scramCredentials() {
    return scram;
  }

  // ---------------------------------------------------------------- ACLs

  /** Every ACL by id. */
  public Map<String, AclBinding> acls() {
    return acls;
  }

  // ---------------------------------------------------------------- client quotas

  /** Every client quota: entity, then key to value; no entity has an empty map. */
  public Map<ClientQuotaEntity, Map<String, Double>> clientQuotas() {
    return clientQuotas;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MetadataImage m
        && offset == m.offset
        && nextProducerId == m.nextProducerId
        && metadataVersion == m.metadataVersion
        && replicationThrottleBytesPerSec == m.replicationThrottleBytesPerSec
        && scram.equals(m.scram)
        && acls.equals(m.acls)
        && clientQuotas.equals(m.clientQuotas)
        && brokers.equals(m.brokers)
        && topicsById.equals(m.topicsById)
        && topicIdsByName.equals(m.topicIdsByName);
  }

  /** Same content, ignoring the offset. */
  public boolean sameContent(MetadataImage m) {
    return withOffset(m.offset).equals(m);
  }

  @Override
  public int hashCode() {
    return Objects.hash(offset, brokers, topicsById, nextProducerId);
  }

  @Override
  public String toString() {
    return "MetadataImage{offset="
        + offset
        + " brokers="
        + brokers.size()
        + " topics="
        + topicsById.size()
        + " nextProducerId="
        + nextProducerId
        + " metadataVersion="
        + metadataVersion
        + "}";
  }

  // package-private accessors for the builder
  Map<String, TopicImage> topicsByIdMap() {
    return topicsById;
  }
}
