package dev.spool.quorum.image;

import dev.spool.common.AclBinding;
import dev.spool.common.ErrorCode;
import dev.spool.common.ScramMechanism;
import dev.spool.quorum.message.AccessControlEntryRecord;
import dev.spool.quorum.message.AddPartitionsRecord;
import dev.spool.quorum.message.BrokerDirsOfflineRecord;
import dev.spool.quorum.message.ConfigRecord;
import dev.spool.quorum.message.FeatureLevelRecord;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.PartitionChangeRecord;
import dev.spool.quorum.message.PartitionRecord;
import dev.spool.quorum.message.ProducerIdsRecord;
import dev.spool.quorum.message.RecordResult;
import dev.spool.quorum.message.RegisterBrokerRecord;
import dev.spool.quorum.message.RemoveScramCredentialRecord;
import dev.spool.quorum.message.RemoveTopicRecord;
import dev.spool.quorum.message.ReplicationThrottleRecord;
import dev.spool.quorum.message.ScramCredentialRecord;
import dev.spool.quorum.message.TopicRecord;
import dev.spool.quorum.message.UnregisterBrokerRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays metadata records into an {@link ImageBuilder}: the one piece of code every controller and
 * every broker runs on every committed batch. Pure and deterministic: no clock, no randomness, no
 * I/O; the outcome depends only on the image and the records. Each record's preconditions (see
 * metadata.proto) are checked against the image as left by the records before it; a record that
 * fails them changes nothing and gets an error result, identically on every replica. Structural
 * checks (ISR within replicas, leader within ISR, ...) are applied too, so a bug in a decision
 * cannot corrupt the image. Before any of that, {@link RecordChecks} refuses a record whose names
 * or sizes are illegal on their own (a topic name that would be a path outside the data dir), with
 * one WARN line: such a record can only come from a hostile or broken writer, never from a
 * decision.
 *
 * <p>Stateless; thread-safe.
 */
public final class MetadataApplier {
  private static final Logger log = LoggerFactory.getLogger(MetadataApplier.class);

  public static final RecordResult OK = RecordResult.getDefaultInstance();

  private MetadataApplier() {}

  /** Applies {@code batch}, committed at Raft index {@code offset}; one result per record. */
  public static List<RecordResult> apply(ImageBuilder b, MetadataBatch batch, long offset) {
    List<RecordResult> results = new ArrayList<>(batch.getRecordsCount());
    for (MetadataRecord r : batch.getRecordsList()) {
      results.add(apply(b, r, offset));
    }
    return results;
  }

  /** Convenience: a new image with {@code batch} applied at {@code offset}. */
  public static MetadataImage replay(MetadataImage image, MetadataBatch batch, long offset) {
    ImageBuilder b = new ImageBuilder(image);
    apply(b, batch, offset);
    return b.build(offset);
  }

  static RecordResult apply(ImageBuilder b, MetadataRecord r, long offset) {
    RecordResult refused = RecordChecks.check(r);
    if (refused != null) {
      log.warn(
          "metadata record {} at offset {} refused, not applied: {}",
          r.getRecordCase(),
          offset,
          refused.getErrorMessage());
      return refused;
    }
    return switch (r.getRecordCase()) {
      case REGISTER_BROKER -> registerBroker(b, r.getRegisterBroker(), offset);
      case FENCE_BROKER ->
          brokerState(
              b,
              r.getFenceBroker().getBrokerId(),
              r.getFenceBroker().getBrokerEpoch(),
              Change.FENCE);
      case UNFENCE_BROKER ->
          brokerState(
              b,
              r.getUnfenceBroker().getBrokerId(),
              r.getUnfenceBroker().getBrokerEpoch(),
              Change.UNFENCE);
      case BROKER_SHUTDOWN ->
          brokerState(
              b,
              r.getBrokerShutdown().getBrokerId(),
              r.getBrokerShutdown().getBrokerEpoch(),
              Change.SHUTDOWN);
      case TOPIC -> topic(b, r.getTopic());
      case PARTITION -> partition(b, r.getPartition(), offset);
      case ADD_PARTITIONS -> addPartitions(b, r.getAddPartitions());
      case PARTITION_CHANGE -> partitionChange(b, r.getPartitionChange(), offset);
      case REMOVE_TOPIC -> removeTopic(b, r.getRemoveTopic());
      case CONFIG -> config(b, r.getConfig());
      case PRODUCER_IDS -> producerIds(b, r.getProducerIds());
      case SCRAM_CREDENTIAL -> scramCredential(b, r.getScramCredential());
      case REMOVE_SCRAM_CREDENTIAL -> removeScramCredential(b, r.getRemoveScramCredential());
      case FEATURE_LEVEL -> featureLevel(b, r.getFeatureLevel());
      case BROKER_DIRS_OFFLINE -> brokerDirsOffline(b, r.getBrokerDirsOffline(), offset);
      case UNREGISTER_BROKER -> unregisterBroker(b, r.getUnregisterBroker(), offset);
      case REPLICATION_THROTTLE -> replicationThrottle(b, r.getReplicationThrottle(), offset);
      case ACL -> acl(b, r.getAcl(), offset);
      case REMOVE_ACL -> removeAcl(b, r.getRemoveAcl().getId(), offset);
      case CLIENT_QUOTA -> clientQuota(b, r.getClientQuota(), offset);
      case RECORD_NOT_SET -> unknownRecord(r, offset);
    };
  }

  /**
   * A record of a type this build does not know (a oneof case written by a newer version; protobuf
   * keeps it as an unknown field) or an empty one: refused, loudly, never skipped silently
   * (docs/architecture.md#versioned-metadata). A newer record reaches this node only if the
   * cluster's metadata.version was raised above what this node supports, which the controller
   * refuses while the node is registered.
   */
  private static RecordResult unknownRecord(MetadataRecord r, long offset) {
    if (r.getUnknownFields().asMap().isEmpty()) {
      return reject(ErrorCode.INVALID_RECORD, "empty metadata record");
    }
    String fields = r.getUnknownFields().asMap().keySet().toString();
    log.error(
        "metadata record at offset {} is of a type this version does not know (field {}; written"
            + " by a newer version, metadata.version {}): refused, not applied",
        offset,
        fields,
        MetadataVersion.SUPPORTED);
    return reject(
        ErrorCode.INVALID_RECORD,
        "unknown metadata record type (field "
            + fields
            + "); this node supports metadata.version "
            + MetadataVersion.SUPPORTED);
  }

  static RecordResult reject(ErrorCode code, String message) {
    return RecordResult.newBuilder().setErrorCode(code).setErrorMessage(message).build();
  }

  private static RecordResult registerBroker(ImageBuilder b, RegisterBrokerRecord r, long offset) {
    if (r.getBrokerId() < 0
        || r.getPort() <= 0
        || r.getPort() > 65535
        || r.getHost().isEmpty()
        || !BrokerRegistration.validKafkaEndpoint(r.getKafkaHost(), r.getKafkaPort())) {
      return reject(
          ErrorCode.INVALID_REQUEST,
          "bad registration of broker "
              + r.getBrokerId()
              + " at "
              + r.getHost()
              + ":"
              + r.getPort());
    }
    long epoch = r.getBrokerEpoch() != 0 ? r.getBrokerEpoch() : offset;
    b.putBroker(
        new BrokerRegistration(
            r.getBrokerId(),
            epoch,
            r.getIncarnationId(),
            r.getHost(),
            r.getPort(),
            r.getRack(),
            true,
            false,
            BrokerRegistration.kafkaEndpoint(r.getKafkaHost(), r.getKafkaPort()),
            MetadataVersion.Range.ofRegistration(
                r.getMinMetadataVersion(), r.getMaxMetadataVersion()),
            List.of()));
    return OK;
  }

  private enum Change {
    FENCE,
    UNFENCE,
    SHUTDOWN
  }

  private static RecordResult brokerState(ImageBuilder b, int id, long epoch, Change change) {
    BrokerRegistration reg = b.broker(id);
    if (reg == null || reg.epoch() != epoch) {
      return staleBroker(id, epoch, reg);
    }
    BrokerRegistration next =
        switch (change) {
          case FENCE -> reg.withFenced(true);
          case UNFENCE -> reg.withFenced(false);
          case SHUTDOWN -> reg.withControlledShutdown();
        };
    if (!next.equals(reg)) {
      b.putBroker(next);
    }
    return OK;
  }

  /**
   * The refusal of a record that needs metadata.version {@code level} while the cluster is below it
   * (a node of an older build would not know the record at all; refused as it would be), else null.
   */
  private static RecordResult belowLevel(ImageBuilder b, String record, int level, long offset) {
    if (b.metadataVersion() >= level) {
      return null;
    }
    log.error(
        "{} at offset {} needs metadata.version {}, the cluster is at {}: refused, not applied",
        record,
        offset,
        level,
        b.metadataVersion());
    return reject(
        ErrorCode.INVALID_RECORD,
        record
            + " needs metadata.version "
            + level
            + "; the finalized level is "
            + b.metadataVersion());
  }

  private static RecordResult brokerDirsOffline(
      ImageBuilder b, BrokerDirsOfflineRecord r, long offset) {
    RecordResult below =
        belowLevel(b, "BrokerDirsOfflineRecord", MetadataVersion.BROKER_DIRS_OFFLINE, offset);
    if (below != null) {
      return below;
    }
    BrokerRegistration reg = b.broker(r.getBrokerId());
    if (reg == null || reg.epoch() != r.getBrokerEpoch()) {
      return staleBroker(r.getBrokerId(), r.getBrokerEpoch(), reg);
    }
    BrokerRegistration next = reg.withOfflineDirs(r.getDirectoriesList());
    if (!next.equals(reg)) {
      b.putBroker(next);
    }
    return OK;
  }

  /**
   * Removes a registration. The controller decided it on a fenced, silent broker with no replica;
   * the checks here hold that on replay too, so no record can take away a live broker or leave a
   * partition naming a broker the image no longer has.
   */
  private static RecordResult unregisterBroker(
      ImageBuilder b, UnregisterBrokerRecord r, long offset) {
    RecordResult below =
        belowLevel(b, "UnregisterBrokerRecord", MetadataVersion.UNREGISTER_BROKER, offset);
    if (below != null) {
      return below;
    }
    BrokerRegistration reg = b.broker(r.getBrokerId());
    if (reg == null || reg.epoch() != r.getBrokerEpoch()) {
      return staleBroker(r.getBrokerId(), r.getBrokerEpoch(), reg);
    }
    if (!reg.fenced()) {
      return reject(ErrorCode.BROKER_ALIVE, "broker " + reg.id() + " is not fenced");
    }
    List<PartitionState> on = b.partitionsOnBroker(reg.id());
    if (!on.isEmpty()) {
      return reject(ErrorCode.BROKER_HAS_REPLICAS, holdsReplicas(reg.id(), on));
    }
    b.removeBroker(reg.id());
    return OK;
  }

  /** "broker 4 is still a replica of 3 partitions (one is orders-0)". */
  public static String holdsReplicas(int brokerId, List<PartitionState> on) {
    return "broker "
        + brokerId
        + " is still a replica of "
        + on.size()
        + (on.size() == 1 ? " partition (" : " partitions (one is ")
        + on.get(0).topicPartition()
        + ")";
  }

  private static RecordResult staleBroker(int id, long epoch, BrokerRegistration reg) {
    return reject(
        ErrorCode.STALE_BROKER_EPOCH,
        "broker "
            + id
            + " epoch "
            + epoch
            + " is not the current registration"
            + (reg == null ? "" : " (" + reg.epoch() + ")"));
  }

  private static RecordResult topic(ImageBuilder b, TopicRecord r) {
    if (b.topicIdByName(r.getName()) != null || b.topicById(r.getTopicId()) != null) {
      return reject(ErrorCode.TOPIC_ALREADY_EXISTS, "topic '" + r.getName() + "' already exists");
    }
    b.putTopic(new TopicImage(r.getTopicId(), r.getName(), List.of(), Map.of()));
    return OK;
  }

  private static RecordResult partition(ImageBuilder b, PartitionRecord r, long offset) {
    RecordResult below =
        reassignmentBelowLevel(
            b, r.getAddingReplicasCount() + r.getRemovingReplicasCount(), offset);
    if (below != null) {
      return below;
    }
    TopicImage t = b.topicById(r.getTopicId());
    if (t == null) {
      return reject(ErrorCode.UNKNOWN_TOPIC_ID, "no topic with id " + r.getTopicId());
    }
    RecordResult refused = checkNext(t, t.partitionCount(), r);
    if (refused != null) {
      return refused;
    }
    b.putPartition(t, newPartition(t, r));
    return OK;
  }

  private static RecordResult addPartitions(ImageBuilder b, AddPartitionsRecord r) {
    TopicImage t = b.topicById(r.getTopicId());
    if (t == null) {
      return reject(ErrorCode.UNKNOWN_TOPIC_ID, "no topic with id " + r.getTopicId());
    }
    if (t.partitionCount() != r.getExpectedPartitionCount()) {
      return reject(
          ErrorCode.INVALID_PARTITIONS,
          "topic '"
              + t.name()
              + "' has "
              + t.partitionCount()
              + " partitions, not the "
              + r.getExpectedPartitionCount()
              + " this growth was decided on; nothing added");
    }
    if (r.getPartitionsCount() == 0) {
      return reject(ErrorCode.INVALID_PARTITIONS, "no partitions to add to '" + t.name() + "'");
    }
    // Built on a copy and published only when every partition passed: all or nothing.
    List<PartitionState> ps = new ArrayList<>(t.partitions());
    for (PartitionRecord p : r.getPartitionsList()) {
      RecordResult refused = append(t, ps, p);
      if (refused != null) {
        return refused;
      }
    }
    b.putTopic(t.withPartitions(ps));
    return OK;
  }

  /** Appends {@code r} to {@code ps} (topic {@code t}'s partitions) if it is the next one. */
  private static RecordResult append(TopicImage t, List<PartitionState> ps, PartitionRecord r) {
    RecordResult refused = checkNext(t, ps.size(), r);
    if (refused == null) {
      ps.add(newPartition(t, r));
    }
    return refused;
  }

  /** Why {@code r} cannot be the next partition of {@code t} holding {@code count}, or null. */
  private static RecordResult checkNext(TopicImage t, int count, PartitionRecord r) {
    if (!r.getTopicId().equals(t.id())) {
      return reject(
          ErrorCode.INVALID_REQUEST,
          t.name() + "-" + r.getPartition() + " carries topic id " + r.getTopicId());
    }
    if (r.getPartition() != count) {
      return reject(
          ErrorCode.INVALID_PARTITIONS,
          "partition "
              + r.getPartition()
              + " of '"
              + t.name()
              + "' is not the next one ("
              + count
              + ")");
    }
    String problem = checkAssignment(r.getReplicasList(), r.getIsrList(), r.getLeader());
    if (problem == null) {
      problem =
          checkReassignment(
              r.getReplicasList(), r.getAddingReplicasList(), r.getRemovingReplicasList());
    }
    if (problem != null) {
      return reject(ErrorCode.INVALID_REQUEST, t.name() + "-" + r.getPartition() + ": " + problem);
    }
    return null;
  }

  private static PartitionState newPartition(TopicImage t, PartitionRecord r) {
    return new PartitionState(
        t.id(),
        t.name(),
        r.getPartition(),
        r.getReplicasList(),
        r.getIsrList(),
        r.getLeader(),
        r.getLeaderEpoch(),
        r.getPartitionEpoch(),
        r.getAddingReplicasList(),
        r.getRemovingReplicasList());
  }

  private static RecordResult partitionChange(
      ImageBuilder b, PartitionChangeRecord r, long offset) {
    RecordResult below =
        reassignmentBelowLevel(
            b, r.getAddingReplicasCount() + r.getRemovingReplicasCount(), offset);
    if (below != null) {
      return below;
    }
    TopicImage t = b.topicById(r.getTopicId());
    if (t == null) {
      return reject(ErrorCode.UNKNOWN_TOPIC_ID, "no topic with id " + r.getTopicId());
    }
    PartitionState p = t.partition(r.getPartition());
    if (p == null) {
      return reject(
          ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          t.name() + "-" + r.getPartition() + " does not exist");
    }
    if (p.partitionEpoch() != r.getExpectedPartitionEpoch()) {
      return reject(
          ErrorCode.INVALID_UPDATE_VERSION,
          p.topicPartition()
              + " is at partition epoch "
              + p.partitionEpoch()
              + ", change expected "
              + r.getExpectedPartitionEpoch());
    }
    String problem = checkAssignment(r.getReplicasList(), r.getIsrList(), r.getLeader());
    if (problem == null) {
      problem =
          checkReassignment(
              r.getReplicasList(), r.getAddingReplicasList(), r.getRemovingReplicasList());
    }
    if (problem != null) {
      return reject(ErrorCode.INVALID_REQUEST, p.topicPartition() + ": " + problem);
    }
    int leaderEpoch = r.getLeader() == p.leader() ? p.leaderEpoch() : p.leaderEpoch() + 1;
    PartitionState next =
        new PartitionState(
            t.id(),
            t.name(),
            p.partition(),
            r.getReplicasList(),
            r.getIsrList(),
            r.getLeader(),
            leaderEpoch,
            p.partitionEpoch() + 1,
            r.getAddingReplicasList(),
            r.getRemovingReplicasList());
    b.putPartition(t, next);
    return OK;
  }

  /** Returns a problem description or {@code null} when replicas/isr/leader are consistent. */
  static String checkAssignment(List<Integer> replicas, List<Integer> isr, int leader) {
    if (replicas.isEmpty()) {
      return "no replicas";
    }
    if (new HashSet<>(replicas).size() != replicas.size()) {
      return "duplicate replicas " + replicas;
    }
    if (new HashSet<>(isr).size() != isr.size()) {
      return "duplicate ISR members " + isr;
    }
    if (replicas.stream().anyMatch(id -> id < 0)) {
      return "negative broker id in " + replicas;
    }
    if (!replicas.containsAll(isr)) {
      return "ISR " + isr + " is not within replicas " + replicas;
    }
    if (isr.isEmpty()) {
      return "empty ISR";
    }
    if (leader != PartitionState.NO_LEADER && !isr.contains(leader)) {
      return "leader " + leader + " is not in the ISR " + isr;
    }
    return null;
  }

  /**
   * Returns a problem description or {@code null} when a reassignment's adding and removing
   * replicas fit {@code replicas}: each within it, no id in both, no duplicate, and a non-empty
   * target (replicas without the removing ones).
   */
  static String checkReassignment(
      List<Integer> replicas, List<Integer> adding, List<Integer> removing) {
    if (adding.isEmpty() && removing.isEmpty()) {
      return null;
    }
    if (new HashSet<>(adding).size() != adding.size()
        || new HashSet<>(removing).size() != removing.size()) {
      return "duplicate adding " + adding + " or removing " + removing + " replicas";
    }
    if (!replicas.containsAll(adding) || !replicas.containsAll(removing)) {
      return "adding " + adding + " or removing " + removing + " not within replicas " + replicas;
    }
    if (adding.stream().anyMatch(removing::contains)) {
      return "replicas both adding " + adding + " and removing " + removing;
    }
    if (removing.size() == replicas.size()) {
      return "every replica of " + replicas + " is being removed";
    }
    return null;
  }

  /** A partition record naming {@code movingReplicas} adding or removing replicas below level 4. */
  private static RecordResult reassignmentBelowLevel(
      ImageBuilder b, int movingReplicas, long offset) {
    return movingReplicas == 0
        ? null
        : belowLevel(b, "a reassignment", MetadataVersion.REASSIGNMENT, offset);
  }

  private static RecordResult replicationThrottle(
      ImageBuilder b, ReplicationThrottleRecord r, long offset) {
    RecordResult below =
        belowLevel(b, "ReplicationThrottleRecord", MetadataVersion.REASSIGNMENT, offset);
    if (below != null) {
      return below;
    }
    b.setReplicationThrottle(r.getBytesPerSec());
    return OK;
  }

  private static RecordResult removeTopic(ImageBuilder b, RemoveTopicRecord r) {
    TopicImage t = b.topicById(r.getTopicId());
    if (t == null) {
      return reject(ErrorCode.UNKNOWN_TOPIC_ID, "no topic with id " + r.getTopicId());
    }
    b.removeTopic(t);
    return OK;
  }

  private static RecordResult config(ImageBuilder b, ConfigRecord r) {
    TopicImage t = b.topicById(r.getTopicId());
    if (t == null) {
      return reject(ErrorCode.UNKNOWN_TOPIC_ID, "no topic with id " + r.getTopicId());
    }
    if (r.getKey().isEmpty()) {
      return reject(ErrorCode.INVALID_CONFIG, "empty config key");
    }
    Map<String, String> c = new HashMap<>(t.configs());
    if (r.getDelete()) {
      c.remove(r.getKey());
    } else {
      c.put(r.getKey(), r.getValue());
    }
    b.putTopic(t.withConfigs(c));
    return OK;
  }

  private static RecordResult producerIds(ImageBuilder b, ProducerIdsRecord r) {
    if (r.getBlockSize() <= 0) {
      return reject(ErrorCode.INVALID_REQUEST, "producer id block size " + r.getBlockSize());
    }
    if (b.nextProducerId() != r.getExpectedNextProducerId()) {
      return reject(
          ErrorCode.INVALID_UPDATE_VERSION,
          "next producer id is "
              + b.nextProducerId()
              + ", record expected "
              + r.getExpectedNextProducerId());
    }
    b.setNextProducerId(r.getExpectedNextProducerId() + r.getBlockSize());
    return OK;
  }

  /** RecordChecks has checked the name and the level's lower bound already. */
  private static RecordResult featureLevel(ImageBuilder b, FeatureLevelRecord r) {
    if (r.getFeatureLevel() < b.metadataVersion()) {
      return reject(
          ErrorCode.INVALID_UPDATE_VERSION,
          MetadataVersion.FEATURE
              + " is at level "
              + b.metadataVersion()
              + "; "
              + r.getFeatureLevel()
              + " would be a downgrade, which this version does not do");
    }
    b.setMetadataVersion(r.getFeatureLevel());
    return OK;
  }

  /**
   * RecordChecks has checked the binding already; the id must be new and the binding not held by
   * another id, so a binding is stored once however often it was asked for.
   */
  private static RecordResult acl(ImageBuilder b, AccessControlEntryRecord r, long offset) {
    RecordResult below = belowLevel(b, "AccessControlEntryRecord", MetadataVersion.ACLS, offset);
    if (below != null) {
      return below;
    }
    AclBinding a = Records.aclBinding(r);
    if (b.acls().containsKey(r.getId())) {
      return reject(ErrorCode.DUPLICATE_RESOURCE, "ACL id " + r.getId() + " exists already");
    }
    if (b.acls().containsValue(a)) {
      return reject(ErrorCode.DUPLICATE_RESOURCE, "the ACL exists already: " + a);
    }
    b.putAcl(r.getId(), a);
    return OK;
  }

  /** RecordChecks has checked the entity, key and value already. */
  private static RecordResult clientQuota(
      ImageBuilder b, dev.spool.quorum.message.ClientQuotaRecord r, long offset) {
    RecordResult below = belowLevel(b, "ClientQuotaRecord", MetadataVersion.CLIENT_QUOTAS, offset);
    if (below != null) {
      return below;
    }
    b.setClientQuota(Records.clientQuotaEntity(r), r.getKey(), r.getRemove() ? null : r.getValue());
    return OK;
  }

  private static RecordResult removeAcl(ImageBuilder b, String id, long offset) {
    RecordResult below =
        belowLevel(b, "RemoveAccessControlEntryRecord", MetadataVersion.ACLS, offset);
    if (below != null) {
      return below;
    }
    if (!b.acls().containsKey(id)) {
      return reject(ErrorCode.RESOURCE_NOT_FOUND, "no ACL with id " + id);
    }
    b.removeAcl(id);
    return OK;
  }

  /** RecordChecks has checked the name, mechanism, sizes and bounds already. */
  private static RecordResult scramCredential(ImageBuilder b, ScramCredentialRecord r) {
    b.putScramCredential(ScramMechanism.forName(r.getMechanism()).orElseThrow(), r);
    return OK;
  }

  private static RecordResult removeScramCredential(ImageBuilder b, RemoveScramCredentialRecord r) {
    ScramMechanism m = ScramMechanism.forName(r.getMechanism()).orElseThrow();
    if (b.scramCredential(r.getUser(), m) == null) {
      return reject(
          ErrorCode.RESOURCE_NOT_FOUND,
          "user '" + r.getUser() + "' has no " + r.getMechanism() + " credential");
    }
    b.removeScramCredential(r.getUser(), m);
    return OK;
  }
}
