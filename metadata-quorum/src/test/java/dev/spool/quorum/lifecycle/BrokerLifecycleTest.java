package dev.spool.quorum.lifecycle;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.ErrorCode;
import dev.spool.common.ManualClock;
import dev.spool.common.SpoolException;
import dev.spool.protocol.message.AlterConfigsRequest;
import dev.spool.protocol.message.AlterConfigsResponse;
import dev.spool.protocol.message.CreatePartitionsRequest;
import dev.spool.protocol.message.CreatePartitionsResponse;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.protocol.message.DeleteTopicsRequest;
import dev.spool.protocol.message.DeleteTopicsResponse;
import dev.spool.protocol.message.ElectLeadersRequest;
import dev.spool.protocol.message.ElectLeadersResponse;
import dev.spool.protocol.message.QuorumInfo;
import dev.spool.quorum.QuorumClient;
import dev.spool.quorum.image.MetadataDelta;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.AllocateProducerIdsRequest;
import dev.spool.quorum.message.AllocateProducerIdsResponse;
import dev.spool.quorum.message.AlterPartitionRequest;
import dev.spool.quorum.message.AlterPartitionResponse;
import dev.spool.quorum.message.BrokerHeartbeatRequest;
import dev.spool.quorum.message.BrokerHeartbeatResponse;
import dev.spool.quorum.message.BrokerRegistrationRequest;
import dev.spool.quorum.message.BrokerRegistrationResponse;
import dev.spool.quorum.message.MetadataBatch;
import dev.spool.quorum.message.OffsetBatch;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The broker lifecycle against a scripted quorum client (no Ratis). */
@Tag("unit")
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BrokerLifecycleTest {
  private static final BrokerLifecycle.Settings SETTINGS =
      new BrokerLifecycle.Settings(1, "h", 9092, "", 20, 5, 40);

  /** A quorum client whose register/heartbeat answers come from functions. */
  static final class ScriptedClient implements QuorumClient {
    Function<BrokerRegistrationRequest, CompletableFuture<BrokerRegistrationResponse>> register;
    Function<BrokerHeartbeatRequest, BrokerHeartbeatResponse> heartbeat;
    final List<BrokerHeartbeatRequest> heartbeats = new CopyOnWriteArrayList<>();
    final AtomicInteger registrations = new AtomicInteger();

    @Override
    public CompletableFuture<BrokerRegistrationResponse> register(BrokerRegistrationRequest r) {
      registrations.incrementAndGet();
      return register.apply(r);
    }

    @Override
    public CompletableFuture<BrokerHeartbeatResponse> heartbeat(BrokerHeartbeatRequest r) {
      heartbeats.add(r);
      return CompletableFuture.completedFuture(heartbeat.apply(r));
    }

    @Override
    public CompletableFuture<AlterPartitionResponse> alterPartition(AlterPartitionRequest r) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<CreateTopicsResponse> createTopics(CreateTopicsRequest r) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<CreatePartitionsResponse> createPartitions(CreatePartitionsRequest r) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<DeleteTopicsResponse> deleteTopics(DeleteTopicsRequest r) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<ElectLeadersResponse> electLeaders(ElectLeadersRequest r) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<AlterConfigsResponse> alterConfigs(AlterConfigsRequest r) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<dev.spool.protocol.message.AlterUserScramCredentialsResponse>
        alterUserScramCredentials(dev.spool.protocol.message.AlterUserScramCredentialsRequest r) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<dev.spool.protocol.message.CreateAclsResponse> createAcls(
        dev.spool.protocol.message.CreateAclsRequest r) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<dev.spool.protocol.message.DeleteAclsResponse> deleteAcls(
        dev.spool.protocol.message.DeleteAclsRequest r) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<dev.spool.protocol.message.AlterClientQuotasResponse>
        alterClientQuotas(dev.spool.protocol.message.AlterClientQuotasRequest r) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<dev.spool.protocol.message.UpdateFeaturesResponse> updateFeatures(
        dev.spool.protocol.message.UpdateFeaturesRequest r) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<dev.spool.protocol.message.UnregisterBrokerResponse> unregisterBroker(
        dev.spool.protocol.message.UnregisterBrokerRequest r) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<dev.spool.protocol.message.AlterPartitionReassignmentsResponse>
        alterPartitionReassignments(
            dev.spool.protocol.message.AlterPartitionReassignmentsRequest r) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<AllocateProducerIdsResponse> allocateProducerIds(
        AllocateProducerIdsRequest r) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<QuorumInfo> describeQuorum() {
      throw new UnsupportedOperationException();
    }

    @Override
    public void close() {}
  }

  record Recorder(List<BrokerState> states, List<MetadataDelta> deltas)
      implements MetadataListener {
    Recorder() {
      this(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>());
    }

    @Override
    public void onMetadataUpdate(dev.spool.quorum.image.MetadataImage image, MetadataDelta d) {
      deltas.add(d);
    }

    @Override
    public void onStateChange(BrokerState from, BrokerState to) {
      states.add(to);
    }
  }

  private static CompletableFuture<BrokerRegistrationResponse> epoch(long epoch) {
    return CompletableFuture.completedFuture(
        BrokerRegistrationResponse.newBuilder().setBrokerEpoch(epoch).build());
  }

  /** Offset 5: this broker's registration; offset 6: a topic. Unfenced from offset 6 on. */
  private static BrokerHeartbeatResponse controller(BrokerHeartbeatRequest r) {
    BrokerHeartbeatResponse.Builder b = BrokerHeartbeatResponse.newBuilder().setMetadataOffset(6);
    if (r.getMetadataOffset() < 5) {
      b.addBatches(
          OffsetBatch.newBuilder()
              .setOffset(5)
              .setBatch(
                  MetadataBatch.newBuilder()
                      .addRecords(Records.registerBroker(1, "x", "h", 9092, "", 0))));
    }
    if (r.getMetadataOffset() < 6) {
      b.addBatches(
          OffsetBatch.newBuilder()
              .setOffset(6)
              .setBatch(MetadataBatch.newBuilder().addRecords(Records.topic("t", "id-t"))));
    }
    return b.setIsCaughtUp(r.getMetadataOffset() >= 5)
        .setIsFenced(r.getMetadataOffset() < 6 || r.getWantFence())
        .setShouldShutdown(r.getWantShutdown())
        .build();
  }

  @Test
  void shouldRetryRegistrationThenReplayMetadataAndRunOnceUnfenced() {
    ScriptedClient c = new ScriptedClient();
    AtomicInteger attempts = new AtomicInteger();
    c.register =
        r ->
            attempts.incrementAndGet() < 3
                ? CompletableFuture.failedFuture(
                    new SpoolException(ErrorCode.QUORUM_UNAVAILABLE, "down"))
                : epoch(5);
    c.heartbeat = BrokerLifecycleTest::controller;
    Recorder rec = new Recorder();
    BrokerLifecycle b = new BrokerLifecycle(SETTINGS, c, rec);
    b.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> b.state() == BrokerState.RUNNING);
    assertEquals(3, c.registrations.get());
    assertEquals(5, b.brokerEpoch());
    assertEquals(
        List.of(BrokerState.REGISTERING, BrokerState.RECOVERING, BrokerState.RUNNING),
        rec.states());
    assertEquals(6, b.image().offset());
    assertTrue(b.image().topic("t") != null);
    assertTrue(rec.deltas().get(0).changedTopics().containsKey("t"));
    assertTrue(rec.deltas().get(0).changedBrokers().contains(1));
    b.halt();
  }

  /**
   * The broker has caught up once a heartbeat after its registration leaves no metadata waiting:
   * not while the controller still has batches for it ({@code more}), and with the offset it then
   * holds (what the broker waits for before it serves requests).
   */
  @Test
  void shouldReportTheInitialCatchUpOnceNoMoreMetadataWaits() throws Exception {
    ScriptedClient c = new ScriptedClient();
    c.register = r -> epoch(5);
    c.heartbeat =
        r ->
            r.getMetadataOffset() < 5
                ? BrokerHeartbeatResponse.newBuilder()
                    .setMetadataOffset(5)
                    .addBatches(
                        OffsetBatch.newBuilder()
                            .setOffset(5)
                            .setBatch(
                                MetadataBatch.newBuilder()
                                    .addRecords(Records.registerBroker(1, "x", "h", 9092, "", 0))))
                    .setIsCaughtUp(false)
                    .setIsFenced(true)
                    .setMore(true)
                    .build()
                : controller(r);
    List<Boolean> caughtUpAtEachUpdate = new CopyOnWriteArrayList<>();
    BrokerLifecycle[] b = new BrokerLifecycle[1];
    b[0] =
        new BrokerLifecycle(
            SETTINGS,
            c,
            new MetadataListener() {
              @Override
              public void onMetadataUpdate(
                  dev.spool.quorum.image.MetadataImage image, MetadataDelta d) {
                caughtUpAtEachUpdate.add(b[0].initialCatchUp().isDone());
              }

              @Override
              public void onStateChange(BrokerState from, BrokerState to) {}
            });
    assertFalse(b[0].initialCatchUp().isDone(), "not before the broker registered");
    b[0].start();
    assertEquals(6L, b[0].initialCatchUp().get(10, TimeUnit.SECONDS));
    assertEquals(List.of(false, false), caughtUpAtEachUpdate, "offset 5 (more waited), then 6");
    b[0].halt();
  }

  /**
   * A metadata.version level and a replication throttle change no topic, partition or broker, so
   * the delta is empty; the listener hears of them all the same (admin requests wait on it, and the
   * replica fetchers read the throttle from the image it passes).
   */
  @Test
  void shouldTellTheListenerOfALevelOrThrottleChangeThatTouchesNoTopicOrBroker() {
    ScriptedClient c = new ScriptedClient();
    c.register = r -> epoch(5);
    c.heartbeat =
        r -> {
          BrokerHeartbeatResponse.Builder b = controller(r).toBuilder();
          if (r.getMetadataOffset() >= 6) {
            b.setMetadataOffset(8);
          }
          if (r.getMetadataOffset() == 6) {
            b.addBatches(
                    OffsetBatch.newBuilder()
                        .setOffset(7)
                        .setBatch(
                            MetadataBatch.newBuilder()
                                .addRecords(
                                    Records.featureLevel(
                                        MetadataVersion.FEATURE, MetadataVersion.LATEST))))
                .addBatches(
                    OffsetBatch.newBuilder()
                        .setOffset(8)
                        .setBatch(
                            MetadataBatch.newBuilder()
                                .addRecords(Records.replicationThrottle(1000))));
          }
          return b.build();
        };
    Recorder rec = new Recorder();
    BrokerLifecycle b = new BrokerLifecycle(SETTINGS, c, rec);
    b.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> rec.deltas().size() == 2);
    assertEquals(1000, b.image().replicationThrottleBytesPerSec());
    assertEquals(MetadataVersion.LATEST, b.image().metadataVersion());
    assertTrue(rec.deltas().get(1).isEmpty(), rec.deltas().toString());
    b.halt();
  }

  /**
   * The leadership lease: granted by unfenced answers for the controller's lease_ms from the
   * heartbeat's send time, lapsing on the lifecycle's clock when answers stop, ended at once by a
   * fenced answer, back with the next granting answer.
   */
  @Test
  void shouldHoldTheLeadershipLeaseOnlyWhileTheControllerAnswersInTime() {
    ManualClock clock = new ManualClock(1_000);
    ScriptedClient c = new ScriptedClient();
    c.register = r -> epoch(5);
    AtomicBoolean reachable = new AtomicBoolean(true);
    AtomicBoolean fence = new AtomicBoolean(false);
    AtomicInteger answered = new AtomicInteger();
    c.heartbeat =
        r -> {
          if (!reachable.get()) {
            return BrokerHeartbeatResponse.newBuilder()
                .setErrorCode(ErrorCode.QUORUM_UNAVAILABLE)
                .build();
          }
          BrokerHeartbeatResponse resp = controller(r);
          boolean fenced = resp.getIsFenced() || fence.get();
          answered.incrementAndGet();
          return resp.toBuilder().setIsFenced(fenced).setLeaseMs(fenced ? 0 : 300).build();
        };
    BrokerLifecycle.Settings settings =
        new BrokerLifecycle.Settings(1, "h", 9092, "", 20, 5, 40, null, 400);
    BrokerLifecycle b = new BrokerLifecycle(settings, c, new Recorder(), clock);
    assertFalse(b.holdsLeadershipLease(), "no lease before registering");
    b.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> b.state() == BrokerState.RUNNING);
    await().atMost(Duration.ofSeconds(10)).until(b::holdsLeadershipLease);

    reachable.set(false);
    clock.advanceMs(299);
    assertTrue(b.holdsLeadershipLease(), "within lease_ms (300, shorter than the session 400)");
    clock.advanceMs(1);
    assertFalse(b.holdsLeadershipLease(), "300 ms after the last answered heartbeat was sent");
    assertTrue(answered.get() > 0);

    reachable.set(true);
    await().atMost(Duration.ofSeconds(10)).until(b::holdsLeadershipLease);

    fence.set(true);
    await().atMost(Duration.ofSeconds(10)).until(() -> !b.holdsLeadershipLease());
    fence.set(false);
    await().atMost(Duration.ofSeconds(10)).until(b::holdsLeadershipLease);
    b.halt();
  }

  @Test
  void shouldRegisterAgainWhenTheQuorumForgotTheRegistration() {
    ScriptedClient c = new ScriptedClient();
    AtomicInteger regs = new AtomicInteger();
    c.register = r -> epoch(regs.incrementAndGet() == 1 ? 5 : 9);
    c.heartbeat =
        r ->
            r.getBrokerEpoch() == 5
                ? BrokerHeartbeatResponse.newBuilder()
                    .setErrorCode(ErrorCode.STALE_BROKER_EPOCH)
                    .build()
                : controller(r);
    Recorder rec = new Recorder();
    BrokerLifecycle b = new BrokerLifecycle(SETTINGS, c, rec);
    b.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> b.state() == BrokerState.RUNNING);
    assertEquals(9, b.brokerEpoch());
    assertTrue(
        rec.states().indexOf(BrokerState.REGISTERING)
            != rec.states().lastIndexOf(BrokerState.REGISTERING),
        "registered twice: " + rec.states());
    b.halt();
  }

  @Test
  void shouldHeartbeatWithWantShutdownUntilTheControllerConfirmsAndFenceItselfOnClose()
      throws Exception {
    ScriptedClient c = new ScriptedClient();
    c.register = r -> epoch(5);
    c.heartbeat = BrokerLifecycleTest::controller;
    BrokerLifecycle b = new BrokerLifecycle(SETTINGS, c, new Recorder());
    b.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> b.state() == BrokerState.RUNNING);
    assertTrue(b.controlledShutdown(5000));
    assertEquals(BrokerState.SHUTTING_DOWN, b.state());
    assertTrue(c.heartbeats.stream().anyMatch(BrokerHeartbeatRequest::getWantShutdown));
    b.close();
    BrokerHeartbeatRequest last = c.heartbeats.get(c.heartbeats.size() - 1);
    assertTrue(last.getWantFence(), "the last heartbeat asks to be fenced");
  }

  /**
   * A controlled shutdown with no controller answering (the rest of the cluster stopped too) ends
   * after two session timeouts of silence rather than after the whole controlled-shutdown timeout;
   * silence shorter than that keeps it waiting for the hand-over.
   */
  @Test
  void shouldGiveUpTheHandOverAfterTwoSessionsWithoutAnAnswer() throws Exception {
    ManualClock clock = new ManualClock(1_000);
    ScriptedClient c = new ScriptedClient();
    c.register = r -> epoch(5);
    AtomicBoolean reachable = new AtomicBoolean(true);
    c.heartbeat =
        r ->
            reachable.get() && !r.getWantShutdown()
                ? controller(r)
                : BrokerHeartbeatResponse.newBuilder()
                    .setErrorCode(ErrorCode.QUORUM_UNAVAILABLE)
                    .build();
    BrokerLifecycle.Settings settings =
        new BrokerLifecycle.Settings(1, "h", 9092, "", 20, 5, 40, null, 400);
    BrokerLifecycle b = new BrokerLifecycle(settings, c, new Recorder(), clock);
    b.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> b.state() == BrokerState.RUNNING);
    reachable.set(false);
    CompletableFuture<Boolean> handedOver =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return b.controlledShutdown(60_000);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> b.state() == BrokerState.PENDING_CONTROLLED_SHUTDOWN);
    clock.advanceMs(799);
    int asked = c.heartbeats.size();
    await().atMost(Duration.ofSeconds(10)).until(() -> c.heartbeats.size() > asked + 3);
    assertFalse(handedOver.isDone(), "799 ms of silence is not yet two sessions");
    assertEquals(BrokerState.PENDING_CONTROLLED_SHUTDOWN, b.state());
    clock.advanceMs(1);
    assertFalse(handedOver.get(10, TimeUnit.SECONDS), "given up, not confirmed");
    assertEquals(BrokerState.SHUTTING_DOWN, b.state());
    b.halt();
  }

  @Test
  void shouldStayFencedWhileAskedTo() {
    ScriptedClient c = new ScriptedClient();
    c.register = r -> epoch(5);
    c.heartbeat = BrokerLifecycleTest::controller;
    BrokerLifecycle b = new BrokerLifecycle(SETTINGS, c, new Recorder());
    b.setWantFence(true);
    b.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> c.heartbeats.size() > 5);
    assertEquals(BrokerState.RECOVERING, b.state());
    assertTrue(b.isFenced());
    b.setWantFence(false);
    await().atMost(Duration.ofSeconds(10)).until(() -> b.state() == BrokerState.RUNNING);
    b.halt();
  }
}
