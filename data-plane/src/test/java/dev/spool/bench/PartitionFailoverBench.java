package dev.spool.bench;

import dev.spool.client.Admin;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.client.RecordMetadata;
import dev.spool.client.TopicDescription;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Partition-leader failover through real node processes (run by scripts/bench.sh, not a test): a
 * producer writes acks=all records to one partition back to back; the leader's node is killed with
 * SIGKILL (through scripts/cluster.sh, so only our own process is signalled); the time from the
 * kill to the first acknowledged write after it is one trial. The node is restarted and the ISR
 * allowed to refill before the next trial.
 *
 * <pre>java -cp ... dev.spool.bench.PartitionFailoverBench BOOTSTRAP CLUSTER_DIR CLUSTER_SH TRIALS
 * </pre>
 *
 * Prints one line per trial and a final {@code RESULT failover_p50_ms=… p99 … max …}.
 */
public final class PartitionFailoverBench {
  private static final String TOPIC = "failover-bench";

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String clusterDir = args[1];
    String clusterSh = args[2];
    int trials = Integer.parseInt(args[3]);
    try (Admin admin = new Admin(Map.of("bootstrap.servers", bootstrap))) {
      try {
        admin
            .createTopic(new dev.spool.client.NewTopic(TOPIC, 1, 3, Map.of()))
            .get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        System.out.println("topic exists or creation failed: " + e.getMessage());
      }
      List<Long> results = new ArrayList<>();
      for (int t = 1; t <= trials; t++) {
        waitForFullIsr(admin);
        int leader =
            admin.describeTopic(TOPIC).get(10, TimeUnit.SECONDS).partitions().get(0).leader();
        long ms = trial(bootstrap, clusterDir, clusterSh, leader);
        results.add(ms);
        System.out.printf(
            "trial %d: killed leader %d, first acknowledged write after %d ms%n", t, leader, ms);
        run(clusterSh, "restart", String.valueOf(leader), "--dir", clusterDir);
      }
      Collections.sort(results);
      long p50 = results.get((results.size() - 1) / 2);
      long p99 = results.get((int) Math.ceil(results.size() * 0.99) - 1);
      System.out.printf(
          "RESULT trials=%d failover_p50_ms=%d failover_p99_ms=%d failover_max_ms=%d%n",
          results.size(), p50, p99, results.get(results.size() - 1));
    }
  }

  private static long trial(String bootstrap, String clusterDir, String clusterSh, int leader)
      throws Exception {
    try (Producer producer =
        new Producer(
            Map.of(
                "bootstrap.servers",
                bootstrap,
                "acks",
                "all",
                "linger.ms",
                "0",
                "delivery.timeout.ms",
                "60000",
                "request.timeout.ms",
                "5000"))) {
      byte[] value = "failover-probe".getBytes(StandardCharsets.UTF_8);
      for (int i = 0; i < 50; i++) { // warm: connections and metadata in place before the kill
        producer
            .send(new ProducerRecord(TOPIC, 0, null, value, List.of(), null))
            .get(30, TimeUnit.SECONDS);
      }
      long killedAt = System.nanoTime();
      run(clusterSh, "kill", String.valueOf(leader), "--dir", clusterDir, "--signal", "KILL");
      while (true) {
        try {
          RecordMetadata m =
              producer
                  .send(new ProducerRecord(TOPIC, 0, null, value, List.of(), null))
                  .get(60, TimeUnit.SECONDS);
          if (m.offset() >= 0) {
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
          }
        } catch (java.util.concurrent.ExecutionException e) {
          // A send that failed definitively (e.g. delivery timeout) is retried by a new send.
        }
      }
    }
  }

  private static void waitForFullIsr(Admin admin) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (System.nanoTime() < deadline) {
      TopicDescription d = admin.describeTopic(TOPIC).get(10, TimeUnit.SECONDS);
      var p = d.partitions().get(0);
      if (p.leader() >= 0 && p.isr().size() == 3) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(200); // polling a remote cluster between benchmark trials
    }
    throw new IllegalStateException("ISR of " + TOPIC + " did not refill within 120 s");
  }

  private static void run(String... cmd) throws Exception {
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    if (p.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", cmd) + " exited with " + p.exitValue());
    }
  }
}
