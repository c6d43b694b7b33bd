package dev.spool.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.cli.CliRunner;
import dev.spool.client.NewTopic;
import dev.spool.testing.inprocess.InProcessCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * ACLs end to end on a live in-process node with the built-in authorizer (docs/security.md#acls):
 * SASL/SCRAM users on the Kafka listener; {@code User:admin} a super user manages ACLs with Kafka's
 * own Admin (CreateAcls, DescribeAcls, DeleteAcls); {@code User:alice} produces, consumes and sees
 * only what her ACLs allow, and gets Kafka's authorization exceptions for the rest. Spool's own
 * listener is plaintext here, so its anonymous clients (the harness, the CLI) are made super users.
 */
@Tag("integration")
@Timeout(180)
class AclE2ETest {
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
            .config(
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
            .config("super.users", "User:admin;User:ANONYMOUS")
            .start();
    for (String topic : List.of("acl-orders", "acl-secret")) {
      cluster.admin().createTopic(new NewTopic(topic, 1, 1, Map.of())).get(30, TimeUnit.SECONDS);
    }
    for (String user : List.of("admin", "alice")) {
      CliRunner.Result r = cli("user", "create", user, "--password", user + "-secret");
      assertEquals(0, r.exitCode(), r.toString());
    }
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  static CliRunner.Result cli(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("-b");
    all.add(cluster.bootstrapServers());
    return new CliRunner(Map.of(), dir).run("", all.toArray(new String[0]));
  }

  private static Properties client(String user) {
    Properties p = new Properties();
    int port = cluster.broker(cluster.brokers().get(0)).kafkaBoundPort();
    p.put("bootstrap.servers", "127.0.0.1:" + port);
    p.put("security.protocol", "SASL_PLAINTEXT");
    p.put("sasl.mechanism", "SCRAM-SHA-256");
    p.put(
        "sasl.jaas.config",
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
            + user
            + "\" password=\""
            + user
            + "-secret\";");
    p.put("default.api.timeout.ms", "20000");
    p.put("request.timeout.ms", "10000");
    return p;
  }

  private static AclBinding allow(ResourceType type, String name, PatternType p, AclOperation op) {
    return new AclBinding(
        new ResourcePattern(type, name, p),
        new AccessControlEntry("User:alice", "*", op, AclPermissionType.ALLOW));
  }

  private static Throwable cause(ExecutionException e) {
    return e.getCause();
  }

  @Test
  void kafkasAdminManagesAclsAndAliceGetsWhatTheyAllow() throws Exception {
    try (Admin admin = Admin.create(client("admin"));
        Admin alice = Admin.create(client("alice"))) {
      // Nothing is allowed yet: no ACL means deny.
      assertEquals(Set.of(), alice.listTopics().names().get(30, TimeUnit.SECONDS));
      ExecutionException refused =
          assertThrows(
              ExecutionException.class,
              () ->
                  alice
                      .createAcls(
                          List.of(
                              allow(
                                  ResourceType.TOPIC,
                                  "acl-orders",
                                  PatternType.LITERAL,
                                  AclOperation.ALL)))
                      .all()
                      .get(30, TimeUnit.SECONDS));
      assertInstanceOf(ClusterAuthorizationException.class, cause(refused));

      List<AclBinding> acls =
          List.of(
              allow(ResourceType.TOPIC, "acl-orders", PatternType.LITERAL, AclOperation.WRITE),
              allow(ResourceType.TOPIC, "acl-ord", PatternType.PREFIXED, AclOperation.READ),
              allow(ResourceType.GROUP, "alice-", PatternType.PREFIXED, AclOperation.READ));
      admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
      Collection<AclBinding> described =
          admin.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS);
      assertEquals(Set.copyOf(acls), Set.copyOf(described));

      // A bad ACL: an operation the resource type does not have.
      ExecutionException bad =
          assertThrows(
              ExecutionException.class,
              () ->
                  admin
                      .createAcls(
                          List.of(
                              allow(
                                  ResourceType.GROUP,
                                  "g",
                                  PatternType.LITERAL,
                                  AclOperation.WRITE)))
                      .all()
                      .get(30, TimeUnit.SECONDS));
      assertInstanceOf(InvalidRequestException.class, cause(bad));
      assertTrue(
          cause(bad).getMessage().contains("not valid for resource type GROUP"), bad.toString());

      // Metadata hides the topic alice may not describe.
      assertEquals(Set.of("acl-orders"), alice.listTopics().names().get(30, TimeUnit.SECONDS));
    }
    aliceProducesAndConsumesOnlyWhereAllowed();

    try (Admin admin = Admin.create(client("admin"))) {
      var deleted =
          admin
              .deleteAcls(
                  List.of(
                      new AclBindingFilter(
                          new ResourcePatternFilter(ResourceType.GROUP, null, PatternType.ANY),
                          AccessControlEntryFilter.ANY)))
              .all()
              .get(30, TimeUnit.SECONDS);
      assertEquals(1, deleted.size());
      assertEquals(
          2, admin.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS).size());
    }
  }

  private void aliceProducesAndConsumesOnlyWhereAllowed() throws Exception {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(client("alice"), new StringSerializer(), new StringSerializer())) {
      producer.send(new ProducerRecord<>("acl-orders", "k", "v1")).get(30, TimeUnit.SECONDS);
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () ->
                  producer
                      .send(new ProducerRecord<>("acl-secret", "k", "v"))
                      .get(30, TimeUnit.SECONDS));
      assertInstanceOf(TopicAuthorizationException.class, e.getCause());
    }
    Properties c = client("alice");
    c.put("group.id", "alice-readers");
    c.put("auto.offset.reset", "earliest");
    List<String> read = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of("acl-orders"));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (read.isEmpty() && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          read.add(r.value());
        }
      }
      consumer.commitSync();
    }
    assertEquals(List.of("v1"), read);
    Properties other = client("alice");
    other.put("group.id", "bobs-group");
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(other, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of("acl-orders"));
      assertThrows(
          GroupAuthorizationException.class,
          () -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline) {
              consumer.poll(Duration.ofMillis(200));
            }
          });
    }
  }

  @Test
  void theCliAddsListsAndRemovesAclsAndRefusesBadOnes() {
    CliRunner.Result added =
        cli(
            "acl",
            "add",
            "--allow-principal",
            "User:bob",
            "--operation",
            "Read",
            "--operation",
            "Write",
            "--topic",
            "cli-",
            "--resource-pattern-type",
            "prefixed",
            "--json");
    assertEquals(0, added.exitCode(), added.toString());
    assertEquals(2, added.outLines().size(), added.toString());
    assertTrue(added.out().contains("\"event\":\"added\""), added.out());
    assertTrue(added.out().contains("\"pattern_type\":\"PREFIXED\""), added.out());

    CliRunner.Result listed = cli("acl", "list", "--principal", "User:bob", "--json");
    assertEquals(0, listed.exitCode(), listed.toString());
    assertEquals(2, listed.outLines().size(), listed.toString());
    assertTrue(listed.out().contains("\"operation\":\"WRITE\""), listed.out());
    CliRunner.Result matching =
        cli("acl", "list", "--topic", "cli-orders", "--resource-pattern-type", "match", "--json");
    assertEquals(2, matching.outLines().size(), matching.toString());

    String[][] bad = {
      {"--allow-principal", "bob", "--operation", "Read", "--topic", "t"},
      {"--allow-principal", "User:bob", "--operation", "Write", "--group", "g"},
      {"--allow-principal", "User:bob", "--operation", "Fly", "--topic", "t"},
      {"--allow-principal", "User:bob", "--operation", "Read", "--topic", ""},
      {"--allow-principal", "User:bob", "--operation", "Read", "--topic", "t", "--host", "x.y"},
    };
    String[] reasons = {
      "principal 'bob' is not Type:name",
      "operation WRITE is not valid for resource type GROUP",
      "unknown operation 'Fly'",
      "resource name is empty",
      "host 'x.y' is not '*' or an IP address"
    };
    for (int i = 0; i < bad.length; i++) {
      List<String> args = new ArrayList<>(List.of("acl", "add"));
      args.addAll(List.of(bad[i]));
      CliRunner.Result r = cli(args.toArray(new String[0]));
      assertEquals(2, r.exitCode(), r.toString());
      assertTrue(r.err().contains("INVALID_ACL: " + reasons[i]), r.toString());
    }
    assertEquals(2, cli("acl", "list", "--principal", "User:bob", "--json").outLines().size());

    CliRunner.Result removed =
        cli(
            "acl",
            "remove",
            "--allow-principal",
            "User:bob",
            "--operation",
            "Read",
            "--topic",
            "cli-",
            "--resource-pattern-type",
            "prefixed",
            "--json");
    assertEquals(0, removed.exitCode(), removed.toString());
    assertTrue(removed.out().contains("\"event\":\"removed\""), removed.out());
    CliRunner.Result again =
        cli(
            "acl",
            "remove",
            "--allow-principal",
            "User:bob",
            "--operation",
            "Read",
            "--topic",
            "cli-",
            "--resource-pattern-type",
            "prefixed");
    assertEquals(1, again.exitCode(), again.toString());
    assertTrue(again.err().contains("no such ACL"), again.toString());
    assertEquals(1, cli("acl", "list", "--principal", "User:bob", "--json").outLines().size());
  }
}
