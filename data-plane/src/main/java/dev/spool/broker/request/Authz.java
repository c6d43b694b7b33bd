package dev.spool.broker.request;

import dev.spool.broker.security.Authorizer;
import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.AclResourceType;
import dev.spool.common.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The authorization checks the handlers share (docs/security.md#acls): each asks the broker's
 * authorizer and words the refusal with Kafka's error codes. Threads: stateless.
 */
final class Authz {
  private Authz() {}

  static boolean topic(BrokerContext ctx, Caller c, AclOperation op, String topic) {
    return ctx.authorizer().authorize(c, op, AclResourceType.TOPIC, topic);
  }

  static boolean cluster(BrokerContext ctx, Caller c, AclOperation op) {
    return ctx.authorizer().authorizeCluster(c, op);
  }

  /** CREATE on the cluster, or on the topic (Kafka's rule for CreateTopics). */
  static boolean create(BrokerContext ctx, Caller c, String topic) {
    return ctx.authorizer().enabled()
        ? cluster(ctx, c, AclOperation.CREATE) || topic(ctx, c, AclOperation.CREATE, topic)
        : true;
  }

  /**
   * DESCRIBE on the topic, or CLUSTER_ACTION on the cluster: Kafka serves a replica's
   * OffsetForLeaderEpoch on CLUSTER_ACTION, and Spool's request names no replica id, so a broker
   * principal holding only CLUSTER_ACTION (what docs/security.md#acls tells operators to grant
   * brokers) passes too. The cluster check is not audited: for a consumer its denial is the normal
   * case, and the topic check that follows audits the outcome.
   */
  static boolean describeOrReplica(BrokerContext ctx, Caller c, String topic) {
    Authorizer a = ctx.authorizer();
    if (!a.enabled()) {
      return true;
    }
    return a.decide(
                c.principal(),
                c.host(),
                AclOperation.CLUSTER_ACTION,
                AclResourceType.CLUSTER,
                AclResourceType.CLUSTER_NAME)
            .allowed()
        || topic(ctx, c, AclOperation.DESCRIBE, topic);
  }

  /** A request's items split into those the caller may use and those it may not. */
  record Split<T>(List<T> allowed, List<T> refused) {}

  static <T> Split<T> split(List<T> items, Function<T, String> name, Predicate<String> allowed) {
    List<T> yes = new ArrayList<>();
    List<T> no = new ArrayList<>();
    for (T item : items) {
      (allowed.test(name.apply(item)) ? yes : no).add(item);
    }
    return new Split<>(yes, no);
  }

  static final ErrorCode TOPIC = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
  static final ErrorCode CLUSTER = ErrorCode.CLUSTER_AUTHORIZATION_FAILED;

  static String topicRefusal(Caller c, AclOperation op, String topic) {
    return c.principal() + " is not authorized to " + op + " topic '" + topic + "'";
  }

  static String clusterRefusal(Caller c, AclOperation op) {
    return c.principal() + " is not authorized to " + op + " the cluster";
  }
}
