package dev.spool.testing.probe;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.BrokerInfo;
import dev.spool.protocol.message.DescribeClusterResponse;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.PartitionMetadata;
import dev.spool.protocol.message.TopicMetadata;
import dev.spool.testing.RawFrameClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import javax.net.ssl.SSLSocketFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a cluster looks like from its nodes, asked of each serving broker directly ({@link
 * NodeProbe}): the active controller and partition leaders as the node with the newest view says
 * (highest Raft term, highest leader epoch), so a partitioned node's stale belief never wins;
 * readiness (a quorum leader, every serving broker registered and unfenced, with a broker epoch
 * newer than before its last start); full ISRs. Both cluster harnesses use it.
 *
 * <p>Thread-safe: nemeses, observers and the test thread call it concurrently. Probes run on daemon
 * threads of its own, so a stuck probe never holds the JVM.
 */
public final class ClusterProbe implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterProbe.class);

  /** The nodes a probe can ask. */
  public interface Members {
    /** Brokers running and not paused. */
    List<Integer> servingBrokers();

    /** Where {@code node}'s broker listens (its own address, not a proxy's). */
    InetSocketAddress brokerAddress(int node);

    /** TLS for the probes when the brokers' Spool listeners speak it; null for plaintext. */
    default SSLSocketFactory tls() {
      return null;
    }

    /** The login for the probes when the brokers' Spool listeners speak SASL; null for none. */
    default RawFrameClient.Login login() {
      return null;
    }
  }

  /** A question for one node that may fail with an I/O error. */
  private interface Question<T> {
    T ask(int node) throws IOException;
  }

  private final Members members;
  private final int timeoutMs;
  private final Map<Integer, Long> epochBeforeStart = new HashMap<>();
  private final Map<Integer, Long> lastSeenEpoch = new HashMap<>();
  private final ExecutorService probeThreads =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "cluster-probe");
            t.setDaemon(true);
            return t;
          });

  public ClusterProbe(Members members, int timeoutMs) {
    this.members = members;
    this.timeoutMs = timeoutMs;
  }

  /** A probe that talks to {@code node}'s broker directly. */
  public NodeProbe probe(int node) {
    return new NodeProbe(members.brokerAddress(node), timeoutMs, members.tls(), members.login());
  }

  /**
   * Call before (re)starting {@code node}: readiness then waits for a broker epoch newer than any
   * it showed before.
   */
  public synchronized void beforeStart(int node) {
    Long seen = lastSeenEpoch.get(node);
    if (seen != null) {
      epochBeforeStart.merge(node, seen, Math::max);
    }
  }

  /** The quorum leader as the serving broker with the highest Raft term sees it. */
  public OptionalInt activeController() {
    DescribeClusterResponse best = null;
    for (DescribeClusterResponse d : askAll(n -> probe(n).describeCluster()).values()) {
      if (d.getErrorCode() == ErrorCode.NONE
          && d.hasQuorum()
          && d.getQuorum().getLeaderId() >= 0
          && (best == null || d.getQuorum().getTerm() > best.getQuorum().getTerm())) {
        best = d;
      }
    }
    return best == null ? OptionalInt.empty() : OptionalInt.of(best.getQuorum().getLeaderId());
  }

  /**
   * Asks every serving broker at once (a node that cannot reach the quorum may take the whole probe
   * timeout to answer DescribeCluster; one after the other that would add up); nodes that fail to
   * answer are left out.
   */
  private <T> Map<Integer, T> askAll(Question<T> q) {
    Map<Integer, Future<T>> futures = new TreeMap<>();
    for (int n : members.servingBrokers()) {
      futures.put(n, probeThreads.submit(() -> q.ask(n)));
    }
    Map<Integer, T> out = new TreeMap<>();
    futures.forEach(
        (n, f) -> {
          try {
            out.put(n, f.get());
          } catch (ExecutionException e) {
            LOG.debug("n{} did not answer: {}", n, e.getCause().toString());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    return out;
  }

  public OptionalInt partitionLeader(TopicPartition partition) {
    return newestView(partition)
        .map(p -> p.getLeaderId() < 0 ? OptionalInt.empty() : OptionalInt.of(p.getLeaderId()))
        .orElse(OptionalInt.empty());
  }

  public List<Integer> partitionReplicas(TopicPartition partition) {
    return newestView(partition)
        .map(PartitionMetadata::getReplicasList)
        .map(List::copyOf)
        .orElse(List.of());
  }

  public List<Integer> partitionIsr(TopicPartition partition) {
    return newestView(partition)
        .map(PartitionMetadata::getIsrList)
        .map(List::copyOf)
        .orElse(List.of());
  }

  /** The partition as the node with the highest leader epoch for it describes it. */
  public Optional<PartitionMetadata> newestView(TopicPartition partition) {
    return views(List.of(partition.topic())).values().stream()
        .map(m -> partitionOf(m, partition))
        .filter(Optional::isPresent)
        .map(Optional::get)
        .max(
            (a, b) ->
                a.getLeaderEpoch() != b.getLeaderEpoch()
                    ? Integer.compare(a.getLeaderEpoch(), b.getLeaderEpoch())
                    : Integer.compare(a.getPartitionEpoch(), b.getPartitionEpoch()));
  }

  /**
   * Each serving node's own metadata for {@code topics} (nodes that did not answer are left out).
   */
  public Map<Integer, MetadataResponse> views(Collection<String> topics) {
    return askAll(n -> probe(n).metadata(topics));
  }

  private static Optional<PartitionMetadata> partitionOf(MetadataResponse m, TopicPartition tp) {
    for (TopicMetadata t : m.getTopicsList()) {
      if (t.getName().equals(tp.topic()) && t.getErrorCode() == ErrorCode.NONE) {
        for (PartitionMetadata p : t.getPartitionsList()) {
          if (p.getPartition() == tp.partition()) {
            return Optional.of(p);
          }
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Waits until the quorum has a leader and every serving broker is registered and unfenced, with a
   * broker epoch newer than any it had before its last (re)start.
   */
  public void awaitReady(Duration timeout) {
    String[] last = {"no node answered yet"};
    await(
        "cluster ready",
        timeout,
        () -> {
          String problem = readiness();
          last[0] = problem;
          return problem == null;
        },
        () -> last[0]);
  }

  /** Null when ready, else what is missing. */
  private String readiness() {
    List<Integer> serving = members.servingBrokers();
    if (serving.isEmpty()) {
      return "no broker is running";
    }
    String problem = "no node answered DescribeCluster";
    for (int n : serving) {
      DescribeClusterResponse d;
      try {
        d = probe(n).describeCluster();
      } catch (IOException e) {
        problem = "n" + n + ": " + e.getMessage();
        continue;
      }
      if (d.getErrorCode() != ErrorCode.NONE || !d.hasQuorum() || d.getQuorum().getLeaderId() < 0) {
        problem =
            "n"
                + n
                + " sees no quorum leader ("
                + d.getErrorCode()
                + " "
                + d.getErrorMessage()
                + ")";
        continue;
      }
      Map<Integer, BrokerInfo> brokers = new HashMap<>();
      d.getBrokersList().forEach(b -> brokers.put(b.getNodeId(), b));
      String missing = missingBroker(n, serving, brokers);
      if (missing == null) {
        synchronized (this) {
          for (int b : serving) {
            lastSeenEpoch.put(b, brokers.get(b).getBrokerEpoch());
          }
        }
        return null;
      }
      problem = missing;
    }
    return problem;
  }

  /**
   * The first serving broker {@code n} does not see registered, unfenced and restarted; or null.
   */
  private String missingBroker(int n, List<Integer> serving, Map<Integer, BrokerInfo> brokers) {
    for (int b : serving) {
      BrokerInfo info = brokers.get(b);
      long before;
      synchronized (this) {
        before = epochBeforeStart.getOrDefault(b, -1L);
      }
      if (info == null || info.getFenced() || info.getBrokerEpoch() <= before) {
        return "n"
            + n
            + " sees broker "
            + b
            + (info == null
                ? " unregistered"
                : info.getFenced()
                    ? " fenced"
                    : " still at its old epoch " + info.getBrokerEpoch());
      }
    }
    return null;
  }

  /**
   * Waits until every partition of {@code topics} has a leader and all its replicas in the ISR, as
   * the node with the newest view of each partition sees it.
   */
  public void awaitFullIsr(Collection<String> topics, Duration timeout) {
    String[] last = {"no answer yet"};
    await(
        "full ISR of " + topics,
        timeout,
        () -> {
          last[0] = isrProblem(topics);
          return last[0] == null;
        },
        () -> last[0]);
  }

  private String isrProblem(Collection<String> topics) {
    Map<Integer, MetadataResponse> views = views(topics);
    if (views.isEmpty()) {
      return "no node answered Metadata";
    }
    Map<TopicPartition, PartitionMetadata> newest = new TreeMap<>();
    for (MetadataResponse m : views.values()) {
      for (TopicMetadata t : m.getTopicsList()) {
        if (t.getErrorCode() != ErrorCode.NONE) {
          continue;
        }
        for (PartitionMetadata p : t.getPartitionsList()) {
          newest.merge(
              new TopicPartition(t.getName(), p.getPartition()),
              p,
              (a, b) -> b.getPartitionEpoch() > a.getPartitionEpoch() ? b : a);
        }
      }
    }
    for (String topic : topics) {
      if (newest.keySet().stream().noneMatch(tp -> tp.topic().equals(topic))) {
        return "topic " + topic + " unknown";
      }
    }
    for (Map.Entry<TopicPartition, PartitionMetadata> e : newest.entrySet()) {
      PartitionMetadata p = e.getValue();
      if (p.getLeaderId() < 0 || p.getIsrCount() != p.getReplicasCount()) {
        return e.getKey()
            + " leader "
            + p.getLeaderId()
            + " isr "
            + p.getIsrList()
            + " of "
            + p.getReplicasList();
      }
    }
    return null;
  }

  /**
   * Polls {@code condition} every 200 ms until true or {@code timeout}; then throws with {@code
   * why}.
   */
  public static void await(
      String what, Duration timeout, BooleanSupplier condition, Supplier<String> why) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (condition.getAsBoolean()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "timed out after " + timeout.toSeconds() + " s waiting for " + what + ": " + why.get());
      }
      try {
        Thread.sleep(200); // polling real processes: there is nothing to be notified by
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + what, e);
      }
    }
  }

  @Override
  public void close() {
    probeThreads.shutdownNow();
  }
}
