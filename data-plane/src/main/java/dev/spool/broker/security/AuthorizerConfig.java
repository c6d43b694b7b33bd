package dev.spool.broker.security;

import dev.spool.common.AclBinding;
import dev.spool.config.Config;
import dev.spool.config.ConfigDef;
import dev.spool.config.ConfigKey;
import dev.spool.quorum.image.MetadataImage;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/** The authorizer's keys, Kafka's names (docs/security.md#acls). Threads: immutable. */
public final class AuthorizerConfig {
  private AuthorizerConfig() {}

  public static final ConfigDef DEF = new ConfigDef("node");

  /** Kafka's KRaft authorizer class: naming it turns Spool's built-in authorizer on. */
  public static final String STANDARD_AUTHORIZER =
      "org.apache.kafka.metadata.authorizer.StandardAuthorizer";

  public static final ConfigKey<String> AUTHORIZER_CLASS_NAME =
      DEF.stringKey(
          "authorizer.class.name",
          "",
          v ->
              v.isEmpty() || v.equals(STANDARD_AUTHORIZER)
                  ? null
                  : "Spool's only authorizer is "
                      + STANDARD_AUTHORIZER
                      + " (its built-in one, with Kafka's ACL model); empty for none",
          "Empty: no authorization (every client may do everything). "
              + STANDARD_AUTHORIZER
              + ": every request is checked against the ACLs in the metadata quorum ('spool"
              + " acl'); no ACL means deny.");

  public static final ConfigKey<String> SUPER_USERS =
      DEF.stringKey(
          "super.users",
          "",
          AuthorizerConfig::checkSuperUsers,
          "Principals allowed everything whatever the ACLs say, separated by ';' (User:admin;"
              + "User:CN=broker1,O=example); brokers need to be super users or hold CLUSTER_ACTION"
              + " to replicate.");

  public static final ConfigKey<Boolean> ALLOW_EVERYONE_IF_NO_ACL_FOUND =
      DEF.boolKey(
          "allow.everyone.if.no.acl.found",
          false,
          "With an authorizer: allow a request on a resource that no ACL names at all.");

  /** The super users of {@code value}: {@code ;}-separated principals, blanks dropped. */
  public static Set<String> superUsers(String value) {
    Set<String> out = new LinkedHashSet<>();
    Arrays.stream(value.split(";")).map(String::trim).filter(s -> !s.isEmpty()).forEach(out::add);
    return out;
  }

  private static String checkSuperUsers(String value) {
    for (String p : superUsers(value)) {
      String problem = AclBinding.checkPrincipal(p);
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  /** The authorizer {@code config} asks for, over the ACLs of {@code image}. */
  public static Authorizer authorizer(Config config, Supplier<MetadataImage> image) {
    if (config.get(AUTHORIZER_CLASS_NAME).isEmpty()) {
      return Authorizer.NONE;
    }
    Supplier<Map<String, AclBinding>> acls = () -> image.get().acls();
    return new Authorizer(
        true,
        superUsers(config.get(SUPER_USERS)),
        config.get(ALLOW_EVERYONE_IF_NO_ACL_FOUND),
        acls);
  }
}
