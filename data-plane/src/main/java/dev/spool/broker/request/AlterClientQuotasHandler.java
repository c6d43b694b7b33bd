package dev.spool.broker.request;

import dev.spool.broker.security.Caller;
import dev.spool.broker.security.LogSafe;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.ClientQuotaMessages;
import dev.spool.protocol.message.AlterClientQuotasRequest;
import dev.spool.protocol.message.AlterClientQuotasResponse;
import dev.spool.quorum.image.MetadataImage;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * AlterClientQuotas (docs/security.md#quotas): ALTER_CONFIGS on the cluster, as Kafka asks, then
 * forwarded to the quorum, whose controller checks each entry and stores it. The answer waits,
 * bounded by the request's timeout, until this broker's image shows every entry it stored. Each
 * entry asked for is one INFO line (the audit trail): who asked, the change and the outcome. Netty
 * thread.
 */
public final class AlterClientQuotasHandler
    extends MessageHandler<AlterClientQuotasRequest, AlterClientQuotasResponse> {
  private static final Logger log = LoggerFactory.getLogger(AlterClientQuotasHandler.class);
  private final BrokerContext ctx;

  public AlterClientQuotasHandler(BrokerContext ctx) {
    super(AlterClientQuotasRequest.parser());
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<AlterClientQuotasResponse> call(
      AlterClientQuotasRequest req, Caller caller) {
    CompletableFuture<AlterClientQuotasResponse> answer =
        Authz.cluster(ctx, caller, AclOperation.ALTER_CONFIGS)
            ? call(req)
            : CompletableFuture.completedFuture(
                failAll(
                    req, Authz.CLUSTER, Authz.clusterRefusal(caller, AclOperation.ALTER_CONFIGS)));
    return answer.whenComplete(
        (resp, err) -> {
          for (int i = 0; i < req.getEntriesCount(); i++) {
            String outcome =
                err != null
                    ? "failed: " + err
                    : resp.getResults(i).getErrorCode() == ErrorCode.NONE
                        ? (req.getValidateOnly() ? "valid" : "done")
                        : "refused " + resp.getResults(i).getErrorCode();
            log.info(
                "client quota change {} asked by {} on connection {}: {}",
                describe(req.getEntries(i)),
                caller.principal(),
                caller.connection(),
                outcome);
          }
        });
  }

  @Override
  public CompletableFuture<AlterClientQuotasResponse> call(AlterClientQuotasRequest req) {
    return AdminForwarding.forward(
        ctx,
        ctx.quorum().alterClientQuotas(req),
        f -> failAll(req, f.code(), f.message()),
        req.getValidateOnly(),
        resp ->
            img -> {
              for (int i = 0; i < resp.getResultsCount(); i++) {
                if (resp.getResults(i).getErrorCode() == ErrorCode.NONE
                    && !applied(img, req.getEntries(i))) {
                  return false;
                }
              }
              return true;
            },
        ctx.adminTimeout(req.getTimeoutMs()));
  }

  /** An entry for a log line: the entity and each change, client-chosen parts made safe. */
  static String describe(AlterClientQuotasRequest.Entry e) {
    StringBuilder s =
        new StringBuilder(LogSafe.quote(ClientQuotaMessages.entity(e.getEntity()).toString()));
    for (AlterClientQuotasRequest.Op op : e.getOpsList()) {
      s.append(' ')
          .append(LogSafe.quote(op.getKey()))
          .append(op.getRemove() ? " removed" : "=" + op.getValue());
    }
    return s.toString();
  }

  private static AlterClientQuotasResponse failAll(
      AlterClientQuotasRequest req, ErrorCode code, String message) {
    AlterClientQuotasResponse.Builder b = AlterClientQuotasResponse.newBuilder();
    req.getEntriesList()
        .forEach(
            e ->
                b.addResults(
                    AlterClientQuotasResponse.Result.newBuilder()
                        .setEntity(e.getEntity())
                        .setErrorCode(code)
                        .setErrorMessage(message)));
    return b.build();
  }

  /** Whether {@code img} shows the entry's changes. */
  private static boolean applied(MetadataImage img, AlterClientQuotasRequest.Entry e) {
    Map<String, Double> values =
        img.clientQuotas().getOrDefault(ClientQuotaMessages.entity(e.getEntity()), Map.of());
    for (AlterClientQuotasRequest.Op op : e.getOpsList()) {
      Double v = values.get(op.getKey());
      if (op.getRemove() ? v != null : v == null || v != op.getValue()) {
        return false;
      }
    }
    return true;
  }
}
