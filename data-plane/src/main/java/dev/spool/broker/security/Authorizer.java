package dev.spool.broker.security;

import dev.spool.broker.network.RateLimitedLog;
import dev.spool.common.AclBinding;
import dev.spool.common.AclOperation;
import dev.spool.common.AclResourceType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spool's built-in authorizer, Kafka's StandardAuthorizer model (docs/security.md#acls): a request
 * is allowed when its principal is a super user, or when an ALLOW ACL matches and no DENY ACL does
 * (deny wins); with no matching ACL it is denied, unless {@code allow.everyone.if.no.acl.found} and
 * no ACL at all covers the resource. An ACL matches when its resource pattern covers the resource
 * (LITERAL equal or {@code *}, PREFIXED a prefix), its principal is the caller's or {@code User:*},
 * its host the caller's or {@code *}, and its operation the one asked (ALLOW ACLs also by
 * implication: {@link AclOperation#allows}). The ACLs are the metadata image's; the index over them
 * is rebuilt when the image's ACL map changes.
 *
 * <p>Every decision is audited on the logger {@code dev.spool.audit.authorizer}: a denial at INFO
 * (rate-limited like the listeners' refusals), an allowance at DEBUG.
 *
 * <p>Threads: any; the index is an immutable snapshot behind a volatile field.
 */
public final class Authorizer {
  /** The audit logger's name. */
  public static final String AUDIT_LOGGER = "dev.spool.audit.authorizer";

  private static final Logger audit = LoggerFactory.getLogger(AUDIT_LOGGER);
  private static final RateLimitedLog denials = new RateLimitedLog(audit);

  /** No authorization: every request is allowed (the default, as Kafka without an authorizer). */
  public static final Authorizer NONE = new Authorizer(false, Set.of(), false, Map::of);

  /** The outcome of one check, with why. */
  public enum Decision {
    ALLOWED_SUPER_USER(true),
    ALLOWED_BY_ACL(true),
    ALLOWED_NO_ACL_FOUND(true),
    DENIED_BY_ACL(false),
    /** No ALLOW ACL matches (and ACLs exist for the resource, or no-ACL allowance is off). */
    DENIED_NO_ACL_FOUND(false);

    private final boolean allowed;

    Decision(boolean allowed) {
      this.allowed = allowed;
    }

    public boolean allowed() {
      return allowed;
    }
  }

  private record Index(
      Map<String, AclBinding> source, Map<AclResourceType, List<AclBinding>> acls) {
    static Index of(Map<String, AclBinding> source) {
      Map<AclResourceType, List<AclBinding>> byType = new EnumMap<>(AclResourceType.class);
      for (AclResourceType t : AclResourceType.values()) {
        byType.put(t, new ArrayList<>());
      }
      source.values().forEach(a -> byType.get(a.resourceType()).add(a));
      return new Index(source, byType);
    }
  }

  private final boolean enabled;
  private final Set<String> superUsers;
  private final boolean allowEveryoneIfNoAcl;
  private final Supplier<Map<String, AclBinding>> acls;
  private volatile Index index;

  /**
   * @param acls the current ACLs by id (the broker's metadata image's)
   */
  public Authorizer(
      boolean enabled,
      Set<String> superUsers,
      boolean allowEveryoneIfNoAcl,
      Supplier<Map<String, AclBinding>> acls) {
    this.enabled = enabled;
    this.superUsers = Set.copyOf(superUsers);
    this.allowEveryoneIfNoAcl = allowEveryoneIfNoAcl;
    this.acls = acls;
    this.index = Index.of(Map.of());
  }

  /** False when no authorizer is configured: every check allows. */
  public boolean enabled() {
    return enabled;
  }

  /** Whether {@code caller} may do {@code op} on the resource; audited. */
  public boolean authorize(Caller caller, AclOperation op, AclResourceType type, String name) {
    if (!enabled) {
      return true;
    }
    Decision d = decide(caller.principal(), caller.host(), op, type, name);
    if (d.allowed()) {
      if (audit.isDebugEnabled()) {
        audit.debug(
            "{} {} {} on {}:{} ({}), connection {}",
            d,
            caller,
            op,
            type,
            LogSafe.quote(name),
            d,
            caller.connection());
      }
    } else {
      denials.info(
          "DENIED {} {} on {}:{} ({}), connection {}",
          caller,
          op,
          type,
          LogSafe.quote(name),
          d,
          caller.connection());
    }
    return d.allowed();
  }

  /** {@link #authorize} on the cluster resource. */
  public boolean authorizeCluster(Caller caller, AclOperation op) {
    return authorize(caller, op, AclResourceType.CLUSTER, AclResourceType.CLUSTER_NAME);
  }

  /**
   * Whether {@code caller} may write to some topic: an ALLOW ACL for WRITE (or ALL) on any topic
   * pattern names its principal and host (Kafka's rule since KIP-679: an idempotent producer needs
   * IDEMPOTENT_WRITE on the cluster or WRITE on any topic). Not audited: the caller's
   * InitProducerId check audits the outcome.
   */
  public boolean mayWriteSomeTopic(Caller caller) {
    if (!enabled || superUsers.contains(caller.principal())) {
      return true;
    }
    return index().acls().get(AclResourceType.TOPIC).stream()
        .anyMatch(
            a ->
                a.permission() == AclBinding.Permission.ALLOW
                    && a.operation().allows(AclOperation.WRITE)
                    && principalMatches(a, caller.principal())
                    && hostMatches(a, caller.host()));
  }

  /** The decision for one check, without audit. */
  public Decision decide(
      String principal, String host, AclOperation op, AclResourceType type, String name) {
    if (superUsers.contains(principal)) {
      return Decision.ALLOWED_SUPER_USER;
    }
    return decide(index().acls().get(type), principal, host, op, type, name, allowEveryoneIfNoAcl);
  }

  /** The pure rule over {@code acls} (all of resource type {@code type}); super users aside. */
  static Decision decide(
      Collection<AclBinding> acls,
      String principal,
      String host,
      AclOperation op,
      AclResourceType type,
      String name,
      boolean allowEveryoneIfNoAcl) {
    boolean anyForResource = false;
    boolean allowed = false;
    for (AclBinding a : acls) {
      if (!a.matchesResource(type, name)) {
        continue;
      }
      anyForResource = true;
      if (!principalMatches(a, principal) || !hostMatches(a, host)) {
        continue;
      }
      if (a.permission() == AclBinding.Permission.DENY) {
        if (a.operation() == AclOperation.ALL || a.operation() == op) {
          return Decision.DENIED_BY_ACL;
        }
      } else if (a.operation().allows(op)) {
        allowed = true;
      }
    }
    if (allowed) {
      return Decision.ALLOWED_BY_ACL;
    }
    if (!anyForResource && allowEveryoneIfNoAcl) {
      return Decision.ALLOWED_NO_ACL_FOUND;
    }
    return Decision.DENIED_NO_ACL_FOUND;
  }

  private static boolean principalMatches(AclBinding a, String principal) {
    return a.principal().equals(principal) || a.principal().equals("User:*");
  }

  private static boolean hostMatches(AclBinding a, String host) {
    return a.host().equals(AclBinding.WILDCARD) || a.host().equals(host);
  }

  private Index index() {
    Map<String, AclBinding> current = acls.get();
    Index i = index;
    if (i.source() != current) {
      i = Index.of(current);
      index = i;
    }
    return i;
  }
}
