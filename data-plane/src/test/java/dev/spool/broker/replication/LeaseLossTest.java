package dev.spool.broker.replication;

import static dev.spool.broker.replication.ReplicaTestSupport.batch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.request.HandlerTestBroker;
import dev.spool.common.ErrorCode;
import dev.spool.common.ManualClock;
import dev.spool.common.TopicPartition;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leadership lease on a broker's replica manager: a leader without its lease appends nothing,
 * and its owner worker's tick answers the acks=all produces already waiting for replication.
 */
@Tag("unit")
class LeaseLossTest {
  // broker 1 leads orders-0 with ISR {1, 2}: an acks=all produce waits for broker 2's fetch
  private static final TopicPartition LED = new TopicPartition("orders", 0);

  @TempDir Path dir;
  private final ManualClock clock = new ManualClock(1_000_000L);
  private final AtomicBoolean held = new AtomicBoolean(true);
  private HandlerTestBroker broker;
  private ReplicaManager replicas;

  @BeforeEach
  void start() {
    broker = new HandlerTestBroker(dir, clock);
    replicas = broker.replicas();
    replicas.setLeadershipLease(held::get);
  }

  @AfterEach
  void stop() {
    broker.close();
  }

  private CompletableFuture<ProduceResult> produceAcksAll() {
    return replicas.appendRecords(LED, batch(3, clock.nowMs(), "v"), -1, -1, 60_000);
  }

  private long logEnd() {
    return replicas.onPartition(LED, p -> p.log().logEndOffset(), () -> -1L).join();
  }

  /** Runs the owner worker's tick, as the ticker would, and waits for it. */
  private void tick() throws Exception {
    replicas
        .onPartition(
            LED,
            p -> {
              replicas.tick(0);
              return null;
            },
            () -> null)
        .get(10, TimeUnit.SECONDS);
  }

  @Test
  void shouldAnswerWaitingProducesNotLeaderOnlyOnceTheLeaseIsLost() throws Exception {
    CompletableFuture<ProduceResult> waiting = produceAcksAll();
    assertEquals(3, logEnd(), "the batch was appended and waits for the follower");
    tick();
    assertFalse(waiting.isDone(), "the lease is held: the produce keeps waiting");

    held.set(false);
    tick();
    ProduceResult r = waiting.get(10, TimeUnit.SECONDS);
    assertEquals(ErrorCode.NOT_LEADER_OR_FOLLOWER, r.error());
    assertTrue(r.message().contains("may have been appended"), r.message());
    assertEquals(-1, r.hint().leaderId(), "no hint back to this broker");
    assertEquals(3, logEnd(), "the appended batch stays in the log");
  }

  @Test
  void shouldRefuseNewProducesWithoutAppendingWhileTheLeaseIsLost() throws Exception {
    held.set(false);
    ProduceResult r = produceAcksAll().get(10, TimeUnit.SECONDS);
    assertEquals(ErrorCode.NOT_LEADER_OR_FOLLOWER, r.error());
    assertTrue(r.message().contains("nothing was written"), r.message());
    assertEquals(0, logEnd());

    held.set(true);
    CompletableFuture<ProduceResult> next = produceAcksAll();
    tick();
    assertFalse(next.isDone(), "with the lease back the produce is appended and waits");
    assertEquals(3, logEnd());
  }
}
