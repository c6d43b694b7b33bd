package dev.spool.broker.replication;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class VerifiedPrefixesTest {
  private static LogShadow shadow(long... crcs) {
    LogShadow s = new LogShadow();
    s.stale = false;
    for (int i = 0; i < crcs.length; i++) {
      s.batches.put((long) i * 10, new LogShadow.Batch(i * 10L + 9, crcs[i], 1, 7, i * 10));
    }
    return s;
  }

  @Test
  void checksOnlyWhatWasAddedSinceTheLastBoundAndStillSeesADifferenceThere() {
    LogShadow a = shadow(1, 2, 3);
    LogShadow b = shadow(1, 2, 3);
    VerifiedPrefixes v = new VerifiedPrefixes();
    assertTrue(v.equalBelow(a, b, 20));
    // A batch appended later that differs is found, though the prefix below 20 is not read again.
    a.batches.put(30L, new LogShadow.Batch(39, 4, 1, 7, 30));
    b.batches.put(30L, new LogShadow.Batch(39, 5, 1, 7, 30));
    assertTrue(v.equalBelow(a, b, 30));
    assertFalse(v.equalBelow(a, b, 40));
    // A failed check does not move the bound: asked again, it still fails.
    assertFalse(v.equalBelow(a, b, 40));
  }

  @Test
  void aShadowReadAfreshIsComparedWholeAgain() {
    LogShadow a = shadow(1, 2, 3);
    LogShadow b = shadow(1, 2, 3);
    VerifiedPrefixes v = new VerifiedPrefixes();
    assertTrue(v.equalBelow(a, b, 30));
    // Without a new generation a change below the bound is (by the shadow's contract) impossible;
    // with one, the whole prefix is compared and the change below the old bound is seen.
    b.batches.put(0L, new LogShadow.Batch(9, 99, 2, 7, 0));
    b.generation++;
    assertFalse(v.equalBelow(a, b, 30));
  }

  @Test
  void aBoundBelowOneAlreadyVerifiedStaysVerified() {
    LogShadow a = shadow(1, 2, 3);
    LogShadow b = shadow(1, 2, 3);
    VerifiedPrefixes v = new VerifiedPrefixes();
    assertTrue(v.equalBelow(a, b, 30));
    assertTrue(v.equalBelow(a, b, 10));
    assertTrue(v.equalBelow(a, b, 30));
  }
}
