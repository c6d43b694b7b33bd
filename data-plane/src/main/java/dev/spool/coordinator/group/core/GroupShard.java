package dev.spool.coordinator.group.core;

import dev.spool.common.ErrorCode;
import dev.spool.common.TopicPartition;
import dev.spool.coordinator.group.api.HeartbeatRequest;
import dev.spool.coordinator.group.api.HeartbeatResult;
import dev.spool.coordinator.group.assignor.AssignmentSpec;
import dev.spool.coordinator.group.assignor.PartitionAssignor;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Every group of one {@code __consumer_offsets} partition and the membership operations on them
 * (KIP-848 heartbeats, leaves, session and rebalance timeouts); offsets and admin operations are in
 * {@link OffsetOperations}. An operation validates its input, then emits records: each is replayed
 * into the state at once and collected; the runtime takes them with {@link #drainRecords}, appends
 * them to the partition, and answers only once they are committed.
 *
 * <p>Threading: confined to the thread the runtime runs the shard on; not thread-safe.
 */
public final class GroupShard {
  /** How much sooner a member waiting for released partitions heartbeats. */
  static final int UNRELEASED_HEARTBEAT_SPEEDUP = 3;

  private final GroupSettings settings;
  private final CoordinatorTimers timers;
  private final Supplier<TopicsView> topics;
  private final Supplier<String> memberIds;
  private final Map<String, ConsumerGroup> groups = new HashMap<>();
  private final Map<String, Pattern> patterns = new HashMap<>();
  private final List<CoordinatorRecord> emitted = new ArrayList<>();
  private final OffsetOperations offsets;
  private final ClassicGroups classic;
  private final Map<CompletableFuture<?>, Boolean> parked = new IdentityHashMap<>();
  private final List<Reply<?>> replies = new ArrayList<>();

  /** An answer to give once the records emitted with it are committed. */
  public record Reply<T>(CompletableFuture<T> future, T value) {
    public void complete() {
      future.complete(value);
    }
  }

  /**
   * @param topics the cluster's topics now (read at each operation)
   * @param memberIds new member ids, for members that join without one
   */
  public GroupShard(
      GroupSettings settings,
      CoordinatorTimers timers,
      Supplier<TopicsView> topics,
      Supplier<String> memberIds) {
    this.settings = settings;
    this.timers = timers;
    this.topics = topics;
    this.memberIds = memberIds;
    this.offsets = new OffsetOperations(this);
    this.classic = new ClassicGroups(this, timers, memberIds);
  }

  /** The classic (JoinGroup/SyncGroup) groups of this partition. */
  public ClassicGroups classic() {
    return classic;
  }

  public OffsetOperations offsets() {
    return offsets;
  }

  GroupSettings settings() {
    return settings;
  }

  // ---------------------------------------------------------------- state and records

  public ConsumerGroup group(String groupId) {
    return groups.get(groupId);
  }

  public Collection<ConsumerGroup> groups() {
    return groups.values();
  }

  /** Applies a record: from the log when loading, or just emitted. */
  public void replay(CoordinatorRecord r) {
    if (r.type() == CoordinatorRecord.RecordType.CLASSIC_GROUP) {
      classic.replay(r);
      return;
    }
    String id = GroupRecords.groupId(r);
    ConsumerGroup g = groups.computeIfAbsent(id, ConsumerGroup::new);
    g.replay(r);
    if (g.isGone()) {
      groups.remove(id);
    }
  }

  void emit(CoordinatorRecord r) {
    replay(r);
    emitted.add(r);
  }

  /**
   * Writes a record without replaying it: a classic group's record is a snapshot of a state machine
   * that holds more than the record (requests in flight, pending members), which a replay would
   * drop; {@link ClassicGroup#load} reads it when a partition is loaded.
   */
  void append(CoordinatorRecord r) {
    emitted.add(r);
  }

  /** How many records the current operation emitted so far. */
  int pendingAppends() {
    return emitted.size();
  }

  /**
   * A future the protocol answers later, through {@link #reply}; failed if the shard is dropped.
   */
  <T> CompletableFuture<T> park() {
    CompletableFuture<T> f = new CompletableFuture<>();
    parked.put(f, Boolean.TRUE);
    return f;
  }

  /** Answers {@code f} with {@code value} once this operation's records are committed. */
  <T> void reply(CompletableFuture<T> f, T value) {
    parked.remove(f);
    replies.add(new Reply<>(f, value));
  }

  /** The answers of the current operation, in order; the runtime gives them after its write. */
  public List<Reply<?>> drainReplies() {
    List<Reply<?>> out = List.copyOf(replies);
    replies.clear();
    return out;
  }

  /** The shard is dropped (reload, leadership lost): every held request fails with {@code e}. */
  public void failParked(RuntimeException e) {
    List<CompletableFuture<?>> all = new ArrayList<>(parked.keySet());
    parked.clear();
    all.forEach(f -> f.completeExceptionally(e));
  }

  /**
   * A classic group takes over an id whose consumer-protocol group has no members left: that
   * group's metadata goes (its committed offsets stay), as on Kafka.
   */
  void dropEmptyConsumerGroup(String groupId) {
    ConsumerGroup g = groups.get(groupId);
    if (g != null && g.members().isEmpty() && (g.groupEpoch() > 0 || g.assignmentEpoch() > 0)) {
      emit(GroupRecords.targetAssignmentMetadataTombstone(groupId));
      emit(GroupRecords.groupMetadataTombstone(groupId));
    }
  }

  /** The records emitted since the last call, in order. */
  public List<CoordinatorRecord> drainRecords() {
    List<CoordinatorRecord> out = List.copyOf(emitted);
    emitted.clear();
    return out;
  }

  /**
   * After a load: every member gets a full session (and a pending revocation its rebalance time).
   */
  public void onLoaded() {
    classic.onLoaded();
    for (ConsumerGroup g : groups.values()) {
      for (GroupMember m : g.members().values()) {
        scheduleSession(g.groupId(), m.memberId());
        if (m.state() == MemberState.UNREVOKED_PARTITIONS) {
          scheduleRebalance(g.groupId(), m);
        }
      }
    }
  }

  // ---------------------------------------------------------------- heartbeat

  /** One ConsumerGroupHeartbeat; emits the records of whatever it changed. */
  public HeartbeatResult heartbeat(HeartbeatRequest r) {
    HeartbeatResult invalid = validate(r);
    if (invalid != null) {
      return invalid;
    }
    HeartbeatResult classicGroup = classicConflict(r.groupId());
    if (classicGroup != null) {
      return classicGroup;
    }
    ConsumerGroup g = groups.get(r.groupId());
    String memberId = r.memberId() == null ? "" : r.memberId();
    int epoch = r.memberEpoch();
    if (epoch < 0) {
      return leave(g, memberId, epoch);
    }
    if (epoch == HeartbeatRequest.JOIN_EPOCH) {
      return join(g, memberId.isEmpty() ? memberIds.get() : memberId, r);
    }
    GroupMember old = g == null ? null : g.member(memberId);
    if (old == null) {
      return HeartbeatResult.error(
          ErrorCode.UNKNOWN_MEMBER_ID,
          "group " + r.groupId() + " has no member " + memberId + ": rejoin with epoch 0");
    }
    if (epoch > old.memberEpoch()
        || (epoch < old.memberEpoch()
            && (epoch != old.previousMemberEpoch()
                || r.owned() == null
                || !old.assigned().containsAll(r.owned())))) {
      return HeartbeatResult.error(
          ErrorCode.FENCED_MEMBER_EPOCH,
          "member "
              + memberId
              + " of group "
              + r.groupId()
              + " sent epoch "
              + epoch
              + " but is at epoch "
              + old.memberEpoch()
              + ": give up every partition and rejoin with epoch 0");
    }
    GroupMember updated = withRequestMetadata(old, r);
    boolean bump = !sameSubscription(old, updated);
    if (!old.sameMetadata(updated)) {
      emit(GroupRecords.memberMetadata(r.groupId(), updated));
    }
    return advance(r.groupId(), memberId, bump, r.owned());
  }

  /**
   * A classic group of the same id: with members it answers GROUP_ID_NOT_FOUND, as Kafka does when
   * it does not convert the group; an empty one makes way (its offsets stay).
   */
  private HeartbeatResult classicConflict(String groupId) {
    ClassicGroup cg = classic.group(groupId);
    if (cg == null) {
      return null;
    }
    if (cg.size() > 0) {
      return HeartbeatResult.error(
          ErrorCode.GROUP_ID_NOT_FOUND,
          "Group "
              + groupId
              + " is not a consumer group: it is a classic group with "
              + cg.size()
              + " members (group.protocol=classic)");
    }
    classic.delete(cg);
    return null;
  }

  private HeartbeatResult validate(HeartbeatRequest r) {
    if (r.groupId() == null || r.groupId().isEmpty()) {
      return HeartbeatResult.error(ErrorCode.INVALID_GROUP_ID, "the group id is empty");
    }
    if (r.memberEpoch() < HeartbeatRequest.STATIC_LEAVE_EPOCH) {
      return HeartbeatResult.error(
          ErrorCode.INVALID_REQUEST, "member epoch " + r.memberEpoch() + " is not valid");
    }
    if (r.memberEpoch() != HeartbeatRequest.JOIN_EPOCH
        && (r.memberId() == null || r.memberId().isEmpty())) {
      return HeartbeatResult.error(
          ErrorCode.UNKNOWN_MEMBER_ID, "a heartbeat after the join must carry the member id");
    }
    if (r.memberEpoch() == HeartbeatRequest.JOIN_EPOCH
        && r.subscribedTopicNames() == null
        && r.subscribedTopicRegex() == null) {
      return HeartbeatResult.error(
          ErrorCode.INVALID_REQUEST, "a join (member epoch 0) must carry the subscription");
    }
    if (r.subscribedTopicRegex() != null && !r.subscribedTopicRegex().isEmpty()) {
      try {
        pattern(r.subscribedTopicRegex());
      } catch (PatternSyntaxException e) {
        return HeartbeatResult.error(
            ErrorCode.INVALID_REGULAR_EXPRESSION,
            "subscription pattern '" + r.subscribedTopicRegex() + "': " + e.getDescription());
      }
    }
    if (r.serverAssignor() != null
        && !r.serverAssignor().isEmpty()
        && !settings.assignors().containsKey(r.serverAssignor())) {
      return HeartbeatResult.error(
          ErrorCode.UNSUPPORTED_ASSIGNOR,
          "assignor '" + r.serverAssignor() + "' is not one of " + settings.assignors().keySet());
    }
    if (r.rebalanceTimeoutMs() != null && r.rebalanceTimeoutMs() <= 0) {
      return HeartbeatResult.error(
          ErrorCode.INVALID_REQUEST, "rebalance timeout must be > 0: " + r.rebalanceTimeoutMs());
    }
    return null;
  }

  private HeartbeatResult join(ConsumerGroup g, String memberId, HeartbeatRequest r) {
    String instanceId = r.instanceId() == null ? "" : r.instanceId();
    GroupMember old = g == null ? null : g.member(memberId);
    GroupMember replaced = null;
    if (!instanceId.isEmpty() && g != null) {
      String holder = g.staticMemberId(instanceId);
      if (holder != null && !holder.equals(memberId)) {
        replaced = g.member(holder);
        if (replaced.memberEpoch() != HeartbeatRequest.STATIC_LEAVE_EPOCH) {
          return HeartbeatResult.error(
              ErrorCode.UNRELEASED_INSTANCE_ID,
              "group.instance.id "
                  + instanceId
                  + " of group "
                  + r.groupId()
                  + " is held by the live member "
                  + holder);
        }
      }
    }
    if (old == null
        && replaced == null
        && g != null
        && g.members().size() >= settings.maxGroupSize()) {
      return HeartbeatResult.error(
          ErrorCode.GROUP_MAX_SIZE_REACHED,
          "group "
              + r.groupId()
              + " already has "
              + g.members().size()
              + " members (group.max.size="
              + settings.maxGroupSize()
              + ")");
    }
    String groupId = r.groupId();
    boolean bump;
    if (replaced != null) {
      // A static member back within its session: the new incarnation takes over the old one's
      // partitions and epoch, so nothing moves.
      Set<TopicPartition> target = g.targetOf(replaced.memberId());
      GroupMember taken =
          withRequestMetadata(replaced.withMemberId(memberId), r)
              .withAssignment(
                  replaced.previousMemberEpoch(),
                  replaced.previousMemberEpoch(),
                  replaced.state(),
                  replaced.assigned(),
                  replaced.pendingRevocation());
      removeRecords(groupId, replaced);
      emit(GroupRecords.memberMetadata(groupId, taken));
      emit(GroupRecords.targetAssignmentMember(groupId, memberId, target));
      emit(GroupRecords.currentAssignment(groupId, taken));
      bump = !sameSubscription(replaced, taken);
    } else {
      GroupMember base = old == null ? GroupMember.placeholder(memberId) : old;
      GroupMember updated = withRequestMetadata(base, r);
      if (old == null || !old.sameMetadata(updated)) {
        emit(GroupRecords.memberMetadata(groupId, updated));
      }
      if (old != null && (old.memberEpoch() != 0 || !old.assigned().isEmpty())) {
        // A known member joining again lost its state: it owns nothing now.
        emit(
            GroupRecords.currentAssignment(
                groupId, updated.withAssignment(0, 0, MemberState.STABLE, Set.of(), Set.of())));
      }
      bump = old == null || !sameSubscription(old, updated);
    }
    return advance(groupId, memberId, bump, r.owned() == null ? Set.of() : r.owned());
  }

  /** Bumps the group epoch when needed, computes a new target, reconciles the member. */
  private HeartbeatResult advance(
      String groupId, String memberId, boolean bump, Set<TopicPartition> owned) {
    ConsumerGroup g = groups.get(groupId);
    Map<String, Integer> subscribed = subscribedTopicPartitions(g);
    if (bump || !subscribed.equals(g.subscribedTopicPartitions())) {
      emit(GroupRecords.groupMetadata(groupId, g.groupEpoch() + 1, subscribed));
    }
    if (g.groupEpoch() > g.assignmentEpoch()) {
      computeTargetAssignment(g);
    }
    GroupMember current = g.member(memberId);
    GroupMember next =
        Reconciliation.reconcile(
            current,
            g.assignmentEpoch(),
            g.targetOf(memberId),
            owned,
            tp -> {
              String o = g.ownerOf(tp);
              return o != null && !o.equals(memberId);
            },
            t -> subscribes(current, t));
    if (!next.sameAssignment(current)) {
      emit(GroupRecords.currentAssignment(groupId, next));
    }
    scheduleSession(groupId, memberId);
    if (next.state() == MemberState.UNREVOKED_PARTITIONS) {
      if (current.state() != MemberState.UNREVOKED_PARTITIONS
          || current.memberEpoch() != next.memberEpoch()) {
        scheduleRebalance(groupId, next);
      }
    } else {
      timers.cancel(rebalanceKey(groupId, memberId));
    }
    return new HeartbeatResult(
        ErrorCode.NONE,
        "",
        memberId,
        next.memberEpoch(),
        heartbeatIntervalMs(next),
        next.assigned());
  }

  /**
   * A member waiting for partitions others still own hears of each release only at its next
   * heartbeat, so it is asked to come back sooner (a third of the interval) until it holds its
   * whole target; a joining member then starts on its share about two thirds of an interval
   * earlier. Both Spool's client and Kafka's take the interval from every answer. A member that
   * must revoke needs no such hint: its client heartbeats as soon as it has revoked.
   */
  private int heartbeatIntervalMs(GroupMember m) {
    int interval = settings.heartbeatIntervalMs();
    return m.state() == MemberState.UNRELEASED_PARTITIONS
        ? Math.max(1, interval / UNRELEASED_HEARTBEAT_SPEEDUP)
        : interval;
  }

  private HeartbeatResult leave(ConsumerGroup g, String memberId, int epoch) {
    GroupMember m = g == null ? null : g.member(memberId);
    if (m == null) {
      return new HeartbeatResult(ErrorCode.NONE, "", memberId, epoch, 0, Set.of());
    }
    if (epoch == HeartbeatRequest.STATIC_LEAVE_EPOCH) {
      if (!m.isStatic()) {
        return HeartbeatResult.error(
            ErrorCode.INVALID_REQUEST,
            "member epoch -2 (leave for now) is for static members; " + memberId + " has none");
      }
      // It keeps its partitions until its session times out, so a restart moves nothing.
      emit(
          GroupRecords.currentAssignment(
              g.groupId(),
              m.withAssignment(
                  HeartbeatRequest.STATIC_LEAVE_EPOCH,
                  m.memberEpoch(),
                  m.state(),
                  m.assigned(),
                  m.pendingRevocation())));
      timers.cancel(rebalanceKey(g.groupId(), memberId));
      scheduleSession(g.groupId(), memberId);
      return new HeartbeatResult(ErrorCode.NONE, "", memberId, epoch, 0, Set.of());
    }
    removeMember(g, m);
    return new HeartbeatResult(ErrorCode.NONE, "", memberId, epoch, 0, Set.of());
  }

  /** Removes a member (leave, session or rebalance timeout): its partitions go to the others. */
  void removeMember(ConsumerGroup g, GroupMember m) {
    removeRecords(g.groupId(), m);
    emit(GroupRecords.groupMetadata(g.groupId(), g.groupEpoch() + 1, subscribedTopicPartitions(g)));
  }

  private void removeRecords(String groupId, GroupMember m) {
    emit(GroupRecords.currentAssignmentTombstone(groupId, m.memberId()));
    emit(GroupRecords.targetAssignmentMemberTombstone(groupId, m.memberId()));
    emit(GroupRecords.memberMetadataTombstone(groupId, m.memberId()));
    timers.cancel(sessionKey(groupId, m.memberId()));
    timers.cancel(rebalanceKey(groupId, m.memberId()));
  }

  private GroupMember withRequestMetadata(GroupMember base, HeartbeatRequest r) {
    List<String> names =
        r.subscribedTopicNames() == null
            ? base.subscribedTopicNames()
            : List.copyOf(new TreeSet<>(r.subscribedTopicNames()));
    return base.withMetadata(
        r.instanceId() == null ? base.instanceId() : r.instanceId(),
        r.rackId() == null ? base.rackId() : r.rackId(),
        r.clientId() == null ? base.clientId() : r.clientId(),
        r.clientHost() == null ? base.clientHost() : r.clientHost(),
        names,
        r.subscribedTopicRegex() == null ? base.subscribedTopicRegex() : r.subscribedTopicRegex(),
        r.rebalanceTimeoutMs() != null
            ? r.rebalanceTimeoutMs()
            : base.rebalanceTimeoutMs() > 0 ? base.rebalanceTimeoutMs() : 300_000,
        r.serverAssignor() == null ? base.serverAssignor() : r.serverAssignor());
  }

  private static boolean sameSubscription(GroupMember a, GroupMember b) {
    return a.subscribedTopicNames().equals(b.subscribedTopicNames())
        && a.subscribedTopicRegex().equals(b.subscribedTopicRegex())
        && a.serverAssignor().equals(b.serverAssignor());
  }

  // ---------------------------------------------------------------- subscriptions and assignment

  Pattern pattern(String regex) {
    return patterns.computeIfAbsent(regex, Pattern::compile);
  }

  /** Whether {@code m} subscribes to {@code topic} (by name, or by regex to an existing topic). */
  boolean subscribes(GroupMember m, String topic) {
    if (m.subscribedTopicNames().contains(topic)) {
      return true;
    }
    return !m.subscribedTopicRegex().isEmpty()
        && topics.get().partitionCount(topic) >= 0
        && topics.get().topicNames().contains(topic)
        && pattern(m.subscribedTopicRegex()).matcher(topic).matches();
  }

  /** The existing topics {@code m} subscribes to. */
  Set<String> subscribedTopics(GroupMember m) {
    TopicsView view = topics.get();
    Set<String> out = new TreeSet<>();
    for (String t : m.subscribedTopicNames()) {
      if (view.partitionCount(t) >= 0) {
        out.add(t);
      }
    }
    if (!m.subscribedTopicRegex().isEmpty()) {
      Pattern p = pattern(m.subscribedTopicRegex());
      for (String t : view.topicNames()) {
        if (p.matcher(t).matches()) {
          out.add(t);
        }
      }
    }
    return out;
  }

  private Map<String, Integer> subscribedTopicPartitions(ConsumerGroup g) {
    TopicsView view = topics.get();
    Map<String, Integer> out = new TreeMap<>();
    for (GroupMember m : g.members().values()) {
      for (String t : subscribedTopics(m)) {
        out.put(t, view.partitionCount(t));
      }
    }
    return out;
  }

  private void computeTargetAssignment(ConsumerGroup g) {
    PartitionAssignor assignor = settings.assignors().get(assignorName(g));
    TreeMap<String, AssignmentSpec.Member> specMembers = new TreeMap<>();
    for (GroupMember m : g.members().values()) {
      specMembers.put(
          m.memberId(),
          new AssignmentSpec.Member(subscribedTopics(m), m.rackId(), g.targetOf(m.memberId())));
    }
    Map<String, Set<TopicPartition>> target =
        assignor.assign(new AssignmentSpec(specMembers, g.subscribedTopicPartitions()));
    for (String id : specMembers.keySet()) {
      Set<TopicPartition> t = target.getOrDefault(id, Set.of());
      if (!t.equals(g.targetOf(id))) {
        emit(GroupRecords.targetAssignmentMember(g.groupId(), id, t));
      }
    }
    emit(GroupRecords.targetAssignmentMetadata(g.groupId(), g.groupEpoch()));
  }

  /** The assignor most members ask for (ties: the broker's order), else the default. */
  String assignorName(ConsumerGroup g) {
    Map<String, Integer> votes = new HashMap<>();
    for (GroupMember m : g.members().values()) {
      if (!m.serverAssignor().isEmpty() && settings.assignors().containsKey(m.serverAssignor())) {
        votes.merge(m.serverAssignor(), 1, Integer::sum);
      }
    }
    String best = settings.defaultAssignor();
    int bestVotes = 0;
    for (String name : settings.assignors().keySet()) {
      int v = votes.getOrDefault(name, 0);
      if (v > bestVotes) {
        best = name;
        bestVotes = v;
      }
    }
    return best;
  }

  // ---------------------------------------------------------------- timers

  private void scheduleSession(String groupId, String memberId) {
    timers.schedule(
        sessionKey(groupId, memberId),
        settings.sessionTimeoutMs(),
        () -> {
          ConsumerGroup g = groups.get(groupId);
          GroupMember m = g == null ? null : g.member(memberId);
          if (m != null) {
            removeMember(g, m);
          }
        });
  }

  private void scheduleRebalance(String groupId, GroupMember m) {
    int epoch = m.memberEpoch();
    String memberId = m.memberId();
    timers.schedule(
        rebalanceKey(groupId, memberId),
        m.rebalanceTimeoutMs(),
        () -> {
          ConsumerGroup g = groups.get(groupId);
          GroupMember now = g == null ? null : g.member(memberId);
          if (now != null
              && now.state() == MemberState.UNREVOKED_PARTITIONS
              && now.memberEpoch() == epoch) {
            removeMember(g, now);
          }
        });
  }

  static String sessionKey(String groupId, String memberId) {
    return "session\u0000" + groupId + "\u0000" + memberId;
  }

  static String rebalanceKey(String groupId, String memberId) {
    return "rebalance\u0000" + groupId + "\u0000" + memberId;
  }

  /** Whether some member of {@code g} subscribes to {@code topic}. */
  boolean anyMemberSubscribes(ConsumerGroup g, String topic) {
    for (GroupMember m : g.members().values()) {
      if (subscribes(m, topic)) {
        return true;
      }
    }
    return false;
  }
}
