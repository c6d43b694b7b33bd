package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.cli.CliRunner;
import dev.spool.client.Admin;
import dev.spool.client.Consumer;
import dev.spool.client.ConsumerRecord;
import dev.spool.client.NewTopic;
import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.common.TopicPartition;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsRequest;
import dev.spool.protocol.message.ApiVersionsResponse;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.testing.ClientSecurity;
import dev.spool.testing.RawFrameClient;
import dev.spool.testing.TestCertificates;
import dev.spool.testing.inprocess.InProcessCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SASL over TLS on Spool's own listener (SPOOL:SASL_SSL) of a 3-node cluster with an authorizer:
 * the first user ({@code admin}, a super user) comes from {@code storage format --add-scram}, and
 * the brokers' replica fetchers log in with it (sasl.jaas.config); alice, made with {@code spool
 * user create} through the CLI logged in as admin, produces and consumes with Spool's producer and
 * consumer under SCRAM-SHA-256, SCRAM-SHA-512 and PLAIN on a topic of replication factor 3 with
 * min.insync.replicas=3 (so every follower must have fetched, authenticated, for acks=all); a wrong
 * password reaches the application as SASL_AUTHENTICATION_FAILED with the broker's message, not as
 * a timeout after retries; a request before authentication closes the connection unanswered.
 */
@Tag("integration")
@Timeout(240)
class SpoolSaslE2ETest {
  private static final String SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule";
  private static final String PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule";
  private static final String TOPIC = "sasl-rf3";

  @TempDir static Path dir;
  private static TestCertificates certs;
  private static InProcessCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    certs = TestCertificates.create(Files.createDirectories(dir.resolve("keys")));
    InProcessCluster.Builder b = InProcessCluster.builder().nodes(3).dir(dir.resolve("cluster"));
    certs.nodeConfig("none", "SPOOL").forEach(b::config);
    cluster =
        b.config("listener.security.protocol.map", "SPOOL:SASL_SSL")
            .config("sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512,PLAIN")
            .config("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512")
            .config("sasl.jaas.config", jaas(SCRAM, "admin", "admin-secret"))
            .config(
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
            .config("super.users", "User:admin")
            .addScram("SCRAM-SHA-512=[name=admin,password=admin-secret,iterations=8192]")
            .start();
    cluster
        .admin()
        .createTopic(new NewTopic(TOPIC, 1, 3, Map.of("min.insync.replicas", "3")))
        .get(60, TimeUnit.SECONDS);
    // The CLI, logged in as admin, makes alice and lets her use the topics.
    CliRunner.Result user =
        cli("user", "create", "alice", "--password", "alice-secret", "--iterations", "4096");
    assertEquals(0, user.exitCode(), user.toString());
    CliRunner.Result acl =
        cli("acl", "add", "--allow-principal", "User:alice", "--operation", "All", "--topic", "*");
    assertEquals(0, acl.exitCode(), acl.toString());
    CliRunner.Result idempotent =
        cli(
            "acl",
            "add",
            "--allow-principal",
            "User:alice",
            "--operation",
            "IdempotentWrite",
            "--cluster");
    assertEquals(0, idempotent.exitCode(), idempotent.toString());
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static String jaas(String module, String user, String password) {
    return module + " required username=\"" + user + "\" password=\"" + password + "\";";
  }

  /** Spool client keys over SASL_SSL, trusting the test CA. */
  private static Map<String, String> client(String mechanism, String user, String password) {
    Map<String, String> p = new HashMap<>(certs.clientConfig(certs.truststore(), false));
    p.put("bootstrap.servers", cluster.bootstrapServers());
    p.put("security.protocol", "SASL_SSL");
    p.put("sasl.mechanism", mechanism);
    p.put("sasl.jaas.config", jaas(mechanism.equals("PLAIN") ? PLAIN : SCRAM, user, password));
    return p;
  }

  /**
   * The CLI with admin's credentials, as an operator passes them: a {@code --command-config} file
   * (Kafka's option), so the password is not on the command line.
   */
  private static CliRunner.Result cli(String... args) {
    Properties p = new Properties();
    client("SCRAM-SHA-512", "admin", "admin-secret").forEach(p::setProperty);
    p.remove("bootstrap.servers");
    Path file = dir.resolve("admin.properties");
    try (Writer w = Files.newBufferedWriter(file)) {
      p.store(w, null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("-b", cluster.bootstrapServers(), "--command-config", file.toString()));
    return new CliRunner(Map.of(), dir).run("", all.toArray(new String[0]));
  }

  @Test
  void producesAndConsumesOnAReplicatedTopicWithEveryMechanism() throws Exception {
    TopicPartition tp = new TopicPartition(TOPIC, 0);
    int sent = 0;
    for (String mechanism : List.of("SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN")) {
      Map<String, String> props = client(mechanism, "alice", "alice-secret");
      props.put("acks", "all");
      try (Producer p = new Producer(props)) {
        for (int i = 0; i < 10; i++) {
          p.send(new ProducerRecord(TOPIC, (mechanism + "-" + i).getBytes(StandardCharsets.UTF_8)))
              .get(60, TimeUnit.SECONDS);
          sent++;
        }
      }
      List<String> read = new ArrayList<>();
      try (Consumer c = new Consumer(client(mechanism, "alice", "alice-secret"))) {
        c.assign(List.of(tp));
        c.seekToBeginning(List.of(tp));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (read.size() < sent && System.nanoTime() < deadline) {
          for (ConsumerRecord r : c.poll(Duration.ofMillis(500))) {
            read.add(new String(r.value(), StandardCharsets.UTF_8));
          }
        }
      }
      assertEquals(sent, read.size(), mechanism + ": every record read, acks=all on 3 replicas");
      assertEquals(mechanism + "-9", read.get(sent - 1));
    }
  }

  @Test
  void aWrongPasswordReachesTheApplicationAsAnAuthenticationFailure() {
    Map<String, String> props = client("SCRAM-SHA-512", "alice", "wrong");
    props.put("default.api.timeout.ms", "600000");
    try (Admin admin = new Admin(props)) {
      SpoolException e = failure(() -> admin.describeCluster().get(90, TimeUnit.SECONDS));
      assertEquals(ErrorCode.SASL_AUTHENTICATION_FAILED, e.errorCode(), e.toString());
      assertTrue(e.getMessage().contains("invalid credentials"), e.getMessage());
      assertFalse(e.retriable());
    }
    Map<String, String> plain = client("PLAIN", "nobody", "wrong");
    // limits far beyond the test's own wait: an answer within it is the login's error, not a
    // timeout
    plain.put("delivery.timeout.ms", "600000");
    plain.put("max.block.ms", "600000");
    try (Producer p = new Producer(plain)) {
      SpoolException e =
          failure(
              () -> p.send(new ProducerRecord(TOPIC, new byte[] {1})).get(90, TimeUnit.SECONDS));
      assertEquals(ErrorCode.SASL_AUTHENTICATION_FAILED, e.errorCode(), e.toString());
      assertTrue(e.getMessage().contains("Invalid username or password"), e.getMessage());
    }
    TopicPartition tp = new TopicPartition(TOPIC, 0);
    try (Consumer c = new Consumer(client("SCRAM-SHA-256", "alice", "wrong"))) {
      c.assign(List.of(tp));
      SpoolException e =
          failure(
              () -> {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (System.nanoTime() < deadline) {
                  c.poll(Duration.ofMillis(500));
                }
              });
      assertEquals(ErrorCode.SASL_AUTHENTICATION_FAILED, e.errorCode(), e.toString());
    }
  }

  @Test
  void theCliWithoutCredentialsIsRefused() {
    List<String> args =
        new ArrayList<>(
            List.of("topic", "list", "-b", cluster.bootstrapServers(), "--timeout-ms", "20000"));
    certs
        .clientConfig(certs.truststore(), false)
        .forEach(
            (k, v) -> {
              args.add("--admin-prop");
              args.add((k.equals("security.protocol") ? k + "=SASL_SSL" : k + "=" + v));
            });
    args.add("--admin-prop");
    args.add("sasl.jaas.config=" + jaas(SCRAM, "admin", "not-the-password"));
    CliRunner.Result refused = new CliRunner(Map.of(), dir).run("", args.toArray(new String[0]));
    assertNotEquals(0, refused.exitCode(), refused.toString());
    assertTrue(refused.err().contains("SASL_AUTHENTICATION_FAILED"), refused.toString());
    CliRunner.Result listed = cli("topic", "list");
    assertEquals(0, listed.exitCode(), listed.toString());
    assertTrue(listed.out().contains(TOPIC), listed.toString());
  }

  @Test
  void aRequestBeforeAuthenticationClosesTheConnectionUnanswered() throws Exception {
    InetSocketAddress address = firstBroker();
    Map<String, String> tls = new LinkedHashMap<>(certs.clientConfig(certs.truststore(), false));
    try (RawFrameClient raw =
        RawFrameClient.connect(
            address, Duration.ofSeconds(10), ClientSecurity.socketFactory(tls))) {
      raw.send(
          ApiKey.METADATA,
          0,
          1,
          MetadataRequest.newBuilder().setAllTopics(true).build(),
          new byte[0]);
      assertThrows(IOException.class, raw::receive, "no answer: the connection closes");
    }
  }

  @Test
  void apiVersionsOffersSaslAndAnOversizedFrameBeforeLoginCloses() throws Exception {
    InetSocketAddress address = firstBroker();
    Map<String, String> tls = new LinkedHashMap<>(certs.clientConfig(certs.truststore(), false));
    try (RawFrameClient raw =
        RawFrameClient.connect(
            address, Duration.ofSeconds(10), ClientSecurity.socketFactory(tls))) {
      ApiVersionsResponse v =
          raw.request(ApiKey.API_VERSIONS, ApiVersionsRequest.getDefaultInstance())
              .body(ApiVersionsResponse.parser());
      assertTrue(
          v.getApiVersionsList().stream().anyMatch(r -> r.getApiKey() == ApiKey.SASL_HANDSHAKE),
          v.toString());
      // sasl.server.max.receive.size (512 KiB) before authentication: closed at the length prefix
      raw.sendRaw(new byte[] {0, 0x10, 0, 0}); // a 1 MiB frame announced
      assertTrue(raw.closedByPeer());
    }
  }

  private static InetSocketAddress firstBroker() {
    String first = cluster.bootstrapServers().split(",")[0];
    int colon = first.lastIndexOf(':');
    return new InetSocketAddress(
        first.substring(0, colon), Integer.parseInt(first.substring(colon + 1)));
  }

  /** The SpoolException a call ended with, however it is wrapped. */
  private static SpoolException failure(ThrowingCall call) {
    Throwable t = assertThrows(Throwable.class, call::run);
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof SpoolException s) {
        return s;
      }
    }
    throw new AssertionError("not a SpoolException", t);
  }

  @FunctionalInterface
  private interface ThrowingCall {
    void run() throws Exception;
  }
}
