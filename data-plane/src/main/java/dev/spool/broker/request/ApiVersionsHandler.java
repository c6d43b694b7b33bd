package dev.spool.broker.request;

import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.RequestContext;
import dev.spool.broker.network.RequestHandler;
import dev.spool.common.SpoolVersion;
import dev.spool.protocol.ApiVersionTable;
import dev.spool.protocol.message.ApiVersionsRequest;
import java.util.concurrent.CompletableFuture;

/** ApiVersions: the versions of every API this broker speaks. Netty thread, no state. */
public final class ApiVersionsHandler implements RequestHandler {
  @Override
  public CompletableFuture<BrokerResponse> handle(RequestContext request) {
    request.frame().parseBody(ApiVersionsRequest.parser());
    return CompletableFuture.completedFuture(
        BrokerResponse.of(
            ApiVersionTable.CURRENT
                .toResponse()
                .setServerSoftwareVersion(SpoolVersion.describe())
                .build()));
  }
}
