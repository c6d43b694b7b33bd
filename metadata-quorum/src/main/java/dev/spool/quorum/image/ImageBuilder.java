package dev.spool.quorum.image;

import dev.spool.common.AclBinding;
import dev.spool.common.ClientQuotaEntity;
import dev.spool.common.ScramMechanism;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.message.ScramCredentialRecord;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A mutable working copy of a {@link MetadataImage}, changed by {@link MetadataApplier} and frozen
 * with {@link #build}. Copy-on-write: the top-level maps are copied on the first change after each
 * build, topics and brokers are immutable objects shared with the base image. Remembers what it
 * touched, so {@link #delta} lists what changed since the base image.
 *
 * <p>A topic whose partitions change ({@link #putPartition}) gets one private copy of its partition
 * list per build, changed in place by the following records of the same build: a batch of many
 * partition changes costs one copy per topic, not one per record. The topic object holding that
 * list is seen only through this builder until {@link #build} hands it out and forgets the list.
 *
 * <p>Not thread-safe: owned by one thread (the Ratis apply thread on a controller, the lifecycle
 * thread on a broker).
 */
public final class ImageBuilder {
  private final MetadataImage base;
  private Map<Integer, BrokerRegistration> brokers;
  private Map<String, TopicImage> topicsById;
  private Map<String, String> topicIdsByName;
  private long nextProducerId;
  private Map<String, Map<ScramMechanism, ScramCredentialRecord>> scram;
  private boolean scramOwned;
  private int metadataVersion;
  private long replicationThrottleBytesPerSec;
  private Map<String, AclBinding> acls;
  private boolean aclsOwned;
  private boolean aclsTouched;
  private Map<ClientQuotaEntity, Map<String, Double>> clientQuotas;
  private boolean clientQuotasOwned;
  private boolean clientQuotasTouched;
  private boolean brokersOwned;
  private boolean topicsOwned;
  // topic id -> the partition list this builder may still change (the live topic in topicsById
  // wraps it); emptied by build, so no published image ever sees a list change.
  private final Map<String, List<PartitionState>> ownedPartitions = new HashMap<>();
  private final Set<Integer> touchedBrokers = new HashSet<>();
  private final Set<String> touchedTopicIds = new HashSet<>();
  private final Set<String> touchedScramUsers = new HashSet<>();

  public ImageBuilder(MetadataImage base) {
    this.base = base;
    this.brokers = base.brokers();
    this.topicsById = base.topicsByIdMap();
    this.topicIdsByName = base.topicIdsByName();
    this.nextProducerId = base.nextProducerId();
    this.scram = base.scramCredentials();
    this.metadataVersion = base.metadataVersion();
    this.replicationThrottleBytesPerSec = base.replicationThrottleBytesPerSec();
    this.acls = base.acls();
    this.clientQuotas = base.clientQuotas();
  }

  // ---------------------------------------------------------------- reads

  BrokerRegistration broker(int id) {
    return brokers.get(id);
  }

  TopicImage topicById(String id) {
    return topicsById.get(id);
  }

  String topicIdByName(String name) {
    return topicIdsByName.get(name);
  }

  long nextProducerId() {
    return nextProducerId;
  }

  int metadataVersion() {
    return metadataVersion;
  }

  /** The partitions that name {@code brokerId} as a replica, topics by name. */
  List<PartitionState> partitionsOnBroker(int brokerId) {
    return MetadataImage.partitionsOnBroker(topicsById, topicIdsByName, brokerId);
  }

  ScramCredentialRecord scramCredential(String user, ScramMechanism mechanism) {
    Map<ScramMechanism, ScramCredentialRecord> m = scram.get(user);
    return m == null ? null : m.get(mechanism);
  }

  Map<String, AclBinding> acls() {
    return acls;
  }

  // ---------------------------------------------------------------- writes

  /** Sets {@code key} of {@code entity}, or removes it when {@code value} is null. */
  void setClientQuota(ClientQuotaEntity entity, String key, Double value) {
    clientQuotasTouched = true;
    if (!clientQuotasOwned) {
      clientQuotas = new HashMap<>(clientQuotas);
      clientQuotasOwned = true;
    }
    Map<String, Double> values = new HashMap<>(clientQuotas.getOrDefault(entity, Map.of()));
    if (value == null) {
      values.remove(key);
    } else {
      values.put(key, value);
    }
    if (values.isEmpty()) {
      clientQuotas.remove(entity);
    } else {
      clientQuotas.put(entity, Map.copyOf(values));
    }
  }

  void putAcl(String id, AclBinding a) {
    ownAcls().put(id, a);
  }

  void removeAcl(String id) {
    ownAcls().remove(id);
  }

  private Map<String, AclBinding> ownAcls() {
    aclsTouched = true;
    if (!aclsOwned) {
      acls = new HashMap<>(acls);
      aclsOwned = true;
    }
    return acls;
  }

  void putBroker(BrokerRegistration b) {
    if (!brokersOwned) {
      brokers = new HashMap<>(brokers);
      brokersOwned = true;
    }
    brokers.put(b.id(), b);
    touchedBrokers.add(b.id());
  }

  void removeBroker(int id) {
    if (!brokersOwned) {
      brokers = new HashMap<>(brokers);
      brokersOwned = true;
    }
    brokers.remove(id);
    touchedBrokers.add(id);
  }

  private void ownTopics() {
    if (!topicsOwned) {
      topicsById = new HashMap<>(topicsById);
      topicIdsByName = new HashMap<>(topicIdsByName);
      topicsOwned = true;
    }
  }

  void putTopic(TopicImage t) {
    ownTopics();
    ownedPartitions.remove(t.id());
    topicsById.put(t.id(), t);
    topicIdsByName.put(t.name(), t.id());
    touchedTopicIds.add(t.id());
  }

  void removeTopic(TopicImage t) {
    ownTopics();
    ownedPartitions.remove(t.id());
    topicsById.remove(t.id());
    topicIdsByName.remove(t.name());
    touchedTopicIds.add(t.id());
  }

  /**
   * Sets partition {@code p.partition()} of topic {@code t} (the topic as this builder holds it) to
   * {@code p}, or appends it when it is the next partition number.
   */
  void putPartition(TopicImage t, PartitionState p) {
    ownTopics();
    List<PartitionState> ps = ownedPartitions.get(t.id());
    if (ps == null || topicsById.get(t.id()) != t) {
      ps = new ArrayList<>(t.partitions());
      ownedPartitions.put(t.id(), ps);
      topicsById.put(t.id(), TopicImage.sharing(t, ps));
      topicIdsByName.put(t.name(), t.id());
      touchedTopicIds.add(t.id());
    }
    if (p.partition() == ps.size()) {
      ps.add(p);
    } else {
      ps.set(p.partition(), p);
    }
  }

  void putScramCredential(ScramMechanism mechanism, ScramCredentialRecord r) {
    Map<ScramMechanism, ScramCredentialRecord> m = new EnumMap<>(ScramMechanism.class);
    m.putAll(scram.getOrDefault(r.getUser(), Map.of()));
    m.put(mechanism, r);
    ownScram().put(r.getUser(), Map.copyOf(m));
    touchedScramUsers.add(r.getUser());
  }

  void removeScramCredential(String user, ScramMechanism mechanism) {
    Map<ScramMechanism, ScramCredentialRecord> m = new EnumMap<>(ScramMechanism.class);
    m.putAll(scram.getOrDefault(user, Map.of()));
    m.remove(mechanism);
    touchedScramUsers.add(user);
    if (m.isEmpty()) {
      ownScram().remove(user);
    } else {
      ownScram().put(user, Map.copyOf(m));
    }
  }

  private Map<String, Map<ScramMechanism, ScramCredentialRecord>> ownScram() {
    if (!scramOwned) {
      scram = new HashMap<>(scram);
      scramOwned = true;
    }
    return scram;
  }

  void setMetadataVersion(int level) {
    this.metadataVersion = level;
  }

  void setReplicationThrottle(long bytesPerSec) {
    this.replicationThrottleBytesPerSec = bytesPerSec;
  }

  void setNextProducerId(long next) {
    this.nextProducerId = next;
  }

  /** Makes this builder hold {@code other}'s content (a full image replaces the old one). */
  void replaceWith(MetadataImage other) {
    ownedPartitions.clear();
    touchedBrokers.addAll(brokers.keySet());
    touchedBrokers.addAll(other.brokers().keySet());
    touchedTopicIds.addAll(topicsById.keySet());
    touchedTopicIds.addAll(other.topicsByIdMap().keySet());
    brokers = other.brokers();
    topicsById = other.topicsByIdMap();
    topicIdsByName = other.topicIdsByName();
    nextProducerId = other.nextProducerId();
    metadataVersion = other.metadataVersion();
    replicationThrottleBytesPerSec = other.replicationThrottleBytesPerSec();
    touchedScramUsers.addAll(scram.keySet());
    touchedScramUsers.addAll(other.scramCredentials().keySet());
    scram = other.scramCredentials();
    scramOwned = false;
    aclsTouched = true;
    acls = other.acls();
    aclsOwned = false;
    clientQuotas = other.clientQuotas();
    clientQuotasOwned = false;
    clientQuotasTouched = true;
    brokersOwned = false;
    topicsOwned = false;
  }

  // ---------------------------------------------------------------- results

  /** Freezes the current content as an image at {@code offset}; the builder stays usable. */
  public MetadataImage build(long offset) {
    ownedPartitions.clear();
    brokersOwned = false;
    topicsOwned = false;
    scramOwned = false;
    aclsOwned = false;
    clientQuotasOwned = false;
    return new MetadataImage(
        offset,
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

  /**
   * What changed since the base image. A topic deleted and re-created under the same name shows in
   * both {@code removedTopics} (old id) and {@code changedTopics} (new id); a reader handles
   * removals first.
   */
  public MetadataDelta delta(long toOffset, boolean fullImage) {
    Map<String, TopicImage> changedTopics = new HashMap<>();
    Map<String, TopicImage> removedTopics = new HashMap<>();
    Map<TopicPartition, PartitionState> changedPartitions = new HashMap<>();
    Map<TopicPartition, PartitionState> removedPartitions = new HashMap<>();
    for (String id : touchedTopicIds) {
      TopicImage before = base.topicById(id);
      TopicImage after = topicsById.get(id);
      if (after == null) {
        if (before != null) {
          removedTopics.put(before.name(), before);
          before.partitions().forEach(p -> removedPartitions.put(p.topicPartition(), p));
        }
      } else if (!after.equals(before)) {
        changedTopics.put(after.name(), after);
        for (PartitionState p : after.partitions()) {
          PartitionState old = before == null ? null : before.partition(p.partition());
          if (p != old && !p.equals(old)) {
            changedPartitions.put(p.topicPartition(), p);
          }
        }
      }
    }
    Set<Integer> changedBrokers = new HashSet<>();
    for (int id : touchedBrokers) {
      BrokerRegistration before = base.broker(id);
      BrokerRegistration after = brokers.get(id);
      if (after == null ? before != null : !after.equals(before)) {
        changedBrokers.add(id);
      }
    }
    Set<String> changedScramUsers = new HashSet<>();
    for (String user : touchedScramUsers) {
      if (!java.util.Objects.equals(base.scramCredentials().get(user), scram.get(user))) {
        changedScramUsers.add(user);
      }
    }
    return new MetadataDelta(
        base.offset(),
        toOffset,
        changedTopics,
        removedTopics,
        changedPartitions,
        removedPartitions,
        changedBrokers,
        fullImage,
        changedScramUsers,
        aclsTouched && !base.acls().equals(acls),
        clientQuotasTouched && !base.clientQuotas().equals(clientQuotas));
  }
}
