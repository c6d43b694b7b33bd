package dev.spool.chaos.nemesis;

import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Plans the faults of a run from a seed. Pure and deterministic: the same config gives the same
 * schedule on any JVM ({@link Random}'s algorithm is specified).
 *
 * <p>Structure, kept simple so a person can read a timeline: a quiet period, then a <em>main
 * sequence</em> of faults one after another, each followed by a quiet period, until {@code
 * durationMs - finalQuietMs}. Each fault's kind is drawn uniformly from the enabled families' kinds
 * and its target from the kind's target shapes. With {@code composeProbability}, a partition gets
 * one kill of a random node composed inside it (starting a quarter into the partition and healed a
 * quarter before it), so a node restarts into a partitioned cluster; the composed fault names its
 * parent.
 */
public final class NemesisSchedule {
  /** Latency added on client links, ms: one of these. */
  static final long[] LATENCIES_MS = {50, 200, 1_000};

  /** Bandwidth of a slow client link, bytes/s: one of these. */
  static final long[] BANDWIDTHS_BYTES_PER_SECOND = {16 * 1024, 128 * 1024, 1024 * 1024};

  private NemesisSchedule() {}

  public static Schedule generate(ScheduleConfig config) {
    return generate(config, EnumSet.allOf(NemesisFamily.class));
  }

  /** Plans with only the {@code available} families; the others are listed as skipped. */
  public static Schedule generate(ScheduleConfig requested, Set<NemesisFamily> available) {
    ScheduleConfig config = requested.restrictTo(available);
    Set<NemesisFamily> skipped = EnumSet.noneOf(NemesisFamily.class);
    for (NemesisFamily f : requested.families()) {
      if (!available.contains(f)) {
        skipped.add(f);
      }
    }
    List<FaultKind> kinds = new ArrayList<>();
    for (FaultKind k : FaultKind.values()) {
      if (config.families().contains(k.family())) {
        kinds.add(k);
      }
    }
    Random rng = new Random(config.seed());
    List<PlannedFault> faults = new ArrayList<>();
    long lastHealMs = config.durationMs() - config.finalQuietMs();
    long t = between(rng, config.quietMinMs(), config.quietMaxMs());
    while (!kinds.isEmpty() && t + config.faultMinMs() <= lastHealMs) {
      FaultKind kind = kinds.get(rng.nextInt(kinds.size()));
      if (kind == FaultKind.PAUSE && t + config.pauseMinMs() > lastHealMs) {
        break; // a short pause would test nothing; end the sequence here
      }
      long min =
          kind == FaultKind.PAUSE
              ? Math.max(config.faultMinMs(), config.pauseMinMs())
              : config.faultMinMs();
      long duration = Math.min(between(rng, min, config.faultMaxMs()), lastHealMs - t);
      PlannedFault fault =
          new PlannedFault(
              faults.size(),
              null,
              kind,
              target(kind, rng, config.partitions()),
              t,
              duration,
              params(kind, rng));
      faults.add(fault);
      if (kind.family() == NemesisFamily.PARTITION
          && config.families().contains(NemesisFamily.KILL)
          && duration >= 2 * config.faultMinMs()
          && rng.nextDouble() < config.composeProbability()) {
        faults.add(
            new PlannedFault(
                faults.size(),
                fault.id(),
                FaultKind.KILL,
                new Target.RandomNode(rng.nextInt(1 << 16)),
                t + duration / 4,
                duration / 2,
                Map.of()));
      }
      t += duration + between(rng, config.quietMinMs(), config.quietMaxMs());
    }
    return new Schedule(config.seed(), config, faults, skipped);
  }

  private static Target target(FaultKind kind, Random rng, List<TopicPartition> partitions) {
    return switch (kind) {
      case KILL, PAUSE, FLAPPING_LINK, INTERMITTENT_PAUSE -> nodeTarget(rng, partitions);
      case ISOLATE_NODE,
          TORN_SEGMENT_TAIL,
          BITFLIP_SEGMENT_TAIL,
          TORN_CHECKPOINT,
          BITFLIP_CHECKPOINT ->
          new Target.RandomNode(rng.nextInt(1 << 16));
      case SPLIT_MAJORITY_MINORITY -> new Target.MajorityMinority(rng.nextInt(1 << 16));
      case ISOLATE_CONTROLLER_FROM_BROKERS -> new Target.ActiveController();
      case ISOLATE_LEADER_FROM_FOLLOWERS ->
          partitions.isEmpty()
              ? new Target.RandomNode(rng.nextInt(1 << 16))
              : new Target.PartitionLeader(partitions.get(rng.nextInt(partitions.size())));
      case ONE_WAY_LOSS -> new Target.NodePair(rng.nextInt(1 << 16), rng.nextInt(1 << 16));
      case CLIENT_LATENCY, CLIENT_SLOW_LINK, CLIENT_CONNECTION_DROP -> new Target.ClientLinks();
      case FULL_RESTART -> new Target.AllNodes();
    };
  }

  /**
   * Kill and pause hit a random node, a partition leader or the active controller, equally often.
   */
  private static Target nodeTarget(Random rng, List<TopicPartition> partitions) {
    int choice = rng.nextInt(3);
    if (choice == 1 && !partitions.isEmpty()) {
      return new Target.PartitionLeader(partitions.get(rng.nextInt(partitions.size())));
    }
    if (choice == 2) {
      return new Target.ActiveController();
    }
    return new Target.RandomNode(rng.nextInt(1 << 16));
  }

  private static Map<String, Long> params(FaultKind kind, Random rng) {
    return switch (kind) {
      case CLIENT_LATENCY -> Map.of("latencyMs", LATENCIES_MS[rng.nextInt(LATENCIES_MS.length)]);
      case CLIENT_SLOW_LINK ->
          Map.of(
              "bytesPerSecond",
              BANDWIDTHS_BYTES_PER_SECOND[rng.nextInt(BANDWIDTHS_BYTES_PER_SECOND.length)]);
      default -> Map.of();
    };
  }

  private static long between(Random rng, long min, long max) {
    return min == max ? min : min + (long) (rng.nextDouble() * (max - min + 1));
  }
}
