package dev.spool.quorum.ratis;

import dev.spool.common.HostPort;
import dev.spool.config.Config;
import dev.spool.quorum.QuorumAdmission;
import dev.spool.quorum.QuorumClientSettings;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.QuorumSettings;
import dev.spool.quorum.QuorumTls;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * Turns our settings into Ratis objects: the fixed group id, peers and the server / client
 * properties. Every Ratis key we set is here, with the reason (see docs/ratis.md#settings).
 */
final class RaftSetup {
  private RaftSetup() {}

  /** The Raft group id: a name-based UUID of the cluster id, so every node derives the same. */
  static RaftGroupId groupId(String clusterId) {
    return RaftGroupId.valueOf(
        UUID.nameUUIDFromBytes(
            ("spool-metadata-quorum:" + clusterId).getBytes(StandardCharsets.UTF_8)));
  }

  static RaftPeerId peerId(int nodeId) {
    return RaftPeerId.valueOf(Integer.toString(nodeId));
  }

  static int nodeId(RaftPeerId peerId) {
    try {
      return Integer.parseInt(peerId.toString());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  static RaftGroup group(String clusterId, Map<Integer, HostPort> voters) {
    List<RaftPeer> peers =
        voters.entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .map(e -> peer(e.getKey(), e.getValue().toString(), RaftPeerRole.FOLLOWER))
            .toList();
    return RaftGroup.valueOf(groupId(clusterId), peers);
  }

  /** Node {@code nodeId}'s peer at {@code address} (HOST:PORT), starting as {@code role}. */
  static RaftPeer peer(int nodeId, String address, RaftPeerRole role) {
    return RaftPeer.newBuilder()
        .setId(peerId(nodeId))
        .setAddress(address)
        .setStartupRole(role)
        .build();
  }

  /**
   * The Ratis parameters of every server and client of a node: with {@code tls}, one {@link
   * GrpcTlsConfig} as the default of all of Ratis' gRPC channels (the server port, the leader's
   * connections to peers, clients and admin calls), mutual TLS on: the server requires a client
   * certificate that chains to the trust manager's CAs and the client presents the key manager's
   * (docs/security.md#tls-on-the-quorum). Null: plaintext.
   */
  static Parameters parameters(QuorumTls tls) {
    Parameters p = new Parameters();
    if (tls != null) {
      GrpcConfigKeys.TLS.setConf(
          p,
          GrpcTlsConfig.newBuilder()
              .setKeyManager(tls.keyManager())
              .setTrustManager(tls.trustManager())
              .setMutualTls(true)
              .setProtocols(tls.protocols())
              .build());
    }
    return p;
  }

  /**
   * The parameters of node {@code nodeId}'s Raft server: {@link #parameters}, and with TLS one
   * rate-limited log line for connections refused at the handshake ({@link QuorumHandshakeLog})
   * and, unless {@code tls} admits every member, a gate in front of every service ({@link
   * QuorumCallGate}).
   */
  static Parameters serverParameters(QuorumTls tls, int nodeId) {
    Parameters p = parameters(tls);
    if (tls != null) {
      QuorumHandshakeLog refusals = new QuorumHandshakeLog(nodeId, System::nanoTime);
      QuorumCallGate gate =
          tls.admission() == QuorumAdmission.EVERY_MEMBER
              ? null
              : new QuorumCallGate(nodeId, tls.admission(), System::nanoTime);
      GrpcConfigKeys.Server.setServicesCustomizer(
          p,
          (builder, types) -> {
            builder.addTransportFilter(refusals);
            return gate == null ? builder : builder.intercept(gate);
          });
    }
    return p;
  }

  /** A client builder on the node's transport: its TLS parameters set, nothing else. */
  static RaftClient.Builder clientBuilder(QuorumTls tls) {
    return RaftClient.newBuilder().setParameters(parameters(tls));
  }

  static RaftProperties serverProperties(QuorumSettings s) {
    Config c = s.config();
    RaftProperties p = new RaftProperties();
    // GRPC: the only transport that serves follower linearizable reads
    // (docs/ratis.md#p4-grpc-transport).
    RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
    GrpcConfigKeys.Server.setHost(p, s.bindHost());
    GrpcConfigKeys.Server.setPort(p, s.advertised().port());
    RaftServerConfigKeys.setStorageDir(p, List.of(s.storageDir().toFile()));
    RaftServerConfigKeys.Rpc.setTimeoutMin(p, ms(c.get(QuorumConfig.ELECTION_TIMEOUT_MIN_MS)));
    RaftServerConfigKeys.Rpc.setTimeoutMax(p, ms(c.get(QuorumConfig.ELECTION_TIMEOUT_MAX_MS)));
    RaftServerConfigKeys.Rpc.setRequestTimeout(p, ms(c.get(QuorumConfig.SERVER_RPC_TIMEOUT_MS)));
    // Snapshots: on (default off), every N entries, keep a few; also on graceful stop.
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(p, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(
        p, c.get(QuorumConfig.SNAPSHOT_THRESHOLD_ENTRIES));
    RaftServerConfigKeys.Snapshot.setCreationGap(
        p, Math.min(1024, c.get(QuorumConfig.SNAPSHOT_THRESHOLD_ENTRIES)));
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(
        p, c.get(QuorumConfig.SNAPSHOT_RETENTION_FILES));
    RaftServerConfigKeys.Snapshot.setTriggerWhenStopEnabled(p, true);
    // Small segments so that a snapshot lets the log be purged (purge works per closed segment,
    // docs/ratis.md#p9-log-purge-per-segment), and purge up to the snapshot: a lagging follower
    // gets the snapshot.
    RaftServerConfigKeys.Log.setSegmentSizeMax(
        p, SizeInBytes.valueOf(c.get(QuorumConfig.LOG_SEGMENT_BYTES)));
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(p, true);
    RaftServerConfigKeys.Log.setPurgeGap(
        p, Math.min(1024, c.get(QuorumConfig.SNAPSHOT_THRESHOLD_ENTRIES)));
    // Reads: heartbeats are served by the leader from its own state (DEFAULT read option);
    // they need no ReadIndex round: a deposed leader's answers carry only committed data.
    RaftServerConfigKeys.Read.setOption(p, RaftServerConfigKeys.Read.Option.DEFAULT);
    RaftServerConfigKeys.LeaderElection.setPreVote(p, true);
    // No event loop groups of the server's own: size 0 makes the gRPC server (and its calls to
    // peers) use gRPC's shared loops, which the Ratis client on the same node already uses, so a
    // process has one set of gRPC loops. Ratis closes event loop groups it owns with Netty's
    // default 2 s quiet period and waits for it: with its own groups every close of a controller
    // took 2 s longer (docs/ratis.md#p11-thread-pools).
    GrpcConfigKeys.Server.setBossGroupSize(p, 0);
    GrpcConfigKeys.Server.setWorkerGroupSize(p, 0);
    GrpcConfigKeys.Client.setWorkerGroupSize(p, 0);
    return p;
  }

  static RaftProperties clientProperties(QuorumClientSettings s) {
    RaftProperties p = clientProperties(s.requestTimeoutMs());
    RaftClientConfigKeys.Async.setOutstandingRequestsMax(p, 256);
    return p;
  }

  /** A GRPC client's properties with a request timeout of {@code requestTimeoutMs}. */
  static RaftProperties clientProperties(long requestTimeoutMs) {
    RaftProperties p = new RaftProperties();
    RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
    RaftClientConfigKeys.Rpc.setRequestTimeout(p, ms(requestTimeoutMs));
    return p;
  }

  /**
   * A client with a sleeping, bounded retry policy (the Ratis default spins forever,
   * docs/ratis.md#p8-client-retry-policy): enough attempts to cover the total timeout; the caller
   * bounds the time as well.
   */
  static RaftClient newClient(QuorumClientSettings s, RaftGroup group) {
    int attempts = Math.max(3, s.totalTimeoutMs() / Math.max(1, s.retryBackoffMs()));
    return clientBuilder(s.tls())
        .setProperties(clientProperties(s))
        .setRaftGroup(group)
        .setRetryPolicy(
            RetryPolicies.retryUpToMaximumCountWithFixedSleep(attempts, ms(s.retryBackoffMs())))
        .build();
  }

  static TimeDuration ms(long ms) {
    return TimeDuration.valueOf(ms, TimeUnit.MILLISECONDS);
  }
}
