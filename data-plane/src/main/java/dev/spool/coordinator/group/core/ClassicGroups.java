package dev.spool.coordinator.group.core;

import dev.spool.common.ErrorCode;
import dev.spool.coordinator.group.api.Classic;
import dev.spool.coordinator.group.api.GroupResult;
import dev.spool.coordinator.group.core.ClassicGroup.State;
import dev.spool.coordinator.group.record.ClassicGroupValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Kafka's classic group protocol on a {@link GroupShard}: JoinGroup, SyncGroup, Heartbeat and
 * LeaveGroup, the join phase (with the initial-rebalance delay of an empty group), the wait for the
 * leader's assignment, and the session, rebalance and sync timeouts, with Kafka's rules and error
 * codes. A JoinGroup or SyncGroup the protocol holds back is a parked future ({@link
 * GroupShard#park}); the operation that releases it answers it through {@link GroupShard#reply}, so
 * the answer leaves only once that operation's records are committed. A group is written as one
 * record ({@link ClassicGroup#toRecord}) when a generation gets its assignment, when it ends empty,
 * and when a static member's new id takes over.
 *
 * <p>Threading: confined to the shard's thread.
 */
public final class ClassicGroups {
  private final GroupShard shard;
  private final CoordinatorTimers timers;
  private final Supplier<String> ids;
  private final Map<String, ClassicGroup> groups = new HashMap<>();

  ClassicGroups(GroupShard shard, CoordinatorTimers timers, Supplier<String> ids) {
    this.shard = shard;
    this.timers = timers;
    this.ids = ids;
  }

  ClassicGroup group(String groupId) {
    return groups.get(groupId);
  }

  Collection<ClassicGroup> all() {
    return groups.values();
  }

  private ClassicSettings settings() {
    return shard.settings().classic();
  }

  /** Loading: the record replaces the group (a tombstone removes it). */
  void replay(CoordinatorRecord r) {
    String id = GroupRecords.groupId(r);
    if (r.value() == null) {
      groups.remove(id);
    } else {
      groups.put(id, ClassicGroup.load(id, (ClassicGroupValue) r.value()));
    }
  }

  /** After a load: every member gets a full session; a group over the size limit rebalances. */
  void onLoaded() {
    for (ClassicGroup g : groups.values()) {
      for (ClassicMember m : g.members()) {
        scheduleHeartbeat(g, m.memberId, m.sessionTimeoutMs);
      }
      if (g.size() > shard.settings().maxGroupSize()) {
        prepareRebalance(g);
      }
    }
  }

  /** Deletes the group (it is empty): its record is gone. */
  void delete(ClassicGroup g) {
    g.transitionTo(State.DEAD);
    groups.remove(g.groupId);
    shard.append(GroupRecords.classicGroup(g.groupId, null));
  }

  private void store(ClassicGroup g) {
    store(g, g.toRecord());
  }

  private void store(ClassicGroup g, ClassicGroupValue record) {
    shard.append(GroupRecords.classicGroup(g.groupId, record));
  }

  // ---------------------------------------------------------------- JoinGroup

  public CompletableFuture<Classic.JoinResult> join(Classic.JoinRequest r) {
    CompletableFuture<Classic.JoinResult> out = shard.park();
    String memberId = r.memberId() == null ? "" : r.memberId();
    Classic.JoinResult refused = refuseJoin(r, memberId);
    if (refused != null) {
      shard.reply(out, refused);
      return out;
    }
    ClassicGroup g = groups.get(r.groupId());
    boolean created = g == null;
    if (created) {
      shard.dropEmptyConsumerGroup(r.groupId());
      g = new ClassicGroup(r.groupId());
      groups.put(r.groupId(), g);
    }
    int before = shard.pendingAppends();
    if (!acceptJoiningMember(g, memberId)) {
      shard.reply(
          out,
          Classic.JoinResult.error(
              ErrorCode.GROUP_MAX_SIZE_REACHED,
              "group "
                  + g.groupId
                  + " already has "
                  + g.size()
                  + " members (group.max.size="
                  + shard.settings().maxGroupSize()
                  + ")",
              ""));
    } else if (g.state() == State.DEAD) {
      shard.reply(
          out,
          Classic.JoinResult.error(
              ErrorCode.COORDINATOR_NOT_AVAILABLE, "group " + g.groupId + " was just removed", ""));
    } else if (!g.supportsProtocols(r.protocolType(), r.protocols())) {
      shard.reply(
          out,
          Classic.JoinResult.error(
              ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
              "group "
                  + g.groupId
                  + " has protocol type '"
                  + g.protocolType()
                  + "' and no protocol of this member's in common with all of its members",
              memberId.isEmpty() ? "" : memberId));
    } else if (memberId.isEmpty()) {
      joinNewMember(r, g, out);
    } else {
      joinExistingMember(r, g, memberId, out);
    }
    if (created && shard.pendingAppends() == before) {
      store(g); // the group exists in the log from its first join on, as on Kafka
    }
    return out;
  }

  private Classic.JoinResult refuseJoin(Classic.JoinRequest r, String memberId) {
    if (r.groupId() == null || r.groupId().isEmpty()) {
      return Classic.JoinResult.error(
          ErrorCode.INVALID_GROUP_ID, "the group id is empty", memberId);
    }
    ClassicSettings s = settings();
    if (r.sessionTimeoutMs() < s.minSessionTimeoutMs()
        || r.sessionTimeoutMs() > s.maxSessionTimeoutMs()) {
      return Classic.JoinResult.error(
          ErrorCode.INVALID_SESSION_TIMEOUT,
          "session timeout "
              + r.sessionTimeoutMs()
              + " ms is outside group.min.session.timeout.ms="
              + s.minSessionTimeoutMs()
              + " and group.max.session.timeout.ms="
              + s.maxSessionTimeoutMs(),
          memberId);
    }
    ConsumerGroup cg = shard.group(r.groupId());
    if (cg != null && !cg.members().isEmpty()) {
      return Classic.JoinResult.error(
          ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
          "group "
              + r.groupId()
              + " is a consumer-protocol group (group.protocol=consumer) with "
              + cg.members().size()
              + " members; a classic member cannot join it",
          memberId);
    }
    ClassicGroup g = groups.get(r.groupId());
    if (g == null && !memberId.isEmpty()) {
      return Classic.JoinResult.error(
          ErrorCode.UNKNOWN_MEMBER_ID,
          "group " + r.groupId() + " does not exist: join without a member id",
          memberId);
    }
    return null;
  }

  private boolean acceptJoiningMember(ClassicGroup g, String memberId) {
    int max = shard.settings().maxGroupSize();
    ClassicMember m = g.member(memberId);
    return switch (g.state()) {
      case EMPTY, DEAD -> true;
      case PREPARING_REBALANCE -> (m != null && m.isAwaitingJoin()) || g.awaitingJoin() < max;
      case COMPLETING_REBALANCE, STABLE -> m != null || g.size() < max;
    };
  }

  private void joinNewMember(
      Classic.JoinRequest r, ClassicGroup g, CompletableFuture<Classic.JoinResult> out) {
    String prefix = r.instanceId() != null ? r.instanceId() : r.clientId();
    String newId = (prefix == null ? "" : prefix) + "-" + ids.get();
    if (r.instanceId() != null) {
      String old = g.staticMemberId(r.instanceId());
      if (old != null) {
        replaceStaticMember(r, g, old, newId, out);
      } else {
        addMember(r, g, newId, out);
      }
    } else if (r.requireKnownMemberId()) {
      // First round (JoinGroup v4+): the member learns its id and joins again with it; until then
      // it is pending and only its session timeout can drop it.
      g.pendingMembers.add(newId);
      scheduleHeartbeat(g, newId, r.sessionTimeoutMs());
      shard.reply(
          out,
          Classic.JoinResult.error(
              ErrorCode.MEMBER_ID_REQUIRED, "join again with the member id given", newId));
    } else {
      addMember(r, g, newId, out);
    }
  }

  private void joinExistingMember(
      Classic.JoinRequest r,
      ClassicGroup g,
      String memberId,
      CompletableFuture<Classic.JoinResult> out) {
    if (g.pendingMembers.contains(memberId)) {
      addMember(r, g, memberId, out);
      return;
    }
    ErrorCode bad = validateMember(g, memberId, r.instanceId());
    if (bad != ErrorCode.NONE) {
      shard.reply(out, Classic.JoinResult.error(bad, memberMessage(g, memberId, bad), memberId));
      return;
    }
    ClassicMember m = g.member(memberId);
    switch (g.state()) {
      case PREPARING_REBALANCE -> updateMember(r, g, m, out);
      case COMPLETING_REBALANCE -> {
        if (m.matches(r.protocols())) {
          // It lost the first answer: the same one again.
          shard.reply(out, joinResult(g, m, g.isLeader(memberId), false));
        } else {
          updateMember(r, g, m, out);
        }
      }
      case STABLE -> {
        if (g.isLeader(memberId) || !m.matches(r.protocols())) {
          // A leader's join asks for a rebalance (topics changed); new metadata needs one.
          updateMember(r, g, m, out);
        } else {
          shard.reply(out, joinResult(g, m, false, false));
        }
      }
      default ->
          shard.reply(
              out,
              Classic.JoinResult.error(
                  ErrorCode.UNKNOWN_MEMBER_ID,
                  "group " + g.groupId + " is " + g.state().displayName + ": join again",
                  memberId));
    }
  }

  private static Classic.JoinResult joinResult(
      ClassicGroup g, ClassicMember m, boolean withMembers, boolean skipAssignment) {
    return new Classic.JoinResult(
        ErrorCode.NONE,
        "",
        g.generation(),
        g.protocolType(),
        g.protocolName(),
        g.leader(),
        skipAssignment,
        m.memberId,
        withMembers ? g.joinMembers() : List.of());
  }

  private void addMember(
      Classic.JoinRequest r,
      ClassicGroup g,
      String memberId,
      CompletableFuture<Classic.JoinResult> out) {
    ClassicMember m =
        new ClassicMember(
            memberId,
            r.instanceId(),
            r.clientId() == null ? "" : r.clientId(),
            r.clientHost() == null ? "" : r.clientHost(),
            r.rebalanceTimeoutMs(),
            r.sessionTimeoutMs(),
            r.protocolType(),
            r.protocols());
    m.isNew = true;
    m.joinFuture = out;
    g.add(m);
    if (g.state() == State.PREPARING_REBALANCE && g.previousState() == State.EMPTY) {
      g.newMemberAdded = true;
    }
    scheduleHeartbeat(g, memberId, ClassicSettings.NEW_MEMBER_JOIN_TIMEOUT_MS);
    rebalanceOrCompleteJoin(g);
  }

  private void updateMember(
      Classic.JoinRequest r,
      ClassicGroup g,
      ClassicMember m,
      CompletableFuture<Classic.JoinResult> out) {
    m.protocols = List.copyOf(r.protocols());
    m.rebalanceTimeoutMs = r.rebalanceTimeoutMs();
    m.sessionTimeoutMs = r.sessionTimeoutMs();
    if (r.clientId() != null) {
      m.clientId = r.clientId();
    }
    if (m.joinFuture != null) {
      shard.reply(
          m.joinFuture,
          Classic.JoinResult.error(
              ErrorCode.REBALANCE_IN_PROGRESS, "a newer JoinGroup replaced this one", m.memberId));
    }
    m.joinFuture = out;
    rebalanceOrCompleteJoin(g);
  }

  private void rebalanceOrCompleteJoin(ClassicGroup g) {
    if (g.state() == State.PREPARING_REBALANCE) {
      maybeCompleteJoinPhase(g);
    } else {
      prepareRebalance(g);
    }
  }

  /**
   * A static member with a new id (it restarted): it takes the old id's place. In a stable group
   * with unchanged metadata nothing moves: the group is stored under the new id and the member
   * resumes with the generation it had (a returning leader is told to skip the assignment).
   */
  private void replaceStaticMember(
      Classic.JoinRequest r,
      ClassicGroup g,
      String oldId,
      String newId,
      CompletableFuture<Classic.JoinResult> out) {
    ClassicMember old = g.member(oldId);
    fence(old);
    ClassicMember fresh = old.withId(newId);
    g.replace(oldId, fresh);
    timers.cancel(heartbeatKey(g.groupId, oldId));
    scheduleHeartbeat(g, newId, r.sessionTimeoutMs());
    switch (g.state()) {
      case STABLE -> {
        if (fresh.matches(r.protocols()) || sameSelectedMetadata(g, fresh, r)) {
          fresh.clientId = r.clientId() == null ? fresh.clientId : r.clientId();
          fresh.sessionTimeoutMs = r.sessionTimeoutMs();
          fresh.rebalanceTimeoutMs = r.rebalanceTimeoutMs();
          store(g);
          boolean leader = g.isLeader(newId);
          shard.reply(out, joinResult(g, fresh, leader, leader));
        } else {
          updateMember(r, g, fresh, out);
        }
      }
      case COMPLETING_REBALANCE, PREPARING_REBALANCE -> updateMember(r, g, fresh, out);
      default ->
          shard.reply(
              out,
              Classic.JoinResult.error(
                  ErrorCode.UNKNOWN_MEMBER_ID,
                  "group " + g.groupId + " is " + g.state().displayName,
                  newId));
    }
  }

  private static boolean sameSelectedMetadata(
      ClassicGroup g, ClassicMember m, Classic.JoinRequest r) {
    for (Classic.Protocol p : r.protocols()) {
      if (p.name().equals(g.protocolName())) {
        return Arrays.equals(p.metadata(), m.metadata(g.protocolName()));
      }
    }
    return false;
  }

  /** The old incarnation of a static member: whatever it still waits for is fenced. */
  private void fence(ClassicMember old) {
    String msg = "group.instance.id " + old.instanceId + " joined again under another member id";
    if (old.joinFuture != null) {
      shard.reply(
          old.joinFuture,
          Classic.JoinResult.error(ErrorCode.FENCED_INSTANCE_ID, msg, old.memberId));
      old.joinFuture = null;
    }
    if (old.syncFuture != null) {
      shard.reply(old.syncFuture, Classic.SyncResult.error(ErrorCode.FENCED_INSTANCE_ID, msg));
      old.syncFuture = null;
    }
  }

  // ---------------------------------------------------------------- rebalance

  void prepareRebalance(ClassicGroup g) {
    if (g.state() == State.COMPLETING_REBALANCE) {
      failSyncs(g, ErrorCode.REBALANCE_IN_PROGRESS, "the group is rebalancing: join again");
    }
    timers.cancel(syncKey(g.groupId));
    g.pendingSyncMembers.clear();
    boolean initial = g.state() == State.EMPTY;
    g.transitionTo(State.PREPARING_REBALANCE);
    if (initial) {
      int delay = settings().initialRebalanceDelayMs();
      int remaining = Math.max(g.rebalanceTimeoutMs() - delay, 0);
      g.newMemberAdded = false;
      scheduleInitialJoin(g, delay, remaining);
    } else {
      String id = g.groupId;
      timers.schedule(joinKey(id), g.rebalanceTimeoutMs(), () -> completeJoin(id));
      maybeCompleteJoinPhase(g);
    }
  }

  /** Each member that joins during the initial delay extends it, up to the rebalance timeout. */
  private void scheduleInitialJoin(ClassicGroup g, int delayMs, int remainingMs) {
    String id = g.groupId;
    timers.schedule(
        joinKey(id),
        delayMs,
        () -> {
          ClassicGroup now = groups.get(id);
          if (now == null || now.state() != State.PREPARING_REBALANCE) {
            return;
          }
          if (now.newMemberAdded && remainingMs > 0) {
            now.newMemberAdded = false;
            int next = Math.min(settings().initialRebalanceDelayMs(), remainingMs);
            scheduleInitialJoin(now, next, Math.max(remainingMs - next, 0));
          } else {
            completeJoin(id);
          }
        });
  }

  private void maybeCompleteJoinPhase(ClassicGroup g) {
    if (g.state() == State.PREPARING_REBALANCE
        && g.previousState() != State.EMPTY
        && g.hasAllMembersJoined()) {
      completeJoin(g.groupId);
    }
  }

  /**
   * Ends the join phase: dynamic members that did not rejoin are dropped, the next generation
   * starts, and every member that joined gets its answer (the leader with the members' metadata).
   */
  private void completeJoin(String groupId) {
    ClassicGroup g = groups.get(groupId);
    if (g == null || g.state() != State.PREPARING_REBALANCE) {
      return;
    }
    timers.cancel(joinKey(groupId));
    for (ClassicMember m : List.copyOf(g.members())) {
      if (!m.isAwaitingJoin() && !m.isStatic()) {
        g.remove(m.memberId);
        timers.cancel(heartbeatKey(groupId, m.memberId));
      }
    }
    if (!g.maybeElectNewJoinedLeader() && g.size() > 0) {
      // Only static members that did not rejoin are left: wait one more rebalance timeout.
      timers.schedule(joinKey(groupId), g.rebalanceTimeoutMs(), () -> completeJoin(groupId));
      return;
    }
    g.initNextGeneration();
    if (g.state() == State.EMPTY) {
      store(g);
      return;
    }
    for (ClassicMember m : g.members()) {
      if (m.joinFuture != null) {
        shard.reply(m.joinFuture, joinResult(g, m, g.isLeader(m.memberId), false));
        m.joinFuture = null;
      }
      m.isNew = false;
      scheduleHeartbeat(g, m.memberId, m.sessionTimeoutMs);
      g.pendingSyncMembers.add(m.memberId);
    }
    int generation = g.generation();
    timers.schedule(
        syncKey(groupId), g.rebalanceTimeoutMs(), () -> expirePendingSync(groupId, generation));
  }

  /** Members that joined but sent no SyncGroup within the rebalance timeout are dropped. */
  private void expirePendingSync(String groupId, int generation) {
    ClassicGroup g = groups.get(groupId);
    if (g == null
        || g.generation() != generation
        || (g.state() != State.COMPLETING_REBALANCE && g.state() != State.STABLE)
        || g.pendingSyncMembers.isEmpty()) {
      return;
    }
    for (String id : List.copyOf(g.pendingSyncMembers)) {
      dropMember(g, id, "it sent no SyncGroup within the rebalance timeout");
    }
    prepareRebalance(g);
  }

  private void failSyncs(ClassicGroup g, ErrorCode code, String message) {
    for (ClassicMember m : g.members()) {
      if (m.syncFuture != null) {
        shard.reply(m.syncFuture, Classic.SyncResult.error(code, message));
        m.syncFuture = null;
      }
    }
  }

  // ---------------------------------------------------------------- SyncGroup

  public CompletableFuture<Classic.SyncResult> sync(Classic.SyncRequest r) {
    CompletableFuture<Classic.SyncResult> out = shard.park();
    ClassicGroup g = groups.get(r.groupId());
    ErrorCode bad = checkMember(g, r.memberId(), r.instanceId(), r.generation());
    if (bad == ErrorCode.NONE
        && ((r.protocolType() != null && !r.protocolType().equals(g.protocolType()))
            || (r.protocolName() != null && !r.protocolName().equals(g.protocolName())))) {
      bad = ErrorCode.INCONSISTENT_GROUP_PROTOCOL;
    }
    if (bad != ErrorCode.NONE) {
      shard.reply(out, Classic.SyncResult.error(bad, memberMessage(g, r.memberId(), bad)));
      return out;
    }
    ClassicMember m = g.member(r.memberId());
    switch (g.state()) {
      case EMPTY ->
          shard.reply(
              out,
              Classic.SyncResult.error(
                  ErrorCode.UNKNOWN_MEMBER_ID, "group " + g.groupId + " is empty: join again"));
      case PREPARING_REBALANCE ->
          shard.reply(
              out,
              Classic.SyncResult.error(
                  ErrorCode.REBALANCE_IN_PROGRESS, "group " + g.groupId + " is rebalancing"));
      case COMPLETING_REBALANCE -> {
        m.syncFuture = out;
        g.pendingSyncMembers.remove(m.memberId);
        scheduleHeartbeat(g, m.memberId, m.sessionTimeoutMs);
        if (g.isLeader(m.memberId)) {
          completeSync(g, r);
        }
      }
      case STABLE -> {
        g.pendingSyncMembers.remove(m.memberId);
        scheduleHeartbeat(g, m.memberId, m.sessionTimeoutMs);
        shard.reply(out, syncResult(g, m));
      }
      default ->
          shard.reply(
              out,
              Classic.SyncResult.error(
                  ErrorCode.COORDINATOR_NOT_AVAILABLE, "group " + g.groupId + " was removed"));
    }
    return out;
  }

  /** The leader's assignment: stored with the group, then every waiting member gets its part. */
  private void completeSync(ClassicGroup g, Classic.SyncRequest r) {
    for (ClassicMember m : g.members()) {
      byte[] a = r.assignments().get(m.memberId);
      m.assignment = a == null ? new byte[0] : a;
      m.assignedPartitions =
          r.partitions() == null ? Set.of() : r.partitions().getOrDefault(m.memberId, Set.of());
    }
    ClassicGroupValue record = g.toRecord();
    int size = record.getSerializedSize();
    if (size > settings().maxRecordBytes()) {
      for (ClassicMember m : g.members()) {
        m.assignment = new byte[0];
        m.assignedPartitions = Set.of();
      }
      // Kafka's answer when the group record is too large for the offsets topic.
      failSyncs(
          g,
          ErrorCode.UNKNOWN_SERVER_ERROR,
          "group "
              + g.groupId
              + " with this metadata and assignment is "
              + size
              + " bytes, over the "
              + settings().maxRecordBytes()
              + " bytes one record of the offsets topic may have");
      prepareRebalance(g);
      return;
    }
    g.transitionTo(State.STABLE);
    store(g, record); // the state is not part of the record: the one built above is it
    for (ClassicMember m : g.members()) {
      if (m.syncFuture != null) {
        shard.reply(m.syncFuture, syncResult(g, m));
        m.syncFuture = null;
      }
    }
  }

  private static Classic.SyncResult syncResult(ClassicGroup g, ClassicMember m) {
    return new Classic.SyncResult(
        ErrorCode.NONE, "", g.protocolType(), g.protocolName(), m.assignment);
  }

  // ---------------------------------------------------------------- Heartbeat

  public GroupResult heartbeat(Classic.HeartbeatRequest r) {
    ClassicGroup g = groups.get(r.groupId());
    ErrorCode bad = checkMember(g, r.memberId(), r.instanceId(), r.generation());
    if (bad != ErrorCode.NONE) {
      return new GroupResult(r.groupId(), bad, memberMessage(g, r.memberId(), bad));
    }
    ClassicMember m = g.member(r.memberId());
    return switch (g.state()) {
      case EMPTY ->
          new GroupResult(
              r.groupId(), ErrorCode.UNKNOWN_MEMBER_ID, "group " + r.groupId() + " is empty");
      case PREPARING_REBALANCE -> {
        scheduleHeartbeat(g, m.memberId, m.sessionTimeoutMs);
        yield new GroupResult(
            r.groupId(),
            ErrorCode.REBALANCE_IN_PROGRESS,
            "group " + r.groupId() + " is rebalancing: join again");
      }
      default -> {
        scheduleHeartbeat(g, m.memberId, m.sessionTimeoutMs);
        yield new GroupResult(r.groupId(), ErrorCode.NONE, "");
      }
    };
  }

  /** The checks of SyncGroup and Heartbeat: group, member, instance id, generation. */
  private static ErrorCode checkMember(
      ClassicGroup g, String memberId, String instanceId, int generation) {
    if (g == null) {
      return ErrorCode.UNKNOWN_MEMBER_ID;
    }
    if (g.state() == State.DEAD) {
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    }
    ErrorCode bad = validateMember(g, memberId, instanceId);
    if (bad != ErrorCode.NONE) {
      return bad;
    }
    return generation != g.generation() ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.NONE;
  }

  /** Kafka's member check: the member id, or for a static member the id holding its instance. */
  static ErrorCode validateMember(ClassicGroup g, String memberId, String instanceId) {
    if (instanceId == null) {
      return g.member(memberId) == null ? ErrorCode.UNKNOWN_MEMBER_ID : ErrorCode.NONE;
    }
    String holder = g.staticMemberId(instanceId);
    if (holder == null) {
      return ErrorCode.UNKNOWN_MEMBER_ID;
    }
    return holder.equals(memberId) ? ErrorCode.NONE : ErrorCode.FENCED_INSTANCE_ID;
  }

  static String memberMessage(ClassicGroup g, String memberId, ErrorCode code) {
    String group = g == null ? "the group" : "group " + g.groupId;
    return switch (code) {
      case UNKNOWN_MEMBER_ID -> group + " has no member '" + memberId + "'";
      case FENCED_INSTANCE_ID ->
          "member '" + memberId + "' of " + group + ": its group.instance.id has a newer member id";
      case ILLEGAL_GENERATION ->
          group + " is at generation " + g.generation() + ", not the one sent";
      case INCONSISTENT_GROUP_PROTOCOL ->
          group
              + " uses protocol type '"
              + g.protocolType()
              + "' and protocol '"
              + g.protocolName()
              + "'";
      case COORDINATOR_NOT_AVAILABLE -> group + " was just removed";
      default -> group + ": " + code;
    };
  }

  // ---------------------------------------------------------------- LeaveGroup

  public Classic.LeaveResult leave(String groupId, List<Classic.LeaveMember> leaving) {
    ClassicGroup g = groups.get(groupId);
    if (g == null) {
      return Classic.LeaveResult.noSuchGroup(leaving);
    }
    if (g.state() == State.DEAD) {
      return new Classic.LeaveResult(
          ErrorCode.COORDINATOR_NOT_AVAILABLE, "group " + groupId + " was removed", List.of());
    }
    List<Classic.LeftMember> out = new ArrayList<>();
    for (Classic.LeaveMember l : leaving) {
      String memberId = l.memberId() == null ? "" : l.memberId();
      ErrorCode code;
      if (l.instanceId() == null) {
        if (dropPending(g, memberId)) {
          timers.cancel(heartbeatKey(groupId, memberId));
          code = ErrorCode.NONE;
        } else {
          code = g.member(memberId) == null ? ErrorCode.UNKNOWN_MEMBER_ID : ErrorCode.NONE;
          if (code == ErrorCode.NONE) {
            removeMember(g, memberId, "it left the group");
          }
        }
      } else {
        String holder = g.staticMemberId(l.instanceId());
        if (holder == null) {
          code = ErrorCode.UNKNOWN_MEMBER_ID;
        } else if (!memberId.isEmpty() && !memberId.equals(holder)) {
          code = ErrorCode.FENCED_INSTANCE_ID;
        } else {
          code = ErrorCode.NONE;
          removeMember(g, holder, "it left the group");
        }
      }
      out.add(new Classic.LeftMember(memberId, l.instanceId(), code));
    }
    return new Classic.LeaveResult(ErrorCode.NONE, "", out);
  }

  /** Drops a member (leave, expired session) and rebalances the others. */
  private void removeMember(ClassicGroup g, String memberId, String why) {
    dropMember(g, memberId, why);
    switch (g.state()) {
      case PREPARING_REBALANCE -> maybeCompleteJoinPhase(g);
      case STABLE, COMPLETING_REBALANCE -> prepareRebalance(g);
      default -> {}
    }
  }

  private void dropMember(ClassicGroup g, String memberId, String why) {
    ClassicMember m = g.member(memberId);
    if (m == null) {
      return;
    }
    String msg = "member " + memberId + " was removed from group " + g.groupId + ": " + why;
    if (m.joinFuture != null) {
      shard.reply(
          m.joinFuture, Classic.JoinResult.error(ErrorCode.UNKNOWN_MEMBER_ID, msg, memberId));
    }
    if (m.syncFuture != null) {
      shard.reply(m.syncFuture, Classic.SyncResult.error(ErrorCode.UNKNOWN_MEMBER_ID, msg));
    }
    g.remove(memberId);
    timers.cancel(heartbeatKey(g.groupId, memberId));
  }

  // ---------------------------------------------------------------- sessions

  private void scheduleHeartbeat(ClassicGroup g, String memberId, int timeoutMs) {
    String groupId = g.groupId;
    timers.schedule(
        heartbeatKey(groupId, memberId), timeoutMs, () -> expireHeartbeat(groupId, memberId));
  }

  private void expireHeartbeat(String groupId, String memberId) {
    ClassicGroup g = groups.get(groupId);
    if (g == null || g.state() == State.DEAD) {
      return;
    }
    if (dropPending(g, memberId)) {
      return;
    }
    ClassicMember m = g.member(memberId);
    if (m != null && !m.hasSatisfiedHeartbeat()) {
      removeMember(g, memberId, "its session timed out");
    }
  }

  /**
   * Forgets a member still in its MEMBER_ID_REQUIRED round (it left, or its session expired); a
   * join phase may have waited only for it. Whether it was one.
   */
  private boolean dropPending(ClassicGroup g, String memberId) {
    if (!g.pendingMembers.remove(memberId)) {
      return false;
    }
    if (g.state() == State.PREPARING_REBALANCE) {
      maybeCompleteJoinPhase(g);
    }
    return true;
  }

  static String heartbeatKey(String groupId, String memberId) {
    return "classic-session\u0000" + groupId + "\u0000" + memberId;
  }

  static String joinKey(String groupId) {
    return "classic-join\u0000" + groupId;
  }

  static String syncKey(String groupId) {
    return "classic-sync\u0000" + groupId;
  }
}
