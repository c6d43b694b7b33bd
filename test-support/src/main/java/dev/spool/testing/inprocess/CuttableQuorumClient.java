package dev.spool.testing.inprocess;

import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
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
import dev.spool.quorum.QuorumClient;
import dev.spool.quorum.message.AllocateProducerIdsRequest;
import dev.spool.quorum.message.AllocateProducerIdsResponse;
import dev.spool.quorum.message.AlterPartitionRequest;
import dev.spool.quorum.message.AlterPartitionResponse;
import dev.spool.quorum.message.BrokerHeartbeatRequest;
import dev.spool.quorum.message.BrokerHeartbeatResponse;
import dev.spool.quorum.message.BrokerRegistrationRequest;
import dev.spool.quorum.message.BrokerRegistrationResponse;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A broker's real quorum client with a switch that cuts it off, as a network partition between the
 * broker and every controller would, without root: while cut, every call fails with
 * QUORUM_UNAVAILABLE and nothing reaches the quorum. The broker's data plane (clients, followers)
 * is untouched, so a cut-off partition leader stays reachable by its clients: the zombie-leader
 * case the leadership lease is for.
 *
 * <p>Threads: any; the switch is a volatile flag.
 */
final class CuttableQuorumClient implements QuorumClient {
  private final QuorumClient delegate;
  private final int nodeId;
  private volatile boolean cut;

  CuttableQuorumClient(QuorumClient delegate, int nodeId) {
    this.delegate = delegate;
    this.nodeId = nodeId;
  }

  void setCut(boolean cut) {
    this.cut = cut;
  }

  boolean isCut() {
    return cut;
  }

  private <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> c) {
    if (cut) {
      return CompletableFuture.failedFuture(
          new SpoolException(
              ErrorCode.QUORUM_UNAVAILABLE,
              "node " + nodeId + "'s link to the quorum is cut by the test"));
    }
    return c.get();
  }

  @Override
  public CompletableFuture<BrokerRegistrationResponse> register(BrokerRegistrationRequest r) {
    return call(() -> delegate.register(r));
  }

  @Override
  public CompletableFuture<BrokerHeartbeatResponse> heartbeat(BrokerHeartbeatRequest r) {
    return call(() -> delegate.heartbeat(r));
  }

  @Override
  public CompletableFuture<AlterPartitionResponse> alterPartition(AlterPartitionRequest r) {
    return call(() -> delegate.alterPartition(r));
  }

  @Override
  public CompletableFuture<CreateTopicsResponse> createTopics(CreateTopicsRequest r) {
    return call(() -> delegate.createTopics(r));
  }

  @Override
  public CompletableFuture<CreatePartitionsResponse> createPartitions(CreatePartitionsRequest r) {
    return call(() -> delegate.createPartitions(r));
  }

  @Override
  public CompletableFuture<dev.spool.protocol.message.AlterUserScramCredentialsResponse>
      alterUserScramCredentials(dev.spool.protocol.message.AlterUserScramCredentialsRequest r) {
    return call(() -> delegate.alterUserScramCredentials(r));
  }

  @Override
  public CompletableFuture<dev.spool.protocol.message.CreateAclsResponse> createAcls(
      dev.spool.protocol.message.CreateAclsRequest r) {
    return call(() -> delegate.createAcls(r));
  }

  @Override
  public CompletableFuture<dev.spool.protocol.message.DeleteAclsResponse> deleteAcls(
      dev.spool.protocol.message.DeleteAclsRequest r) {
    return call(() -> delegate.deleteAcls(r));
  }

  @Override
  public CompletableFuture<dev.spool.protocol.message.AlterClientQuotasResponse> alterClientQuotas(
      dev.spool.protocol.message.AlterClientQuotasRequest r) {
    return call(() -> delegate.alterClientQuotas(r));
  }

  @Override
  public CompletableFuture<dev.spool.protocol.message.UpdateFeaturesResponse> updateFeatures(
      dev.spool.protocol.message.UpdateFeaturesRequest r) {
    return call(() -> delegate.updateFeatures(r));
  }

  @Override
  public CompletableFuture<dev.spool.protocol.message.UnregisterBrokerResponse> unregisterBroker(
      dev.spool.protocol.message.UnregisterBrokerRequest r) {
    return call(() -> delegate.unregisterBroker(r));
  }

  @Override
  public CompletableFuture<dev.spool.protocol.message.AlterPartitionReassignmentsResponse>
      alterPartitionReassignments(dev.spool.protocol.message.AlterPartitionReassignmentsRequest r) {
    return call(() -> delegate.alterPartitionReassignments(r));
  }

  @Override
  public CompletableFuture<DeleteTopicsResponse> deleteTopics(DeleteTopicsRequest r) {
    return call(() -> delegate.deleteTopics(r));
  }

  @Override
  public CompletableFuture<ElectLeadersResponse> electLeaders(ElectLeadersRequest r) {
    return call(() -> delegate.electLeaders(r));
  }

  @Override
  public CompletableFuture<AlterConfigsResponse> alterConfigs(AlterConfigsRequest r) {
    return call(() -> delegate.alterConfigs(r));
  }

  @Override
  public CompletableFuture<AllocateProducerIdsResponse> allocateProducerIds(
      AllocateProducerIdsRequest r) {
    return call(() -> delegate.allocateProducerIds(r));
  }

  @Override
  public CompletableFuture<QuorumInfo> describeQuorum() {
    return call(delegate::describeQuorum);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
