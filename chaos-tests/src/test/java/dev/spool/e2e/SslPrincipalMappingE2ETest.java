package dev.spool.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.spool.client.NewTopic;
import dev.spool.testing.TestCertificates;
import dev.spool.testing.inprocess.InProcessCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ssl.principal.mapping.rules} end to end (docs/security.md#principals-from-certificates): a
 * node whose Kafka listener requires client certificates names its clients by rules, and the
 * authorizer sees the mapped names. {@code CN=Alice.users} is {@code User:alice}, a super user;
 * {@code CN=svc-billing} is {@code User:service-billing}, who sees a topic only once an ACL for
 * that name allows it; {@code CN=mallory}, whom no rule names, is refused at its first request.
 */
@Tag("integration")
@Timeout(180)
class SslPrincipalMappingE2ETest {
  @TempDir static Path dir;
  private static TestCertificates certs;
  private static InProcessCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    certs = TestCertificates.create(Files.createDirectories(dir.resolve("keys")));
    InProcessCluster.Builder b =
        InProcessCluster.builder()
            .nodes(1)
            .dir(dir.resolve("cluster"))
            .config("kafka.listener", "127.0.0.1:0");
    certs.nodeConfig("required", "KAFKA").forEach(b::config);
    b.config(
            "ssl.principal.mapping.rules",
            "RULE:^CN=([A-Za-z]+)\\.users$/$1/L, RULE:^CN=svc-(.*)$/service-$1/")
        .config("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
        // The harness talks to the plaintext Spool listener, as ANONYMOUS.
        .config("super.users", "User:alice;User:ANONYMOUS");
    cluster = b.start();
    cluster.admin().createTopic(new NewTopic("mapped", 1, 1, Map.of())).get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static Properties client(String name, String cn) throws Exception {
    Properties p = new Properties();
    certs.clientConfig(certs.truststore(), false).forEach(p::put);
    p.put("ssl.keystore.location", certs.keystore(name, cn, true).toString());
    p.put("ssl.keystore.password", TestCertificates.PASSWORD);
    p.put("ssl.keystore.type", "PKCS12");
    p.put(
        "bootstrap.servers",
        "127.0.0.1:" + cluster.broker(cluster.brokers().get(0)).kafkaBoundPort());
    p.put("default.api.timeout.ms", "15000");
    p.put("request.timeout.ms", "5000");
    return p;
  }

  @Test
  void theAuthorizerSeesTheNamesTheRulesMake() throws Exception {
    try (Admin alice = Admin.create(client("alice", "Alice.users"));
        Admin billing = Admin.create(client("billing", "svc-billing"))) {
      // User:alice is a super user only if the first rule named her (lower case).
      assertEquals(Set.of("mapped"), alice.listTopics().names().get(30, TimeUnit.SECONDS));
      assertEquals(Set.of(), billing.listTopics().names().get(30, TimeUnit.SECONDS));
      alice
          .createAcls(
              List.of(
                  new AclBinding(
                      new ResourcePattern(ResourceType.TOPIC, "mapped", PatternType.LITERAL),
                      new AccessControlEntry(
                          "User:service-billing",
                          "*",
                          AclOperation.DESCRIBE,
                          AclPermissionType.ALLOW))))
          .all()
          .get(30, TimeUnit.SECONDS);
      // The ACL names the mapped principal; the client's subject is CN=svc-billing.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> billing.listTopics().names().get(30, TimeUnit.SECONDS).contains("mapped"));
    }
  }

  @Test
  void aClientNoRuleNamesIsRefused() throws Exception {
    Properties p = client("mallory", "mallory");
    p.put("default.api.timeout.ms", "4000");
    p.put("request.timeout.ms", "2000");
    try (Admin mallory = Admin.create(p)) {
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () -> mallory.listTopics().names().get(30, TimeUnit.SECONDS));
      assertEquals(
          TimeoutException.class,
          e.getCause().getClass(),
          "every connection is closed at its first request, so no call gets an answer: " + e);
    }
    try (Admin alice = Admin.create(client("alice2", "Alice.users"))) {
      assertEquals(Set.of("mapped"), alice.listTopics().names().get(30, TimeUnit.SECONDS));
    }
  }
}
