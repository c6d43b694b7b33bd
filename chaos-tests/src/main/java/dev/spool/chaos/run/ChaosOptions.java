package dev.spool.chaos.run;

import dev.spool.chaos.nemesis.NemesisFamily;
import dev.spool.chaos.nemesis.Schedule;
import dev.spool.common.TopicPartition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * Everything a {@link ChaosRun} needs.
 *
 * @param scenario name of the run (a named scenario, or "random" for a generated schedule)
 * @param nodes combined broker + controller nodes
 * @param duration the fault phase (the final heal, drain and checks come after)
 * @param families the nemesis families asked for (those this machine cannot run are skipped,
 *     loudly)
 * @param seed seeds the schedule, the disk damage and the workload's choices
 * @param baseDir runs go to {@code baseDir/<run id>}
 * @param schedule a fixed schedule for the topic partitions, or null to generate one from the seed
 * @param unsafe acks=1 producers on topics with min.insync.replicas=1 and unclean election: a
 *     configuration that loses acknowledged writes, for proving the checkers can fail
 * @param nodeConfig extra node config keys
 * @param rerunCommand the exact command that repeats this run, printed and stored in run.json
 * @param secure mutual TLS on every listener, replication and the quorum, the authorizer on, the
 *     workload a principal with only its ACLs, and an intruder without any ({@code
 *     dev.spool.chaos.cluster.ChaosSecurity})
 */
public record ChaosOptions(
    String scenario,
    int nodes,
    Duration duration,
    Set<NemesisFamily> families,
    long seed,
    Path baseDir,
    int topics,
    int partitionsPerTopic,
    int producers,
    int consumers,
    double sendsPerSecondPerProducer,
    Function<List<TopicPartition>, Schedule> schedule,
    boolean unsafe,
    Map<String, String> nodeConfig,
    String rerunCommand,
    int progressIntervalSeconds,
    boolean secure) {
  public ChaosOptions {
    Objects.requireNonNull(scenario, "scenario");
    families = families.isEmpty() ? EnumSet.noneOf(NemesisFamily.class) : EnumSet.copyOf(families);
    nodeConfig = Map.copyOf(nodeConfig);
    if (nodes < 3) {
      throw new IllegalArgumentException("a chaos run needs at least 3 nodes (RF 3), not " + nodes);
    }
  }

  /**
   * Defaults for a run of {@code nodes} nodes: 2 topics x 3 partitions, 4 producers at 25/s, 2
   * consumers.
   */
  public static ChaosOptions defaults(
      String scenario,
      int nodes,
      Duration duration,
      Set<NemesisFamily> families,
      long seed,
      Path baseDir,
      String rerunCommand) {
    return new ChaosOptions(
        scenario,
        nodes,
        duration,
        families,
        seed,
        baseDir,
        2,
        3,
        4,
        2,
        25,
        null,
        false,
        Map.of(),
        rerunCommand,
        5,
        false);
  }

  public ChaosOptions withSchedule(Function<List<TopicPartition>, Schedule> s) {
    return new ChaosOptions(
        scenario,
        nodes,
        duration,
        families,
        seed,
        baseDir,
        topics,
        partitionsPerTopic,
        producers,
        consumers,
        sendsPerSecondPerProducer,
        s,
        unsafe,
        nodeConfig,
        rerunCommand,
        progressIntervalSeconds,
        secure);
  }

  public ChaosOptions withUnsafe(boolean u) {
    return new ChaosOptions(
        scenario,
        nodes,
        duration,
        families,
        seed,
        baseDir,
        topics,
        partitionsPerTopic,
        producers,
        consumers,
        sendsPerSecondPerProducer,
        schedule,
        u,
        nodeConfig,
        rerunCommand,
        progressIntervalSeconds,
        secure);
  }

  public ChaosOptions withTopics(int t, int partitions) {
    return new ChaosOptions(
        scenario,
        nodes,
        duration,
        families,
        seed,
        baseDir,
        t,
        partitions,
        producers,
        consumers,
        sendsPerSecondPerProducer,
        schedule,
        unsafe,
        nodeConfig,
        rerunCommand,
        progressIntervalSeconds,
        secure);
  }

  public ChaosOptions withLoad(int p, int c, double rate) {
    return new ChaosOptions(
        scenario,
        nodes,
        duration,
        families,
        seed,
        baseDir,
        topics,
        partitionsPerTopic,
        p,
        c,
        rate,
        schedule,
        unsafe,
        nodeConfig,
        rerunCommand,
        progressIntervalSeconds,
        secure);
  }

  public ChaosOptions withSecure(boolean s) {
    return new ChaosOptions(
        scenario,
        nodes,
        duration,
        families,
        seed,
        baseDir,
        topics,
        partitionsPerTopic,
        producers,
        consumers,
        sendsPerSecondPerProducer,
        schedule,
        unsafe,
        nodeConfig,
        rerunCommand,
        progressIntervalSeconds,
        s);
  }
}
