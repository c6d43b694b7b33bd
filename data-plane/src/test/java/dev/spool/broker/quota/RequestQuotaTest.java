package dev.spool.broker.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.replication.PartitionWorkers;
import dev.spool.common.ClientQuotaEntity;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataBatch;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The request_percentage quota (docs/security.md#quotas) on a manual clock: thread time is recorded
 * in Kafka's unit (percent of one thread), the throttle is the byte rates' formula bounded by one
 * window, replicas' fetches are exempt, partition-worker tasks count for the request that queued
 * them, and an answer carries the larger of its byte-rate throttle and the request quota's.
 */
@Tag("unit")
class RequestQuotaTest {
  private static final long SECOND = 1_000_000_000L;

  private static MetadataImage image(ClientQuotaEntity entity, double percent) {
    return MetadataApplier.replay(
        MetadataImage.EMPTY,
        MetadataBatch.newBuilder()
            .addRecords(Records.featureLevel(MetadataVersion.FEATURE, MetadataVersion.LATEST))
            .addRecords(Records.clientQuota(entity, ClientQuotaEntity.REQUEST_PERCENTAGE, percent))
            .build(),
        1);
  }

  private final AtomicLong now = new AtomicLong();

  private ClientQuotaManager manager(double percent) {
    MetadataImage img = image(new ClientQuotaEntity(null, "app"), percent);
    return new ClientQuotaManager(() -> img, 11, 1000, now::get);
  }

  /** A stand-in answer: only its throttle matters here. */
  private record Answer(long throttleMs) {
    Answer throttled(long ms) {
      return new Answer(ms);
    }
  }

  @Test
  void onlyClientsWithARequestQuotaAreMetered() {
    ClientQuotaManager m = manager(10);
    assertNotNull(m.requestMeter("User:alice", "app"));
    assertNull(m.requestMeter("User:alice", "other"));
    assertNull(ClientQuotaManager.NONE.requestMeter("User:alice", "app"));
    // A byte rate is not a request quota.
    MetadataImage bytes =
        MetadataApplier.replay(
            MetadataImage.EMPTY,
            MetadataBatch.newBuilder()
                .addRecords(Records.featureLevel(MetadataVersion.FEATURE, MetadataVersion.LATEST))
                .addRecords(
                    Records.clientQuota(
                        new ClientQuotaEntity(null, "app"),
                        ClientQuotaEntity.PRODUCER_BYTE_RATE,
                        1000.0))
                .build(),
            1);
    assertNull(new ClientQuotaManager(() -> bytes, 11, 1000).requestMeter("User:a", "app"));
  }

  @Test
  void threadTimeIsAPercentOfOneThreadAndTheThrottleIsBoundedByAWindow() {
    ClientQuotaManager m = manager(10);
    RequestMeter meter = m.requestMeter("User:alice", "app");
    // 1.05 s of thread time over the 10 windows the rate divides by at least: 10.5 % of a thread.
    meter.addNanos(1_050_000_000L);
    assertEquals(1.05, m.requestSeconds(), 1e-9);
    // (10.5 - 10) / 10 × 10 000 ms.
    assertEquals(500, meter.throttleMs());
    assertEquals(0.5, m.throttledSeconds(ClientQuotaManager.Kind.REQUEST), 1e-9);
    assertEquals(0.0, m.throttledSeconds(ClientQuotaManager.Kind.PRODUCE), 1e-9);
    // Twice the quota would be 10 s by the formula; Kafka bounds request throttles to one window.
    meter.addNanos(SECOND);
    assertEquals(1000, meter.throttleMs());
    // Every meter of the client shares one rate; another client id is not metered.
    assertEquals(1000, m.requestMeter("User:bob", "app").throttleMs());
    // Once the windows have passed, the time no longer counts.
    now.set(11_000);
    assertEquals(0, m.requestMeter("User:alice", "app").throttleMs());
  }

  @Test
  void aReplicasFetchRecordsNothingAndIsNeverThrottled() {
    ClientQuotaManager m = manager(1);
    RequestMeter meter = m.requestMeter("User:broker", "app");
    RequestMeter previous = RequestMeter.enter(meter);
    try {
      RequestMeter.exemptCurrent();
    } finally {
      RequestMeter.exit(previous);
    }
    assertNull(RequestMeter.current());
    meter.addNanos(10 * SECOND);
    assertTrue(meter.exempt());
    assertEquals(0.0, m.requestSeconds(), 1e-9);
    assertEquals(0, meter.throttleMs());
    // Exempting with no meter current is a no-op.
    RequestMeter.exemptCurrent();
  }

  /** The answer {@code answer} becomes when served under {@code meter}. */
  private static Answer served(RequestMeter meter, Answer answer) {
    return meter
        .serve(
            0,
            () -> CompletableFuture.completedFuture(answer),
            Answer::throttleMs,
            Answer::throttled)
        .join();
  }

  @Test
  void theAnswerCarriesTheLargerOfItsThrottleAndTheRequestQuotas() {
    ClientQuotaManager m = manager(10);
    RequestMeter meter = m.requestMeter("User:alice", "app");
    meter.addNanos(1_050_000_000L); // request quota: 500 ms from now on
    assertEquals(5000, served(meter, new Answer(5000)).throttleMs(), "the byte rate's is larger");
    assertEquals(500, served(meter, new Answer(100)).throttleMs(), "the request quota's is larger");
    // Within the quota an answer keeps what it has, unthrottled.
    RequestMeter fresh = manager(10).requestMeter("User:alice", "app");
    Answer none = new Answer(0);
    assertSame(none, served(fresh, none));
  }

  @Test
  void servingMakesTheMeterCurrentAndCountsEarlierWork() {
    ClientQuotaManager m = manager(10);
    RequestMeter meter = m.requestMeter("User:alice", "app");
    RequestMeter[] seen = new RequestMeter[1];
    meter
        .serve(
            SECOND,
            () -> {
              seen[0] = RequestMeter.current();
              return CompletableFuture.completedFuture(new Answer(0));
            },
            Answer::throttleMs,
            Answer::throttled)
        .join();
    assertSame(meter, seen[0]);
    assertNull(RequestMeter.current(), "restored after serving");
    assertTrue(
        m.requestSeconds() >= 1.0, "the decode time handed in counts: " + m.requestSeconds());
  }

  @Test
  void partitionWorkerTasksCountForTheRequestThatQueuedThemAndTheirHandOffs() throws Exception {
    ClientQuotaManager m = manager(10);
    RequestMeter meter = m.requestMeter("User:alice", "app");
    PartitionWorkers workers = new PartitionWorkers(2, 16, "test-partition");
    try {
      CountDownLatch done = new CountDownLatch(1);
      RequestMeter[] seen = new RequestMeter[2];
      RequestMeter previous = RequestMeter.enter(meter);
      try {
        workers.executeOn(
            0,
            () -> {
              seen[0] = RequestMeter.current();
              // A hand-off from the worker carries the meter on.
              workers.executeOn(
                  1,
                  () -> {
                    seen[1] = RequestMeter.current();
                    done.countDown();
                  });
            });
      } finally {
        RequestMeter.exit(previous);
      }
      assertTrue(done.await(10, TimeUnit.SECONDS));
      // A task queued by nobody's request is not metered.
      CountDownLatch plain = new CountDownLatch(1);
      RequestMeter[] unseen = {meter};
      workers.executeOn(
          0,
          () -> {
            unseen[0] = RequestMeter.current();
            plain.countDown();
          });
      assertTrue(plain.await(10, TimeUnit.SECONDS));
      assertSame(meter, seen[0]);
      assertSame(meter, seen[1]);
      assertNull(unseen[0]);
      // Both tasks' time is recorded once they end (after the latch, on the worker).
      CountDownLatch drained = new CountDownLatch(2);
      workers.executeOn(0, drained::countDown);
      workers.executeOn(1, drained::countDown);
      assertTrue(drained.await(10, TimeUnit.SECONDS));
      assertTrue(m.requestSeconds() > 0, "the tasks' thread time was recorded");
    } finally {
      workers.close();
    }
  }
}
