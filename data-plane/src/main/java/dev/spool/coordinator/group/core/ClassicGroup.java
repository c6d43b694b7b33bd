package dev.spool.coordinator.group.core;

import com.google.protobuf.ByteString;
import dev.spool.coordinator.group.api.Classic;
import dev.spool.coordinator.group.record.ClassicGroupValue;
import dev.spool.coordinator.group.record.ClassicMemberValue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One classic (JoinGroup/SyncGroup) group: its state machine state, generation, protocol, leader
 * and members, the new members not yet admitted (the MEMBER_ID_REQUIRED round), and the members a
 * completed join phase still waits a SyncGroup from. The generation, protocol and members with
 * their assignments are what {@link #toRecord} writes and {@link #load} reads back; the rest lives
 * only while this coordinator does, and members rejoin or heartbeat to rebuild it, as on Kafka.
 * Changed by {@link ClassicGroups}; confined to its shard's thread.
 */
final class ClassicGroup {
  /** Kafka's classic group states, with Kafka's names. */
  enum State {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
    STABLE("Stable"),
    DEAD("Dead");

    final String displayName;

    State(String displayName) {
      this.displayName = displayName;
    }
  }

  final String groupId;
  private State state = State.EMPTY;
  private State previousState = State.EMPTY;
  private String protocolType;
  private String protocolName;
  private int generation;
  private String leader;
  private final LinkedHashMap<String, ClassicMember> members = new LinkedHashMap<>();
  private final Map<String, String> staticMembers = new HashMap<>();
  final Set<String> pendingMembers = new HashSet<>();
  final Set<String> pendingSyncMembers = new HashSet<>();

  /** During the initial rebalance: whether a member joined since the delay was last extended. */
  boolean newMemberAdded;

  ClassicGroup(String groupId) {
    this.groupId = groupId;
  }

  State state() {
    return state;
  }

  State previousState() {
    return previousState;
  }

  void transitionTo(State next) {
    previousState = state;
    state = next;
  }

  String protocolType() {
    return protocolType;
  }

  String protocolName() {
    return protocolName;
  }

  int generation() {
    return generation;
  }

  String leader() {
    return leader;
  }

  boolean isLeader(String memberId) {
    return memberId.equals(leader);
  }

  Collection<ClassicMember> members() {
    return Collections.unmodifiableCollection(members.values());
  }

  int size() {
    return members.size();
  }

  ClassicMember member(String memberId) {
    return members.get(memberId);
  }

  String staticMemberId(String instanceId) {
    return staticMembers.get(instanceId);
  }

  int awaitingJoin() {
    int n = 0;
    for (ClassicMember m : members.values()) {
      n += m.isAwaitingJoin() ? 1 : 0;
    }
    return n;
  }

  boolean hasAllMembersJoined() {
    return awaitingJoin() == members.size() && pendingMembers.isEmpty();
  }

  /** The largest rebalance timeout of the members: how long a join phase may take. */
  int rebalanceTimeoutMs() {
    int max = 0;
    for (ClassicMember m : members.values()) {
      max = Math.max(max, m.rebalanceTimeoutMs);
    }
    return max;
  }

  void add(ClassicMember m) {
    if (members.isEmpty()) {
      protocolType = m.protocolType;
    }
    members.put(m.memberId, m);
    if (m.isStatic()) {
      staticMembers.put(m.instanceId, m.memberId);
    }
    if (leader == null) {
      leader = m.memberId;
    }
    pendingMembers.remove(m.memberId);
  }

  void remove(String memberId) {
    ClassicMember m = members.remove(memberId);
    if (m != null && m.isStatic()) {
      staticMembers.remove(m.instanceId, memberId);
    }
    pendingSyncMembers.remove(memberId);
    if (memberId.equals(leader)) {
      leader = members.isEmpty() ? null : members.keySet().iterator().next();
    }
  }

  /** A static member's new incarnation takes the old one's place (and leadership). */
  void replace(String oldId, ClassicMember fresh) {
    LinkedHashMap<String, ClassicMember> copy = new LinkedHashMap<>(members);
    members.clear();
    copy.forEach(
        (id, m) ->
            members.put(id.equals(oldId) ? fresh.memberId : id, id.equals(oldId) ? fresh : m));
    staticMembers.put(fresh.instanceId, fresh.memberId);
    if (pendingSyncMembers.remove(oldId)) {
      pendingSyncMembers.add(fresh.memberId);
    }
    if (oldId.equals(leader)) {
      leader = fresh.memberId;
    }
  }

  /**
   * Whether a member with these protocols may join: the group's protocol type, and a protocol every
   * current member supports too. An empty group takes any non-empty type and list.
   */
  boolean supportsProtocols(String type, List<Classic.Protocol> protocols) {
    if (type == null || type.isEmpty() || protocols.isEmpty()) {
      return false;
    }
    if (members.isEmpty()) {
      return true;
    }
    if (!type.equals(protocolType)) {
      return false;
    }
    for (Classic.Protocol p : protocols) {
      boolean all = true;
      for (ClassicMember m : members.values()) {
        all &= m.protocol(p.name()) != null;
      }
      if (all) {
        return true;
      }
    }
    return false;
  }

  /**
   * Kafka's selection: among the protocols every member supports, each member votes for the first
   * of its own list; the most votes wins (ties: the name first in order, so it is deterministic).
   */
  String selectProtocol() {
    Set<String> candidates = null;
    for (ClassicMember m : members.values()) {
      Set<String> names = new HashSet<>();
      m.protocols.forEach(p -> names.add(p.name()));
      if (candidates == null) {
        candidates = names;
      } else {
        candidates.retainAll(names);
      }
    }
    Map<String, Integer> votes = new TreeMap<>();
    for (ClassicMember m : members.values()) {
      for (Classic.Protocol p : m.protocols) {
        if (candidates.contains(p.name())) {
          votes.merge(p.name(), 1, Integer::sum);
          break;
        }
      }
    }
    String best = null;
    int bestVotes = -1;
    for (Map.Entry<String, Integer> e : votes.entrySet()) {
      if (e.getValue() > bestVotes) {
        best = e.getKey();
        bestVotes = e.getValue();
      }
    }
    return best;
  }

  /** Keeps the leader if it rejoined, else makes some rejoined member the leader. */
  boolean maybeElectNewJoinedLeader() {
    if (leader == null) {
      return false;
    }
    if (members.get(leader).isAwaitingJoin()) {
      return true;
    }
    for (ClassicMember m : members.values()) {
      if (m.isAwaitingJoin()) {
        leader = m.memberId;
        return true;
      }
    }
    return false;
  }

  /** The next generation: a protocol for the members, or Empty when none is left. */
  void initNextGeneration() {
    generation++;
    pendingSyncMembers.clear();
    if (members.isEmpty()) {
      protocolName = null;
      transitionTo(State.EMPTY);
    } else {
      protocolName = selectProtocol();
      transitionTo(State.COMPLETING_REBALANCE);
    }
  }

  /** The generation's members as the leader's JoinGroup answer lists them. */
  List<Classic.JoinMember> joinMembers() {
    List<Classic.JoinMember> out = new ArrayList<>();
    for (ClassicMember m : members.values()) {
      out.add(new Classic.JoinMember(m.memberId, m.instanceId, m.metadata(protocolName)));
    }
    return out;
  }

  /** The topics the members subscribe to (protocol type consumer), for OffsetDelete. */
  Set<String> subscribedTopics() {
    Set<String> out = new HashSet<>();
    if (protocolName != null) {
      for (ClassicMember m : members.values()) {
        Classic.Protocol p = m.protocol(protocolName);
        if (p != null) {
          out.addAll(p.topics());
        }
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- record

  /** The group as its record stores it now. */
  ClassicGroupValue toRecord() {
    ClassicGroupValue.Builder b =
        ClassicGroupValue.newBuilder()
            .setProtocolType(protocolType == null ? "" : protocolType)
            .setGeneration(generation)
            .setProtocolName(protocolName == null ? "" : protocolName)
            .setLeader(leader == null ? "" : leader);
    for (ClassicMember m : members.values()) {
      Classic.Protocol p = protocolName == null ? null : m.protocol(protocolName);
      b.addMembers(
          ClassicMemberValue.newBuilder()
              .setMemberId(m.memberId)
              .setInstanceId(m.instanceId == null ? "" : m.instanceId)
              .setClientId(m.clientId)
              .setClientHost(m.clientHost)
              .setRebalanceTimeoutMs(m.rebalanceTimeoutMs)
              .setSessionTimeoutMs(m.sessionTimeoutMs)
              .setSubscription(ByteString.copyFrom(p == null ? new byte[0] : p.metadata()))
              .setAssignment(ByteString.copyFrom(m.assignment))
              .addAllSubscribedTopics(p == null ? List.of() : p.topics())
              .addAllAssignedPartitions(GroupRecords.toProto(m.assignedPartitions)));
    }
    return b.build();
  }

  /**
   * A group as loaded from its record: Stable with its members (each keeps its assignment and is
   * back to heartbeating), or Empty.
   */
  static ClassicGroup load(String groupId, ClassicGroupValue v) {
    ClassicGroup g = new ClassicGroup(groupId);
    g.protocolType = v.getProtocolType().isEmpty() ? null : v.getProtocolType();
    g.protocolName = v.getProtocolName().isEmpty() ? null : v.getProtocolName();
    g.generation = v.getGeneration();
    for (ClassicMemberValue mv : v.getMembersList()) {
      ClassicMember m =
          new ClassicMember(
              mv.getMemberId(),
              mv.getInstanceId().isEmpty() ? null : mv.getInstanceId(),
              mv.getClientId(),
              mv.getClientHost(),
              mv.getRebalanceTimeoutMs(),
              mv.getSessionTimeoutMs(),
              g.protocolType,
              List.of(
                  new Classic.Protocol(
                      g.protocolName == null ? "" : g.protocolName,
                      mv.getSubscription().toByteArray(),
                      List.copyOf(mv.getSubscribedTopicsList()))));
      m.assignment = mv.getAssignment().toByteArray();
      m.assignedPartitions = Set.copyOf(GroupRecords.fromProto(mv.getAssignedPartitionsList()));
      g.members.put(m.memberId, m);
      if (m.isStatic()) {
        g.staticMembers.put(m.instanceId, m.memberId);
      }
    }
    g.leader = v.getLeader().isEmpty() || g.members.isEmpty() ? null : v.getLeader();
    g.state = g.members.isEmpty() ? State.EMPTY : State.STABLE;
    return g;
  }
}
