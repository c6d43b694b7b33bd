package dev.spool.quorum.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.UnregisterBrokerRequest;
import dev.spool.protocol.message.UnregisterBrokerResponse;
import dev.spool.quorum.image.ImageFixture;
import dev.spool.quorum.image.ImageSnapshots;
import dev.spool.quorum.image.MetadataDelta;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.BrokerRegistrationRequest;
import dev.spool.quorum.message.ControllerRequest;
import dev.spool.quorum.message.RecordResult;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * UnregisterBroker (docs/architecture.md#unregistering-a-broker): each refusal answers its code and
 * message and writes nothing; a dead broker with no replica leaves the image, stays gone through a
 * snapshot, and registers again as a new broker; the record is refused below metadata.version 3 by
 * the controller and by replay.
 */
@Tag("unit")
class UnregisterBrokerTest {
  private static final long SESSION_MS = Decisions.SETTINGS.sessionTimeoutMs();
  private static final long EXPIRED = SESSION_MS + 1;

  private ImageFixture fx;

  @BeforeEach
  void setUp() {
    start(MetadataVersion.LATEST);
  }

  /** Brokers 1..4; topic t on 1, 2, 3 only; broker 4 fenced (its session ran out). */
  private void start(int level) {
    fx = new ImageFixture();
    fx.apply(Records.featureLevel(MetadataVersion.FEATURE, level));
    fx.brokers(1, 2, 3, 4);
    fx.topic("t", List.of(List.of(1, 2, 3), List.of(2, 3, 1)));
    fx.fence(4);
  }

  private Decision decide(int id, Map<Integer, Long> ages) {
    return UnregisterDecisions.unregister(
        UnregisterBrokerRequest.newBuilder().setBrokerId(id).build(),
        fx.image(),
        ages::get,
        Decisions.SETTINGS);
  }

  /** Decides and commits as the state machine does; asserts a refusal wrote nothing. */
  private UnregisterBrokerResponse unregister(int id, Map<Integer, Long> ages) {
    MetadataImage before = fx.image();
    Decision d = decide(id, ages);
    UnregisterBrokerResponse resp = Decisions.commit(fx, d).getUnregisterBroker();
    if (resp.getErrorCode() != ErrorCode.NONE) {
      assertEquals(0, d.batch().getRecordsCount(), "a refusal writes nothing");
      assertEquals(before.brokers(), fx.image().brokers());
    }
    return resp;
  }

  private static void assertRefused(
      UnregisterBrokerResponse resp, ErrorCode code, String... phrases) {
    assertEquals(code, resp.getErrorCode(), resp.getErrorMessage());
    for (String p : phrases) {
      assertTrue(resp.getErrorMessage().contains(p), resp.getErrorMessage());
    }
  }

  @Test
  void aDeadBrokerWithNoReplicaLeavesTheImageAndStaysGoneThroughASnapshot() {
    long epoch = fx.image().broker(4).epoch();
    Decision d = decide(4, Map.of(4, EXPIRED));
    assertEquals(List.of(Records.unregisterBroker(4, epoch)), d.batch().getRecordsList());
    MetadataImage before = fx.image();
    UnregisterBrokerResponse resp = Decisions.commit(fx, d).getUnregisterBroker();
    assertEquals(ErrorCode.NONE, resp.getErrorCode(), resp.getErrorMessage());
    assertNull(fx.image().broker(4));
    assertEquals(List.of(1, 2, 3), fx.image().brokers().keySet().stream().sorted().toList());
    assertEquals(before.allPartitions(), fx.image().allPartitions(), "partitions untouched");
    assertTrue(
        MetadataDelta.between(before, fx.image(), false).changedBrokers().contains(4),
        "a broker's listener hears of the removal");

    MetadataImage restored = ImageSnapshots.fromSnapshot(ImageSnapshots.toSnapshot(fx.image()));
    assertNull(restored.broker(4), "the snapshot does not bring it back");
    assertEquals(fx.image().brokers(), restored.brokers());
    assertEquals(fx.image().metadataVersion(), restored.metadataVersion());
  }

  @Test
  void anUnknownOrNegativeIdIsRefused() {
    assertRefused(
        unregister(9, Map.of()), ErrorCode.BROKER_ID_NOT_REGISTERED, "no broker 9 is registered");
    assertRefused(unregister(-1, Map.of()), ErrorCode.INVALID_REQUEST, "-1");
  }

  @Test
  void anUnfencedBrokerIsRefusedAsAlive() {
    assertRefused(
        unregister(1, Map.of(1, EXPIRED)),
        ErrorCode.BROKER_ALIVE,
        "broker 1 is alive (unfenced)",
        "stop it first");
  }

  /** Fenced but still heartbeating (starting, or stopped moments ago): alive all the same. */
  @Test
  void aFencedBrokerStillWithinItsSessionIsRefusedAsAlive() {
    assertRefused(
        unregister(4, Map.of(4, SESSION_MS)),
        ErrorCode.BROKER_ALIVE,
        "broker 4 is fenced",
        "within its session timeout",
        "stop it first");
    assertRefused(
        unregister(4, Map.of()), ErrorCode.BROKER_ALIVE, "not yet tracked", "stop it first");
    assertNotNull(fx.image().broker(4));
  }

  @Test
  void aDeadBrokerStillNamedInReplicaSetsIsRefusedWithTheCountAndOnePartition() {
    fx.fence(3);
    assertRefused(
        unregister(3, Map.of(3, EXPIRED)),
        ErrorCode.BROKER_HAS_REPLICAS,
        "broker 3 is still a replica of 2 partitions (one is t-0)",
        "move its replicas off first");
    assertNotNull(fx.image().broker(3));
  }

  /**
   * The decision and the record's apply are apart in time: a broker given a replica in between
   * (here a replica-set change naming it) makes the record refuse itself on replay.
   */
  @Test
  void theRecordRefusesItselfWhenTheBrokerGotAReplicaAfterTheDecision() {
    Decision d = decide(4, Map.of(4, EXPIRED));
    PartitionState p0 = fx.image().partitions("t").get(0);
    fx.apply(Records.partitionChange(p0, p0.leader(), p0.isr(), List.of(1, 2, 3, 4)));
    UnregisterBrokerResponse resp = Decisions.commit(fx, d).getUnregisterBroker();
    assertRefused(resp, ErrorCode.BROKER_HAS_REPLICAS, "broker 4 is still a replica of 1");
    assertNotNull(fx.image().broker(4));
  }

  @Test
  void atLevel2TheControllerRefusesAndReplayRefusesTheRecord() {
    start(MetadataVersion.V2);
    assertRefused(
        unregister(4, Map.of(4, EXPIRED)),
        ErrorCode.UNSUPPORTED_VERSION,
        "needs metadata.version 3; the cluster is at 2",
        "spool features upgrade --metadata-version 3");
    long epoch = fx.image().broker(4).epoch();
    RecordResult raw = fx.apply(Records.unregisterBroker(4, epoch)).get(0);
    assertEquals(ErrorCode.INVALID_RECORD, raw.getErrorCode());
    assertTrue(raw.getErrorMessage().contains("needs metadata.version 3"), raw.getErrorMessage());
    assertNotNull(fx.image().broker(4), "refused at level 2, nothing changed");

    fx.apply(Records.featureLevel(MetadataVersion.FEATURE, MetadataVersion.V3));
    assertEquals(ErrorCode.NONE, unregister(4, Map.of(4, EXPIRED)).getErrorCode());
    assertNull(fx.image().broker(4));
  }

  /** Replay holds the structure whatever wrote the record: never an unfenced broker. */
  @Test
  void replayRefusesToRemoveAnUnfencedBrokerOrAStaleEpoch() {
    long epoch1 = fx.image().broker(1).epoch();
    assertEquals(
        ErrorCode.BROKER_ALIVE,
        fx.apply(Records.unregisterBroker(1, epoch1)).get(0).getErrorCode());
    long epoch4 = fx.image().broker(4).epoch();
    assertEquals(
        ErrorCode.STALE_BROKER_EPOCH,
        fx.apply(Records.unregisterBroker(4, epoch4 + 100)).get(0).getErrorCode());
    assertNotNull(fx.image().broker(1));
    assertNotNull(fx.image().broker(4));
  }

  /** The decision goes through the request envelope, as the state machine calls it. */
  @Test
  void theRequestDeciderPassesTheHeartbeatAgesOn() throws Exception {
    ControllerRequest req =
        ControllerRequest.newBuilder()
            .setUnregisterBroker(UnregisterBrokerRequest.newBuilder().setBrokerId(4))
            .build();
    Decision alive = RequestDecider.decide(req, fx.image(), 1, Decisions.SETTINGS, new Random(1));
    assertEquals(ErrorCode.BROKER_ALIVE, alive.reply().getUnregisterBroker().getErrorCode());
    Decision dead =
        RequestDecider.decide(
            req, fx.image(), 1, Decisions.SETTINGS, new Random(1), Map.of(4, EXPIRED)::get);
    assertEquals(1, dead.batch().getRecordsCount());
  }

  /** Kafka's behaviour: the same id started again registers as a new broker, fenced at first. */
  @Test
  void anUnregisteredBrokerThatComesBackRegistersAsNew() {
    long oldEpoch = fx.image().broker(4).epoch();
    assertEquals(ErrorCode.NONE, unregister(4, Map.of(4, EXPIRED)).getErrorCode());
    BrokerRegistrationRequest again =
        BrokerRegistrationRequest.newBuilder()
            .setBrokerId(4)
            .setIncarnationId("back-again")
            .setHost("host4")
            .setPort(9004)
            .setMinMetadataVersion(MetadataVersion.SUPPORTED.min())
            .setMaxMetadataVersion(MetadataVersion.SUPPORTED.max())
            .build();
    var reply =
        Decisions.commit(fx, BrokerDecisions.register(again, fx.image(), Decisions.SETTINGS));
    assertEquals(ErrorCode.NONE, reply.getRegister().getErrorCode());
    assertNotNull(fx.image().broker(4));
    assertTrue(fx.image().broker(4).fenced());
    assertTrue(fx.image().broker(4).epoch() > oldEpoch);
    assertTrue(fx.image().partitionsOnBroker(4).isEmpty(), "it holds nothing");
  }
}
