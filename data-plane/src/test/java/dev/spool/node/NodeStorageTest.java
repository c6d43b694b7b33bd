package dev.spool.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.BrokerConfig;
import dev.spool.config.Config;
import dev.spool.quorum.BootstrapMetadata;
import dev.spool.quorum.QuorumSettings;
import dev.spool.quorum.controller.ControllerSettings;
import dev.spool.quorum.image.MetadataVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("unit")
class NodeStorageTest {
  private static final String CLUSTER = "J8xW2uQ3RZ6b0h3m6pO9Dg";

  @TempDir Path dir;

  private Map<String, String> props(int nodeId, String roles) {
    Map<String, String> m = new HashMap<>();
    m.put("node.id", Integer.toString(nodeId));
    m.put("process.roles", roles);
    m.put("listener", "127.0.0.1:0");
    m.put("data.dir", dir.resolve("data").toString());
    m.put("controller.quorum.voters", "1@127.0.0.1:0,2@127.0.0.1:0,3@127.0.0.1:0");
    return m;
  }

  private Config config(int nodeId) {
    return NodeConfig.parse(props(nodeId, "broker,controller"));
  }

  private Path quorumDir() {
    return dir.resolve("data").resolve("__cluster_metadata");
  }

  @Test
  void shouldFormatTheLogAndQuorumDirectoriesOfAController() {
    List<NodeStorage.Formatted> done = NodeStorage.format(config(1), CLUSTER, false);
    assertEquals(2, done.size());
    MetaProperties log = MetaProperties.read(dir.resolve("data")).orElseThrow();
    MetaProperties quorum = MetaProperties.read(quorumDir()).orElseThrow();
    assertEquals(CLUSTER, log.clusterId());
    assertEquals(1, log.nodeId());
    assertEquals(CLUSTER, quorum.clusterId());
    assertNotEquals(log.directoryId(), quorum.directoryId(), "each directory its own id");
  }

  @Test
  void shouldFormatOnlyTheLogDirectoryOfABrokerOnlyNode() {
    List<NodeStorage.Formatted> done =
        NodeStorage.format(NodeConfig.parse(props(4, "broker")), CLUSTER, false);
    assertEquals(1, done.size());
    assertFalse(Files.exists(quorumDir()));
  }

  @Test
  void shouldTakeTheClusterIdFromTheDirectoriesWhenTheConfigSetsNone() {
    NodeStorage.format(config(1), CLUSTER, false);
    Config verified = NodeStorage.verify(config(1));
    assertEquals(CLUSTER, verified.get(BrokerConfig.CLUSTER_ID));
  }

  @Test
  void shouldRefuseToStartOnAnUnformattedDirectoryNamingIt() {
    StorageException e = assertThrows(StorageException.class, () -> NodeStorage.verify(config(1)));
    assertTrue(e.getMessage().contains("not formatted"), e.getMessage());
    assertTrue(e.getMessage().contains(dir.resolve("data").toString()), e.getMessage());
    assertFalse(Files.exists(dir.resolve("data")), "a refused start creates nothing");
  }

  @Test
  void shouldRefuseToStartOnAnotherNodesDirectory() {
    NodeStorage.format(config(1), CLUSTER, false);
    StorageException e = assertThrows(StorageException.class, () -> NodeStorage.verify(config(2)));
    assertTrue(e.getMessage().contains("belongs to node 1"), e.getMessage());
    assertTrue(e.getMessage().contains("node.id=2"), e.getMessage());
  }

  @Test
  void shouldRefuseToStartOnAnotherClustersDirectory() {
    NodeStorage.format(config(1), CLUSTER, false);
    Map<String, String> p = props(1, "broker,controller");
    p.put("cluster.id", "another");
    StorageException e =
        assertThrows(StorageException.class, () -> NodeStorage.verify(NodeConfig.parse(p)));
    assertTrue(e.getMessage().contains("belongs to cluster " + CLUSTER), e.getMessage());
    assertTrue(e.getMessage().contains("cluster.id=another"), e.getMessage());
  }

  @Test
  void shouldRefuseDirectoriesOfTwoClustersOnOneNode() throws Exception {
    NodeStorage.format(config(1), CLUSTER, false);
    MetaProperties.fresh("other", 1).write(quorumDir());
    StorageException e = assertThrows(StorageException.class, () -> NodeStorage.verify(config(1)));
    assertTrue(e.getMessage().contains("belongs to cluster other"), e.getMessage());
  }

  @Test
  void shouldRefuseACopiedDirectoryId() throws Exception {
    NodeStorage.format(config(1), CLUSTER, false);
    Files.copy(
        dir.resolve("data").resolve("meta.properties"),
        quorumDir().resolve("meta.properties"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    StorageException e = assertThrows(StorageException.class, () -> NodeStorage.verify(config(1)));
    assertTrue(e.getMessage().contains("same directory.id"), e.getMessage());
  }

  @Test
  void shouldRefuseToFormatAgainUnlessToldToIgnoreFormattedDirectories() throws Exception {
    NodeStorage.format(config(1), CLUSTER, false);
    String before = Files.readString(dir.resolve("data").resolve("meta.properties"));
    StorageException e =
        assertThrows(StorageException.class, () -> NodeStorage.format(config(1), CLUSTER, false));
    assertTrue(e.getMessage().contains("--ignore-formatted"), e.getMessage());
    List<NodeStorage.Formatted> again = NodeStorage.format(config(1), CLUSTER, true);
    assertTrue(again.stream().allMatch(NodeStorage.Formatted::alreadyFormatted));
    assertEquals(before, Files.readString(dir.resolve("data").resolve("meta.properties")));
  }

  @Test
  void shouldFormatOnlyTheMissingDirectoryWithIgnoreFormatted() throws Exception {
    MetaProperties.fresh(CLUSTER, 1).write(Files.createDirectories(dir.resolve("data")));
    List<NodeStorage.Formatted> done = NodeStorage.format(config(1), CLUSTER, true);
    assertTrue(done.get(0).alreadyFormatted());
    assertFalse(done.get(1).alreadyFormatted());
    NodeStorage.verify(config(1));
  }

  @Test
  void shouldRefuseToFormatAnotherClustersOrNodesDirectoryAndChangeNothing() throws Exception {
    NodeStorage.format(config(1), CLUSTER, false);
    String before = Files.readString(dir.resolve("data").resolve("meta.properties"));
    StorageException other =
        assertThrows(StorageException.class, () -> NodeStorage.format(config(1), "other", true));
    assertTrue(other.getMessage().contains("cluster " + CLUSTER + ", node 1"), other.getMessage());
    StorageException node =
        assertThrows(StorageException.class, () -> NodeStorage.format(config(2), CLUSTER, true));
    assertTrue(node.getMessage().contains("node 1"), node.getMessage());
    assertEquals(before, Files.readString(dir.resolve("data").resolve("meta.properties")));
  }

  @Test
  void shouldRefuseToFormatADirectoryHoldingDataAndWriteNoOtherDirectory() throws Exception {
    Files.createDirectories(dir.resolve("data").resolve("orders-0"));
    StorageException e =
        assertThrows(StorageException.class, () -> NodeStorage.format(config(1), CLUSTER, false));
    assertTrue(e.getMessage().contains("holds data"), e.getMessage());
    assertTrue(e.getMessage().contains("orders-0"), e.getMessage());
    assertFalse(Files.exists(dir.resolve("data").resolve("meta.properties")));
    assertFalse(Files.exists(quorumDir()), "nothing written anywhere");
  }

  @Test
  void shouldRefuseAMalformedClusterIdOrOneTheConfigContradicts() {
    assertThrows(IllegalArgumentException.class, () -> NodeStorage.format(config(1), "a b", false));
    Map<String, String> p = props(1, "broker,controller");
    p.put("cluster.id", "configured");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> NodeStorage.format(NodeConfig.parse(p), CLUSTER, false));
    assertTrue(e.getMessage().contains("cluster.id=configured"), e.getMessage());
    assertFalse(Files.exists(dir.resolve("data")));
  }

  @Test
  void shouldRefuseAVoterWhoseFormattedQuorumDirectoryLostItsRaftStorage() throws Exception {
    NodeStorage.format(config(1), CLUSTER, false);
    // First start: Ratis creates <group UUID>/current/, then the node records the start.
    Path group = quorumDir().resolve("02511d76-6d7b-3b5e-b3a5-6c1a7e7f1b7e");
    Files.createDirectories(group.resolve("current"));
    NodeStorage.recordVoterStarted(config(1));
    assertTrue(Files.exists(quorumDir().resolve(NodeStorage.VOTER_STARTED)));
    NodeStorage.verify(config(1));
    // The disk is replaced: the Raft storage is gone, meta.properties and the marker restored.
    Files.delete(group.resolve("current"));
    Files.delete(group);
    StorageException e = assertThrows(StorageException.class, () -> NodeStorage.verify(config(1)));
    assertTrue(e.getMessage().contains("lost its Raft storage"), e.getMessage());
    assertTrue(e.getMessage().contains("new voter"), e.getMessage());
    assertTrue(e.getMessage().contains(quorumDir().toString()), e.getMessage());
  }

  @Test
  void shouldLetAFreshlyFormattedVoterStartWithoutRaftStorage() {
    NodeStorage.format(config(1), CLUSTER, false);
    NodeStorage.recordVoterStarted(config(1)); // no Raft storage yet: no marker
    assertFalse(Files.exists(quorumDir().resolve(NodeStorage.VOTER_STARTED)));
    NodeStorage.verify(config(1));
  }

  /** The controller's first-tick bootstrap gets the formatted level through its settings. */
  @Test
  void shouldHandTheFormattedReleaseVersionToTheController() {
    List<NodeStorage.Formatted> done =
        NodeStorage.format(config(1), CLUSTER, false, OptionalInt.of(MetadataVersion.V1));
    assertEquals(MetadataVersion.UNSET, done.get(0).bootstrapLevel(), "log directory");
    assertEquals(MetadataVersion.V1, done.get(1).bootstrapLevel(), "quorum directory");
    Config verified = NodeStorage.verify(config(1));
    ControllerSettings s = QuorumSettings.of(1, CLUSTER, verified).controllerSettings();
    assertEquals(MetadataVersion.V1, s.bootstrapMetadataVersion());
  }

  @Test
  void shouldRecordTheReleaseVersionNowhereOnABrokerOnlyNode() throws Exception {
    List<NodeStorage.Formatted> done =
        NodeStorage.format(NodeConfig.parse(props(4, "broker")), CLUSTER, false, OptionalInt.of(1));
    assertEquals(1, done.size());
    assertEquals(MetadataVersion.UNSET, done.get(0).bootstrapLevel());
    try (Stream<Path> files = Files.walk(dir)) {
      assertEquals(
          List.of(),
          files.filter(f -> f.endsWith(BootstrapMetadata.FILE_NAME)).toList(),
          "no bootstrap file");
    }
  }

  @Test
  void shouldLeaveAControllerWithoutTheFileAtTheHighestLevel() {
    NodeStorage.format(config(1), CLUSTER, false);
    assertEquals(MetadataVersion.UNSET, bootstrapLevel());
  }

  /** The bootstrap level node 1's controller gets after verifying its storage. */
  private int bootstrapLevel() {
    return QuorumSettings.of(1, CLUSTER, NodeStorage.verify(config(1)))
        .controllerSettings()
        .bootstrapMetadataVersion();
  }

  /**
   * A format with {@code --release-version} that stopped before {@code meta.properties} left its
   * bootstrap file: a format without the flag removes it, so the cluster bootstraps at the highest
   * level, not at the one nobody asked for this time.
   */
  @Test
  void shouldDropABootstrapFileAHalfFinishedFormatLeftWhenFormattedWithoutTheFlag()
      throws Exception {
    Files.createDirectories(quorumDir());
    Files.writeString(
        quorumDir().resolve(BootstrapMetadata.FILE_NAME),
        BootstrapMetadata.render(MetadataVersion.V1));
    NodeStorage.format(config(1), CLUSTER, false);
    assertFalse(Files.exists(quorumDir().resolve(BootstrapMetadata.FILE_NAME)));
    assertEquals(MetadataVersion.UNSET, bootstrapLevel());
  }

  /** A directory formatted by a newer release for a level this build lacks: no start. */
  @Test
  void shouldRefuseToStartAControllerFormattedForALevelThisBuildDoesNotSupport() throws Exception {
    NodeStorage.format(config(1), CLUSTER, false);
    Files.writeString(
        quorumDir().resolve(BootstrapMetadata.FILE_NAME), BootstrapMetadata.render(99));
    StorageException e = assertThrows(StorageException.class, () -> NodeStorage.verify(config(1)));
    assertTrue(
        e.getMessage().contains("asks for metadata.version 99 is not supported by this build"),
        e.getMessage());
    assertTrue(e.getMessage().contains(BootstrapMetadata.FILE_NAME), e.getMessage());
    Files.writeString(quorumDir().resolve(BootstrapMetadata.FILE_NAME), "metadata.version=x\n");
    e = assertThrows(StorageException.class, () -> NodeStorage.verify(config(1)));
    assertTrue(e.getMessage().contains("is malformed"), e.getMessage());
  }

  @Test
  void shouldRefuseAnUnsupportedReleaseVersionBeforeWritingAnything() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                NodeStorage.format(
                    config(1), CLUSTER, false, OptionalInt.of(MetadataVersion.LATEST + 1)));
    assertTrue(e.getMessage().contains("nothing was written"), e.getMessage());
    assertFalse(Files.exists(dir.resolve("data")));
  }
}
