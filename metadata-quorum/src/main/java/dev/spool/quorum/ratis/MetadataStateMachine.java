package dev.spool.quorum.ratis;

import dev.spool.common.Clock;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.message.QuorumInfo;
import dev.spool.quorum.controller.ActiveController;
import dev.spool.quorum.controller.ControllerSettings;
import dev.spool.quorum.controller.Decision;
import dev.spool.quorum.controller.MetadataFeed;
import dev.spool.quorum.controller.ReplyFinisher;
import dev.spool.quorum.controller.RequestDecider;
import dev.spool.quorum.controller.RequestRejectedException;
import dev.spool.quorum.controller.VoterRanges;
import dev.spool.quorum.image.ImageBuilder;
import dev.spool.quorum.image.ImageSnapshots;
import dev.spool.quorum.image.MetadataApplier;
import dev.spool.quorum.image.MetadataImage;
import dev.spool.quorum.message.ControllerReply;
import dev.spool.quorum.message.ControllerRequest;
import dev.spool.quorum.message.MetadataEntry;
import dev.spool.quorum.message.MetadataSnapshot;
import dev.spool.quorum.message.RecordResult;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis state machine of the metadata quorum: decodes entries and delegates every decision and
 * every state change to the pure cores.
 *
 * <ul>
 *   <li>{@link #startTransaction} (leader only, RPC threads): checks size/format, then {@link
 *       RequestDecider} turns the request into a {@link MetadataEntry} on the current image; only
 *       that entry is logged. Refused requests are not logged.
 *   <li>{@link #applyTransaction} (every controller, the Ratis apply thread, in log order): {@link
 *       MetadataApplier} replays the batch, {@link ReplyFinisher} completes the reply, the new
 *       image is published to the {@link MetadataFeed}.
 *   <li>{@link #query} (leader, RPC threads): heartbeats go to the {@link ActiveController}'s
 *       thread; controller heartbeats record a controller's metadata.version range in it;
 *       DescribeQuorum reads Raft's view and adds those ranges.
 *   <li>Leader duties start in {@link #notifyLeaderReady} (all earlier entries are applied by then,
 *       so decisions see an up-to-date image) and stop in {@link #notifyNotLeader}.
 * </ul>
 *
 * <p>Threads: the image and feed are written only by the apply thread and published through a
 * volatile field / the feed's lock; decisions read the latest published image.
 */
final class MetadataStateMachine extends BaseStateMachine {
  private static final Logger log = LoggerFactory.getLogger(MetadataStateMachine.class);

  private final int nodeId;
  private final ControllerSettings settings;
  private final long tickIntervalMs;
  private final int maxRequestBytes;
  private final Clock clock;
  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  private final MetadataFeed feed;
  private final Random random = new Random(new SecureRandom().nextLong());
  private final Function<Long, ActiveController.RecordWriter> writerForTerm;
  private final Function<RaftServer.Division, QuorumInfo> describer;
  private final Predicate<RaftServer.Division> leadershipConfirmed;
  private volatile MetadataImage image = MetadataImage.EMPTY;
  private volatile ActiveController active;
  private volatile long loadedSnapshotIndex = -1;
  private volatile int leaderId = -1;
  // Ratis calls the leader notifications on its own threads; metrics read the count from any.
  private final AtomicLong leaderChanges = new AtomicLong();
  private final AtomicReference<String> logFailure = new AtomicReference<>();
  private volatile boolean closeExpected;

  /** The clock's monotonic ms at the last leader change, or at start before the first. */
  private volatile long leaderChangedAtMs = -1;

  /** Run after every leader change notification (the controller range report goes at once). */
  private volatile Runnable onLeaderChange = () -> {};

  MetadataStateMachine(
      int nodeId,
      ControllerSettings settings,
      long tickIntervalMs,
      int maxRequestBytes,
      int ringBatches,
      Clock clock,
      Function<Long, ActiveController.RecordWriter> writerForTerm,
      Function<RaftServer.Division, QuorumInfo> describer,
      Predicate<RaftServer.Division> leadershipConfirmed) {
    this.nodeId = nodeId;
    this.leadershipConfirmed = leadershipConfirmed;
    this.settings = settings;
    this.tickIntervalMs = tickIntervalMs;
    this.maxRequestBytes = maxRequestBytes;
    this.clock = clock;
    this.leaderChangedAtMs = clock.monotonicMs();
    this.writerForTerm = writerForTerm;
    this.describer = describer;
    this.feed = new MetadataFeed(ringBatches, MetadataImage.EMPTY);
  }

  MetadataImage image() {
    return image;
  }

  /** Sets what runs, on a Ratis thread, after each leader change; it must not block. */
  void onLeaderChange(Runnable r) {
    this.onLeaderChange = r;
  }

  long loadedSnapshotIndex() {
    return loadedSnapshotIndex;
  }

  boolean isActive() {
    return active != null;
  }

  int leaderId() {
    return leaderId;
  }

  // ---------------------------------------------------------------- lifecycle
  // docs/ratis.md#p2-pause-and-the-lifecycle and docs/ratis.md#p3-reload-snapshots-from-disk

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage)
      throws IOException {
    getLifeCycle()
        .startAndTransition(
            () -> {
              super.initialize(server, groupId, raftStorage);
              storage.init(raftStorage);
              loadLatestSnapshot();
            });
  }

  @Override
  public void pause() {
    if (getLifeCycle().getCurrentState() == LifeCycle.State.RUNNING) {
      getLifeCycle().transition(LifeCycle.State.PAUSING);
      getLifeCycle().transition(LifeCycle.State.PAUSED);
    }
  }

  @Override
  public void reinitialize() throws IOException {
    loadLatestSnapshot();
    if (getLifeCycle().getCurrentState() == LifeCycle.State.PAUSED) {
      getLifeCycle().transition(LifeCycle.State.STARTING);
      getLifeCycle().transition(LifeCycle.State.RUNNING);
    }
  }

  @Override
  public SimpleStateMachineStorage getStateMachineStorage() {
    return storage;
  }

  @Override
  public SingleFileSnapshotInfo getLatestSnapshot() {
    return storage.getLatestSnapshot();
  }

  /**
   * Loads the newest snapshot from disk (not the cached one:
   * docs/ratis.md#p3-reload-snapshots-from-disk), or starts empty.
   */
  private void loadLatestSnapshot() throws IOException {
    SingleFileSnapshotInfo info = storage.loadLatestSnapshot();
    if (info == null) {
      image = MetadataImage.EMPTY;
      feed.reset(image);
      log.info("[node={}] no metadata snapshot; starting from an empty image", nodeId);
      return;
    }
    File file = info.getFile().getPath().toFile();
    MD5Hash expected = MD5FileUtil.readStoredMd5ForFile(file);
    MD5Hash actual = MD5FileUtil.computeMd5ForFile(file);
    if (expected != null && !expected.equals(actual)) {
      throw new IOException("metadata snapshot " + file + " does not match its MD5");
    }
    MetadataSnapshot snapshot = MetadataSnapshot.parseFrom(Files.readAllBytes(file.toPath()));
    TermIndex ti = info.getTermIndex();
    MetadataImage loaded = ImageSnapshots.fromSnapshot(snapshot).withOffset(ti.getIndex());
    image = loaded;
    feed.reset(loaded);
    setLastAppliedTermIndex(ti);
    loadedSnapshotIndex = ti.getIndex();
    log.info("[node={}] loaded metadata snapshot {} ({})", nodeId, file.getName(), loaded);
  }

  @Override
  public long takeSnapshot() throws IOException {
    TermIndex ti = getLastAppliedTermIndex();
    if (ti == null || ti.getIndex() < 0) {
      return -1;
    }
    MetadataImage snap = image.withOffset(ti.getIndex());
    File file = storage.getSnapshotFile(ti.getTerm(), ti.getIndex());
    File tmp = new File(file.getParentFile(), file.getName() + ".tmp");
    byte[] bytes = ImageSnapshots.toSnapshot(snap).toByteArray();
    try (FileChannel ch =
            FileChannel.open(
                tmp.toPath(),
                StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
        OutputStream out = java.nio.channels.Channels.newOutputStream(ch)) {
      out.write(bytes);
      out.flush();
      ch.force(true);
    }
    Files.move(tmp.toPath(), file.toPath(), StandardCopyOption.ATOMIC_MOVE);
    MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
    storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), ti));
    log.info(
        "[node={}] wrote metadata snapshot {} ({} bytes)", nodeId, file.getName(), bytes.length);
    return ti.getIndex();
  }

  // ---------------------------------------------------------------- writes

  @Override
  public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
    ByteString content = request.getMessage().getContent();
    TransactionContext.Builder trx =
        TransactionContext.newBuilder().setStateMachine(this).setClientRequest(request);
    try {
      if (content.size() > maxRequestBytes) {
        throw new RequestRejectedException(
            ErrorCode.INVALID_REQUEST,
            "request of "
                + content.size()
                + " bytes is larger than controller.max.request.bytes ("
                + maxRequestBytes
                + ")");
      }
      ControllerRequest req = parseRequest(content);
      ActiveController a = active;
      if (a == null) {
        throw new RequestRejectedException(
            ErrorCode.NOT_CONTROLLER, "node " + nodeId + " is not the ready active controller");
      }
      Decision d =
          RequestDecider.decide(
              req,
              image,
              a.term(),
              settings,
              random,
              a::heartbeatAgeMs,
              () -> new VoterRanges(currentVoters(), a::controllerRange));
      return trx.setLogData(UnsafeByteOperations.unsafeWrap(d.toEntry().toByteArray())).build();
    } catch (RequestRejectedException e) {
      TransactionContext t = trx.setLogData(ByteString.EMPTY).build();
      t.setException(Replies.refusal(e.errorCode(), e.getMessage()));
      return t;
    } catch (RuntimeException e) {
      // A decision bug must refuse the request, not crash the Raft server thread.
      log.error("[node={}] decision failed", nodeId, e);
      TransactionContext t = trx.setLogData(ByteString.EMPTY).build();
      t.setException(Replies.refusal(ErrorCode.UNKNOWN_SERVER_ERROR, String.valueOf(e)));
      return t;
    }
  }

  /**
   * The node ids of the voters of this division's current Raft configuration (the new set while a
   * change is in joint consensus, as {@code quorum describe} shows them).
   */
  private Set<Integer> currentVoters() {
    try {
      return getServer()
          .get()
          .getDivision(getGroupId())
          .getRaftConf()
          .getCurrentPeers(RaftPeerRole.FOLLOWER)
          .stream()
          .map(p -> RaftSetup.nodeId(p.getId()))
          .collect(Collectors.toSet());
    } catch (IOException | InterruptedException | ExecutionException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new IllegalStateException("cannot read the Raft configuration: " + e, e);
    }
  }

  private static ControllerRequest parseRequest(ByteString content)
      throws RequestRejectedException {
    try {
      return ControllerRequest.parseFrom(content.asReadOnlyByteBuffer());
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new RequestRejectedException(
          ErrorCode.INVALID_REQUEST, "malformed controller request: " + e.getMessage());
    }
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    long index = entry.getIndex();
    ControllerReply reply;
    MetadataEntry me;
    try {
      me =
          MetadataEntry.parseFrom(
              entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer());
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      // Only our own startTransaction writes entries, so this is a bug or corruption; every
      // replica sees the same bytes and skips the entry the same way.
      log.error("[node={}] unreadable metadata entry at index {}; skipped", nodeId, index, e);
      me = MetadataEntry.getDefaultInstance();
    }
    ImageBuilder b = new ImageBuilder(image);
    List<RecordResult> results = MetadataApplier.apply(b, me.getBatch(), index);
    MetadataImage next = b.build(index);
    ActiveController a = active;
    if (a != null) {
      a.noteCommitted(index, image, next, me.getBatch());
    }
    reply = ReplyFinisher.finish(me, results, next, index);
    image = next;
    feed.publish(next, me.getBatch());
    updateLastAppliedTermIndex(entry.getTerm(), index);
    return CompletableFuture.completedFuture(
        Message.valueOf(UnsafeByteOperations.unsafeWrap(reply.toByteArray())));
  }

  @Override
  public void notifyTermIndexUpdated(long term, long index) {
    super.notifyTermIndexUpdated(term, index);
    // Entries without metadata (the leader's first entry, configuration changes) still advance
    // the metadata offset, so that every image at offset N is the same.
    if (index > image.offset()) {
      image = image.withOffset(index);
      feed.publish(image, null);
    }
  }

  // ---------------------------------------------------------------- reads

  @Override
  public CompletableFuture<Message> query(Message request) {
    ByteString content = request.getContent();
    ControllerRequest req;
    try {
      if (content.size() > maxRequestBytes) {
        throw new RequestRejectedException(ErrorCode.INVALID_REQUEST, "request too large");
      }
      req = parseRequest(content);
    } catch (RequestRejectedException e) {
      return refusal(e);
    }
    switch (req.getKindCase()) {
      case HEARTBEAT -> {
        ActiveController a = active;
        if (a == null) {
          return reply(
              ControllerReply.newBuilder()
                  .setErrorCode(ErrorCode.NOT_CONTROLLER)
                  .setErrorMessage("node " + nodeId + " is not the ready active controller")
                  .build());
        }
        return a.heartbeat(req.getHeartbeat())
            .thenApply(
                r ->
                    toMessage(
                        ControllerReply.newBuilder()
                            .setHeartbeat(r)
                            .setMetadataOffset(r.getMetadataOffset())
                            .build()));
      }
      case CONTROLLER_HEARTBEAT -> {
        ActiveController a = active;
        try {
          if (a == null) {
            throw new RequestRejectedException(
                ErrorCode.NOT_CONTROLLER, "node " + nodeId + " is not the ready active controller");
          }
          return reply(
              ControllerReply.newBuilder()
                  .setControllerHeartbeat(a.controllerHeartbeat(req.getControllerHeartbeat()))
                  .build());
        } catch (RequestRejectedException e) {
          return refusal(e);
        }
      }
      case DESCRIBE_QUORUM -> {
        try {
          RaftServer.Division d = getServer().get().getDivision(getGroupId());
          return reply(
              ControllerReply.newBuilder()
                  .setDescribeQuorum(withRanges(describer.apply(d), d))
                  .build());
        } catch (Exception e) {
          return reply(
              ControllerReply.newBuilder()
                  .setErrorCode(ErrorCode.NOT_CONTROLLER)
                  .setErrorMessage(String.valueOf(e))
                  .build());
        }
      }
      default -> {
        return reply(
            ControllerReply.newBuilder()
                .setErrorCode(ErrorCode.INVALID_REQUEST)
                .setErrorMessage(req.getKindCase() + " is not a read-only request")
                .build());
      }
    }
  }

  /**
   * {@code q} with the ranges the active controller knows of the current members, voters and
   * listeners (none when not active; a removed controller's last report is left out).
   */
  private QuorumInfo withRanges(QuorumInfo q, RaftServer.Division d) {
    ActiveController a = active;
    if (a == null) {
      return q;
    }
    Set<Integer> members =
        Stream.concat(
                d.getRaftConf().getCurrentPeers(RaftPeerRole.FOLLOWER).stream(),
                d.getRaftConf().getCurrentPeers(RaftPeerRole.LISTENER).stream())
            .map(p -> RaftSetup.nodeId(p.getId()))
            .collect(Collectors.toSet());
    QuorumInfo.Builder b = q.toBuilder();
    a.controllerRanges()
        .forEach(
            (id, r) -> {
              if (members.contains(id)) {
                b.addControllerRanges(
                    QuorumInfo.ControllerRange.newBuilder()
                        .setNodeId(id)
                        .setMinMetadataVersion(r.range().min())
                        .setMaxMetadataVersion(r.range().max())
                        .setReportedMsAgo(r.ageMs()));
              }
            });
    return b.build();
  }

  private static CompletableFuture<Message> refusal(RequestRejectedException e) {
    return reply(
        ControllerReply.newBuilder()
            .setErrorCode(e.errorCode())
            .setErrorMessage(e.getMessage())
            .build());
  }

  private static CompletableFuture<Message> reply(ControllerReply r) {
    return CompletableFuture.completedFuture(toMessage(r));
  }

  private static Message toMessage(ControllerReply r) {
    return Message.valueOf(UnsafeByteOperations.unsafeWrap(r.toByteArray()));
  }

  // ---------------------------------------------------------------- leadership

  @Override
  public void notifyLeaderChanged(RaftGroupMemberId groupMemberId, RaftPeerId newLeaderId) {
    leaderId = newLeaderId == null ? -1 : RaftSetup.nodeId(newLeaderId);
    leaderChanges.incrementAndGet();
    leaderChangedAtMs = clock.monotonicMs();
    if (leaderId != nodeId) {
      stopActive("leader is now " + leaderId);
    }
    onLeaderChange.run();
  }

  /** Leader changes Ratis has notified since this state machine started. */
  long leaderChanges() {
    return leaderChanges.get();
  }

  /** Milliseconds since the last leader change (since this state machine started, before one). */
  long msSinceLeaderChange() {
    return Math.max(0, clock.monotonicMs() - leaderChangedAtMs);
  }

  /** The active controller's broker heartbeat ages (empty when this node is not active). */
  Map<Integer, Long> brokerHeartbeatAgesMs() {
    ActiveController a = active;
    return a == null ? Map.of() : a.heartbeatAgesMs();
  }

  @Override
  public void notifyLeaderReady() {
    long term;
    RaftServer.Division division;
    try {
      division = getServer().get().getDivision(getGroupId());
      term = division.getInfo().getCurrentTerm();
    } catch (Exception e) {
      log.error("[node={}] cannot read the Raft term; not starting controller duties", nodeId, e);
      return;
    }
    stopActive("new term " + term);
    ActiveController a =
        new ActiveController(
            nodeId,
            term,
            settings,
            tickIntervalMs,
            clock,
            feed,
            writerForTerm.apply(term),
            () -> leadershipConfirmed.test(division));
    active = a;
    leaderId = nodeId;
    a.start();
    log.info(
        "[node={}] became the active controller in term {} at offset {}",
        nodeId,
        term,
        image.offset());
  }

  @Override
  public void notifyNotLeader(Collection<TransactionContext> pendingEntries) {
    stopActive("not leader");
  }

  private synchronized void stopActive(String reason) {
    ActiveController a = active;
    if (a != null) {
      active = null;
      a.close();
      log.info("[node={}] stopped being the active controller: {}", nodeId, reason);
    }
  }

  // ---------------------------------------------------------------- metadata log failure

  /**
   * Ratis' log worker could not write the metadata log (an I/O error in the quorum directory,
   * docs/architecture.md#storage-errors): the log is failed for good, every later write fails, and
   * a leader could neither commit nor step down by itself. This controller stops: the active
   * controller's duties end here, and the division is closed on a thread of its own (not the log
   * worker's), so the other voters elect a leader without it. The node stays up and not ready,
   * naming the error ({@link #logFailure}), as for a failed data directory. The first failure wins
   * and logs once. Ratis' log worker thread.
   */
  @Override
  public void notifyLogFailed(Throwable cause, LogEntryProto failedEntry) {
    String reason =
        "the metadata log failed"
            + (failedEntry == null ? "" : " at index " + failedEntry.getIndex())
            + ": "
            + cause;
    if (!logFailure.compareAndSet(null, reason)) {
      return;
    }
    log.error(
        "[node={}] {}; this controller stops (its Raft member is closed) and the node stays up, not"
            + " ready: replace or repair the quorum directory's disk and restart the node",
        nodeId,
        reason);
    stopActive("metadata log failed");
    Thread closer =
        new Thread(
            () -> {
              try {
                getServer().get().getDivision(getGroupId()).close();
              } catch (Exception e) {
                log.warn("[node={}] closing the failed Raft member: {}", nodeId, e.toString());
              }
            },
            "metadata-log-failed-" + nodeId);
    closer.setDaemon(true);
    closer.start();
  }

  /** Why the metadata log failed ({@link #notifyLogFailed}), or null while it works. Any thread. */
  String logFailure() {
    return logFailure.get();
  }

  /** The node is stopping this controller: the close that follows is not a failure. */
  void expectClose() {
    closeExpected = true;
  }

  /**
   * Also the end of a member Ratis closed by itself: its log worker closes the division on an error
   * that is not an {@link IOException} of a log task (a segment file gone from the quorum
   * directory, say). Unless the node is stopping or the member was removed from the configuration,
   * that is a metadata log failure too.
   */
  @Override
  public void close() throws IOException {
    stopActive("closing");
    if (!closeExpected && stillAMember()) {
      String reason =
          "Ratis closed this controller's Raft member while the node runs (an error in the metadata"
              + " log's worker; see the ERROR line before this one)";
      if (logFailure.compareAndSet(null, reason)) {
        log.error(
            "[node={}] {}; the node stays up, not ready: check the quorum directory's disk and"
                + " restart the node",
            nodeId,
            reason);
      }
    }
    super.close();
  }

  private boolean stillAMember() {
    try {
      RaftServer.Division d = getServer().get().getDivision(getGroupId());
      RaftPeerId self = RaftSetup.peerId(nodeId);
      // The current set only: Ratis closes a removed member while the change is still joint
      // (the old set, which holds it, is the configuration it last saw).
      return d.getRaftConf().getCurrentPeers(RaftPeerRole.FOLLOWER).stream()
              .anyMatch(p -> p.getId().equals(self))
          || d.getRaftConf().getCurrentPeers(RaftPeerRole.LISTENER).stream()
              .anyMatch(p -> p.getId().equals(self));
    } catch (Exception e) {
      return false;
    }
  }
}
