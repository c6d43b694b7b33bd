package dev.spool.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.TopicPartition;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class FetchWaitersTest {
  private static final TopicPartition A = new TopicPartition("a", 0);
  private static final TopicPartition B = new TopicPartition("b", 0);

  @Test
  void shouldWakeConsumersOnHighWatermarkMovesAndFollowersOnAppends() {
    FetchWaiters w = new FetchWaiters(10);
    AtomicInteger consumer = new AtomicInteger();
    AtomicInteger follower = new AtomicInteger();
    w.watch(List.of(A), new FetchWaiters.Waiter(false, consumer::incrementAndGet));
    w.watch(List.of(A), new FetchWaiters.Waiter(true, follower::incrementAndGet));
    w.wake(A, true);
    assertEquals(1, consumer.get());
    assertEquals(0, follower.get(), "a high watermark move alone does not wake a follower");
    w.wake(A, false);
    assertEquals(1, consumer.get(), "a waiter wakes once");
    assertEquals(1, follower.get());
    assertEquals(0, w.waitingCount());
  }

  @Test
  void shouldWakeEveryWaiterOnALeadershipChange() {
    FetchWaiters w = new FetchWaiters(10);
    AtomicInteger woken = new AtomicInteger();
    w.watch(List.of(A), new FetchWaiters.Waiter(false, woken::incrementAndGet));
    w.watch(List.of(A), new FetchWaiters.Waiter(true, woken::incrementAndGet));
    w.wakeAll(A);
    assertEquals(2, woken.get());
    assertEquals(0, w.waitingCount());
  }

  @Test
  void shouldWakeAWaiterOnAnyOfItsPartitionsOnceAndForgetIt() {
    FetchWaiters w = new FetchWaiters(10);
    AtomicInteger woken = new AtomicInteger();
    FetchWaiters.Waiter waiter = new FetchWaiters.Waiter(true, woken::incrementAndGet);
    assertTrue(w.watch(List.of(A, B), waiter));
    w.wake(B, false);
    w.wake(A, true);
    assertEquals(1, woken.get());
    assertFalse(waiter.cancel(), "already woken");
    assertEquals(0, w.waitingCount());
  }

  @Test
  void shouldRefuseWaitersBeyondTheLimitAndFreeCancelledOnes() {
    FetchWaiters w = new FetchWaiters(1);
    FetchWaiters.Waiter first = new FetchWaiters.Waiter(false, () -> {});
    assertTrue(w.watch(List.of(A), first));
    assertFalse(w.watch(List.of(B), new FetchWaiters.Waiter(false, () -> {})));
    assertTrue(first.cancel());
    assertEquals(0, w.waitingCount());
    assertTrue(w.watch(List.of(B), new FetchWaiters.Waiter(false, () -> {})));
  }
}
