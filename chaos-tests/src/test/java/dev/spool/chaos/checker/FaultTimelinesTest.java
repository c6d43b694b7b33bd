package dev.spool.chaos.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.spool.chaos.checker.FaultTimeline.Step;
import dev.spool.chaos.history.ClientLeaderView;
import dev.spool.chaos.history.History;
import dev.spool.chaos.history.HistoryEntry;
import dev.spool.chaos.history.Op;
import dev.spool.chaos.history.OpFunction;
import dev.spool.chaos.history.OpType;
import dev.spool.chaos.nemesis.FaultKind;
import dev.spool.chaos.nemesis.FaultWindow;
import dev.spool.common.TopicPartition;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The fault timelines from hand-written node log lines and a history: three faults, each with
 * decoys (another broker's session, a partition the fault did not touch, a grown ISR, a restarted
 * controller elected after the heal) that must not be taken for its steps.
 */
@Tag("unit")
class FaultTimelinesTest {
  private static final TopicPartition T0 = new TopicPartition("t", 0);
  private static final TopicPartition T1 = new TopicPartition("t", 1);

  /** History time 0 on the wall clock: 2026-12-07 10:00:00.000 UTC. */
  private static final LocalDateTime ZERO = LocalDateTime.of(2026, 12, 7, 10, 0, 0);

  private static final long ZERO_MS = ZERO.toInstant(ZoneOffset.UTC).toEpochMilli();
  private static final DateTimeFormatter LOG_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

  private final List<HistoryEntry> entries = new ArrayList<>();
  private int nextIndex;

  /** A node log line at {@code ms} after history time 0, as logback writes it. */
  private static String line(long ms, String logger, String message) {
    return LOG_TIME.format(ZERO.plusNanos(ms * 1_000_000L))
        + " INFO  [thread] "
        + logger
        + " - "
        + message;
  }

  private void ack(long ms, TopicPartition tp, long value) {
    long invokeNs = (ms - 5) * 1_000_000L;
    entries.add(op(invokeNs, OpType.INVOKE, tp, value, null));
    entries.add(op(ms * 1_000_000L, OpType.OK, tp, value, value));
  }

  private Op op(long timeNs, OpType type, TopicPartition tp, long value, Long offset) {
    return new Op(
        nextIndex++,
        timeNs,
        value,
        0,
        type,
        OpFunction.SEND,
        tp,
        value,
        offset,
        null,
        null,
        null,
        null);
  }

  private void client(long ms, int worker, TopicPartition tp, int leader, int epoch) {
    entries.add(new ClientLeaderView(ms * 1_000_000L, worker, worker, tp, leader, epoch));
  }

  private static FaultWindow fault(int id, FaultKind kind, String target, long fromMs, long toMs) {
    return new FaultWindow(id, kind, List.of(target), fromMs * 1_000_000L, toMs * 1_000_000L, null);
  }

  private List<NodeLogEvents.Event> nodeEvents() {
    List<NodeLogEvents.Event> events = new ArrayList<>();
    String ac = "d.s.q.controller.ActiveController";
    String part = "d.s.b.replication.Partition";
    events.addAll(
        NodeLogEvents.parse(
            1,
            List.of(
                "=== harness 2026-12-07T10:00:09Z: kill -9 node 2",
                "Exception in thread main without a time",
                // kill n2 at 10 s: another broker's session first (a decoy), then n2's
                line(
                    10_500,
                    ac,
                    "[node=1 term=2] controller write at offset 90: fence 3 (session"
                        + " expired) (1 records)"),
                line(
                    11_500,
                    ac,
                    "[node=1 term=2] controller write at offset 120: fence 2 (session"
                        + " expired), repair 2 partitions (3 records)"),
                line(
                    11_520,
                    ac,
                    "[node=1 term=2] committed at offset 120: partition t-1 leader 1"
                        + " -> 1 epoch 2 -> 2 isr [1, 3] -> [1]"),
                line(
                    11_550,
                    ac,
                    "[node=1 term=2] committed at offset 121: partition t-0 leader 2"
                        + " -> 3 epoch 3 -> 4 isr [1, 2, 3] -> [1, 3]"),
                line(
                    11_600,
                    part,
                    "[node=1 partition=t-1 epoch=2] ISR is now [1] (partition"
                        + " epoch 5, from the metadata log)"),
                // after the heal: the preferred leader comes back (not a decision of the kill)
                line(
                    20_000,
                    ac,
                    "[node=1 term=2] committed at offset 160: partition t-0 leader 3"
                        + " -> 2 epoch 4 -> 5 isr [1, 2, 3] -> [1, 2, 3]"),
                // pause n3 at 30 s, too short to be fenced: only a grown ISR in its window
                line(
                    30_500,
                    ac,
                    "[node=1 term=2] committed at offset 200: partition t-1 leader 1"
                        + " -> 1 epoch 2 -> 2 isr [1] -> [1, 3]"),
                // isolate n1 from its followers at 50 s
                line(
                    50_900,
                    part,
                    "[node=1 partition=t-1 epoch=2] proposing ISR [1] (now [1, 2,"
                        + " 3]): followers [2, 3] lag more than replica.lag.time.max.ms=500"),
                line(
                    50_950,
                    ac,
                    "[node=1 term=2] committed at offset 300: partition t-1 leader 1"
                        + " -> 1 epoch 2 -> 2 isr [1, 2, 3] -> [1]"),
                line(
                    50_970,
                    part,
                    "[node=1 partition=t-1 epoch=2] ISR is now [1] (partition" + " epoch 9)")),
            ZoneOffset.UTC));
    events.addAll(
        NodeLogEvents.parse(
            3,
            List.of(
                line(
                    11_620,
                    part,
                    "[node=3 partition=t-0 epoch=4] FOLLOWER -> LEADER: leading in"
                        + " epoch 4 from offset 17 with ISR [1, 3]"),
                line(
                    31_500,
                    "d.s.q.r.MetadataStateMachine",
                    "[node=3] became the active controller in term 3 at offset 210")),
            ZoneOffset.UTC));
    return events;
  }

  private List<FaultWindow> faults() {
    return List.of(
        fault(1, FaultKind.KILL, "n2", 10_000, 14_000),
        fault(2, FaultKind.PAUSE, "n3", 30_000, 31_000),
        fault(3, FaultKind.ISOLATE_LEADER_FROM_FOLLOWERS, "n1 | n2 n3", 50_000, 60_000));
  }

  private List<FaultTimeline> timelines() {
    client(9_000, 1, T0, 2, 3);
    ack(9_900, T0, 1);
    ack(11_650, T1, 2); // the partition that only lost a follower
    client(11_700, 0, T0, 3, 4);
    ack(11_750, T0, 3);
    client(11_800, 1, T0, 3, 4);
    client(11_850, 0, T1, 1, 2); // a partition the kill did not move
    ack(29_900, T0, 4);
    ack(31_200, T1, 5);
    ack(49_000, T0, 6);
    ack(51_000, T1, 7);
    ack(70_000, T0, 8);
    History history = History.of(entries);
    List<FaultWindow> faults = faults();
    return FaultTimelines.compute(
        faults, history, nodeEvents(), ZERO_MS, Availability.compute(history, faults));
  }

  @Test
  void shouldTimeAKilledLeadersFailoverStepByStep() {
    FaultTimeline kill = timelines().get(0);

    assertEquals(ZERO_MS + 10_000, kill.startMs());
    assertEquals(new Step(1500, "n1: session of broker 2 expired"), kill.detection());
    assertEquals(new Step(1550, "n1 commits t-0 leader 2 -> 3 (epoch 4)"), kill.decision());
    assertEquals(new Step(1620, "n3 leads t-0 in epoch 4"), kill.takeover());
    assertEquals(new Step(1700, "producer 0 (process 0) sends t-0 to n3"), kill.clientSwitch());
    assertEquals(2, kill.clientsSwitched());
    assertEquals(1800L, kill.lastClientSwitchMs());
    assertEquals(new Step(1750, "value 3 at t-0@3"), kill.firstAck());
  }

  @Test
  void shouldLeaveOutTheStepsAShortPauseNeverNeeded() {
    FaultTimeline pause = timelines().get(1);

    assertNull(pause.detection(), "a new controller after the heal is not detection");
    assertNull(pause.decision(), "a grown ISR is recovery, not a decision");
    assertNull(pause.takeover());
    assertNull(pause.clientSwitch());
    assertEquals(0, pause.clientsSwitched());
    assertEquals(new Step(1200, "value 5 at t-1@5"), pause.firstAck());
  }

  @Test
  void shouldTimeAnIsrShrinkWithoutANewLeader() {
    FaultTimeline isolate = timelines().get(2);

    assertEquals(new Step(900, "n1 proposes ISR [1] for t-1"), isolate.detection());
    assertEquals(new Step(950, "n1 commits t-1 ISR [1]"), isolate.decision());
    assertEquals(new Step(970, "n1 takes ISR [1] for t-1"), isolate.takeover());
    assertNull(isolate.clientSwitch(), "the leader stayed: no client had to switch");
    assertEquals(new Step(1000, "value 7 at t-1@7"), isolate.firstAck());
  }

  @Test
  void shouldTakeANewActiveControllerAsTheSignOfAnIsolatedOne() {
    String ac = "d.s.q.controller.ActiveController";
    List<NodeLogEvents.Event> events =
        NodeLogEvents.parse(
            2,
            List.of(
                line(
                    80_960,
                    "d.s.q.r.MetadataStateMachine",
                    "[node=2] became the active" + " controller in term 4 at offset 400"),
                line(
                    82_460,
                    ac,
                    "[node=2 term=4] controller write at offset 401: fence 1"
                        + " (session expired), repair 1 partitions (2 records)"),
                line(
                    82_480,
                    ac,
                    "[node=2 term=4] committed at offset 402: partition t-1 leader 1"
                        + " -> 2 epoch 2 -> 3 isr [1, 2, 3] -> [2, 3]"),
                line(
                    82_500,
                    "d.s.b.replication.Partition",
                    "[node=2 partition=t-1 epoch=3]"
                        + " FOLLOWER -> LEADER: leading in epoch 3 from offset 9 with ISR [2, 3]")),
            ZoneOffset.UTC);
    client(92_100, 0, T1, 2, 3);
    ack(92_130, T1, 9);
    History history = History.of(entries);
    List<FaultWindow> faults =
        List.of(fault(5, FaultKind.ISOLATE_CONTROLLER_FROM_BROKERS, "n1 | n2 n3", 80_000, 92_000));

    FaultTimeline t =
        FaultTimelines.compute(
                faults, history, events, ZERO_MS, Availability.compute(history, faults))
            .get(0);

    assertEquals(new Step(960, "n2 becomes the active controller"), t.detection());
    assertEquals(new Step(2480, "n2 commits t-1 leader 1 -> 2 (epoch 3)"), t.decision());
    assertEquals(new Step(2500, "n2 leads t-1 in epoch 3"), t.takeover());
    assertEquals(
        new Step(12_100, "producer 0 (process 0) sends t-1 to n2"),
        t.clientSwitch(),
        "the clients learned only after the heal");
    assertEquals(new Step(12_130, "value 9 at t-1@9"), t.firstAck());
  }

  @Test
  void shouldExplainNothingByAFaultThatHitNothing() {
    History history = History.of(entries);
    FaultWindow nothing =
        new FaultWindow(4, FaultKind.KILL, List.of(), 10_000_000_000L, 14_000_000_000L, null);
    List<FaultWindow> faults = List.of(nothing);

    FaultTimeline t =
        FaultTimelines.compute(
                faults, history, nodeEvents(), ZERO_MS, Availability.compute(history, faults))
            .get(0);

    assertNull(t.detection(), "the session that expired in its window was another fault's");
    assertNull(t.decision());
    assertNull(t.takeover());
  }

  @Test
  void shouldReadTheTargetsOfEachFaultShape() {
    assertEquals(java.util.Set.of(2), FaultTimelines.targets(fault(1, FaultKind.KILL, "n2", 0, 1)));
    assertEquals(
        java.util.Set.of(1, 2),
        FaultTimelines.targets(fault(1, FaultKind.SPLIT_MAJORITY_MINORITY, "n1 n2 | n3", 0, 1)));
    assertEquals(
        java.util.Set.of(1, 3),
        FaultTimelines.targets(fault(1, FaultKind.ONE_WAY_LOSS, "n1 -> n3", 0, 1)));
    assertEquals(
        java.util.Set.of(),
        FaultTimelines.targets(fault(1, FaultKind.CLIENT_LATENCY, "client links", 0, 1)));
  }

  @Test
  void shouldSkipLinesWithoutATimeOrOfNoInterest() {
    List<NodeLogEvents.Event> events =
        NodeLogEvents.parse(
            2,
            List.of(
                "=== harness 2026-12-07T10:00:09Z: starting node 2",
                line(5, "d.s.b.Broker", "[node=2] serving requests"),
                line(
                    7,
                    "x",
                    "[node=2 partition=t-0 epoch=3] NONE -> LEADER: leading in epoch 3"
                        + " from offset 0 with ISR [1, 2, 3]")),
            ZoneOffset.UTC);

    assertEquals(1, events.size());
    NodeLogEvents.Event e = events.get(0);
    assertEquals(NodeLogEvents.Type.LEADING, e.type());
    assertEquals(ZERO_MS + 7, e.atMs());
    assertEquals(T0, e.partition());
    assertEquals(2, e.leader());
    assertEquals(3, e.epoch());
  }
}
