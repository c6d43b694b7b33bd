package dev.spool.client.internal.metadata;

import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.network.ExponentialBackoff;
import dev.spool.network.Node;
import dev.spool.protocol.message.BrokerInfo;
import dev.spool.protocol.message.LeaderHint;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.protocol.message.TopicMetadata;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The client's metadata cache and the rules for changing it. Pure logic: no I/O, no threads, time
 * passed in as monotonic {@code nowMs}; {@link MetadataRefresher} does the network part.
 *
 * <p>Rules:
 *
 * <ul>
 *   <li><b>Epochs never go back.</b> A partition in an answer whose leader epoch is older than the
 *       cached one is ignored (a broker that is behind on metadata must not undo a newer leader),
 *       unless the topic id changed (the topic was deleted and created again).
 *   <li><b>Leader hints</b> (KIP-951, the {@code current_leader} of produce/fetch/list-offsets
 *       errors) update a partition's leader at once when their epoch is newer.
 *   <li><b>Refresh</b> when asked ({@link #requestUpdate()}: errors whose {@code
 *       Errors.refreshesMetadata} is true, dropped connections, new topics), with exponential
 *       backoff between attempts, and at the latest {@code metadata.max.age.ms} after the last
 *       success.
 *   <li><b>Unknown topics</b> are looked up {@code unknownTopicMaxRefreshes} times; then waiters
 *       fail with UNKNOWN_TOPIC_OR_PARTITION and the topic is dropped from the wanted set (a later
 *       use starts the count again, so a topic created later is found).
 * </ul>
 *
 * Thread-safe: mutators are synchronized and publish an immutable {@link MetadataSnapshot}; {@link
 * #awaitUpdate} blocks on this object's monitor.
 */
public final class Metadata {
  private final List<Node> bootstrapNodes;
  private final long maxAgeMs;
  private final ExponentialBackoff refreshBackoff;
  private final int unknownTopicMaxRefreshes;
  private final List<Runnable> updateListeners = new CopyOnWriteArrayList<>();
  private volatile Runnable wakeup = () -> {};

  private volatile MetadataSnapshot snapshot = MetadataSnapshot.EMPTY;
  // Guarded by this:
  private final Set<String> wantedTopics = new LinkedHashSet<>();
  private final Map<String, Integer> unknownTopicRefreshes = new HashMap<>();
  private final Map<String, SpoolException> topicErrors = new HashMap<>();

  /** Wanted ahead of use ({@link #prefetchTopics}): not finding one records no error. */
  private final Set<String> prefetchedTopics = new HashSet<>();

  private final Map<String, Long> topicErrorAtMs = new HashMap<>();
  private long lastUpdateMs;

  /** The last refresh failed its SASL login ({@link #authenticationFailure}); null otherwise. */
  private SpoolException loginFailure;

  private boolean updateRequested = true;
  private int avoidedNodeId = -1;
  private int updateVersion;
  private long lastSuccessMs = -1;
  private long lastAttemptMs = -1;
  private int failedAttempts;
  private SpoolException lastFailure;

  public Metadata(
      List<Node> bootstrapNodes,
      long maxAgeMs,
      ExponentialBackoff refreshBackoff,
      int unknownTopicMaxRefreshes) {
    if (bootstrapNodes.isEmpty()) {
      throw new IllegalArgumentException("no bootstrap nodes");
    }
    this.bootstrapNodes = List.copyOf(bootstrapNodes);
    this.maxAgeMs = maxAgeMs;
    this.refreshBackoff = refreshBackoff;
    this.unknownTopicMaxRefreshes = unknownTopicMaxRefreshes;
  }

  public MetadataSnapshot snapshot() {
    return snapshot;
  }

  public List<Node> bootstrapNodes() {
    return bootstrapNodes;
  }

  /** Called after every applied change (on the thread that applied it). */
  public void addUpdateListener(Runnable listener) {
    updateListeners.add(listener);
  }

  /** Set by the refresher: run when an update is requested so it need not poll. */
  public void setWakeup(Runnable wakeup) {
    this.wakeup = wakeup;
  }

  // ------------------------------------------------------------------ wanting

  /**
   * Adds topics to keep fresh; a new topic asks for an update. A topic found not to exist stays
   * failed for one refresh backoff period, so a burst of uses fails fast instead of each one
   * looking it up again; after that it is looked up afresh (it may have been created).
   */
  public void addTopics(Collection<String> topics, long nowMs) {
    boolean added = false;
    synchronized (this) {
      for (String t : topics) {
        if (prefetchedTopics.remove(t)) {
          unknownTopicRefreshes.remove(t); // used now: its lookups count from here
        }
        Long failedAt = topicErrorAtMs.get(t);
        if (failedAt != null && nowMs - failedAt < refreshBackoff.maxMs()) {
          continue;
        }
        if (wantedTopics.add(t)) {
          unknownTopicRefreshes.remove(t);
          topicErrors.remove(t);
          topicErrorAtMs.remove(t);
          added = true;
        }
      }
    }
    if (added) {
      requestUpdate();
    }
  }

  /**
   * Adds topics to keep fresh ahead of their use (a group subscription's topics, before any of
   * their partitions is granted), so their metadata is there when they are. As {@link #addTopics},
   * except that a topic that does not exist is only dropped after its lookups: no error is recorded
   * for it, since it may be created and then assigned at any time, and {@link #addTopics} when it
   * is used looks it up afresh.
   */
  public void prefetchTopics(Collection<String> topics) {
    boolean added = false;
    synchronized (this) {
      for (String t : topics) {
        if (!topicErrors.containsKey(t) && wantedTopics.add(t)) {
          prefetchedTopics.add(t);
          added = true;
        }
      }
    }
    if (added) {
      requestUpdate();
    }
  }

  public synchronized Set<String> wantedTopics() {
    return Set.copyOf(wantedTopics);
  }

  /**
   * As {@link #requestUpdate()}, after node {@code nodeId} answered that it does not lead a
   * partition this cache says it leads: the refresh then asks another broker if one is known. A
   * broker cut off from the controller refuses writes at once but still answers Metadata from its
   * stale image, naming itself; with nothing in flight it is also the least loaded, so asking it
   * again would keep a client on it until the cut heals. Cleared by the next successful refresh
   * from another broker.
   */
  public int requestUpdateAvoiding(int nodeId) {
    synchronized (this) {
      avoidedNodeId = nodeId;
    }
    return requestUpdate();
  }

  /** The broker the next refresh should not ask ({@link #requestUpdateAvoiding}), or -1. */
  public synchronized int avoidedNode() {
    return avoidedNodeId;
  }

  /** A refresh from {@code nodeId} succeeded: it no longer avoids another node. */
  synchronized void refreshedFrom(int nodeId) {
    if (avoidedNodeId != nodeId) {
      avoidedNodeId = -1;
    }
  }

  /** Asks for a refresh as soon as the backoff allows; returns the version to wait past. */
  public int requestUpdate() {
    int v;
    synchronized (this) {
      updateRequested = true;
      v = updateVersion;
    }
    wakeup.run();
    return v;
  }

  public synchronized boolean updateRequested() {
    return updateRequested;
  }

  public synchronized int updateVersion() {
    return updateVersion;
  }

  /**
   * Milliseconds until the next refresh is due (0 = now). Attempts are at least one refresh backoff
   * apart, growing while refreshes fail or leave wanted topics unresolved or leaderless, so an
   * election in progress does not turn into a storm of Metadata requests.
   */
  public synchronized long timeToNextUpdateMs(long nowMs) {
    if (lastAttemptMs < 0) {
      return 0;
    }
    long backoffUntil = lastAttemptMs + refreshBackoff.backoffMs(Math.max(0, failedAttempts - 1));
    if (updateRequested || lastSuccessMs < 0) {
      return Math.max(0, backoffUntil - nowMs);
    }
    return Math.max(0, Math.max(lastSuccessMs + maxAgeMs, backoffUntil) - nowMs);
  }

  public synchronized void attemptStarted(long nowMs) {
    lastAttemptMs = nowMs;
  }

  /** A refresh attempt failed (no answer); waiters are woken to see the failure. */
  public void failedUpdate(long nowMs, SpoolException cause) {
    synchronized (this) {
      lastAttemptMs = nowMs;
      failedAttempts++;
      lastFailure = cause;
      loginFailure =
          cause == null
              ? null
              : switch (cause.errorCode()) {
                case SASL_AUTHENTICATION_FAILED, UNSUPPORTED_SASL_MECHANISM, ILLEGAL_SASL_STATE ->
                    cause;
                default -> null;
              };
      notifyAll();
    }
  }

  /**
   * The last refresh's failure when it was a failed SASL login (SASL_AUTHENTICATION_FAILED,
   * UNSUPPORTED_SASL_MECHANISM, ILLEGAL_SASL_STATE: not retriable), else {@code null}: waiters give
   * it to the application at once rather than retry a login that cannot succeed until their
   * deadline (as Kafka's clients throw SaslAuthenticationException).
   */
  public synchronized SpoolException authenticationFailure() {
    return loginFailure;
  }

  /** The last refresh failure while no refresh has succeeded yet, else {@code null}. */
  public synchronized SpoolException bootstrapFailure() {
    return lastSuccessMs < 0 ? lastFailure : null;
  }

  // ------------------------------------------------------------------ applying

  /**
   * Applies a Metadata answer for {@code requestedTopics}, following the rules in the class doc.
   */
  public void update(MetadataResponse response, Collection<String> requestedTopics, long nowMs) {
    synchronized (this) {
      lastUpdateMs = nowMs;
      loginFailure = null;
      MetadataSnapshot old = snapshot;
      Map<Integer, Node> brokers = new HashMap<>(old.brokers());
      boolean newerOrEqual = response.getMetadataOffset() >= old.metadataOffset();
      if (response.getBrokersCount() > 0 && (newerOrEqual || old.brokers().isEmpty())) {
        brokers.clear();
        for (BrokerInfo b : response.getBrokersList()) {
          brokers.put(b.getNodeId(), new Node(b.getNodeId(), b.getHost(), b.getPort()));
        }
      }
      Map<String, MetadataSnapshot.TopicInfo> topics = new HashMap<>(old.topics());
      Set<String> unresolved = new LinkedHashSet<>();
      for (TopicMetadata t : response.getTopicsList()) {
        applyTopic(old, topics, t, unresolved);
      }
      for (String requested : requestedTopics) {
        if (!topics.containsKey(requested)) {
          unresolved.add(requested);
        }
      }
      for (String t : unresolved) {
        countUnknown(t);
      }
      snapshot =
          new MetadataSnapshot(
              response.getClusterId(),
              newerOrEqual ? response.getControllerId() : old.controllerId(),
              brokers,
              topics,
              Math.max(old.metadataOffset(), response.getMetadataOffset()));
      lastSuccessMs = nowMs;
      lastAttemptMs = nowMs;
      lastFailure = null;
      boolean incomplete = !unresolvedWanted(unresolved).isEmpty() || hasLeaderlessWanted();
      // A topic wanted after this request was sent (addTopics while it was in flight) is not in
      // it: the next refresh asks for it, after the usual backoff rather than at max age.
      boolean missed = false;
      for (String w : wantedTopics) {
        missed |= !requestedTopics.contains(w) && !topics.containsKey(w);
      }
      updateRequested = incomplete || missed;
      failedAttempts = incomplete ? failedAttempts + 1 : 0;
      updateVersion++;
      notifyAll();
    }
    updateListeners.forEach(Runnable::run);
  }

  private void applyTopic(
      MetadataSnapshot old,
      Map<String, MetadataSnapshot.TopicInfo> topics,
      TopicMetadata t,
      Set<String> unresolved) {
    String name = t.getName();
    if (t.getErrorCode() == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) {
      topics.remove(name);
      unresolved.add(name);
      return;
    }
    if (t.getErrorCode() != ErrorCode.NONE) {
      topicErrors.put(name, new SpoolException(t.getErrorCode(), t.getErrorMessage()));
      topicErrorAtMs.put(name, lastUpdateMs);
      if (!dev.spool.common.Errors.retriable(t.getErrorCode())) {
        wantedTopics.remove(name);
      }
      return;
    }
    MetadataSnapshot.TopicInfo cached = old.topic(name);
    boolean recreated = cached != null && !cached.topicId().equals(t.getTopicId());
    List<PartitionInfo> parts = new ArrayList<>();
    for (PartitionMetadata p : t.getPartitionsList()) {
      TopicPartition tp = new TopicPartition(name, p.getPartition());
      PartitionInfo fresh =
          new PartitionInfo(
              tp,
              p.getLeaderId(),
              p.getLeaderEpoch(),
              p.getReplicasList(),
              p.getIsrList(),
              p.getOfflineReplicasList(),
              p.getErrorCode());
      PartitionInfo known = old.partition(tp);
      parts.add(
          known != null && !recreated && known.leaderEpoch() > fresh.leaderEpoch() ? known : fresh);
    }
    topics.put(name, new MetadataSnapshot.TopicInfo(name, t.getTopicId(), parts));
    unknownTopicRefreshes.remove(name);
    topicErrors.remove(name);
    topicErrorAtMs.remove(name);
  }

  private void countUnknown(String topic) {
    if (!wantedTopics.contains(topic)) {
      return;
    }
    int n = unknownTopicRefreshes.merge(topic, 1, Integer::sum);
    if (n >= unknownTopicMaxRefreshes) {
      wantedTopics.remove(topic);
      unknownTopicRefreshes.remove(topic);
      if (prefetchedTopics.remove(topic)) {
        return; // not used yet: no error for a later use
      }
      topicErrors.put(
          topic,
          new SpoolException(
              ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
              "topic '" + topic + "' does not exist (looked up " + n + " times)"));
      topicErrorAtMs.put(topic, lastUpdateMs);
    }
  }

  private Set<String> unresolvedWanted(Set<String> unresolved) {
    Set<String> s = new LinkedHashSet<>(unresolved);
    s.retainAll(wantedTopics);
    return s;
  }

  private boolean hasLeaderlessWanted() {
    for (String t : wantedTopics) {
      List<PartitionInfo> parts = snapshot.partitionsFor(t);
      if (parts != null) {
        for (PartitionInfo p : parts) {
          if (!p.hasLeader()) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /**
   * Applies a leader hint for {@code tp} if its epoch is newer than the cached one; the hint's
   * endpoint adds or moves the leader's broker entry. Returns true when the cache changed.
   */
  public boolean updateLeader(TopicPartition tp, LeaderHint hint) {
    if (hint == null || hint.getLeaderId() < 0) {
      return false;
    }
    synchronized (this) {
      MetadataSnapshot old = snapshot;
      PartitionInfo known = old.partition(tp);
      if (known == null || hint.getLeaderEpoch() <= known.leaderEpoch()) {
        return false;
      }
      Map<Integer, Node> brokers = new HashMap<>(old.brokers());
      if (hint.hasEndpoint() && !hint.getEndpoint().getHost().isEmpty()) {
        Node n =
            new Node(
                hint.getLeaderId(), hint.getEndpoint().getHost(), hint.getEndpoint().getPort());
        brokers.put(n.id(), n);
      } else if (!brokers.containsKey(hint.getLeaderId())) {
        updateRequested = true;
      }
      Map<String, MetadataSnapshot.TopicInfo> topics = new HashMap<>(old.topics());
      MetadataSnapshot.TopicInfo ti = topics.get(tp.topic());
      List<PartitionInfo> parts = new ArrayList<>(ti.partitions());
      parts.replaceAll(
          p ->
              p.topicPartition().equals(tp)
                  ? p.withLeader(hint.getLeaderId(), hint.getLeaderEpoch())
                  : p);
      topics.put(tp.topic(), new MetadataSnapshot.TopicInfo(ti.name(), ti.topicId(), parts));
      snapshot =
          new MetadataSnapshot(
              old.clusterId(), old.controllerId(), brokers, topics, old.metadataOffset());
      updateVersion++;
      notifyAll();
    }
    updateListeners.forEach(Runnable::run);
    return true;
  }

  /**
   * The error that makes {@code topic} unusable (e.g. UNKNOWN_TOPIC_OR_PARTITION), or {@code null}.
   */
  public synchronized SpoolException topicError(String topic) {
    return topicErrors.get(topic);
  }

  /**
   * Blocks until the update version passes {@code version} or {@code deadlineMs} (monotonic) is
   * reached; returns false on timeout. Wakes on failed refreshes too, so callers can check them.
   */
  public synchronized boolean awaitUpdate(int version, long deadlineMs, LongSupplierMs now)
      throws InterruptedException {
    while (updateVersion <= version) {
      long left = deadlineMs - now.nowMs();
      if (left <= 0) {
        return false;
      }
      int attempts = failedAttempts;
      wait(left);
      if (failedAttempts != attempts && updateVersion <= version) {
        return true;
      }
    }
    return true;
  }

  /** A monotonic millisecond source (the client's Clock). */
  @FunctionalInterface
  public interface LongSupplierMs {
    long nowMs();
  }
}
