package dev.spool.broker.request;

import dev.spool.broker.replication.ExceptionCodes;
import dev.spool.broker.security.Caller;
import dev.spool.common.AclOperation;
import dev.spool.common.ErrorCode;
import dev.spool.common.Errors;
import dev.spool.protocol.message.InitProducerIdRequest;
import dev.spool.protocol.message.InitProducerIdResponse;
import java.util.concurrent.CompletableFuture;

/**
 * InitProducerId: a fresh producer id (epoch 0) from this broker's block of ids allocated by the
 * quorum. Runs on the Netty thread; the future completes when a block is at hand. A failed
 * allocation is always answered with a retriable code ({@link #clientCode}).
 */
public final class InitProducerIdHandler
    extends MessageHandler<InitProducerIdRequest, InitProducerIdResponse> {
  private final BrokerContext ctx;

  public InitProducerIdHandler(BrokerContext ctx) {
    super(InitProducerIdRequest.parser());
    this.ctx = ctx;
  }

  /**
   * IDEMPOTENT_WRITE on the cluster, or WRITE on some topic (Kafka's rule since KIP-679, so a
   * producer with only its topics' ACLs can be idempotent); refused CLUSTER_AUTHORIZATION_FAILED.
   */
  @Override
  public CompletableFuture<InitProducerIdResponse> call(InitProducerIdRequest req, Caller caller) {
    if (!ctx.authorizer().mayWriteSomeTopic(caller)
        && !Authz.cluster(ctx, caller, AclOperation.IDEMPOTENT_WRITE)) {
      return CompletableFuture.completedFuture(
          InitProducerIdResponse.newBuilder()
              .setErrorCode(Authz.CLUSTER)
              .setErrorMessage(Authz.clusterRefusal(caller, AclOperation.IDEMPOTENT_WRITE))
              .setProducerId(-1)
              .setProducerEpoch(-1)
              .build());
    }
    return call(req);
  }

  @Override
  public CompletableFuture<InitProducerIdResponse> call(InitProducerIdRequest req) {
    return ctx.producerIds()
        .nextProducerId()
        .handle(
            (id, err) -> {
              InitProducerIdResponse.Builder b = InitProducerIdResponse.newBuilder();
              if (err != null) {
                Throwable c = ExceptionCodes.unwrap(err);
                b.setErrorCode(clientCode(c))
                    .setErrorMessage("cannot allocate a producer id: " + c.getMessage())
                    .setProducerId(-1)
                    .setProducerEpoch(-1);
              } else {
                b.setProducerId(id).setProducerEpoch(0);
              }
              return b.build();
            });
  }

  /**
   * The code the client gets when this broker could not allocate a producer id. Allocation is this
   * broker's business with the quorum, and whatever stopped it passes (the broker is registering or
   * re-registering after a restart, the quorum is electing, the broker is stopping), so the answer
   * must be one a client retries: a producer treats a non-retriable InitProducerId answer as fatal
   * and fails every later send. STALE_BROKER_EPOCH (this broker's registration is not the current
   * one yet) becomes BROKER_NOT_AVAILABLE, so the client also refreshes metadata and may ask
   * another broker; any other non-retriable code becomes QUORUM_UNAVAILABLE.
   */
  static ErrorCode clientCode(Throwable failure) {
    ErrorCode code = ExceptionCodes.ofQuorumCall(failure);
    if (code == ErrorCode.STALE_BROKER_EPOCH) {
      return ErrorCode.BROKER_NOT_AVAILABLE;
    }
    return Errors.retriable(code) ? code : ErrorCode.QUORUM_UNAVAILABLE;
  }
}
