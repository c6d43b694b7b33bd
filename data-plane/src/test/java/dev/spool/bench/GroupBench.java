package dev.spool.bench;

import dev.spool.bench.GroupBenchClients.Load;
import dev.spool.bench.GroupBenchClients.Member;
import dev.spool.bench.GroupBenchClients.Ownership;
import dev.spool.bench.GroupBenchClients.Polled;
import dev.spool.bench.GroupBenchClients.SystemKind;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

/**
 * Consumer-group benchmarks (run by scripts/bench-groups.sh, not a test), the same code against
 * Spool's client and Kafka's ({@link GroupBenchClients}):
 *
 * <ul>
 *   <li>{@code rebalance}: MEMBERS members (threads of this JVM) share a PARTITIONS-partition topic
 *       under a steady produce load. Each trial starts one more member as a separate JVM ({@code
 *       member} mode), so the group grows by one (join), then SIGKILLs that JVM (kill: it never
 *       leaves, its heartbeats just stop, the same for both systems; a thread could not be stopped
 *       that way through Kafka's client). A trial's figure is the time from the event (the joiner's
 *       subscribe call, or the kill) until every partition is owned by a live member and its owner
 *       has consumed a record of it since the event; for a join the joiner must also hold its share
 *       (PARTITIONS / (MEMBERS + 1) rounded down). Prints {@code JOIN_MS} and {@code KILL_MS}
 *       lines, a number or {@code failed} (no such moment before the trial's deadline). With {@code
 *       --joiner warm} the joiner JVM warms its client up in a group of its own before it
 *       subscribes (the rebalance, not the JVM's start, is timed); {@code cold} subscribes at once.
 *   <li>{@code commits}: MEMBERS members poll and commit their positions synchronously after every
 *       poll; prints commits/s (one commitSync call each) over a window once the group is stable.
 *   <li>{@code consume}: one consumer reads a prefilled topic from the beginning, by {@code assign}
 *       and through a new group of each listed system, interleaved rep by rep; prints records/s.
 * </ul>
 *
 * <p>Threads: main runs the trials; each local member has its own thread that alone calls its
 * client; a load thread sends; one thread reads the joiner JVM's stdout. {@link GroupState} is
 * shared by them and synchronized.
 */
public final class GroupBench {
  private static final String TOPIC = "group-bench";
  private static final int RECORD_BYTES = 100;

  private GroupBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = options(args);
    SystemKind kind = SystemKind.parse(a.getOrDefault("system", "spool"));
    String bs = a.get("bootstrap");
    switch (args[0]) {
      case "member" -> remoteMember(kind, bs, a, extra(kind, a));
      case "rebalance" -> rebalance(kind, bs, a);
      case "commits" -> commits(kind, bs, a);
      case "consume" -> GroupBenchConsume.run(bs, a);
      default -> throw new IllegalArgumentException("unknown mode: " + args[0]);
    }
    System.exit(0); // the clients' non-daemon threads of abandoned members must not keep us alive
  }

  static Map<String, String> options(String[] args) {
    Map<String, String> a = new HashMap<>();
    for (int i = 1; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("expected --option value at " + args[i]);
      }
      a.put(args[i].substring(2), args[i + 1]);
    }
    return a;
  }

  /**
   * Client settings beyond the defaults: Kafka's classic protocol takes its session timeout from
   * the client; Spool and Kafka's consumer protocol take it from the broker.
   */
  static Map<String, String> extra(SystemKind kind, Map<String, String> a) {
    Map<String, String> m = new HashMap<>();
    if (kind == SystemKind.KAFKA_CLASSIC && a.containsKey("classic-session-ms")) {
      m.put("session.timeout.ms", a.get("classic-session-ms"));
    }
    return m;
  }

  private static int intOpt(Map<String, String> a, String key, int dflt) {
    return Integer.parseInt(a.getOrDefault(key, String.valueOf(dflt)));
  }

  /**
   * Creates the topic and starts the load thread and {@code members} member threads of {@code
   * group} (committing after every poll when {@code commit}); returns the threads.
   */
  private static List<Thread> startGroup(
      SystemKind kind,
      String bs,
      Map<String, String> a,
      String group,
      int members,
      GroupState state,
      AtomicBoolean stop,
      boolean commit)
      throws Exception {
    int partitions = intOpt(a, "partitions", 60);
    GroupBenchClients.createTopic(kind, bs, TOPIC, partitions);
    List<Thread> threads = new ArrayList<>();
    threads.add(loadThread(kind, bs, partitions, intOpt(a, "rate", 3000), stop));
    for (int m = 0; m < members; m++) {
      String id = "member-" + m;
      threads.add(
          start(id, () -> runMember(kind, bs, group, id, extra(kind, a), state, stop, commit)));
    }
    return threads;
  }

  // ------------------------------------------------------------------ rebalance

  private static void rebalance(SystemKind kind, String bs, Map<String, String> a)
      throws Exception {
    int members = intOpt(a, "members", 10);
    int partitions = intOpt(a, "partitions", 60);
    int trials = intOpt(a, "trials", 20);
    int sessionMs = intOpt(a, "session-ms", 10_000);
    String group = "rebalance-" + System.currentTimeMillis();
    GroupState state = new GroupState(partitions);
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads = startGroup(kind, bs, a, group, members, state, stop, false);
    try {
      int share = partitions / members;
      awaitOrFail(state, () -> state.stable(members, share), 120_000, "the group never formed");
      for (int t = 0; t <= trials; t++) { // trial 0 warms both sides up and is not counted
        String label = t == 0 ? "warm-up" : "trial " + t;
        awaitOrFail(
            state,
            () -> state.stable(members, share),
            120_000,
            label + ": the group never settled");
        TimeUnit.MILLISECONDS.sleep(500);
        String joinerId = "joiner-" + t; // each trial's joiner is a new member
        Process joiner = spawnMember(kind, bs, group, joinerId, a);
        Thread reader = start("joiner-out", () -> readJoiner(joiner, joinerId, state));
        // 60 s from the spawn; a warm joiner spends up to 30 s warming up before it subscribes
        long deadlineMs = a.getOrDefault("joiner", "cold").equals("warm") ? 95_000 : 60_000;
        long join = state.awaitTrial(joinerId, partitions / (members + 1), deadlineMs);
        long kill = GroupState.FAILED;
        if (join != GroupState.FAILED) {
          joiner.destroyForcibly(); // SIGKILL: the member's heartbeats stop, it never leaves
          long killedAt = System.currentTimeMillis();
          state.memberGone(joinerId);
          state.startEvent(killedAt);
          kill = state.awaitTrial(null, 0, sessionMs + 30_000L);
        } else {
          joiner.destroyForcibly();
        }
        joiner.waitFor();
        reader.join();
        state.memberGone(joinerId);
        String j = join == GroupState.FAILED ? "failed" : String.valueOf(join);
        String k = kill == GroupState.FAILED ? "failed" : String.valueOf(kill);
        System.out.printf("%s: join %s ms, kill %s ms%n", label, j, k);
        if (t > 0) {
          System.out.println("JOIN_MS " + j);
          System.out.println("KILL_MS " + k);
        }
      }
    } finally {
      stop.set(true);
      for (Thread th : threads) {
        th.join(30_000);
      }
    }
  }

  private interface Condition {
    boolean holds();
  }

  private static void awaitOrFail(GroupState state, Condition c, long timeoutMs, String why)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (!c.holds()) {
      if (System.currentTimeMillis() > deadline) {
        throw new IllegalStateException(why + ": " + state);
      }
      TimeUnit.MILLISECONDS.sleep(10);
    }
  }

  private static Thread start(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** Sends RECORD_BYTES records round robin over the partitions at {@code rate} per second. */
  static Thread loadThread(
      SystemKind kind, String bs, int partitions, int rate, AtomicBoolean stop) {
    return start(
        "load",
        () -> {
          byte[] value = new byte[RECORD_BYTES];
          try (Load load = GroupBenchClients.load(kind, bs, TOPIC)) {
            long begin = System.nanoTime();
            long sent = 0;
            while (!stop.get()) {
              long due = (System.nanoTime() - begin) * rate / 1_000_000_000L;
              while (sent < due) {
                load.send((int) (sent % partitions), value);
                sent++;
              }
              TimeUnit.MILLISECONDS.sleep(2);
            }
            load.flush();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
  }

  /**
   * A local member's loop: polls and reports ownership and consumption to {@code state}; with
   * {@code commit}, commits its positions after every poll and counts it.
   */
  static void runMember(
      SystemKind kind,
      String bs,
      String group,
      String id,
      Map<String, String> extra,
      GroupState state,
      AtomicBoolean stop,
      boolean commit) {
    try (Member m = GroupBenchClients.member(kind, bs, group, id, extra)) {
      m.subscribe(TOPIC, state.ownership(id));
      while (!stop.get()) {
        Polled p;
        try {
          p = m.poll(Duration.ofMillis(commit ? 10 : 100));
        } catch (RuntimeException e) {
          state.error(id + " poll: " + e);
          continue;
        }
        long now = System.currentTimeMillis();
        p.countByPartition().keySet().forEach(part -> state.consumed(id, part, now));
        if (commit) {
          try {
            int n = m.commitOwnedPositions();
            if (n > 0) {
              state.committed(n);
            }
          } catch (RuntimeException e) {
            state.error(id + " commit: " + e);
          }
        }
      }
    }
  }

  private static Process spawnMember(
      SystemKind kind, String bs, String group, String id, Map<String, String> a)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.add("-Xmx256m");
    String logback = System.getProperty("logback.configurationFile");
    if (logback != null) {
      cmd.add("-Dlogback.configurationFile=" + logback);
    }
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), GroupBench.class.getName()));
    cmd.addAll(List.of("member", "--system", a.getOrDefault("system", "spool")));
    cmd.addAll(List.of("--bootstrap", bs, "--group", group, "--client-id", id));
    if (a.containsKey("classic-session-ms")) {
      cmd.addAll(List.of("--classic-session-ms", a.get("classic-session-ms")));
    }
    if (a.containsKey("joiner")) {
      cmd.addAll(List.of("--joiner", a.get("joiner")));
    }
    cmd.addAll(List.of("--partitions", String.valueOf(intOpt(a, "partitions", 60))));
    return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
  }

  /** Feeds the joiner JVM's report lines into {@code state}, until the JVM dies. */
  private static void readJoiner(Process p, String id, GroupState state) {
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        String[] f = line.split(" ");
        switch (f[0]) {
          case "SUBSCRIBE" -> state.startEvent(Long.parseLong(f[1]));
          case "WARMED" -> System.out.println(id + ": " + line);
          case "ASSIGNED" -> state.assigned(id, parts(f), Long.parseLong(f[1]));
          case "REVOKED" -> state.revoked(id, parts(f));
          case "CONSUMED" -> state.consumed(id, Integer.parseInt(f[2]), Long.parseLong(f[1]));
          default -> System.err.println("joiner: " + line);
        }
      }
    } catch (IOException e) {
      state.error("joiner output: " + e);
    }
  }

  private static List<Integer> parts(String[] f) {
    return f.length < 3 || f[2].isEmpty()
        ? List.of()
        : Arrays.stream(f[2].split(",")).map(Integer::valueOf).collect(Collectors.toList());
  }

  /**
   * The joiner JVM: reports its subscribe time, ownership changes and, per partition, its first
   * consumption after each assignment (then at most every 100 ms) on stdout. Stops when its stdin
   * closes, so it never outlives the driver. With {@code --joiner warm} it first warms up (see
   * {@link #warmUp}) and only then subscribes, so the trial times the group's rebalance rather than
   * the JVM's start; {@code cold} (the default) subscribes at once.
   */
  private static void remoteMember(
      SystemKind kind, String bs, Map<String, String> a, Map<String, String> x) throws Exception {
    String group = a.get("group");
    String id = a.get("client-id");
    PrintStream out = System.out;
    start(
        "stdin-watch",
        () -> {
          try {
            while (System.in.read() >= 0) {
              // nothing is sent; read until EOF
            }
          } catch (IOException e) {
            // the driver is gone either way
          }
          Runtime.getRuntime().halt(0);
        });
    String joiner = a.getOrDefault("joiner", "cold");
    if (joiner.equals("warm")) {
      warmUp(kind, bs, group, id, x, intOpt(a, "partitions", 60), out);
    } else if (!joiner.equals("cold")) {
      throw new IllegalArgumentException("--joiner must be warm or cold, not " + joiner);
    }
    Map<Integer, Long> lastReported = new HashMap<>();
    try (Member m = GroupBenchClients.member(kind, bs, group, id, x)) {
      Ownership o =
          new Ownership() {
            @Override
            public void assigned(List<Integer> ps) {
              ps.forEach(lastReported::remove);
              out.println("ASSIGNED " + System.currentTimeMillis() + " " + join(ps));
              out.flush();
            }

            @Override
            public void revoked(List<Integer> ps) {
              out.println("REVOKED " + System.currentTimeMillis() + " " + join(ps));
              out.flush();
            }
          };
      out.println("SUBSCRIBE " + System.currentTimeMillis());
      out.flush();
      m.subscribe(TOPIC, o);
      while (true) {
        Polled p = m.poll(Duration.ofMillis(100));
        long now = System.currentTimeMillis();
        for (int part : p.countByPartition().keySet()) {
          Long last = lastReported.get(part);
          if (last == null || now - last >= 100) {
            lastReported.put(part, now);
            out.println("CONSUMED " + now + " " + part);
          }
        }
        out.flush();
      }
    }
  }

  /**
   * Warms the joiner JVM up the way a process that has been running a while is warm: a member of a
   * group of its own (so the benched group never sees it) subscribes to the benched topic, reads
   * from the beginning until it has records of every partition (or 30 s pass), and leaves. That
   * loads and compiles the client's connection, group and fetch code before the trial's clock
   * starts. The trial's member is a new client with new connections, so the join it times still
   * includes finding the coordinator and every connection it opens.
   */
  private static void warmUp(
      SystemKind kind,
      String bs,
      String group,
      String id,
      Map<String, String> x,
      int partitions,
      PrintStream out) {
    long begin = System.currentTimeMillis();
    Set<Integer> seen = new HashSet<>();
    try (Member w =
        GroupBenchClients.member(kind, bs, group + "-warmup-" + id, id + "-warmup", x)) {
      w.subscribe(
          TOPIC,
          new Ownership() {
            @Override
            public void assigned(List<Integer> ps) {}

            @Override
            public void revoked(List<Integer> ps) {}
          });
      while (seen.size() < partitions && System.currentTimeMillis() - begin < 30_000) {
        seen.addAll(w.poll(Duration.ofMillis(100)).countByPartition().keySet());
      }
    }
    out.println(
        "WARMED in "
            + (System.currentTimeMillis() - begin)
            + " ms, records of "
            + seen.size()
            + " of "
            + partitions
            + " partitions read");
    out.flush();
  }

  private static String join(List<Integer> ps) {
    return ps.stream().map(String::valueOf).collect(Collectors.joining(","));
  }

  // ------------------------------------------------------------------ commits

  private static void commits(SystemKind kind, String bs, Map<String, String> a) throws Exception {
    int members = intOpt(a, "members", 20);
    int partitions = intOpt(a, "partitions", 60);
    int seconds = intOpt(a, "seconds", 30);
    String group = "commits-" + System.currentTimeMillis();
    GroupState state = new GroupState(partitions);
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads = startGroup(kind, bs, a, group, members, state, stop, true);
    try {
      awaitOrFail(
          state,
          () -> state.stable(members, partitions / members),
          120_000,
          "the group never formed");
      TimeUnit.SECONDS.sleep(intOpt(a, "warmup-s", 10));
      long[] before = state.commitCounters();
      long t0 = System.nanoTime();
      TimeUnit.SECONDS.sleep(seconds);
      long[] after = state.commitCounters();
      double s = (System.nanoTime() - t0) / 1e9;
      boolean stillStable = state.stable(members, partitions / members);
      System.out.printf(
          "RESULT commits_per_sec=%.1f offsets_per_sec=%.1f errors=%d members=%d seconds=%.1f"
              + " stable_at_end=%s%n",
          (after[0] - before[0]) / s,
          (after[1] - before[1]) / s,
          after[2] - before[2],
          members,
          s,
          stillStable);
    } finally {
      stop.set(true);
      for (Thread th : threads) {
        th.join(30_000);
      }
    }
  }
}
