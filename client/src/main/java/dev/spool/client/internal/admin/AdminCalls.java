package dev.spool.client.internal.admin;

import com.google.protobuf.MessageLite;
import dev.spool.client.internal.ClientContext;
import dev.spool.client.internal.metadata.MetadataRefresher;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.network.ClientResponse;
import dev.spool.network.Node;
import dev.spool.protocol.message.ApiKey;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Runs admin requests against any broker (the least-loaded one; brokers forward mutations to the
 * metadata quorum) with retries: a retriable error — from the connection or from the answer, as the
 * call's handler decides — is retried after an exponential backoff, on another broker if one is
 * less loaded, until {@code default.api.timeout.ms}; then the call fails with the last error.
 * Everything runs on the client's I/O thread; futures complete there.
 */
public final class AdminCalls {
  /** What a handler makes of one answer. */
  public sealed interface Outcome<T> permits Done, Retry, Fail {}

  public record Done<T>(T value) implements Outcome<T> {}

  public record Retry<T>(SpoolException cause) implements Outcome<T> {}

  public record Fail<T>(SpoolException cause) implements Outcome<T> {}

  private final ClientContext context;
  private final long defaultApiTimeoutMs;

  public AdminCalls(ClientContext context, long defaultApiTimeoutMs) {
    this.context = context;
    this.defaultApiTimeoutMs = defaultApiTimeoutMs;
  }

  /** Outcome of an error code: NONE is never passed; retriable codes retry, others fail. */
  public static <T> Outcome<T> errorOutcome(ErrorCode code, String message) {
    SpoolException e = new SpoolException(code, message);
    return e.retriable() ? new Retry<>(e) : new Fail<>(e);
  }

  /**
   * Sends {@code request()} (rebuilt for every attempt) as {@code api} and lets {@code handler}
   * judge each answer.
   */
  public <T> CompletableFuture<T> call(
      String what,
      ApiKey api,
      Supplier<MessageLite> request,
      Function<ClientResponse, Outcome<T>> handler) {
    return callNode(what, null, api, request, handler);
  }

  /**
   * As {@link #call}, but always to {@code node} (null: the least loaded one), for requests that
   * one broker answers about itself.
   */
  public <T> CompletableFuture<T> callNode(
      String what,
      Node node,
      ApiKey api,
      Supplier<MessageLite> request,
      Function<ClientResponse, Outcome<T>> handler) {
    CompletableFuture<T> result = new CompletableFuture<>();
    long deadline = context.clock().monotonicMs() + defaultApiTimeoutMs;
    context
        .network()
        .eventLoop()
        .execute(() -> attempt(what, node, api, request, handler, result, deadline, 0, null));
    return result;
  }

  private <T> void attempt(
      String what,
      Node target,
      ApiKey api,
      Supplier<MessageLite> request,
      Function<ClientResponse, Outcome<T>> handler,
      CompletableFuture<T> result,
      long deadline,
      int attempt,
      SpoolException last) {
    long left = deadline - context.clock().monotonicMs();
    if (left <= 0) {
      result.completeExceptionally(timeout(what, last));
      return;
    }
    Node node = target != null ? target : context.refresher().leastLoadedNode();
    long timeout = Math.min(left, context.values().requestTimeoutMs() + 1000);
    context
        .network()
        .send(node, api, request.get(), timeout)
        .whenComplete(
            (response, error) -> {
              Outcome<T> outcome;
              try (ClientResponse r = response) {
                if (error != null) {
                  SpoolException e = MetadataRefresher.asSpoolException(error);
                  outcome = e.retriable() ? new Retry<>(e) : new Fail<>(e);
                } else {
                  outcome = handler.apply(r);
                }
              } catch (RuntimeException e) {
                outcome =
                    new Fail<>(
                        new SpoolException(
                            ErrorCode.UNKNOWN_SERVER_ERROR,
                            what + ": unexpected answer: " + e.getMessage(),
                            e));
              }
              if (outcome instanceof Done<T> d) {
                result.complete(d.value());
              } else if (outcome instanceof Fail<T> f) {
                result.completeExceptionally(f.cause());
              } else if (outcome instanceof Retry<T> r) {
                if (r.cause().refreshesMetadata()) {
                  context.metadata().requestUpdate();
                }
                long delay = context.retryBackoff().backoffMs(attempt);
                if (context.clock().monotonicMs() + delay >= deadline) {
                  result.completeExceptionally(timeout(what, r.cause()));
                  return;
                }
                context
                    .network()
                    .eventLoop()
                    .schedule(
                        () ->
                            attempt(
                                what,
                                target,
                                api,
                                request,
                                handler,
                                result,
                                deadline,
                                attempt + 1,
                                r.cause()),
                        Math.max(1, delay),
                        TimeUnit.MILLISECONDS);
              }
            });
  }

  private SpoolException timeout(String what, SpoolException last) {
    if (last == null) {
      return new SpoolException(
          ErrorCode.REQUEST_TIMED_OUT,
          what + " did not complete within " + "default.api.timeout.ms=" + defaultApiTimeoutMs);
    }
    ErrorCode code =
        last.errorCode() == ErrorCode.BROKER_NOT_AVAILABLE
            ? ErrorCode.BROKER_NOT_AVAILABLE
            : ErrorCode.REQUEST_TIMED_OUT;
    return new SpoolException(
        code,
        what
            + " did not complete within default.api.timeout.ms="
            + defaultApiTimeoutMs
            + "; last error: "
            + last.getMessage(),
        last);
  }
}
