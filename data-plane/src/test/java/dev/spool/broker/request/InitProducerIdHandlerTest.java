package dev.spool.broker.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.RequestContext;
import dev.spool.common.ErrorCode;
import dev.spool.common.Errors;
import dev.spool.common.SpoolException;
import dev.spool.protocol.Frame;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.InitProducerIdRequest;
import dev.spool.protocol.message.InitProducerIdResponse;
import dev.spool.protocol.message.RequestHeader;
import dev.spool.quorum.QuorumClient;
import dev.spool.quorum.message.AllocateProducerIdsResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.lang.reflect.Proxy;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Regression: a broker restarted in a full-cluster restart answered InitProducerId with
 * STALE_BROKER_EPOCH ("broker 2 epoch -1 is not registered") while it was still registering; the
 * producer took that non-retriable code as fatal and failed every later send (found by a chaos run
 * with full restarts: 3 of 4 producers dead for the rest of the run).
 */
@Tag("unit")
class InitProducerIdHandlerTest {
  private static BrokerResponse initProducerId(
      Supplier<CompletableFuture<AllocateProducerIdsResponse>> quorumAnswer) throws Exception {
    QuorumClient quorum =
        (QuorumClient)
            Proxy.newProxyInstance(
                InitProducerIdHandlerTest.class.getClassLoader(),
                new Class<?>[] {QuorumClient.class},
                (p, m, a) -> m.getName().equals("allocateProducerIds") ? quorumAnswer.get() : null);
    BrokerContext ctx =
        new BrokerContext(
            2,
            "test",
            null,
            quorum,
            null,
            new ProducerIdManager(2, () -> -1L, quorum, 10),
            null,
            null,
            false,
            1000,
            1000,
            1000,
            () -> 1,
            dev.spool.broker.metrics.BrokerMetrics.DISABLED,
            dev.spool.broker.security.Authorizer.NONE,
            dev.spool.broker.quota.ClientQuotaManager.NONE);
    RequestHeader h =
        RequestHeader.newBuilder().setApiKey(ApiKey.INIT_PRODUCER_ID).setCorrelationId(1).build();
    ByteBuf frame =
        Frame.encodePrefix(
            ByteBufAllocator.DEFAULT, h, InitProducerIdRequest.getDefaultInstance(), 0);
    frame.skipBytes(4);
    return new InitProducerIdHandler(ctx)
        .handle(new RequestContext(h, Frame.parse(frame), frame, "test", null, 0))
        .get(5, TimeUnit.SECONDS);
  }

  private static InitProducerIdResponse body(BrokerResponse r) {
    return (InitProducerIdResponse) r.body();
  }

  @Test
  void shouldTellAClientToRetryWhileThisBrokerIsNotRegistered() throws Exception {
    InitProducerIdResponse r =
        body(
            initProducerId(
                () ->
                    CompletableFuture.completedFuture(
                        AllocateProducerIdsResponse.newBuilder()
                            .setErrorCode(ErrorCode.STALE_BROKER_EPOCH)
                            .setErrorMessage("broker 2 epoch -1 is not registered")
                            .build())));
    assertEquals(ErrorCode.BROKER_NOT_AVAILABLE, r.getErrorCode(), r.getErrorMessage());
    assertTrue(Errors.retriable(r.getErrorCode()));
    assertTrue(r.getErrorMessage().contains("not registered"), r.getErrorMessage());
  }

  @Test
  void shouldAnswerEveryAllocationFailureWithARetriableCode() throws Exception {
    for (Throwable failure :
        new Throwable[] {
          new SpoolException(ErrorCode.UNKNOWN_SERVER_ERROR, "boom"),
          new IllegalStateException("client closed"),
          new SpoolException(ErrorCode.QUORUM_UNAVAILABLE, "electing"),
          new SpoolException(ErrorCode.NOT_CONTROLLER, "moved")
        }) {
      InitProducerIdResponse r =
          body(initProducerId(() -> CompletableFuture.failedFuture(failure)));
      assertTrue(Errors.retriable(r.getErrorCode()), failure + " -> " + r.getErrorCode());
      assertEquals(-1, r.getProducerId());
    }
    assertEquals(
        ErrorCode.NOT_CONTROLLER,
        InitProducerIdHandler.clientCode(new SpoolException(ErrorCode.NOT_CONTROLLER, "moved")),
        "retriable codes pass");
  }
}
