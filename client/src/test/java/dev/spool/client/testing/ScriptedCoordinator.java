package dev.spool.client.testing;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ConsumerGroupHeartbeatRequest;
import dev.spool.protocol.message.ConsumerGroupHeartbeatResponse;
import dev.spool.protocol.message.FindCoordinatorRequest;
import dev.spool.protocol.message.FindCoordinatorResponse;
import dev.spool.protocol.message.OffsetCommitRequest;
import dev.spool.protocol.message.OffsetCommitResponse;
import dev.spool.protocol.message.OffsetFetchRequest;
import dev.spool.protocol.message.OffsetFetchResponse;
import dev.spool.protocol.message.OwnedPartitions;
import dev.spool.protocol.message.TopicPartitions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A group coordinator the test steers, on broker 1 of a {@link FakeCluster}: the test sets the
 * member's epoch and assignment ({@link #assign}), makes the next heartbeat fail ({@link
 * #failNextHeartbeat}), holds a heartbeat's answer back ({@link #holdHeartbeat}), and reads what
 * the member sent. Every broker answers FindCoordinator with broker 1. Commits and the test's own
 * {@link #event} lines share one ordered {@link #events} log, so a test can check that a commit
 * came before a revocation. It decides nothing itself: which epoch a member gets and which
 * partitions it owns is what the client under test must react to.
 *
 * <p>Threading: handlers run on the fake brokers' event loops, the test reads from its own thread;
 * all state is in concurrent collections or volatile fields.
 */
public final class ScriptedCoordinator {
  /** What a member committed: offset and the leader epoch of the last consumed record. */
  public record Committed(long offset, int leaderEpoch) {}

  private final List<String> events = new CopyOnWriteArrayList<>();
  private final LinkedBlockingQueue<ConsumerGroupHeartbeatRequest> heartbeats =
      new LinkedBlockingQueue<>();
  // Guarded by this: the heartbeat handler and the scripting methods.
  private final ConcurrentLinkedQueue<ErrorCode> heartbeatErrors = new ConcurrentLinkedQueue<>();
  private final Map<TopicPartition, Committed> committed = new ConcurrentHashMap<>();
  private volatile int epoch = 1;
  private volatile Set<TopicPartition> target = Set.of();
  private volatile Hold hold;

  /** A heartbeat whose answer the test holds back ({@link #holdHeartbeat}) and then releases. */
  public static final class Hold {
    private final Predicate<ConsumerGroupHeartbeatRequest> wanted;
    private final int answerIntervalMs;
    private final CountDownLatch received = new CountDownLatch(1);
    private volatile Runnable reply;

    private Hold(Predicate<ConsumerGroupHeartbeatRequest> wanted, int answerIntervalMs) {
      this.wanted = wanted;
      this.answerIntervalMs = answerIntervalMs;
    }

    /** Waits until the heartbeat to hold arrived (it is then in flight at the member). */
    public void awaitReceived() {
      try {
        if (!received.await(10, TimeUnit.SECONDS)) {
          throw new AssertionError("no heartbeat to hold arrived");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }

    /** Sends the held answer. */
    public void release() {
      awaitReceived();
      reply.run();
    }
  }

  private ScriptedCoordinator() {}

  /** Installs the coordinator's handlers on {@code cluster}. */
  public static ScriptedCoordinator install(FakeCluster cluster) {
    ScriptedCoordinator c = new ScriptedCoordinator();
    FakeBroker coordinator = cluster.broker(1);
    for (FakeBroker b : cluster.brokers()) {
      b.handle(
          ApiKey.FIND_COORDINATOR,
          (r, out) -> {
            FindCoordinatorResponse.Builder resp = FindCoordinatorResponse.newBuilder();
            for (String key : r.body(FindCoordinatorRequest.class).getKeysList()) {
              resp.addCoordinators(
                  FindCoordinatorResponse.Coordinator.newBuilder()
                      .setKey(key)
                      .setNodeId(coordinator.nodeId())
                      .setHost("127.0.0.1")
                      .setPort(coordinator.port()));
            }
            out.reply(resp.build());
          });
    }
    coordinator.handle(
        ApiKey.CONSUMER_GROUP_HEARTBEAT,
        (r, out) -> {
          ConsumerGroupHeartbeatRequest req = r.body(ConsumerGroupHeartbeatRequest.class);
          ConsumerGroupHeartbeatResponse resp = c.heartbeat(req);
          Hold h = c.hold;
          if (h != null && h.wanted.test(req)) {
            c.hold = null;
            ConsumerGroupHeartbeatResponse held =
                resp.toBuilder().setHeartbeatIntervalMs(h.answerIntervalMs).build();
            h.reply = () -> out.reply(held);
            h.received.countDown();
            return;
          }
          out.reply(resp);
        });
    coordinator.handle(
        ApiKey.OFFSET_COMMIT, (r, out) -> out.reply(c.commit(r.body(OffsetCommitRequest.class))));
    coordinator.handle(
        ApiKey.OFFSET_FETCH, (r, out) -> out.reply(c.fetch(r.body(OffsetFetchRequest.class))));
    return c;
  }

  /** From the next heartbeat on, the member is at {@code memberEpoch} with {@code assignment}. */
  public synchronized void assign(int memberEpoch, Set<TopicPartition> assignment) {
    target = Set.copyOf(assignment);
    epoch = memberEpoch;
  }

  /**
   * The first heartbeat from now on that matches {@code wanted} is answered (as usual, but asking
   * for the next heartbeat {@code answerIntervalMs} later) only when the test calls {@link
   * Hold#release}; answers on that connection after it wait too, as on a real broker.
   */
  public Hold holdHeartbeat(Predicate<ConsumerGroupHeartbeatRequest> wanted, int answerIntervalMs) {
    Hold h = new Hold(wanted, answerIntervalMs);
    hold = h;
    return h;
  }

  /** The next heartbeat (only that one) is answered with {@code code}. */
  public synchronized void failNextHeartbeat(ErrorCode code) {
    heartbeatErrors.add(code);
  }

  /**
   * The next heartbeat fails with {@code code}, the ones after it get {@code memberEpoch} and
   * {@code assignment}: both at once, so no heartbeat sees one without the other.
   */
  public synchronized void failNextHeartbeatThenAssign(
      ErrorCode code, int memberEpoch, Set<TopicPartition> assignment) {
    heartbeatErrors.add(code);
    assign(memberEpoch, assignment);
  }

  /** A committed offset as if an earlier member had committed it. */
  public void preset(TopicPartition tp, long offset) {
    committed.put(tp, new Committed(offset, 0));
  }

  public Map<TopicPartition, Committed> committed() {
    return Map.copyOf(committed);
  }

  /** Adds a line to the shared event log (listener callbacks call it). */
  public void event(String line) {
    events.add(line);
  }

  public List<String> events() {
    return List.copyOf(events);
  }

  /**
   * The first heartbeat from now on (earlier ones are dropped) that matches {@code wanted}; fails
   * after {@code timeoutMs}.
   */
  public ConsumerGroupHeartbeatRequest awaitHeartbeat(
      Predicate<ConsumerGroupHeartbeatRequest> wanted, long timeoutMs) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (true) {
      long left = deadline - System.nanoTime();
      ConsumerGroupHeartbeatRequest r = heartbeats.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
      if (r == null) {
        throw new AssertionError("no matching heartbeat within " + timeoutMs + " ms");
      }
      if (wanted.test(r)) {
        return r;
      }
    }
  }

  /** Forgets the heartbeats received so far. */
  public void clearHeartbeats() {
    heartbeats.clear();
  }

  /** The partitions a heartbeat says the member owns. */
  public static Set<TopicPartition> owned(ConsumerGroupHeartbeatRequest r) {
    Set<TopicPartition> out = new HashSet<>();
    for (TopicPartitions t : r.getOwned().getTopicsList()) {
      t.getPartitionsList().forEach(p -> out.add(new TopicPartition(t.getTopic(), p)));
    }
    return out;
  }

  private synchronized ConsumerGroupHeartbeatResponse heartbeat(ConsumerGroupHeartbeatRequest r) {
    heartbeats.add(r);
    ErrorCode error = heartbeatErrors.poll();
    if (error != null) {
      return ConsumerGroupHeartbeatResponse.newBuilder()
          .setErrorCode(error)
          .setErrorMessage("scripted " + error)
          .build();
    }
    if (r.getMemberEpoch() < 0) {
      return ConsumerGroupHeartbeatResponse.newBuilder()
          .setMemberId(r.getMemberId())
          .setMemberEpoch(r.getMemberEpoch())
          .build();
    }
    Map<String, List<Integer>> byTopic = new TreeMap<>();
    target.forEach(
        tp -> byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition()));
    OwnedPartitions.Builder assignment = OwnedPartitions.newBuilder();
    byTopic.forEach(
        (t, ps) ->
            assignment.addTopics(TopicPartitions.newBuilder().setTopic(t).addAllPartitions(ps)));
    return ConsumerGroupHeartbeatResponse.newBuilder()
        .setMemberId(r.getMemberId())
        .setMemberEpoch(epoch)
        .setHeartbeatIntervalMs(50)
        .setAssignment(assignment)
        .build();
  }

  private OffsetCommitResponse commit(OffsetCommitRequest r) {
    OffsetCommitResponse.Builder resp = OffsetCommitResponse.newBuilder();
    for (OffsetCommitRequest.Topic t : r.getTopicsList()) {
      OffsetCommitResponse.Topic.Builder rt = OffsetCommitResponse.Topic.newBuilder();
      rt.setName(t.getName());
      for (OffsetCommitRequest.Partition p : t.getPartitionsList()) {
        TopicPartition tp = new TopicPartition(t.getName(), p.getPartition());
        committed.put(tp, new Committed(p.getCommittedOffset(), p.getCommittedLeaderEpoch()));
        events.add("commit " + tp + "@" + p.getCommittedOffset());
        rt.addPartitions(
            OffsetCommitResponse.Partition.newBuilder().setPartition(p.getPartition()));
      }
      resp.addTopics(rt);
    }
    return resp.build();
  }

  private OffsetFetchResponse fetch(OffsetFetchRequest r) {
    OffsetFetchResponse.Builder resp = OffsetFetchResponse.newBuilder();
    for (OffsetFetchRequest.Group g : r.getGroupsList()) {
      OffsetFetchResponse.Group.Builder rg =
          OffsetFetchResponse.Group.newBuilder().setGroupId(g.getGroupId());
      for (TopicPartitions t : g.getTopicsList()) {
        OffsetFetchResponse.Topic.Builder rt = OffsetFetchResponse.Topic.newBuilder();
        rt.setName(t.getTopic());
        for (int p : t.getPartitionsList()) {
          Committed c = committed.get(new TopicPartition(t.getTopic(), p));
          rt.addPartitions(
              OffsetFetchResponse.Partition.newBuilder()
                  .setPartition(p)
                  .setCommittedOffset(c == null ? -1 : c.offset())
                  .setCommittedLeaderEpoch(c == null ? -1 : c.leaderEpoch()));
        }
        rg.addTopics(rt);
      }
      resp.addGroups(rg);
    }
    return resp.build();
  }
}
