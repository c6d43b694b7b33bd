package dev.spool.quorum.ratis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.spool.broker.SecurityConfig;
import dev.spool.cli.CliContext;
import dev.spool.client.NewTopic;
import dev.spool.common.HostPort;
import dev.spool.config.Config;
import dev.spool.node.NodeConfig;
import dev.spool.node.SpoolMain;
import dev.spool.protocol.message.CreateTopicsRequest;
import dev.spool.quorum.QuorumAdmin;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.QuorumServer;
import dev.spool.quorum.QuorumTls;
import dev.spool.quorum.message.ControllerRequest;
import dev.spool.testing.TestCertificates;
import dev.spool.testing.inprocess.InProcessCluster;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A three-node cluster (each node controller and broker) with {@code CONTROLLER:SSL}: the quorum
 * elects, commits and registers its brokers over mutual TLS, and a Ratis client that cannot prove
 * it is a member of the cluster (no certificate, a certificate from another CA, or no TLS at all)
 * can neither write metadata nor make an admin call: refused at the handshake, nothing applied.
 */
@Tag("integration")
@Timeout(240)
class QuorumTlsTest {
  private static final String CLUSTER_ID = "quorum-tls-test";
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir static Path dir;
  private static TestCertificates certs;
  private static Path intruderKeystore;
  private static Path userKeystore;
  private static InProcessCluster cluster;
  private static final ListAppender<ILoggingEvent> refusalLines = new ListAppender<>();

  @BeforeAll
  static void start() throws IOException {
    refusalLines.start();
    ((Logger) LoggerFactory.getLogger(QuorumHandshakeLog.class)).addAppender(refusalLines);
    ((Logger) LoggerFactory.getLogger(QuorumCallGate.class)).addAppender(refusalLines);
    certs = TestCertificates.create(Files.createDirectories(dir.resolve("keys")));
    intruderKeystore = certs.keystore("intruder", "localhost", false);
    userKeystore = certs.keystore("alice", "alice", true);
    InProcessCluster.Builder b =
        InProcessCluster.builder().nodes(3).clusterId(CLUSTER_ID).dir(dir.resolve("cluster"));
    certs.nodeConfig("none", "CONTROLLER").forEach(b::config);
    // the authorizer makes the quorum serve only super users: the nodes' certificate (CN=localhost)
    b.config("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
    b.config("super.users", "User:CN=localhost");
    b.config("allow.everyone.if.no.acl.found", "true"); // the test's anonymous Admin
    cluster = b.start();
  }

  @AfterAll
  static void stop() {
    ((Logger) LoggerFactory.getLogger(QuorumHandshakeLog.class)).detachAppender(refusalLines);
    ((Logger) LoggerFactory.getLogger(QuorumCallGate.class)).detachAppender(refusalLines);
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void shouldElectCommitAndRegisterBrokersOverMutualTls() throws Exception {
    int leader = cluster.activeController().orElseThrow();
    assertEquals(Set.of(1, 2, 3), cluster.quorumServer(leader).image().brokers().keySet());
    cluster.admin().createTopic(new NewTopic("over-tls", 3, 3, Map.of())).get(60, TimeUnit.SECONDS);
    Awaitility.await()
        .atMost(WAIT)
        .until(() -> cluster.controllers().stream().allMatch(id -> hasTopic(id, "over-tls")));
    // the same raw client the refusal tests use, with a member's certificate: served and applied
    try (RaftClient c = rawClient(RaftSetup.parameters(memberTls()), leader)) {
      assertTrue(c.io().send(createTopic("raw-member-write")).isSuccess());
      assertTrue(
          c.getGroupManagementApi(RaftSetup.peerId(leader))
              .info(RaftSetup.groupId(CLUSTER_ID))
              .isSuccess());
    }
    Awaitility.await()
        .atMost(WAIT)
        .until(
            () -> cluster.controllers().stream().allMatch(id -> hasTopic(id, "raw-member-write")));
    // the spool quorum tool's path (QuorumAdmin) with the node's own certificate
    try (QuorumAdmin admin = QuorumAdmin.connect(voters(), 30_000, memberTls())) {
      QuorumAdmin.Description d = admin.describe();
      assertEquals(leader, d.leaderId());
      assertEquals(3, d.voters().size());
    }
  }

  @Test
  void shouldDescribeTheQuorumFromTheCliWithTheNodesTlsKeys() throws IOException {
    Path config = dir.resolve("cli-node.properties");
    StringBuilder props = new StringBuilder();
    nodeProps().forEach((k, v) -> props.append(k).append('=').append(v).append('\n'));
    Files.writeString(config, props.toString());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = cli(out, err, "quorum", "describe", "--json", "--config", config.toString());
    assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("\"voters\""), out.toString());

    // the same file without CONTROLLER:SSL: a plaintext client, refused by the TLS quorum
    Files.writeString(
        config,
        props.toString().replace("listener.security.protocol.map=CONTROLLER:SSL", "")
            + "listener.security.protocol.map=CONTROLLER:PLAINTEXT\n");
    ByteArrayOutputStream err2 = new ByteArrayOutputStream();
    int refused =
        cli(
            new ByteArrayOutputStream(),
            err2,
            "quorum",
            "describe",
            "--timeout-ms",
            "5000",
            "--config",
            config.toString());
    assertEquals(1, refused, err2.toString(StandardCharsets.UTF_8));
  }

  private static int cli(ByteArrayOutputStream out, ByteArrayOutputStream err, String... args) {
    CliContext ctx =
        new CliContext(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new ByteArrayInputStream(new byte[0]),
            Map.of(),
            dir);
    return SpoolMain.commandLine(ctx).execute(args);
  }

  @Test
  void shouldRefuseAClientWithoutACertificate() {
    GrpcTlsConfig trustOnly =
        GrpcTlsConfig.newBuilder()
            .setTrustManager(memberTls().trustManager())
            .setMutualTls(false)
            .build();
    Parameters p = new Parameters();
    GrpcConfigKeys.TLS.setConf(p, trustOnly);
    assertRefused(p, "intruder-no-cert");
  }

  @Test
  void shouldRefuseACertificateSignedByAnUntrustedCa() {
    Map<String, String> intruder = new LinkedHashMap<>(nodeProps());
    intruder.put("ssl.keystore.location", intruderKeystore.toString());
    QuorumTls tls = SecurityConfig.quorumTls(NodeConfig.parse(intruder));
    assertRefused(RaftSetup.parameters(tls), "intruder-other-ca");
  }

  @Test
  void shouldRefuseAPlaintextClient() {
    assertRefused(RaftSetup.parameters(null), "intruder-plaintext");
  }

  /**
   * A user's certificate signed by the cluster's own CA completes the handshake, but its principal
   * is not a super user: every call is PERMISSION_DENIED before Ratis sees it, and one line names
   * it.
   */
  @Test
  void shouldRefuseACertificateOfTheClustersCaWhosePrincipalIsNotASuperUser() {
    Map<String, String> user = new LinkedHashMap<>(nodeProps());
    user.put("ssl.keystore.location", userKeystore.toString());
    QuorumTls tls = SecurityConfig.quorumTls(NodeConfig.parse(user));
    assertRefused(RaftSetup.parameters(tls), "user-write", "PERMISSION_DENIED");
    Awaitility.await()
        .atMost(WAIT)
        .until(
            () ->
                refusalLines.list.stream()
                    .anyMatch(
                        e ->
                            e.getFormattedMessage()
                                .contains(
                                    "User:CN=alice (subject 'CN=alice') is not in super.users")));
  }

  /**
   * A client on {@code params} fails to create topic {@code topic} through a raw controller write,
   * to read the group's info and to move leadership; nothing changes on any controller.
   */
  private static void assertRefused(Parameters params, String topic) {
    assertRefused(params, topic, "UNAVAILABLE");
    // the server's side: a rate-limited line (the first refusal of the class is always logged)
    Awaitility.await()
        .atMost(WAIT)
        .until(
            () ->
                refusalLines.list.stream()
                    .anyMatch(e -> e.getFormattedMessage().contains("did not complete a mutual")));
  }

  /**
   * As {@link #assertRefused(Parameters, String)}, each call failing with gRPC status {@code
   * status}, without the check of the handshake's log line.
   */
  private static void assertRefused(Parameters params, String topic, String status) {
    int leader = cluster.activeController().orElseThrow();
    long term = cluster.quorumServer(leader).term();
    List<Integer> voters = voterIds();
    RaftGroup group = RaftSetup.group(CLUSTER_ID, voters());
    ControllerRequest write =
        ControllerRequest.newBuilder()
            .setCreateTopics(
                CreateTopicsRequest.newBuilder()
                    .addTopics(
                        CreateTopicsRequest.Topic.newBuilder()
                            .setName(topic)
                            .setNumPartitions(1)
                            .setReplicationFactor(1)))
            .build();
    int other = leader % 3 + 1;
    try (RaftClient c =
        RaftClient.newBuilder()
            .setParameters(params)
            .setProperties(RaftSetup.clientProperties(3_000))
            .setRaftGroup(group)
            .setLeaderId(RaftSetup.peerId(leader))
            .setRetryPolicy(RetryPolicies.noRetry())
            .build()) {
      Exception sent =
          assertThrows(
              Exception.class,
              () ->
                  c.io()
                      .send(Message.valueOf(UnsafeByteOperations.unsafeWrap(write.toByteArray()))));
      assertRefusal(sent, status);
      assertRefusal(
          assertThrows(
              Exception.class,
              () -> c.getGroupManagementApi(RaftSetup.peerId(leader)).info(group.getGroupId())),
          status);
      assertRefusal(
          assertThrows(
              Exception.class,
              () -> c.admin().transferLeadership(RaftPeerId.valueOf("" + other), 3_000)),
          status);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    for (int id : cluster.controllers()) {
      assertFalse(hasTopic(id, topic), "node " + id + " applied the refused write");
    }
    assertEquals(leader, cluster.activeController().orElseThrow());
    assertEquals(term, cluster.quorumServer(leader).term());
    assertEquals(voters, voterIds());
  }

  private static RaftClient rawClient(Parameters params, int leader) {
    return RaftClient.newBuilder()
        .setParameters(params)
        .setProperties(RaftSetup.clientProperties(3_000))
        .setRaftGroup(RaftSetup.group(CLUSTER_ID, voters()))
        .setLeaderId(RaftSetup.peerId(leader))
        .setRetryPolicy(RetryPolicies.noRetry())
        .build();
  }

  /** A raw controller write (as a broker's quorum client sends it) creating {@code topic}. */
  private static Message createTopic(String topic) {
    ControllerRequest write =
        ControllerRequest.newBuilder()
            .setCreateTopics(
                CreateTopicsRequest.newBuilder()
                    .addTopics(
                        CreateTopicsRequest.Topic.newBuilder()
                            .setName(topic)
                            .setNumPartitions(1)
                            .setReplicationFactor(1)))
            .build();
    return Message.valueOf(UnsafeByteOperations.unsafeWrap(write.toByteArray()));
  }

  /**
   * The failure is gRPC's {@code status}, not an answer from a Raft server or the state machine:
   * UNAVAILABLE when the handshake failed ("ssl exception", or the TLS port closed a plaintext
   * connection), PERMISSION_DENIED when the quorum's gate refused the principal.
   */
  private static void assertRefusal(Exception e, String status) {
    StringBuilder chain = new StringBuilder();
    for (Throwable t = e; t != null && chain.length() < 4000; t = t.getCause()) {
      chain.append(t.getClass().getName()).append(": ").append(t.getMessage()).append(" | ");
    }
    assertTrue(chain.toString().contains(status), chain.toString());
  }

  /** The voters as the leader describes them, asked over TLS with a member's certificate. */
  private static List<Integer> voterIds() {
    try (QuorumAdmin admin = QuorumAdmin.connect(voters(), 30_000, memberTls())) {
      return admin.describe().voters().stream().map(QuorumAdmin.Member::nodeId).sorted().toList();
    }
  }

  private static boolean hasTopic(int node, String topic) {
    QuorumServer q = cluster.quorumServer(node);
    return q != null && q.image().topic(topic) != null;
  }

  private static Map<Integer, HostPort> voters() {
    return QuorumConfig.parseVoters(cluster.quorumVoters());
  }

  /** What a cluster member presents: the node keystore, the test CA. */
  private static QuorumTls memberTls() {
    QuorumTls tls = SecurityConfig.quorumTls(NodeConfig.parse(nodeProps()));
    assertNotNull(tls);
    return tls;
  }

  private static Map<String, String> nodeProps() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("node.id", "9");
    p.put("process.roles", "broker");
    p.put("controller.quorum.voters", cluster.quorumVoters());
    p.put("data.dir", dir.resolve("unused").toString());
    p.putAll(certs.nodeConfig("none", "CONTROLLER"));
    return p;
  }

  @Test
  void shouldNotWarnAboutAnExposedQuorumPortUnderControllerSsl() {
    Map<String, String> p = new LinkedHashMap<>(nodeProps());
    p.put("node.id", "1");
    p.put("process.roles", "controller");
    p.put("controller.quorum.voters", "1@127.0.0.1:1");
    p.put("controller.quorum.bind.host", "0.0.0.0");
    Config ssl = NodeConfig.parse(p);
    assertTrue(
        NodeConfig.exposedListeners(ssl).stream().noneMatch(l -> l.startsWith("controller")),
        String.valueOf(NodeConfig.exposedListeners(ssl)));
    p.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT");
    Config plain = NodeConfig.parse(p);
    assertNull(SecurityConfig.quorumTls(plain));
    assertTrue(
        NodeConfig.exposedListeners(plain).stream().anyMatch(l -> l.startsWith("controller")),
        String.valueOf(NodeConfig.exposedListeners(plain)));
  }
}
