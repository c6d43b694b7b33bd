package dev.spool.chaos.run;

import dev.spool.chaos.nemesis.FaultKind;
import dev.spool.chaos.nemesis.NemesisFamily;
import dev.spool.chaos.nemesis.PlannedFault;
import dev.spool.chaos.nemesis.Schedule;
import dev.spool.chaos.nemesis.ScheduleConfig;
import dev.spool.chaos.nemesis.Target;
import dev.spool.common.TopicPartition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;

/**
 * Named short scenarios with fixed fault sequences: the JUnit chaos tier runs them, and {@code
 * scripts/chaos.sh --scenario NAME --seed S} re-runs any of them exactly. Each covers one nemesis
 * family with every kind of fault it has; the seed picks the random nodes, the disk damage and the
 * workload's partitions. Faults are 5–6 s (a broker session times out after 1.5 s, so pauses and
 * kills get nodes fenced and leaders moved) with 5 s of quiet between them.
 */
public final class Scenarios {
  private Scenarios() {}

  /**
   * One scenario: its families, fault-phase length and faults (built once the partitions are
   * known); {@code secure} runs it with security on ({@link ChaosOptions#secure}).
   */
  public record Scenario(
      String name,
      String what,
      Set<NemesisFamily> families,
      Duration duration,
      Function<List<TopicPartition>, List<Spec>> faults,
      boolean unsafe,
      boolean secure) {}

  /** A fault of a scenario before ids are assigned: start and length in ms. */
  public record Spec(
      FaultKind kind, Target target, long startMs, long durationMs, Map<String, Long> params) {
    static Spec of(FaultKind kind, Target target, long startMs, long durationMs) {
      return new Spec(kind, target, startMs, durationMs, Map.of());
    }
  }

  private static final Map<String, Scenario> ALL = new LinkedHashMap<>();

  static {
    add(
        new Scenario(
            "process",
            "SIGKILL and SIGSTOP (longer than the session timeout) of a partition leader, the "
                + "active controller and a random node",
            EnumSet.of(NemesisFamily.KILL, NemesisFamily.PAUSE),
            Duration.ofSeconds(50),
            Scenarios::processFaults,
            false,
            false));
    add(
        new Scenario(
            "secure",
            "the process faults with security on: mutual TLS on the listeners, replication and "
                + "the quorum, the authorizer on, the workload holding only its ACLs and an intruder "
                + "without any that must be refused throughout",
            EnumSet.of(NemesisFamily.KILL, NemesisFamily.PAUSE),
            Duration.ofSeconds(50),
            Scenarios::processFaults,
            false,
            true));
    add(
        new Scenario(
            "partition",
            "IP-level partitions: a leader cut from its followers but not from the quorum, "
                + "majority/minority, one-way loss, an isolated node with a kill inside, the active controller isolated",
            EnumSet.of(NemesisFamily.PARTITION, NemesisFamily.KILL),
            Duration.ofSeconds(63),
            tps ->
                List.of(
                    // Longer than replica.silent.time.max.ms (2 s) and the controller's move away
                    // from a leader its ISR cannot reach: with 3 nodes every partition has the cut
                    // leader as a replica, so acks=all writes wait until the ISRs shrink or the
                    // leadership moves, and must go on before the heal.
                    Spec.of(
                        FaultKind.ISOLATE_LEADER_FROM_FOLLOWERS,
                        new Target.PartitionLeader(tps.get(0)),
                        5_000,
                        8_000),
                    Spec.of(
                        FaultKind.SPLIT_MAJORITY_MINORITY,
                        new Target.MajorityMinority(1),
                        18_000,
                        6_000),
                    Spec.of(FaultKind.ONE_WAY_LOSS, new Target.NodePair(0, 1), 29_000, 5_000),
                    Spec.of(FaultKind.ISOLATE_NODE, new Target.RandomNode(2), 39_000, 8_000),
                    Spec.of(FaultKind.KILL, new Target.RandomNode(0), 41_000, 4_000),
                    Spec.of(
                        FaultKind.ISOLATE_CONTROLLER_FROM_BROKERS,
                        new Target.ActiveController(),
                        52_000,
                        6_000)),
            false,
            false));
    add(
        new Scenario(
            "disk",
            "a node killed and its newest segment torn or bit-flipped, a checkpoint torn or "
                + "bit-flipped, then restarted",
            EnumSet.of(NemesisFamily.DISK),
            Duration.ofSeconds(44),
            tps ->
                List.of(
                    Spec.of(FaultKind.TORN_SEGMENT_TAIL, new Target.RandomNode(0), 5_000, 4_000),
                    Spec.of(
                        FaultKind.BITFLIP_SEGMENT_TAIL, new Target.RandomNode(1), 14_000, 4_000),
                    Spec.of(FaultKind.TORN_CHECKPOINT, new Target.RandomNode(2), 23_000, 4_000),
                    Spec.of(FaultKind.BITFLIP_CHECKPOINT, new Target.RandomNode(0), 32_000, 4_000)),
            false,
            false));
    add(
        new Scenario(
            "restart",
            "every node SIGKILLed at once and restarted, then a leader kill on the restarted cluster",
            EnumSet.of(NemesisFamily.RESTART, NemesisFamily.KILL),
            Duration.ofSeconds(32),
            tps ->
                List.of(
                    Spec.of(FaultKind.FULL_RESTART, new Target.AllNodes(), 5_000, 4_000),
                    Spec.of(FaultKind.KILL, new Target.PartitionLeader(tps.get(1)), 19_000, 5_000)),
            false,
            false));
    add(
        new Scenario(
            "client-links",
            "latency, a slow link and reset-and-refused connections on every client link "
                + "(brokers advertise the proxies, so replication crosses them too)",
            EnumSet.of(NemesisFamily.PROXY),
            Duration.ofSeconds(36),
            tps ->
                List.of(
                    new Spec(
                        FaultKind.CLIENT_LATENCY,
                        new Target.ClientLinks(),
                        5_000,
                        6_000,
                        Map.of("latencyMs", 200L)),
                    Spec.of(
                        FaultKind.CLIENT_CONNECTION_DROP, new Target.ClientLinks(), 16_000, 4_000),
                    new Spec(
                        FaultKind.CLIENT_SLOW_LINK,
                        new Target.ClientLinks(),
                        25_000,
                        5_000,
                        Map.of("bytesPerSecond", 128L * 1024))),
            false,
            false));
    add(
        new Scenario(
            "flap",
            "faults that come and go: the active controller's links cut and healed every second, "
                + "another partition leader stopped 1 s of every 3; leadership must not ping-pong "
                + "and writes must go on",
            EnumSet.of(NemesisFamily.FLAP),
            Duration.ofSeconds(34),
            tps ->
                List.of(
                    // The active controller's node: the harder case (its fences and the
                    // quorum's elections flap with it), and partition leaders are there too.
                    Spec.of(FaultKind.FLAPPING_LINK, new Target.ActiveController(), 5_000, 10_000),
                    Spec.of(
                        FaultKind.INTERMITTENT_PAUSE,
                        new Target.PartitionLeader(tps.get(tps.size() - 1)),
                        20_000,
                        9_000)),
            false,
            false));
    add(
        new Scenario(
            "unsafe-leader-loss",
            "UNSAFE configuration (acks=1, min.insync.replicas=1, unclean election): "
                + "a leader keeps acknowledging while cut off from its followers and is then killed; the checkers MUST find "
                + "lost writes",
            EnumSet.of(NemesisFamily.PARTITION),
            Duration.ofSeconds(22),
            tps ->
                List.of(
                    Spec.of(
                        FaultKind.ISOLATE_LEADER_FROM_FOLLOWERS,
                        new Target.PartitionLeader(tps.get(0)),
                        5_000,
                        7_000)),
            true,
            false));
  }

  /**
   * The {@code process} scenario's faults (also the {@code secure} one's): SIGKILL of a partition
   * leader, SIGSTOP and SIGKILL of the active controller, SIGSTOP of another partition's leader.
   */
  private static List<Spec> processFaults(List<TopicPartition> tps) {
    return List.of(
        Spec.of(FaultKind.KILL, new Target.PartitionLeader(tps.get(0)), 5_000, 6_000),
        Spec.of(FaultKind.PAUSE, new Target.ActiveController(), 16_000, 6_000),
        Spec.of(FaultKind.KILL, new Target.ActiveController(), 27_000, 5_000),
        Spec.of(
            FaultKind.PAUSE, new Target.PartitionLeader(tps.get(tps.size() - 1)), 37_000, 6_000));
  }

  private static void add(Scenario s) {
    ALL.put(s.name(), s);
  }

  public static Map<String, Scenario> all() {
    return ALL;
  }

  public static Scenario get(String name) {
    Scenario s = ALL.get(name);
    if (s == null) {
      throw new IllegalArgumentException("no scenario '" + name + "'; scenarios: " + ALL.keySet());
    }
    return s;
  }

  /**
   * The options for {@code scenario} on a 3-node cluster: its fixed faults, targets with picks
   * drawn from {@code seed} where the scenario leaves them open.
   */
  public static ChaosOptions options(
      Scenario scenario, long seed, Path baseDir, String rerunCommand) {
    Function<List<TopicPartition>, Schedule> schedule =
        tps -> {
          List<PlannedFault> faults = new ArrayList<>();
          Random rng = new Random(seed);
          Integer parent = null;
          long parentEnd = -1;
          for (Spec s : scenario.faults().apply(tps)) {
            boolean inside = s.startMs() < parentEnd;
            Target target = seeded(s.target(), rng);
            PlannedFault f =
                new PlannedFault(
                    faults.size(),
                    inside ? parent : null,
                    s.kind(),
                    target,
                    s.startMs(),
                    s.durationMs(),
                    s.params());
            faults.add(f);
            if (!inside) {
              parent = f.id();
              parentEnd = f.endMs();
            }
          }
          ScheduleConfig config =
              new ScheduleConfig(
                  seed,
                  scenario.families(),
                  scenario.duration().toMillis(),
                  1_000,
                  60_000,
                  0,
                  60_000,
                  0,
                  1_000,
                  0,
                  tps);
          return new Schedule(seed, config, faults, Set.of());
        };
    ChaosOptions o =
        ChaosOptions.defaults(
                scenario.name(),
                3,
                scenario.duration(),
                scenario.families(),
                seed,
                baseDir,
                rerunCommand)
            .withSchedule(schedule)
            .withUnsafe(scenario.unsafe())
            .withSecure(scenario.secure())
            .withLoad(3, 2, 30);
    // One partition, so every write goes to the leader that is cut off: many acknowledged writes
    // only it has, whether its followers are partitioned away or paused (no root).
    return scenario.unsafe() ? o.withTopics(1, 1) : o;
  }

  /** Random picks come from the seed, so two seeds hit different nodes. */
  private static Target seeded(Target t, Random rng) {
    if (t instanceof Target.RandomNode r) {
      return new Target.RandomNode(r.pick() + rng.nextInt(1 << 16));
    }
    if (t instanceof Target.MajorityMinority m) {
      return new Target.MajorityMinority(m.pick() + rng.nextInt(1 << 16));
    }
    if (t instanceof Target.NodePair p) {
      return new Target.NodePair(
          p.fromPick() + rng.nextInt(1 << 16), p.toPick() + rng.nextInt(1 << 16));
    }
    return t;
  }
}
