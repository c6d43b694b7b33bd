package dev.spool.quorum.bench;

import dev.spool.common.ErrorCode;
import dev.spool.config.Config;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.protocol.message.CreateTopicsResponse;
import dev.spool.protocol.message.DeleteTopicsRequest;
import dev.spool.quorum.QuorumClient;
import dev.spool.quorum.QuorumClientSettings;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.QuorumServer;
import dev.spool.quorum.QuorumTestCluster;
import dev.spool.quorum.image.PartitionState;
import dev.spool.quorum.lifecycle.BrokerLifecycle;
import dev.spool.quorum.lifecycle.BrokerState;
import dev.spool.quorum.message.AlterPartitionRequest;
import dev.spool.quorum.message.AlterPartitionResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Metadata-quorum benchmark (not part of the test command).
 *
 * <ol>
 *   <li>Throughput: AlterPartition writes (one PartitionChangeRecord each, the commonest metadata
 *       write) from several quorum clients with many requests in flight, each slot toggling the ISR
 *       of its own partition. Reports committed records/s and latency.
 *   <li>Failover (in-JVM voters only): stop the active controller, time until the next write
 *       commits; restart it, let it catch up; repeat. Reports n, failed trials (no commit within 60
 *       s) and p50/p99 over all trials.
 *   <li>Probe (any voters, e.g. while a script SIGKILLs the active controller): sequential writes
 *       for N seconds; reports every commit gap above 100 ms and the largest one.
 *   <li>ISR churn ({@code --mode churn}, instead of the above): a large cluster's brokers leave and
 *       rejoin the ISRs of their partitions in turn, every change through the brokers' own
 *       AlterPartition path ({@link IsrChurnBench}). Reports records/s, Raft entries/s and latency.
 * </ol>
 *
 * <pre>
 * # in-JVM 3 voters, everything:
 * java -cp ... dev.spool.quorum.bench.QuorumBench
 * # external voters, only measure (no servers started here):
 * java -cp ... dev.spool.quorum.bench.QuorumBench --voters 1@h:9093,2@h:9094,3@h:9095 \
 *     --cluster-id my-cluster --measure-only --failover-trials 0 --probe-seconds 60
 * </pre>
 *
 * Options: --clients N (8) --in-flight N per client (64) --seconds N (15) --warmup N (3)
 * --failover-trials N (20) --probe-seconds N (0) --partitions-per-request N (1) --kill-time-file F
 * (with --probe-seconds: wall-clock ms of a SIGKILL of the active controller, written by a script).
 * Churn options: --brokers N (5) --partitions N (10000) --topics N (100) --seconds N (15). The
 * driver registers fake brokers 1001-1003 (churn: 2001-200N) and creates topics placed on them
 * only.
 */
public final class QuorumBench {
  private static final int[] BROKERS = {1001, 1002, 1003};

  private final Map<String, String> opts;
  private QuorumTestCluster cluster;
  private Config config;
  private String clusterId;
  private final List<BrokerLifecycle> brokers = new ArrayList<>();
  private final List<QuorumClient> clients = new ArrayList<>();

  private QuorumBench(Map<String, String> opts) {
    this.opts = opts;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument " + a);
      }
      if (a.equals("--measure-only")) {
        opts.put("measure-only", "true");
      } else {
        opts.put(a.substring(2), args[++i]);
      }
    }
    int rc = 0;
    QuorumBench b = new QuorumBench(opts);
    try {
      b.run();
    } catch (Exception e) {
      e.printStackTrace();
      rc = 1;
    } finally {
      b.close();
    }
    System.exit(rc);
  }

  private int opt(String name, int dflt) {
    return Integer.parseInt(opts.getOrDefault(name, String.valueOf(dflt)));
  }

  private void run() throws Exception {
    boolean measureOnly = opts.containsKey("measure-only");
    if (opts.containsKey("voters")) {
      Map<String, String> p = new HashMap<>();
      p.put(QuorumConfig.VOTERS.name(), opts.get("voters"));
      p.put(QuorumConfig.CLIENT_REQUEST_TIMEOUT_MS.name(), "5000");
      p.put(QuorumConfig.CLIENT_TOTAL_TIMEOUT_MS.name(), "30000");
      config = QuorumConfig.parse(p);
      clusterId = opts.getOrDefault("cluster-id", "spool");
    } else {
      if (measureOnly) {
        throw new IllegalArgumentException("--measure-only needs --voters");
      }
      cluster =
          QuorumTestCluster.builder()
              .voters(3)
              .config(QuorumConfig.CLIENT_REQUEST_TIMEOUT_MS.name(), 5000)
              .config(QuorumConfig.CLIENT_TOTAL_TIMEOUT_MS.name(), 30000)
              .start();
      cluster.awaitActiveController();
      config = cluster.config();
      clusterId = QuorumTestCluster.CLUSTER_ID;
    }
    System.out.printf(
        "voters %s, cluster %s, %s%n",
        config.get(QuorumConfig.VOTERS), clusterId, cluster == null ? "external" : "in-JVM");
    QuorumClient admin = newClient();
    if ("churn".equals(opts.getOrDefault("mode", "throughput"))) {
      int n = opt("brokers", 5);
      int[] ids = new int[n];
      for (int i = 0; i < n; i++) {
        ids[i] = 2001 + i;
      }
      List<QuorumClient> brokerClients = startBrokers(ids);
      IsrChurnBench churn =
          new IsrChurnBench(
              brokers, brokerClients, admin, opt("partitions", 10_000), opt("topics", 100));
      churn.createTopics();
      churn.run(opt("seconds", 15));
      churn.deleteTopics();
      return;
    }
    startBrokers(BROKERS);
    String topic = "bench-" + UUID.randomUUID().toString().substring(0, 8);
    int clientsN = opt("clients", 8);
    int inFlight = opt("in-flight", 64);
    int perRequest = opt("partitions-per-request", 1);
    int partitions = (clientsN * inFlight + 3) * perRequest + 1;
    createTopic(admin, topic, partitions);
    waitFor(
        () -> brokers.get(0).image().partitions(topic).size() == partitions,
        30_000,
        "topic visible");
    throughput(topic, clientsN, inFlight, perRequest);
    int trials = opt("failover-trials", cluster == null ? 0 : 20);
    if (trials > 0) {
      if (cluster == null) {
        System.out.println(
            "failover trials need in-JVM voters; use --probe-seconds with a "
                + "script that kills the active controller");
      } else {
        failover(topic, partitions - 1, trials);
      }
    }
    int probe = opt("probe-seconds", 0);
    if (probe > 0) {
      probe(topic, partitions - 1, probe, opts.get("kill-time-file"));
    }
    admin
        .deleteTopics(DeleteTopicsRequest.newBuilder().addNames(topic).build())
        .get(30, TimeUnit.SECONDS);
  }

  /** Registers and starts brokers with these ids, each on its own client; waits until running. */
  private List<QuorumClient> startBrokers(int[] ids) throws InterruptedException {
    List<QuorumClient> own = new ArrayList<>();
    for (int id : ids) {
      QuorumClient c = newClient();
      own.add(c);
      BrokerLifecycle b =
          new BrokerLifecycle(
              new BrokerLifecycle.Settings(
                  id,
                  "bench-" + id,
                  9092,
                  "",
                  config.get(QuorumConfig.HEARTBEAT_INTERVAL_MS),
                  50,
                  1000),
              c,
              (img, d) -> {});
      brokers.add(b);
      b.start();
    }
    waitFor(
        () -> brokers.stream().allMatch(b -> b.state() == BrokerState.RUNNING),
        30_000,
        "bench brokers running");
    return own;
  }

  private QuorumClient newClient() {
    QuorumClient c = QuorumClient.create(QuorumClientSettings.of(clusterId, config));
    clients.add(c);
    return c;
  }

  private void createTopic(QuorumClient admin, String topic, int partitions) throws Exception {
    CreateTopicsRequest.Topic.Builder t =
        CreateTopicsRequest.Topic.newBuilder()
            .setName(topic)
            .setNumPartitions(-1)
            .setReplicationFactor(-1);
    for (int p = 0; p < partitions; p++) {
      CreateTopicsRequest.Assignment.Builder a =
          CreateTopicsRequest.Assignment.newBuilder().setPartition(p);
      for (int r = 0; r < 3; r++) {
        a.addReplicas(BROKERS[(p + r) % 3]);
      }
      t.addAssignments(a);
    }
    CreateTopicsResponse r =
        admin
            .createTopics(CreateTopicsRequest.newBuilder().addTopics(t).build())
            .get(60, TimeUnit.SECONDS);
    if (r.getTopics(0).getErrorCode() != ErrorCode.NONE) {
      throw new IllegalStateException("create " + topic + ": " + r.getTopics(0));
    }
  }

  /** One partition's state as the slot knows it; the slot owns it, one request at a time. */
  private final class Slot {
    final String topic;
    final int[] partitions;
    final QuorumClient client;
    final PartitionState[] states;

    Slot(String topic, int[] partitions, QuorumClient client) {
      this.topic = topic;
      this.partitions = partitions;
      this.client = client;
      this.states = new PartitionState[partitions.length];
      for (int i = 0; i < partitions.length; i++) {
        states[i] = brokers.get(0).image().partitions(topic).get(partitions[i]);
      }
    }

    /** All partitions of a slot share a leader (the driver places them so). */
    CompletableFuture<AlterPartitionResponse> send() {
      int leader = states[0].leader();
      BrokerLifecycle lb =
          brokers.stream().filter(b -> b.brokerId() == leader).findFirst().orElseThrow();
      AlterPartitionRequest.Builder req =
          AlterPartitionRequest.newBuilder().setBrokerId(leader).setBrokerEpoch(lb.brokerEpoch());
      for (PartitionState s : states) {
        List<Integer> isr =
            s.isr().size() == 3
                ? List.of(
                    s.leader(),
                    s.replicas().stream().filter(x -> x != s.leader()).findFirst().orElseThrow())
                : s.replicas();
        List<Integer> ordered = new ArrayList<>(isr);
        req.addPartitions(
            AlterPartitionRequest.Partition.newBuilder()
                .setTopic(topic)
                .setPartition(s.partition())
                .setLeaderEpoch(s.leaderEpoch())
                .setPartitionEpoch(s.partitionEpoch())
                .addAllNewIsr(ordered));
      }
      return client
          .alterPartition(req.build())
          .thenApply(
              r -> {
                for (int i = 0; i < r.getPartitionsCount(); i++) {
                  AlterPartitionResponse.PartitionResult pr = r.getPartitions(i);
                  PartitionState s = states[i];
                  states[i] =
                      new PartitionState(
                          s.topicId(),
                          s.topic(),
                          s.partition(),
                          s.replicas(),
                          pr.getIsrList().isEmpty() ? s.isr() : pr.getIsrList(),
                          pr.getLeader(),
                          pr.getLeaderEpoch(),
                          pr.getPartitionEpoch());
                }
                return r;
              });
    }
  }

  private void throughput(String topic, int clientsN, int inFlight, int perRequest)
      throws Exception {
    int seconds = opt("seconds", 15);
    int warmup = opt("warmup", 3);
    List<Slot> slots = new ArrayList<>();
    int next = 0;
    for (int c = 0; c < clientsN; c++) {
      QuorumClient client = newClient();
      for (int k = 0; k < inFlight; k++) {
        // Partitions p, p+3, p+6, ... share a leader (replicas rotate by partition mod 3).
        int[] ps = new int[perRequest];
        for (int j = 0; j < perRequest; j++) {
          ps[j] = (next / 3) * 3 * perRequest + (next % 3) + 3 * j;
        }
        next++;
        slots.add(new Slot(topic, ps, client));
      }
    }
    Histogram latency = new ConcurrentHistogram(60_000_000L, 3);
    AtomicLong records = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    AtomicBoolean measuring = new AtomicBoolean();
    AtomicBoolean running = new AtomicBoolean(true);
    CountDownLatch done = new CountDownLatch(slots.size());
    for (Slot s : slots) {
      loop(s, latency, records, errors, measuring, running, done);
    }
    Thread.sleep(warmup * 1000L);
    measuring.set(true);
    long t0 = System.nanoTime();
    long r0 = records.get();
    Thread.sleep(seconds * 1000L);
    long r1 = records.get();
    double secs = (System.nanoTime() - t0) / 1e9;
    measuring.set(false);
    running.set(false);
    done.await(60, TimeUnit.SECONDS);
    double rate = (r1 - r0) / secs;
    System.out.printf(
        "throughput: %d clients x %d in flight x %d partitions/request: %.0f "
            + "records/s (%.0f requests/s), latency p50 %.1f ms p99 %.1f ms max %.1f ms, "
            + "%d partition errors%n",
        clientsN,
        inFlight,
        perRequest,
        rate,
        rate / perRequest,
        latency.getValueAtPercentile(50) / 1000.0,
        latency.getValueAtPercentile(99) / 1000.0,
        latency.getMaxValue() / 1000.0,
        errors.get());
    System.out.printf(
        "RESULT records_per_sec=%.0f latency_p50_ms=%.1f latency_p99_ms=%.1f partition_errors=%d%n",
        rate,
        latency.getValueAtPercentile(50) / 1000.0,
        latency.getValueAtPercentile(99) / 1000.0,
        errors.get());
  }

  private void loop(
      Slot s,
      Histogram latency,
      AtomicLong records,
      AtomicLong errors,
      AtomicBoolean measuring,
      AtomicBoolean running,
      CountDownLatch done) {
    if (!running.get()) {
      done.countDown();
      return;
    }
    long start = System.nanoTime();
    s.send()
        .whenComplete(
            (r, e) -> {
              if (e == null) {
                long ok =
                    r.getPartitionsList().stream()
                        .filter(p -> p.getErrorCode() == ErrorCode.NONE)
                        .count();
                records.addAndGet(ok);
                errors.addAndGet(r.getPartitionsCount() - ok);
                if (measuring.get()) {
                  latency.recordValue(Math.min((System.nanoTime() - start) / 1000, 60_000_000L));
                }
              } else {
                errors.incrementAndGet();
              }
              loop(s, latency, records, errors, measuring, running, done);
            });
  }

  /** Sequential writes on one partition; returns the completion times (ns) of successes. */
  private final class Prober implements Runnable {
    final Slot slot;
    final AtomicBoolean running = new AtomicBoolean(true);
    final List<long[]> commits = java.util.Collections.synchronizedList(new ArrayList<>());
    final Thread thread = new Thread(this, "probe");

    Prober(String topic, int partition) {
      this.slot = new Slot(topic, new int[] {partition}, newClient());
    }

    @Override
    public void run() {
      while (running.get()) {
        long sent = System.nanoTime();
        try {
          AlterPartitionResponse r = slot.send().get(60, TimeUnit.SECONDS);
          if (r.getErrorCode() == ErrorCode.NONE
              && r.getPartitions(0).getErrorCode() == ErrorCode.NONE) {
            commits.add(new long[] {sent, System.nanoTime()});
          }
        } catch (Exception e) {
          // the quorum is electing: try again
        }
      }
    }
  }

  private void failover(String topic, int partition, int trials) throws Exception {
    List<Long> results = new ArrayList<>(); // null: no write committed within 60 s of the stop
    for (int t = 0; t < trials; t++) {
      QuorumServer active = cluster.awaitActiveController(Duration.ofSeconds(60));
      int id = active.nodeId();
      Prober p = new Prober(topic, partition);
      p.thread.start();
      waitFor(() -> p.commits.size() > 5, 30_000, "probe writes");
      long stopNs = System.nanoTime();
      CompletableFuture<Void> stopping =
          CompletableFuture.runAsync(
              () -> {
                try {
                  cluster.stop(id);
                } catch (Exception e) {
                  throw new RuntimeException(e);
                }
              });
      boolean committed =
          within(
              () -> {
                synchronized (p.commits) {
                  return p.commits.stream().anyMatch(c -> c[0] > stopNs);
                }
              },
              60_000);
      Long ms = null;
      if (committed) {
        synchronized (p.commits) {
          long firstNs =
              p.commits.stream()
                  .filter(c -> c[0] > stopNs)
                  .mapToLong(c -> c[1])
                  .min()
                  .orElseThrow();
          ms = TimeUnit.NANOSECONDS.toMillis(firstNs - stopNs);
        }
      }
      results.add(ms);
      p.running.set(false);
      p.thread.join(60_000);
      p.slot.client.close();
      clients.remove(p.slot.client);
      stopping.get(60, TimeUnit.SECONDS);
      System.out.printf(
          "failover trial %d: controller %d stopped, next committed write after %s%n",
          t + 1, id, committed ? ms + " ms" : "none within 60 s (failed)");
      QuorumServer back = cluster.restart(id);
      QuorumServer leader = cluster.awaitActiveController(Duration.ofSeconds(60));
      waitFor(() -> back.appliedIndex() >= leader.appliedIndex() - 1, 60_000, "catch up");
    }
    // A failed trial counts as slower than any that committed: percentiles (nearest rank) are over
    // all trials, and one that lands on a failure says so instead of dropping it.
    List<Long> sorted = results.stream().filter(Objects::nonNull).sorted().toList();
    int failed = results.size() - sorted.size();
    String p50 = nearestRank(sorted, results.size(), 0.50);
    String p99 = nearestRank(sorted, results.size(), 0.99);
    String max = nearestRank(sorted, results.size(), 1.0);
    System.out.printf(
        "failover over n=%d trials, %d failed (ms): p50 %s, p99 %s, max %s; all %s%n",
        results.size(), failed, p50, p99, max, results);
    System.out.printf(
        "RESULT failover_trials=%d failover_failed=%d failover_p50_ms=%s failover_p99_ms=%s"
            + " failover_max_ms=%s%n",
        results.size(), failed, p50, p99, max);
  }

  /** The nearest-rank percentile of {@code n} trials whose successes are {@code sorted}. */
  private static String nearestRank(List<Long> sorted, int n, double p) {
    int rank = Math.max(1, (int) Math.ceil(p * n));
    return rank <= sorted.size() ? String.valueOf(sorted.get(rank - 1)) : "failed";
  }

  /**
   * Sequential writes for {@code seconds}, reporting commit gaps. With {@code killTimeFile} (a file
   * into which a script writes the wall-clock ms at which it SIGKILLed the active controller) it
   * also reports the failover time as the in-JVM trials measure it: from the kill to the commit of
   * the first write sent after it. Gaps that ended before the kill are not failover (a restarted
   * voter catching up, a slow start).
   */
  private void probe(String topic, int partition, int seconds, String killTimeFile)
      throws Exception {
    Prober p = new Prober(topic, partition);
    long start = System.nanoTime();
    long startEpochMs = System.currentTimeMillis();
    System.out.println("probe: started"); // scripts wait for this line before they kill
    System.out.flush();
    p.thread.start();
    Thread.sleep(seconds * 1000L);
    p.running.set(false);
    p.thread.join(60_000);
    long prev = start;
    long maxGap = 0;
    synchronized (p.commits) {
      for (long[] c : p.commits) {
        long gap = TimeUnit.NANOSECONDS.toMillis(c[1] - prev);
        if (gap > 100) {
          System.out.printf(
              "probe: commit gap of %d ms ending %.1f s into the probe%n",
              gap, (c[1] - start) / 1e9);
        }
        maxGap = Math.max(maxGap, gap);
        prev = c[1];
      }
    }
    System.out.printf(
        "probe: %d sequential writes in %d s, largest commit gap %d ms%n",
        p.commits.size(), seconds, maxGap);
    System.out.printf("RESULT probe_writes=%d probe_max_gap_ms=%d%n", p.commits.size(), maxGap);
    if (killTimeFile == null) {
      return;
    }
    java.nio.file.Path f = java.nio.file.Path.of(killTimeFile);
    if (!java.nio.file.Files.exists(f)) {
      System.out.println("probe: no kill time in " + killTimeFile + ": no failover measured");
      return;
    }
    long killEpochMs = Long.parseLong(java.nio.file.Files.readString(f).trim());
    long killNs = start + TimeUnit.MILLISECONDS.toNanos(killEpochMs - startEpochMs);
    if (killNs < start) {
      System.out.println("probe: the kill came before the probe started: no failover measured");
      return;
    }
    synchronized (p.commits) {
      p.commits.stream()
          .filter(c -> c[0] > killNs)
          .findFirst()
          .ifPresentOrElse(
              c ->
                  System.out.printf(
                      "RESULT probe_failover_ms=%d%n",
                      TimeUnit.NANOSECONDS.toMillis(c[1] - killNs)),
              () -> {
                // Counted as a failed trial by the script, not dropped.
                System.out.printf(
                    "probe: no write committed between the kill and the end of the probe (%d ms)%n",
                    TimeUnit.NANOSECONDS.toMillis(
                        start + TimeUnit.SECONDS.toNanos(seconds) - killNs));
                System.out.println("RESULT probe_failover_ms=failed");
              });
    }
  }

  static void waitFor(java.util.function.BooleanSupplier c, long timeoutMs, String what)
      throws InterruptedException {
    if (!within(c, timeoutMs)) {
      throw new IllegalStateException("timed out waiting for " + what);
    }
  }

  /** Whether {@code c} held within {@code timeoutMs}. */
  private static boolean within(java.util.function.BooleanSupplier c, long timeoutMs)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (!c.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(5); // a benchmark driver's poll, not test logic
    }
    return true;
  }

  private void close() {
    brokers.forEach(BrokerLifecycle::halt);
    clients.forEach(QuorumClient::close);
    if (cluster != null) {
      cluster.close();
    }
  }
}
