package dev.spool.bench;

import dev.spool.bench.GroupBenchClients.Load;
import dev.spool.bench.GroupBenchClients.Member;
import dev.spool.bench.GroupBenchClients.Ownership;
import dev.spool.bench.GroupBenchClients.Polled;
import dev.spool.bench.GroupBenchClients.SystemKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * GroupBench's {@code consume} mode: the cost of reading through a group against {@code assign}.
 * RECORDS records of RECORD_SIZE bytes are written once into a PARTITIONS-partition topic; then,
 * rep by rep, one consumer reads all of them from the beginning by {@code assign} + {@code
 * seekToBeginning}, and one through a new group (subscribe, auto.offset.reset=earliest, each
 * client's defaults otherwise, so auto-commit and heartbeats run) per system in GROUPS. Each read
 * prints a {@code READ} line: records/s from the subscribe or assign call to the last record (join
 * included) and from the first record to the last (steady state). Runs on the main thread.
 */
final class GroupBenchConsume {
  private static final String TOPIC = "group-bench-read";

  private GroupBenchConsume() {}

  static void run(String bs, Map<String, String> a) throws Exception {
    List<SystemKind> groups = new ArrayList<>();
    for (String s : a.getOrDefault("groups", "spool").split(",")) {
      groups.add(SystemKind.parse(s));
    }
    SystemKind client = groups.get(0);
    int partitions = Integer.parseInt(a.getOrDefault("partitions", "12"));
    long records = Long.parseLong(a.getOrDefault("records", "1000000"));
    int size = Integer.parseInt(a.getOrDefault("record-size", "1024"));
    int reps = Integer.parseInt(a.getOrDefault("reps", "3"));
    GroupBenchClients.createTopic(client, bs, TOPIC, partitions);
    fill(client, bs, partitions, records, size);
    for (int rep = 1; rep <= reps; rep++) {
      read(client, bs, null, partitions, records, rep);
      for (SystemKind g : groups) {
        read(g, bs, "read-" + g.name().toLowerCase() + "-" + rep, partitions, records, rep);
      }
    }
  }

  private static void fill(SystemKind kind, String bs, int partitions, long records, int size) {
    byte[] value = new byte[size];
    long t0 = System.nanoTime();
    try (Load load = GroupBenchClients.load(kind, bs, TOPIC)) {
      for (long i = 0; i < records; i++) {
        load.send((int) (i % partitions), value);
      }
      load.flush();
    }
    System.out.printf(
        "filled %s: %d records of %d B in %.1f s%n",
        TOPIC, records, size, (System.nanoTime() - t0) / 1e9);
  }

  private static void read(
      SystemKind kind, String bs, String group, int partitions, long records, int rep) {
    String mode = group == null ? "assign" : "group-" + kind.name().toLowerCase().replace('_', '-');
    long start;
    long first = 0;
    long firstCount = 0;
    long count = 0;
    long deadline = System.currentTimeMillis() + 180_000;
    try (Member m = GroupBenchClients.member(kind, bs, group, "reader-" + rep, Map.of())) {
      start = System.nanoTime();
      if (group == null) {
        m.assignFromBeginning(TOPIC, partitions);
      } else {
        m.subscribe(TOPIC, NO_OWNERSHIP);
      }
      while (count < records) {
        if (System.currentTimeMillis() > deadline) {
          System.out.printf(
              "READ mode=%s rep=%d FAILED read %d of %d%n", mode, rep, count, records);
          return;
        }
        Polled p = m.poll(Duration.ofMillis(500));
        if (p.count() > 0 && first == 0) {
          first = System.nanoTime();
          firstCount = p.count();
        }
        count += p.count();
      }
      long end = System.nanoTime();
      System.out.printf(
          "READ mode=%s rep=%d records=%d total_s=%.3f records_per_sec=%.0f"
              + " steady_records_per_sec=%.0f%n",
          mode,
          rep,
          count,
          (end - start) / 1e9,
          count / ((end - start) / 1e9),
          (count - firstCount) / ((end - first) / 1e9));
    }
  }

  private static final Ownership NO_OWNERSHIP =
      new Ownership() {
        @Override
        public void assigned(List<Integer> partitions) {}

        @Override
        public void revoked(List<Integer> partitions) {}
      };
}
