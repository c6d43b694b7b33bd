package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ClientQuotaEntity;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.ClientQuotaMessages;
import dev.spool.protocol.message.DescribeClientQuotasRequest;
import dev.spool.protocol.message.DescribeClientQuotasResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeClientQuotas (docs/security.md#quotas): DESCRIBE_CONFIGS on the cluster, as Kafka asks;
 * the quotas of this broker's image whose entity matches every component of the filter (Kafka's
 * rules: EXACT a name, DEFAULT the default, SPECIFIED any; strict leaves out entities with a part
 * the filter does not name). An unknown entity or match type is INVALID_REQUEST. Netty thread;
 * reads only the immutable image.
 */
public final class DescribeClientQuotasHandler
    extends MessageHandler<DescribeClientQuotasRequest, DescribeClientQuotasResponse> {
  static final String USER = "user";
  static final String CLIENT_ID = "client-id";

  private final BrokerContext ctx;

  public DescribeClientQuotasHandler(BrokerContext ctx) {
    super(DescribeClientQuotasRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<DescribeClientQuotasResponse> call(
      DescribeClientQuotasRequest req, Caller caller) {
    if (!Authz.cluster(ctx, caller, AclOperation.DESCRIBE_CONFIGS)) {
      return CompletableFuture.completedFuture(
          DescribeClientQuotasResponse.newBuilder()
              .setErrorCode(Authz.CLUSTER)
              .setErrorMessage(Authz.clusterRefusal(caller, AclOperation.DESCRIBE_CONFIGS))
              .build());
    }
    return call(req);
  }

  @Override
  public CompletableFuture<DescribeClientQuotasResponse> call(DescribeClientQuotasRequest req) {
    DescribeClientQuotasResponse.Builder b = DescribeClientQuotasResponse.newBuilder();
    String problem = problem(req);
    if (problem != null) {
      return CompletableFuture.completedFuture(
          b.setErrorCode(ErrorCode.INVALID_REQUEST).setErrorMessage(problem).build());
    }
    List<Map.Entry<ClientQuotaEntity, Map<String, Double>>> all =
        new ArrayList<>(ctx.image().clientQuotas().entrySet());
    all.sort(Map.Entry.comparingByKey(ClientQuotaEntity.ORDER));
    for (Map.Entry<ClientQuotaEntity, Map<String, Double>> e : all) {
      if (matches(req, e.getKey())) {
        b.addEntries(
            DescribeClientQuotasResponse.Entry.newBuilder()
                .setEntity(ClientQuotaMessages.toMessage(e.getKey()))
                .putAllValues(e.getValue()));
      }
    }
    return CompletableFuture.completedFuture(b.build());
  }

  private static String problem(DescribeClientQuotasRequest req) {
    for (DescribeClientQuotasRequest.Component c : req.getComponentsList()) {
      if (!c.getEntityType().equals(USER) && !c.getEntityType().equals(CLIENT_ID)) {
        return "unknown client quota entity type '"
            + c.getEntityType()
            + "'; Spool has "
            + USER
            + " and "
            + CLIENT_ID;
      }
      if (!List.of("EXACT", "DEFAULT", "SPECIFIED").contains(c.getMatchType())) {
        return "unknown match type '" + c.getMatchType() + "'; EXACT, DEFAULT or SPECIFIED";
      }
    }
    return null;
  }

  /** Kafka's filter: every component matches, and strict allows no other part. */
  static boolean matches(DescribeClientQuotasRequest req, ClientQuotaEntity e) {
    boolean userNamed = false;
    boolean clientNamed = false;
    for (DescribeClientQuotasRequest.Component c : req.getComponentsList()) {
      boolean user = c.getEntityType().equals(USER);
      String part = user ? e.user() : e.clientId();
      userNamed |= user;
      clientNamed |= !user;
      boolean ok =
          switch (c.getMatchType()) {
            case "EXACT" -> c.getMatch().equals(part);
            case "DEFAULT" -> ClientQuotaEntity.DEFAULT.equals(part);
            default -> part != null;
          };
      if (!ok) {
        return false;
      }
    }
    return !req.getStrict()
        || ((userNamed || e.user() == null) && (clientNamed || e.clientId() == null));
  }
}
