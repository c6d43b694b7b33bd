package dev.spool.broker.network;

import java.util.concurrent.CompletableFuture;

/**
 * Serves one request type. Called on a Netty event loop: it must not block (disk work goes to the
 * partition's owner thread); it returns a future that may complete on any thread. A future that
 * fails, or an exception thrown, becomes UNKNOWN_SERVER_ERROR for that request only.
 */
@FunctionalInterface
public interface RequestHandler {
  CompletableFuture<BrokerResponse> handle(RequestContext request);
}
