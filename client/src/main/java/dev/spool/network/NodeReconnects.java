package dev.spool.network;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * When the client may connect to each node again. A connection that closes before it became ready
 * counts as a failed attempt and the wait before the next one doubles (up to {@code
 * reconnect.backoff.max.ms}, with jitter); one that closes after it was ready waits only the first
 * backoff, and a connection that becomes ready forgets the node's failures. It also remembers when
 * each node was last tried, so that {@link NetworkClient#leastLoadedNode} can give a node not yet
 * tried its turn before one that just failed.
 *
 * <p>Threads: the network client's I/O thread only, like its connections; nothing here locks.
 */
final class NodeReconnects {
  private final ExponentialBackoff backoff;
  private final Map<Integer, Integer> failures = new HashMap<>();
  private final Map<Integer, Long> reconnectAtNs = new HashMap<>();
  private final Map<Integer, Long> lastAttemptNs = new HashMap<>();

  NodeReconnects(NetworkConfig config, Random random) {
    this.backoff =
        new ExponentialBackoff(
            config.reconnectBackoffMs(),
            Math.max(config.reconnectBackoffMs(), config.reconnectBackoffMaxMs()),
            0.2,
            random);
  }

  /** A connection attempt to {@code nodeId} starts now. */
  void attempting(int nodeId, long nowNs) {
    lastAttemptNs.put(nodeId, nowNs);
  }

  /** When {@code nodeId} was last tried; {@link Long#MIN_VALUE} for never. */
  long lastAttemptNs(int nodeId) {
    return lastAttemptNs.getOrDefault(nodeId, Long.MIN_VALUE);
  }

  /** A connection to {@code nodeId} became ready: its failures are forgotten. */
  void ready(int nodeId) {
    failures.remove(nodeId);
    reconnectAtNs.remove(nodeId);
  }

  /** A connection to {@code nodeId} closed at {@code nowNs}; sets when the next may start. */
  void closed(int nodeId, boolean wasReady, long nowNs) {
    int failed = wasReady ? 0 : failures.merge(nodeId, 1, Integer::sum) - 1;
    reconnectAtNs.put(nodeId, nowNs + TimeUnit.MILLISECONDS.toNanos(backoff.backoffMs(failed)));
  }

  /** When the wait before connecting to {@code nodeId} ends, if it is still running at nowNs. */
  Long waitingUntilNs(int nodeId, long nowNs) {
    Long at = reconnectAtNs.get(nodeId);
    return at != null && at - nowNs > 0 ? at : null;
  }

  /** Milliseconds until a connection attempt to {@code nodeId} is allowed; 0 for now. */
  long delayMs(int nodeId, long nowNs) {
    Long at = reconnectAtNs.get(nodeId);
    return at == null ? 0 : Math.max(0, TimeUnit.NANOSECONDS.toMillis(at - nowNs));
  }
}
