package dev.spool.client.internal.consumer;

import com.google.protobuf.MessageLite;
import dev.spool.client.OffsetAndMetadata;
import dev.spool.client.internal.metadata.Metadata;
import dev.spool.client.internal.metadata.MetadataRefresher;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.Errors;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.network.ClientResponse;
import dev.spool.network.ExponentialBackoff;
import dev.spool.network.NetworkClient;
import dev.spool.network.Node;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.FindCoordinatorRequest;
import dev.spool.protocol.message.FindCoordinatorResponse;
import dev.spool.protocol.message.OffsetCommitRequest;
import dev.spool.protocol.message.OffsetCommitResponse;
import dev.spool.protocol.message.OffsetFetchRequest;
import dev.spool.protocol.message.OffsetFetchResponse;
import dev.spool.protocol.message.TopicPartitions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Requests to a consumer group's coordinator: finding it (FindCoordinator to any broker), and
 * offset commits and fetches with Kafka's retries (NOT_COORDINATOR and COORDINATOR_NOT_AVAILABLE
 * find the coordinator again, COORDINATOR_LOAD_IN_PROGRESS waits, a lost connection does both)
 * until the caller's deadline.
 *
 * <p>Threading: the public methods may be called from any thread and return futures; all state (the
 * known coordinator) is confined to the network client's I/O thread, where the futures complete.
 */
public final class CoordinatorClient {
  private final String groupId;
  private final Metadata metadata;
  private final NetworkClient network;
  private final Clock clock;
  private final ExponentialBackoff backoff;
  private final long requestTimeoutMs;
  private Node coordinator;

  public CoordinatorClient(
      String groupId,
      Metadata metadata,
      NetworkClient network,
      Clock clock,
      ExponentialBackoff backoff,
      long requestTimeoutMs) {
    this.groupId = groupId;
    this.metadata = metadata;
    this.network = network;
    this.clock = clock;
    this.backoff = backoff;
    this.requestTimeoutMs = requestTimeoutMs;
  }

  public String groupId() {
    return groupId;
  }

  // ---------------------------------------------------------------- I/O thread

  /** The coordinator if known (I/O thread). */
  Node known() {
    return coordinator;
  }

  /** Forgets the coordinator after NOT_COORDINATOR or a lost connection (I/O thread). */
  void markUnknown(Node failed) {
    if (failed == null || failed.equals(coordinator)) {
      coordinator = null;
    }
  }

  /** Finds the coordinator once (I/O thread): completes with it, or fails with why not. */
  CompletableFuture<Node> find() {
    if (coordinator != null) {
      return CompletableFuture.completedFuture(coordinator);
    }
    Collection<Node> brokers = metadata.snapshot().brokerNodes();
    Node any = network.leastLoadedNode(brokers.isEmpty() ? metadata.bootstrapNodes() : brokers);
    if (any == null) {
      return CompletableFuture.failedFuture(
          new SpoolException(ErrorCode.COORDINATOR_NOT_AVAILABLE, "no broker known"));
    }
    return network
        .send(
            any,
            ApiKey.FIND_COORDINATOR,
            FindCoordinatorRequest.newBuilder().addKeys(groupId).build(),
            requestTimeoutMs)
        .thenApply(
            response -> {
              try (ClientResponse r = response) {
                FindCoordinatorResponse.Coordinator c =
                    r.body(FindCoordinatorResponse.class).getCoordinators(0);
                if (c.getErrorCode() != ErrorCode.NONE) {
                  throw new SpoolException(c.getErrorCode(), c.getErrorMessage());
                }
                coordinator = new Node(c.getNodeId(), c.getHost(), c.getPort());
                return coordinator;
              }
            });
  }

  // ---------------------------------------------------------------- any thread

  /**
   * Commits {@code offsets} as {@code memberId} at {@code memberEpoch} (empty and -1 from outside
   * the group). Completes with every partition's code once the coordinator answered, retrying
   * whole-request failures until {@code deadlineMs}.
   */
  public CompletableFuture<Map<TopicPartition, SpoolException>> commit(
      Map<TopicPartition, OffsetAndMetadata> offsets,
      String memberId,
      int memberEpoch,
      long deadlineMs) {
    Map<String, OffsetCommitRequest.Topic.Builder> topics = new LinkedHashMap<>();
    offsets.forEach(
        (tp, o) ->
            topics
                .computeIfAbsent(tp.topic(), t -> OffsetCommitRequest.Topic.newBuilder().setName(t))
                .addPartitions(
                    OffsetCommitRequest.Partition.newBuilder()
                        .setPartition(tp.partition())
                        .setCommittedOffset(o.offset())
                        .setCommittedLeaderEpoch(o.leaderEpoch())
                        .setCommittedMetadata(o.metadata())));
    OffsetCommitRequest.Builder b =
        OffsetCommitRequest.newBuilder()
            .setGroupId(groupId)
            .setMemberId(memberId)
            .setMemberEpoch(memberEpoch);
    topics.values().forEach(b::addTopics);
    OffsetCommitRequest request = b.build();
    return call(
        ApiKey.OFFSET_COMMIT,
        request,
        deadlineMs,
        r -> {
          Map<TopicPartition, SpoolException> out = new LinkedHashMap<>();
          for (OffsetCommitResponse.Topic t : r.body(OffsetCommitResponse.class).getTopicsList()) {
            for (OffsetCommitResponse.Partition p : t.getPartitionsList()) {
              TopicPartition tp = new TopicPartition(t.getName(), p.getPartition());
              out.put(
                  tp,
                  p.getErrorCode() == ErrorCode.NONE
                      ? null
                      : new SpoolException(
                          p.getErrorCode(), p.getErrorMessage() + " (commit of " + tp + ")"));
            }
          }
          // Whole-request coordinator errors come per partition: retry them all.
          return out.values().stream().anyMatch(e -> e != null && isCoordinatorError(e.errorCode()))
              ? coordinatorError(out)
              : out;
        });
  }

  /** The committed offsets of {@code partitions} (absent = none), retrying until the deadline. */
  public CompletableFuture<Map<TopicPartition, OffsetAndMetadata>> fetch(
      Collection<TopicPartition> partitions, String memberId, int memberEpoch, long deadlineMs) {
    Map<String, List<Integer>> byTopic = new HashMap<>();
    partitions.forEach(
        tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition()));
    OffsetFetchRequest.Group.Builder g =
        OffsetFetchRequest.Group.newBuilder()
            .setGroupId(groupId)
            .setMemberId(memberId)
            .setMemberEpoch(memberEpoch);
    byTopic.forEach(
        (t, ps) -> g.addTopics(TopicPartitions.newBuilder().setTopic(t).addAllPartitions(ps)));
    return call(
        ApiKey.OFFSET_FETCH,
        OffsetFetchRequest.newBuilder().addGroups(g).build(),
        deadlineMs,
        r -> {
          OffsetFetchResponse.Group group = r.body(OffsetFetchResponse.class).getGroups(0);
          if (group.getErrorCode() != ErrorCode.NONE) {
            throw new SpoolException(group.getErrorCode(), group.getErrorMessage());
          }
          Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
          for (OffsetFetchResponse.Topic t : group.getTopicsList()) {
            for (OffsetFetchResponse.Partition p : t.getPartitionsList()) {
              if (p.getCommittedOffset() >= 0) {
                out.put(
                    new TopicPartition(t.getName(), p.getPartition()),
                    new OffsetAndMetadata(
                        p.getCommittedOffset(), p.getCommittedLeaderEpoch(), p.getMetadata()));
              }
            }
          }
          return out;
        });
  }

  static boolean isCoordinatorError(ErrorCode c) {
    return c == ErrorCode.NOT_COORDINATOR
        || c == ErrorCode.COORDINATOR_NOT_AVAILABLE
        || c == ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
  }

  private static <T> T coordinatorError(Map<TopicPartition, SpoolException> out) {
    for (SpoolException e : out.values()) {
      if (e != null && isCoordinatorError(e.errorCode())) {
        throw e;
      }
    }
    throw new IllegalStateException("no coordinator error");
  }

  /**
   * Sends {@code body} to the coordinator and parses the answer ({@code parse} may throw a
   * SpoolException, retried when retriable); retries retriable failures until the deadline.
   */
  public <T> CompletableFuture<T> call(
      ApiKey api, MessageLite body, long deadlineMs, Function<ClientResponse, T> parse) {
    CompletableFuture<T> out = new CompletableFuture<>();
    network.eventLoop().execute(() -> attempt(api, body, deadlineMs, parse, out, 0, null));
    return out;
  }

  private <T> void attempt(
      ApiKey api,
      MessageLite body,
      long deadlineMs,
      Function<ClientResponse, T> parse,
      CompletableFuture<T> out,
      int attempt,
      SpoolException last) {
    long left = deadlineMs - clock.monotonicMs();
    if (left <= 0) {
      out.completeExceptionally(
          last != null
              ? last
              : new SpoolException(
                  ErrorCode.REQUEST_TIMED_OUT, api + " to the coordinator timed out"));
      return;
    }
    Node[] target = new Node[1];
    find()
        .thenCompose(
            node -> {
              target[0] = node;
              return network.send(node, api, body, Math.min(requestTimeoutMs, left));
            })
        .whenComplete(
            (response, error) -> {
              SpoolException failure;
              if (error == null) {
                try (ClientResponse r = response) {
                  out.complete(parse.apply(r));
                  return;
                } catch (SpoolException e) {
                  failure = e;
                } catch (RuntimeException e) {
                  out.completeExceptionally(e);
                  return;
                }
              } else {
                failure = MetadataRefresher.asSpoolException(unwrap(error));
              }
              if (!Errors.retriable(failure.errorCode())) {
                out.completeExceptionally(failure);
                return;
              }
              if (failure.errorCode() != ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) {
                markUnknown(target[0]);
              }
              SpoolException seen = failure;
              network
                  .eventLoop()
                  .schedule(
                      () -> attempt(api, body, deadlineMs, parse, out, attempt + 1, seen),
                      Math.max(1, backoff.backoffMs(attempt)),
                      TimeUnit.MILLISECONDS);
            });
  }

  static Throwable unwrap(Throwable t) {
    return t instanceof java.util.concurrent.CompletionException && t.getCause() != null
        ? t.getCause()
        : t;
  }
}
