package dev.spool.quorum;

import dev.spool.protocol.message.AlterConfigsRequest;
import dev.spool.protocol.message.AlterConfigsResponse;
import dev.spool.protocol.message.CreatePartitionsRequest;
import dev.spool.protocol.message.CreatePartitionsResponse;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.protocol.message.DeleteTopicsRequest;
import dev.spool.protocol.message.DeleteTopicsResponse;
import dev.spool.protocol.message.ElectLeadersRequest;
import dev.spool.protocol.message.ElectLeadersResponse;
import dev.spool.protocol.message.QuorumInfo;
import dev.spool.quorum.message.AllocateProducerIdsRequest;
import dev.spool.quorum.message.AllocateProducerIdsResponse;
import dev.spool.quorum.message.AlterPartitionRequest;
import dev.spool.quorum.message.AlterPartitionResponse;
import dev.spool.quorum.message.BrokerHeartbeatRequest;
import dev.spool.quorum.message.BrokerHeartbeatResponse;
import dev.spool.quorum.message.BrokerRegistrationRequest;
import dev.spool.quorum.message.BrokerRegistrationResponse;
import dev.spool.quorum.ratis.RatisQuorumClient;
import java.util.concurrent.CompletableFuture;

/**
 * A broker's (or admin tool's) connection to the metadata quorum. Thread-safe; one per process is
 * enough.
 *
 * <p>Every call finds the active controller by itself, retries across controllers within {@code
 * controller.quorum.total.timeout.ms}, and completes with the response. Per-item errors (a topic, a
 * partition) are in the response's error codes. A call that fails as a whole completes
 * exceptionally with a {@link dev.spool.common.SpoolException}: QUORUM_UNAVAILABLE (no answer in
 * time), NOT_CONTROLLER (no ready leader; retriable), INVALID_REQUEST (malformed or oversize
 * request).
 *
 * <p>Writes are committed to the metadata log before they complete (and are applied exactly once
 * even when retried: Ratis' retry cache). Heartbeats and describeQuorum are read-only requests
 * served by the active controller.
 */
public interface QuorumClient extends AutoCloseable {

  static QuorumClient create(QuorumClientSettings settings) {
    return new RatisQuorumClient(settings);
  }

  CompletableFuture<BrokerRegistrationResponse> register(BrokerRegistrationRequest request);

  CompletableFuture<BrokerHeartbeatResponse> heartbeat(BrokerHeartbeatRequest request);

  CompletableFuture<AlterPartitionResponse> alterPartition(AlterPartitionRequest request);

  CompletableFuture<CreateTopicsResponse> createTopics(CreateTopicsRequest request);

  /** Grows topics' partition counts; per-topic errors (INVALID_PARTITIONS, ...) in the answer. */
  CompletableFuture<CreatePartitionsResponse> createPartitions(CreatePartitionsRequest request);

  CompletableFuture<DeleteTopicsResponse> deleteTopics(DeleteTopicsRequest request);

  CompletableFuture<ElectLeadersResponse> electLeaders(ElectLeadersRequest request);

  CompletableFuture<AlterConfigsResponse> alterConfigs(AlterConfigsRequest request);

  /** Adds, replaces and deletes SCRAM credentials; per-user errors in the answer. */
  CompletableFuture<dev.spool.protocol.message.AlterUserScramCredentialsResponse>
      alterUserScramCredentials(
          dev.spool.protocol.message.AlterUserScramCredentialsRequest request);

  /** Adds ACLs (docs/security.md#acls); per-ACL errors in the answer. */
  CompletableFuture<dev.spool.protocol.message.CreateAclsResponse> createAcls(
      dev.spool.protocol.message.CreateAclsRequest request);

  /** Removes the ACLs matching each filter; per-filter errors in the answer. */
  CompletableFuture<dev.spool.protocol.message.DeleteAclsResponse> deleteAcls(
      dev.spool.protocol.message.DeleteAclsRequest request);

  /** Sets or removes client quotas (docs/security.md#quotas); per-entry errors in the answer. */
  CompletableFuture<dev.spool.protocol.message.AlterClientQuotasResponse> alterClientQuotas(
      dev.spool.protocol.message.AlterClientQuotasRequest request);

  /** Raises finalized feature levels (metadata.version); per-feature errors in the answer. */
  CompletableFuture<dev.spool.protocol.message.UpdateFeaturesResponse> updateFeatures(
      dev.spool.protocol.message.UpdateFeaturesRequest request);

  /** Removes a dead broker's registration that holds no replica; the error in the answer. */
  CompletableFuture<dev.spool.protocol.message.UnregisterBrokerResponse> unregisterBroker(
      dev.spool.protocol.message.UnregisterBrokerRequest request);

  /**
   * Starts, redirects or cancels replica reassignments (docs/architecture.md#replica-reassignment).
   */
  CompletableFuture<dev.spool.protocol.message.AlterPartitionReassignmentsResponse>
      alterPartitionReassignments(
          dev.spool.protocol.message.AlterPartitionReassignmentsRequest request);

  /** Retries internally when another allocation won the race for the same block. */
  CompletableFuture<AllocateProducerIdsResponse> allocateProducerIds(
      AllocateProducerIdsRequest request);

  /** Leader, term, commit index and each voter's replication state as the leader sees it. */
  CompletableFuture<QuorumInfo> describeQuorum();

  @Override
  void close();
}
