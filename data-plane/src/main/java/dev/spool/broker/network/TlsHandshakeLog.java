package dev.spool.broker.network;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import javax.net.ssl.SSLException;

/**
 * Just after the {@code SslHandler} of a TLS connection: a handshake that fails (a plaintext
 * client, an untrusted or missing client certificate, a handshake that never ends) closes the
 * connection with exactly one log line that says why, rate-limited across the server. The
 * SslHandler reports such a failure twice (a handshake event, then the exception); this handler
 * logs the first and keeps the second from reaching the connection handler, which would log it
 * again as a bad frame.
 *
 * <p>Owned by the channel's event loop (one instance per connection).
 */
final class TlsHandshakeLog extends ChannelInboundHandlerAdapter {
  private final RateLimitedLog log;
  private final String logPrefix;
  private final String clientAuth;
  private boolean failed;

  TlsHandshakeLog(RateLimitedLog log, String logPrefix, String clientAuth) {
    this.log = log;
    this.logPrefix = logPrefix;
    this.clientAuth = clientAuth;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof SslHandshakeCompletionEvent e && !e.isSuccess()) {
      refuse(ctx, e.cause());
      return;
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
    Throwable c =
        cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
    if (failed || c instanceof SSLException) {
      refuse(ctx, c);
      return;
    }
    super.exceptionCaught(ctx, cause);
  }

  private void refuse(ChannelHandlerContext ctx, Throwable cause) {
    if (!failed) {
      failed = true;
      log.warn(
          "{} refused a TLS connection from {}: {}; closing it",
          logPrefix,
          ctx.channel().remoteAddress(),
          reason(cause));
    }
    ctx.close();
  }

  private String reason(Throwable cause) {
    if (cause instanceof NotSslRecordException) {
      // Its own message dumps the bytes received; what matters is who sent them.
      return "not a TLS record (a plaintext client on a TLS listener?)";
    }
    if (cause instanceof SslHandshakeTimeoutException) {
      return "TLS handshake did not finish in time";
    }
    return "TLS handshake failed (ssl.client.auth="
        + clientAuth
        + "): "
        + (cause == null ? "unknown cause" : cause.getMessage());
  }
}
