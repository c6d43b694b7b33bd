package dev.spool.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The acks=all produces of one partition waiting for the high watermark, on their own. */
@Tag("unit")
class ProducePurgatoryTest {
  private static final TopicPartition TP = new TopicPartition("orders", 3);

  private final ProducePurgatory purgatory = new ProducePurgatory(TP);

  private static ProduceResult ok(long baseOffset) {
    return new ProduceResult(ErrorCode.NONE, "", baseOffset, -1L, 0L, null, 1, 1);
  }

  @Test
  void shouldCompleteExactlyTheProducesTheHighWatermarkCovers() {
    CompletableFuture<ProduceResult> late = purgatory.await(20, 1_000, ok(10));
    CompletableFuture<ProduceResult> early = purgatory.await(5, 1_000, ok(0));
    purgatory.completeUpTo(4, () -> 3, 2);
    assertFalse(early.isDone(), "offset 4 is not below the high watermark 4");
    purgatory.completeUpTo(5, () -> 3, 2);
    assertSame(ErrorCode.NONE, early.join().error());
    assertEquals(0, early.join().baseOffset());
    assertFalse(late.isDone());
    assertEquals(1, purgatory.size());
  }

  @Test
  void shouldSayNotEnoughReplicasAfterAppendWhenTheIsrShrankBelowMinIsr() {
    CompletableFuture<ProduceResult> f = purgatory.await(3, 1_000, ok(0));
    purgatory.completeUpTo(3, () -> 1, 2);
    ProduceResult r = f.join();
    assertEquals(ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, r.error());
    assertTrue(r.message().contains("shrank to 1 members"), r.message());
    assertEquals(0, purgatory.size());
  }

  @Test
  void shouldNotAskForTheIsrWhenNothingIsCovered() {
    purgatory.await(10, 1_000, ok(7));
    purgatory.completeUpTo(
        9,
        () -> {
          throw new AssertionError("the ISR size is read only for a covered produce");
        },
        2);
    assertEquals(1, purgatory.size());
  }

  @Test
  void shouldTimeOutOnlyTheProducesPastTheirDeadline() {
    CompletableFuture<ProduceResult> due = purgatory.await(3, 500, ok(0));
    CompletableFuture<ProduceResult> notYet = purgatory.await(6, 501, ok(3));
    purgatory.expire(500, () -> List.of(1, 2));
    ProduceResult r = due.join();
    assertEquals(ErrorCode.REQUEST_TIMED_OUT, r.error());
    assertTrue(r.message().contains("offset 2 of " + TP), r.message());
    assertTrue(r.message().contains("[1, 2]"), r.message());
    assertFalse(notYet.isDone());
    assertEquals(1, purgatory.size());
  }

  @Test
  void shouldFailEveryWaitingProduceWithTheHintWhenLeadershipEnds() {
    CompletableFuture<ProduceResult> a = purgatory.await(3, 1_000, ok(0));
    CompletableFuture<ProduceResult> b = purgatory.await(9, 1_000, ok(3));
    LeaderHintInfo hint = new LeaderHintInfo(2, 8);
    purgatory.failAll(ErrorCode.NOT_LEADER_OR_FOLLOWER, "moved", hint);
    for (CompletableFuture<ProduceResult> f : List.of(a, b)) {
      assertEquals(ErrorCode.NOT_LEADER_OR_FOLLOWER, f.join().error());
      assertEquals(hint, f.join().hint());
    }
    assertEquals(0, purgatory.size());
  }
}
