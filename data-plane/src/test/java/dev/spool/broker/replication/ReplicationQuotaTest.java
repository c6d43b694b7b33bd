package dev.spool.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ManualClock;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReplicationQuotaTest {
  private final ManualClock clock = new ManualClock(1_000_000L);
  private final AtomicLong rate = new AtomicLong(1000);
  private final ReplicationQuota quota = new ReplicationQuota(clock, rate::get);

  @Test
  void startsWithOneBurstAndGoesIntoDebtPastIt() {
    assertEquals(1000, quota.tokens());
    quota.record(600);
    assertEquals(0, quota.delayMs());
    quota.record(600); // the answer is already here: counted, the bucket goes negative
    assertEquals(-200, quota.tokens());
    assertEquals(200, quota.delayMs());
    assertEquals(1200, quota.throttledBytesTotal());
  }

  @Test
  void refillsAtTheRateAndPaysTheDebtBackExactlyWhenDelayMsSays() {
    quota.record(3000);
    assertEquals(2000, quota.delayMs());
    clock.advanceMs(1500);
    assertEquals(-500, quota.tokens());
    assertEquals(500, quota.delayMs());
    clock.advanceMs(499);
    assertEquals(1, quota.delayMs());
    clock.advanceMs(1);
    assertEquals(0, quota.delayMs());
    assertEquals(0, quota.tokens());
  }

  @Test
  void neverHoldsMoreThanOneBurst() {
    clock.advanceMs(60_000);
    assertEquals(1000, quota.tokens());
    quota.record(1000);
    clock.advanceMs(10_000);
    assertEquals(1000, quota.tokens());
  }

  @Test
  void rateChangedAtRuntimeAppliesFromThen() {
    quota.record(1000); // empty
    clock.advanceMs(500); // +500 at 1000 B/s
    rate.set(4000);
    assertEquals(500, quota.tokens());
    clock.advanceMs(250); // +1000 at 4000 B/s
    assertEquals(1500, quota.tokens());
    quota.record(3500);
    assertEquals(500, quota.delayMs()); // 2000 B of debt at 4000 B/s
    rate.set(100); // a lower throttle caps the level at its burst and pays back slower
    assertEquals(20_000, quota.delayMs());
  }

  @Test
  void aLowerRateCapsTheLevelAtItsBurst() {
    rate.set(100);
    assertEquals(100, quota.tokens());
  }

  @Test
  void rateZeroIsUnthrottledAndForgetsTheBucket() {
    quota.record(5000);
    assertEquals(4000, quota.delayMs());
    rate.set(0);
    assertEquals(0, quota.bytesPerSec());
    assertEquals(0, quota.delayMs());
    quota.record(1_000_000); // not counted: nothing is throttled
    assertEquals(5000, quota.throttledBytesTotal());
    assertEquals(1 << 20, quota.partitionMaxBytes(1 << 20, 3));
    rate.set(1000); // a new throttle starts with a full burst, the old debt is gone
    assertEquals(0, quota.delayMs());
    assertEquals(1000, quota.tokens());
  }

  @Test
  void negativeRateCountsAsNone() {
    rate.set(-5);
    assertEquals(0, quota.bytesPerSec());
    quota.record(10);
    assertEquals(0, quota.delayMs());
    assertEquals(0, quota.throttledBytesTotal());
  }

  @Test
  void partitionMaxBytesIsAShareOfOneBurstCappedByTheNormalMax() {
    assertEquals(1000, quota.partitionMaxBytes(1 << 20, 1));
    assertEquals(250, quota.partitionMaxBytes(1 << 20, 4));
    assertEquals(600, quota.partitionMaxBytes(600, 1));
    assertEquals(1, quota.partitionMaxBytes(1 << 20, 5000)); // the leader sends one batch
    rate.set(100L << 20);
    assertEquals(1 << 20, quota.partitionMaxBytes(1 << 20, 10));
  }

  @Test
  void longRunRateMatchesTheThrottle() {
    // A follower that always wants more: it fetches whenever the bucket is out of debt, each
    // answer bringing its max bytes; the bytes over 60 s stay within the rate plus one burst and
    // one answer's overshoot.
    rate.set(10_000);
    long received = 0;
    long endMs = 60_000;
    for (long t = 0; t < endMs; ) {
      long delay = quota.delayMs();
      if (delay > 0) {
        clock.advanceMs(delay);
        t += delay;
        continue;
      }
      int bytes = quota.partitionMaxBytes(1 << 20, 1) + 300; // one batch past the max
      quota.record(bytes);
      received += bytes;
      clock.advanceMs(5); // round trip
      t += 5;
    }
    double perSec = received / 60.0;
    assertTrue(perSec >= 9_000.0 && perSec <= 11_000.0, perSec + " B/s");
    assertEquals(received, quota.throttledBytesTotal());
  }
}
