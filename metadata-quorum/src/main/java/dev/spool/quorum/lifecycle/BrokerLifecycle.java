package dev.spool.quorum.lifecycle;

import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.HostPort;
import dev.spool.config.Config;
import dev.spool.quorum.QuorumClient;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.image.ImageBuilder;
import dev.spool.quorum.image.ImageSnapshots;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataDelta;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.message.BrokerHeartbeatRequest;
import dev.spool.quorum.message.BrokerHeartbeatResponse;
import dev.spool.quorum.message.BrokerRegistrationRequest;
import dev.spool.quorum.message.BrokerRegistrationResponse;
import dev.spool.quorum.message.OffsetBatch;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker side of the metadata quorum: registers (retrying with backoff), heartbeats every
 * {@code broker.heartbeat.interval.ms}, replays the metadata batches each answer carries into its
 * own image with the same {@link MetadataApplier} the controllers use (or replaces the image with a
 * full image when it was too far behind), and tells a {@link MetadataListener}. States: {@link
 * BrokerState}.
 *
 * <p>Threading: registration, heartbeats, replay and listener calls happen on this object's own
 * thread ("broker-lifecycle-&lt;id&gt;"). {@link #image()}, {@link #state()}, {@link
 * #brokerEpoch()} and {@link #isFenced()} may be read from any thread (published through volatile
 * fields; images are immutable).
 */
public final class BrokerLifecycle implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BrokerLifecycle.class);

  /**
   * @param retryBackoffMs first pause between registration attempts (doubles up to {@code
   *     registrationBackoffMaxMs})
   * @param kafkaEndpoint the advertised Kafka-protocol listener, registered with the broker; null
   *     when it has none
   * @param sessionTimeoutMs this broker's {@code broker.session.timeout.ms}: the longest leadership
   *     lease one heartbeat answer grants ({@link LeadershipLease})
   */
  public record Settings(
      int brokerId,
      String host,
      int port,
      String rack,
      long heartbeatIntervalMs,
      long retryBackoffMs,
      long registrationBackoffMaxMs,
      HostPort kafkaEndpoint,
      long sessionTimeoutMs) {

    public Settings(
        int brokerId,
        String host,
        int port,
        String rack,
        long heartbeatIntervalMs,
        long retryBackoffMs,
        long registrationBackoffMaxMs) {
      this(
          brokerId,
          host,
          port,
          rack,
          heartbeatIntervalMs,
          retryBackoffMs,
          registrationBackoffMaxMs,
          null,
          QuorumConfig.SESSION_TIMEOUT_MS.defaultValue());
    }

    /** These settings with a Kafka-protocol listener to register. */
    public Settings withKafkaEndpoint(HostPort endpoint) {
      return new Settings(
          brokerId,
          host,
          port,
          rack,
          heartbeatIntervalMs,
          retryBackoffMs,
          registrationBackoffMaxMs,
          endpoint,
          sessionTimeoutMs);
    }

    public static Settings of(int brokerId, String host, int port, String rack, Config quorum) {
      return new Settings(
          brokerId,
          host,
          port,
          rack == null ? "" : rack,
          quorum.get(QuorumConfig.HEARTBEAT_INTERVAL_MS),
          quorum.get(QuorumConfig.CLIENT_RETRY_BACKOFF_MS),
          quorum.get(QuorumConfig.REGISTRATION_BACKOFF_MAX_MS),
          null,
          quorum.get(QuorumConfig.SESSION_TIMEOUT_MS));
    }
  }

  private final Settings settings;
  private final Clock clock;
  private final LeadershipLease lease;
  private final QuorumClient client;
  private final MetadataListener listener;
  private final String incarnationId = UUID.randomUUID().toString();
  private final ScheduledExecutorService thread;
  private final CompletableFuture<Boolean> shutdownHandedOver = new CompletableFuture<>();
  private final CompletableFuture<Long> initialCatchUp = new CompletableFuture<>();

  private volatile BrokerState state = BrokerState.STARTING;
  private volatile MetadataImage image = MetadataImage.EMPTY;
  private volatile long brokerEpoch = -1;
  private volatile boolean fenced = true;
  private volatile int activeControllerId = -1;
  private volatile boolean wantFence;
  private volatile boolean wantShutdown;
  private volatile Supplier<List<String>> offlineDirs = List::of;
  private volatile Supplier<List<Integer>> unreachableLeaders = List::of;
  // lifecycle thread only:
  private boolean heartbeatInFlight;
  private long registrationBackoffMs;

  /** Monotonic ms of the last answered heartbeat (or of the shutdown request, if later). */
  private long lastAnswerMs = Long.MIN_VALUE;

  private ScheduledFuture<?> heartbeats;

  public BrokerLifecycle(Settings settings, QuorumClient client, MetadataListener listener) {
    this(settings, client, listener, Clock.SYSTEM);
  }

  /**
   * @param clock the monotonic clock of the leadership lease
   */
  public BrokerLifecycle(
      Settings settings, QuorumClient client, MetadataListener listener, Clock clock) {
    this.settings = settings;
    this.clock = clock;
    this.lease = new LeadershipLease(settings.sessionTimeoutMs());
    this.client = client;
    this.listener = listener;
    this.registrationBackoffMs = settings.retryBackoffMs();
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "broker-lifecycle-" + settings.brokerId());
              t.setDaemon(true);
              return t;
            });
  }

  // ---------------------------------------------------------------- reads (any thread)

  public MetadataImage image() {
    return image;
  }

  /**
   * Completes, on the lifecycle thread, with the metadata offset this broker has replayed when the
   * first heartbeat after its registration answers with no more metadata waiting: the broker has
   * caught up with what the controller had (Kafka's initial catch-up; fenced or not). Until then
   * its image may lack topics and ACLs the cluster has, so the broker holds client requests
   * (docs/security.md#a-restarted-broker-serves-once-caught-up).
   */
  public CompletableFuture<Long> initialCatchUp() {
    return initialCatchUp;
  }

  public BrokerState state() {
    return state;
  }

  /** The current registration's epoch, -1 before the first registration. */
  public long brokerEpoch() {
    return brokerEpoch;
  }

  /** The active controller as of the last answered heartbeat, or -1 before the first. */
  public int activeControllerId() {
    return activeControllerId;
  }

  /** As the controller last answered: a fenced broker must not lead or join ISRs. */
  public boolean isFenced() {
    return fenced;
  }

  /**
   * Whether this broker may act as a partition leader now: the active controller answered a
   * heartbeat sent less than a session timeout ago ({@link LeadershipLease}). Any thread.
   */
  public boolean holdsLeadershipLease() {
    return lease.isHeld(clock.monotonicMs());
  }

  public int brokerId() {
    return settings.brokerId();
  }

  public String incarnationId() {
    return incarnationId;
  }

  // ---------------------------------------------------------------- control

  /** Starts registering and heartbeating. */
  public void start() {
    thread.execute(
        () -> {
          transitionTo(BrokerState.REGISTERING, "start");
          register();
        });
  }

  /**
   * Where heartbeats read the data directories that failed on this broker (KIP-858's offline log
   * dirs): the controller records them and moves this broker's replicas there out of leaderships
   * and ISRs. Any thread; read on every heartbeat.
   */
  public void setOfflineDirs(Supplier<List<String>> dirs) {
    this.offlineDirs = dirs;
  }

  /**
   * Where heartbeats read the partition leaders this broker follows but cannot fetch from (its
   * fetches to them unanswered for {@code replica.silent.time.max.ms}): evidence the controller
   * uses to move leaderships away from a leader its followers cannot reach. Any thread; read on
   * every heartbeat.
   */
  public void setUnreachableLeaders(Supplier<List<Integer>> leaders) {
    this.unreachableLeaders = leaders;
  }

  /** While true, heartbeats ask to stay fenced (e.g. while log recovery runs). */
  public void setWantFence(boolean want) {
    this.wantFence = want;
  }

  /**
   * Asks the quorum to move this broker's leaderships away and drop it from ISRs; heartbeats with
   * wantShutdown until the controller answers shouldShutdown or {@code timeoutMs} passes. Gives up
   * early when no heartbeat has been answered for two session timeouts since the request (or since
   * the last answer): a controller that is there fences this broker after one session anyway, which
   * moves its leaderships just the same, and when there is none (the rest of the cluster is
   * stopping too) waiting longer cannot help.
   *
   * @return true when the controller confirmed the hand-over, false on timeout or silence
   */
  public boolean controlledShutdown(long timeoutMs) throws InterruptedException {
    try {
      thread.execute(
          () -> {
            if (state == BrokerState.SHUTTING_DOWN) {
              return;
            }
            wantShutdown = true;
            if (state == BrokerState.STARTING) {
              shutdownHandedOver.complete(true);
              return;
            }
            transitionTo(BrokerState.PENDING_CONTROLLED_SHUTDOWN, "controlled shutdown requested");
            lastAnswerMs = Math.max(lastAnswerMs, clock.monotonicMs());
            if (brokerEpoch < 0) {
              shutdownHandedOver.complete(true); // never registered: nothing to hand over
            } else {
              heartbeat();
            }
          });
    } catch (RejectedExecutionException e) {
      return false;
    }
    try {
      return shutdownHandedOver.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      log.warn(
          "[broker={}] controlled shutdown not confirmed within {} ms",
          settings.brokerId(),
          timeoutMs);
      return false;
    } catch (ExecutionException e) {
      return false;
    }
  }

  /**
   * Stops: sends one last heartbeat asking to be fenced (so the partitions move at once rather than
   * after the session timeout), then stops the thread.
   */
  @Override
  public void close() {
    CompletableFuture<Void> finalBeat = new CompletableFuture<>();
    try {
      thread.execute(
          () -> {
            stopHeartbeats();
            transitionTo(BrokerState.SHUTTING_DOWN, "close");
            if (brokerEpoch < 0) {
              finalBeat.complete(null);
              return;
            }
            client.heartbeat(request(true)).whenComplete((r, e) -> finalBeat.complete(null));
          });
      finalBeat.get(Math.max(500, 2 * settings.heartbeatIntervalMs()), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException | ExecutionException | TimeoutException e) {
      // best effort: the session timeout fences us anyway
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    thread.shutdownNow();
  }

  /** Stops at once without telling the quorum, as a crash would (tests). */
  public void halt() {
    thread.shutdownNow();
  }

  // ---------------------------------------------------------------- lifecycle thread

  private void transitionTo(BrokerState next, String reason) {
    BrokerState from = state;
    if (from == next) {
      return;
    }
    if (!from.canMoveTo(next)) {
      log.error(
          "[broker={}] illegal state change {} -> {} ({}); ignored",
          settings.brokerId(),
          from,
          next,
          reason);
      return;
    }
    state = next;
    log.info(
        "[broker={} epoch={}] {} -> {}: {}", settings.brokerId(), brokerEpoch, from, next, reason);
    try {
      listener.onStateChange(from, next);
    } catch (RuntimeException e) {
      log.error("[broker={}] listener failed on state change", settings.brokerId(), e);
    }
  }

  private void register() {
    if (state != BrokerState.REGISTERING) {
      return;
    }
    BrokerRegistrationRequest.Builder req =
        BrokerRegistrationRequest.newBuilder()
            .setBrokerId(settings.brokerId())
            .setIncarnationId(incarnationId)
            .setHost(settings.host())
            .setPort(settings.port())
            .setRack(settings.rack())
            .setMinMetadataVersion(MetadataVersion.SUPPORTED.min())
            .setMaxMetadataVersion(MetadataVersion.SUPPORTED.max());
    if (settings.kafkaEndpoint() != null) {
      req.setKafkaHost(settings.kafkaEndpoint().host())
          .setKafkaPort(settings.kafkaEndpoint().port());
    }
    client.register(req.build()).whenCompleteAsync(this::onRegistered, thread);
  }

  private void onRegistered(BrokerRegistrationResponse resp, Throwable err) {
    if (state != BrokerState.REGISTERING) {
      return;
    }
    if (err != null || resp.getErrorCode() != ErrorCode.NONE) {
      String why =
          err != null
              ? String.valueOf(err.getCause() != null ? err.getCause() : err)
              : resp.getErrorCode() + " " + resp.getErrorMessage();
      if (resp != null && resp.getErrorCode() == ErrorCode.UNSUPPORTED_VERSION) {
        // This build cannot run in the cluster at its metadata.version: an operator's problem,
        // said loudly; retried in case the level is what changes (docs/operations.md#upgrades).
        log.error(
            "[broker={}] registration refused: {}; this build supports {} {}; retrying in {} ms",
            settings.brokerId(),
            resp.getErrorMessage(),
            MetadataVersion.FEATURE,
            MetadataVersion.SUPPORTED,
            registrationBackoffMs);
      } else {
        log.warn(
            "[broker={}] registration failed ({}); retrying in {} ms",
            settings.brokerId(),
            why,
            registrationBackoffMs);
      }
      thread.schedule(this::register, registrationBackoffMs, TimeUnit.MILLISECONDS);
      registrationBackoffMs =
          Math.min(registrationBackoffMs * 2, settings.registrationBackoffMaxMs());
      return;
    }
    registrationBackoffMs = settings.retryBackoffMs();
    brokerEpoch = resp.getBrokerEpoch();
    fenced = true;
    lease.revoke();
    transitionTo(BrokerState.RECOVERING, "registered with epoch " + brokerEpoch);
    if (heartbeats == null) {
      heartbeats =
          thread.scheduleAtFixedRate(
              this::heartbeat, 0, settings.heartbeatIntervalMs(), TimeUnit.MILLISECONDS);
    } else {
      heartbeat();
    }
  }

  private BrokerHeartbeatRequest request(boolean fence) {
    return BrokerHeartbeatRequest.newBuilder()
        .setBrokerId(settings.brokerId())
        .setBrokerEpoch(brokerEpoch)
        .setMetadataOffset(image.offset())
        .setWantFence(fence || wantFence)
        .setWantShutdown(wantShutdown)
        .addAllOfflineDirs(offlineDirs.get())
        .addAllUnreachableLeaders(unreachableLeaders.get())
        .build();
  }

  private void heartbeat() {
    if (state == BrokerState.PENDING_CONTROLLED_SHUTDOWN && controllerSilent()) {
      return;
    }
    if (heartbeatInFlight
        || brokerEpoch < 0
        || state == BrokerState.REGISTERING
        || state == BrokerState.SHUTTING_DOWN) {
      return;
    }
    heartbeatInFlight = true;
    // Read before sending: the controller receives the heartbeat later than this, so a lease
    // counted from here ends before the session the controller counts from its arrival.
    long sentAtMs = clock.monotonicMs();
    client
        .heartbeat(request(false))
        .whenCompleteAsync((resp, err) -> onHeartbeat(sentAtMs, resp, err), thread);
  }

  /**
   * During a controlled shutdown: whether no heartbeat has been answered for two session timeouts;
   * if so, gives the hand-over up (lifecycle thread).
   */
  private boolean controllerSilent() {
    long silentMs = clock.monotonicMs() - lastAnswerMs;
    if (silentMs < 2 * settings.sessionTimeoutMs()) {
      return false;
    }
    log.warn(
        "[broker={}] controlled shutdown given up: no controller answered for {} ms (the"
            + " controller fences this broker when its session runs out, or there is none)",
        settings.brokerId(),
        silentMs);
    transitionTo(BrokerState.SHUTTING_DOWN, "no controller answered during controlled shutdown");
    stopHeartbeats();
    shutdownHandedOver.complete(false);
    return true;
  }

  private void onHeartbeat(long sentAtMs, BrokerHeartbeatResponse resp, Throwable err) {
    heartbeatInFlight = false;
    if (state == BrokerState.SHUTTING_DOWN) {
      return;
    }
    if (err != null) {
      log.debug("[broker={}] heartbeat failed: {}", settings.brokerId(), err.toString());
      return; // the next interval tries again
    }
    if (resp.getErrorCode() == ErrorCode.STALE_BROKER_EPOCH) {
      lease.revoke();
      if (state == BrokerState.PENDING_CONTROLLED_SHUTDOWN) {
        transitionTo(BrokerState.SHUTTING_DOWN, "registration gone during controlled shutdown");
        shutdownHandedOver.complete(true);
        return;
      }
      transitionTo(BrokerState.REGISTERING, resp.getErrorMessage());
      register();
      return;
    }
    if (resp.getErrorCode() != ErrorCode.NONE) {
      log.debug("[broker={}] heartbeat answered {}", settings.brokerId(), resp.getErrorCode());
      return;
    }
    lastAnswerMs = Math.max(lastAnswerMs, clock.monotonicMs());
    replay(resp);
    if (!resp.getMore() && !initialCatchUp.isDone()) {
      log.info(
          "[broker={}] caught up with the metadata log at offset {}",
          settings.brokerId(),
          image.offset());
      initialCatchUp.complete(image.offset());
    }
    fenced = resp.getIsFenced();
    if (fenced) {
      lease.revoke();
    } else {
      lease.renew(sentAtMs, resp.getLeaseMs());
    }
    activeControllerId = resp.getControllerId();
    if (state == BrokerState.PENDING_CONTROLLED_SHUTDOWN) {
      if (resp.getShouldShutdown()) {
        transitionTo(BrokerState.SHUTTING_DOWN, "controller confirmed the hand-over");
        stopHeartbeats();
        shutdownHandedOver.complete(true);
        return;
      }
    } else if (fenced && state == BrokerState.RUNNING) {
      transitionTo(BrokerState.RECOVERING, "fenced by the controller");
    } else if (!fenced && state == BrokerState.RECOVERING) {
      transitionTo(BrokerState.RUNNING, "unfenced at metadata offset " + image.offset());
    }
    if (resp.getMore() || (state == BrokerState.PENDING_CONTROLLED_SHUTDOWN)) {
      // More metadata waits, or a shutdown is pending: ask again without waiting an interval.
      thread.schedule(
          this::heartbeat,
          resp.getMore() ? 0 : settings.heartbeatIntervalMs() / 2,
          TimeUnit.MILLISECONDS);
    }
  }

  private void replay(BrokerHeartbeatResponse resp) {
    MetadataImage before = image;
    MetadataImage after;
    MetadataDelta delta;
    try {
      if (resp.hasFullImage()) {
        after =
            ImageSnapshots.fromSnapshot(resp.getFullImage()).withOffset(resp.getMetadataOffset());
        delta = MetadataDelta.between(before, after, true);
        log.info(
            "[broker={}] replaced metadata image at offset {} by a full image at {}",
            settings.brokerId(),
            before.offset(),
            after.offset());
      } else {
        if (resp.getMetadataOffset() <= before.offset() && resp.getBatchesCount() == 0) {
          return;
        }
        ImageBuilder b = new ImageBuilder(before);
        for (OffsetBatch ob : resp.getBatchesList()) {
          if (ob.getOffset() > before.offset()) {
            MetadataApplier.apply(b, ob.getBatch(), ob.getOffset());
          }
        }
        after = b.build(Math.max(before.offset(), resp.getMetadataOffset()));
        delta = b.delta(after.offset(), false);
      }
    } catch (RuntimeException e) {
      // An invariant broke (a corrupt full image): keep the old image, ask again next time.
      log.error(
          "[broker={}] cannot replay metadata at offset {}",
          settings.brokerId(),
          before.offset(),
          e);
      return;
    }
    image = after;
    // Cluster-wide values (the metadata.version level, the replication throttle) are not in the
    // delta's maps, but a waiter (UpdateFeatures, AlterPartitionReassignments) and the replica
    // fetchers need to hear of them too.
    boolean clusterChanged =
        after.metadataVersion() != before.metadataVersion()
            || after.replicationThrottleBytesPerSec() != before.replicationThrottleBytesPerSec();
    if (!delta.isEmpty() || delta.fullImage() || clusterChanged) {
      try {
        listener.onMetadataUpdate(after, delta);
      } catch (RuntimeException e) {
        log.error(
            "[broker={}] metadata listener failed at offset {}",
            settings.brokerId(),
            after.offset(),
            e);
      }
    }
  }

  private void stopHeartbeats() {
    if (heartbeats != null) {
      heartbeats.cancel(false);
    }
  }
}
