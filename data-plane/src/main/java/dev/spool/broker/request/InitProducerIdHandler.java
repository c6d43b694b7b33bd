package dev.spool.broker.request;

import dev.spool.broker.network.RequestContext;
import dev.spool.broker.network.RequestHandler;
import dev.spool.broker.network.Response;
import dev.spool.client.SpoolException;
import dev.spool.protocol.message.ErrorCode;
import dev.spool.protocol.message.InitProducerIdRequest;
import dev.spool.protocol.message.InitProducerIdResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * InitProducerId: a fresh producer id (epoch 0) from this broker's block of ids allocated by the
 * quorum. Runs on the Netty thread; the future completes when a block is at hand.
 */
public final class InitProducerIdHandler implements RequestHandler {
  private final BrokerContext ctx;

  public InitProducerIdHandler(BrokerContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public CompletableFuture<Response> handle(RequestContext request) {
    request.frame().parseBody(InitProducerIdRequest.parser());
    return ctx.producerIds().nextProducerId().handle((id, err) -> {
      InitProducerIdResponse.Builder b = InitProducerIdResponse.newBuilder();
      if (err != null) {
        Throwable c = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
        ErrorCode code = c instanceof SpoolException se ? se.errorCode() : ErrorCode.QUORUM_UNAVAILABLE;
        b.setErrorCode(code).setErrorMessage("cannot allocate a producer id: " + c.getMessage())
            .setProducerId(-1).setProducerEpoch(-1);
      } else {
        b.setProducerId(id).setProducerEpoch(0);
      }
      return Response.of(b.build());
    });
  }
}
