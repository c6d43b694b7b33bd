package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.spool.common.ErrorCode;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.image.ImageFixture;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.BrokerHeartbeatRequest;
import dev.spool.quorum.message.ControllerReply;
import dev.spool.quorum.message.ControllerRequest;
import dev.spool.quorum.message.ControllerWriteRequest;
import dev.spool.quorum.message.MetadataBatch;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class RequestDeciderTest {
  private final ImageFixture fx = new ImageFixture().brokers(1);
  private final ControllerSettings s = QuorumConfig.defaultControllerSettings();

  private static ControllerRequest controllerWrite(
      long term, dev.spool.quorum.message.MetadataRecord... records) {
    return ControllerRequest.newBuilder()
        .setControllerWrite(
            ControllerWriteRequest.newBuilder()
                .setTerm(term)
                .setBatch(MetadataBatch.newBuilder().addAllRecords(java.util.List.of(records))))
        .build();
  }

  @Test
  void shouldRefuseAnEmptyRequestAndAReadOnlyRequestSentAsAWrite() {
    RequestRejectedException empty =
        assertThrows(
            RequestRejectedException.class,
            () ->
                RequestDecider.decide(
                    ControllerRequest.getDefaultInstance(), fx.image(), 3, s, new Random(1)));
    assertEquals(ErrorCode.INVALID_REQUEST, empty.errorCode());
    RequestRejectedException heartbeat =
        assertThrows(
            RequestRejectedException.class,
            () ->
                RequestDecider.decide(
                    ControllerRequest.newBuilder()
                        .setHeartbeat(BrokerHeartbeatRequest.getDefaultInstance())
                        .build(),
                    fx.image(),
                    3,
                    s,
                    new Random(1)));
    assertEquals(ErrorCode.INVALID_REQUEST, heartbeat.errorCode());
  }

  @Test
  void shouldRefuseAControllerWriteWithARecordThatWouldEscapeTheDataDir() {
    ControllerRequest hostile =
        controllerWrite(3, Records.topic("fine", "id-1"), Records.topic("../../etc", "id-2"));
    RequestRejectedException e =
        assertThrows(
            RequestRejectedException.class,
            () -> RequestDecider.decide(hostile, fx.image(), 3, s, new Random(1)));
    assertEquals(ErrorCode.INVALID_TOPIC, e.errorCode());
    org.junit.jupiter.api.Assertions.assertTrue(
        e.getMessage().contains("record 1"), e.getMessage());
  }

  @Test
  void shouldRefuseAControllerWriteDecidedInAnotherTerm() {
    ControllerRequest late =
        controllerWrite(2, Records.fenceBroker(1, fx.image().broker(1).epoch()));
    RequestRejectedException e =
        assertThrows(
            RequestRejectedException.class,
            () -> RequestDecider.decide(late, fx.image(), 3, s, new Random(1)));
    assertEquals(ErrorCode.NOT_CONTROLLER, e.errorCode());
  }

  @Test
  void shouldReportEachRecordOfAControllerWrite() throws Exception {
    long epoch = fx.image().broker(1).epoch();
    ControllerRequest w =
        controllerWrite(3, Records.fenceBroker(1, epoch), Records.fenceBroker(1, epoch + 100));
    ControllerReply r =
        Decisions.commit(fx, RequestDecider.decide(w, fx.image(), 3, s, new Random(1)));
    assertEquals(ErrorCode.NONE, r.getControllerWrite().getResults(0).getErrorCode());
    assertEquals(ErrorCode.STALE_BROKER_EPOCH, r.getControllerWrite().getResults(1).getErrorCode());
  }
}
