package dev.spool.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.BrokerConfig;
import dev.spool.config.Config;
import dev.spool.config.ConfigException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("unit")
class NodeConfigTest {
  @TempDir Path dir;

  Map<String, String> valid() {
    Map<String, String> m = new HashMap<>();
    m.put("node.id", "1");
    m.put("listener", "127.0.0.1:0");
    m.put("data.dir", dir.resolve("data").toString());
    m.put("controller.quorum.voters", "1@127.0.0.1:0,2@127.0.0.1:0,3@127.0.0.1:0");
    m.put("controller.quorum.bind.host", "127.0.0.1");
    return m;
  }

  @Test
  void shouldAcceptACombinedNodeAndPutTheMetadataLogUnderTheDataDir() {
    Config c = NodeConfig.parse(valid());
    assertTrue(BrokerConfig.isBroker(c) && BrokerConfig.isController(c));
    assertEquals(
        dir.resolve("data").resolve("__cluster_metadata").toString(),
        c.get(dev.spool.quorum.QuorumConfig.METADATA_LOG_DIR));
  }

  @Test
  void shouldNameAnUnknownKeyAndSuggestTheRightOne() {
    Map<String, String> m = valid();
    m.put("listner", "127.0.0.1:9092");
    ConfigException e = assertThrows(ConfigException.class, () -> NodeConfig.parse(m));
    assertEquals("listner", e.key());
    assertTrue(e.getMessage().contains("did you mean 'listener'"), e.getMessage());
  }

  @Test
  void shouldBindEveryListenerToLoopbackUnlessConfigured() {
    Map<String, String> m = valid();
    m.remove("controller.quorum.bind.host");
    m.remove("listener");
    Config c = NodeConfig.parse(m);
    assertEquals("127.0.0.1", c.get(dev.spool.quorum.QuorumConfig.BIND_HOST));
    assertEquals("127.0.0.1:9092", c.get(BrokerConfig.LISTENER));
    assertEquals(java.util.List.of(), NodeConfig.exposedListeners(c));
  }

  @Test
  void shouldNameEachListenerThatBindsBeyondLoopback() {
    Map<String, String> m = valid();
    m.put("controller.quorum.bind.host", "0.0.0.0");
    m.put("listener", "localhost:9092");
    m.put("kafka.listener", "0.0.0.0:9094");
    assertEquals(
        java.util.List.of("controller.quorum.bind.host=0.0.0.0", "kafka.listener=0.0.0.0"),
        NodeConfig.exposedListeners(NodeConfig.parse(m)));
    // A broker-only node has no quorum port of its own, so its bind host is not exposed.
    m.put("process.roles", "broker");
    m.put("listener", "0.0.0.0:9092");
    assertEquals(
        java.util.List.of("listener=0.0.0.0", "kafka.listener=0.0.0.0"),
        NodeConfig.exposedListeners(NodeConfig.parse(m)));
    m.put("metrics.listener", "0.0.0.0:9644");
    assertEquals(
        java.util.List.of("listener=0.0.0.0", "kafka.listener=0.0.0.0", "metrics.listener=0.0.0.0"),
        NodeConfig.exposedListeners(NodeConfig.parse(m)));
  }

  @Test
  void shouldRequireNodeId() {
    Map<String, String> m = valid();
    m.remove("node.id");
    assertEquals("node.id", assertThrows(ConfigException.class, () -> NodeConfig.parse(m)).key());
  }

  @Test
  void shouldRefuseAControllerMissingFromTheVoters() {
    Map<String, String> m = valid();
    m.put("node.id", "4");
    ConfigException e = assertThrows(ConfigException.class, () -> NodeConfig.parse(m));
    assertEquals("controller.quorum.voters", e.key());
  }

  @Test
  void shouldRefuseAMalformedVoterList() {
    Map<String, String> m = valid();
    m.put("controller.quorum.voters", "1@127.0.0.1,2@x:1");
    assertEquals(
        "controller.quorum.voters",
        assertThrows(ConfigException.class, () -> NodeConfig.parse(m)).key());
  }

  @Test
  void shouldRefuseAPortInUse() throws Exception {
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress("127.0.0.1", 0));
      Map<String, String> m = valid();
      m.put("process.roles", "broker");
      m.put("listener", "127.0.0.1:" + taken.getLocalPort());
      Config c = NodeConfig.parse(m);
      ConfigException e = assertThrows(ConfigException.class, () -> NodeConfig.checkEnvironment(c));
      assertEquals("listener", e.key());
    }
  }

  @Test
  void shouldRefuseAnUnwritableDataDir() throws Exception {
    Path file = Files.writeString(dir.resolve("not-a-dir"), "x");
    Map<String, String> m = valid();
    m.put("data.dir", file.resolve("sub").toString());
    Config c = NodeConfig.parse(m);
    assertEquals(
        "data.dir",
        assertThrows(ConfigException.class, () -> NodeConfig.checkEnvironment(c)).key());
  }

  @Test
  void shouldCheckRelationsBetweenKeys() {
    Map<String, String> m = valid();
    m.put("broker.session.timeout.ms", "400");
    m.put("broker.heartbeat.interval.ms", "250");
    ConfigException e = assertThrows(ConfigException.class, () -> NodeConfig.parse(m));
    assertTrue(e.getMessage().contains("broker.session.timeout.ms"), e.getMessage());
  }

  @Test
  void shouldExitWithCodeTwoAndOneLineNamingTheKey() throws Exception {
    Path file = dir.resolve("node.properties");
    Files.writeString(file, "node.id=1\nlistener=127.0.0.1:0\nbogus.key=1\n");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream old = System.err;
    int code;
    try {
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      code = SpoolMain.commandLine().execute("node", "start", "--config", file.toString());
    } finally {
      System.setErr(old);
    }
    assertEquals(2, code);
    String msg = err.toString(StandardCharsets.UTF_8);
    assertTrue(msg.contains("bogus.key"), msg);
    assertEquals(1, msg.strip().lines().count(), msg);
  }

  @Test
  void shouldListEveryKeyInTheHelp() {
    String help =
        SpoolMain.commandLine()
            .getSubcommands()
            .get("node")
            .getSubcommands()
            .get("start")
            .getUsageMessage();
    for (var key : NodeConfig.DEF.keys()) {
      assertTrue(help.contains(key.name()), "help lacks " + key.name());
    }
  }

  @Test
  void shouldAcceptANewControllerOutsideTheVotersOnlyWithItsOwnRaftAddress() {
    Map<String, String> m = valid();
    m.put("node.id", "4");
    ConfigException e = assertThrows(ConfigException.class, () -> NodeConfig.parse(m));
    assertEquals("controller.quorum.voters", e.key());
    assertTrue(e.getMessage().contains("controller.quorum.listener"), e.getMessage());

    m.put("controller.quorum.listener", "127.0.0.1:9400");
    Config c = NodeConfig.parse(m);
    dev.spool.quorum.QuorumSettings s = dev.spool.quorum.QuorumSettings.of(4, "cluster-a", c);
    assertTrue(s.joining());
    assertEquals(new dev.spool.common.HostPort("127.0.0.1", 9400), s.advertised());
  }

  @Test
  void shouldRefuseARaftListenerOnAControllerAmongTheVoters() {
    Map<String, String> m = valid();
    m.put("controller.quorum.listener", "127.0.0.1:9400");
    ConfigException e = assertThrows(ConfigException.class, () -> NodeConfig.parse(m));
    assertEquals("controller.quorum.listener", e.key());
    assertTrue(e.getMessage().contains("only for a controller not among"), e.getMessage());
  }

  @Test
  void shouldRefuseARaftListenerThatIsNotHostPort() {
    Map<String, String> m = valid();
    m.put("node.id", "4");
    m.put("controller.quorum.listener", "nohostport");
    ConfigException e = assertThrows(ConfigException.class, () -> NodeConfig.parse(m));
    assertEquals("controller.quorum.listener", e.key());
  }
}
