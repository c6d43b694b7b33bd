package dev.spool.node;

import dev.spool.broker.BrokerConfig;
import dev.spool.config.Config;
import dev.spool.quorum.BootstrapCredentials;
import dev.spool.quorum.BootstrapMetadata;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.message.ScramCredentialRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A node's data directories and their identity
 * (docs/operations.md#storage-format-and-node-identity): {@link #format} writes a {@link
 * MetaProperties} into each, {@link #verify} refuses a start on a directory that is not formatted,
 * belongs to another cluster or node, or is a voter's quorum directory that lost its Raft storage.
 *
 * <p>The directories: the log directory ({@code data.dir}) of every node, and the quorum directory
 * ({@code metadata.log.dir}, by default {@code data.dir/__cluster_metadata}) of a node with the
 * controller role.
 *
 * <p>The lost-quorum-storage check: the first time a voter starts with Raft storage in its quorum
 * directory, {@link #recordVoterStarted} writes {@value #VOTER_STARTED} there. From then on, a
 * quorum directory that holds that marker but no Raft storage (a subdirectory named by a UUID, the
 * Raft group, with {@code current/} inside) means the disk was replaced or wiped: starting would
 * let this voter vote with an empty log, so the node refuses and says to re-add it as a new voter.
 *
 * <p>Stateless; called by the thread that starts the node or runs the command.
 */
public final class NodeStorage {
  /** Written into a quorum directory once the voter has started from it with Raft storage. */
  public static final String VOTER_STARTED = "voter.started";

  private static final String HINT_FORMAT =
      "format it first: spool storage format --config <node.properties> --cluster-id <id>"
          + " (docs/deploying.md#3-format-the-storage)";

  private NodeStorage() {}

  /** What a directory is to the node, for messages. */
  public record Dir(Path path, String role) {
    @Override
    public String toString() {
      return role + " " + path.toAbsolutePath().normalize();
    }
  }

  /**
   * What {@link #format} did to one directory; {@code bootstrapLevel} is the metadata.version
   * recorded in it for the cluster's bootstrap ({@link MetadataVersion#UNSET}: none).
   */
  public record Formatted(
      Dir dir, MetaProperties meta, boolean alreadyFormatted, int bootstrapLevel) {}

  /** The node's directories: its log directory, and its quorum directory if it is a controller. */
  public static List<Dir> dirs(Config config) {
    List<Dir> dirs = new ArrayList<>();
    dirs.add(new Dir(Path.of(config.get(BrokerConfig.DATA_DIR)), "log directory (data.dir)"));
    if (BrokerConfig.isController(config)) {
      Path quorum = Path.of(config.get(QuorumConfig.METADATA_LOG_DIR));
      if (sameFile(quorum, dirs.get(0).path())) {
        return List.of(new Dir(quorum, "log and quorum directory (data.dir, metadata.log.dir)"));
      }
      dirs.add(new Dir(quorum, "quorum directory (metadata.log.dir)"));
    }
    return dirs;
  }

  /** The quorum directory of a controller (null for a broker-only node). */
  private static Dir quorumDir(Config config) {
    List<Dir> dirs = dirs(config);
    return BrokerConfig.isController(config) ? dirs.get(dirs.size() - 1) : null;
  }

  /** Where {@code m} belongs when that is not {@code clusterId} and {@code nodeId}, else null. */
  private static String mismatch(MetaProperties m, String clusterId, int nodeId) {
    if (m.clusterId().equals(clusterId) && m.nodeId() == nodeId) {
      return null;
    }
    return "cluster "
        + m.clusterId()
        + ", node "
        + m.nodeId()
        + " (this is cluster "
        + clusterId
        + ", node "
        + nodeId
        + ")";
  }

  /**
   * Formats every directory of the node for {@code clusterId}, as Kafka's {@code kafka-storage
   * format}: all are checked before any is written, so a refusal changes nothing. A directory
   * already formatted for this cluster and node is an error unless {@code ignoreFormatted}, which
   * leaves it as it is; one formatted for another cluster or node, or one holding data without a
   * {@code meta.properties}, is always an error.
   *
   * @throws IllegalArgumentException a malformed cluster id, or one that disagrees with the
   *     config's {@code cluster.id}
   * @throws StorageException a directory that cannot be formatted, named in the message
   */
  public static List<Formatted> format(Config config, String clusterId, boolean ignoreFormatted) {
    return format(config, clusterId, ignoreFormatted, OptionalInt.empty());
  }

  /**
   * {@link #format(Config, String, boolean)}, and with a {@code releaseVersion} also records in a
   * freshly formatted quorum directory the metadata.version the cluster bootstraps at ({@link
   * BootstrapMetadata}; Kafka's {@code --release-version}). A broker-only node has no quorum
   * directory: the level is checked and recorded nowhere.
   *
   * @throws IllegalArgumentException also a level this build does not support (nothing written)
   */
  public static List<Formatted> format(
      Config config, String clusterId, boolean ignoreFormatted, OptionalInt releaseVersion) {
    return format(config, clusterId, ignoreFormatted, releaseVersion, List.of());
  }

  /**
   * {@link #format(Config, String, boolean, OptionalInt)}, and records in a freshly formatted
   * quorum directory the SCRAM {@code credentials} the cluster starts with ({@code --add-scram},
   * {@link BootstrapCredentials}): the first active controller writes them with the bootstrap
   * metadata.version. A broker-only node records them nowhere.
   */
  public static List<Formatted> format(
      Config config,
      String clusterId,
      boolean ignoreFormatted,
      OptionalInt releaseVersion,
      List<ScramCredentialRecord> credentials) {
    MetaProperties.checkClusterId(clusterId);
    if (releaseVersion.isPresent()) {
      String why = BootstrapMetadata.check(releaseVersion.getAsInt());
      if (why != null) {
        throw new IllegalArgumentException(
            "--release-version "
                + releaseVersion.getAsInt()
                + ": "
                + why
                + "; nothing was written");
      }
    }
    String configured = config.explicitValues().get(BrokerConfig.CLUSTER_ID.name());
    if (configured != null && !configured.equals(clusterId)) {
      throw new IllegalArgumentException(
          "--cluster-id "
              + clusterId
              + " disagrees with cluster.id="
              + configured
              + " in the node's config");
    }
    int nodeId = config.get(BrokerConfig.NODE_ID);
    List<Dir> dirs = dirs(config);
    Dir quorum = quorumDir(config);
    List<Formatted> plan = new ArrayList<>();
    for (Dir d : dirs) {
      Optional<MetaProperties> stored = MetaProperties.read(d.path());
      if (stored.isPresent()) {
        MetaProperties m = stored.get();
        String other = mismatch(m, clusterId, nodeId);
        if (other != null) {
          throw new StorageException(
              d + " is already formatted for " + other + "; nothing was changed");
        }
        if (!ignoreFormatted) {
          throw new StorageException(
              d
                  + " is already formatted. Use --ignore-formatted to ignore this directory and"
                  + " format the others; nothing was changed");
        }
        plan.add(new Formatted(d, m, true, MetadataVersion.UNSET));
      } else {
        List<String> data = contents(d.path(), dirs);
        if (!data.isEmpty()) {
          throw new StorageException(
              d
                  + " holds data but no "
                  + MetaProperties.FILE_NAME
                  + " ("
                  + String.join(", ", data.subList(0, Math.min(5, data.size())))
                  + (data.size() > 5 ? ", …" : "")
                  + "): formatting would adopt data of unknown origin. Move it away or empty the"
                  + " directory; nothing was changed");
        }
        int bootstrap =
            d.equals(quorum) ? releaseVersion.orElse(MetadataVersion.UNSET) : MetadataVersion.UNSET;
        plan.add(new Formatted(d, MetaProperties.fresh(clusterId, nodeId), false, bootstrap));
      }
    }
    for (Formatted f : plan) {
      if (!f.alreadyFormatted()) {
        try {
          Files.createDirectories(f.dir().path());
          boolean users = !credentials.isEmpty() && f.dir().equals(quorum);
          if (f.bootstrapLevel() != MetadataVersion.UNSET || users) {
            MetaProperties.writeDurably(
                f.dir().path(),
                BootstrapMetadata.FILE_NAME,
                BootstrapMetadata.render(f.bootstrapLevel(), users ? credentials : List.of()));
          } else {
            // Left by a format with --release-version that stopped before meta.properties: this
            // format did not ask for that level, so the cluster must not bootstrap at it.
            Files.deleteIfExists(f.dir().path().resolve(BootstrapMetadata.FILE_NAME));
          }
          f.meta().write(f.dir().path());
        } catch (IOException e) {
          throw new StorageException(f.dir() + " cannot be formatted: " + e, e);
        }
      }
    }
    return plan;
  }

  /**
   * Checks that every directory of the node is formatted for this node and one cluster, and that a
   * voter's quorum directory still holds its Raft storage; returns {@code config} with {@code
   * cluster.id} taken from the directories (the config's own {@code cluster.id}, when set, must
   * agree).
   *
   * @throws StorageException naming the directory and the problem
   */
  public static Config verify(Config config) {
    int nodeId = config.get(BrokerConfig.NODE_ID);
    String configured = config.explicitValues().get(BrokerConfig.CLUSTER_ID.name());
    String clusterId = null;
    Dir clusterIdFrom = null;
    Map<Base64Uuid, Dir> ids = new HashMap<>();
    for (Dir d : dirs(config)) {
      MetaProperties m =
          MetaProperties.read(d.path())
              .orElseThrow(
                  () ->
                      new StorageException(
                          d
                              + " is not formatted (no "
                              + MetaProperties.FILE_NAME
                              + "): "
                              + HINT_FORMAT));
      if (m.nodeId() != nodeId) {
        throw new StorageException(
            d
                + " belongs to node "
                + m.nodeId()
                + " but this node is node.id="
                + nodeId
                + ". If the data moved, set the node.id it was formatted for; for a new node, use an"
                + " empty directory and format it");
      }
      if (clusterId == null) {
        clusterId = m.clusterId();
        clusterIdFrom = d;
      } else if (!clusterId.equals(m.clusterId())) {
        throw new StorageException(
            d
                + " belongs to cluster "
                + m.clusterId()
                + " but "
                + clusterIdFrom
                + " to cluster "
                + clusterId
                + ": one node's directories must belong to one cluster");
      }
      if (configured != null && !configured.equals(m.clusterId())) {
        throw new StorageException(
            d
                + " belongs to cluster "
                + m.clusterId()
                + " but the config says cluster.id="
                + configured
                + ": this is another cluster's directory (or the config names the wrong cluster)");
      }
      Dir twin = ids.putIfAbsent(m.directoryId(), d);
      if (twin != null) {
        throw new StorageException(
            d
                + " has the same directory.id as "
                + twin
                + " ("
                + m.directoryId()
                + "): was one copied from the other? Each directory needs its own format");
      }
    }
    if (BrokerConfig.isController(config)) {
      Dir quorum = quorumDir(config);
      checkQuorumStorage(quorum);
      try {
        BootstrapMetadata.read(quorum.path());
      } catch (IllegalStateException e) {
        throw new StorageException(e.getMessage(), e);
      }
    }
    if (configured != null) {
      return config;
    }
    Map<String, String> props = new LinkedHashMap<>(config.explicitValues());
    props.put(BrokerConfig.CLUSTER_ID.name(), clusterId);
    return NodeConfig.parse(props);
  }

  /**
   * Writes {@value #VOTER_STARTED} into the quorum directory once the voter has Raft storage there;
   * call after the controller role started. Does nothing on a broker-only node, or when the marker
   * exists.
   */
  public static void recordVoterStarted(Config config) {
    if (!BrokerConfig.isController(config)) {
      return;
    }
    Path dir = Path.of(config.get(QuorumConfig.METADATA_LOG_DIR));
    Path marker = dir.resolve(VOTER_STARTED);
    if (Files.exists(marker) || !hasRaftStorage(dir)) {
      return;
    }
    String text =
        "# Written when this voter first started from this directory with Raft storage.\n"
            + "# If the Raft storage goes missing while this file stays, the node refuses to start:\n"
            + "# re-add it to the quorum as a new voter (docs/operations.md#storage-format-and-node-identity).\n"
            + ("node.id=" + config.get(BrokerConfig.NODE_ID) + "\n")
            + ("cluster.id=" + config.get(BrokerConfig.CLUSTER_ID) + "\n")
            + ("first.start=" + Instant.now() + "\n");
    try {
      Path tmp = dir.resolve(VOTER_STARTED + ".tmp");
      Files.writeString(tmp, text, StandardCharsets.UTF_8);
      Files.move(tmp, marker, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      MetaProperties.forceDirectory(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + marker, e);
    }
  }

  private static void checkQuorumStorage(Dir quorum) {
    if (Files.exists(quorum.path().resolve(VOTER_STARTED)) && !hasRaftStorage(quorum.path())) {
      throw new StorageException(
          quorum
              + " has lost its Raft storage: this voter started from it before ("
              + VOTER_STARTED
              + " is there) but no Raft log is left. Starting would let it vote with an empty log"
              + " and could elect a leader without committed metadata. Remove this node from the"
              + " voters and re-add it as a new voter with an empty, freshly formatted directory"
              + " (docs/operations.md#storage-format-and-node-identity)");
    }
  }

  /** True when {@code dir} holds a Raft group's storage: {@code <group UUID>/current/}. */
  static boolean hasRaftStorage(Path dir) {
    if (!Files.isDirectory(dir)) {
      return false;
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.anyMatch(
          p -> isUuid(p.getFileName().toString()) && Files.isDirectory(p.resolve("current")));
    } catch (IOException e) {
      throw new StorageException(dir + " cannot be listed: " + e.getMessage(), e);
    }
  }

  private static boolean isUuid(String name) {
    try {
      return UUID.fromString(name).toString().equals(name);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * What {@code dir} holds that counts as data: every entry but {@code lost+found}, a {@link
   * BootstrapMetadata} file and the node's other directories nested inside it (checked on their
   * own).
   */
  private static List<String> contents(Path dir, List<Dir> nodeDirs) {
    if (!Files.isDirectory(dir)) {
      if (Files.exists(dir)) {
        throw new StorageException(dir.toAbsolutePath() + " exists but is not a directory");
      }
      return List.of();
    }
    List<String> out = new ArrayList<>();
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : (Iterable<Path>) s.sorted()::iterator) {
        String name = p.getFileName().toString();
        boolean nested = nodeDirs.stream().anyMatch(d -> sameFile(d.path(), p));
        // A bootstrap file without meta.properties is a format that stopped half-way.
        if (!name.equals("lost+found") && !name.equals(BootstrapMetadata.FILE_NAME) && !nested) {
          out.add(name);
        }
      }
    } catch (IOException e) {
      throw new StorageException(dir.toAbsolutePath() + " cannot be listed: " + e.getMessage(), e);
    }
    return out;
  }

  private static boolean sameFile(Path a, Path b) {
    return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
  }
}
