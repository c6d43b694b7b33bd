package dev.spool.protocol;

import dev.spool.common.AclBinding;
import dev.spool.common.AclOperation;
import dev.spool.common.AclResourceType;
import dev.spool.protocol.message.Acl;
import dev.spool.protocol.message.AclFilter;
import java.util.Locale;

/**
 * ACLs between their wire form ({@link Acl}, {@link AclFilter}: enums by Kafka's names) and {@link
 * AclBinding}, with the reason when a message names no acceptable ACL or filter
 * (docs/security.md#acls). Threads: stateless.
 */
public final class AclMessages {
  private AclMessages() {}

  /** An ACL read from a message: the binding, or why there is none. */
  public record Parsed(AclBinding binding, String problem) {}

  public static Parsed parse(Acl m) {
    var type = AclResourceType.forName(m.getResourceType());
    if (type.isEmpty()) {
      return refused("unknown resource type '" + m.getResourceType() + "'");
    }
    var pattern = AclBinding.PatternType.forName(m.getPatternType());
    if (pattern.isEmpty()) {
      return refused(
          "unknown pattern type '" + m.getPatternType() + "' (LITERAL, PREFIXED) for an ACL");
    }
    var op = AclOperation.forName(m.getOperation());
    if (op.isEmpty()) {
      return refused("unknown operation '" + m.getOperation() + "'");
    }
    var permission = AclBinding.Permission.forName(m.getPermission());
    if (permission.isEmpty()) {
      return refused("unknown permission '" + m.getPermission() + "' (ALLOW, DENY)");
    }
    AclBinding b =
        new AclBinding(
            type.get(),
            m.getResourceName(),
            pattern.get(),
            m.getPrincipal(),
            m.getHost(),
            op.get(),
            permission.get());
    String problem = b.check();
    return problem == null ? new Parsed(b, null) : refused(problem);
  }

  private static Parsed refused(String problem) {
    return new Parsed(null, problem);
  }

  public static Acl toMessage(String id, AclBinding b) {
    return Acl.newBuilder()
        .setId(id)
        .setResourceType(b.resourceType().name())
        .setResourceName(b.resourceName())
        .setPatternType(b.patternType().name())
        .setPrincipal(b.principal())
        .setHost(b.host())
        .setOperation(b.operation().name())
        .setPermission(b.permission().name())
        .build();
  }

  /**
   * A filter: each null field matches anything; {@code match} (pattern type MATCH) selects the ACLs
   * that apply to the named resource.
   */
  public record Filter(
      AclResourceType resourceType,
      String resourceName,
      AclBinding.PatternType patternType,
      boolean match,
      String principal,
      String host,
      AclOperation operation,
      AclBinding.Permission permission) {

    public boolean matches(AclBinding b) {
      if (resourceType != null && b.resourceType() != resourceType) {
        return false;
      }
      if (match) {
        if (resourceName != null && !b.matchesResource(b.resourceType(), resourceName)) {
          return false;
        }
      } else {
        if (resourceName != null && !b.resourceName().equals(resourceName)) {
          return false;
        }
        if (patternType != null && b.patternType() != patternType) {
          return false;
        }
      }
      return (principal == null || b.principal().equals(principal))
          && (host == null || b.host().equals(host))
          && (operation == null || b.operation() == operation)
          && (permission == null || b.permission() == permission);
    }
  }

  /** A filter read from a message: the filter, or why there is none. */
  public record ParsedFilter(Filter filter, String problem) {}

  public static ParsedFilter parse(AclFilter m) {
    AclResourceType type = null;
    if (!any(m.getResourceType())) {
      var t = AclResourceType.forName(m.getResourceType());
      if (t.isEmpty()) {
        return new ParsedFilter(null, "unknown resource type '" + m.getResourceType() + "'");
      }
      type = t.get();
    }
    AclBinding.PatternType pattern = null;
    boolean match = false;
    if (m.getPatternType().trim().equalsIgnoreCase("MATCH")) {
      match = true;
    } else if (!any(m.getPatternType())) {
      var p = AclBinding.PatternType.forName(m.getPatternType());
      if (p.isEmpty()) {
        return new ParsedFilter(
            null,
            "unknown pattern type '" + m.getPatternType() + "' (ANY, MATCH, LITERAL, PREFIXED)");
      }
      pattern = p.get();
    }
    AclOperation op = null;
    if (!any(m.getOperation())) {
      var o = AclOperation.forName(m.getOperation());
      if (o.isEmpty()) {
        return new ParsedFilter(null, "unknown operation '" + m.getOperation() + "'");
      }
      op = o.get();
    }
    AclBinding.Permission permission = null;
    if (!any(m.getPermission())) {
      var p = AclBinding.Permission.forName(m.getPermission());
      if (p.isEmpty()) {
        return new ParsedFilter(
            null, "unknown permission '" + m.getPermission() + "' (ANY, ALLOW, DENY)");
      }
      permission = p.get();
    }
    String principal = m.getPrincipal().isEmpty() ? null : m.getPrincipal();
    if (principal != null && AclBinding.checkPrincipal(principal) != null) {
      return new ParsedFilter(null, AclBinding.checkPrincipal(principal));
    }
    return new ParsedFilter(
        new Filter(
            type,
            m.getResourceName().isEmpty() ? null : m.getResourceName(),
            pattern,
            match,
            principal,
            m.getHost().isEmpty() ? null : m.getHost(),
            op,
            permission),
        null);
  }

  private static boolean any(String s) {
    return s.isEmpty() || s.trim().toUpperCase(Locale.ROOT).equals("ANY");
  }
}
