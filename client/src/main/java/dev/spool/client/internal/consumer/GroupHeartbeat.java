package dev.spool.client.internal.consumer;

import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.Errors;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.network.ClientResponse;
import dev.spool.network.NetworkClient;
import dev.spool.network.Node;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ConsumerGroupHeartbeatRequest;
import dev.spool.protocol.message.ConsumerGroupHeartbeatResponse;
import dev.spool.protocol.message.OwnedPartitions;
import dev.spool.protocol.message.Subscription;
import dev.spool.protocol.message.TopicPartitions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer's membership in its group, KIP-848 style: it heartbeats the coordinator with what it
 * subscribes to and what it owns, and learns its member epoch and assignment. It runs on the
 * network client's I/O thread so a slow application loop does not cost the membership; but a member
 * whose application stops polling for {@code max.poll.interval.ms} leaves the group (its partitions
 * move) and rejoins at the next poll, as Kafka's.
 *
 * <p>Threading: mutable state is confined to the I/O thread. The application thread hands over the
 * partitions it owns ({@link #acknowledge}) and the time of its last poll; it reads {@link
 * #view()}, an immutable snapshot the I/O thread publishes through a volatile field.
 */
public final class GroupHeartbeat {
  private static final Logger log = LoggerFactory.getLogger(GroupHeartbeat.class);
  private static final long TICK_MS = 20;

  /** Settings from the consumer config. */
  public record Settings(
      String instanceId, String assignor, int maxPollIntervalMs, long requestTimeoutMs) {}

  /**
   * What the application thread sees: the member's id and epoch, its assignment at that epoch
   * ({@code null} before the first), how many times it lost its partitions (fenced, or left after a
   * poll timeout), and a fatal error that ends the membership.
   */
  public record View(
      String memberId,
      int memberEpoch,
      Set<TopicPartition> assignment,
      int lostCount,
      SpoolException fatal) {}

  private final CoordinatorClient coordinator;
  private final NetworkClient network;
  private final Clock clock;
  private final Settings settings;
  private final String memberId = UUID.randomUUID().toString();
  private volatile View view;
  private volatile long lastPollMs;
  // Guards nothing but the wait of an application thread for a changed view (awaitChange).
  private final Object viewChanged = new Object();
  private volatile Runnable onChange = () -> {};

  // I/O thread only
  private List<String> topics = List.of();
  private String regex = "";
  private boolean subscriptionChanged = true;
  private int memberEpoch;
  private Set<TopicPartition> owned = Set.of();
  private int lostCount;
  // Bumped when the member gives up its membership; a heartbeat answer from before is stale.
  private int membership;
  private boolean inFlight;
  private boolean finding;
  private long nextHeartbeatMs;
  private int heartbeatIntervalMs = 1000;
  private int failures;
  private boolean leftForPollTimeout;
  private boolean stopped;
  private ScheduledFuture<?> ticker;

  public GroupHeartbeat(
      CoordinatorClient coordinator, NetworkClient network, Clock clock, Settings settings) {
    this.coordinator = coordinator;
    this.network = network;
    this.clock = clock;
    this.settings = settings;
    this.view = new View(memberId, 0, null, 0, null);
    this.lastPollMs = clock.monotonicMs();
  }

  public View view() {
    return view;
  }

  /**
   * Runs {@code r} on the I/O thread whenever a published view differs from the previous one in
   * what the application applies (assignment, lost count, fatal error), so a poll blocked on
   * records can return and apply it at once rather than at the end of its wait.
   */
  public void onChange(Runnable r) {
    onChange = r;
  }

  /**
   * Waits up to {@code timeoutMs} until the view differs from {@code seen} in what the application
   * applies (assignment, lost count, fatal error); returns the view then, or the current one on
   * timeout. Application thread.
   */
  public View awaitChange(View seen, long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    synchronized (viewChanged) {
      while (!changed(seen, view)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        TimeUnit.NANOSECONDS.timedWait(viewChanged, left);
      }
      return view;
    }
  }

  private static boolean changed(View before, View after) {
    return after.lostCount() != before.lostCount()
        || after.fatal() != before.fatal()
        || !Objects.equals(after.assignment(), before.assignment());
  }

  // ---------------------------------------------------------------- application thread

  /** Joins (or changes the subscription): topic names, or a regular expression. Any thread. */
  public void subscribe(List<String> topicNames, String topicRegex) {
    lastPollMs = clock.monotonicMs();
    network
        .eventLoop()
        .execute(
            () -> {
              topics = List.copyOf(topicNames);
              regex = topicRegex;
              subscriptionChanged = true;
              stopped = false;
              nextHeartbeatMs = 0;
              if (ticker == null) {
                ticker =
                    network
                        .eventLoop()
                        .scheduleAtFixedRate(this::tick, 0, TICK_MS, TimeUnit.MILLISECONDS);
              }
            });
  }

  /** The application polled: the member is alive. Any thread. */
  public void polled() {
    lastPollMs = clock.monotonicMs();
  }

  /**
   * The application now owns {@code partitions} (after running the listener); the next heartbeat,
   * sent at once, tells the coordinator, which then hands out what this member released.
   */
  public void acknowledge(Set<TopicPartition> partitions, int lostCountSeen) {
    Set<TopicPartition> copy = Set.copyOf(partitions);
    network
        .eventLoop()
        .execute(
            () -> {
              if (lostCountSeen == lostCount) {
                owned = copy;
                nextHeartbeatMs = 0;
                if (ticker != null) {
                  tick(); // tell the coordinator now: a joiner may be waiting for what we released
                }
              }
            });
  }

  /**
   * Leaves the group (epoch -1, or -2 for a static member, which keeps its partitions for the
   * session timeout); completes when the coordinator answered or the request failed.
   */
  public CompletableFuture<Void> leave() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    network
        .eventLoop()
        .execute(
            () -> {
              stopped = true;
              if (ticker != null) {
                ticker.cancel(false);
                ticker = null;
              }
              Node node = coordinator.known();
              if (node == null || memberEpoch <= 0) {
                done.complete(null);
                return;
              }
              int epoch = settings.instanceId() == null ? -1 : -2;
              network
                  .send(
                      node,
                      ApiKey.CONSUMER_GROUP_HEARTBEAT,
                      request(epoch),
                      settings.requestTimeoutMs())
                  .whenComplete(
                      (r, e) -> {
                        if (r != null) {
                          r.close();
                        }
                        done.complete(null);
                      });
            });
    return done;
  }

  // ---------------------------------------------------------------- I/O thread

  private void tick() {
    if (stopped || view.fatal() != null) {
      return;
    }
    long now = clock.monotonicMs();
    if (memberEpoch > 0 && now - lastPollMs > settings.maxPollIntervalMs()) {
      log.warn(
          "[group={} member={}] no poll for max.poll.interval.ms={}: leaving the group",
          coordinator.groupId(),
          memberId,
          settings.maxPollIntervalMs());
      leaveForPollTimeout();
      return;
    }
    if (leftForPollTimeout && now - lastPollMs <= settings.maxPollIntervalMs()) {
      leftForPollTimeout = false;
      nextHeartbeatMs = 0;
    }
    if (leftForPollTimeout || inFlight || finding || now < nextHeartbeatMs) {
      return;
    }
    Node node = coordinator.known();
    if (node == null) {
      finding = true;
      coordinator
          .find()
          .whenComplete(
              (n, e) -> {
                finding = false;
                if (e != null) {
                  retryLater("finding the coordinator", CoordinatorClient.unwrap(e));
                } else {
                  tick(); // the heartbeat goes out now, not at the next tick
                }
              });
      return;
    }
    inFlight = true;
    int sentIn = membership;
    long sentMs = now;
    Set<TopicPartition> sentOwned = owned;
    if (log.isDebugEnabled()) {
      log.debug(
          "[group={} member={}] heartbeat at epoch {} owning {} partitions",
          coordinator.groupId(),
          memberId,
          memberEpoch,
          owned.size());
    }
    network
        .send(
            node,
            ApiKey.CONSUMER_GROUP_HEARTBEAT,
            request(memberEpoch),
            settings.requestTimeoutMs())
        .whenComplete(
            (response, error) -> {
              inFlight = false;
              if (sentIn != membership) {
                // The member left (poll timeout) while this was in flight: the answer would
                // restore the epoch and assignment it just gave up, and it would leave again.
                if (response != null) {
                  response.close();
                }
                return;
              }
              if (error != null) {
                coordinator.markUnknown(node);
                retryLater("heartbeat", CoordinatorClient.unwrap(error));
                return;
              }
              try (ClientResponse r = response) {
                ConsumerGroupHeartbeatResponse body = r.body(ConsumerGroupHeartbeatResponse.class);
                if (log.isDebugEnabled()) {
                  log.debug(
                      "[group={} member={}] heartbeat answered in {} ms: {}, epoch {}, {}",
                      coordinator.groupId(),
                      memberId,
                      clock.monotonicMs() - sentMs,
                      body.getErrorCode(),
                      body.getMemberEpoch(),
                      body.hasAssignment()
                          ? body.getAssignment().getTopicsList().stream()
                                  .mapToInt(t -> t.getPartitionsCount())
                                  .sum()
                              + " partitions assigned"
                          : "assignment unchanged");
                }
                onResponse(node, body);
                if (body.getErrorCode() == ErrorCode.NONE && !owned.equals(sentOwned)) {
                  // The application acknowledged while this was in flight: the coordinator has
                  // not heard it yet (a joiner may be waiting for what was released), so tell it
                  // now rather than an interval later.
                  nextHeartbeatMs = 0;
                  tick();
                }
              }
            });
  }

  private ConsumerGroupHeartbeatRequest request(int epoch) {
    ConsumerGroupHeartbeatRequest.Builder b =
        ConsumerGroupHeartbeatRequest.newBuilder()
            .setGroupId(coordinator.groupId())
            .setMemberId(memberId)
            .setMemberEpoch(epoch);
    if (epoch == 0 || subscriptionChanged) {
      b.setSubscription(Subscription.newBuilder().addAllTopicNames(topics).setTopicRegex(regex))
          .setRebalanceTimeoutMs(settings.maxPollIntervalMs())
          .setServerAssignor(settings.assignor());
      if (settings.instanceId() != null) {
        b.setInstanceId(settings.instanceId());
      }
    }
    if (epoch >= 0) {
      b.setOwned(OwnedPartitions.newBuilder().addAllTopics(toProto(epoch == 0 ? Set.of() : owned)));
    }
    return b.build();
  }

  private void onResponse(Node node, ConsumerGroupHeartbeatResponse r) {
    ErrorCode code = r.getErrorCode();
    if (code == ErrorCode.NONE) {
      failures = 0;
      subscriptionChanged = false;
      memberEpoch = r.getMemberEpoch();
      heartbeatIntervalMs = Math.max(10, r.getHeartbeatIntervalMs());
      nextHeartbeatMs = clock.monotonicMs() + heartbeatIntervalMs;
      Set<TopicPartition> assignment = view.assignment();
      if (r.hasAssignment()) {
        assignment = fromProto(r.getAssignment().getTopicsList());
      }
      publish(new View(memberId, memberEpoch, assignment, lostCount, null));
      return;
    }
    SpoolException e = new SpoolException(code, r.getErrorMessage());
    if (code == ErrorCode.UNKNOWN_MEMBER_ID || code == ErrorCode.FENCED_MEMBER_EPOCH) {
      // Kafka's reaction: the partitions are lost (someone else may own them now); rejoin at once
      // with the same member id and epoch 0.
      log.warn(
          "[group={} member={}] {}: rejoining, partitions lost",
          coordinator.groupId(),
          memberId,
          e.getMessage());
      lose();
      nextHeartbeatMs = 0;
      return;
    }
    if (CoordinatorClient.isCoordinatorError(code) || Errors.retriable(code)) {
      if (code != ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) {
        coordinator.markUnknown(node);
      }
      retryLater("heartbeat", e);
      return;
    }
    // GROUP_MAX_SIZE_REACHED, INVALID_GROUP_ID, UNSUPPORTED_ASSIGNOR, INVALID_REGULAR_EXPRESSION,
    // UNRELEASED_INSTANCE_ID, ...: the application must change something; poll throws it.
    log.error("[group={} member={}] heartbeat refused: {}", coordinator.groupId(), memberId, e);
    publish(new View(memberId, memberEpoch, view.assignment(), lostCount, e));
  }

  private void lose() {
    membership++;
    memberEpoch = 0;
    owned = Set.of();
    lostCount++;
    subscriptionChanged = true;
    publish(new View(memberId, 0, Set.of(), lostCount, null));
  }

  private void leaveForPollTimeout() {
    Node node = coordinator.known();
    if (node != null) {
      network
          .send(node, ApiKey.CONSUMER_GROUP_HEARTBEAT, request(-1), settings.requestTimeoutMs())
          .whenComplete(
              (r, e) -> {
                if (r != null) {
                  r.close();
                }
              });
    }
    leftForPollTimeout = true;
    lose();
  }

  private void retryLater(String what, Throwable cause) {
    failures++;
    long delay = Math.min(heartbeatIntervalMs, 50L * failures);
    nextHeartbeatMs = clock.monotonicMs() + delay;
    if (failures % 20 == 1) {
      log.info(
          "[group={} member={}] {} failed ({}); retrying",
          coordinator.groupId(),
          memberId,
          what,
          cause.toString());
    }
  }

  private void publish(View v) {
    View before = view;
    synchronized (viewChanged) {
      view = v;
      viewChanged.notifyAll();
    }
    if (changed(before, v)) {
      onChange.run();
    }
  }

  static List<TopicPartitions> toProto(Set<TopicPartition> partitions) {
    Map<String, List<Integer>> byTopic = new TreeMap<>();
    partitions.forEach(
        tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition()));
    List<TopicPartitions> out = new ArrayList<>();
    byTopic.forEach(
        (t, ps) -> out.add(TopicPartitions.newBuilder().setTopic(t).addAllPartitions(ps).build()));
    return out;
  }

  static Set<TopicPartition> fromProto(List<TopicPartitions> list) {
    Set<TopicPartition> out = new HashSet<>();
    list.forEach(
        t -> t.getPartitionsList().forEach(p -> out.add(new TopicPartition(t.getTopic(), p))));
    return out;
  }
}
