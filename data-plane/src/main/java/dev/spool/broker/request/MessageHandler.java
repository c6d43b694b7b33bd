package dev.spool.broker.request;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import dev.spool.broker.network.BrokerResponse;
import dev.spool.broker.network.RequestContext;
import dev.spool.broker.network.RequestHandler;
import dev.spool.broker.security.Caller;
import java.util.concurrent.CompletableFuture;

/**
 * A handler whose request and answer are one protobuf message each, with no record data. Spool's
 * listener parses the body from the frame and calls {@link #call}; the Kafka listener translates
 * Kafka's request into the same message and calls {@link #call} too, so both protocols run the same
 * code against the same broker state.
 *
 * <p>Threads: a Netty event loop; {@link #call} must not block.
 *
 * @param <Q> the request message
 * @param <R> the answer message
 */
public abstract class MessageHandler<Q extends MessageLite, R extends MessageLite>
    implements RequestHandler {
  private final Parser<Q> parser;

  protected MessageHandler(Parser<Q> parser) {
    this.parser = parser;
  }

  /** Serves {@code request}; the future may complete on any thread. */
  public abstract CompletableFuture<R> call(Q request);

  /** Serves {@code request} from Spool's listener, for the connection's caller. */
  protected CompletableFuture<R> call(Q request, RequestContext context) {
    return call(request, context.caller());
  }

  /**
   * Serves {@code request} for {@code caller} after the authorization checks
   * (docs/security.md#acls): what both listeners call. {@link #call(MessageLite)} alone is the
   * broker's own, unchecked path. A refused item is answered with Kafka's authorization error code
   * and goes no further.
   */
  public abstract CompletableFuture<R> call(Q request, Caller caller);

  @Override
  public final CompletableFuture<BrokerResponse> handle(RequestContext request) {
    return call(request.frame().parseBody(parser), request).thenApply(BrokerResponse::of);
  }
}
