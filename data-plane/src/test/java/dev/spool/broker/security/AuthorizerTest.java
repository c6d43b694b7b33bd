package dev.spool.broker.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.common.AclBinding;
import dev.spool.common.AclBinding.PatternType;
import dev.spool.common.AclBinding.Permission;
import dev.spool.common.AclOperation;
import dev.spool.common.AclResourceType;
import dev.spool.config.ConfigException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The authorizer's rule (docs/security.md#acls): matching by resource pattern, principal and host,
 * deny wins, prefixes and the wildcard, super users, implied operations, and no ACL meaning deny
 * unless allow.everyone.if.no.acl.found.
 */
@Tag("unit")
class AuthorizerTest {
  private static final Caller ALICE = new Caller("User:alice", "10.0.0.7", "c1");
  private static final Caller BOB = new Caller("User:bob", "10.0.0.8", "c2");
  private final Map<String, AclBinding> acls = new HashMap<>();
  private int ids;

  private Authorizer authorizer(boolean allowEveryone, String... superUsers) {
    return new Authorizer(true, Set.of(superUsers), allowEveryone, () -> Map.copyOf(acls));
  }

  private void add(
      AclResourceType type,
      String name,
      PatternType pattern,
      String principal,
      String host,
      AclOperation op,
      Permission permission) {
    AclBinding b = new AclBinding(type, name, pattern, principal, host, op, permission);
    assertEquals(null, b.check());
    acls.put("id" + ids++, b);
  }

  private void allowTopic(String name, PatternType p, String principal, AclOperation op) {
    add(AclResourceType.TOPIC, name, p, principal, "*", op, Permission.ALLOW);
  }

  private static boolean topic(Authorizer a, Caller c, AclOperation op, String name) {
    return a.authorize(c, op, AclResourceType.TOPIC, name);
  }

  @Test
  void noAclMeansDenyUnlessAllowEveryoneAndNoAclNamesTheResource() {
    assertFalse(topic(authorizer(false), ALICE, AclOperation.READ, "orders"));
    assertTrue(topic(authorizer(true), ALICE, AclOperation.READ, "orders"));
    allowTopic("orders", PatternType.LITERAL, "User:bob", AclOperation.READ);
    assertFalse(
        topic(authorizer(true), ALICE, AclOperation.READ, "orders"),
        "an ACL names the topic: no allowance for everyone");
    assertTrue(topic(authorizer(true), ALICE, AclOperation.READ, "other"));
  }

  @Test
  void anAclMatchesItsPrincipalHostAndOperationOnly() {
    add(
        AclResourceType.TOPIC,
        "orders",
        PatternType.LITERAL,
        "User:alice",
        "10.0.0.7",
        AclOperation.WRITE,
        Permission.ALLOW);
    Authorizer a = authorizer(false);
    assertTrue(topic(a, ALICE, AclOperation.WRITE, "orders"));
    assertFalse(topic(a, BOB, AclOperation.WRITE, "orders"), "another principal");
    assertFalse(
        topic(a, new Caller("User:alice", "10.0.0.9", "c"), AclOperation.WRITE, "orders"),
        "another host");
    assertFalse(topic(a, ALICE, AclOperation.READ, "orders"), "another operation");
    assertFalse(topic(a, ALICE, AclOperation.WRITE, "orders2"), "a literal is not a prefix");
    assertFalse(
        a.authorize(ALICE, AclOperation.WRITE, AclResourceType.GROUP, "orders"),
        "another resource type");
  }

  @Test
  void denyWinsOverAllow() {
    allowTopic("*", PatternType.LITERAL, "User:*", AclOperation.ALL);
    add(
        AclResourceType.TOPIC,
        "secret",
        PatternType.PREFIXED,
        "User:alice",
        "*",
        AclOperation.READ,
        Permission.DENY);
    Authorizer a = authorizer(false);
    assertTrue(topic(a, ALICE, AclOperation.READ, "orders"));
    assertFalse(topic(a, ALICE, AclOperation.READ, "secret-plans"));
    assertTrue(topic(a, BOB, AclOperation.READ, "secret-plans"));
    assertTrue(
        topic(a, ALICE, AclOperation.DESCRIBE, "secret-plans"),
        "a DENY denies its own operation only, not what it would imply");
    add(
        AclResourceType.TOPIC,
        "*",
        PatternType.LITERAL,
        "User:*",
        "*",
        AclOperation.ALL,
        Permission.DENY);
    assertFalse(topic(authorizer(false), BOB, AclOperation.DESCRIBE, "orders"), "DENY ALL");
  }

  @Test
  void prefixedAndWildcardPatterns() {
    allowTopic("logs-", PatternType.PREFIXED, "User:alice", AclOperation.READ);
    allowTopic("*", PatternType.LITERAL, "User:bob", AclOperation.WRITE);
    Authorizer a = authorizer(false);
    assertTrue(topic(a, ALICE, AclOperation.READ, "logs-app"));
    assertTrue(topic(a, ALICE, AclOperation.READ, "logs-"));
    assertFalse(topic(a, ALICE, AclOperation.READ, "log"));
    assertTrue(topic(a, BOB, AclOperation.WRITE, "anything"));
    assertFalse(topic(a, ALICE, AclOperation.WRITE, "anything"), "the wildcard names bob only");
  }

  @Test
  void impliedOperations() {
    allowTopic("r", PatternType.LITERAL, "User:alice", AclOperation.READ);
    allowTopic("w", PatternType.LITERAL, "User:alice", AclOperation.WRITE);
    allowTopic("d", PatternType.LITERAL, "User:alice", AclOperation.DELETE);
    allowTopic("a", PatternType.LITERAL, "User:alice", AclOperation.ALTER);
    allowTopic("c", PatternType.LITERAL, "User:alice", AclOperation.ALTER_CONFIGS);
    allowTopic("x", PatternType.LITERAL, "User:alice", AclOperation.CREATE);
    Authorizer a = authorizer(false);
    for (String t : new String[] {"r", "w", "d", "a"}) {
      assertTrue(topic(a, ALICE, AclOperation.DESCRIBE, t), t + " implies DESCRIBE");
    }
    assertTrue(topic(a, ALICE, AclOperation.DESCRIBE_CONFIGS, "c"));
    assertFalse(topic(a, ALICE, AclOperation.DESCRIBE, "x"), "CREATE implies nothing");
    assertFalse(topic(a, ALICE, AclOperation.WRITE, "r"), "READ does not imply WRITE");
  }

  @Test
  void superUsersAreAllowedEverythingEvenAgainstADeny() {
    add(
        AclResourceType.CLUSTER,
        AclResourceType.CLUSTER_NAME,
        PatternType.LITERAL,
        "User:*",
        "*",
        AclOperation.ALL,
        Permission.DENY);
    Authorizer a = authorizer(false, "User:admin", "User:CN=broker1,O=spool");
    assertTrue(a.authorizeCluster(new Caller("User:admin", "", "c"), AclOperation.CLUSTER_ACTION));
    assertTrue(
        a.authorizeCluster(
            new Caller("User:CN=broker1,O=spool", "", "c"), AclOperation.CLUSTER_ACTION));
    assertFalse(a.authorizeCluster(ALICE, AclOperation.CLUSTER_ACTION));
  }

  @Test
  void theIndexFollowsTheAcls() {
    Authorizer a = authorizer(false);
    assertFalse(topic(a, ALICE, AclOperation.READ, "t"));
    allowTopic("t", PatternType.LITERAL, "User:alice", AclOperation.READ);
    assertTrue(topic(a, ALICE, AclOperation.READ, "t"));
    assertTrue(Authorizer.NONE.authorizeCluster(ALICE, AclOperation.ALTER), "no authorizer");
  }

  @Test
  void theConfigAcceptsKafkasAuthorizerOnlyAndCheckesSuperUsers() {
    Map<String, String> props = new HashMap<>();
    props.put("authorizer.class.name", "kafka.security.authorizer.AclAuthorizer");
    ConfigException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ConfigException.class, () -> AuthorizerConfig.DEF.parse(props));
    assertTrue(e.getMessage().contains("authorizer.class.name"), e.getMessage());
    props.put("authorizer.class.name", AuthorizerConfig.STANDARD_AUTHORIZER);
    props.put("super.users", "User:admin;bob");
    e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ConfigException.class, () -> AuthorizerConfig.DEF.parse(props));
    assertTrue(e.getMessage().contains("super.users"), e.getMessage());
    props.put("super.users", "User:admin; User:CN=b,O=x");
    assertEquals(
        Set.of("User:admin", "User:CN=b,O=x"),
        AuthorizerConfig.superUsers(
            AuthorizerConfig.DEF.parse(props).get(AuthorizerConfig.SUPER_USERS)));
  }
}
