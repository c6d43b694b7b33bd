package dev.spool.common;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One ACL, Kafka's model (docs/security.md#acls): a resource pattern (type, name, LITERAL or
 * PREFIXED; a LITERAL {@code *} matches every name of the type), a principal ({@code User:alice},
 * {@code User:*} for everyone), a host ({@code *} or an IP address), an operation and ALLOW or
 * DENY. {@link #check} says why a binding is not acceptable; the controller, the applier and the
 * CLI all ask it, so a bad ACL is refused with the same words everywhere. Threads: immutable.
 */
public record AclBinding(
    AclResourceType resourceType,
    String resourceName,
    PatternType patternType,
    String principal,
    String host,
    AclOperation operation,
    Permission permission) {

  /** The longest resource name, principal or host an ACL may name. */
  public static final int MAX_NAME_CHARS = 1024;

  public static final String WILDCARD = "*";

  /** The principal of a connection that did not authenticate. */
  public static final String ANONYMOUS = "User:ANONYMOUS";

  private static final Pattern IPV4 =
      Pattern.compile("(25[0-5]|2[0-4]\\d|1?\\d?\\d)(\\.(25[0-5]|2[0-4]\\d|1?\\d?\\d)){3}");
  private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]*:[0-9a-fA-F:.]*");

  /** How an ACL's resource name matches, Kafka's {@code PatternType} with its codes. */
  public enum PatternType {
    LITERAL(3),
    PREFIXED(4);

    private final int kafkaCode;

    PatternType(int kafkaCode) {
      this.kafkaCode = kafkaCode;
    }

    public int kafkaCode() {
      return kafkaCode;
    }

    public static Optional<PatternType> forKafkaCode(int code) {
      for (PatternType p : values()) {
        if (p.kafkaCode == code) {
          return Optional.of(p);
        }
      }
      return Optional.empty();
    }

    public static Optional<PatternType> forName(String name) {
      for (PatternType p : values()) {
        if (p.name().equalsIgnoreCase(name.trim())) {
          return Optional.of(p);
        }
      }
      return Optional.empty();
    }
  }

  /** ALLOW or DENY, Kafka's {@code AclPermissionType} with its codes. */
  public enum Permission {
    DENY(2),
    ALLOW(3);

    private final int kafkaCode;

    Permission(int kafkaCode) {
      this.kafkaCode = kafkaCode;
    }

    public int kafkaCode() {
      return kafkaCode;
    }

    public static Optional<Permission> forKafkaCode(int code) {
      for (Permission p : values()) {
        if (p.kafkaCode == code) {
          return Optional.of(p);
        }
      }
      return Optional.empty();
    }

    public static Optional<Permission> forName(String name) {
      for (Permission p : values()) {
        if (p.name().equals(name.trim().toUpperCase(Locale.ROOT))) {
          return Optional.of(p);
        }
      }
      return Optional.empty();
    }
  }

  /**
   * Null when this binding is acceptable, else why not: a resource name, principal and host each 1
   * to {@link #MAX_NAME_CHARS} characters without control characters; a principal {@code Type:name}
   * with both parts non-empty; a host {@code *} or an IP address literal; an operation the resource
   * type has; a CLUSTER resource named {@code kafka-cluster}, LITERAL.
   */
  public String check() {
    if (resourceType == null || patternType == null || operation == null || permission == null) {
      return "resource type, pattern type, operation and permission must all be set";
    }
    String problem = checkText("resource name", resourceName);
    if (problem == null) {
      problem = checkPrincipal(principal);
    }
    if (problem == null) {
      problem = checkHost(host);
    }
    if (problem != null) {
      return problem;
    }
    if (!resourceType.supports(operation)) {
      return "operation "
          + operation
          + " is not valid for resource type "
          + resourceType
          + " (valid: "
          + resourceType.operations()
          + ")";
    }
    if (resourceType == AclResourceType.CLUSTER
        && (!resourceName.equals(AclResourceType.CLUSTER_NAME)
            || patternType != PatternType.LITERAL)) {
      return "a CLUSTER resource is the LITERAL name '" + AclResourceType.CLUSTER_NAME + "'";
    }
    return null;
  }

  /** Null when {@code principal} is {@code Type:name} with both parts non-empty, else why not. */
  public static String checkPrincipal(String principal) {
    String problem = checkText("principal", principal);
    if (problem != null) {
      return problem;
    }
    int colon = principal.indexOf(':');
    if (colon <= 0 || colon == principal.length() - 1) {
      return "principal '" + principal + "' is not Type:name (e.g. User:alice, User:*)";
    }
    return null;
  }

  /** Null when {@code host} is {@code *} or an IP address literal, else why not. */
  public static String checkHost(String host) {
    String problem = checkText("host", host);
    if (problem != null) {
      return problem;
    }
    if (!host.equals(WILDCARD) && !IPV4.matcher(host).matches() && !IPV6.matcher(host).matches()) {
      return "host '" + host + "' is not '*' or an IP address";
    }
    return null;
  }

  private static String checkText(String what, String s) {
    if (s == null || s.isEmpty()) {
      return what + " is empty";
    }
    if (s.length() > MAX_NAME_CHARS) {
      return what + " is longer than " + MAX_NAME_CHARS + " characters";
    }
    if (s.chars().anyMatch(Character::isISOControl)) {
      return what + " has control characters";
    }
    return null;
  }

  /** Whether this ACL's resource pattern covers the resource {@code type}/{@code name}. */
  public boolean matchesResource(AclResourceType type, String name) {
    if (type != resourceType) {
      return false;
    }
    return switch (patternType) {
      case LITERAL -> resourceName.equals(WILDCARD) || resourceName.equals(name);
      case PREFIXED -> name.startsWith(resourceName);
    };
  }

  @Override
  public String toString() {
    return permission
        + " "
        + principal
        + " from "
        + host
        + " "
        + operation
        + " on "
        + resourceType
        + ":"
        + patternType
        + ":"
        + resourceName;
  }
}
