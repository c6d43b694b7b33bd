package dev.spool.coordinator.group.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.HeartbeatRequest;
import dev.spool.coordinator.group.api.HeartbeatResult;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A shard with manual time, a mutable topic list, and simulated members that behave as the client
 * does: they revoke what left their assignment and report it, and take what was added. Checks after
 * every step that no partition is owned by two simulated members and that the records replay into
 * the same state.
 */
final class ShardHarness {
  /** Classic groups' settings for shards whose tests use consumer-protocol groups only. */
  static final ClassicSettings CLASSIC = new ClassicSettings(100, 1_000, 60_000, 1_000_000);

  static final GroupSettings SETTINGS =
      new GroupSettings(
          10_000, 500, 50, 64, GroupSettings.assignors(List.of("uniform", "range")), CLASSIC);

  final Map<String, Integer> topicCounts = new TreeMap<>();
  final ManualTimers timers = new ManualTimers();
  final AtomicInteger ids = new AtomicInteger();
  final GroupShard shard;
  final List<CoordinatorRecord> log = new ArrayList<>();
  final Map<String, Sim> sims = new TreeMap<>();

  ShardHarness() {
    this(SETTINGS);
  }

  ShardHarness(GroupSettings settings) {
    shard = new GroupShard(settings, timers, this::view, () -> "gen-" + ids.incrementAndGet());
  }

  TopicsView view() {
    return new TopicsView() {
      @Override
      public int partitionCount(String topic) {
        return topicCounts.getOrDefault(topic, -1);
      }

      @Override
      public Collection<String> topicNames() {
        return topicCounts.keySet();
      }
    };
  }

  /** What one member's client holds. */
  static final class Sim {
    final String memberId;
    String instanceId;
    int epoch;
    Set<TopicPartition> owned = new HashSet<>();

    Sim(String memberId) {
      this.memberId = memberId;
    }
  }

  HeartbeatResult join(String group, String memberId, List<String> topics) {
    return join(group, memberId, null, topics, null);
  }

  HeartbeatResult join(
      String group, String memberId, String instanceId, List<String> topics, String regex) {
    Sim s = new Sim(memberId);
    s.instanceId = instanceId;
    HeartbeatResult r =
        send(
            s,
            new HeartbeatRequest(
                group,
                memberId,
                0,
                instanceId,
                null,
                60_000,
                topics,
                regex,
                null,
                Set.of(),
                "c",
                "h"));
    if (r.error() == ErrorCode.NONE) {
      sims.put(memberId, s);
    }
    return r;
  }

  HeartbeatResult beat(String group, String memberId) {
    Sim s = sims.get(memberId);
    return send(
        s,
        new HeartbeatRequest(
            group,
            memberId,
            s.epoch,
            null,
            null,
            null,
            null,
            null,
            null,
            Set.copyOf(s.owned),
            null,
            null));
  }

  HeartbeatResult leave(String group, String memberId, int epoch) {
    Sim s = sims.remove(memberId);
    HeartbeatResult r =
        shard.heartbeat(
            new HeartbeatRequest(
                group, memberId, epoch, null, null, null, null, null, null, null, null, null));
    collect();
    if (s != null) {
      s.owned.clear();
    }
    return r;
  }

  private HeartbeatResult send(Sim s, HeartbeatRequest req) {
    HeartbeatResult r = shard.heartbeat(req);
    collect();
    if (r.error() == ErrorCode.NONE) {
      s.epoch = r.memberEpoch();
      // The client revokes what is no longer assigned, then takes what is new.
      s.owned.retainAll(r.assignment());
      s.owned.addAll(r.assignment());
      assertNoDoubleOwnership();
    } else if (r.error() == ErrorCode.FENCED_MEMBER_EPOCH
        || r.error() == ErrorCode.UNKNOWN_MEMBER_ID) {
      s.owned.clear(); // partitions lost
    }
    return r;
  }

  void collect() {
    log.addAll(shard.drainRecords());
  }

  void assertNoDoubleOwnership() {
    Map<TopicPartition, String> owner = new HashMap<>();
    for (Sim s : sims.values()) {
      for (TopicPartition tp : s.owned) {
        String prev = owner.put(tp, s.memberId);
        assertNull(prev, tp + " owned by " + prev + " and " + s.memberId);
      }
    }
  }

  /** Heartbeats every member until nothing changes; returns the rounds it took. */
  int settle(String group) {
    for (int round = 0; round < 20; round++) {
      int logSize = log.size();
      Map<String, Set<TopicPartition>> before = new HashMap<>();
      sims.forEach((id, s) -> before.put(id, Set.copyOf(s.owned)));
      for (String id : List.copyOf(sims.keySet())) {
        beat(group, id);
      }
      Map<String, Set<TopicPartition>> after = new HashMap<>();
      sims.forEach((id, s) -> after.put(id, Set.copyOf(s.owned)));
      if (log.size() == logSize && before.equals(after)) {
        return round;
      }
    }
    throw new AssertionError("the group did not settle in 20 rounds");
  }

  /** A fresh shard replaying every record emitted so far describes the group the same way. */
  void assertReplayMatches(String group) {
    GroupShard replayed = new GroupShard(SETTINGS, new ManualTimers(), this::view, () -> "x");
    log.forEach(replayed::replay);
    assertEquals(
        shard.offsets().describe(group), replayed.offsets().describe(group), "replayed state");
    ConsumerGroup a = shard.group(group);
    ConsumerGroup b = replayed.group(group);
    if (a != null) {
      assertEquals(a.offsets(), b.offsets());
      assertEquals(a.subscribedTopicPartitions(), b.subscribedTopicPartitions());
    }
  }

  Set<TopicPartition> allPartitions() {
    Set<TopicPartition> out = new HashSet<>();
    topicCounts.forEach(
        (t, n) -> {
          for (int p = 0; p < n; p++) {
            out.add(new TopicPartition(t, p));
          }
        });
    return out;
  }

  Set<TopicPartition> ownedBySims() {
    Set<TopicPartition> out = new HashSet<>();
    sims.values().forEach(s -> out.addAll(s.owned));
    return out;
  }
}
