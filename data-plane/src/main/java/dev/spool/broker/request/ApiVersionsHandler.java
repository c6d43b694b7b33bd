package dev.spool.broker.request;

import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.RequestContext;
import dev.spool.broker.network.RequestHandler;
import dev.spool.common.SpoolVersion;
import dev.spool.protocol.ApiVersionTable;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsRequest;
import dev.spool.protocol.message.ApiVersionsResponse;
import java.util.concurrent.CompletableFuture;

/**
 * ApiVersions: the versions of every API this broker speaks, but SaslHandshake and
 * SaslAuthenticate, which a SASL listener adds to this answer (they mean nothing elsewhere). Netty
 * thread, no state.
 */
public final class ApiVersionsHandler implements RequestHandler {
  private static final ApiVersionsResponse ANSWER = answer();

  @Override
  public CompletableFuture<BrokerResponse> handle(RequestContext request) {
    request.frame().parseBody(ApiVersionsRequest.parser());
    return CompletableFuture.completedFuture(BrokerResponse.of(ANSWER));
  }

  private static ApiVersionsResponse answer() {
    ApiVersionsResponse all =
        ApiVersionTable.CURRENT
            .toResponse()
            .setServerSoftwareVersion(SpoolVersion.describe())
            .build();
    ApiVersionsResponse.Builder b = all.toBuilder().clearApiVersions();
    for (ApiVersionsResponse.ApiVersionRange r : all.getApiVersionsList()) {
      if (r.getApiKey() != ApiKey.SASL_HANDSHAKE && r.getApiKey() != ApiKey.SASL_AUTHENTICATE) {
        b.addApiVersions(r);
      }
    }
    return b.build();
  }
}
