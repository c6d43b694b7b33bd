package dev.spool.broker.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ClientQuotaEntity;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataBatch;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Kafka's rate over 11 windows of 1 s and its throttle time, on a manual clock: the rate divides by
 * at least 10 windows, old windows stop counting, the throttle is (rate - quota) / quota × window,
 * and a client that waits out each throttle it is given is held to the quota.
 */
@Tag("unit")
class QuotaRateTest {
  /** An image at the latest level with one quota. */
  private static MetadataImage image(ClientQuotaEntity entity, String key, double value) {
    return MetadataApplier.replay(
        MetadataImage.EMPTY,
        MetadataBatch.newBuilder()
            .addRecords(Records.featureLevel(MetadataVersion.FEATURE, MetadataVersion.LATEST))
            .addRecords(Records.clientQuota(entity, key, value))
            .build(),
        1);
  }

  @Test
  void theRateDividesByAtLeastTenWindowsThenByTheTimeSinceTheOldest() {
    QuotaRate r = new QuotaRate(11, 1000, 0);
    r.record(10_000, 0);
    assertEquals(10_000, r.windowSizeMs(0));
    assertEquals(1_000.0, r.perSecond(0), 1e-9);
    for (long t = 1000; t <= 10_500; t += 1000) {
      r.record(10_000, t);
    }
    // 11 windows started at 0, 1000, ..., 10000; now 10500: 10.5 s of 110 kB.
    assertEquals(10_500, r.windowSizeMs(10_500));
    assertEquals(110_000 / 10.5, r.perSecond(10_500), 1e-6);
    // At 11 000 the first window (started at 0) is 11 s old: it no longer counts.
    assertEquals(100_000 / 10.0, r.perSecond(11_000), 1e-6);
    assertEquals(0.0, r.perSecond(30_000), 1e-9);
    assertTrue(r.idle(30_000));
  }

  @Test
  void theThrottleIsTheExcessShareOfTheWindow() {
    assertEquals(0, QuotaRate.throttleMs(1000, 1000, 10_000));
    assertEquals(10_000, QuotaRate.throttleMs(2000, 1000, 10_000));
    assertEquals(500, QuotaRate.throttleMs(1050, 1000, 10_000));
    assertEquals(1, QuotaRate.throttleMs(1000.06, 1000, 10_000), "rounded to milliseconds");
  }

  @Test
  void aClientThatWaitsOutEachThrottleIsHeldToTheQuota() {
    MetadataImage image =
        image(new ClientQuotaEntity("alice", null), ClientQuotaEntity.PRODUCER_BYTE_RATE, 100_000);
    ClientQuotaManager m = new ClientQuotaManager(() -> image, 11, 1000);
    long now = 0;
    long sent = 0;
    long throttled = 0;
    while (now < 120_000) {
      long t =
          m.recordAndGetThrottleMs(
              ClientQuotaManager.Kind.PRODUCE, "User:alice", "app", 16_384, now);
      sent += 16_384;
      throttled += t;
      now += 5 + t; // 5 ms per request, then the mute
    }
    double rate = sent / (now / 1000.0);
    assertEquals(100_000, rate, 100_000 * 0.05, "held within 5 % of the quota: " + rate);
    assertEquals(throttled / 1000.0, m.throttledSeconds(), 1e-9);
    assertEquals(
        0,
        m.recordAndGetThrottleMs(ClientQuotaManager.Kind.FETCH, "User:alice", "app", 1 << 30, now),
        "no consumer quota");
    assertEquals(
        0,
        m.recordAndGetThrottleMs(ClientQuotaManager.Kind.PRODUCE, "User:bob", "app", 1 << 30, now),
        "bob has no quota");
  }

  @Test
  void ratesNobodyUsedForTheWholeSpanAreDropped() {
    MetadataImage image =
        image(
            new ClientQuotaEntity(null, ClientQuotaEntity.DEFAULT),
            ClientQuotaEntity.CONSUMER_BYTE_RATE,
            1000);
    ClientQuotaManager m = new ClientQuotaManager(() -> image, 11, 1000);
    for (int i = 0; i < 100; i++) {
      m.recordAndGetThrottleMs(ClientQuotaManager.Kind.FETCH, "User:a", "client-" + i, 10, 0);
    }
    assertEquals(100, m.rateCount(), "each client id its own rate under the default quota");
    m.recordAndGetThrottleMs(ClientQuotaManager.Kind.FETCH, "User:a", "late", 10, 30_000);
    assertEquals(1, m.rateCount(), "the idle ones are gone");
  }
}
