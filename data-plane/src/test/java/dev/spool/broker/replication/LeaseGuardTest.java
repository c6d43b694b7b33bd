package dev.spool.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Produce-side lease enforcement: refusals and the acks=all produces answered on lease loss. */
@Tag("unit")
class LeaseGuardTest {
  private static final TopicPartition TP = new TopicPartition("t", 0);

  private static ProduceResult ok(long offset) {
    return new ProduceResult(ErrorCode.NONE, "", offset, -1, 0, null, 1, 10);
  }

  @Test
  void shouldRefuseWithNotLeaderAndNoLeaderHint() {
    LeaseGuard g = new LeaseGuard(3, () -> false);
    assertFalse(g.holds());
    ProduceResult r = g.refusal(TP);
    assertEquals(ErrorCode.NOT_LEADER_OR_FOLLOWER, r.error());
    assertTrue(r.message().contains("broker 3"), r.message());
    assertTrue(r.message().contains("nothing was written"), r.message());
  }

  @Test
  void shouldPassCompletedAnswersThroughUntouched() {
    LeaseGuard g = new LeaseGuard(1, () -> false);
    CompletableFuture<ProduceResult> done = CompletableFuture.completedFuture(ok(7));
    assertSame(done, g.track(TP, done));
    assertEquals(0, g.waitingProduces());
  }

  @Test
  void shouldAnswerWaitingProducesNotLeaderOnlyOnceTheLeaseIsLost() {
    AtomicBoolean held = new AtomicBoolean(true);
    LeaseGuard g = new LeaseGuard(1, held::get);
    CompletableFuture<ProduceResult> appended = new CompletableFuture<>();
    CompletableFuture<ProduceResult> answer = g.track(TP, appended);
    CompletableFuture<ProduceResult> committed = new CompletableFuture<>();
    CompletableFuture<ProduceResult> committedAnswer = g.track(TP, committed);
    assertEquals(2, g.waitingProduces());

    assertEquals(0, g.check(), "the lease is held: nothing is answered");
    committed.complete(ok(9));
    assertEquals(9, committedAnswer.join().baseOffset(), "a commit answers through the guard");
    assertEquals(1, g.waitingProduces());

    held.set(false);
    assertEquals(1, g.check());
    assertEquals(ErrorCode.NOT_LEADER_OR_FOLLOWER, answer.join().error());
    assertTrue(answer.join().message().contains("may have been appended"));
    assertEquals(0, g.waitingProduces());
    appended.complete(ok(8)); // the purgatory's late answer changes nothing
    assertEquals(ErrorCode.NOT_LEADER_OR_FOLLOWER, answer.join().error());
    assertEquals(0, g.check());
  }

  @Test
  void shouldPassFailuresThrough() {
    LeaseGuard g = LeaseGuard.alwaysHeld(1);
    CompletableFuture<ProduceResult> appended = new CompletableFuture<>();
    CompletableFuture<ProduceResult> answer = g.track(TP, appended);
    appended.completeExceptionally(new IllegalStateException("boom"));
    assertTrue(answer.isCompletedExceptionally());
    assertEquals(0, g.waitingProduces());
  }
}
