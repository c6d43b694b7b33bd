package dev.spool.broker.network;

import com.google.protobuf.Empty;
import dev.spool.broker.metrics.BrokerMetrics;
import dev.spool.broker.quota.RequestMeter;
import dev.spool.broker.security.Caller;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.Frame;
import dev.spool.protocol.InvalidFrameException;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.RequestHeader;
import dev.spool.protocol.message.ResponseHeader;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import java.net.SocketAddress;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spool's own protocol ({@code client/src/main/proto/spool/protocol.proto}, frames as in {@link
 * Frame}): the header is parsed here, the body by the API's {@link RequestHandler}. An unknown API
 * key is answered UNSUPPORTED_VERSION and the connection closed; an unsupported version is answered
 * UNSUPPORTED_VERSION; a body that does not parse is answered INVALID_REQUEST and the connection
 * closed; any other failure is UNKNOWN_SERVER_ERROR for that request only.
 *
 * <p>With SASL (SASL_PLAINTEXT, SASL_SSL; docs/security.md#sasl) a connection authenticates with
 * SaslHandshake and SaslAuthenticate after ApiVersions ({@link SaslAuthentication}, the exchange
 * the Kafka listener runs too, answered in Spool's bodies by {@link SpoolSaslCodec}); until it has,
 * any other request closes the connection unanswered, decided from the header (the body is never
 * parsed), and frames are limited to {@code sasl.server.max.receive.size}.
 *
 * <p>Threads: stateless; the connections' event loops.
 */
public final class SpoolProtocol implements WireProtocol<SpoolProtocol.Request, BrokerResponse> {
  private static final Logger log = LoggerFactory.getLogger(SpoolProtocol.class);
  // A client sending unknown API keys must not be able to flood the log.
  private static final RateLimitedLog unknownApi = new RateLimitedLog(log);

  /** A request whose header is parsed; the body stays in the frame for its handler. */
  public record Request(RequestHeader header, Frame frame, ByteBuf frameBuffer) {}

  /** Each API's metrics label, computed once. */
  private static final Map<ApiKey, String> API_LABELS = new EnumMap<>(ApiKey.class);

  static {
    for (ApiKey k : ApiKey.values()) {
      API_LABELS.put(k, k == ApiKey.UNRECOGNIZED ? "Unknown" : BrokerMetrics.apiLabel(k.name()));
    }
  }

  private final RequestDispatcher dispatcher;
  private final String logPrefix;
  private final SaslAuthentication sasl;
  private final FrameLimit saslMaxReceive;

  public SpoolProtocol(RequestDispatcher dispatcher, String logPrefix) {
    this(dispatcher, logPrefix, null, 0);
  }

  /**
   * @param sasl the listener's SASL exchange; null: no SASL (PLAINTEXT, SSL)
   * @param saslMaxReceiveBytes {@code sasl.server.max.receive.size}: the largest frame before
   *     authentication (with SASL only)
   */
  public SpoolProtocol(
      RequestDispatcher dispatcher,
      String logPrefix,
      SaslAuthentication sasl,
      int saslMaxReceiveBytes) {
    this.dispatcher = dispatcher;
    this.logPrefix = logPrefix;
    this.sasl = sasl;
    this.saslMaxReceive =
        sasl == null
            ? null
            : new FrameLimit(
                saslMaxReceiveBytes, "sasl.server.max.receive.size, before SASL authentication");
  }

  @Override
  public Object newSession(SocketAddress remoteAddress, Executor loop) {
    return sasl == null ? null : sasl.newSession(remoteAddress, loop);
  }

  @Override
  public void closeSession(Object session) {
    if (session instanceof SaslAuthentication.Session s) {
      s.close();
    }
  }

  @Override
  public FrameLimit frameLimit(Object session) {
    return sasl == null || ((SaslAuthentication.Session) session).authenticated()
        ? null
        : saslMaxReceive;
  }

  @Override
  public Request decode(ByteBuf frameBuffer) {
    Frame frame = Frame.parse(frameBuffer);
    return new Request(frame.parseHeader(RequestHeader.parser()), frame, frameBuffer);
  }

  @Override
  public String apiName(Request request) {
    return API_LABELS.get(request.header().getApiKey());
  }

  @Override
  public String requestError(BrokerResponse answer) {
    return answer.requestError() == ErrorCode.NONE ? null : answer.requestError().name();
  }

  @Override
  public int correlationId(Request request) {
    return request.header().getCorrelationId();
  }

  @Override
  public CompletableFuture<BrokerResponse> serve(Request r, Connection connection) {
    RequestHeader header = r.header();
    ApiKey key = header.getApiKey();
    String principal = connection.tlsPrincipal();
    if (sasl != null) {
      SaslAuthentication.Session s = (SaslAuthentication.Session) connection.session();
      if (SpoolSaslCodec.isSasl(key)) {
        return SpoolSaslCodec.serve(r, sasl, s); // the SASL exchange is exempt from request quotas
      }
      if (key != ApiKey.API_VERSIONS
          && sasl.refuseBeforeAuthentication(
              s, "a request of API key " + header.getApiKeyValue() + " (not parsed)")) {
        return CompletableFuture.completedFuture(BrokerResponse.closeWithoutAnswer());
      }
      principal = s.principal() != null ? s.principal() : principal; // SASL wins over TLS
    } else if (SpoolSaslCodec.isSasl(key)) {
      return CompletableFuture.completedFuture(SpoolSaslCodec.notSasl(key));
    }
    Caller caller = Caller.of(principal, connection.remoteAddress());
    RequestMeter meter =
        key == ApiKey.API_VERSIONS ? null : dispatcher.meter(caller, header.getClientId());
    if (meter == null) {
      return dispatch(r, connection, caller);
    }
    return meter.serve(
        0,
        () -> dispatch(r, connection, caller),
        BrokerResponse::throttleMs,
        BrokerResponse::throttled);
  }

  private CompletableFuture<BrokerResponse> dispatch(
      Request r, Connection connection, Caller caller) {
    RequestHeader header = r.header();
    ApiKey key = header.getApiKey();
    var handler = dispatcher.handler(key);
    if (handler.isEmpty() || key == ApiKey.UNRECOGNIZED) {
      unknownApi.warn(
          "{} unknown API key {} from {}, closing the connection",
          logPrefix,
          header.getApiKeyValue(),
          connection.connectionId());
      return CompletableFuture.completedFuture(
          BrokerResponse.requestError(
              ErrorCode.UNSUPPORTED_VERSION, "unknown API key " + header.getApiKeyValue(), true));
    }
    if (!dispatcher.supports(key, header.getApiVersion())) {
      return CompletableFuture.completedFuture(
          BrokerResponse.requestError(
              ErrorCode.UNSUPPORTED_VERSION,
              key + " version " + header.getApiVersion() + " is not supported; see ApiVersions",
              false));
    }
    CompletableFuture<BrokerResponse> answer =
        handler
            .get()
            .handle(
                new RequestContext(
                    header,
                    r.frame(),
                    r.frameBuffer(),
                    connection.connectionId(),
                    connection.remoteAddress(),
                    connection.receivedNanos(),
                    connection.newerRequest(),
                    caller));
    return sasl != null && key == ApiKey.API_VERSIONS
        ? answer.thenApply(SpoolSaslCodec::withSaslApis)
        : answer;
  }

  @Override
  public BrokerResponse failed(Request request, Throwable cause) {
    if (cause instanceof InvalidFrameException) {
      return BrokerResponse.requestError(ErrorCode.INVALID_REQUEST, cause.getMessage(), true);
    }
    return BrokerResponse.requestError(
        ErrorCode.UNKNOWN_SERVER_ERROR, String.valueOf(cause), false);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Request request, BrokerResponse r) {
    ResponseHeader.Builder header =
        ResponseHeader.newBuilder().setCorrelationId(request.header().getCorrelationId());
    if (r.requestError() != ErrorCode.NONE) {
      header.setErrorCode(r.requestError()).setErrorMessage(r.requestErrorMessage());
    }
    ByteBuf prefix =
        Frame.encodePrefix(
            ctx.alloc(),
            header.build(),
            r.body() == null ? Empty.getDefaultInstance() : r.body(),
            r.recordBytes());
    ctx.write(prefix, ctx.voidPromise());
    for (Object part : r.recordParts()) {
      ctx.write(part).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
    }
  }
}
