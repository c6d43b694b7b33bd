package dev.spool.broker.network;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.handler.stream.ChunkedWriteHandler;

/**
 * Sits just above the {@code SslHandler} of a TLS connection and turns every {@link FileRegion} a
 * fetch answer writes into {@link FileRegionChunks}, which it writes as buffers while the channel
 * drains. An SslHandler cannot take a FileRegion (it encrypts bytes in user space; sendfile would
 * bypass it), so on TLS listeners fetch answers are copied rather than sent zero-copy: the cost is
 * measured in docs/security.md. Everything else passes through in order.
 *
 * <p>Owned by the channel's event loop (one instance per connection).
 */
final class TlsFileRegionCopier extends ChunkedWriteHandler {
  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise)
      throws Exception {
    super.write(ctx, msg instanceof FileRegion r ? new FileRegionChunks(r) : msg, promise);
  }
}
