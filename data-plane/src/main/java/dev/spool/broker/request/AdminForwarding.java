package dev.spool.broker.request;

import dev.spool.broker.replication.ExceptionCodes;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.quorum.image.MetadataImage;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What every admin request forwarded to the quorum shares: a failed call becomes the error code an
 * admin answer carries, and the answer waits until this broker's image shows what was applied.
 */
final class AdminForwarding {
  private AdminForwarding() {}

  record Failure(ErrorCode code, String message) {}

  static Failure failure(Throwable err) {
    Throwable c = ExceptionCodes.unwrap(err);
    return new Failure(
        ExceptionCodes.ofQuorumCall(c),
        c instanceof SpoolException
            ? "metadata quorum: " + c.getMessage()
            : "metadata quorum did not answer: " + c);
  }

  /**
   * Forwards an admin request: {@code call} is the quorum's answer; a failed call becomes {@code
   * refused}'s answer (every item of the request with the failure's code and message). Unless
   * {@code validateOnly}, the answer then waits, at most {@code timeoutMs}, until this broker's
   * image shows what the answer says was applied ({@code applied}), so the caller's next read here
   * sees it.
   */
  static <R> CompletableFuture<R> forward(
      BrokerContext ctx,
      CompletableFuture<R> call,
      Function<Failure, R> refused,
      boolean validateOnly,
      Function<R, Predicate<MetadataImage>> applied,
      long timeoutMs) {
    return call.handle((resp, err) -> err == null ? resp : refused.apply(failure(err)))
        .thenCompose(
            resp ->
                validateOnly
                    ? CompletableFuture.completedFuture(resp)
                    : ctx.metadataWaiters()
                        .await(applied.apply(resp), timeoutMs)
                        .thenApply(img -> resp));
  }
}
