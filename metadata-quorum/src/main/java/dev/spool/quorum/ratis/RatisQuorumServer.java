package dev.spool.quorum.ratis;

import dev.spool.common.Clock;
import dev.spool.common.HostPort;
import dev.spool.protocol.message.QuorumInfo;
import dev.spool.quorum.NotAQuorumMemberException;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.QuorumServer;
import dev.spool.quorum.QuorumSettings;
import dev.spool.quorum.controller.ActiveController;
import dev.spool.quorum.controller.ControllerSettings;
import dev.spool.quorum.image.BrokerRegistration;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.message.ControllerRequest;
import dev.spool.quorum.message.ControllerWriteRequest;
import dev.spool.quorum.message.ControllerWriteResponse;
import dev.spool.quorum.message.MetadataBatch;
import java.io.IOException;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.proto.RaftProtos.CommitInfoProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link QuorumServer} on Ratis: one {@link RaftServer} (GRPC, RECOVER startup) with the {@link
 * MetadataStateMachine}. Controller-decided records are submitted to the local server directly (no
 * network hop), stamped with the term they were decided in. A {@link ControllerRangeReporter} tells
 * the active controller this member's supported metadata.version range.
 */
public final class RatisQuorumServer implements QuorumServer {
  private static final Logger log = LoggerFactory.getLogger(RatisQuorumServer.class);

  /** How long the first start of an original voter waits for each other voter's configuration. */
  private static final long PROBE_TIMEOUT_MS = 1000;

  private final QuorumSettings settings;
  private final Clock clock;
  private final RaftGroup group;
  private final ClientId localClientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();
  private MetadataStateMachine stateMachine;
  private RaftServer server;
  private ControllerRangeReporter reporter;

  public RatisQuorumServer(QuorumSettings settings, Clock clock) {
    this.settings = settings;
    this.clock = clock;
    this.group = RaftSetup.group(settings.clusterId(), settings.voters());
  }

  @Override
  public synchronized void start() throws IOException {
    if (server != null) {
      throw new IllegalStateException("already started");
    }
    boolean firstStart =
        !Files.isDirectory(
            settings
                .storageDir()
                .resolve(group.getGroupId().getUuid().toString())
                .resolve("current"));
    Files.createDirectories(settings.storageDir());
    if (firstStart && !settings.joining()) {
      Optional<String> refusal =
          MembershipProbe.refusal(
              group, RaftSetup.peerId(settings.nodeId()), PROBE_TIMEOUT_MS, settings.tls());
      if (refusal.isPresent()) {
        throw new NotAQuorumMemberException(refusal.get());
      }
    }
    ControllerSettings controllerSettings = settings.controllerSettings();
    stateMachine =
        new MetadataStateMachine(
            settings.nodeId(),
            controllerSettings,
            settings.config().get(QuorumConfig.TICK_INTERVAL_MS),
            settings.config().get(QuorumConfig.MAX_REQUEST_BYTES),
            settings.config().get(QuorumConfig.RING_BATCHES),
            clock,
            this::writerForTerm,
            this::describe,
            this::leadershipConfirmed);
    server =
        RaftServer.newBuilder()
            .setServerId(RaftSetup.peerId(settings.nodeId()))
            // A joining controller starts with an empty group (same id): it must not elect or vote
            // before the quorum added it; the leader's configuration entry tells it the members.
            // A restart of any controller recovers the current members from its Raft log
            // (docs/ratis.md#dynamic-membership).
            .setGroup(
                settings.joining()
                    ? RaftGroup.valueOf(group.getGroupId(), java.util.List.of())
                    : group)
            .setProperties(RaftSetup.serverProperties(settings))
            .setParameters(RaftSetup.serverParameters(settings.tls(), settings.nodeId()))
            .setStateMachine(stateMachine)
            // RECOVER reuses an existing directory and formats a missing one
            // (docs/ratis.md#p5-startup-option-recover).
            .setOption(RaftStorage.StartupOption.RECOVER)
            .build();
    server.start();
    reporter =
        new ControllerRangeReporter(
            settings.nodeId(),
            controllerSettings.metadataVersions(),
            group.getGroupId(),
            this::divisionOrNull,
            settings.config().get(QuorumConfig.CLIENT_REQUEST_TIMEOUT_MS),
            settings.tls());
    stateMachine.onLeaderChange(reporter::leaderChanged);
    reporter.start();
    log.info(
        "[node={}] controller started: group {} {} storage {} ({})",
        settings.nodeId(),
        group.getGroupId(),
        settings.joining()
            ? "as a new member at " + settings.advertised() + ", waiting to be added"
            : "initial voters " + settings.voters(),
        settings.storageDir(),
        settings.config().toLogString());
  }

  private ActiveController.RecordWriter writerForTerm(long term) {
    return (t, reason, batch) -> submitLocal(t, reason, batch);
  }

  private CompletableFuture<ControllerWriteResponse> submitLocal(
      long term, String reason, MetadataBatch batch) {
    ControllerRequest req =
        ControllerRequest.newBuilder()
            .setControllerWrite(
                ControllerWriteRequest.newBuilder().setTerm(term).setReason(reason).setBatch(batch))
            .build();
    RaftClientRequest request =
        RaftClientRequest.newBuilder()
            .setClientId(localClientId)
            .setServerId(RaftSetup.peerId(settings.nodeId()))
            .setGroupId(group.getGroupId())
            .setCallId(callIds.incrementAndGet())
            .setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(req.toByteArray())))
            .setType(RaftClientRequest.writeRequestType())
            .build();
    CompletableFuture<RaftClientReply> f;
    try {
      f = server.submitClientRequestAsync(request);
    } catch (IOException e) {
      return CompletableFuture.failedFuture(e);
    }
    return f.orTimeout(
            settings.config().get(QuorumConfig.CLIENT_TOTAL_TIMEOUT_MS), TimeUnit.MILLISECONDS)
        .thenApply(r -> Replies.controllerReply(r).getControllerWrite());
  }

  /**
   * Whether this division leads and a majority of voters (itself included when it is one; listeners
   * and staging peers never count; in joint consensus a majority of both the old and the new
   * voters) answered it within three quarters of the minimum election timeout. A voter refuses to
   * pre-vote for anyone else for a minimum election timeout after it last heard from its leader
   * (pre-vote is on), so no other leader can have been elected until a quarter timeout (100 ms by
   * default, the margin for the answer's way back) after now: heartbeat answers may then grant
   * brokers a leadership lease (docs/architecture.md, "Leadership lease"). A leader cut off from
   * the others stops granting before the others can elect a successor. A just-elected leader counts
   * as confirmed (Ratis starts its followers' contact times at the election, which a majority's
   * votes just won).
   */
  private boolean leadershipConfirmed(RaftServer.Division d) {
    RoleInfoProto role = d.getInfo().getRoleInfoProto();
    if (!d.getInfo().isLeader() || !role.hasLeaderInfo()) {
      return false;
    }
    long windowMs = settings.config().get(QuorumConfig.ELECTION_TIMEOUT_MIN_MS) * 3 / 4;
    // The follower list includes listeners and staging peers (the leader appends to them too):
    // LeaseQuorum counts only the configuration's voters, old and new while in joint consensus.
    Map<String, Long> lastContact = new HashMap<>();
    for (ServerRpcProto f : role.getLeaderInfo().getFollowerInfoList()) {
      lastContact.put(f.getId().getId().toStringUtf8(), f.getLastRpcElapsedTimeMs());
    }
    return LeaseQuorum.freshMajority(
        RaftSetup.peerId(settings.nodeId()).toString(),
        ids(voters(d)),
        ids(d.getRaftConf().getPreviousPeers(RaftPeerRole.FOLLOWER)),
        lastContact,
        windowMs);
  }

  private static java.util.List<String> ids(java.util.Collection<RaftPeer> peers) {
    return peers.stream().map(p -> p.getId().toString()).toList();
  }

  /** Raft's view of the quorum, from this division (complete only on the leader). */
  private QuorumInfo describe(RaftServer.Division d) {
    DivisionInfo info = d.getInfo();
    QuorumInfo.Builder q =
        QuorumInfo.newBuilder()
            .setLeaderId(info.getLeaderId() == null ? -1 : RaftSetup.nodeId(info.getLeaderId()))
            .setTerm(info.getCurrentTerm())
            .setCommitIndex(d.getRaftLog().getLastCommittedIndex());
    Map<String, Long> commitIndexes = new HashMap<>();
    for (CommitInfoProto c : d.getCommitInfos()) {
      commitIndexes.put(c.getServer().getId().toStringUtf8(), c.getCommitIndex());
    }
    Map<String, Long> lastContact = new HashMap<>();
    RoleInfoProto role = info.getRoleInfoProto();
    if (role.hasLeaderInfo()) {
      for (ServerRpcProto f : role.getLeaderInfo().getFollowerInfoList()) {
        lastContact.put(f.getId().getId().toStringUtf8(), f.getLastRpcElapsedTimeMs());
      }
    }
    long leaderLast =
        d.getRaftLog().getLastEntryTermIndex() == null
            ? -1
            : d.getRaftLog().getLastEntryTermIndex().getIndex();
    for (RaftPeer p : voters(d)) {
      String id = p.getId().toString();
      long idx = commitIndexes.getOrDefault(id, -1L);
      boolean self = id.equals(RaftSetup.peerId(settings.nodeId()).toString());
      q.addVoters(
          QuorumInfo.Voter.newBuilder()
              .setNodeId(RaftSetup.nodeId(p.getId()))
              .setAddress(p.getAddress())
              .setLastIndex(idx)
              .setLag(info.isLeader() && idx >= 0 ? Math.max(0, leaderLast - idx) : -1)
              .setLastContactMsAgo(self ? 0 : lastContact.getOrDefault(id, -1L)));
    }
    return q.build();
  }

  /**
   * The voters of the division's current configuration (the new set while a change is in joint
   * consensus), not the static {@code controller.quorum.voters}: a voter change moves them.
   */
  private static java.util.Collection<RaftPeer> voters(RaftServer.Division d) {
    return d.getRaftConf().getCurrentPeers(RaftPeerRole.FOLLOWER);
  }

  /** This member's division, or null while it has none (starting, closed, removed). */
  private RaftServer.Division divisionOrNull() {
    try {
      return server.getDivision(group.getGroupId());
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private RaftServer.Division division() {
    try {
      return server.getDivision(group.getGroupId());
    } catch (IOException e) {
      throw new IllegalStateException("controller " + settings.nodeId() + " is not running", e);
    }
  }

  @Override
  public String metadataLogFailure() {
    String failure = stateMachine == null ? null : stateMachine.logFailure();
    return failure == null ? "" : failure;
  }

  @Override
  public Membership membership() {
    RaftServer.Division d;
    try {
      d = server.getDivision(group.getGroupId());
    } catch (IOException | RuntimeException e) {
      return Membership.NONE;
    }
    // Ratis closes the division of a member removed from the configuration.
    if (d.getInfo().getLifeCycleState().isClosingOrClosed()) {
      return Membership.NONE;
    }
    RaftPeerId self = RaftSetup.peerId(settings.nodeId());
    if (d.getRaftConf().getPeer(self, RaftPeerRole.FOLLOWER) != null) {
      return Membership.VOTER;
    }
    if (d.getRaftConf().getPeer(self, RaftPeerRole.LISTENER) != null) {
      return Membership.LISTENER;
    }
    return Membership.NONE;
  }

  @Override
  public int nodeId() {
    return settings.nodeId();
  }

  @Override
  public boolean isActiveController() {
    return stateMachine != null && stateMachine.isActive();
  }

  @Override
  public int activeControllerId() {
    var leader = division().getInfo().getLeaderId();
    return leader == null ? -1 : RaftSetup.nodeId(leader);
  }

  @Override
  public long term() {
    return division().getInfo().getCurrentTerm();
  }

  @Override
  public long commitIndex() {
    return division().getRaftLog().getLastCommittedIndex();
  }

  @Override
  public long leaderChanges() {
    return stateMachine == null ? 0 : stateMachine.leaderChanges();
  }

  @Override
  public long msSinceLeaderChange() {
    return stateMachine == null ? 0 : stateMachine.msSinceLeaderChange();
  }

  @Override
  public Map<Integer, Long> brokerHeartbeatAgesMs() {
    return stateMachine == null ? Map.of() : stateMachine.brokerHeartbeatAgesMs();
  }

  @Override
  public long appliedIndex() {
    return division().getInfo().getLastAppliedIndex();
  }

  @Override
  public MetadataImage image() {
    return stateMachine.image();
  }

  @Override
  public long loadedSnapshotIndex() {
    return stateMachine.loadedSnapshotIndex();
  }

  @Override
  public long takeSnapshot() throws IOException {
    try (org.apache.ratis.client.RaftClient admin =
        RaftSetup.clientBuilder(settings.tls())
            .setProperties(RaftSetup.clientProperties(settings.clientSettings()))
            .setRaftGroup(division().getGroup())
            .build()) {
      RaftClientReply r =
          admin.getSnapshotManagementApi(RaftSetup.peerId(settings.nodeId())).create(30_000);
      if (!r.isSuccess()) {
        throw new IOException("snapshot failed: " + r.getException());
      }
      return r.getLogIndex();
    }
  }

  @Override
  public boolean transferLeadership(long timeoutMs) {
    RaftServer.Division d = division();
    if (!d.getInfo().isLeader()) {
      return true;
    }
    String self = RaftSetup.peerId(settings.nodeId()).toString();
    MetadataImage image = stateMachine.image();
    // A voter whose broker (same node id, combined mode) is in controlled shutdown, or already
    // fenced, is stopping too (a closing broker's last heartbeat fences it, which ends its
    // controlled shutdown in the image): when the whole cluster stops, handing leadership to it
    // could only time out, after the 2 s the caller gives it. With no voter left to take over,
    // the voters that stay elect one after we leave.
    java.util.Set<String> voterIds =
        voters(d).stream()
            .map(p -> p.getId().toString())
            .collect(java.util.stream.Collectors.toSet());
    RaftPeerId target =
        d.getCommitInfos().stream()
            .filter(c -> voterIds.contains(c.getServer().getId().toStringUtf8()))
            .filter(c -> !c.getServer().getId().toStringUtf8().equals(self))
            .filter(c -> !isLeaving(image, c.getServer().getId().toStringUtf8()))
            .max(java.util.Comparator.comparingLong(CommitInfoProto::getCommitIndex))
            .map(c -> RaftPeerId.valueOf(c.getServer().getId()))
            .orElse(null);
    if (target == null) {
      log.info(
          "[node={}] no leadership transfer: no other voter stays (brokers fenced or in"
              + " controlled shutdown: {})",
          settings.nodeId(),
          image.brokers().values().stream()
              .filter(b -> !b.isEligible())
              .map(BrokerRegistration::id)
              .toList());
      return false;
    }
    try (org.apache.ratis.client.RaftClient c =
        RaftSetup.clientBuilder(settings.tls())
            .setProperties(RaftSetup.clientProperties(settings.clientSettings()))
            .setRaftGroup(d.getGroup())
            .setLeaderId(RaftSetup.peerId(settings.nodeId()))
            .build()) {
      RaftClientReply r = c.admin().transferLeadership(target, timeoutMs);
      log.info(
          "[node={}] leadership transfer to {}: {}",
          settings.nodeId(),
          target,
          r.isSuccess() ? "done" : r.getException());
      return r.isSuccess();
    } catch (IOException e) {
      log.warn(
          "[node={}] leadership transfer to {} failed: {}",
          settings.nodeId(),
          target,
          e.toString());
      return false;
    }
  }

  /**
   * Whether peer {@code peerId}'s node has a broker in controlled shutdown or fenced in {@code
   * image}: not one that may take leadership now.
   */
  private static boolean isLeaving(MetadataImage image, String peerId) {
    try {
      BrokerRegistration b = image.broker(Integer.parseInt(peerId));
      return b != null && !b.isEligible();
    } catch (NumberFormatException e) {
      return false; // peer ids are node ids (RaftSetup.peerId); anything else is not a broker's
    }
  }

  /** For tests: this controller's advertised address. */
  public HostPort address() {
    return settings.advertised();
  }

  /**
   * Where this controller stands, for logs and test failures: its Raft member's life-cycle state,
   * role, term and known leader, whether it is the active controller, and why its metadata log
   * failed if it did. Any thread; never throws.
   */
  @Override
  public String toString() {
    StringBuilder out = new StringBuilder("controller ").append(settings.nodeId());
    RaftServer.Division d = divisionOrNull();
    if (d == null) {
      out.append(" (no Raft member)");
    } else {
      var info = d.getInfo();
      var leader = info.getLeaderId();
      out.append(" (")
          .append(info.getLifeCycleState())
          .append(' ')
          .append(info.getCurrentRole())
          .append(" term ")
          .append(info.getCurrentTerm())
          .append(" leader ")
          .append(leader == null ? "none" : leader.toString())
          .append(')');
    }
    out.append(isActiveController() ? " active" : " not active");
    String failure = metadataLogFailure();
    if (!failure.isEmpty()) {
      out.append(", ").append(failure);
    }
    return out.toString();
  }

  @Override
  public synchronized void close() throws IOException {
    if (reporter != null) {
      reporter.close();
    }
    if (server != null) {
      stateMachine.expectClose();
      server.close();
      log.info("[node={}] controller closed", settings.nodeId());
    }
  }
}
