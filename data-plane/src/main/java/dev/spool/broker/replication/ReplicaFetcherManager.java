package dev.spool.broker.replication;

import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import dev.spool.network.NetworkClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ObjLongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The follower fetchers of one broker: one {@link ReplicaFetcher} per source (leader) broker,
 * carrying every partition this broker follows from it — not a thread per partition. All fetchers
 * share one {@link NetworkClient} (one I/O thread) and one {@link ReplicationQuota}, the broker's
 * replication throttle, filled at the current image's {@code replicationThrottleBytesPerSec}.
 *
 * <p>Threads: {@link #onRoleChanged} from partition workers; fetchers run on the network client's
 * I/O thread. The assignment maps are guarded by this object's monitor (changes are rare: role
 * changes only).
 */
public final class ReplicaFetcherManager implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ReplicaFetcherManager.class);

  /** How followers fetch (from BrokerConfig's replica.fetch.* keys). */
  public record Settings(
      int maxWaitMs,
      int minBytes,
      int responseMaxBytes,
      int partitionMaxBytes,
      long backoffMs,
      long requestTimeoutMs) {}

  private final int brokerId;
  private final Settings settings;
  private final NetworkClient client;
  private final ReplicaManager replicas;
  private final Clock clock;
  private final ReplicationQuota quota;
  private final Map<Integer, ReplicaFetcher> fetchers = new HashMap<>();
  private final Map<TopicPartition, Integer> sourceOf = new HashMap<>();
  private boolean closed;
  private UnreachableLeaders unreachable;

  public ReplicaFetcherManager(
      int brokerId, Settings settings, NetworkClient client, ReplicaManager replicas, Clock clock) {
    this.brokerId = brokerId;
    this.settings = settings;
    this.client = client;
    this.replicas = replicas;
    this.clock = clock;
    // Read on every use: a ReplicationThrottleRecord changes it at runtime (0 = none).
    this.quota =
        new ReplicationQuota(clock, () -> replicas.image().replicationThrottleBytesPerSec());
  }

  /** Follows the partition's current leader, or stops fetching it when it leads or stopped. */
  public synchronized void onRoleChanged(Partition p) {
    if (closed) {
      return;
    }
    TopicPartition tp = p.topicPartition();
    int leader = p.role() == ReplicaRole.FOLLOWER ? p.leaderId() : -1;
    Integer current = sourceOf.get(tp);
    if (current != null && current != leader) {
      ReplicaFetcher f = fetchers.get(current);
      if (f != null) {
        f.remove(tp);
        if (f.isEmpty()) {
          fetchers.remove(current);
          f.close();
          log.info(
              "[node={}] stopped the fetcher from broker {} (no partitions left)",
              brokerId,
              current);
        }
      }
      sourceOf.remove(tp);
    }
    if (leader >= 0 && leader != brokerId) {
      ReplicaFetcher f =
          fetchers.computeIfAbsent(
              leader,
              id -> {
                log.info("[node={}] starting a fetcher from broker {}", brokerId, id);
                return new ReplicaFetcher(
                    brokerId, id, settings, ReplicaFetcher.Io.of(client), replicas, clock, quota);
              });
      sourceOf.put(tp, leader);
      f.add(p);
    }
  }

  /**
   * Calls {@code lag} with each followed partition and how many offsets its log end is behind the
   * leader's, as of the leader's last answer (partitions not answered yet are skipped). Any thread:
   * the fetcher list is copied under the monitor, the rest reads concurrent maps and volatile
   * offsets.
   */
  public void forEachLag(ObjLongConsumer<TopicPartition> lag) {
    List<ReplicaFetcher> current;
    synchronized (this) {
      current = new ArrayList<>(fetchers.values());
    }
    for (ReplicaFetcher f : current) {
      f.forEachLag(lag);
    }
  }

  /**
   * The leaders this broker follows whose fetcher has waited longer than {@code silenceMs} for an
   * answer (fetches unanswered, failed or unable to connect), in id order; none when {@code
   * silenceMs} is {@link Long#MAX_VALUE}. Read by every heartbeat, which reports them to the
   * controller (docs/architecture.md#isr-changes); the rules are {@link UnreachableLeaders}'. Any
   * thread.
   */
  public List<Integer> unreachableLeaders(long silenceMs) {
    if (silenceMs == Long.MAX_VALUE) {
      return List.of();
    }
    Map<Integer, Long> waits = new HashMap<>();
    synchronized (this) {
      fetchers.forEach((source, f) -> waits.put(source, f.waitingSinceMs()));
      if (unreachable == null) {
        unreachable = new UnreachableLeaders(silenceMs);
      }
      return unreachable.check(waits, clock.monotonicMs());
    }
  }

  /**
   * Record bytes of throttled (catch-up) fetching counted against the replication throttle since
   * start, over all fetchers. Any thread.
   */
  public long throttledBytesTotal() {
    return quota.throttledBytesTotal();
  }

  @Override
  public synchronized void close() {
    closed = true;
    fetchers.values().forEach(ReplicaFetcher::close);
    fetchers.clear();
    sourceOf.clear();
  }
}
