package dev.spool.quorum.ratis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.controller.Decision;
import dev.spool.quorum.controller.PartitionDecisions;
import dev.spool.quorum.controller.ReplyFinisher;
import dev.spool.quorum.image.ImageFixture;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.message.AlterPartitionRequest;
import dev.spool.quorum.message.AlterPartitionResponse;
import dev.spool.quorum.message.RecordResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * One broker's AlterPartition requests merged into one request (one Raft entry) while another is in
 * flight, decided and applied as the controller does, and split back so that every caller gets the
 * answer for its own partitions.
 */
@Tag("unit")
class AlterPartitionBatcherTest {
  private static final int PARTITIONS = 40;

  private ImageFixture fx;

  /** Every merged request the batcher sent, and the answer it waits for. */
  private final List<AlterPartitionRequest> sent = new ArrayList<>();

  private final List<CompletableFuture<AlterPartitionResponse>> answers = new ArrayList<>();

  /** Records per committed entry (one entry per merged request). */
  private final List<Integer> entryRecords = new ArrayList<>();

  @BeforeEach
  void setUp() {
    fx = new ImageFixture().brokers(1, 2, 3);
    List<List<Integer>> assignment = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      assignment.add(p % 2 == 0 ? List.of(1, 2, 3) : List.of(2, 3, 1));
    }
    fx.topic("t", assignment);
  }

  private AlterPartitionBatcher batcher(int brokerId) {
    return new AlterPartitionBatcher(
        brokerId,
        fx.image().broker(brokerId).epoch(),
        r -> {
          CompletableFuture<AlterPartitionResponse> f = new CompletableFuture<>();
          sent.add(r);
          answers.add(f);
          return f;
        });
  }

  /** Decides and commits the {@code i}th sent request as the controller would, and answers it. */
  private void commit(int i) {
    Decision d = PartitionDecisions.alterPartition(sent.get(i), fx.image());
    List<RecordResult> results = fx.apply(d.batch().getRecordsList());
    entryRecords.add(d.batch().getRecordsCount());
    answers
        .get(i)
        .complete(
            ReplyFinisher.finish(d.toEntry(), results, fx.image(), fx.image().offset())
                .getAlterPartition());
  }

  private AlterPartitionRequest shrink(int brokerId, int partition, int drop) {
    PartitionState p = fx.image().partition(new TopicPartition("t", partition));
    return AlterPartitionRequest.newBuilder()
        .setBrokerId(brokerId)
        .setBrokerEpoch(fx.image().broker(brokerId).epoch())
        .addPartitions(
            AlterPartitionRequest.Partition.newBuilder()
                .setTopic("t")
                .setPartition(partition)
                .setLeaderEpoch(p.leaderEpoch())
                .setPartitionEpoch(p.partitionEpoch())
                .addAllNewIsr(p.isr().stream().filter(id -> id != drop).toList()))
        .build();
  }

  private List<Integer> isr(int partition) {
    return fx.image().partition(new TopicPartition("t", partition)).isr();
  }

  @Test
  void shouldCarryEveryWaitingCallerInOneEntryAndAnswerEachWithItsOwnPartition() {
    AlterPartitionBatcher b = batcher(1);
    // The first goes out alone; the rest arrive while it is in flight and wait.
    CompletableFuture<AlterPartitionResponse> first = b.submit(shrink(1, 0, 3));
    List<CompletableFuture<AlterPartitionResponse>> waiting = new ArrayList<>();
    for (int p = 2; p < PARTITIONS; p += 2) {
      waiting.add(b.submit(shrink(1, p, 3)));
    }
    assertEquals(1, sent.size(), "one request in flight per broker");
    commit(0);
    assertEquals(ErrorCode.NONE, first.join().getPartitions(0).getErrorCode());

    assertEquals(2, sent.size(), "the waiting callers went out together");
    assertEquals(PARTITIONS / 2 - 1, sent.get(1).getPartitionsCount());
    commit(1);
    assertEquals(List.of(1, PARTITIONS / 2 - 1), entryRecords, "records per Raft entry");
    for (int i = 0; i < waiting.size(); i++) {
      AlterPartitionResponse r = waiting.get(i).join();
      assertEquals(1, r.getPartitionsCount(), "each caller gets only its own partition");
      AlterPartitionResponse.PartitionResult pr = r.getPartitions(0);
      assertEquals(2 + 2 * i, pr.getPartition());
      assertEquals(ErrorCode.NONE, pr.getErrorCode(), pr.getErrorMessage());
      assertEquals(List.of(1, 2), pr.getIsrList());
      assertEquals(List.of(1, 2), isr(pr.getPartition()));
    }
  }

  @Test
  void shouldRefuseOneCallersStaleChangeWhileTheOthersInTheSameEntryApply() {
    AlterPartitionBatcher b = batcher(1);
    b.submit(shrink(1, 0, 3));
    AlterPartitionRequest stale = shrink(1, 2, 3);
    CompletableFuture<AlterPartitionResponse> good = b.submit(shrink(1, 4, 3));
    // Partition 2 changes before the merged request is decided: its partition epoch is stale.
    CompletableFuture<AlterPartitionResponse> refused = b.submit(stale);
    CompletableFuture<AlterPartitionResponse> notLeader = b.submit(shrink(1, 1, 3));
    fx.apply(
        dev.spool.quorum.image.Records.partitionChange(
            fx.image().partition(new TopicPartition("t", 2)), 1, List.of(1, 3)));
    commit(0);
    commit(1);
    assertEquals(1, entryRecords.get(1), "only the good part became a record");
    assertEquals(ErrorCode.NONE, good.join().getPartitions(0).getErrorCode());
    assertEquals(List.of(1, 2), isr(4));
    AlterPartitionResponse.PartitionResult r = refused.join().getPartitions(0);
    assertEquals(2, r.getPartition());
    assertEquals(ErrorCode.INVALID_UPDATE_VERSION, r.getErrorCode());
    assertEquals(List.of(1, 3), r.getIsrList(), "the answer carries the current state");
    assertEquals(
        ErrorCode.NOT_LEADER_OR_FOLLOWER, notLeader.join().getPartitions(0).getErrorCode());
  }

  @Test
  void shouldAnswerEveryCallerOfAFencedBrokerWithTheRefusalWhileAnotherBrokerApplies() {
    AlterPartitionBatcher fenced = batcher(2);
    AlterPartitionBatcher live = batcher(1);
    CompletableFuture<AlterPartitionResponse> f1 = fenced.submit(shrink(2, 1, 3));
    CompletableFuture<AlterPartitionResponse> f2 = fenced.submit(shrink(2, 3, 3));
    CompletableFuture<AlterPartitionResponse> f3 = fenced.submit(shrink(2, 5, 3));
    CompletableFuture<AlterPartitionResponse> l1 = live.submit(shrink(1, 0, 3));
    fx.fence(2);
    commit(0); // broker 2's first request
    commit(1); // broker 1's
    commit(2); // broker 2's merged rest
    for (CompletableFuture<AlterPartitionResponse> f : List.of(f1, f2, f3)) {
      AlterPartitionResponse r = f.join();
      assertEquals(ErrorCode.STALE_BROKER_EPOCH, r.getErrorCode());
      assertEquals(0, r.getPartitionsCount());
    }
    assertEquals(List.of(0, 1, 0), entryRecords);
    assertEquals(2, sent.get(2).getPartitionsCount(), "the fenced broker's waiting pair merged");
    assertEquals(List.of(2, 3, 1), isr(1), "nothing of the fenced broker applied");
    assertEquals(ErrorCode.NONE, l1.join().getPartitions(0).getErrorCode());
    assertEquals(List.of(1, 2), isr(0));
  }

  @Test
  void shouldSendASecondChangeOfTheSamePartitionInTheFollowingRequest() {
    AlterPartitionBatcher b = batcher(1);
    b.submit(shrink(1, 0, 3));
    CompletableFuture<AlterPartitionResponse> a = b.submit(shrink(1, 2, 3));
    CompletableFuture<AlterPartitionResponse> again = b.submit(shrink(1, 2, 2));
    CompletableFuture<AlterPartitionResponse> c = b.submit(shrink(1, 4, 3));
    commit(0);
    assertEquals(2, sent.get(1).getPartitionsCount(), "partitions 2 and 4; the repeat waits");
    commit(1);
    assertEquals(1, sent.get(2).getPartitionsCount());
    commit(2);
    assertEquals(ErrorCode.NONE, a.join().getPartitions(0).getErrorCode());
    assertEquals(ErrorCode.NONE, c.join().getPartitions(0).getErrorCode());
    // Decided on the epoch it was built with, which the first change moved on.
    assertEquals(ErrorCode.INVALID_UPDATE_VERSION, again.join().getPartitions(0).getErrorCode());
    assertTrue(sent.stream().allMatch(r -> r.getBrokerId() == 1));
  }

  @Test
  void shouldLetABurstJoinTheFirstRequestWhileItLingers() {
    List<Runnable> lingering = new ArrayList<>();
    AlterPartitionBatcher b =
        new AlterPartitionBatcher(
            1,
            fx.image().broker(1).epoch(),
            r -> {
              CompletableFuture<AlterPartitionResponse> f = new CompletableFuture<>();
              sent.add(r);
              answers.add(f);
              return f;
            },
            lingering::add);
    List<CompletableFuture<AlterPartitionResponse>> burst = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p += 2) {
      burst.add(b.submit(shrink(1, p, 3)));
    }
    assertEquals(0, sent.size(), "nothing goes out while the first request lingers");
    assertEquals(1, lingering.size(), "one send scheduled for the whole burst");
    lingering.get(0).run();
    assertEquals(1, sent.size());
    assertEquals(PARTITIONS / 2, sent.get(0).getPartitionsCount());
    commit(0);
    assertEquals(List.of(PARTITIONS / 2), entryRecords, "the whole burst in one Raft entry");
    for (int i = 0; i < burst.size(); i++) {
      AlterPartitionResponse.PartitionResult pr = burst.get(i).join().getPartitions(0);
      assertEquals(2 * i, pr.getPartition());
      assertEquals(ErrorCode.NONE, pr.getErrorCode(), pr.getErrorMessage());
    }
    assertEquals(1, lingering.size(), "the answer found nothing waiting: no send scheduled");
  }
}
