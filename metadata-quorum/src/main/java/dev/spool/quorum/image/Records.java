package dev.spool.quorum.image;

import com.google.protobuf.ByteString;
import dev.spool.common.AclBinding;
import dev.spool.common.AclOperation;
import dev.spool.common.AclResourceType;
import dev.spool.common.HostPort;
import dev.spool.common.ScramMechanism;
import dev.spool.quorum.message.AccessControlEntryRecord;
import dev.spool.quorum.message.AddPartitionsRecord;
import dev.spool.quorum.message.BrokerDirsOfflineRecord;
import dev.spool.quorum.message.BrokerShutdownRecord;
import dev.spool.quorum.message.ConfigRecord;
import dev.spool.quorum.message.FeatureLevelRecord;
import dev.spool.quorum.message.FenceBrokerRecord;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.PartitionChangeRecord;
import dev.spool.quorum.message.PartitionRecord;
import dev.spool.quorum.message.ProducerIdsRecord;
import dev.spool.quorum.message.RegisterBrokerRecord;
import dev.spool.quorum.message.RemoveAccessControlEntryRecord;
import dev.spool.quorum.message.RemoveScramCredentialRecord;
import dev.spool.quorum.message.RemoveTopicRecord;
import dev.spool.quorum.message.ReplicationThrottleRecord;
import dev.spool.quorum.message.ScramCredentialRecord;
import dev.spool.quorum.message.TopicRecord;
import dev.spool.quorum.message.UnfenceBrokerRecord;
import dev.spool.quorum.message.UnregisterBrokerRecord;
import java.util.Collection;
import java.util.List;

/** Short constructors for metadata records (decisions, snapshots and tests build records here). */
public final class Records {
  private Records() {}

  public static MetadataRecord registerBroker(
      int id, String incarnationId, String host, int port, String rack, long explicitEpoch) {
    return registerBroker(id, incarnationId, host, port, rack, null, explicitEpoch);
  }

  /** A registration with a Kafka-protocol endpoint ({@code kafka} null = none). */
  public static MetadataRecord registerBroker(
      int id,
      String incarnationId,
      String host,
      int port,
      String rack,
      HostPort kafka,
      long explicitEpoch) {
    return registerBroker(id, incarnationId, host, port, rack, kafka, null, explicitEpoch);
  }

  /**
   * A registration with a Kafka-protocol endpoint ({@code kafka} null = none) and the range of
   * metadata.version the broker supports ({@code versions} null = unsaid, read as 1..1).
   */
  public static MetadataRecord registerBroker(
      int id,
      String incarnationId,
      String host,
      int port,
      String rack,
      HostPort kafka,
      MetadataVersion.Range versions,
      long explicitEpoch) {
    RegisterBrokerRecord.Builder r =
        RegisterBrokerRecord.newBuilder()
            .setBrokerId(id)
            .setIncarnationId(incarnationId)
            .setHost(host)
            .setPort(port)
            .setRack(rack)
            .setBrokerEpoch(explicitEpoch);
    if (kafka != null) {
      r.setKafkaHost(kafka.host()).setKafkaPort(kafka.port());
    }
    if (versions != null) {
      r.setMinMetadataVersion(versions.min()).setMaxMetadataVersion(versions.max());
    }
    return MetadataRecord.newBuilder().setRegisterBroker(r).build();
  }

  /** A finalized feature level (metadata.version). */
  public static MetadataRecord featureLevel(String feature, int level) {
    return MetadataRecord.newBuilder()
        .setFeatureLevel(FeatureLevelRecord.newBuilder().setName(feature).setFeatureLevel(level))
        .build();
  }

  public static MetadataRecord fenceBroker(int id, long epoch) {
    return MetadataRecord.newBuilder()
        .setFenceBroker(FenceBrokerRecord.newBuilder().setBrokerId(id).setBrokerEpoch(epoch))
        .build();
  }

  public static MetadataRecord unfenceBroker(int id, long epoch) {
    return MetadataRecord.newBuilder()
        .setUnfenceBroker(UnfenceBrokerRecord.newBuilder().setBrokerId(id).setBrokerEpoch(epoch))
        .build();
  }

  public static MetadataRecord brokerShutdown(int id, long epoch) {
    return MetadataRecord.newBuilder()
        .setBrokerShutdown(BrokerShutdownRecord.newBuilder().setBrokerId(id).setBrokerEpoch(epoch))
        .build();
  }

  /** {@code dirs} of the broker's registration {@code epoch} failed. */
  public static MetadataRecord brokerDirsOffline(int id, long epoch, Collection<String> dirs) {
    return MetadataRecord.newBuilder()
        .setBrokerDirsOffline(
            BrokerDirsOfflineRecord.newBuilder()
                .setBrokerId(id)
                .setBrokerEpoch(epoch)
                .addAllDirectories(dirs))
        .build();
  }

  /** Removes the registration {@code epoch} of broker {@code id} (metadata.version 3). */
  public static MetadataRecord unregisterBroker(int id, long epoch) {
    return MetadataRecord.newBuilder()
        .setUnregisterBroker(
            UnregisterBrokerRecord.newBuilder().setBrokerId(id).setBrokerEpoch(epoch))
        .build();
  }

  public static MetadataRecord topic(String name, String topicId) {
    return MetadataRecord.newBuilder()
        .setTopic(TopicRecord.newBuilder().setName(name).setTopicId(topicId))
        .build();
  }

  public static MetadataRecord partition(
      String topicId,
      int partition,
      List<Integer> replicas,
      List<Integer> isr,
      int leader,
      int leaderEpoch,
      int partitionEpoch) {
    return MetadataRecord.newBuilder()
        .setPartition(
            PartitionRecord.newBuilder()
                .setTopicId(topicId)
                .setPartition(partition)
                .addAllReplicas(replicas)
                .addAllIsr(isr)
                .setLeader(leader)
                .setLeaderEpoch(leaderEpoch)
                .setPartitionEpoch(partitionEpoch))
        .build();
  }

  /** {@code p} as a PartitionRecord, its reassignment in progress included (snapshots). */
  public static MetadataRecord partition(PartitionState p) {
    return MetadataRecord.newBuilder()
        .setPartition(
            PartitionRecord.newBuilder()
                .setTopicId(p.topicId())
                .setPartition(p.partition())
                .addAllReplicas(p.replicas())
                .addAllIsr(p.isr())
                .setLeader(p.leader())
                .setLeaderEpoch(p.leaderEpoch())
                .setPartitionEpoch(p.partitionEpoch())
                .addAllAddingReplicas(p.addingReplicas())
                .addAllRemovingReplicas(p.removingReplicas()))
        .build();
  }

  /**
   * Partitions {@code expectedCount}, {@code expectedCount + 1}, ... of a topic that has {@code
   * expectedCount} now, one per replica list (preferred leader first), each with its whole replica
   * set in sync and the first replica leading.
   */
  public static MetadataRecord addPartitions(
      String topicId, int expectedCount, List<List<Integer>> replicasPerPartition) {
    AddPartitionsRecord.Builder r =
        AddPartitionsRecord.newBuilder()
            .setTopicId(topicId)
            .setExpectedPartitionCount(expectedCount);
    for (int i = 0; i < replicasPerPartition.size(); i++) {
      List<Integer> replicas = replicasPerPartition.get(i);
      r.addPartitions(
          partition(topicId, expectedCount + i, replicas, replicas, replicas.get(0), 0, 0)
              .getPartition());
    }
    return MetadataRecord.newBuilder().setAddPartitions(r).build();
  }

  /** A change of {@code p} to the given leader/ISR, keeping its replicas. */
  /** A new leader and ISR; the replicas and any reassignment in progress stay. */
  public static MetadataRecord partitionChange(PartitionState p, int leader, List<Integer> isr) {
    return partitionChange(p, leader, isr, p.replicas(), p.addingReplicas(), p.removingReplicas());
  }

  /** A new leader, ISR and replica set, with no reassignment in progress. */
  public static MetadataRecord partitionChange(
      PartitionState p, int leader, List<Integer> isr, List<Integer> replicas) {
    return partitionChange(p, leader, isr, replicas, List.of(), List.of());
  }

  /** The whole new state, reassignment included. */
  public static MetadataRecord partitionChange(
      PartitionState p,
      int leader,
      List<Integer> isr,
      List<Integer> replicas,
      List<Integer> adding,
      List<Integer> removing) {
    return MetadataRecord.newBuilder()
        .setPartitionChange(
            PartitionChangeRecord.newBuilder()
                .setTopicId(p.topicId())
                .setPartition(p.partition())
                .setExpectedPartitionEpoch(p.partitionEpoch())
                .setLeader(leader)
                .addAllIsr(isr)
                .addAllReplicas(replicas)
                .addAllAddingReplicas(adding)
                .addAllRemovingReplicas(removing))
        .build();
  }

  public static MetadataRecord replicationThrottle(long bytesPerSec) {
    return MetadataRecord.newBuilder()
        .setReplicationThrottle(ReplicationThrottleRecord.newBuilder().setBytesPerSec(bytesPerSec))
        .build();
  }

  public static MetadataRecord removeTopic(String topicId) {
    return MetadataRecord.newBuilder()
        .setRemoveTopic(RemoveTopicRecord.newBuilder().setTopicId(topicId))
        .build();
  }

  public static MetadataRecord config(String topicId, String key, String value) {
    return MetadataRecord.newBuilder()
        .setConfig(ConfigRecord.newBuilder().setTopicId(topicId).setKey(key).setValue(value))
        .build();
  }

  public static MetadataRecord deleteConfig(String topicId, String key) {
    return MetadataRecord.newBuilder()
        .setConfig(ConfigRecord.newBuilder().setTopicId(topicId).setKey(key).setDelete(true))
        .build();
  }

  public static MetadataRecord producerIds(
      int brokerId, long brokerEpoch, long expectedNext, long blockSize) {
    return MetadataRecord.newBuilder()
        .setProducerIds(
            ProducerIdsRecord.newBuilder()
                .setBrokerId(brokerId)
                .setBrokerEpoch(brokerEpoch)
                .setExpectedNextProducerId(expectedNext)
                .setBlockSize(blockSize))
        .build();
  }

  /** A user's SCRAM credential for one mechanism (never the password). */
  public static MetadataRecord scramCredential(String user, ScramMechanism.Credential c) {
    return MetadataRecord.newBuilder()
        .setScramCredential(
            ScramCredentialRecord.newBuilder()
                .setUser(user)
                .setMechanism(c.mechanism().mechanismName())
                .setSalt(ByteString.copyFrom(c.salt()))
                .setIterations(c.iterations())
                .setStoredKey(ByteString.copyFrom(c.storedKey()))
                .setServerKey(ByteString.copyFrom(c.serverKey())))
        .build();
  }

  public static MetadataRecord removeScramCredential(String user, ScramMechanism mechanism) {
    return MetadataRecord.newBuilder()
        .setRemoveScramCredential(
            RemoveScramCredentialRecord.newBuilder()
                .setUser(user)
                .setMechanism(mechanism.mechanismName()))
        .build();
  }

  /** The credential a record holds, for a server checking a proof. */
  public static ScramMechanism.Credential credential(ScramCredentialRecord r) {
    return new ScramMechanism.Credential(
        ScramMechanism.forName(r.getMechanism()).orElseThrow(),
        r.getSalt().toByteArray(),
        r.getIterations(),
        r.getStoredKey().toByteArray(),
        r.getServerKey().toByteArray());
  }

  /**
   * One client quota key of {@code entity} set to {@code value}, or removed when {@code value} is
   * null (docs/security.md#quotas).
   */
  public static MetadataRecord clientQuota(
      dev.spool.common.ClientQuotaEntity entity, String key, Double value) {
    dev.spool.quorum.message.ClientQuotaRecord.Builder b =
        dev.spool.quorum.message.ClientQuotaRecord.newBuilder().setKey(key);
    if (entity.user() != null) {
      b.setUser(entity.user());
    }
    if (entity.clientId() != null) {
      b.setClientId(entity.clientId());
    }
    if (value == null) {
      b.setRemove(true);
    } else {
      b.setValue(value);
    }
    return MetadataRecord.newBuilder().setClientQuota(b).build();
  }

  /** The entity a ClientQuotaRecord names. */
  public static dev.spool.common.ClientQuotaEntity clientQuotaEntity(
      dev.spool.quorum.message.ClientQuotaRecord r) {
    return new dev.spool.common.ClientQuotaEntity(
        r.hasUser() ? r.getUser() : null, r.hasClientId() ? r.getClientId() : null);
  }

  /** An ACL with its id (docs/security.md#acls). */
  public static MetadataRecord acl(String id, AclBinding a) {
    return MetadataRecord.newBuilder()
        .setAcl(
            AccessControlEntryRecord.newBuilder()
                .setId(id)
                .setResourceType(a.resourceType().name())
                .setResourceName(a.resourceName())
                .setPatternType(a.patternType().name())
                .setPrincipal(a.principal())
                .setHost(a.host())
                .setOperation(a.operation().name())
                .setPermission(a.permission().name()))
        .build();
  }

  public static MetadataRecord removeAcl(String id) {
    return MetadataRecord.newBuilder()
        .setRemoveAcl(RemoveAccessControlEntryRecord.newBuilder().setId(id))
        .build();
  }

  /**
   * The binding a record holds, or null when one of its enums is not a known name (RecordChecks
   * refuses such a record before it is applied).
   */
  public static AclBinding aclBinding(AccessControlEntryRecord r) {
    var type = AclResourceType.forName(r.getResourceType());
    var pattern = AclBinding.PatternType.forName(r.getPatternType());
    var op = AclOperation.forName(r.getOperation());
    var permission = AclBinding.Permission.forName(r.getPermission());
    if (type.isEmpty() || pattern.isEmpty() || op.isEmpty() || permission.isEmpty()) {
      return null;
    }
    return new AclBinding(
        type.get(),
        r.getResourceName(),
        pattern.get(),
        r.getPrincipal(),
        r.getHost(),
        op.get(),
        permission.get());
  }
}
