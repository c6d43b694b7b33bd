package dev.spool.broker.request;

import static dev.spool.broker.request.ThrottledLeader.MOVING_0;
import static dev.spool.broker.request.ThrottledLeader.MOVING_2;
import static dev.spool.broker.request.ThrottledLeader.ORDERS_0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.request.ThrottledLeader.Answer;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader side of the replication throttle in {@link FetchHandler} (Kafka's
 * shouldLeaderThrottle), on {@link ThrottledLeader}: broker 1 leads {@code moving-0} (brokers 2 and
 * 3 adding, not in the ISR: throttled for them), {@code moving-2} (broker 2 adding but in the ISR)
 * and {@code orders-0} (no move). The throttle is 10 000 B/s (a 10 000 B bucket); each partition
 * holds 30 batches of about 1.1 KB.
 */
class LeaderReplicationThrottleTest {
  private static final long RATE = 10_000;

  @TempDir Path dir;
  private ThrottledLeader leader;
  private long movingEnd;

  @BeforeEach
  void setUp() throws Exception {
    leader = new ThrottledLeader(dir, RATE);
    leader.append(MOVING_0, 30, 10);
    leader.append(MOVING_2, 30, 10);
    leader.append(ORDERS_0, 30, 10);
    movingEnd = 300;
  }

  @AfterEach
  void tearDown() {
    leader.close();
  }

  @Test
  void aThrottledPartitionGetsNoRecordsOnceTheBucketIsEmpty() throws Exception {
    Answer first = leader.fetchFromStart(2, MOVING_0).get(MOVING_0);
    assertTrue(first.recordsSize() > RATE, "the whole log, more than the full bucket");
    assertEquals(movingEnd, first.nextOffset());
    assertEquals(first.recordsSize(), leader.throttle().throttledBytesTotal());
    long delayMs = leader.throttle().delayMs();
    assertEquals((first.recordsSize() - RATE) * 1000 / RATE, delayMs, 1);

    // In debt: broker 3's fetch of the same partition is answered, without records, not an error.
    Answer over = leader.fetchFromStart(3, MOVING_0).get(MOVING_0);
    assertEquals(new Answer(ErrorCode.NONE, 0, -1, movingEnd), over);
    assertEquals(first.recordsSize(), leader.throttle().throttledBytesTotal());

    leader.clock.advanceMs(delayMs); // paid back
    Answer again = leader.fetchFromStart(3, MOVING_0).get(MOVING_0);
    assertEquals(first.recordsSize(), again.recordsSize());
    assertEquals(2L * first.recordsSize(), leader.throttle().throttledBytesTotal());
  }

  @Test
  void isrFollowersConsumersAndPartitionsNotMovingAreNeverLimited() throws Exception {
    leader.throttle().record(1_000_000); // deep in debt
    assertTrue(leader.throttle().delayMs() > 0);

    // One fetch by broker 2: moving-0 throttled, the others not.
    Map<TopicPartition, Answer> answer = leader.fetchFromStart(2, MOVING_0, MOVING_2, ORDERS_0);
    assertEquals(0, answer.get(MOVING_0).recordsSize());
    assertEquals(ErrorCode.NONE, answer.get(MOVING_0).error());
    assertEquals(movingEnd, answer.get(MOVING_2).nextOffset()); // adding, but in the ISR
    assertEquals(movingEnd, answer.get(ORDERS_0).nextOffset()); // no move
    // A consumer reading the moving partition is not a replica catching up.
    assertEquals(movingEnd, leader.fetchFromStart(-1, MOVING_0).get(MOVING_0).nextOffset());
    assertEquals(1_000_000, leader.throttle().throttledBytesTotal());
  }

  @Test
  void rateZeroThrottlesNothing() throws Exception {
    leader.setThrottle(0);
    leader.throttle().record(1_000_000); // ignored without a throttle
    assertEquals(0, leader.throttle().delayMs());
    assertEquals(movingEnd, leader.fetchFromStart(2, MOVING_0).get(MOVING_0).nextOffset());
    assertEquals(movingEnd, leader.fetchFromStart(3, MOVING_0).get(MOVING_0).nextOffset());
    assertEquals(0, leader.throttle().throttledBytesTotal());
  }

  @Test
  void aThrottleChangedAtRuntimeTakesEffectAtTheNextFetch() throws Exception {
    leader.throttle().record(3 * RATE); // 2 s of debt at 10 000 B/s
    assertEquals(0, leader.fetchFromStart(2, MOVING_0).get(MOVING_0).recordsSize());

    leader.setThrottle(10 * RATE); // the same debt is 200 ms at 100 000 B/s
    assertEquals(200, leader.throttle().delayMs());
    leader.clock.advanceMs(199);
    assertEquals(0, leader.fetchFromStart(2, MOVING_0).get(MOVING_0).recordsSize());
    leader.clock.advanceMs(1);
    assertEquals(movingEnd, leader.fetchFromStart(2, MOVING_0).get(MOVING_0).nextOffset());

    leader.throttle().record(100 * RATE);
    assertEquals(0, leader.fetchFromStart(3, MOVING_0).get(MOVING_0).recordsSize());
    leader.setThrottle(0); // removed: the debt is forgotten
    assertEquals(movingEnd, leader.fetchFromStart(3, MOVING_0).get(MOVING_0).nextOffset());
  }

  @Test
  void aThrottledPartitionDoesNotSatisfyMinBytesSoTheFetchLongPolls() throws Exception {
    leader.throttle().record(RATE + 5_000); // 500 ms of debt
    CompletableFuture<BrokerResponse> waiting =
        leader.start(2, 1000, 1 << 20, Map.of(MOVING_0, 0L));
    // Records were read but held back: the fetch waits instead of answering empty at once.
    Awaitility.await()
        .atMost(10, TimeUnit.SECONDS)
        .until(() -> leader.broker.replicas().fetchWaiters().waitingCount() == 1);
    assertFalse(waiting.isDone());

    leader.clock.advanceMs(500); // the bucket has refilled; an append wakes the fetch
    leader.append(MOVING_0, 1, 10);
    Answer woken = ThrottledLeader.answers(waiting.get(10, TimeUnit.SECONDS)).get(MOVING_0);
    // (A re-read at the refill time, on the broker's timer, may have come first: then without
    // the appended batch.)
    assertTrue(woken.nextOffset() >= movingEnd, "woken with " + woken);
    assertEquals(RATE + 5_000 + woken.recordsSize(), leader.throttle().throttledBytesTotal());
  }
}
