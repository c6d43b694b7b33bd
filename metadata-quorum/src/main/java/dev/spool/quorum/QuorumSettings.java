package dev.spool.quorum;

import dev.spool.common.HostPort;
import dev.spool.config.Config;
import dev.spool.config.ConfigException;
import dev.spool.quorum.controller.ControllerSettings;
import java.nio.file.Path;
import java.util.Map;

/**
 * Everything a controller ({@link QuorumServer}) is built from: its node id, the cluster id (from
 * which the fixed Raft group id is derived), and the validated {@link QuorumConfig} values.
 *
 * @param nodeId this controller's id; one of the voters, or a joining controller with a listener
 * @param clusterId the cluster's id; every node of the cluster uses the same
 * @param voters the controllers the cluster was created with ({@code controller.quorum.voters}), by
 *     node id; after a voter change the Raft log holds the current set
 *     (docs/ratis.md#dynamic-membership)
 * @param listener the Raft address of a controller not among {@code voters} (a new controller that
 *     joins through {@code spool quorum add-voter}), or null
 * @param bindHost the address the Raft server listens on
 * @param storageDir the Raft log and snapshot directory
 * @param config the parsed, validated quorum config
 * @param tls the quorum's mutual TLS material, or null for plaintext ({@link QuorumTls}): the Raft
 *     server, its connections to peers and every Ratis client of the node use it
 */
public record QuorumSettings(
    int nodeId,
    String clusterId,
    Map<Integer, HostPort> voters,
    HostPort listener,
    String bindHost,
    Path storageDir,
    Config config,
    QuorumTls tls) {

  public QuorumSettings {
    voters = Map.copyOf(voters);
    if (!voters.containsKey(nodeId) && listener == null) {
      throw new ConfigException(
          QuorumConfig.VOTERS.name(),
          "node "
              + nodeId
              + " is not among the voters "
              + voters.keySet()
              + "; a new controller that joins the running quorum sets "
              + QuorumConfig.LISTENER.name()
              + " (its own Raft address)");
    }
    if (clusterId == null || clusterId.isEmpty()) {
      throw new ConfigException(null, "cluster id is empty");
    }
  }

  /**
   * Builds the settings of controller {@code nodeId} from a parsed {@link QuorumConfig}, plaintext.
   */
  public static QuorumSettings of(int nodeId, String clusterId, Config config) {
    return of(nodeId, clusterId, config, null);
  }

  /**
   * Builds the settings of controller {@code nodeId} from a parsed {@link QuorumConfig}, with the
   * quorum's TLS material (null: plaintext).
   */
  public static QuorumSettings of(int nodeId, String clusterId, Config config, QuorumTls tls) {
    QuorumConfig.validate(config);
    String dir = config.get(QuorumConfig.METADATA_LOG_DIR);
    if (dir.isEmpty()) {
      throw new ConfigException(
          QuorumConfig.METADATA_LOG_DIR.name(), "is required on a controller");
    }
    return new QuorumSettings(
        nodeId,
        clusterId,
        QuorumConfig.parseVoters(config.get(QuorumConfig.VOTERS)),
        config.get(QuorumConfig.LISTENER).isEmpty()
            ? null
            : HostPort.parse(config.get(QuorumConfig.LISTENER)),
        config.get(QuorumConfig.BIND_HOST),
        Path.of(dir),
        config,
        tls);
  }

  /** This controller's advertised Raft address: its listener if set, else its voters entry. */
  public HostPort advertised() {
    return listener != null ? listener : voters.get(nodeId);
  }

  /**
   * True for a controller that is not among {@code controller.quorum.voters}: it starts with an
   * empty Raft group and waits to be added (docs/ratis.md#dynamic-membership).
   */
  public boolean joining() {
    return !voters.containsKey(nodeId);
  }

  /**
   * The controller's settings, with the bootstrap level {@code spool storage format
   * --release-version} and the SCRAM users of {@code --add-scram} recorded in {@code storageDir}
   * ({@link BootstrapMetadata}).
   *
   * @throws IllegalStateException that file is unreadable or names a level this build lacks
   */
  public ControllerSettings controllerSettings() {
    return QuorumConfig.controllerSettings(config)
        .withBootstrapMetadataVersion(BootstrapMetadata.read(storageDir))
        .withBootstrapCredentials(BootstrapMetadata.readCredentials(storageDir));
  }

  public QuorumClientSettings clientSettings() {
    return QuorumClientSettings.of(clusterId, config, tls);
  }
}
