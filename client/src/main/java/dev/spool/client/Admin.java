package dev.spool.client;

import dev.spool.client.internal.ClientContext;
import dev.spool.client.internal.admin.AclCalls;
import dev.spool.client.internal.admin.AdminCalls;
import dev.spool.client.internal.admin.AdminCalls.Done;
import dev.spool.client.internal.admin.AdminCalls.Retry;
import dev.spool.client.internal.admin.GroupAdmin;
import dev.spool.client.internal.admin.ReassignmentCalls;
import dev.spool.client.internal.admin.RecordDeletions;
import dev.spool.client.internal.consumer.OffsetLookup;
import dev.spool.client.internal.metadata.LeaderCalls;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.ScramMechanism;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.network.Node;
import dev.spool.protocol.message.AlterConfigsRequest;
import dev.spool.protocol.message.AlterConfigsResponse;
import dev.spool.protocol.message.AlterUserScramCredentialsRequest;
import dev.spool.protocol.message.AlterUserScramCredentialsResponse;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.CreatePartitionsRequest;
import dev.spool.protocol.message.CreatePartitionsResponse;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.protocol.message.DeleteTopicsRequest;
import dev.spool.protocol.message.DeleteTopicsResponse;
import dev.spool.protocol.message.DescribeClusterRequest;
import dev.spool.protocol.message.DescribeClusterResponse;
import dev.spool.protocol.message.DescribeConfigsRequest;
import dev.spool.protocol.message.DescribeConfigsResponse;
import dev.spool.protocol.message.DescribeFeaturesRequest;
import dev.spool.protocol.message.DescribeFeaturesResponse;
import dev.spool.protocol.message.DescribeLogsRequest;
import dev.spool.protocol.message.DescribeLogsResponse;
import dev.spool.protocol.message.DescribeUserScramCredentialsRequest;
import dev.spool.protocol.message.DescribeUserScramCredentialsResponse;
import dev.spool.protocol.message.ElectLeadersRequest;
import dev.spool.protocol.message.ElectLeadersResponse;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.TopicMetadata;
import dev.spool.protocol.message.TopicPartitions;
import dev.spool.protocol.message.UnregisterBrokerRequest;
import dev.spool.protocol.message.UnregisterBrokerResponse;
import dev.spool.protocol.message.UpdateFeaturesRequest;
import dev.spool.protocol.message.UpdateFeaturesResponse;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Cluster administration: topics, configs, cluster and quorum status, leader elections, replica
 * reassignment. Every operation returns a future that fails with a {@link SpoolException} naming
 * the error (e.g. TOPIC_ALREADY_EXISTS, UNKNOWN_TOPIC_OR_PARTITION, INVALID_REPLICATION_FACTOR);
 * retriable errors (no controller, broker unreachable, ...) are retried until {@code
 * default.api.timeout.ms}, after which the future fails with REQUEST_TIMED_OUT
 * (BROKER_NOT_AVAILABLE when no broker could be reached). Requests go to any broker, which forwards
 * mutations to the metadata quorum. Thread-safe; futures complete on the client's I/O thread.
 */
public final class Admin implements AutoCloseable {
  /** Which replica a leader election picks. */
  public enum ElectionType {
    /** The first replica of the assignment, if it is in sync. */
    PREFERRED,
    /** Any live replica, even out of sync, when no in-sync replica is alive (may lose data). */
    UNCLEAN
  }

  private static final int UNKNOWN_TOPIC_ATTEMPTS = 3;

  private final ClientContext context;
  private final AdminCalls calls;
  private final int brokerTimeoutMs;
  private final GroupAdmin groups;
  private final OffsetLookup offsets;
  private final RecordDeletions deletions;
  private final ReassignmentCalls reassignments;
  private final AclCalls acls;
  private final dev.spool.client.internal.admin.ClientQuotaCalls quotas;
  private final long defaultApiTimeoutMs;

  public Admin(Map<String, String> props) {
    this(new AdminConfig(props));
  }

  public Admin(AdminConfig config) {
    this(config, Clock.SYSTEM);
  }

  Admin(AdminConfig config, Clock clock) {
    this.context =
        new ClientContext(
            "admin", AdminConfig.COMMON.read(config.config()), 5, 64 * 1024 * 1024, clock);
    this.calls = new AdminCalls(context, config.get(AdminConfig.DEFAULT_API_TIMEOUT_MS));
    this.brokerTimeoutMs =
        (int) Math.min(Integer.MAX_VALUE, config.get(AdminConfig.REQUEST_TIMEOUT_MS));
    this.defaultApiTimeoutMs = config.get(AdminConfig.DEFAULT_API_TIMEOUT_MS);
    this.groups =
        new GroupAdmin(context, defaultApiTimeoutMs, config.get(AdminConfig.REQUEST_TIMEOUT_MS));
    LeaderCalls leaderCalls =
        new LeaderCalls(
            context.metadata(),
            context.network(),
            clock,
            context.retryBackoff(),
            config.get(AdminConfig.REQUEST_TIMEOUT_MS));
    this.deletions = new RecordDeletions(leaderCalls, clock, defaultApiTimeoutMs);
    this.offsets = new OffsetLookup(leaderCalls);
    this.reassignments = new ReassignmentCalls(calls, brokerTimeoutMs);
    this.acls = new AclCalls(calls, brokerTimeoutMs);
    this.quotas = new dev.spool.client.internal.admin.ClientQuotaCalls(calls, brokerTimeoutMs);
  }

  // ------------------------------------------------------------------ consumer groups

  /** Every consumer group of the cluster (each broker lists those it coordinates). */
  public CompletableFuture<List<ConsumerGroupListing>> listConsumerGroups() {
    return describeCluster()
        .thenCompose(
            c ->
                groups.list(
                    c.brokers().stream().map(b -> new Node(b.id(), b.host(), b.port())).toList()));
  }

  /** Members (with host, client id, epoch and assignment) and state of one group. */
  public CompletableFuture<ConsumerGroupDescription> describeConsumerGroup(String groupId) {
    return groups.describe(groupId);
  }

  /** Every committed offset of the group. */
  public CompletableFuture<Map<TopicPartition, OffsetAndMetadata>> listConsumerGroupOffsets(
      String groupId) {
    return groups.offsets(groupId);
  }

  /** Sets committed offsets; refused with NON_EMPTY_GROUP while the group has members. */
  public CompletableFuture<Void> alterConsumerGroupOffsets(
      String groupId, Map<TopicPartition, OffsetAndMetadata> offsets) {
    return groups.alterOffsets(groupId, offsets);
  }

  /** Deletes committed offsets (GROUP_SUBSCRIBED_TO_TOPIC while members read the topic). */
  public CompletableFuture<Void> deleteConsumerGroupOffsets(
      String groupId, Collection<TopicPartition> partitions) {
    return groups.deleteOffsets(groupId, partitions);
  }

  /** Deletes a group and its offsets; refused with NON_EMPTY_GROUP while it has members. */
  public CompletableFuture<Void> deleteConsumerGroup(String groupId) {
    return groups.delete(groupId);
  }

  /**
   * Offsets by ListOffsets: per partition -2 (earliest), -1 (latest, the high watermark) or a
   * timestamp in ms (the first record at or after it; -1 when there is none).
   */
  public CompletableFuture<Map<TopicPartition, Long>> listOffsets(Map<TopicPartition, Long> specs) {
    return offsets
        .lookup(specs, context.clock().monotonicMs() + defaultApiTimeoutMs)
        .thenApply(
            found -> {
              Map<TopicPartition, Long> out = new TreeMap<>();
              specs
                  .keySet()
                  .forEach(tp -> out.put(tp, found.get(tp) == null ? -1L : found.get(tp).offset()));
              return out;
            });
  }

  // ------------------------------------------------------------------ records

  /**
   * Deletes each partition's records below the given offset (-1: below the high watermark) by
   * moving its log start offset on its leader, as Kafka's {@code Admin.deleteRecords}: consumers
   * from the earliest offset start there, and whole segments below it are deleted by the brokers'
   * next retention pass. Answers each partition's new log start offset (its low watermark). Fails
   * with the first partition's non-retriable error: OFFSET_OUT_OF_RANGE (past the high watermark),
   * POLICY_VIOLATION (a topic without cleanup.policy delete), UNKNOWN_TOPIC_OR_PARTITION.
   */
  public CompletableFuture<Map<TopicPartition, Long>> deleteRecords(
      Map<TopicPartition, Long> beforeOffsets) {
    return deletions.delete(beforeOffsets);
  }

  // ------------------------------------------------------------------ topics

  /** Creates the topics; fails with the first topic's error if any could not be created. */
  public CompletableFuture<Void> createTopics(Collection<NewTopic> topics) {
    CreateTopicsRequest.Builder req =
        CreateTopicsRequest.newBuilder().setTimeoutMs(brokerTimeoutMs);
    for (NewTopic t : topics) {
      req.addTopics(
          CreateTopicsRequest.Topic.newBuilder()
              .setName(t.name())
              .setNumPartitions(t.partitions())
              .setReplicationFactor(t.replicationFactor())
              .putAllConfigs(t.configs()));
    }
    CreateTopicsRequest request = req.build();
    return calls.call(
        "CreateTopics",
        ApiKey.CREATE_TOPICS,
        () -> request,
        r -> {
          List<SpoolException> errors = new ArrayList<>();
          for (CreateTopicsResponse.Result res :
              r.body(CreateTopicsResponse.class).getTopicsList()) {
            if (res.getErrorCode() != ErrorCode.NONE) {
              SpoolException e =
                  new SpoolException(
                      res.getErrorCode(), topicMessage(res.getName(), res.getErrorMessage()));
              if (e.retriable()) {
                return new Retry<>(e);
              }
              errors.add(e);
            }
          }
          return errors.isEmpty() ? new Done<>(null) : new AdminCalls.Fail<>(errors.get(0));
        });
  }

  public CompletableFuture<Void> createTopic(NewTopic topic) {
    return createTopics(List.of(topic));
  }

  /**
   * Grows each topic to its new partition count, as Kafka's {@code Admin.createPartitions}. Fails
   * with the first topic's error: INVALID_PARTITIONS (the count is not larger than the current
   * one), UNKNOWN_TOPIC_OR_PARTITION, INVALID_REPLICA_ASSIGNMENT (an assignment naming an unknown
   * or fenced broker, repeating one, or of the wrong size), INVALID_REPLICATION_FACTOR (too few
   * live brokers to place the new partitions). Topics without an error grow even when another
   * fails. Completes once the answering broker's metadata lists the new partitions with their
   * leaders; producers and consumers find them at their next metadata refresh ({@code
   * metadata.max.age.ms}).
   */
  public CompletableFuture<Void> createPartitions(Map<String, NewPartitions> newPartitions) {
    return createPartitions(newPartitions, false);
  }

  /** {@link #createPartitions(Map)}; with {@code validateOnly} only checks, changing nothing. */
  public CompletableFuture<Void> createPartitions(
      Map<String, NewPartitions> newPartitions, boolean validateOnly) {
    CreatePartitionsRequest.Builder req =
        CreatePartitionsRequest.newBuilder()
            .setTimeoutMs(brokerTimeoutMs)
            .setValidateOnly(validateOnly);
    newPartitions.forEach(
        (name, n) -> {
          CreatePartitionsRequest.Topic.Builder t =
              CreatePartitionsRequest.Topic.newBuilder().setName(name).setCount(n.totalCount());
          n.assignments()
              .forEach(
                  a ->
                      t.addAssignments(
                          CreatePartitionsRequest.Assignment.newBuilder().addAllReplicas(a)));
          req.addTopics(t);
        });
    CreatePartitionsRequest request = req.build();
    AtomicInteger attempts = new AtomicInteger();
    return calls.call(
        "CreatePartitions",
        ApiKey.CREATE_PARTITIONS,
        () -> {
          attempts.incrementAndGet();
          return request;
        },
        r -> {
          List<SpoolException> errors = new ArrayList<>();
          for (CreatePartitionsResponse.Result res :
              r.body(CreatePartitionsResponse.class).getTopicsList()) {
            NewPartitions asked = newPartitions.get(res.getName());
            if (res.getErrorCode() == ErrorCode.INVALID_PARTITIONS
                && attempts.get() > 1
                && asked != null
                && res.getCount() == asked.totalCount()) {
              continue; // an earlier attempt that timed out did grow the topic
            }
            if (res.getErrorCode() != ErrorCode.NONE) {
              SpoolException e =
                  new SpoolException(
                      res.getErrorCode(), topicMessage(res.getName(), res.getErrorMessage()));
              if (e.retriable() && res.getErrorCode() != ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) {
                return new Retry<>(e);
              }
              errors.add(e);
            }
          }
          return errors.isEmpty() ? new Done<>(null) : new AdminCalls.Fail<>(errors.get(0));
        });
  }

  /** Deletes the topics; fails with the first error (e.g. UNKNOWN_TOPIC_OR_PARTITION). */
  public CompletableFuture<Void> deleteTopics(Collection<String> names) {
    DeleteTopicsRequest request =
        DeleteTopicsRequest.newBuilder().addAllNames(names).setTimeoutMs(brokerTimeoutMs).build();
    return calls.call(
        "DeleteTopics",
        ApiKey.DELETE_TOPICS,
        () -> request,
        r -> {
          for (DeleteTopicsResponse.Result res :
              r.body(DeleteTopicsResponse.class).getTopicsList()) {
            if (res.getErrorCode() != ErrorCode.NONE) {
              SpoolException e =
                  new SpoolException(
                      res.getErrorCode(), topicMessage(res.getName(), res.getErrorMessage()));
              if (e.retriable() && res.getErrorCode() != ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) {
                return new Retry<>(e);
              }
              return new AdminCalls.Fail<>(e);
            }
          }
          return new Done<>(null);
        });
  }

  /** Names of all topics, sorted. */
  public CompletableFuture<List<String>> listTopics() {
    MetadataRequest request = MetadataRequest.newBuilder().setAllTopics(true).build();
    return calls.call(
        "ListTopics",
        ApiKey.METADATA,
        () -> request,
        r ->
            new Done<>(
                r.body(MetadataResponse.class).getTopicsList().stream()
                    .filter(t -> t.getErrorCode() == ErrorCode.NONE)
                    .map(TopicMetadata::getName)
                    .sorted()
                    .toList()));
  }

  /**
   * Partitions (leader, leader epoch, replicas, ISR) and config overrides of each topic. A topic
   * the answering broker does not know is looked up again a few times (metadata reaches brokers
   * within a heartbeat) before the future fails with UNKNOWN_TOPIC_OR_PARTITION.
   */
  public CompletableFuture<Map<String, TopicDescription>> describeTopics(Collection<String> names) {
    MetadataRequest request =
        MetadataRequest.newBuilder().addAllTopics(names).setIncludeConfigs(true).build();
    AtomicInteger unknownAnswers = new AtomicInteger();
    return calls.call(
        "DescribeTopics",
        ApiKey.METADATA,
        () -> request,
        r -> {
          Map<String, TopicDescription> out = new LinkedHashMap<>();
          for (TopicMetadata t : r.body(MetadataResponse.class).getTopicsList()) {
            if (t.getErrorCode() != ErrorCode.NONE) {
              SpoolException e =
                  new SpoolException(
                      t.getErrorCode(), topicMessage(t.getName(), t.getErrorMessage()));
              boolean unknown = t.getErrorCode() == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
              if (unknown && unknownAnswers.incrementAndGet() < UNKNOWN_TOPIC_ATTEMPTS
                  || !unknown && e.retriable()) {
                return new Retry<>(e);
              }
              return new AdminCalls.Fail<>(e);
            }
            out.put(t.getName(), TopicDescription.from(t));
          }
          return new Done<>(out);
        });
  }

  public CompletableFuture<TopicDescription> describeTopic(String name) {
    return describeTopics(List.of(name)).thenApply(m -> m.get(name));
  }

  // ------------------------------------------------------------------ cluster

  /** Brokers, the metadata quorum with voter lag, and partition health, as one broker sees them. */
  public CompletableFuture<ClusterDescription> describeCluster() {
    return calls.call(
        "DescribeCluster",
        ApiKey.DESCRIBE_CLUSTER,
        DescribeClusterRequest::getDefaultInstance,
        r -> {
          DescribeClusterResponse d = r.body(DescribeClusterResponse.class);
          if (d.getErrorCode() != ErrorCode.NONE) {
            return AdminCalls.errorOutcome(d.getErrorCode(), d.getErrorMessage());
          }
          return new Done<>(ClusterDescription.from(d));
        });
  }

  /**
   * Elects leaders for {@code partitions} (all partitions when empty). The future holds a result
   * per partition; it fails only when the request as a whole fails.
   */
  public CompletableFuture<List<ElectionResult>> electLeaders(
      ElectionType type, Collection<TopicPartition> partitions) {
    Map<String, TopicPartitions.Builder> byTopic = new TreeMap<>();
    for (TopicPartition tp : partitions) {
      byTopic
          .computeIfAbsent(tp.topic(), t -> TopicPartitions.newBuilder().setTopic(t))
          .addPartitions(tp.partition());
    }
    ElectLeadersRequest.Builder b =
        ElectLeadersRequest.newBuilder()
            .setTimeoutMs(brokerTimeoutMs)
            .setElectionType(
                type == ElectionType.UNCLEAN
                    ? dev.spool.protocol.message.ElectionType.UNCLEAN
                    : dev.spool.protocol.message.ElectionType.PREFERRED);
    byTopic.values().forEach(b::addPartitions);
    ElectLeadersRequest request = b.build();
    return calls.call(
        "ElectLeaders",
        ApiKey.ELECT_LEADERS,
        () -> request,
        r -> {
          ElectLeadersResponse e = r.body(ElectLeadersResponse.class);
          if (e.getErrorCode() != ErrorCode.NONE) {
            return AdminCalls.errorOutcome(e.getErrorCode(), e.getErrorMessage());
          }
          List<ElectionResult> results = new ArrayList<>();
          for (ElectLeadersResponse.Result res : e.getResultsList()) {
            results.add(
                new ElectionResult(
                    new TopicPartition(res.getTopic(), res.getPartition()),
                    res.getErrorCode(),
                    res.getErrorMessage()));
          }
          results.sort(Comparator.comparing(ElectionResult::partition));
          return new Done<>(results);
        });
  }

  // ------------------------------------------------------------------ reassignment

  /**
   * Moves each partition to its target replica set (preferred leader first), or with an empty
   * target cancels its reassignment in progress, reverting it to its original replicas, as Kafka's
   * {@code Admin.alterPartitionReassignments} (docs/operations.md#moving-replicas). A throttle,
   * when given, becomes the cluster's replication throttle (bytes/s of catch-up fetching per
   * broker; 0 removes it). The future holds a result per partition ({@link ReassignmentResult}); it
   * fails only when the request as a whole is refused: UNSUPPORTED_VERSION (metadata.version below
   * 4), INVALID_REQUEST (a negative throttle). Completes once the controller has accepted the
   * change; the replicas then catch up in the background ({@link #listPartitionReassignments}).
   */
  public CompletableFuture<Map<TopicPartition, ReassignmentResult>> alterPartitionReassignments(
      Map<TopicPartition, Optional<List<Integer>>> targets, OptionalLong throttleBytesPerSec) {
    return reassignments.alter(targets, throttleBytesPerSec);
  }

  /**
   * Sets the cluster's replication throttle alone (0 removes it), as {@link
   * #alterPartitionReassignments} with no partition.
   */
  public CompletableFuture<Void> setReplicationThrottle(long bytesPerSec) {
    return reassignments.alter(Map.of(), OptionalLong.of(bytesPerSec)).thenApply(r -> null);
  }

  /**
   * The reassignments in progress among {@code partitions} (every partition when empty) and the
   * cluster's replication throttle, from the answering broker's metadata.
   */
  public CompletableFuture<Reassignments> listPartitionReassignments(
      Collection<TopicPartition> partitions) {
    return reassignments.list(partitions);
  }

  // ------------------------------------------------------------------ configs

  /** Every config key of each topic with its effective value (defaults marked). */
  public CompletableFuture<Map<String, List<ConfigEntry>>> describeConfigs(
      Collection<String> topics) {
    DescribeConfigsRequest request =
        DescribeConfigsRequest.newBuilder().addAllTopics(topics).build();
    return calls.call(
        "DescribeConfigs",
        ApiKey.DESCRIBE_CONFIGS,
        () -> request,
        r -> {
          Map<String, List<ConfigEntry>> out = new LinkedHashMap<>();
          for (DescribeConfigsResponse.Result res :
              r.body(DescribeConfigsResponse.class).getTopicsList()) {
            if (res.getErrorCode() != ErrorCode.NONE) {
              return AdminCalls.errorOutcome(
                  res.getErrorCode(), topicMessage(res.getName(), res.getErrorMessage()));
            }
            List<ConfigEntry> entries = new ArrayList<>();
            for (DescribeConfigsResponse.ConfigEntry e : res.getEntriesList()) {
              entries.add(new ConfigEntry(e.getKey(), e.getValue(), e.getIsDefault(), e.getDoc()));
            }
            entries.sort(Comparator.comparing(ConfigEntry::key));
            out.put(res.getName(), entries);
          }
          return new Done<>(out);
        });
  }

  // ---------------------------------------------------------------- SCRAM credentials

  /**
   * Adds or replaces {@code user}'s SCRAM credential for {@code mechanism}, as Kafka's {@code
   * Admin.alterUserScramCredentials}: the salt is random and the password is salted here, so only
   * the salted password leaves this process; the controller keeps StoredKey and ServerKey
   * (docs/security.md#sasl). Fails with UNACCEPTABLE_CREDENTIAL (a user name or iteration count out
   * of bounds). Completes once the answering broker's image holds the credential.
   */
  public CompletableFuture<Void> upsertScramCredential(
      String user, ScramMechanism mechanism, String password, int iterations) {
    return replaceScramCredentials(user, List.of(mechanism), password, iterations, List.of());
  }

  /**
   * Gives {@code user} exactly one password: in ONE request, an upsertion for each of {@code
   * mechanisms} (salted here, as {@link #upsertScramCredential}) and a deletion for each of {@code
   * delete} (the user's other mechanisms, which would otherwise keep the old password working). The
   * controller applies a user's changes all or none.
   */
  public CompletableFuture<Void> replaceScramCredentials(
      String user,
      Collection<ScramMechanism> mechanisms,
      String password,
      int iterations,
      Collection<ScramMechanism> delete) {
    java.security.SecureRandom random = new java.security.SecureRandom();
    AlterUserScramCredentialsRequest.Builder req =
        AlterUserScramCredentialsRequest.newBuilder().setTimeoutMs(brokerTimeoutMs);
    for (ScramMechanism mechanism : mechanisms) {
      byte[] salt = ScramMechanism.randomSalt(random);
      byte[] salted =
          iterations < ScramMechanism.MIN_ITERATIONS || iterations > ScramMechanism.MAX_ITERATIONS
              ? new byte[0] // refused by the controller with the bounds; not worth computing
              : mechanism.saltedPassword(password, salt, iterations);
      req.addUpsertions(
          AlterUserScramCredentialsRequest.Upsertion.newBuilder()
              .setName(user)
              .setMechanism(mechanism.mechanismName())
              .setIterations(iterations)
              .setSalt(com.google.protobuf.ByteString.copyFrom(salt))
              .setSaltedPassword(com.google.protobuf.ByteString.copyFrom(salted)));
    }
    for (ScramMechanism mechanism : delete) {
      req.addDeletions(
          AlterUserScramCredentialsRequest.Deletion.newBuilder()
              .setName(user)
              .setMechanism(mechanism.mechanismName()));
    }
    // With deletions: a retry after an attempt that did apply finds them gone (RESOURCE_NOT_FOUND),
    // which then means done; the user's changes were applied together.
    return alterScram(req.build(), !delete.isEmpty());
  }

  /** Deletes {@code user}'s credential for {@code mechanism}; RESOURCE_NOT_FOUND if it has none. */
  public CompletableFuture<Void> deleteScramCredential(String user, ScramMechanism mechanism) {
    return replaceScramCredentials(user, List.of(), "", 0, List.of(mechanism));
  }

  private CompletableFuture<Void> alterScram(
      AlterUserScramCredentialsRequest request, boolean deletion) {
    AtomicInteger attempts = new AtomicInteger();
    return calls.call(
        "AlterUserScramCredentials",
        ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
        () -> {
          attempts.incrementAndGet();
          return request;
        },
        r -> {
          for (AlterUserScramCredentialsResponse.Result res :
              r.body(AlterUserScramCredentialsResponse.class).getResultsList()) {
            if (deletion
                && res.getErrorCode() == ErrorCode.RESOURCE_NOT_FOUND
                && attempts.get() > 1) {
              continue; // an earlier attempt that timed out did delete it
            }
            if (res.getErrorCode() != ErrorCode.NONE) {
              return AdminCalls.errorOutcome(
                  res.getErrorCode(), "user '" + res.getUser() + "': " + res.getErrorMessage());
            }
          }
          return new Done<>(null);
        });
  }

  /**
   * Users with SCRAM credentials: user -> mechanism name -> iterations, users and mechanisms in
   * order (never salts or keys).
   */
  public CompletableFuture<Map<String, Map<String, Integer>>> describeScramCredentials() {
    return calls.call(
        "DescribeUserScramCredentials",
        ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS,
        DescribeUserScramCredentialsRequest::getDefaultInstance,
        r -> {
          Map<String, Map<String, Integer>> out = new TreeMap<>();
          for (DescribeUserScramCredentialsResponse.Result res :
              r.body(DescribeUserScramCredentialsResponse.class).getResultsList()) {
            Map<String, Integer> m = new TreeMap<>();
            res.getCredentialsList().forEach(c -> m.put(c.getMechanism(), c.getIterations()));
            out.put(res.getUser(), m);
          }
          return new Done<>(out);
        });
  }

  /** Sets or removes client quotas (docs/security.md#quotas); a result per entry, in order. */
  public CompletableFuture<dev.spool.protocol.message.AlterClientQuotasResponse> alterClientQuotas(
      dev.spool.protocol.message.AlterClientQuotasRequest req) {
    return quotas.alter(req);
  }

  /** The client quotas matching the request's filter; fails with the request's error. */
  public CompletableFuture<dev.spool.protocol.message.DescribeClientQuotasResponse>
      describeClientQuotas(dev.spool.protocol.message.DescribeClientQuotasRequest req) {
    return quotas.describe(req);
  }

  // ---------------------------------------------------------------- ACLs (docs/security.md#acls)

  /** Adds ACLs; a result per ACL, in order: its id, or its error (INVALID_ACL and why). */
  public CompletableFuture<dev.spool.protocol.message.CreateAclsResponse> createAcls(
      List<dev.spool.protocol.message.Acl> acls) {
    return this.acls.create(acls);
  }

  /** The ACLs matching {@code filter}, by id; fails with the request's error. */
  public CompletableFuture<dev.spool.protocol.message.DescribeAclsResponse> describeAcls(
      dev.spool.protocol.message.AclFilter filter) {
    return acls.describe(filter);
  }

  /** Removes the ACLs matching each filter; a result per filter with what it removed. */
  public CompletableFuture<dev.spool.protocol.message.DeleteAclsResponse> deleteAcls(
      List<dev.spool.protocol.message.AclFilter> filters) {
    return acls.delete(filters);
  }

  // ---------------------------------------------------------------- features

  /**
   * The finalized feature levels and each registered broker's supported range, from the answering
   * broker's image (docs/architecture.md#versioned-metadata).
   */
  public CompletableFuture<DescribeFeaturesResponse> describeFeatures() {
    return calls.call(
        "DescribeFeatures",
        ApiKey.DESCRIBE_FEATURES,
        DescribeFeaturesRequest::getDefaultInstance,
        r -> {
          var resp = r.body(DescribeFeaturesResponse.class);
          if (resp.getErrorCode() != ErrorCode.NONE) {
            return new AdminCalls.Fail<>(
                new SpoolException(resp.getErrorCode(), resp.getErrorMessage()));
          }
          return new Done<>(resp);
        });
  }

  /**
   * Raises {@code feature} to {@code level} (upgrades only); with {@code validateOnly} the
   * controller decides and writes nothing. Fails with the controller's error
   * (FEATURE_UPDATE_FAILED, INVALID_REQUEST) and changes nothing; answers the result, whose
   * previous level is the one the controller decided on.
   */
  public CompletableFuture<UpdateFeaturesResponse.Result> updateFeature(
      String feature, int level, boolean validateOnly) {
    var request =
        UpdateFeaturesRequest.newBuilder()
            .setTimeoutMs(brokerTimeoutMs)
            .setValidateOnly(validateOnly)
            .addUpdates(
                UpdateFeaturesRequest.FeatureUpdate.newBuilder()
                    .setFeature(feature)
                    .setMaxVersionLevel(level))
            .build();
    return calls.call(
        "UpdateFeatures",
        ApiKey.UPDATE_FEATURES,
        () -> request,
        r -> {
          var resp = r.body(UpdateFeaturesResponse.class);
          if (resp.getErrorCode() != ErrorCode.NONE) {
            return new AdminCalls.Fail<>(
                new SpoolException(resp.getErrorCode(), resp.getErrorMessage()));
          }
          var res = resp.getResults(0);
          if (res.getErrorCode() != ErrorCode.NONE) {
            return AdminCalls.errorOutcome(
                res.getErrorCode(), "feature '" + feature + "': " + res.getErrorMessage());
          }
          return new Done<>(res);
        });
  }

  /**
   * Removes the registration of broker {@code brokerId}, a dead broker that holds no replica
   * (docs/operations.md#removing-a-broker). Fails with the controller's error, changing nothing:
   * BROKER_ID_NOT_REGISTERED, BROKER_ALIVE (stop it first), BROKER_HAS_REPLICAS (move them off
   * first), UNSUPPORTED_VERSION (metadata.version below 3). Completes once the answering broker's
   * image no longer has it.
   */
  public CompletableFuture<Void> unregisterBroker(int brokerId) {
    UnregisterBrokerRequest request =
        UnregisterBrokerRequest.newBuilder()
            .setBrokerId(brokerId)
            .setTimeoutMs(brokerTimeoutMs)
            .build();
    return calls.call(
        "UnregisterBroker",
        ApiKey.UNREGISTER_BROKER,
        () -> request,
        r -> {
          UnregisterBrokerResponse resp = r.body(UnregisterBrokerResponse.class);
          return resp.getErrorCode() == ErrorCode.NONE
              ? new Done<>(null)
              : AdminCalls.errorOutcome(resp.getErrorCode(), resp.getErrorMessage());
        });
  }

  /** Sets {@code set} and returns the keys in {@code delete} to their defaults, for one topic. */
  public CompletableFuture<Void> alterConfigs(
      String topic, Map<String, String> set, Collection<String> delete) {
    AlterConfigsRequest request =
        AlterConfigsRequest.newBuilder()
            .addTopics(
                AlterConfigsRequest.Topic.newBuilder()
                    .setName(topic)
                    .putAllSet(set)
                    .addAllDelete(delete))
            .build();
    return calls.call(
        "AlterConfigs",
        ApiKey.ALTER_CONFIGS,
        () -> request,
        r -> {
          for (AlterConfigsResponse.Result res :
              r.body(AlterConfigsResponse.class).getTopicsList()) {
            if (res.getErrorCode() != ErrorCode.NONE) {
              return AdminCalls.errorOutcome(
                  res.getErrorCode(), topicMessage(res.getName(), res.getErrorMessage()));
            }
          }
          return new Done<Void>(null);
        });
  }

  // ------------------------------------------------------------------ logs

  /**
   * Every unfenced broker's replicas of {@code topics} (every topic when empty): size, offsets and
   * the cleaner's state, sorted by partition, then broker. Each broker answers about itself, so all
   * are asked; one that does not answer fails the call.
   */
  public CompletableFuture<List<ReplicaLog>> describeLogs(Collection<String> topics) {
    DescribeLogsRequest request = DescribeLogsRequest.newBuilder().addAllTopics(topics).build();
    return describeCluster()
        .thenCompose(
            cluster -> {
              List<CompletableFuture<List<ReplicaLog>>> each = new ArrayList<>();
              for (ClusterDescription.Broker b : cluster.brokers()) {
                if (b.fenced()) {
                  continue;
                }
                each.add(
                    calls.callNode(
                        "DescribeLogs of broker " + b.id(),
                        new Node(b.id(), b.host(), b.port()),
                        ApiKey.DESCRIBE_LOGS,
                        () -> request,
                        r -> new Done<>(ReplicaLog.from(r.body(DescribeLogsResponse.class)))));
              }
              return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
                  .thenApply(
                      v -> {
                        List<ReplicaLog> all = new ArrayList<>();
                        each.forEach(f -> all.addAll(f.join()));
                        all.sort(
                            Comparator.comparing(ReplicaLog::partition)
                                .thenComparingInt(ReplicaLog::brokerId));
                        return all;
                      });
            });
  }

  private static String topicMessage(String topic, String message) {
    return "topic '" + topic + "'" + (message == null || message.isEmpty() ? "" : ": " + message);
  }

  @Override
  public void close() {
    context.close();
  }
}
