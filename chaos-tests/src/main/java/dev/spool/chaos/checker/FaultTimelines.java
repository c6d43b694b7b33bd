package dev.spool.chaos.checker;

import dev.spool.chaos.checker.FaultTimeline.Step;
import dev.spool.chaos.checker.NodeLogEvents.Event;
import dev.spool.chaos.checker.NodeLogEvents.Type;
import dev.spool.chaos.history.ClientLeaderView;
import dev.spool.chaos.history.History;
import dev.spool.chaos.history.Op;
import dev.spool.chaos.history.OpFunction;
import dev.spool.chaos.history.OpType;
import dev.spool.chaos.nemesis.FaultWindow;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where each second of a fault went: for every fault window, the time from the fault to its
 * detection, the controller's decision, the new leader's takeover, the clients' switch and the
 * first acknowledged write after it ({@link FaultTimeline}). Pure: the fault windows, the history
 * (acknowledged sends, the producers' {@link ClientLeaderView}s), the events of the node logs
 * ({@link NodeLogEvents}) and the wall-clock time of history time 0 in; all processes of a run
 * share one machine's clock.
 *
 * <p>Matching. A fault's <em>targets</em> are the node ids before {@code |} in its target text (the
 * isolated node, a split's minority) or both ends of a one-way loss ({@code n1 -> n2}); a fault
 * without node targets (client links) concerns every node. Events count from the fault's start to
 * {@link #HORIZON_MS} after its heal (at most until the next fault starts, if that is later than
 * the heal); a new active controller counts as detection only until the heal (after it, a restarted
 * node's election is recovery). The decision is the first committed change that moves a partition's
 * leadership away from a target, drops a target from an ISR, or shrinks the ISR of a partition a
 * target led before the change; when some decided change moved a leader, only those count (a
 * failover is what the clients wait for). A fault that hit nothing (no target) has no node steps.
 * Takeover, client switch and first ack follow the partitions so decided, each step no earlier than
 * the one it follows.
 */
public final class FaultTimelines {
  /** How long after a heal the steps of a fault may still come. */
  public static final long HORIZON_MS = 10_000;

  private static final Pattern NODE = Pattern.compile("\\bn(\\d+)\\b");

  private FaultTimelines() {}

  /**
   * @param historyStartWallMs the wall clock at history time 0 (ms since the epoch)
   * @param availability the run's availability figures (the fault's longest gap, for a fault that
   *     needed no decision)
   */
  public static List<FaultTimeline> compute(
      List<FaultWindow> faults,
      History history,
      List<Event> events,
      long historyStartWallMs,
      Availability.Report availability) {
    List<Event> sorted = new ArrayList<>(events);
    sorted.sort(Comparator.comparingLong(Event::atMs));
    Clock clock = new Clock(historyStartWallMs);
    List<Op> acks = history.ops().stream().filter(op -> op.is(OpType.OK, OpFunction.SEND)).toList();
    Map<Integer, Availability.WindowAvailability> gaps = new HashMap<>();
    availability.faults().forEach(w -> gaps.put(w.faultId(), w));
    List<FaultTimeline> out = new ArrayList<>();
    for (FaultWindow f : faults) {
      long startMs = clock.wallMs(f.startNs());
      long endMs = clock.wallMs(f.endOr(availability.runEndNs()));
      long horizonMs = horizon(faults, f, startMs, endMs, clock);
      Window w = new Window(f, startMs, endMs, horizonMs, targets(f));
      out.add(timeline(w, sorted, history, acks, clock, gaps.get(f.id())));
    }
    return out;
  }

  /** One fault, in wall-clock ms. */
  private record Window(
      FaultWindow fault, long startMs, long endMs, long horizonMs, Set<Integer> targets) {
    boolean concerns(int node) {
      return targets.isEmpty() || targets.contains(node);
    }

    boolean concernsAny(List<Integer> nodes) {
      return nodes.stream().anyMatch(this::concerns);
    }

    Step step(long atMs, String what) {
      return new Step(atMs - startMs, what);
    }
  }

  /** History time (ns since the run started) to wall-clock ms. */
  private record Clock(long startWallMs) {
    long wallMs(long historyNs) {
      return startWallMs + Math.floorDiv(historyNs, 1_000_000L);
    }
  }

  private static long horizon(
      List<FaultWindow> faults, FaultWindow f, long startMs, long endMs, Clock clock) {
    long horizon = endMs + HORIZON_MS;
    for (FaultWindow other : faults) {
      long otherStart = clock.wallMs(other.startNs());
      if (other != f && otherStart > endMs && otherStart < horizon) {
        horizon = otherStart;
      }
    }
    return Math.max(horizon, startMs);
  }

  /** The node ids a fault hit: before "|", or both ends of "->"; empty for client links. */
  static Set<Integer> targets(FaultWindow f) {
    Set<Integer> out = new HashSet<>();
    for (String t : f.targets()) {
      String hit = t.contains("|") ? t.substring(0, t.indexOf('|')) : t;
      Matcher m = NODE.matcher(hit);
      while (m.find()) {
        out.add(Integer.parseInt(m.group(1)));
      }
    }
    return out;
  }

  private static FaultTimeline timeline(
      Window w,
      List<Event> events,
      History history,
      List<Op> acks,
      Clock clock,
      Availability.WindowAvailability gap) {
    // A fault that hit nothing (its target could not be resolved) explains no event.
    boolean hitSomething = !w.fault().targets().isEmpty();
    Step detection = hitSomething ? detection(w, events) : null;
    long decideFrom = detection == null ? w.startMs() : w.startMs() + detection.ms();
    Map<TopicPartition, Event> decided = hitSomething ? decisions(w, events, decideFrom) : Map.of();
    Event first = decided.values().stream().min(Comparator.comparingLong(Event::atMs)).orElse(null);
    Step decision = first == null ? null : w.step(first.atMs(), describeCommit(first));
    Step takeover = takeover(w, events, decided);
    ClientSwitch clients = clientSwitch(w, history, decided, clock);
    long ackFrom =
        takeover != null
            ? w.startMs() + takeover.ms()
            : decision != null ? w.startMs() + decision.ms() : w.startMs();
    Step firstAck =
        decided.isEmpty()
            ? ackAfterGap(w, acks, gap, clock)
            : firstAck(w, acks, decided.keySet(), ackFrom, clock);
    FaultWindow f = w.fault();
    return new FaultTimeline(
        f.id(),
        f.kind(),
        f.label(),
        f.startNs(),
        w.startMs(),
        detection,
        decision,
        takeover,
        clients.first(),
        clients.count(),
        clients.lastMs(),
        firstAck);
  }

  private static Step detection(Window w, List<Event> events) {
    for (Event e : events) {
      if (e.atMs() < w.startMs() || e.atMs() > w.horizonMs()) {
        continue;
      }
      switch (e.type()) {
        case SESSION_EXPIRED -> {
          if (w.concerns(e.subject())) {
            return w.step(
                e.atMs(), "n" + e.node() + ": session of broker " + e.subject() + " expired");
          }
        }
        case ISR_PROPOSED -> {
          if (w.concerns(e.leader()) || w.concernsAny(e.removed())) {
            return w.step(
                e.atMs(), "n" + e.leader() + " proposes ISR " + e.isr() + " for " + e.partition());
          }
        }
        case CONTROLLER_ACTIVE -> {
          if (e.atMs() <= w.endMs()) {
            return w.step(e.atMs(), "n" + e.node() + " becomes the active controller");
          }
        }
        default -> {}
      }
    }
    return null;
  }

  /**
   * Per partition, its first committed change in the window that the fault explains; only those
   * that moved a leader when there are any.
   */
  private static Map<TopicPartition, Event> decisions(Window w, List<Event> events, long fromMs) {
    Map<TopicPartition, Event> out = new LinkedHashMap<>();
    for (Event e : events) {
      if (e.type() != Type.COMMITTED || e.atMs() < fromMs || e.atMs() > w.horizonMs()) {
        continue;
      }
      boolean leaderMoved = e.leader() != e.leaderBefore();
      boolean shrunk = !e.removed().isEmpty();
      if (!leaderMoved && !shrunk) {
        continue; // a grown ISR: recovery
      }
      if (w.concerns(e.leaderBefore()) || w.concernsAny(e.removed())) {
        out.putIfAbsent(e.partition(), e);
      }
    }
    // A failover is what the clients wait for: when a leader moved, follow the moved partitions.
    Map<TopicPartition, Event> moved = new LinkedHashMap<>(out);
    moved.values().removeIf(e -> e.leader() == e.leaderBefore());
    return moved.isEmpty() ? out : moved;
  }

  private static String describeCommit(Event e) {
    return "n"
        + e.node()
        + " commits "
        + e.partition()
        + (e.leader() != e.leaderBefore()
            ? " leader " + e.leaderBefore() + " -> " + e.leader() + " (epoch " + e.epoch() + ")"
            : " ISR " + e.isr());
  }

  private static Step takeover(Window w, List<Event> events, Map<TopicPartition, Event> decided) {
    for (Event e : events) {
      if (e.atMs() > w.horizonMs()) {
        break;
      }
      Event c = e.partition() == null ? null : decided.get(e.partition());
      if (c == null || c.leader() < 0 || e.atMs() < c.atMs() || e.leader() != c.leader()) {
        continue;
      }
      boolean newLeader = c.leader() != c.leaderBefore();
      if (newLeader && e.type() == Type.LEADING && e.epoch() >= c.epoch()) {
        return w.step(
            e.atMs(), "n" + e.leader() + " leads " + e.partition() + " in epoch " + e.epoch());
      }
      if (!newLeader && e.type() == Type.ISR_TAKEN) {
        return w.step(
            e.atMs(), "n" + e.leader() + " takes ISR " + e.isr() + " for " + e.partition());
      }
    }
    return null;
  }

  private record ClientSwitch(Step first, int count, Long lastMs) {}

  private static ClientSwitch clientSwitch(
      Window w, History history, Map<TopicPartition, Event> decided, Clock clock) {
    Step first = null;
    Set<Integer> workers = new HashSet<>();
    Long last = null;
    for (ClientLeaderView v : history.clientLeaderViews()) {
      long at = clock.wallMs(v.timeNs());
      Event c = decided.get(v.partition());
      if (c == null
          || c.leader() < 0
          || c.leader() == c.leaderBefore()
          || at < c.atMs()
          || at > w.horizonMs()
          || v.leader() != c.leader()
          || v.leaderEpoch() < c.epoch()) {
        continue;
      }
      if (first == null) {
        first =
            w.step(
                at,
                "producer "
                    + v.worker()
                    + " (process "
                    + v.process()
                    + ") sends "
                    + v.partition()
                    + " to n"
                    + v.leader());
      }
      if (workers.add(v.worker())) {
        last = at - w.startMs();
      }
    }
    return new ClientSwitch(first, workers.size(), last);
  }

  private static Step firstAck(
      Window w, List<Op> acks, Set<TopicPartition> partitions, long fromMs, Clock clock) {
    for (Op op : acks) {
      long at = clock.wallMs(op.timeNs());
      if (at >= fromMs && partitions.contains(op.partition())) {
        return w.step(at, describeAck(op));
      }
    }
    return null;
  }

  /** Without a decision: the write that ended the fault's longest gap without one. */
  private static Step ackAfterGap(
      Window w, List<Op> acks, Availability.WindowAvailability gap, Clock clock) {
    if (gap == null || gap.longestGap() == null) {
      return null;
    }
    for (Op op : acks) {
      if (op.timeNs() >= gap.longestGap().endNs()) {
        long at = clock.wallMs(op.timeNs());
        return at < w.startMs() ? null : w.step(at, describeAck(op));
      }
    }
    return null;
  }

  private static String describeAck(Op op) {
    return "value " + op.value() + " at " + op.partition() + "@" + op.offset();
  }
}
