package dev.spool.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.client.testing.FakeCluster;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.AlterPartitionReassignmentsRequest;
import dev.spool.protocol.message.AlterPartitionReassignmentsResponse;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ListPartitionReassignmentsRequest;
import dev.spool.protocol.message.ListPartitionReassignmentsResponse;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Admin's reassignment calls against a scripted broker: what is sent, what is answered. */
@Tag("integration")
@Timeout(60)
class ReassignmentAdminTest {
  private static final TopicPartition A0 = new TopicPartition("a", 0);
  private static final TopicPartition A1 = new TopicPartition("a", 1);

  private FakeCluster cluster;
  private Admin admin;
  private final List<AlterPartitionReassignmentsRequest> sent = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() {
    cluster = FakeCluster.start(1);
    admin =
        new Admin(
            Map.of(
                "bootstrap.servers",
                cluster.bootstrap(),
                "retry.backoff.ms",
                "10",
                "default.api.timeout.ms",
                "5000"));
  }

  @AfterEach
  void stop() {
    admin.close();
    cluster.close();
  }

  private void answerAlter(AlterPartitionReassignmentsResponse response) {
    cluster
        .broker(1)
        .handle(
            ApiKey.ALTER_PARTITION_REASSIGNMENTS,
            (r, out) -> {
              sent.add(r.body(AlterPartitionReassignmentsRequest.class));
              out.reply(response);
            });
  }

  private static AlterPartitionReassignmentsResponse.Result result(
      TopicPartition tp, ErrorCode code, String message) {
    return AlterPartitionReassignmentsResponse.Result.newBuilder()
        .setTopic(tp.topic())
        .setPartition(tp.partition())
        .setErrorCode(code)
        .setErrorMessage(message)
        .build();
  }

  @Test
  void sendsTargetsAndCancelsAndAnswersPerPartition() {
    answerAlter(
        AlterPartitionReassignmentsResponse.newBuilder()
            .addPartitions(result(A0, ErrorCode.NONE, ""))
            .addPartitions(
                result(A1, ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, "a-1 is not being reassigned"))
            .build());
    Map<TopicPartition, Optional<List<Integer>>> targets = new TreeMap<>();
    targets.put(A0, Optional.of(List.of(4, 1, 2)));
    targets.put(A1, Optional.empty());
    Map<TopicPartition, ReassignmentResult> results =
        admin.alterPartitionReassignments(targets, OptionalLong.of(1024)).join();

    AlterPartitionReassignmentsRequest req = sent.get(0);
    assertEquals(1024, req.getThrottleBytesPerSec());
    assertTrue(req.getTimeoutMs() > 0);
    assertEquals(List.of(4, 1, 2), req.getPartitions(0).getReplicasList());
    assertFalse(req.getPartitions(0).getCancel());
    assertTrue(req.getPartitions(1).getCancel());
    assertEquals(0, req.getPartitions(1).getReplicasCount());
    assertTrue(results.get(A0).succeeded());
    assertEquals(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, results.get(A1).error());
    assertEquals("a-1 is not being reassigned", results.get(A1).message());
  }

  @Test
  void anUnknownPartitionIsARefusalNotARetry() {
    answerAlter(
        AlterPartitionReassignmentsResponse.newBuilder()
            .addPartitions(result(A0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "no topic 'a'"))
            .build());
    Map<TopicPartition, ReassignmentResult> results =
        admin
            .alterPartitionReassignments(Map.of(A0, Optional.of(List.of(1))), OptionalLong.empty())
            .join();
    assertEquals(1, sent.size());
    assertEquals(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, results.get(A0).error());
  }

  @Test
  void leavesTheThrottleUnsetUnlessGivenAndSetsItAlone() {
    answerAlter(AlterPartitionReassignmentsResponse.getDefaultInstance());
    admin
        .alterPartitionReassignments(Map.of(A0, Optional.of(List.of(1))), OptionalLong.empty())
        .join();
    assertFalse(sent.get(0).hasThrottleBytesPerSec());
    admin.setReplicationThrottle(0).join();
    assertTrue(sent.get(1).hasThrottleBytesPerSec());
    assertEquals(0, sent.get(1).getThrottleBytesPerSec());
    assertEquals(0, sent.get(1).getPartitionsCount());
  }

  @Test
  void aRequestLevelErrorFailsTheFuture() {
    answerAlter(
        AlterPartitionReassignmentsResponse.newBuilder()
            .setErrorCode(ErrorCode.UNSUPPORTED_VERSION)
            .setErrorMessage("metadata.version 3 is below 4")
            .build());
    CompletionException e =
        assertThrows(
            CompletionException.class,
            () ->
                admin
                    .alterPartitionReassignments(
                        Map.of(A0, Optional.of(List.of(1))), OptionalLong.empty())
                    .join());
    SpoolException se = assertInstanceOf(SpoolException.class, e.getCause());
    assertEquals(ErrorCode.UNSUPPORTED_VERSION, se.errorCode());
    assertTrue(se.getMessage().contains("below 4"), se.getMessage());
    assertEquals(1, sent.size(), "not retried");
    CompletionException t =
        assertThrows(CompletionException.class, () -> admin.setReplicationThrottle(5).join());
    assertEquals(
        ErrorCode.UNSUPPORTED_VERSION,
        assertInstanceOf(SpoolException.class, t.getCause()).errorCode());
  }

  @Test
  void aRetriablePartitionErrorRetriesAndALateNoReassignmentMeansCancelled() {
    AtomicInteger attempts = new AtomicInteger();
    cluster
        .broker(1)
        .handle(
            ApiKey.ALTER_PARTITION_REASSIGNMENTS,
            (r, out) ->
                out.reply(
                    AlterPartitionReassignmentsResponse.newBuilder()
                        .addPartitions(
                            attempts.incrementAndGet() == 1
                                ? result(A0, ErrorCode.NOT_CONTROLLER, "moving")
                                : result(A0, ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, "done"))
                        .build()));
    Map<TopicPartition, ReassignmentResult> results =
        admin
            .alterPartitionReassignments(Map.of(A0, Optional.empty()), OptionalLong.empty())
            .join();
    assertEquals(2, attempts.get());
    assertTrue(results.get(A0).succeeded(), results.toString());
  }

  @Test
  void listsReassignmentsAndTheThrottle() {
    List<ListPartitionReassignmentsRequest> asked = new CopyOnWriteArrayList<>();
    cluster
        .broker(1)
        .handle(
            ApiKey.LIST_PARTITION_REASSIGNMENTS,
            (r, out) -> {
              asked.add(r.body(ListPartitionReassignmentsRequest.class));
              out.reply(
                  ListPartitionReassignmentsResponse.newBuilder()
                      .setThrottleBytesPerSec(777)
                      .addPartitions(
                          ListPartitionReassignmentsResponse.Reassignment.newBuilder()
                              .setTopic("a")
                              .setPartition(1)
                              .addAllReplicas(List.of(4, 1, 3))
                              .addAddingReplicas(4)
                              .addRemovingReplicas(3)
                              .addAllIsr(List.of(1, 3))
                              .setLeader(1))
                      .build());
            });
    Reassignments all = admin.listPartitionReassignments(List.of(A1, A0)).join();
    assertEquals(777, all.throttleBytesPerSec());
    Reassignments.Reassignment r = all.partitions().get(0);
    assertEquals(A1, r.partition());
    assertEquals(List.of(4), r.adding());
    assertEquals(List.of(3), r.removing());
    assertEquals(List.of(1, 3), r.isr());
    assertEquals(1, r.leader());
    assertEquals(List.of(4, 1), r.target());
    assertEquals("a", asked.get(0).getPartitions(0).getTopic());
    assertEquals(List.of(1, 0), asked.get(0).getPartitions(0).getPartitionsList());
    admin.listPartitionReassignments(List.of()).join();
    assertEquals(0, asked.get(1).getPartitionsCount(), "empty asks for every partition");
  }
}
