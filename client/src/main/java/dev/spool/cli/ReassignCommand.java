package dev.spool.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.spool.client.Admin;
import dev.spool.client.ClusterDescription;
import dev.spool.client.ReassignmentResult;
import dev.spool.client.Reassignments;
import dev.spool.client.ReplicaLog;
import dev.spool.client.TopicDescription;
import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code spool reassign plan|execute|status|cancel}: moves partitions' replicas between brokers
 * with a plan file in Kafka's format, as Kafka's {@code kafka-reassign-partitions}
 * (docs/operations.md#moving-replicas). The planning and the progress are pure ({@link
 * ReassignmentPlanner}, {@link ReassignmentProgress}); this class asks the cluster and prints.
 */
@Command(
    name = "reassign",
    mixinStandardHelpOptions = true,
    description = "Move partitions' replicas between brokers (Kafka's reassignment JSON plans).",
    subcommands = {
      ReassignCommand.Plan.class,
      ReassignCommand.Execute.class,
      ReassignCommand.Status.class,
      ReassignCommand.Cancel.class
    })
final class ReassignCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;

  ReassignCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(ctx.err());
    return ExitCodes.USAGE;
  }

  /** Reads a plan file (relative to the working directory); IllegalArgumentException if bad. */
  static ReassignmentPlan readPlan(CliContext ctx, String file) {
    Path path = ctx.workingDirectory().resolve(file);
    String text;
    try {
      text = Files.readString(path, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("plan file " + file + " does not exist", e);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read plan file " + file + ": " + e, e);
    }
    try {
      return ReassignmentPlan.parse(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("plan file " + file + ": " + e.getMessage(), e);
    }
  }

  private static Map<TopicPartition, List<Integer>> replicasOf(
      Collection<TopicDescription> topics) {
    Map<TopicPartition, List<Integer>> out = new TreeMap<>();
    for (TopicDescription t : topics) {
      t.partitions()
          .forEach(p -> out.put(new TopicPartition(t.name(), p.partition()), p.replicas()));
    }
    return out;
  }

  /** The existing ones of {@code topics}, described. */
  private static Map<String, TopicDescription> describeExisting(
      Admin a, Collection<String> topics) {
    TreeSet<String> known = new TreeSet<>(a.listTopics().join());
    known.retainAll(topics);
    return known.isEmpty() ? Map.of() : a.describeTopics(known).join();
  }

  private static void writeResults(JsonGenerator g, Collection<ReassignmentResult> results)
      throws IOException {
    g.writeArrayFieldStart("partitions");
    for (ReassignmentResult r : results) {
      g.writeStartObject();
      g.writeStringField("topic", r.partition().topic());
      g.writeNumberField("partition", r.partition().partition());
      g.writeStringField("error", r.error().name());
      g.writeStringField("message", r.message());
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  /**
   * A partition being moved lists its leaving replicas beside its target, so a plan made from it
   * would be wrong; refused, as a usage error, until that move is over.
   */
  private static void refuseMoving(Reassignments moving) {
    if (!moving.partitions().isEmpty()) {
      throw new IllegalArgumentException(
          "partition "
              + moving.partitions().get(0).partition()
              + (moving.partitions().size() > 1
                  ? " (and " + (moving.partitions().size() - 1) + " more)"
                  : "")
              + " is being reassigned now; plan again once 'spool reassign status' shows it"
              + " complete, or after 'spool reassign cancel'");
    }
  }

  /**
   * Every broker's replicas of {@code topics}, for the catch-up progress; none (with a warning)
   * when a broker does not answer, since a move is often followed while a broker is down.
   */
  private static List<ReplicaLog> logs(CliContext ctx, Admin a, Collection<String> topics) {
    if (topics.isEmpty()) {
      return List.of();
    }
    try {
      return a.describeLogs(topics).join();
    } catch (RuntimeException e) {
      ctx.err().println("warning: no catch-up progress: " + ExitCodes.describe(e));
      return List.of();
    }
  }

  private static String line(ReassignmentResult r) {
    return r.partition()
        + "\t"
        + r.error().name()
        + (r.message().isEmpty() ? "" : "\t" + r.message());
  }

  @Command(
      name = "plan",
      mixinStandardHelpOptions = true,
      description =
          "Propose moving --topics onto --brokers: keeps each partition's replication factor,"
              + " moves only the replicas not on a listed broker, spreads them evenly and over"
              + " racks. Prints the current assignment (keep it to roll back) and the plan.")
  static final class Plan implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Option(
        names = "--brokers",
        required = true,
        split = ",",
        paramLabel = "ID[,ID]",
        description = "The brokers the topics should live on.")
    List<Integer> brokers;

    @Option(
        names = "--topics",
        required = true,
        split = ",",
        paramLabel = "T[,T]",
        description = "The topics to move.")
    List<String> topics;

    @Option(
        names = "--output",
        paramLabel = "FILE",
        description = "Also write the plan to FILE (must not exist), for 'reassign execute'.")
    String output;

    @Option(
        names = "--json",
        description = "Print {current: PLAN, proposed: PLAN}, each in Kafka's reassignment JSON.")
    boolean json;

    Plan(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() throws IOException {
      Path out = output == null ? null : ctx.workingDirectory().resolve(output);
      if (out != null && Files.exists(out)) {
        throw new IllegalArgumentException(
            "--output " + output + " already exists; choose another file or remove it");
      }
      Map<TopicPartition, List<Integer>> current;
      Map<TopicPartition, List<Integer>> targets;
      try (Admin a = admin.open(ctx, spec)) {
        Map<Integer, String> racks = new HashMap<>();
        for (ClusterDescription.Broker b : a.describeCluster().join().brokers()) {
          racks.put(b.id(), b.rack());
        }
        Map<String, Map<Integer, List<Integer>>> assignments = new HashMap<>();
        List<TopicPartition> all = new ArrayList<>();
        for (TopicDescription t : describeExisting(a, topics).values()) {
          Map<Integer, List<Integer>> parts = new TreeMap<>();
          t.partitions().forEach(p -> parts.put(p.partition(), p.replicas()));
          assignments.put(t.name(), parts);
          parts.keySet().forEach(p -> all.add(new TopicPartition(t.name(), p)));
        }
        if (!all.isEmpty()) { // an empty list would ask about every partition of the cluster
          refuseMoving(a.listPartitionReassignments(all).join());
        }
        targets = ReassignmentPlanner.plan(topics, brokers, assignments, racks);
        current = new TreeMap<>();
        targets
            .keySet()
            .forEach(tp -> current.put(tp, assignments.get(tp.topic()).get(tp.partition())));
      }
      ReassignmentPlan was = ReassignmentPlan.of(current);
      ReassignmentPlan proposed = ReassignmentPlan.of(targets);
      if (out != null) {
        Files.writeString(out, proposed.toJson() + "\n", StandardCharsets.UTF_8);
      }
      if (json) {
        JsonLines.write(
            ctx.out(),
            g -> {
              g.writeStartObject();
              g.writeFieldName("current");
              was.write(g);
              g.writeFieldName("proposed");
              proposed.write(g);
              g.writeEndObject();
            });
        return ExitCodes.OK;
      }
      if (targets.isEmpty()) {
        ctx.out().println("Nothing to move: every replica of " + topics + " is on " + brokers);
      }
      ctx.out().println("Current partition replica assignment (save it to roll back)");
      ctx.out().println(was.toJson());
      ctx.out().println();
      ctx.out().println("Proposed partition reassignment configuration");
      ctx.out().println(proposed.toJson());
      if (out != null) {
        ctx.out().println("Wrote the proposed plan to " + output);
      }
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "execute",
      mixinStandardHelpOptions = true,
      description =
          "Start the moves of a plan file; the new replicas catch up in the background ('reassign"
              + " status'). Per partition: NONE, or why the controller refused it"
              + " (UNKNOWN_TOPIC_OR_PARTITION, INVALID_REPLICA_ASSIGNMENT); exit 1 if any was"
              + " refused.")
  static final class Execute implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Parameters(index = "0", paramLabel = "PLAN", description = "The plan file (Kafka's JSON).")
    String planFile;

    @Option(
        names = "--throttle",
        paramLabel = "RATE",
        description =
            "Limit catch-up fetching to RATE per broker: bytes/s, or with B/s, KB/s, MB/s, GB/s"
                + " (1024-based; 50MB/s = 52428800 bytes/s); 0 removes the limit. Without it the"
                + " cluster's throttle stays as it is.")
    String throttle;

    @Option(
        names = "--json",
        description =
            "Print {partitions: [{topic, partition, error, message}], throttleBytesPerSec}"
                + " (null when --throttle is not given).")
    boolean json;

    Execute(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      OptionalLong rate =
          throttle == null
              ? OptionalLong.empty()
              : OptionalLong.of(ReplicationThrottle.parseBytesPerSec(throttle));
      ReassignmentPlan plan = readPlan(ctx, planFile);
      Map<TopicPartition, Optional<List<Integer>>> targets = new TreeMap<>();
      plan.targets().forEach((tp, r) -> targets.put(tp, Optional.of(r)));
      Map<TopicPartition, ReassignmentResult> results;
      try (Admin a = admin.open(ctx, spec)) {
        results =
            targets.isEmpty() && rate.isEmpty()
                ? Map.of()
                : a.alterPartitionReassignments(targets, rate).join();
      }
      boolean failed = results.values().stream().anyMatch(r -> !r.succeeded());
      if (json) {
        JsonLines.write(
            ctx.out(),
            g -> {
              g.writeStartObject();
              writeResults(g, results.values());
              if (rate.isPresent()) {
                g.writeNumberField("throttleBytesPerSec", rate.getAsLong());
              } else {
                g.writeNullField("throttleBytesPerSec");
              }
              g.writeEndObject();
            });
      } else {
        if (targets.isEmpty()) {
          ctx.out().println("The plan moves no partition");
        }
        results.values().forEach(r -> ctx.out().println(line(r)));
        rate.ifPresent(
            r ->
                ctx.out()
                    .println(
                        r == 0
                            ? "Removed the replication throttle"
                            : "Replication throttle: "
                                + ReplicationThrottle.format(r)
                                + " ("
                                + r
                                + " bytes/s per broker)"));
        if (!targets.isEmpty()) {
          ctx.out().println("Follow the moves with: spool reassign status " + planFile);
        }
      }
      return failed ? ExitCodes.FAILED : ExitCodes.OK;
    }
  }

  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description =
          "Without PLAN, every reassignment in progress; with PLAN, each of its partitions:"
              + " complete, in progress (each new replica's log end offset against the leader's)"
              + " or failed/not started (exit 1). Once the whole plan is complete and nothing is"
              + " moving, removes the replication throttle.")
  static final class Status implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Parameters(
        index = "0",
        arity = "0..1",
        paramLabel = "PLAN",
        description = "The plan file that was executed.")
    String planFile;

    @Option(
        names = "--json",
        description =
            "Print {partitions: [{topic, partition, state, replicas, adding, removing, progress:"
                + " [{broker, logEndOffset, leaderLogEndOffset}]}], throttleBytesPerSec,"
                + " throttleCleared}.")
    boolean json;

    Status(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      ReassignmentPlan plan = planFile == null ? null : readPlan(ctx, planFile);
      List<ReassignmentProgress.Partition> parts;
      Reassignments all;
      boolean cleared = false;
      try (Admin a = admin.open(ctx, spec)) {
        all = a.listPartitionReassignments(List.of()).join();
        TreeSet<String> moving = new TreeSet<>();
        all.partitions().forEach(r -> moving.add(r.partition().topic()));
        if (plan == null) {
          parts = ReassignmentProgress.ofAll(all, logs(ctx, a, moving));
        } else {
          TreeSet<String> planned = new TreeSet<>();
          plan.partitions().forEach(m -> planned.add(m.partition().topic()));
          Map<TopicPartition, List<Integer>> current =
              replicasOf(describeExisting(a, planned).values());
          moving.retainAll(planned);
          parts = ReassignmentProgress.ofPlan(plan, current, all, logs(ctx, a, moving));
          boolean done =
              parts.stream().allMatch(p -> p.state() == ReassignmentProgress.State.COMPLETE);
          if (done && all.partitions().isEmpty() && all.throttleBytesPerSec() > 0) {
            a.setReplicationThrottle(0).join();
            cleared = true;
          }
        }
      }
      print(parts, all.throttleBytesPerSec(), cleared);
      return parts.stream().anyMatch(p -> p.state() == ReassignmentProgress.State.NOT_STARTED)
          ? ExitCodes.FAILED
          : ExitCodes.OK;
    }

    private void print(List<ReassignmentProgress.Partition> parts, long throttle, boolean cleared) {
      if (json) {
        JsonLines.write(
            ctx.out(),
            g -> {
              g.writeStartObject();
              g.writeArrayFieldStart("partitions");
              for (ReassignmentProgress.Partition p : parts) {
                writePartition(g, p);
              }
              g.writeEndArray();
              g.writeNumberField("throttleBytesPerSec", throttle);
              g.writeBooleanField("throttleCleared", cleared);
              g.writeEndObject();
            });
        return;
      }
      if (parts.isEmpty()) {
        ctx.out().println("No reassignment in progress");
      }
      for (ReassignmentProgress.Partition p : parts) {
        StringBuilder s = new StringBuilder();
        s.append(p.partition()).append(": ").append(p.state().text);
        s.append(", replicas ").append(p.replicas());
        if (!p.adding().isEmpty() || !p.removing().isEmpty()) {
          s.append(", adding ").append(p.adding()).append(", removing ").append(p.removing());
        }
        ctx.out().println(s);
        p.progress().forEach(c -> ctx.out().println("  " + c.describe()));
      }
      ctx.out()
          .println(
              cleared
                  ? "The reassignment is complete; removed the replication throttle"
                  : throttle > 0
                      ? "Replication throttle: " + ReplicationThrottle.format(throttle)
                      : "No replication throttle");
    }

    private static void writePartition(JsonGenerator g, ReassignmentProgress.Partition p)
        throws IOException {
      g.writeStartObject();
      g.writeStringField("topic", p.partition().topic());
      g.writeNumberField("partition", p.partition().partition());
      g.writeStringField("state", p.state().text);
      JsonLines.intArray(g, "replicas", p.replicas());
      JsonLines.intArray(g, "adding", p.adding());
      JsonLines.intArray(g, "removing", p.removing());
      g.writeArrayFieldStart("progress");
      for (ReassignmentProgress.Catchup c : p.progress()) {
        g.writeStartObject();
        g.writeNumberField("broker", c.broker());
        g.writeNumberField("logEndOffset", c.logEndOffset());
        g.writeNumberField("leaderLogEndOffset", c.leaderLogEndOffset());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
  }

  @Command(
      name = "cancel",
      mixinStandardHelpOptions = true,
      description =
          "Cancel the reassignments in progress (all, or those of PLAN): each goes back to its"
              + " original replicas. Removes the replication throttle unless other partitions are"
              + " still moving. Exit 1 if the controller refused a cancel"
              + " (INVALID_REPLICA_ASSIGNMENT: no original replica is in sync).")
  static final class Cancel implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Parameters(
        index = "0",
        arity = "0..1",
        paramLabel = "PLAN",
        description = "Only the partitions of this plan file.")
    String planFile;

    @Option(
        names = "--json",
        description =
            "Print {partitions: [{topic, partition, error, message}], throttleCleared};"
                + " NO_REASSIGNMENT_IN_PROGRESS for a plan's partition that was not moving.")
    boolean json;

    Cancel(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      ReassignmentPlan plan = planFile == null ? null : readPlan(ctx, planFile);
      Map<TopicPartition, ReassignmentResult> results;
      boolean clear;
      try (Admin a = admin.open(ctx, spec)) {
        Reassignments all = a.listPartitionReassignments(List.of()).join();
        Map<TopicPartition, Optional<List<Integer>>> cancels = new TreeMap<>();
        if (plan == null) {
          all.partitions().forEach(r -> cancels.put(r.partition(), Optional.empty()));
        } else {
          plan.partitions().forEach(m -> cancels.put(m.partition(), Optional.empty()));
        }
        // The throttle slows every move; it goes only when none is left after this cancel.
        clear = all.partitions().stream().allMatch(r -> cancels.containsKey(r.partition()));
        OptionalLong rate =
            clear && all.throttleBytesPerSec() > 0 ? OptionalLong.of(0) : OptionalLong.empty();
        clear = rate.isPresent();
        results =
            cancels.isEmpty() && rate.isEmpty()
                ? Map.of()
                : a.alterPartitionReassignments(cancels, rate).join();
      }
      boolean cleared = clear;
      boolean failed =
          results.values().stream()
              .anyMatch(r -> !r.succeeded() && r.error() != ErrorCode.NO_REASSIGNMENT_IN_PROGRESS);
      if (json) {
        JsonLines.write(
            ctx.out(),
            g -> {
              g.writeStartObject();
              writeResults(g, results.values());
              g.writeBooleanField("throttleCleared", cleared);
              g.writeEndObject();
            });
      } else {
        if (results.isEmpty()) {
          ctx.out().println("No reassignment in progress");
        }
        results.values().forEach(r -> ctx.out().println(line(r)));
        if (cleared) {
          ctx.out().println("Removed the replication throttle");
        }
      }
      return failed ? ExitCodes.FAILED : ExitCodes.OK;
    }
  }
}
