package dev.spool.broker.kafka;

import dev.spool.broker.kafka.codec.KafkaRequest;
import dev.spool.broker.kafka.codec.KafkaRequestDecoder;
import dev.spool.broker.kafka.codec.KafkaResponse;
import dev.spool.broker.network.WireProtocol;
import dev.spool.broker.quota.RequestMeter;
import dev.spool.broker.request.BrokerContext;
import dev.spool.broker.request.Handlers;
import dev.spool.broker.security.SaslVerifiers;
import dev.spool.common.ErrorCode;
import dev.spool.coordinator.group.runtime.GroupCoordinator;
import dev.spool.protocol.InvalidFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's wire protocol on a second listener ({@code kafka.listener}): frames are decoded by the
 * codec ({@link KafkaRequestDecoder}), served by {@link KafkaApis} through the broker's own
 * handlers, and answered in Kafka's layout with record data as file regions. Pipelining, limits and
 * closing on bad input are the connection's ({@code ConnectionHandler}), as on Spool's listener.
 *
 * <p>Failures: a frame that is not a request closes the connection (the decoder's message is the
 * log line); a request whose serving fails is answered UNKNOWN_SERVER_ERROR in its own schema,
 * except Produce with acks=0, whose connection closes, as Kafka does.
 *
 * <p>Threads: stateless; the connections' event loops.
 */
public final class KafkaProtocol implements WireProtocol<KafkaRequest, KafkaResponse> {
  private static final Logger log = LoggerFactory.getLogger(KafkaProtocol.class);

  /** The listener's name in logs and in {@code BrokerServer#boundPort(String)}. */
  public static final String LISTENER = "kafka";

  private final KafkaApis apis;
  private final KafkaRequestDecoder decoder;
  private final String logPrefix;
  private final SaslAuthenticator sasl;
  private final FrameLimit saslMaxReceive;
  private final BrokerContext context;

  /** A listener without SASL (PLAINTEXT or SSL). */
  public KafkaProtocol(Handlers handlers, GroupCoordinator coordinator, String logPrefix) {
    this(handlers, coordinator, logPrefix, null);
  }

  /**
   * SASL on the listener (SASL_PLAINTEXT, SASL_SSL).
   *
   * @param mechanisms the SASL mechanisms offered
   * @param maxReceiveBytes {@code sasl.server.max.receive.size}: the largest frame before
   *     authentication
   * @param failedAuthenticationDelayMs {@code connection.failed.authentication.delay.ms}
   * @param verifiers where PLAIN's key derivation runs (the broker's, closed with it)
   */
  public record Sasl(
      List<String> mechanisms,
      int maxReceiveBytes,
      long failedAuthenticationDelayMs,
      SaslVerifiers verifiers) {}

  /**
   * @param sasl the listener's SASL settings; null: no SASL
   */
  public KafkaProtocol(
      Handlers handlers, GroupCoordinator coordinator, String logPrefix, Sasl sasl) {
    this.apis = new KafkaApis(handlers, coordinator, sasl != null);
    this.context = handlers.context();
    this.decoder = new KafkaRequestDecoder(apis.served());
    this.logPrefix = logPrefix + "[" + LISTENER + "]";
    this.sasl =
        sasl == null
            ? null
            : new SaslAuthenticator(
                sasl.mechanisms(),
                handlers.context()::image,
                this.logPrefix,
                sasl.failedAuthenticationDelayMs(),
                sasl.verifiers());
    this.saslMaxReceive =
        sasl == null
            ? null
            : new FrameLimit(
                sasl.maxReceiveBytes(), "sasl.server.max.receive.size, before SASL authentication");
  }

  @Override
  public FrameLimit frameLimit(Object session) {
    return sasl == null || ((SaslAuthenticator.Session) session).authenticated()
        ? null
        : saslMaxReceive;
  }

  @Override
  public String refuseUndecoded(ByteBuf frame, Object session) {
    return sasl == null ? null : sasl.refuseUndecoded(frame, (SaslAuthenticator.Session) session);
  }

  @Override
  public Object newSession(java.net.SocketAddress remoteAddress, Executor eventLoop) {
    return sasl == null ? null : sasl.newSession(remoteAddress, eventLoop);
  }

  @Override
  public void closeSession(Object session) {
    if (session instanceof SaslAuthenticator.Session s) {
      s.close();
    }
  }

  @Override
  public KafkaRequest decode(ByteBuf frame) {
    long start = System.nanoTime();
    KafkaRequest r = decoder.decode(frame);
    r.decodeNanos(System.nanoTime() - start);
    return r;
  }

  @Override
  public String apiName(KafkaRequest request) {
    return request.apiName();
  }

  @Override
  public String requestError(KafkaResponse answer) {
    return answer.error();
  }

  @Override
  public int correlationId(KafkaRequest request) {
    return request.correlationId();
  }

  @Override
  public CompletableFuture<KafkaResponse> serve(KafkaRequest request, Connection connection) {
    if (sasl != null) {
      CompletableFuture<KafkaResponse> decided =
          sasl.intercept(request, (SaslAuthenticator.Session) connection.session());
      if (decided != null) {
        return decided;
      }
    }
    KafkaResponse immediate = request.immediateAnswer();
    if (immediate != null) {
      return CompletableFuture.completedFuture(immediate);
    }
    RequestMeter meter =
        request.requestQuotaExempt()
            ? null
            : context.requestMeter(KafkaApis.caller(connection), request.clientId());
    if (meter == null) {
      return apis.serve(request, connection);
    }
    return meter.serve(
        request.decodeNanos(),
        () -> apis.serve(request, connection),
        KafkaResponse::throttleMs,
        KafkaResponse::throttled);
  }

  @Override
  public KafkaResponse failed(KafkaRequest request, Throwable cause) {
    if (cause instanceof InvalidFrameException || !request.expectsResponse()) {
      return KafkaResponse.closeWithoutAnswer();
    }
    try {
      return request.errorResponse(ErrorCode.UNKNOWN_SERVER_ERROR, String.valueOf(cause));
    } catch (RuntimeException e) {
      log.warn("{} cannot answer the failed {}: {}", logPrefix, request.describe(), e.toString());
      return KafkaResponse.closeWithoutAnswer();
    }
  }

  @Override
  public void write(ChannelHandlerContext ctx, KafkaRequest request, KafkaResponse answer) {
    List<Object> parts;
    try {
      parts = answer.encode(ctx.alloc());
    } catch (RuntimeException e) {
      answer.release();
      log.error("{} cannot encode the answer to {}; closing", logPrefix, request.describe(), e);
      ctx.close();
      return;
    }
    for (Object part : parts) {
      ctx.write(part).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
    }
  }
}
