package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.image.ImageFixture;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.message.AllocateProducerIdsRequest;
import dev.spool.quorum.message.BrokerRegistrationRequest;
import dev.spool.quorum.message.ControllerReply;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class BrokerDecisionsTest {

  private static BrokerRegistrationRequest reg(int id, String incarnation) {
    return BrokerRegistrationRequest.newBuilder()
        .setBrokerId(id)
        .setIncarnationId(incarnation)
        .setHost("h")
        .setPort(9092)
        .setMinMetadataVersion(MetadataVersion.SUPPORTED.min())
        .setMaxMetadataVersion(MetadataVersion.SUPPORTED.max())
        .build();
  }

  @Test
  void shouldRegisterFencedWithTheEntryOffsetAsEpoch() {
    ImageFixture fx = new ImageFixture();
    ControllerReply r =
        Decisions.commit(fx, BrokerDecisions.register(reg(5, "a"), fx.image(), Decisions.SETTINGS));
    assertEquals(ErrorCode.NONE, r.getRegister().getErrorCode());
    assertEquals(fx.image().offset(), r.getRegister().getBrokerEpoch());
    assertEquals(fx.image().offset(), fx.image().broker(5).epoch());
    assertTrue(fx.image().broker(5).fenced());
  }

  @Test
  void shouldAnswerARetriedRegistrationWithTheSameEpochAndWriteNothing() {
    ImageFixture fx = new ImageFixture();
    long epoch =
        Decisions.commit(fx, BrokerDecisions.register(reg(5, "a"), fx.image(), Decisions.SETTINGS))
            .getRegister()
            .getBrokerEpoch();
    Decision again = BrokerDecisions.register(reg(5, "a"), fx.image(), Decisions.SETTINGS);
    assertEquals(0, again.batch().getRecordsCount());
    assertEquals(epoch, Decisions.commit(fx, again).getRegister().getBrokerEpoch());
  }

  @Test
  void shouldFenceTheOldIncarnationOfARestartedBrokerAndMoveItsLeaderships() {
    ImageFixture fx = new ImageFixture().brokers(1, 2, 3);
    fx.topic("t", List.of(List.of(1, 2, 3), List.of(2, 1, 3)));
    long oldEpoch = fx.image().broker(1).epoch();
    ControllerReply r =
        Decisions.commit(
            fx, BrokerDecisions.register(reg(1, "restarted"), fx.image(), Decisions.SETTINGS));
    long newEpoch = r.getRegister().getBrokerEpoch();
    assertTrue(newEpoch > oldEpoch);
    assertTrue(fx.image().broker(1).fenced());
    PartitionState p0 = fx.image().partition(new TopicPartition("t", 0));
    assertEquals(2, p0.leader());
    assertEquals(1, p0.leaderEpoch());
    assertEquals(List.of(2, 3), p0.isr());
    assertEquals(List.of(2, 3), fx.image().partition(new TopicPartition("t", 1)).isr());
  }

  @Test
  void shouldRejectARegistrationWithoutAnAddress() {
    ImageFixture fx = new ImageFixture();
    ControllerReply r =
        Decisions.commit(
            fx,
            BrokerDecisions.register(
                reg(1, "a").toBuilder().setHost("").build(), fx.image(), Decisions.SETTINGS));
    assertEquals(ErrorCode.INVALID_REQUEST, r.getRegister().getErrorCode());
    assertEquals(null, fx.image().broker(1));
  }

  @Test
  void shouldHandOutDisjointProducerIdBlocksAndRejectAStaleBroker() {
    ImageFixture fx = new ImageFixture().brokers(1);
    ControllerSettings s = QuorumConfig.defaultControllerSettings();
    AllocateProducerIdsRequest req =
        AllocateProducerIdsRequest.newBuilder()
            .setBrokerId(1)
            .setBrokerEpoch(fx.image().broker(1).epoch())
            .build();
    var a =
        Decisions.commit(fx, BrokerDecisions.allocateProducerIds(req, fx.image(), s))
            .getAllocateProducerIds();
    var b =
        Decisions.commit(fx, BrokerDecisions.allocateProducerIds(req, fx.image(), s))
            .getAllocateProducerIds();
    assertEquals(0, a.getProducerIdStart());
    assertEquals(1000, a.getProducerIdLen());
    assertEquals(1000, b.getProducerIdStart());
    // Two decisions on the same image: the second loses at apply time and says so.
    Decision c = BrokerDecisions.allocateProducerIds(req, fx.image(), s);
    Decision d = BrokerDecisions.allocateProducerIds(req, fx.image(), s);
    Decisions.commit(fx, c);
    assertEquals(
        ErrorCode.INVALID_UPDATE_VERSION,
        Decisions.commit(fx, d).getAllocateProducerIds().getErrorCode());
    var stale =
        Decisions.commit(
                fx,
                BrokerDecisions.allocateProducerIds(
                    req.toBuilder().setBrokerEpoch(999).build(), fx.image(), s))
            .getAllocateProducerIds();
    assertNotEquals(ErrorCode.NONE, stale.getErrorCode());
  }
}
