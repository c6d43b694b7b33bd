package dev.spool.quorum.ratis;

import dev.spool.common.ErrorCode;
import dev.spool.common.HostPort;
import dev.spool.common.SpoolException;
import dev.spool.protocol.message.QuorumInfo;
import dev.spool.quorum.QuorumAdmin;
import dev.spool.quorum.QuorumTls;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.message.ControllerRequest;
import dev.spool.quorum.message.DescribeQuorumRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftConfigurationProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.exceptions.ReconfigurationInProgressException;
import org.apache.ratis.protocol.exceptions.ReconfigurationTimeoutException;
import org.apache.ratis.protocol.exceptions.SetConfigurationException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link QuorumAdmin} on Ratis' group management and configuration-change APIs
 * (docs/ratis.md#dynamic-membership). Every check runs before the first change; a refusal changes
 * nothing.
 *
 * <p>Adding a voter takes two configuration changes: the node joins as a LISTENER (it receives the
 * log but does not vote and does not count for commits), the admin waits until its commit index has
 * reached the leader's, then a second change makes it a voter. A voter that needs a long catch-up
 * therefore never sits in the voter set holding back commits. Removing voters takes one change; if
 * the leader is among them, leadership is transferred to the most caught-up staying voter first (if
 * that fails, Ratis' leader steps down itself once the new configuration is committed).
 */
public final class RatisQuorumAdmin implements QuorumAdmin {
  private static final Logger log = LoggerFactory.getLogger(RatisQuorumAdmin.class);

  /** One probe of one controller (group list or info). */
  static final long PROBE_TIMEOUT_MS = 3_000;

  /** The shortest probe, also when the command's time is up (its last look at the leader). */
  static final long MIN_PROBE_MS = 250;

  /**
   * A voter the leader has heard from within this long counts as reachable for the majority check
   * of a removal (the leader sends heartbeats every half minimum election timeout, 200 ms by
   * default).
   */
  static final long REACHABLE_MS = 2_000;

  private static final long POLL_MS = 100;

  private static final RaftGroupId DISCOVERY_GROUP = RaftGroupId.randomId();

  private final Map<Integer, HostPort> bootstrap;
  private final long timeoutMs;
  private final QuorumTls tls;
  private RaftGroupId groupId;
  private Runnable afterListenerAdded = () -> {};

  /** An admin over plaintext. */
  public RatisQuorumAdmin(Map<Integer, HostPort> bootstrap, long timeoutMs) {
    this(bootstrap, timeoutMs, null);
  }

  /** An admin that reaches the quorum over its mutual TLS ({@code tls}; null: plaintext). */
  public RatisQuorumAdmin(Map<Integer, HostPort> bootstrap, long timeoutMs, QuorumTls tls) {
    if (bootstrap.isEmpty()) {
      throw new IllegalArgumentException("no controller to connect to");
    }
    this.bootstrap = Map.copyOf(bootstrap);
    this.timeoutMs = timeoutMs;
    this.tls = tls;
  }

  /**
   * For tests: {@code hook} runs in {@link #addVoter} once the node is a listener, before the
   * catch-up wait and the change that makes it a voter (so a test can observe that phase).
   */
  public RatisQuorumAdmin afterListenerAdded(Runnable hook) {
    this.afterListenerAdded = hook;
    return this;
  }

  // ---------------------------------------------------------------- describe

  @Override
  public Description describe() {
    long deadline = deadline();
    GroupInfoReply leader = leaderInfo(deadline);
    Description d = describe(leader);
    Map<Integer, MetadataVersion.Range> ranges = reportedRanges(leader, deadline);
    java.util.function.UnaryOperator<List<Member>> with =
        ms -> ms.stream().map(m -> m.withMetadataVersions(ranges.get(m.nodeId()))).toList();
    return new Description(
        d.leaderId(),
        d.term(),
        d.commitIndex(),
        with.apply(d.voters()),
        with.apply(d.listeners()),
        d.changing());
  }

  /**
   * The metadata.version range each controller reported to the active controller, asked of the
   * leader (DescribeQuorum, read-only); empty when it cannot tell (not ready yet, an older version
   * that does not report ranges, unreachable now), which only leaves the ranges out.
   */
  private Map<Integer, MetadataVersion.Range> reportedRanges(GroupInfoReply leader, long deadline) {
    RaftConfigurationProto conf =
        leader.getConf().orElse(RaftConfigurationProto.getDefaultInstance());
    List<RaftPeer> all = new ArrayList<>(peers(conf.getPeersList(), RaftPeerRole.FOLLOWER));
    all.addAll(peers(conf.getListenersList(), RaftPeerRole.LISTENER));
    ControllerRequest req =
        ControllerRequest.newBuilder()
            .setDescribeQuorum(DescribeQuorumRequest.getDefaultInstance())
            .build();
    Map<Integer, MetadataVersion.Range> out = new HashMap<>();
    try (RaftClient c = probeClient(RaftGroup.valueOf(groupId, all), deadline)) {
      RaftClientReply r =
          c.io()
              .sendReadOnly(
                  Message.valueOf(UnsafeByteOperations.unsafeWrap(req.toByteArray())),
                  RaftPeerId.valueOf(leader.getRoleInfoProto().getSelf().getId()));
      for (QuorumInfo.ControllerRange cr :
          Replies.controllerReply(r).getDescribeQuorum().getControllerRangesList()) {
        out.put(
            cr.getNodeId(),
            new MetadataVersion.Range(cr.getMinMetadataVersion(), cr.getMaxMetadataVersion()));
      }
    } catch (IOException | RuntimeException e) {
      log.debug("no controller ranges from the leader: {}", rootMessage(e));
      return Map.of();
    }
    return out;
  }

  private static Description describe(GroupInfoReply r) {
    RaftConfigurationProto conf = r.getConf().orElse(RaftConfigurationProto.getDefaultInstance());
    RoleInfoProto role = r.getRoleInfoProto();
    long commit = r.getLogInfoProto().getCommitted().getIndex();
    Map<String, Long> commits = new HashMap<>();
    for (CommitInfoProto c : r.getCommitInfos()) {
      commits.put(c.getServer().getId().toStringUtf8(), c.getCommitIndex());
    }
    Map<String, Long> contact = new HashMap<>();
    for (ServerRpcProto f : role.getLeaderInfo().getFollowerInfoList()) {
      contact.put(f.getId().getId().toStringUtf8(), f.getLastRpcElapsedTimeMs());
    }
    String self = role.getSelf().getId().toStringUtf8();
    contact.put(self, 0L);
    commits.put(self, commit);
    return new Description(
        RaftSetup.nodeId(RaftPeerId.valueOf(role.getSelf().getId())),
        role.getLeaderInfo().getTerm(),
        commit,
        members(conf.getPeersList(), commits, contact, commit),
        members(conf.getListenersList(), commits, contact, commit),
        conf.getOldPeersCount() > 0 || conf.getOldListenersCount() > 0);
  }

  private static List<Member> members(
      List<RaftPeerProto> peers, Map<String, Long> commits, Map<String, Long> contact, long lead) {
    List<Member> out = new ArrayList<>();
    for (RaftPeerProto p : peers) {
      String id = p.getId().toStringUtf8();
      long c = commits.getOrDefault(id, -1L);
      out.add(
          new Member(
              RaftSetup.nodeId(RaftPeerId.valueOf(p.getId())),
              p.getAddress(),
              c,
              c < 0 ? -1 : Math.max(0, lead - c),
              contact.getOrDefault(id, -1L)));
    }
    out.sort(Comparator.comparingInt(Member::nodeId));
    return out;
  }

  // ---------------------------------------------------------------- add

  @Override
  public Description addVoter(int nodeId, HostPort address) {
    if (nodeId < 0) {
      throw invalid("node id must be >= 0, not " + nodeId);
    }
    long deadline = deadline();
    GroupInfoReply leader = leaderInfo(deadline);
    Description before = describe(leader);
    RaftConfigurationProto conf = leader.getConf().orElseThrow();
    if (before.changing()) {
      throw invalid("a configuration change is in progress; try again when it finished");
    }
    boolean alreadyListener = checkJoining(before, nodeId, address);
    probeNewMember(nodeId, address, deadline);

    RaftPeer joining = RaftSetup.peer(nodeId, address.toString(), RaftPeerRole.LISTENER);
    List<RaftPeer> voters = peers(conf.getPeersList(), RaftPeerRole.FOLLOWER);
    List<RaftPeer> listeners = peers(conf.getListenersList(), RaftPeerRole.LISTENER);
    if (!alreadyListener) {
      List<RaftPeer> withListener = new ArrayList<>(listeners);
      withListener.add(joining);
      log.info("adding node {} at {} as a listener", nodeId, address);
      setConfiguration(leader, conf, voters, withListener, deadline);
    }
    afterListenerAdded.run();
    long target = describe(leaderInfo(deadline)).commitIndex();
    awaitCaughtUp(nodeId, target, deadline);

    GroupInfoReply now = leaderInfo(deadline);
    RaftConfigurationProto current = now.getConf().orElseThrow();
    if (current.getListenersList().stream()
        .noneMatch(l -> RaftSetup.nodeId(RaftPeerId.valueOf(l.getId())) == nodeId)) {
      throw concurrentChange();
    }
    List<RaftPeer> newVoters =
        new ArrayList<>(peers(current.getPeersList(), RaftPeerRole.FOLLOWER));
    newVoters.add(RaftSetup.peer(nodeId, address.toString(), RaftPeerRole.FOLLOWER));
    List<RaftPeer> newListeners =
        peers(current.getListenersList(), RaftPeerRole.LISTENER).stream()
            .filter(p -> RaftSetup.nodeId(p.getId()) != nodeId)
            .toList();
    log.info("node {} caught up to index {}: making it a voter", nodeId, target);
    setConfiguration(now, current, newVoters, newListeners, deadline);
    return awaitStable(deadline);
  }

  /**
   * Refuses a node id that is already a voter, or an address a voter or another listener uses, or a
   * listener's id with another address than its own; returns whether the node is already a listener
   * (a previous add-voter that did not finish).
   */
  static boolean checkJoining(Description before, int nodeId, HostPort address) {
    for (Member v : before.voters()) {
      if (v.nodeId() == nodeId) {
        throw invalid("node " + nodeId + " is already a voter (at " + v.address() + ")");
      }
      if (sameAddress(v.address(), address)) {
        throw invalid(
            "voter " + v.nodeId() + " already uses " + address + "; node " + nodeId + " cannot");
      }
    }
    boolean alreadyListener = false;
    for (Member l : before.listeners()) {
      if (l.nodeId() == nodeId) {
        if (!sameAddress(l.address(), address)) {
          throw invalid(
              "node "
                  + nodeId
                  + " is already a listener at "
                  + l.address()
                  + ", not at "
                  + address
                  + ": run add-voter with that address, or remove-voter first");
        }
        alreadyListener = true;
      } else if (sameAddress(l.address(), address)) {
        throw invalid(
            "listener " + l.nodeId() + " already uses " + address + "; node " + nodeId + " cannot");
      }
    }
    return alreadyListener;
  }

  /**
   * The node at {@code address} must answer, be node {@code nodeId}, and hold this quorum's Raft
   * group (started for the same cluster id as a new member): otherwise it is unreachable, another
   * node, or belongs to another cluster.
   */
  private void probeNewMember(int nodeId, HostPort address, long deadline) {
    RaftPeer p = RaftSetup.peer(nodeId, address.toString(), RaftPeerRole.LISTENER);
    List<RaftGroupId> groups;
    try (RaftClient c = probeClient(RaftGroup.valueOf(groupId, List.of(p)), deadline)) {
      groups = c.getGroupManagementApi(p.getId()).list().getGroupIds();
    } catch (IOException | RuntimeException e) {
      throw invalid(
          "no controller answers at "
              + address
              + " ("
              + rootMessage(e)
              + "): start node "
              + nodeId
              + " first, as a new controller (controller.quorum.listener="
              + address
              + ", not in controller.quorum.voters), formatted for this cluster");
    }
    if (!groups.contains(groupId)) {
      throw invalid(
          "the controller at "
              + address
              + " does not belong to this cluster: its quorum group is "
              + (groups.isEmpty() ? "none" : groups)
              + ", this cluster's is "
              + groupId
              + " (the group is derived from the cluster id its storage was formatted with)");
    }
    GroupInfoReply info;
    try (RaftClient c = probeClient(RaftGroup.valueOf(groupId, List.of(p)), deadline)) {
      info = c.getGroupManagementApi(p.getId()).info(groupId);
    } catch (IOException | RuntimeException e) {
      throw invalid("the controller at " + address + " did not describe itself: " + rootMessage(e));
    }
    int self = RaftSetup.nodeId(RaftPeerId.valueOf(info.getRoleInfoProto().getSelf().getId()));
    if (self != nodeId) {
      throw invalid("the controller at " + address + " is node " + self + ", not node " + nodeId);
    }
  }

  private void awaitCaughtUp(int nodeId, long target, long deadline) {
    while (true) {
      Description d = describe(leaderInfo(deadline));
      long at =
          java.util.stream.Stream.concat(d.listeners().stream(), d.voters().stream())
              .filter(m -> m.nodeId() == nodeId)
              .mapToLong(Member::commitIndex)
              .findFirst()
              .orElse(-1);
      if (at >= target) {
        return;
      }
      if (expired(deadline)) {
        throw new SpoolException(
            ErrorCode.REQUEST_TIMED_OUT,
            "node "
                + nodeId
                + " is a listener but has not caught up (commit index "
                + at
                + " of "
                + target
                + ") in time; it stays a listener: run add-voter again to finish, or"
                + " remove-voter to drop it");
      }
      sleep();
    }
  }

  // ---------------------------------------------------------------- remove

  @Override
  public Description removeVoters(Set<Integer> nodeIds) {
    if (nodeIds.isEmpty()) {
      throw invalid("no node id to remove");
    }
    long deadline = deadline();
    GroupInfoReply leader = leaderInfo(deadline);
    Description before = describe(leader);
    if (before.changing()) {
      throw invalid("a configuration change is in progress; try again when it finished");
    }
    List<Member> reachable = checkRemoval(before, nodeIds);
    // The checks above were made on this configuration: the change is made only if it is still
    // the current one (moving leadership does not change it).
    RaftConfigurationProto conf = leader.getConf().orElseThrow();
    leader = moveLeadership(leader, nodeIds, reachable, deadline);
    List<RaftPeer> voters =
        peers(conf.getPeersList(), RaftPeerRole.FOLLOWER).stream()
            .filter(p -> !nodeIds.contains(RaftSetup.nodeId(p.getId())))
            .toList();
    List<RaftPeer> listeners =
        peers(conf.getListenersList(), RaftPeerRole.LISTENER).stream()
            .filter(p -> !nodeIds.contains(RaftSetup.nodeId(p.getId())))
            .toList();
    log.info("removing {}: voters {} listeners {}", nodeIds, voters, listeners);
    setConfiguration(leader, conf, voters, listeners, deadline);
    return awaitStable(deadline);
  }

  /**
   * The checks of a removal on the configuration {@code before}: refuses ids that are not members,
   * removing every voter, removing so many that the staying voters are not a majority of the
   * current ones (except shrinking 2 voters to 1 while both answer: joint consensus then has both
   * old voters), and a removal after which the voters the leader reaches are not a majority.
   * Returns the staying voters the leader reaches.
   */
  static List<Member> checkRemoval(Description before, Set<Integer> nodeIds) {
    Set<Integer> voterIds = new TreeSet<>();
    before.voters().forEach(v -> voterIds.add(v.nodeId()));
    Set<Integer> listenerIds = new TreeSet<>();
    before.listeners().forEach(l -> listenerIds.add(l.nodeId()));
    for (int id : nodeIds) {
      if (!voterIds.contains(id) && !listenerIds.contains(id)) {
        throw invalid("node " + id + " is not a voter (voters: " + voterIds + ")");
      }
    }
    List<Member> staying =
        before.voters().stream().filter(v -> !nodeIds.contains(v.nodeId())).toList();
    int removedVoters = before.voters().size() - staying.size();
    if (staying.isEmpty()) {
      throw invalid("removing " + nodeIds + " would leave no voter: the quorum needs at least one");
    }
    if (removedVoters > 0 && before.voters().size() == 2 && staying.size() == 1) {
      // Joint consensus {a, b} -> {a} needs both of the old voters: possible while both answer.
      List<Member> unreachable = before.voters().stream().filter(v -> !reachable(v)).toList();
      if (!unreachable.isEmpty()) {
        throw new SpoolException(
            ErrorCode.QUORUM_UNAVAILABLE,
            "all voters must be reachable to shrink a 2-voter quorum: the leader has not heard from "
                + ids(unreachable)
                + " within "
                + REACHABLE_MS
                + " ms");
      }
    } else if (removedVoters > 0 && 2 * staying.size() <= before.voters().size()) {
      throw invalid(
          "removing "
              + removedVoters
              + " of "
              + before.voters().size()
              + " voters at once would leave "
              + staying.size()
              + ", not a majority of the current voters: remove at most "
              + (before.voters().size() - 1) / 2
              + " at a time");
    }
    List<Member> reachable = staying.stream().filter(RatisQuorumAdmin::reachable).toList();
    if (removedVoters > 0 && 2 * reachable.size() <= staying.size()) {
      throw new SpoolException(
          ErrorCode.QUORUM_UNAVAILABLE,
          "after removing "
              + nodeIds
              + " the voters would be "
              + ids(staying)
              + " but the leader reached only "
              + ids(reachable)
              + " within "
              + REACHABLE_MS
              + " ms: not a majority, the quorum could no longer commit. Bring the others back"
              + " first");
    }
    return reachable;
  }

  /** Whether the leader heard from {@code m} within {@link #REACHABLE_MS} (the leader: 0). */
  private static boolean reachable(Member m) {
    return m.lastContactMsAgo() >= 0 && m.lastContactMsAgo() < REACHABLE_MS;
  }

  /**
   * While the leader is among {@code removed}, hands leadership to the most caught-up of {@code
   * candidates} (a few attempts: a transfer fails when leadership moved meanwhile); returns the
   * leader's info afterwards. If the leader stays among the removed, Ratis' leader steps down once
   * the new configuration without it is committed.
   */
  private GroupInfoReply moveLeadership(
      GroupInfoReply leader, Set<Integer> removed, List<Member> candidates, long deadline) {
    GroupInfoReply current = leader;
    for (int attempt = 1; attempt <= 3; attempt++) {
      int leaderId =
          RaftSetup.nodeId(RaftPeerId.valueOf(current.getRoleInfoProto().getSelf().getId()));
      if (!removed.contains(leaderId)) {
        return current;
      }
      Member target =
          candidates.stream().max(Comparator.comparingLong(Member::commitIndex)).orElseThrow();
      RaftPeerId targetId = RaftSetup.peerId(target.nodeId());
      log.info("moving leadership from {} to {} before removing it", leaderId, targetId);
      try (RaftClient c = client(current, deadline)) {
        RaftClientReply r =
            c.admin().transferLeadership(targetId, Math.max(1000, leftMs(deadline) / 4));
        if (!r.isSuccess()) {
          log.warn("leadership transfer to {} failed: {}", targetId, r.getException());
        }
      } catch (IOException e) {
        log.warn("leadership transfer to {} failed: {}", targetId, e.toString());
      }
      current = leaderInfo(deadline);
    }
    log.warn("the leader is still among {}: it steps down once it is removed", removed);
    return current;
  }

  // ---------------------------------------------------------------- Ratis calls

  /**
   * Sets the configuration to {@code voters} and {@code listeners} if the quorum's is still {@code
   * expected} (Ratis' COMPARE_AND_SET, which compares the member ids): the new sets were computed
   * from {@code expected}, so a change another admin made in between is never overwritten.
   */
  private void setConfiguration(
      GroupInfoReply leader,
      RaftConfigurationProto expected,
      List<RaftPeer> voters,
      List<RaftPeer> listeners,
      long deadline) {
    SetConfigurationRequest.Arguments args =
        SetConfigurationRequest.Arguments.newBuilder()
            .setServersInNewConf(voters)
            .setListenersInNewConf(listeners)
            .setServersInCurrentConf(peers(expected.getPeersList(), RaftPeerRole.FOLLOWER))
            .setListenersInCurrentConf(peers(expected.getListenersList(), RaftPeerRole.LISTENER))
            .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
            .build();
    RaftClientReply r;
    try (RaftClient c = client(leader, deadline)) {
      r = c.admin().setConfiguration(args);
    } catch (IOException e) {
      throw configurationError(e);
    }
    if (!r.isSuccess()) {
      throw configurationError(r.getException());
    }
  }

  /**
   * What a refused configuration change means for the operator. Ratis checks a change in progress
   * (joint consensus, or a new voter still in staging) before it compares the configuration.
   */
  static SpoolException configurationError(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String m = String.valueOf(t.getMessage());
      if (t instanceof ReconfigurationInProgressException
          || m.contains("ReconfigurationInProgressException")) {
        return invalid(
            "a configuration change is in progress; run describe and try again when it finished");
      }
      if ((t instanceof SetConfigurationException || m.contains("SetConfigurationException"))
          && m.contains("is different than the request")) {
        return concurrentChange();
      }
      if (t instanceof ReconfigurationTimeoutException
          || m.contains("ReconfigurationTimeoutException")) {
        return new SpoolException(
            ErrorCode.REQUEST_TIMED_OUT,
            "the quorum gave up the configuration change: a new voter did not catch up in time ("
                + rootMessage(failure)
                + "); run describe, then add-voter again");
      }
    }
    return new SpoolException(
        ErrorCode.QUORUM_UNAVAILABLE,
        "configuration change failed: " + rootMessage(failure),
        failure);
  }

  private static SpoolException concurrentChange() {
    return invalid(
        "the controller quorum's configuration changed concurrently; run describe and retry");
  }

  /**
   * Waits until the leader's configuration is no longer in joint consensus and the leader is one of
   * its voters (a removed leader leads until it has committed the configuration without it).
   */
  private Description awaitStable(long deadline) {
    while (true) {
      Description d = describe(leaderInfo(deadline));
      if (!d.changing() && d.voters().stream().anyMatch(v -> v.nodeId() == d.leaderId())) {
        return d;
      }
      if (expired(deadline)) {
        throw new SpoolException(
            ErrorCode.REQUEST_TIMED_OUT, "the configuration change did not settle in time: " + d);
      }
      sleep();
    }
  }

  /**
   * The leader's {@link GroupInfoReply}: asks every known controller (the bootstrap ones, then the
   * members their configurations name) until one answers as the leader.
   */
  private GroupInfoReply leaderInfo(long deadline) {
    Map<RaftPeerId, RaftPeer> known = new LinkedHashMap<>();
    bootstrap.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e ->
                known.put(
                    RaftSetup.peerId(e.getKey()),
                    RaftSetup.peer(e.getKey(), e.getValue().toString(), RaftPeerRole.FOLLOWER)));
    String lastProblem = "no controller answered";
    while (true) {
      // Every known controller is asked: a deposed leader may still answer as LEADER of an older
      // term until it hears of the new one, so the highest term wins.
      GroupInfoReply best = null;
      boolean probed = false;
      for (RaftPeer p : List.copyOf(known.values())) {
        // Out of time: one last probe only (each is capped by the time left, probeMs).
        if (best == null && probed && expired(deadline)) {
          break;
        }
        probed = true;
        try (RaftClient c = probeClient(RaftGroup.valueOf(groupIdOr(p), List.of(p)), deadline)) {
          if (groupId == null) {
            List<RaftGroupId> groups = c.getGroupManagementApi(p.getId()).list().getGroupIds();
            if (groups.size() != 1) {
              lastProblem = "controller " + p.getId() + " holds groups " + groups;
              continue;
            }
            groupId = groups.get(0);
          }
          GroupInfoReply r = c.getGroupManagementApi(p.getId()).info(groupId);
          r.getConf()
              .ifPresent(
                  conf -> {
                    for (RaftPeerProto pp : conf.getPeersList()) {
                      known.putIfAbsent(
                          RaftPeerId.valueOf(pp.getId()),
                          RaftSetup.peer(
                              RaftSetup.nodeId(RaftPeerId.valueOf(pp.getId())),
                              pp.getAddress(),
                              RaftPeerRole.FOLLOWER));
                    }
                  });
          if (r.getRoleInfoProto().getRole() == RaftPeerRole.LEADER
              && (best == null
                  || r.getRoleInfoProto().getLeaderInfo().getTerm()
                      > best.getRoleInfoProto().getLeaderInfo().getTerm())) {
            best = r;
          } else if (best == null) {
            lastProblem = "no controller answered as the leader";
          }
        } catch (IOException | RuntimeException e) {
          lastProblem = "controller " + p.getId() + " at " + p.getAddress() + ": " + rootMessage(e);
        }
      }
      if (best != null) {
        return best;
      }
      if (expired(deadline)) {
        throw new SpoolException(
            ErrorCode.QUORUM_UNAVAILABLE,
            "cannot find the quorum's leader through " + known.keySet() + ": " + lastProblem);
      }
      sleep();
    }
  }

  private RaftGroupId groupIdOr(RaftPeer p) {
    // Any id will do until the group is known: listing groups does not look at it (the empty
    // group's id is reserved and refused).
    return groupId != null ? groupId : DISCOVERY_GROUP;
  }

  /** A client of the leader's current configuration, starting at the leader. */
  private RaftClient client(GroupInfoReply leader, long deadline) {
    RaftConfigurationProto conf = leader.getConf().orElseThrow();
    List<RaftPeer> all = new ArrayList<>(peers(conf.getPeersList(), RaftPeerRole.FOLLOWER));
    all.addAll(peers(conf.getListenersList(), RaftPeerRole.LISTENER));
    // Not capped by the time left, unlike a probe: a change once sent is given the time to be
    // answered, rather than reported failed while it may still complete.
    RaftProperties p = RaftSetup.clientProperties(Math.max(PROBE_TIMEOUT_MS, leftMs(deadline)));
    return RaftSetup.clientBuilder(tls)
        .setProperties(p)
        .setRaftGroup(RaftGroup.valueOf(groupId, all))
        .setLeaderId(RaftPeerId.valueOf(leader.getRoleInfoProto().getSelf().getId()))
        .setRetryPolicy(
            RetryPolicies.retryUpToMaximumCountWithFixedSleep(
                3, TimeDuration.valueOf(200, TimeUnit.MILLISECONDS)))
        .build();
  }

  private RaftClient probeClient(RaftGroup group, long deadline) {
    return RaftSetup.clientBuilder(tls)
        .setProperties(RaftSetup.clientProperties(probeMs(leftMs(deadline))))
        .setRaftGroup(group)
        .setRetryPolicy(RetryPolicies.noRetry())
        .build();
  }

  // ---------------------------------------------------------------- helpers

  private static List<RaftPeer> peers(Collection<RaftPeerProto> protos, RaftPeerRole role) {
    return protos.stream()
        .map(
            pp ->
                RaftPeer.newBuilder()
                    .setId(RaftPeerId.valueOf(pp.getId()))
                    .setAddress(pp.getAddress())
                    .setStartupRole(role)
                    .build())
        .toList();
  }

  private static boolean sameAddress(String a, HostPort b) {
    try {
      return HostPort.parse(a).equals(b);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static List<Integer> ids(List<Member> members) {
    return members.stream().map(Member::nodeId).toList();
  }

  private static SpoolException invalid(String message) {
    return new SpoolException(ErrorCode.INVALID_REQUEST, message);
  }

  private static String rootMessage(Throwable t) {
    Throwable c = Replies.unwrap(t);
    while (c.getCause() != null && c.getCause() != c && c.getMessage() == null) {
      c = c.getCause();
    }
    return c.getClass().getSimpleName() + ": " + c.getMessage();
  }

  private long deadline() {
    return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
  }

  /** Overflow-safe: {@code System.nanoTime()} values may only be compared by their difference. */
  private static boolean expired(long deadline) {
    return System.nanoTime() - deadline > 0;
  }

  /**
   * One probe's timeout: {@link #PROBE_TIMEOUT_MS}, or the time the command has left if less, but
   * at least {@link #MIN_PROBE_MS} so that a wait ending at its deadline still gets its last look.
   */
  static long probeMs(long leftMs) {
    return Math.max(MIN_PROBE_MS, Math.min(PROBE_TIMEOUT_MS, leftMs));
  }

  private static long leftMs(long deadline) {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
  }

  private static void sleep() {
    try {
      Thread.sleep(POLL_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SpoolException(ErrorCode.REQUEST_TIMED_OUT, "interrupted");
    }
  }

  @Override
  public void close() {
    // every call opens and closes its own clients
  }
}
