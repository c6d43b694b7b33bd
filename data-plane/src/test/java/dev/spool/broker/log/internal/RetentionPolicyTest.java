package dev.spool.broker.log.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.spool.broker.log.internal.RetentionPolicy.SegmentInfo;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class RetentionPolicyTest {
  // Four segments of 100 bytes; newest timestamps 1000, 2000, 3000, 4000; the last is active.
  private static final List<SegmentInfo> SEGMENTS =
      List.of(
          new SegmentInfo(0, 100, 1000), new SegmentInfo(10, 100, 2000),
          new SegmentInfo(20, 100, 3000), new SegmentInfo(30, 100, 4000));

  @Test
  void deletesOldSegmentsByTimeInOrderAndStopsAtTheFirstYoungOne() {
    assertEquals(2, RetentionPolicy.segmentsToDelete(SEGMENTS, 1000, 1500, -1, 3600));
    assertEquals(0, RetentionPolicy.segmentsToDelete(SEGMENTS, 1000, 5000, -1, 3600));
  }

  @Test
  void deletesBySizeWhileWhatRemainsStaysAtOrAboveTheLimit() {
    assertEquals(1, RetentionPolicy.segmentsToDelete(SEGMENTS, 1000, -1, 250, 0));
    assertEquals(2, RetentionPolicy.segmentsToDelete(SEGMENTS, 1000, -1, 200, 0));
  }

  @Test
  void neverDeletesTheActiveSegmentNorAnythingNotBelowTheHighWatermark() {
    assertEquals(3, RetentionPolicy.segmentsToDelete(SEGMENTS, 1000, 0, -1, 1_000_000));
    assertEquals(1, RetentionPolicy.segmentsToDelete(SEGMENTS, 19, 0, -1, 1_000_000));
    assertEquals(0, RetentionPolicy.segmentsToDelete(SEGMENTS, 9, 0, 0, 1_000_000));
    assertEquals(0, RetentionPolicy.segmentsToDelete(SEGMENTS, 1000, -1, -1, 1_000_000));
  }
}
