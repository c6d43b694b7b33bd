package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.spool.common.ErrorCode;
import dev.spool.common.ManualClock;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.message.ControllerHeartbeatRequest;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The active controller's memory of each controller's supported metadata.version range
 * (docs/architecture.md#versioned-metadata): its own from its settings, the others' from their
 * controller heartbeats, and what a bad heartbeat gets.
 */
@Tag("unit")
class ActiveControllerRangesTest {
  private static final ControllerSettings V1_TO_3 =
      Decisions.SETTINGS.withMetadataVersions(new MetadataVersion.Range(1, 3));

  private final ManualClock clock = new ManualClock(1_000_000);

  private ActiveController controller() {
    return new ActiveController(
        1,
        7,
        V1_TO_3,
        100,
        clock,
        new MetadataFeed(16, MetadataImage.EMPTY),
        (term, reason, batch) -> new CompletableFuture<>(),
        () -> true);
  }

  private static ControllerHeartbeatRequest beat(int id, int min, int max) {
    return ControllerHeartbeatRequest.newBuilder()
        .setNodeId(id)
        .setMinMetadataVersion(min)
        .setMaxMetadataVersion(max)
        .build();
  }

  @Test
  void knowsItsOwnRangeAndEachReportedOneWithItsAge() throws Exception {
    try (ActiveController a = controller()) {
      assertEquals(new MetadataVersion.Range(1, 3), a.controllerRange(1), "its own, from settings");
      assertNull(a.controllerRange(4), "not reported yet");
      assertEquals(1, a.controllerHeartbeat(beat(4, 1, 2)).getControllerId());
      clock.advanceMs(300);
      a.controllerHeartbeat(beat(5, 2, 4));
      clock.advanceMs(200);
      assertEquals(new MetadataVersion.Range(1, 2), a.controllerRange(4));
      assertEquals(
          Map.of(
              1, new ActiveController.ControllerRange(new MetadataVersion.Range(1, 3), 0),
              4, new ActiveController.ControllerRange(new MetadataVersion.Range(1, 2), 500),
              5, new ActiveController.ControllerRange(new MetadataVersion.Range(2, 4), 200)),
          a.controllerRanges());
      a.controllerHeartbeat(beat(4, 1, 3));
      assertEquals(new MetadataVersion.Range(1, 3), a.controllerRange(4), "the latest report wins");
      a.controllerHeartbeat(beat(1, 1, 1));
      assertEquals(
          new MetadataVersion.Range(1, 3), a.controllerRange(1), "its own comes from its settings");
    }
  }

  @Test
  void aBadReportIsRefusedAndRecordsNothing() {
    try (ActiveController a = controller()) {
      for (ControllerHeartbeatRequest bad :
          new ControllerHeartbeatRequest[] {
            beat(4, 0, 0),
            beat(4, 3, 2),
            beat(-1, 1, 2),
            ControllerHeartbeatRequest.getDefaultInstance()
          }) {
        RequestRejectedException e =
            assertThrows(RequestRejectedException.class, () -> a.controllerHeartbeat(bad));
        assertEquals(ErrorCode.INVALID_REQUEST, e.errorCode(), e.getMessage());
      }
      assertEquals(Map.of(1, a.controllerRanges().get(1)), a.controllerRanges());
    }
  }

  @Test
  void aNewActiveControllerStartsWithOnlyItsOwnRange() throws Exception {
    try (ActiveController before = controller()) {
      before.controllerHeartbeat(beat(4, 1, 2));
    }
    try (ActiveController next = controller()) {
      assertNull(next.controllerRange(4));
      assertEquals(1, next.controllerRanges().size());
    }
  }
}
