package dev.spool.cli;

import dev.spool.client.Admin;
import dev.spool.client.ClusterDescription;
import dev.spool.client.ElectionResult;
import dev.spool.client.ReassignmentResult;
import dev.spool.client.Reassignments;
import dev.spool.client.TopicDescription;
import dev.spool.common.Clock;
import dev.spool.common.TopicPartition;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code spool cluster drain BROKER}: moves every replica off a broker, leaderships first, so it
 * can be stopped and unregistered (docs/operations.md#draining-a-broker). Refused before anything
 * changes for an unregistered broker, a partition no other live broker could take, or a partition
 * being moved with the broker in its target. Then (1) for each partition the broker leads, a
 * reorder of its replicas putting an in-sync replica on a live broker first and the broker last (a
 * pure reorder completes at once in the controller) and a PREFERRED election; (2) a reassignment
 * planned by {@link ReassignmentPlanner} onto every other registered broker (fenced, shutting-down
 * or directory-failed brokers keep the replicas they have and take no new one); (3) unless {@code
 * --no-wait}, polling until no partition names the broker, then removing the throttle it set when
 * nothing else moves. The pure steps are the static methods; the command thread does the rest.
 */
@Command(
    name = "drain",
    mixinStandardHelpOptions = true,
    description =
        "Move every replica off BROKER (leaderships first, then the data, by reassignment) so it"
            + " can be stopped and unregistered. Refused, nothing changed, for an unregistered"
            + " broker, a partition no other live broker could take, or a partition being moved"
            + " onto BROKER. Waits until no partition names BROKER (exit 3 at --timeout-ms).")
final class DrainCommand implements Callable<Integer> {
  /** The first and the longest pause between two looks at the progress. */
  static final long FIRST_POLL_MS = 100;

  static final long MAX_POLL_MS = 2_000;

  /** Each admin call gives up after this (or the drain's deadline, if sooner). */
  private static final long CALL_TIMEOUT_MS = 30_000;

  private final CliContext ctx;
  @Spec CommandSpec spec;
  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Parameters(index = "0", paramLabel = "BROKER", description = "The broker id (node.id).")
  int brokerId;

  @Option(
      names = "--throttle",
      paramLabel = "RATE",
      description =
          "Limit catch-up fetching to RATE per broker, as 'reassign execute --throttle' (e.g."
              + " 50MB/s); removed once the drain completes and nothing else moves.")
  String throttle;

  @Option(
      names = "--no-wait",
      description = "Start the moves and return; follow them with 'spool reassign status'.")
  boolean noWait;

  @Option(
      names = "--timeout-ms",
      defaultValue = "1800000",
      paramLabel = "T",
      description =
          "Give up waiting after T ms (default: ${DEFAULT-VALUE}, 30 minutes); the moves go on.")
  long timeoutMs;

  @Option(
      names = "--admin-prop",
      paramLabel = "k=v",
      description = "An admin client config (repeatable).")
  List<String> adminProps;

  @Option(
      names = "--json",
      description =
          "Print {broker, leadershipsMoved: [tp], leadershipsNotMoved: [{partition, reason}],"
              + " moves: [{topic, partition, replicas}], complete, throttleBytesPerSec,"
              + " throttleCleared}.")
  boolean json;

  DrainCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  /** What the drain did, for the report. */
  private static final class Report {
    final List<TopicPartition> leadershipsMoved = new ArrayList<>();
    final Map<TopicPartition, String> leadershipsNotMoved = new TreeMap<>();
    final Map<TopicPartition, List<Integer>> moves = new TreeMap<>();
    final Map<TopicPartition, String> refused = new TreeMap<>();
    boolean complete;
    boolean cleared;

    /** Refused before anything changed: nothing to report but the error line. */
    boolean refusedUpfront;
  }

  @Override
  public Integer call() {
    if (brokerId < 0) {
      throw new ParameterException(
          spec.commandLine(), "BROKER must be 0 or above, got " + brokerId);
    }
    if (timeoutMs <= 0) {
      throw new ParameterException(spec.commandLine(), "--timeout-ms must be above 0");
    }
    OptionalLong rate =
        throttle == null
            ? OptionalLong.empty()
            : OptionalLong.of(ReplicationThrottle.parseBytesPerSec(throttle));
    long deadline = Clock.SYSTEM.monotonicMs() + timeoutMs;
    Report report = new Report();
    int code;
    try (Admin a =
        AdminOptions.open(ctx, spec, cluster, Math.min(timeoutMs, CALL_TIMEOUT_MS), adminProps)) {
      code = drain(a, rate, deadline, report);
    }
    if (report.refusedUpfront) {
      return code;
    }
    print(report, rate);
    return code;
  }

  private PrintStream progress() {
    return json ? ctx.err() : ctx.out();
  }

  private int drain(Admin a, OptionalLong rate, long deadline, Report report) {
    ClusterDescription cluster = a.describeCluster().join();
    Map<Integer, ClusterDescription.Broker> brokers = new TreeMap<>();
    cluster.brokers().forEach(b -> brokers.put(b.id(), b));
    if (!brokers.containsKey(brokerId)) {
      return refuse(
          report,
          "BROKER_ID_NOT_REGISTERED: broker "
              + brokerId
              + " is not registered (registered: "
              + brokers.keySet()
              + ")");
    }
    Set<Integer> live = new TreeSet<>();
    Set<Integer> keep = new TreeSet<>();
    Map<Integer, String> racks = new HashMap<>();
    for (ClusterDescription.Broker b : brokers.values()) {
      racks.put(b.id(), b.rack());
      if (b.id() != brokerId) {
        (canTakeReplicas(b) ? live : keep).add(b.id());
      }
    }
    Map<String, TopicDescription> topics = describeAll(a);
    Reassignments moving = a.listPartitionReassignments(List.of()).join();
    Map<TopicPartition, Reassignments.Reassignment> leaving = new TreeMap<>();
    for (Reassignments.Reassignment r : moving.partitions()) {
      if (r.target().contains(brokerId)) {
        return refuse(
            report,
            "partition "
                + r.partition()
                + " is being reassigned with broker "
                + brokerId
                + " in its target "
                + r.target()
                + "; drain once 'spool reassign status' shows it complete, or after"
                + " 'spool reassign cancel'");
      }
      if (r.replicas().contains(brokerId)) {
        leaving.put(r.partition(), r);
      }
    }
    Map<TopicPartition, TopicDescription.PartitionDescription> named = named(topics, leaving);
    String problem = roomProblem(named, brokerId, live);
    if (problem != null) {
      return refuse(report, problem);
    }
    moveLeaderships(a, named, brokers, report);
    // Plan from the assignment as it is now, with the reorders written.
    topics = describeAll(a);
    named = named(topics, leaving);
    Map<TopicPartition, List<Integer>> plan = plan(topics, named, live, keep, racks);
    report.moves.putAll(plan);
    if (!plan.isEmpty() || rate.isPresent()) {
      Map<TopicPartition, Optional<List<Integer>>> targets = new TreeMap<>();
      plan.forEach((tp, r) -> targets.put(tp, Optional.of(r)));
      for (ReassignmentResult r : a.alterPartitionReassignments(targets, rate).join().values()) {
        if (!r.succeeded()) {
          report.refused.put(r.partition(), r.error().name() + ": " + r.message());
        }
      }
    }
    if (!report.refused.isEmpty()) {
      return ExitCodes.FAILED;
    }
    if (noWait) {
      report.complete = plan.isEmpty() && leaving.isEmpty();
      return ExitCodes.OK;
    }
    return await(a, rate, deadline, report);
  }

  /** Polls until no partition names the broker, or the deadline. */
  private int await(Admin a, OptionalLong rate, long deadline, Report report) {
    long pause = FIRST_POLL_MS;
    String last = "";
    while (true) {
      Map<TopicPartition, TopicDescription.PartitionDescription> left =
          named(describeAll(a), Map.of());
      if (left.isEmpty()) {
        break;
      }
      String now =
          left.size()
              + " partition(s) still name broker "
              + brokerId
              + ", e.g. "
              + left.keySet().iterator().next();
      if (!now.equals(last)) {
        progress().println(now);
        last = now;
      }
      long remaining = deadline - Clock.SYSTEM.monotonicMs();
      if (remaining <= 0) {
        ctx.err()
            .println(
                "error: timed out with "
                    + left.size()
                    + " partition(s) still naming broker "
                    + brokerId
                    + ": "
                    + left.keySet()
                    + "; the moves go on ('spool reassign status'), run drain again to wait");
        return ExitCodes.UNREACHABLE;
      }
      pauseMs(Math.min(pause, remaining));
      pause = Math.min(MAX_POLL_MS, pause * 2);
    }
    report.complete = true;
    if (rate.isPresent() && rate.getAsLong() > 0) {
      Reassignments still = a.listPartitionReassignments(List.of()).join();
      if (still.partitions().isEmpty() && still.throttleBytesPerSec() > 0) {
        a.setReplicationThrottle(0).join();
        report.cleared = true;
      }
    }
    return ExitCodes.OK;
  }

  /**
   * The wait between two looks at the progress: the cluster offers nothing to wait on (no call
   * answers when a reassignment completes), so the command thread sleeps, at the CLI's edge.
   */
  private static void pauseMs(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the drain", e);
    }
  }

  private int refuse(Report report, String message) {
    report.refusedUpfront = true;
    ctx.err().println("error: " + message + "; nothing changed");
    return ExitCodes.FAILED;
  }

  /** A broker a new replica may go to: the controller refuses fenced or directory-failed ones. */
  static boolean canTakeReplicas(ClusterDescription.Broker b) {
    return !b.fenced() && !b.inControlledShutdown() && b.offlineDirs().isEmpty();
  }

  private static Map<String, TopicDescription> describeAll(Admin a) {
    List<String> names = a.listTopics().join();
    return names.isEmpty() ? Map.of() : a.describeTopics(names).join();
  }

  /** The partitions naming the broker, but for those already leaving it ({@code leaving}). */
  private Map<TopicPartition, TopicDescription.PartitionDescription> named(
      Map<String, TopicDescription> topics, Map<TopicPartition, ?> leaving) {
    Map<TopicPartition, TopicDescription.PartitionDescription> out = new TreeMap<>();
    for (TopicDescription t : topics.values()) {
      for (TopicDescription.PartitionDescription p : t.partitions()) {
        TopicPartition tp = new TopicPartition(t.name(), p.partition());
        if (p.replicas().contains(brokerId) && !leaving.containsKey(tp)) {
          out.put(tp, p);
        }
      }
    }
    return out;
  }

  /**
   * Why the broker cannot be drained (null if it can): the first partition naming it for which no
   * broker of {@code live} (those that may take a new replica) holds no replica of it yet.
   */
  static String roomProblem(
      Map<TopicPartition, TopicDescription.PartitionDescription> named,
      int broker,
      Set<Integer> live) {
    for (Map.Entry<TopicPartition, TopicDescription.PartitionDescription> e : named.entrySet()) {
      List<Integer> replicas = e.getValue().replicas();
      Set<Integer> free = new TreeSet<>(live);
      free.removeAll(replicas);
      if (free.isEmpty()) {
        return "partition "
            + e.getKey()
            + " has replication factor "
            + replicas.size()
            + " (replicas "
            + replicas
            + ") and no other live broker could take broker "
            + broker
            + "'s replica (live brokers without one: none; live: "
            + live
            + "); add a broker or lower the replication factor first";
      }
    }
    return null;
  }

  /**
   * The replica order that moves leadership off {@code broker}: the in-sync replicas on brokers
   * that can lead first, then the other replicas, each in their order, then {@code broker}; empty
   * when no other replica can lead.
   */
  static Optional<List<Integer>> leaderFirstOrder(
      TopicDescription.PartitionDescription p, int broker, Set<Integer> canLead) {
    List<Integer> first = new ArrayList<>();
    List<Integer> rest = new ArrayList<>();
    for (int r : p.replicas()) {
      if (r == broker) {
        continue;
      }
      (p.isr().contains(r) && canLead.contains(r) ? first : rest).add(r);
    }
    if (first.isEmpty()) {
      return Optional.empty();
    }
    first.addAll(rest);
    first.add(broker);
    return Optional.of(List.copyOf(first));
  }

  private void moveLeaderships(
      Admin a,
      Map<TopicPartition, TopicDescription.PartitionDescription> named,
      Map<Integer, ClusterDescription.Broker> brokers,
      Report report) {
    Set<Integer> canLead = new HashSet<>();
    brokers.values().stream()
        .filter(DrainCommand::canTakeReplicas)
        .forEach(b -> canLead.add(b.id()));
    Map<TopicPartition, Optional<List<Integer>>> reorders = new TreeMap<>();
    named.forEach(
        (tp, p) -> {
          if (p.leader() != brokerId) {
            return;
          }
          Optional<List<Integer>> order = leaderFirstOrder(p, brokerId, canLead);
          if (order.isPresent()) {
            reorders.put(tp, order);
          } else {
            report.leadershipsNotMoved.put(
                tp,
                p.replicas().size() == 1
                    ? "broker " + brokerId + " holds its only replica"
                    : "no other in-sync replica on a live broker (ISR " + p.isr() + ")");
          }
        });
    if (reorders.isEmpty()) {
      return;
    }
    List<TopicPartition> elect = new ArrayList<>();
    for (ReassignmentResult r :
        a.alterPartitionReassignments(reorders, OptionalLong.empty()).join().values()) {
      if (r.succeeded()) {
        elect.add(r.partition());
      } else {
        report.leadershipsNotMoved.put(r.partition(), r.error().name() + ": " + r.message());
      }
    }
    if (elect.isEmpty()) {
      return;
    }
    for (ElectionResult r : a.electLeaders(Admin.ElectionType.PREFERRED, elect).join()) {
      if (r.succeeded()) {
        report.leadershipsMoved.add(r.partition());
        progress().println("Moved the leadership of " + r.partition() + " off broker " + brokerId);
      } else {
        report.leadershipsNotMoved.put(r.partition(), r.error().name() + ": " + r.message());
      }
    }
  }

  private Map<TopicPartition, List<Integer>> plan(
      Map<String, TopicDescription> topics,
      Map<TopicPartition, TopicDescription.PartitionDescription> named,
      Set<Integer> live,
      Set<Integer> keep,
      Map<Integer, String> racks) {
    if (named.isEmpty()) {
      return Map.of();
    }
    Set<String> drained = new TreeSet<>();
    named.keySet().forEach(tp -> drained.add(tp.topic()));
    Map<String, Map<Integer, List<Integer>>> assignments = new HashMap<>();
    for (String t : drained) {
      Map<Integer, List<Integer>> parts = new TreeMap<>();
      topics.get(t).partitions().forEach(p -> parts.put(p.partition(), p.replicas()));
      assignments.put(t, parts);
    }
    // Every replica not on the broker stays: a broker neither live nor registered (none should
    // be) keeps its replica as a fenced one does.
    Set<Integer> stays = new HashSet<>(keep);
    assignments.values().forEach(ps -> ps.values().forEach(stays::addAll));
    stays.removeAll(live);
    stays.remove(brokerId);
    return ReassignmentPlanner.plan(drained, live, stays, assignments, racks);
  }

  private void print(Report report, OptionalLong rate) {
    if (json) {
      JsonLines.write(
          ctx.out(),
          g -> {
            g.writeStartObject();
            g.writeNumberField("broker", brokerId);
            g.writeArrayFieldStart("leadershipsMoved");
            for (TopicPartition tp : report.leadershipsMoved) {
              g.writeString(tp.toString());
            }
            g.writeEndArray();
            g.writeArrayFieldStart("leadershipsNotMoved");
            for (Map.Entry<TopicPartition, String> e : report.leadershipsNotMoved.entrySet()) {
              g.writeStartObject();
              g.writeStringField("partition", e.getKey().toString());
              g.writeStringField("reason", e.getValue());
              g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("moves");
            for (Map.Entry<TopicPartition, List<Integer>> e : report.moves.entrySet()) {
              g.writeStartObject();
              g.writeStringField("topic", e.getKey().topic());
              g.writeNumberField("partition", e.getKey().partition());
              JsonLines.intArray(g, "replicas", e.getValue());
              String refused = report.refused.get(e.getKey());
              if (refused != null) {
                g.writeStringField("error", refused);
              }
              g.writeEndObject();
            }
            g.writeEndArray();
            g.writeBooleanField("complete", report.complete);
            if (rate.isPresent()) {
              g.writeNumberField("throttleBytesPerSec", rate.getAsLong());
            } else {
              g.writeNullField("throttleBytesPerSec");
            }
            g.writeBooleanField("throttleCleared", report.cleared);
            g.writeEndObject();
          });
      return;
    }
    PrintStream out = ctx.out();
    report.leadershipsNotMoved.forEach(
        (tp, why) ->
            out.println("Could not move the leadership of " + tp + " (" + why + "); continuing"));
    report.moves.forEach(
        (tp, r) ->
            out.println(
                "Moving "
                    + tp
                    + " to "
                    + r
                    + (report.refused.containsKey(tp)
                        ? ": refused, " + report.refused.get(tp)
                        : "")));
    if (!report.refused.isEmpty()) {
      out.println("Some moves were refused; fix the cause and run drain again");
    } else if (report.complete) {
      if (report.cleared) {
        out.println("Removed the replication throttle");
      }
      out.println(
          "Broker "
              + brokerId
              + " holds no replica now. Next: stop the broker, then 'spool cluster unregister "
              + brokerId
              + "'");
    } else {
      out.println("The moves go on in the background; follow them with 'spool reassign status'");
    }
  }
}
