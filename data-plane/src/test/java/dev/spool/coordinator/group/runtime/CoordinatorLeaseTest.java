package dev.spool.coordinator.group.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.spool.broker.BrokerConfig;
import dev.spool.broker.request.HandlerTestBroker;
import dev.spool.common.ErrorCode;
import dev.spool.common.ManualClock;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.CoordinatorLocation;
import dev.spool.coordinator.group.api.HeartbeatRequest;
import dev.spool.coordinator.group.api.HeartbeatResult;
import dev.spool.coordinator.group.api.OffsetAndMetadata;
import dev.spool.coordinator.group.api.OffsetCommitRequest;
import dev.spool.coordinator.group.api.OffsetFetchRequest;
import dev.spool.coordinator.group.api.OffsetFetchResult;
import dev.spool.coordinator.group.api.PartitionResult;
import dev.spool.quorum.image.Records;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The group coordinator and the broker's leadership lease: a broker that lost its lease (no word
 * from the active controller within its session timeout) may already have been replaced as the
 * leader of its offsets partitions, so it answers as a non-coordinator (NOT_COORDINATOR, and
 * COORDINATOR_NOT_AVAILABLE when asked where the coordinator is) and changes nothing, until the
 * lease is held again.
 */
@Tag("unit")
class CoordinatorLeaseTest {
  private static final String OFFSETS_ID = "6b1d0c8e-2f4a-4c1e-9a7b-3d5e6f708192";
  // HandlerTestBroker: broker 1 leads orders-0.
  private static final TopicPartition ORDERS = new TopicPartition("orders", 0);

  @TempDir Path dir;
  private final AtomicBoolean held = new AtomicBoolean(true);
  private HandlerTestBroker broker;
  private GroupCoordinator coordinator;

  @BeforeEach
  void setUp() {
    broker = new HandlerTestBroker(dir, new ManualClock(System.currentTimeMillis()));
    broker.replicas().setLeadershipLease(held::get);
    CoordinatorConfig d = BrokerConfig.coordinatorConfig(BrokerConfig.DEF.defaults());
    coordinator =
        new GroupCoordinator(
            1,
            new CoordinatorConfig(
                1,
                1,
                d.offsetsTopicSegmentBytes(),
                d.commitTimeoutMs(),
                d.loadBufferBytes(),
                d.groups()),
            broker.replicas(),
            broker.ctx().timer(),
            broker.ctx().clock(),
            (name, partitions, rf, configs) -> new CompletableFuture<>());
    // Broker 1 alone in the ISR of the offsets topic's one partition (min.insync.replicas 1): it
    // coordinates every group and its records commit at once.
    broker.replicas().setObserver(coordinator);
    broker.apply(
        Records.topic(OffsetsTopic.NAME, OFFSETS_ID),
        Records.partition(OFFSETS_ID, 0, List.of(1, 2, 3), List.of(1), 1, 0, 0),
        Records.config(OFFSETS_ID, "min.insync.replicas", "1"));
    broker.publish();
    TopicPartition offsets = new TopicPartition(OffsetsTopic.NAME, 0);
    Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> coordinator.isLoaded(offsets));
  }

  @AfterEach
  void tearDown() {
    broker.close();
  }

  private static HeartbeatRequest heartbeat(String member, int epoch) {
    return new HeartbeatRequest(
        "g",
        member,
        epoch,
        null,
        null,
        epoch == 0 ? 30_000 : null,
        epoch == 0 ? List.of("orders") : null,
        null,
        null,
        epoch == 0 ? Set.of() : null,
        "client",
        "/127.0.0.1");
  }

  private Map<TopicPartition, PartitionResult> commit(String group, long offset) throws Exception {
    return coordinator
        .commitOffsets(
            new OffsetCommitRequest(
                group, "", -1, Map.of(ORDERS, new OffsetAndMetadata(offset, 0, "", 0))))
        .get(10, TimeUnit.SECONDS);
  }

  private OffsetFetchResult fetch(String group) throws Exception {
    return coordinator
        .fetchOffsets(new OffsetFetchRequest(group, "", -1, List.of(ORDERS)))
        .get(10, TimeUnit.SECONDS);
  }

  @Test
  void withoutItsLeaseTheBrokerAnswersAsANonCoordinatorAndChangesNothing() throws Exception {
    HeartbeatResult joined = coordinator.heartbeat(heartbeat("m1", 0)).get(10, TimeUnit.SECONDS);
    assertEquals(ErrorCode.NONE, joined.error(), joined.message());
    assertEquals(ErrorCode.NONE, commit("offsets-only", 7).get(ORDERS).error());

    held.set(false);
    HeartbeatResult hb =
        coordinator.heartbeat(heartbeat("m1", joined.memberEpoch())).get(10, TimeUnit.SECONDS);
    assertEquals(ErrorCode.NOT_COORDINATOR, hb.error(), hb.message());
    assertEquals(
        ErrorCode.NOT_COORDINATOR,
        coordinator.heartbeat(heartbeat("m2", 0)).get(10, TimeUnit.SECONDS).error(),
        "no member joins either");
    assertEquals(ErrorCode.NOT_COORDINATOR, commit("offsets-only", 9).get(ORDERS).error());
    assertEquals(ErrorCode.NOT_COORDINATOR, fetch("offsets-only").error());
    CoordinatorLocation where = coordinator.findCoordinators(List.of("g")).get(0);
    assertEquals(ErrorCode.COORDINATOR_NOT_AVAILABLE, where.error(), where.message());

    held.set(true);
    assertEquals(1, coordinator.findCoordinators(List.of("g")).get(0).nodeId());
    HeartbeatResult back =
        coordinator.heartbeat(heartbeat("m1", joined.memberEpoch())).get(10, TimeUnit.SECONDS);
    assertEquals(ErrorCode.NONE, back.error(), back.message());
    assertEquals(joined.memberEpoch(), back.memberEpoch(), "m1 is still the only member");
    assertEquals(7, fetch("offsets-only").offsets().get(ORDERS).offset(), "the refused commit");
  }
}
