package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.cli.CliRunner;
import dev.spool.client.NewTopic;
import dev.spool.testing.inprocess.InProcessCluster;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.UnacceptableCredentialException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SASL on the Kafka listener of a live in-process node (SASL_PLAINTEXT, SCRAM-SHA-256,
 * SCRAM-SHA-512 and PLAIN enabled): users made with {@code spool user create} (credentials in the
 * metadata quorum) produce and consume with Kafka's own clients under each mechanism; a wrong
 * password is refused with SASL_AUTHENTICATION_FAILED and its message; a request before
 * authentication and a mechanism that is not enabled close the connection; {@code spool user list
 * --json} and {@code delete} manage them, and a deleted user can no longer log in; Kafka's own
 * Admin (AlterUserScramCredentials, DescribeUserScramCredentials) manages them too, and a restarted
 * node still knows them.
 */
@Tag("integration")
@Timeout(180)
class SaslE2ETest {
  @TempDir static Path dir;
  private static InProcessCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    cluster =
        InProcessCluster.builder()
            .nodes(1)
            .dir(dir.resolve("cluster"))
            .config("kafka.listener", "127.0.0.1:0")
            .config("listener.security.protocol.map", "SPOOL:PLAINTEXT,KAFKA:SASL_PLAINTEXT")
            .config("sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512,PLAIN")
            .start();
    cluster
        .admin()
        .createTopic(new NewTopic("sasl-orders", 1, 1, Map.of()))
        .get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static int kafkaPort() {
    return cluster.broker(cluster.brokers().get(0)).kafkaBoundPort();
  }

  private static CliRunner.Result cli(String stdin, String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("-b");
    all.add(cluster.bootstrapServers());
    return new CliRunner(Map.of(), dir).run(stdin, all.toArray(new String[0]));
  }

  private static Properties kafkaClient(String mechanism, String user, String password) {
    Properties p = new Properties();
    p.put("bootstrap.servers", "127.0.0.1:" + kafkaPort());
    p.put("security.protocol", "SASL_PLAINTEXT");
    p.put("sasl.mechanism", mechanism);
    String module =
        mechanism.equals("PLAIN")
            ? "org.apache.kafka.common.security.plain.PlainLoginModule"
            : "org.apache.kafka.common.security.scram.ScramLoginModule";
    p.put(
        "sasl.jaas.config",
        module + " required username=\"" + user + "\" password=\"" + password + "\";");
    return p;
  }

  @Test
  void usersProduceAndConsumeWithEveryMechanism() throws Exception {
    CliRunner.Result created = cli("", "user", "create", "alice", "--password", "alice-secret");
    assertEquals(0, created.exitCode(), created.toString());
    // the password from stdin, one mechanism, more iterations
    CliRunner.Result fromStdin =
        cli(
            "bob-secret\n",
            "user",
            "create",
            "bob",
            "--mechanism",
            "SCRAM-SHA-512",
            "--iterations",
            "8192",
            "--json");
    assertEquals(0, fromStdin.exitCode(), fromStdin.toString());
    assertTrue(fromStdin.out().contains("\"iterations\":8192"), fromStdin.out());

    CliRunner.Result list = cli("", "user", "list", "--json");
    assertEquals(0, list.exitCode(), list.toString());
    assertEquals(
        List.of(
            "{\"user\":\"alice\",\"credentials\":[{\"mechanism\":\"SCRAM-SHA-256\",\"iterations\":4096},"
                + "{\"mechanism\":\"SCRAM-SHA-512\",\"iterations\":4096}]}",
            "{\"user\":\"bob\",\"credentials\":[{\"mechanism\":\"SCRAM-SHA-512\",\"iterations\":8192}]}"),
        // other tests of this class add their own users
        list.outLines().stream()
            .filter(l -> l.startsWith("{\"user\":\"alice\"") || l.startsWith("{\"user\":\"bob\""))
            .toList());

    int n = 0;
    for (String[] login :
        new String[][] {
          {"SCRAM-SHA-256", "alice", "alice-secret"},
          {"SCRAM-SHA-512", "alice", "alice-secret"},
          {"SCRAM-SHA-512", "bob", "bob-secret"},
          {"PLAIN", "bob", "bob-secret"}
        }) {
      Properties p = kafkaClient(login[0], login[1], login[2]);
      try (KafkaProducer<String, String> producer =
          new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
        for (int i = 0; i < 10; i++) {
          producer
              .send(new ProducerRecord<>("sasl-orders", login[0] + "-" + i))
              .get(30, TimeUnit.SECONDS);
        }
      }
      n += 10;
      Properties c = kafkaClient(login[0], login[1], login[2]);
      List<String> read = new ArrayList<>();
      try (KafkaConsumer<String, String> consumer =
          new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
        TopicPartition tp = new TopicPartition("sasl-orders", 0);
        consumer.assign(List.of(tp));
        consumer.seekToBeginning(List.of(tp));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (read.size() < n && System.nanoTime() < deadline) {
          for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
            read.add(r.value());
          }
        }
      }
      assertEquals(n, read.size(), "records read as " + login[1] + " with " + login[0]);
      assertTrue(read.contains(login[0] + "-9"));
    }
  }

  @Test
  void aWrongPasswordAnUnknownUserAndADeletedUserAreRefused() throws Exception {
    assertEquals(0, cli("", "user", "create", "carol", "--password", "right").exitCode());
    assertRefused(kafkaClient("SCRAM-SHA-256", "carol", "wrong"), "invalid credentials");
    assertRefused(kafkaClient("SCRAM-SHA-512", "nobody", "x"), "invalid credentials");
    assertRefused(kafkaClient("PLAIN", "carol", "wrong"), "Invalid username or password");

    CliRunner.Result deleted = cli("", "user", "delete", "carol", "--json");
    assertEquals(0, deleted.exitCode(), deleted.toString());
    assertEquals(
        "{\"user\":\"carol\",\"deleted\":[\"SCRAM-SHA-256\",\"SCRAM-SHA-512\"]}",
        deleted.out().trim());
    assertRefused(kafkaClient("SCRAM-SHA-256", "carol", "right"), "invalid credentials");

    CliRunner.Result again = cli("", "user", "delete", "carol");
    assertTrue(again.exitCode() != 0, again.toString());
    assertTrue(again.err().contains("RESOURCE_NOT_FOUND"), again.toString());
    CliRunner.Result few =
        cli("", "user", "create", "dave", "--password", "p", "--iterations", "100");
    assertTrue(few.exitCode() != 0, few.toString());
    assertTrue(few.err().contains("UNACCEPTABLE_CREDENTIAL"), few.toString());
  }

  @Test
  void createWithOneMechanismLeavesTheUserExactlyTheNewPassword() throws Exception {
    assertEquals(0, cli("", "user", "create", "frank", "--password", "old-pw").exitCode());
    assertLogsIn("PLAIN", "frank", "old-pw");
    CliRunner.Result replaced =
        cli(
            "",
            "user",
            "create",
            "frank",
            "--password",
            "new-pw",
            "--mechanism",
            "SCRAM-SHA-256",
            "--json");
    assertEquals(0, replaced.exitCode(), replaced.toString());
    assertTrue(replaced.out().contains("\"removed\":[\"SCRAM-SHA-512\"]"), replaced.out());
    // PLAIN checked the SCRAM-SHA-512 credential first: it is gone, so the old password is too
    assertRefused(kafkaClient("PLAIN", "frank", "old-pw"), "Invalid username or password");
    assertRefused(kafkaClient("SCRAM-SHA-512", "frank", "old-pw"), "invalid credentials");
    assertLogsIn("PLAIN", "frank", "new-pw");
    assertLogsIn("SCRAM-SHA-256", "frank", "new-pw");
    CliRunner.Result list = cli("", "user", "list", "--json");
    assertTrue(
        list.out()
            .contains(
                "{\"user\":\"frank\",\"credentials\":[{\"mechanism\":\"SCRAM-SHA-256\",\"iterations\":4096}]}"),
        list.out());
  }

  @Test
  void kafkasAdminManagesCredentialsAndTheySurviveARestart() throws Exception {
    assertEquals(0, cli("", "user", "create", "admin", "--password", "admin-pw").exitCode());
    try (Admin admin = Admin.create(kafkaClient("SCRAM-SHA-512", "admin", "admin-pw"))) {
      // what kafka-configs --alter --add-config 'SCRAM-SHA-256=[iterations=8192,password=...]'
      // sends
      admin
          .alterUserScramCredentials(
              List.of(
                  new UserScramCredentialUpsertion(
                      "erin",
                      new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192),
                      "erin-pw")))
          .all()
          .get(30, TimeUnit.SECONDS);
      UserScramCredentialsDescription erin =
          admin
              .describeUserScramCredentials(List.of("erin"))
              .description("erin")
              .get(30, TimeUnit.SECONDS);
      assertEquals(
          List.of(new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192)),
          erin.credentialInfos());
      ExecutionException tooFew =
          assertThrows(
              ExecutionException.class,
              () ->
                  admin
                      .alterUserScramCredentials(
                          List.of(
                              new UserScramCredentialUpsertion(
                                  "erin",
                                  new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 100),
                                  "x")))
                      .all()
                      .get(30, TimeUnit.SECONDS));
      assertInstanceOf(UnacceptableCredentialException.class, tooFew.getCause());
    }
    assertLogsIn("SCRAM-SHA-256", "erin", "erin-pw");

    // The credentials are in the metadata quorum's log: a restarted node still has them.
    int node = cluster.nodes().get(0);
    cluster.stop(node);
    cluster.start(node);
    cluster.awaitReady(Duration.ofSeconds(60));
    assertLogsIn("SCRAM-SHA-256", "erin", "erin-pw");
    assertLogsIn("SCRAM-SHA-512", "admin", "admin-pw");
  }

  private static void assertLogsIn(String mechanism, String user, String password)
      throws Exception {
    try (Admin admin = Admin.create(kafkaClient(mechanism, user, password))) {
      assertEquals(1, admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size());
    }
  }

  private static void assertRefused(Properties p, String message) {
    try (Admin admin = Admin.create(p)) {
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () -> admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS));
      SaslAuthenticationException sasl =
          assertInstanceOf(SaslAuthenticationException.class, e.getCause());
      assertTrue(sasl.getMessage().contains(message), sasl.getMessage());
    }
  }

  @Test
  void aRequestBeforeAuthenticationClosesTheConnection() throws Exception {
    try (Socket s = new Socket("127.0.0.1", kafkaPort())) {
      s.setSoTimeout(10_000);
      send(s, new ProduceRequestData().setAcks((short) 1).setTimeoutMs(1000), (short) 9, 1);
      assertClosed(s);
    }
  }

  @Test
  void aMechanismNotEnabledIsAnsweredWithTheEnabledOnesAndCloses() throws Exception {
    try (Socket s = new Socket("127.0.0.1", kafkaPort())) {
      s.setSoTimeout(10_000);
      send(s, new SaslHandshakeRequestData().setMechanism("GSSAPI"), (short) 1, 7);
      DataInputStream in = new DataInputStream(s.getInputStream());
      byte[] frame = new byte[in.readInt()];
      in.readFully(frame);
      ByteBufferAccessor r = new ByteBufferAccessor(ByteBuffer.wrap(frame));
      assertEquals(7, new ResponseHeaderData(r, (short) 0).correlationId());
      SaslHandshakeResponseData resp = new SaslHandshakeResponseData(r, (short) 1);
      assertEquals(Errors.UNSUPPORTED_SASL_MECHANISM.code(), resp.errorCode());
      assertEquals(List.of("SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN"), resp.mechanisms());
      assertClosed(s);
    }
  }

  @Test
  void aFrameOverSaslServerMaxReceiveSizeBeforeAuthenticationClosesTheConnection()
      throws Exception {
    try (Socket s = new Socket("127.0.0.1", kafkaPort())) {
      s.setSoTimeout(10_000);
      // a SaslHandshake frame announced at 512 KiB + 1: refused from its length alone, before any
      // of it is buffered (the body never comes)
      ByteBuffer b = ByteBuffer.allocate(8);
      b.putInt(512 * 1024 + 1).putShort(ApiKeys.SASL_HANDSHAKE.id).putShort((short) 1);
      s.getOutputStream().write(b.array());
      s.getOutputStream().flush();
      assertClosed(s);
    }
    // a Produce header whose body is not even a Produce body: refused from its api key, closed
    // unanswered
    try (Socket s = new Socket("127.0.0.1", kafkaPort())) {
      s.setSoTimeout(10_000);
      ByteBuffer b = ByteBuffer.allocate(4 + 4 + 100_000);
      b.putInt(4 + 100_000).putShort(ApiKeys.PRODUCE.id).putShort((short) 9);
      s.getOutputStream().write(b.array());
      s.getOutputStream().flush();
      assertClosed(s);
    }
  }

  @Test
  void aFailedAuthenticationIsAnsweredThenTheConnectionCloses() throws Exception {
    // connection.failed.authentication.delay.ms (100 by default) holds the answer and the close
    // back on a timer; the answer still comes, then the close
    try (Socket s = new Socket("127.0.0.1", kafkaPort())) {
      s.setSoTimeout(10_000);
      send(s, new SaslHandshakeRequestData().setMechanism("PLAIN"), (short) 1, 1);
      DataInputStream in = new DataInputStream(s.getInputStream());
      byte[] handshake = new byte[in.readInt()];
      in.readFully(handshake);
      send(
          s,
          new SaslAuthenticateRequestData()
              .setAuthBytes("\0nobody\0guess".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
          (short) 1,
          2);
      byte[] frame = new byte[in.readInt()];
      in.readFully(frame);
      ByteBufferAccessor r = new ByteBufferAccessor(ByteBuffer.wrap(frame));
      assertEquals(2, new ResponseHeaderData(r, (short) 0).correlationId());
      SaslAuthenticateResponseData resp = new SaslAuthenticateResponseData(r, (short) 1);
      assertEquals(Errors.SASL_AUTHENTICATION_FAILED.code(), resp.errorCode());
      assertEquals("Authentication failed: Invalid username or password", resp.errorMessage());
      assertClosed(s);
    }
  }

  @Test
  void anAuthenticatedClientSendsFramesOverSaslServerMaxReceiveSize() throws Exception {
    assertEquals(0, cli("", "user", "create", "big", "--password", "big-pw").exitCode());
    cluster.admin().createTopic(new NewTopic("sasl-big", 1, 1, Map.of())).get(30, TimeUnit.SECONDS);
    // PLAIN authenticates once its derivation comes back from the verifier thread: the limit is
    // lifted then too
    for (String mechanism : List.of("SCRAM-SHA-256", "PLAIN")) {
      Properties p = kafkaClient(mechanism, "big", "big-pw");
      p.put("max.request.size", String.valueOf(2 * 1024 * 1024));
      try (KafkaProducer<String, String> producer =
          new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
        producer
            .send(new ProducerRecord<>("sasl-big", "x".repeat(600 * 1024)))
            .get(30, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void connectionsClosedWhilePlainLoginsAreVerifiedLeaveTheBrokerServing() throws Exception {
    assertEquals(0, cli("", "user", "create", "gone", "--password", "gone-pw").exitCode());
    // 200 logins (more than the verifiers' queue), each connection closed as soon as its
    // SaslAuthenticate is sent: derivations still queued are skipped, running ones answer a closed
    // connection; either way nothing is left behind and the broker goes on serving
    for (int i = 0; i < 200; i++) {
      try (Socket s = new Socket("127.0.0.1", kafkaPort())) {
        send(s, new SaslHandshakeRequestData().setMechanism("PLAIN"), (short) 1, 1);
        send(
            s,
            new SaslAuthenticateRequestData()
                .setAuthBytes(
                    ("\0gone\0" + (i % 2 == 0 ? "gone-pw" : "wrong"))
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8)),
            (short) 1,
            2);
      }
    }
    assertLogsIn("PLAIN", "gone", "gone-pw");
    assertRefused(kafkaClient("PLAIN", "gone", "wrong"), "Invalid username or password");
  }

  private static void send(Socket s, ApiMessage body, short version, int correlationId)
      throws IOException {
    ApiKeys key = ApiKeys.forId(body.apiKey());
    RequestHeaderData h =
        new RequestHeaderData()
            .setRequestApiKey(key.id)
            .setRequestApiVersion(version)
            .setCorrelationId(correlationId)
            .setClientId("raw");
    short hv = key.requestHeaderVersion(version);
    ObjectSerializationCache cache = new ObjectSerializationCache();
    int size = h.size(cache, hv) + body.size(cache, version);
    ByteBuffer b = ByteBuffer.allocate(4 + size);
    b.putInt(size);
    ByteBufferAccessor w = new ByteBufferAccessor(b);
    h.write(w, cache, hv);
    body.write(w, cache, version);
    s.getOutputStream().write(b.array());
    s.getOutputStream().flush();
  }

  private static void assertClosed(Socket s) throws IOException {
    try {
      assertEquals(-1, s.getInputStream().read());
    } catch (SocketException | EOFException e) {
      // reset: closed as well
    }
  }
}
