package dev.spool.client.internal.consumer;

import dev.spool.client.ConsumerRebalanceListener;
import dev.spool.client.OffsetAndMetadata;
import dev.spool.client.OffsetCommitCallback;
import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application-thread half of a consumer in a group: applies the assignment the heartbeat
 * learned (revoke first, committing consumed positions and running the listener; then assign,
 * restoring positions from the committed offsets with their leader epochs), commits (sync, async,
 * automatic every {@code auto.commit.interval.ms}) and fetches committed offsets.
 *
 * <p>Threading: owned by the application thread, like the {@link Fetcher} it drives. Async commit
 * results come back through a concurrent queue and their callbacks run in a later poll.
 */
public final class GroupReconciler {
  private static final Logger log = LoggerFactory.getLogger(GroupReconciler.class);

  /** Settings from the consumer config. */
  public record Settings(boolean autoCommit, long autoCommitIntervalMs, long defaultApiTimeoutMs) {}

  private record AsyncResult(
      Map<TopicPartition, OffsetAndMetadata> offsets,
      OffsetCommitCallback callback,
      Exception error) {}

  private final CoordinatorClient coordinator;
  private final Fetcher fetcher;
  private final Clock clock;
  private final Settings settings;
  private final ConcurrentLinkedQueue<AsyncResult> asyncResults = new ConcurrentLinkedQueue<>();
  private GroupHeartbeat heartbeat;
  private ConsumerRebalanceListener listener = ConsumerRebalanceListener.NONE;
  private Set<TopicPartition> owned = new HashSet<>();
  private int lostSeen;
  private long nextAutoCommitMs;
  // The view the last onPoll applied (or found nothing new in).
  private GroupHeartbeat.View seen;

  public GroupReconciler(
      CoordinatorClient coordinator, Fetcher fetcher, Clock clock, Settings settings) {
    this.coordinator = coordinator;
    this.fetcher = fetcher;
    this.clock = clock;
    this.settings = settings;
  }

  /** Starts (or changes) the group subscription. */
  public void subscribe(
      GroupHeartbeat hb, List<String> topics, String regex, ConsumerRebalanceListener l) {
    this.heartbeat = hb;
    this.seen = null;
    this.listener = l == null ? ConsumerRebalanceListener.NONE : l;
    nextAutoCommitMs = clock.monotonicMs() + settings.autoCommitIntervalMs();
    hb.subscribe(topics, regex);
  }

  public boolean subscribed() {
    return heartbeat != null;
  }

  public Set<TopicPartition> owned() {
    return Set.copyOf(owned);
  }

  /**
   * Waits up to {@code timeoutMs} for the heartbeat to learn something {@link #onPoll} applies (an
   * assignment, lost partitions, a fatal error), so a poll with nothing to read picks up its first
   * partitions as soon as they are granted.
   */
  public void awaitChange(long timeoutMs) throws InterruptedException {
    if (heartbeat == null || seen == null) {
      Thread.sleep(timeoutMs);
      return;
    }
    heartbeat.awaitChange(seen, timeoutMs);
  }

  /** One step of the application loop: callbacks, lost or moved partitions, auto commit. */
  public void onPoll() {
    runCallbacks();
    if (heartbeat == null) {
      return;
    }
    heartbeat.polled();
    GroupHeartbeat.View v = heartbeat.view();
    seen = v;
    if (v.fatal() != null) {
      throw v.fatal();
    }
    if (v.lostCount() != lostSeen) {
      lostSeen = v.lostCount();
      Set<TopicPartition> lost = Set.copyOf(owned);
      owned.clear();
      fetcher.assign(List.of());
      if (!lost.isEmpty()) {
        listener.onPartitionsLost(lost);
      }
      heartbeat.acknowledge(owned, lostSeen);
    }
    if (v.assignment() != null && !v.assignment().equals(owned)) {
      reconcile(v);
    }
    if (settings.autoCommit() && clock.monotonicMs() >= nextAutoCommitMs) {
      nextAutoCommitMs = clock.monotonicMs() + settings.autoCommitIntervalMs();
      Map<TopicPartition, OffsetAndMetadata> positions = consumedPositions(owned);
      if (!positions.isEmpty()) {
        commitAsync(
            positions,
            (o, e) -> {
              if (e != null) {
                log.warn("[group={}] auto commit failed: {}", coordinator.groupId(), e.toString());
              }
            });
      }
    }
  }

  private void reconcile(GroupHeartbeat.View v) {
    Set<TopicPartition> revoked = new HashSet<>(owned);
    revoked.removeAll(v.assignment());
    Set<TopicPartition> added = new HashSet<>(v.assignment());
    added.removeAll(owned);
    long startMs = clock.monotonicMs();
    if (!revoked.isEmpty()) {
      if (settings.autoCommit()) {
        try {
          commitSync(consumedPositions(revoked), settings.defaultApiTimeoutMs());
        } catch (SpoolException e) {
          log.warn(
              "[group={}] commit before revoking {} failed: {}",
              coordinator.groupId(),
              revoked,
              e.toString());
        }
      }
      listener.onPartitionsRevoked(Set.copyOf(revoked));
      owned.removeAll(revoked);
      fetcher.assign(List.copyOf(owned));
    }
    if (!added.isEmpty()) {
      Map<TopicPartition, OffsetAndMetadata> committed;
      try {
        committed = committed(added, v.memberId(), v.memberEpoch());
      } catch (SpoolException e) {
        // The member's epoch moved on meanwhile (or the coordinator is away): try next poll.
        log.info(
            "[group={}] committed offsets of {} not fetched ({}); retrying",
            coordinator.groupId(),
            added,
            e.toString());
        heartbeat.acknowledge(owned, lostSeen);
        return;
      }
      owned.addAll(added);
      fetcher.assign(List.copyOf(owned));
      committed.forEach((tp, o) -> fetcher.seek(tp, o.offset(), o.leaderEpoch()));
      listener.onPartitionsAssigned(Set.copyOf(added));
    }
    if (log.isDebugEnabled()) {
      log.debug(
          "[group={}] reconciled epoch {} in {} ms: revoked {}, added {}",
          coordinator.groupId(),
          v.memberEpoch(),
          clock.monotonicMs() - startMs,
          revoked.size(),
          added.size());
    }
    heartbeat.acknowledge(owned, lostSeen);
  }

  /** The consumed position (next offset and its epoch) of each partition that has one. */
  public Map<TopicPartition, OffsetAndMetadata> consumedPositions(Set<TopicPartition> of) {
    Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
    fetcher
        .consumedPositions()
        .forEach(
            (tp, p) -> {
              if (of.contains(tp)) {
                out.put(tp, new OffsetAndMetadata(p.offset(), p.epoch(), ""));
              }
            });
    return out;
  }

  private String memberId() {
    return heartbeat == null ? "" : heartbeat.view().memberId();
  }

  private int memberEpoch() {
    return heartbeat == null ? -1 : heartbeat.view().memberEpoch();
  }

  /** Commits and waits; throws the first partition's error. */
  public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, long timeoutMs) {
    runCallbacks();
    if (offsets.isEmpty()) {
      return;
    }
    Map<TopicPartition, SpoolException> result =
        await(
            coordinator.commit(offsets, memberId(), memberEpoch(), clock.monotonicMs() + timeoutMs),
            timeoutMs);
    for (SpoolException e : result.values()) {
      if (e != null) {
        throw e;
      }
    }
  }

  /** Commits without waiting; {@code callback} runs in a later poll. */
  public void commitAsync(
      Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
    Map<TopicPartition, OffsetAndMetadata> copy = Map.copyOf(offsets);
    if (copy.isEmpty()) {
      asyncResults.add(new AsyncResult(copy, callback, null));
      return;
    }
    coordinator
        .commit(
            copy, memberId(), memberEpoch(), clock.monotonicMs() + settings.defaultApiTimeoutMs())
        .whenComplete(
            (result, error) -> {
              Exception e = error == null ? null : (Exception) CoordinatorClient.unwrap(error);
              if (e == null) {
                e = result.values().stream().filter(x -> x != null).findFirst().orElse(null);
              }
              asyncResults.add(new AsyncResult(copy, callback, e));
            });
  }

  /** The committed offsets of {@code partitions} (absent = none). */
  public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions) {
    return committed(partitions, "", -1);
  }

  private Map<TopicPartition, OffsetAndMetadata> committed(
      Set<TopicPartition> partitions, String memberId, int memberEpoch) {
    long timeout = settings.defaultApiTimeoutMs();
    return await(
        coordinator.fetch(partitions, memberId, memberEpoch, clock.monotonicMs() + timeout),
        timeout);
  }

  private void runCallbacks() {
    AsyncResult r;
    while ((r = asyncResults.poll()) != null) {
      if (r.callback() != null) {
        r.callback().onComplete(r.offsets(), r.error());
      }
    }
  }

  /** On close: commit consumed positions (auto commit), revoke, leave the group. */
  public void close(long timeoutMs) {
    try {
      if (heartbeat != null) {
        if (settings.autoCommit() && !owned.isEmpty()) {
          commitSync(consumedPositions(owned), timeoutMs);
        }
        if (!owned.isEmpty()) {
          listener.onPartitionsRevoked(Set.copyOf(owned));
        }
        owned.clear();
        await(heartbeat.leave(), timeoutMs);
      }
      runCallbacks();
    } catch (SpoolException e) {
      log.warn("[group={}] closing: {}", coordinator.groupId(), e.toString());
    }
  }

  private static <T> T await(CompletableFuture<T> f, long timeoutMs) {
    try {
      return f.get(timeoutMs + 1000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      throw c instanceof SpoolException s
          ? s
          : new SpoolException(ErrorCode.UNKNOWN_SERVER_ERROR, String.valueOf(c), c);
    } catch (TimeoutException e) {
      throw new SpoolException(
          ErrorCode.REQUEST_TIMED_OUT, "the coordinator did not answer in time");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SpoolException(ErrorCode.REQUEST_TIMED_OUT, "interrupted", e);
    }
  }
}
