package dev.spool.quorum.ratis;

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
import dev.spool.quorum.QuorumClientSettings;
import dev.spool.quorum.message.AllocateProducerIdsRequest;
import dev.spool.quorum.message.AllocateProducerIdsResponse;
import dev.spool.quorum.message.AlterPartitionRequest;
import dev.spool.quorum.message.AlterPartitionResponse;
import dev.spool.quorum.message.BrokerHeartbeatRequest;
import dev.spool.quorum.message.BrokerHeartbeatResponse;
import dev.spool.quorum.message.BrokerRegistrationRequest;
import dev.spool.quorum.message.BrokerRegistrationResponse;
import dev.spool.quorum.message.ControllerReply;
import dev.spool.quorum.message.ControllerRequest;
import dev.spool.quorum.message.DescribeQuorumRequest;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.exceptions.AlreadyClosedException;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link QuorumClient} on Ratis clients (GRPC). Two Ratis clients: one for writes (ordered async,
 * so a broker's writes are applied in the order it sent them) and one for read-only requests
 * (heartbeats must never queue behind a slow write). Failures as a whole map to {@link
 * SpoolException}s; NOT_CONTROLLER (the leader is not ready yet, nothing was logged) is retried
 * within the total timeout.
 */
public final class RatisQuorumClient implements QuorumClient {
  private static final int PRODUCER_ID_CONFLICT_RETRIES = 10;

  /**
   * How long an AlterPartition that finds its broker idle waits for others to join it (see {@link
   * AlterPartitionBatcher}); small beside a commit's round trip.
   */
  static final long ALTER_PARTITION_LINGER_MS = 5;

  private static final Executor ALTER_PARTITION_LINGER =
      CompletableFuture.delayedExecutor(ALTER_PARTITION_LINGER_MS, TimeUnit.MILLISECONDS);

  private static final Logger log = LoggerFactory.getLogger(RatisQuorumClient.class);

  private final QuorumClientSettings settings;
  private final RaftGroup group;
  // Replaced when Ratis closed them for good (renewIfClosed); closed by close().
  private final AtomicReference<RaftClient> writes = new AtomicReference<>();
  private final AtomicReference<RaftClient> reads = new AtomicReference<>();
  private volatile boolean closed;

  /** One per broker registration this client speaks for (a handful per process). */
  private final Map<List<Long>, AlterPartitionBatcher> alterPartitionBatchers =
      new ConcurrentHashMap<>();

  public RatisQuorumClient(QuorumClientSettings settings) {
    this.settings = settings;
    this.group = RaftSetup.group(settings.clusterId(), settings.voters());
    this.writes.set(RaftSetup.newClient(settings, group));
    this.reads.set(RaftSetup.newClient(settings, group));
  }

  /**
   * Sends on the client {@code ref} holds. Ratis' client closes its ordered sliding window to the
   * cluster for good after a failure it did not retry ("SlidingWindow$Client:client-...->RAFT is
   * closed"); every later request on that client fails the same way, so a broker could never again
   * change an ISR or get producer ids (a chaos run saw one fail for four minutes). Such a client is
   * replaced by a new one, once; the request that met the failure still fails (it may or may not
   * have been applied: its caller retries), the next goes through the new client.
   */
  private CompletableFuture<RaftClientReply> sendOn(
      AtomicReference<RaftClient> ref, boolean readOnly, Message m) {
    RaftClient c = ref.get();
    CompletableFuture<RaftClientReply> f;
    try {
      f = readOnly ? c.async().sendReadOnlyUnordered(m) : c.async().send(m);
    } catch (RuntimeException e) {
      renewIfClosed(ref, c, e);
      throw e;
    }
    return f.whenComplete(
        (r, err) -> {
          if (err != null) {
            renewIfClosed(ref, c, err);
          }
        });
  }

  private void renewIfClosed(AtomicReference<RaftClient> ref, RaftClient failed, Throwable err) {
    if (closed || !closedByRatis(err) || ref.get() != failed) {
      return;
    }
    RaftClient fresh = RaftSetup.newClient(settings, group);
    if (!ref.compareAndSet(failed, fresh)) {
      closeQuietly(fresh); // another failure replaced it first
      return;
    }
    log.warn(
        "the quorum client {} was closed by Ratis after a failure ({}); it is replaced by {}",
        failed.getId(),
        err.toString(),
        fresh.getId());
    closeQuietly(failed);
    if (closed) {
      closeQuietly(ref.get()); // close() ran meanwhile and may have missed the new client
    }
  }

  private static boolean closedByRatis(Throwable t) {
    for (Throwable e = t; e != null; e = e.getCause() == e ? null : e.getCause()) {
      if (e instanceof AlreadyClosedException) {
        return true;
      }
    }
    return false;
  }

  private static void closeQuietly(RaftClient c) {
    try {
      c.close();
    } catch (IOException ignored) {
      // a client that cannot close cleanly has nothing left to release here
    }
  }

  /** For tests: closes the current write client as Ratis does after an unretried failure. */
  void closeWritesForTest() throws IOException {
    writes.get().close();
  }

  /**
   * Writes retry for the total timeout; read-only requests (heartbeats, describe) only for one
   * request timeout: a heartbeat answered later than that is stale, the next one is due.
   */
  private CompletableFuture<ControllerReply> send(ControllerRequest req, boolean readOnly) {
    long budgetMs = readOnly ? settings.requestTimeoutMs() : settings.totalTimeoutMs();
    long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(budgetMs);
    return attempt(req, readOnly, deadlineNs);
  }

  private CompletableFuture<ControllerReply> attempt(
      ControllerRequest req, boolean readOnly, long deadlineNs) {
    long leftMs = TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime());
    if (leftMs <= 0) {
      return CompletableFuture.failedFuture(
          new SpoolException(
              ErrorCode.QUORUM_UNAVAILABLE, "no active controller answered in time"));
    }
    Message m = Message.valueOf(UnsafeByteOperations.unsafeWrap(req.toByteArray()));
    CompletableFuture<RaftClientReply> f;
    try {
      f = readOnly ? sendOn(reads, true, m) : sendOn(writes, false, m);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(Replies.toSpoolException(e));
    }
    return f.orTimeout(leftMs, TimeUnit.MILLISECONDS)
        .handle(
            (r, err) -> {
              if (err != null) {
                throw Replies.toSpoolException(err);
              }
              return Replies.controllerReply(r);
            })
        .exceptionallyCompose(
            err -> {
              SpoolException se = Replies.toSpoolException(err);
              if (se.errorCode() == ErrorCode.NOT_CONTROLLER
                  && System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.retryBackoffMs())
                      < deadlineNs) {
                Executor later =
                    CompletableFuture.delayedExecutor(
                        settings.retryBackoffMs(), TimeUnit.MILLISECONDS);
                return CompletableFuture.supplyAsync(() -> null, later)
                    .thenCompose(x -> attempt(req, readOnly, deadlineNs));
              }
              return CompletableFuture.failedFuture(se);
            });
  }

  private <T> CompletableFuture<T> write(ControllerRequest req, Function<ControllerReply, T> get) {
    return send(req, false).thenApply(get);
  }

  @Override
  public CompletableFuture<BrokerRegistrationResponse> register(BrokerRegistrationRequest r) {
    return write(
        ControllerRequest.newBuilder().setRegister(r).build(), ControllerReply::getRegister);
  }

  @Override
  public CompletableFuture<BrokerHeartbeatResponse> heartbeat(BrokerHeartbeatRequest r) {
    return send(ControllerRequest.newBuilder().setHeartbeat(r).build(), true)
        .thenApply(ControllerReply::getHeartbeat);
  }

  /**
   * Coalesced per broker registration (see {@link AlterPartitionBatcher}): one request in flight
   * per broker, later ones merged into the next; one that finds the broker idle waits {@link
   * #ALTER_PARTITION_LINGER_MS} for others.
   */
  @Override
  public CompletableFuture<AlterPartitionResponse> alterPartition(AlterPartitionRequest r) {
    AlterPartitionBatcher b =
        alterPartitionBatchers.computeIfAbsent(
            List.of((long) r.getBrokerId(), r.getBrokerEpoch()),
            k ->
                new AlterPartitionBatcher(
                    r.getBrokerId(),
                    r.getBrokerEpoch(),
                    merged ->
                        write(
                            ControllerRequest.newBuilder().setAlterPartition(merged).build(),
                            ControllerReply::getAlterPartition),
                    ALTER_PARTITION_LINGER));
    return b.submit(r);
  }

  @Override
  public CompletableFuture<CreateTopicsResponse> createTopics(CreateTopicsRequest r) {
    return write(
        ControllerRequest.newBuilder().setCreateTopics(r).build(),
        ControllerReply::getCreateTopics);
  }

  @Override
  public CompletableFuture<CreatePartitionsResponse> createPartitions(CreatePartitionsRequest r) {
    return write(
        ControllerRequest.newBuilder().setCreatePartitions(r).build(),
        ControllerReply::getCreatePartitions);
  }

  @Override
  public CompletableFuture<dev.spool.protocol.message.AlterUserScramCredentialsResponse>
      alterUserScramCredentials(dev.spool.protocol.message.AlterUserScramCredentialsRequest r) {
    return write(
        ControllerRequest.newBuilder().setAlterUserScramCredentials(r).build(),
        ControllerReply::getAlterUserScramCredentials);
  }

  @Override
  public CompletableFuture<dev.spool.protocol.message.UpdateFeaturesResponse> updateFeatures(
      dev.spool.protocol.message.UpdateFeaturesRequest r) {
    return write(
        ControllerRequest.newBuilder().setUpdateFeatures(r).build(),
        ControllerReply::getUpdateFeatures);
  }

  @Override
  public CompletableFuture<dev.spool.protocol.message.UnregisterBrokerResponse> unregisterBroker(
      dev.spool.protocol.message.UnregisterBrokerRequest r) {
    return write(
        ControllerRequest.newBuilder().setUnregisterBroker(r).build(),
        ControllerReply::getUnregisterBroker);
  }

  @Override
  public CompletableFuture<dev.spool.protocol.message.AlterPartitionReassignmentsResponse>
      alterPartitionReassignments(dev.spool.protocol.message.AlterPartitionReassignmentsRequest r) {
    return write(
        ControllerRequest.newBuilder().setAlterPartitionReassignments(r).build(),
        ControllerReply::getAlterPartitionReassignments);
  }

  @Override
  public CompletableFuture<dev.spool.protocol.message.CreateAclsResponse> createAcls(
      dev.spool.protocol.message.CreateAclsRequest r) {
    return write(
        ControllerRequest.newBuilder().setCreateAcls(r).build(), ControllerReply::getCreateAcls);
  }

  @Override
  public CompletableFuture<dev.spool.protocol.message.DeleteAclsResponse> deleteAcls(
      dev.spool.protocol.message.DeleteAclsRequest r) {
    return write(
        ControllerRequest.newBuilder().setDeleteAcls(r).build(), ControllerReply::getDeleteAcls);
  }

  @Override
  public CompletableFuture<dev.spool.protocol.message.AlterClientQuotasResponse> alterClientQuotas(
      dev.spool.protocol.message.AlterClientQuotasRequest r) {
    return write(
        ControllerRequest.newBuilder().setAlterClientQuotas(r).build(),
        ControllerReply::getAlterClientQuotas);
  }

  @Override
  public CompletableFuture<DeleteTopicsResponse> deleteTopics(DeleteTopicsRequest r) {
    return write(
        ControllerRequest.newBuilder().setDeleteTopics(r).build(),
        ControllerReply::getDeleteTopics);
  }

  @Override
  public CompletableFuture<ElectLeadersResponse> electLeaders(ElectLeadersRequest r) {
    return write(
        ControllerRequest.newBuilder().setElectLeaders(r).build(),
        ControllerReply::getElectLeaders);
  }

  @Override
  public CompletableFuture<AlterConfigsResponse> alterConfigs(AlterConfigsRequest r) {
    return write(
        ControllerRequest.newBuilder().setAlterConfigs(r).build(),
        ControllerReply::getAlterConfigs);
  }

  @Override
  public CompletableFuture<AllocateProducerIdsResponse> allocateProducerIds(
      AllocateProducerIdsRequest r) {
    return allocate(r, PRODUCER_ID_CONFLICT_RETRIES);
  }

  private CompletableFuture<AllocateProducerIdsResponse> allocate(
      AllocateProducerIdsRequest r, int retries) {
    return write(
            ControllerRequest.newBuilder().setAllocateProducerIds(r).build(),
            ControllerReply::getAllocateProducerIds)
        .thenCompose(
            resp ->
                resp.getErrorCode() == ErrorCode.INVALID_UPDATE_VERSION && retries > 0
                    ? allocate(r, retries - 1)
                    : CompletableFuture.completedFuture(resp));
  }

  @Override
  public CompletableFuture<QuorumInfo> describeQuorum() {
    return send(
            ControllerRequest.newBuilder()
                .setDescribeQuorum(DescribeQuorumRequest.getDefaultInstance())
                .build(),
            true)
        .thenApply(ControllerReply::getDescribeQuorum);
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(writes.get());
    closeQuietly(reads.get());
  }
}
