package dev.spool.record.internal;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * zstd frames through zstd-jni's streams (the NoFinalizer variants: streams are always closed, and
 * finalizers would only delay freeing the native contexts). Their internal buffers come from the
 * library's recycling pool, so a batch does not allocate 128 KiB of staging buffers.
 *
 * <p>{@link #inflate} is the consumer's fast path: one-shot decompression with a decompression
 * context kept per thread, straight from the batch's bytes (heap or direct) into the caller's
 * array. The stream path copies every compressed byte through a staging array, then every inflated
 * byte out of zstd's window buffer, and builds and frees a native context per batch; on a 1 MiB
 * fetch inflating to 5 MB those copies and setups cost more than the decompression itself. The
 * contexts live as long as their threads (a consumer's poll thread, a broker's handler threads): a
 * few hundred KiB each, reused for every batch.
 */
final class ZstdCodec {
  private static final ThreadLocal<ZstdDecompressCtx> CONTEXT =
      ThreadLocal.withInitial(ZstdDecompressCtx::new);

  private ZstdCodec() {}

  static OutputStream wrapForOutput(OutputStream out, int level) throws IOException {
    return new BufferedOutputStream(
        new ZstdOutputStreamNoFinalizer(out, RecyclingBufferPool.INSTANCE, level), 16 * 1024);
  }

  static InputStream wrapForInput(ByteBuffer in) throws IOException {
    return new ZstdInputStreamNoFinalizer(
        new ByteBufferInputStream(in), RecyclingBufferPool.INSTANCE);
  }

  /**
   * Inflates the frame(s) between {@code in}'s position and limit (not moved) into {@code dst} from
   * index 0; returns the inflated length, or -1 when they do not fit in {@code dst} (the caller
   * grows it and calls again). Throws {@link IOException} naming zstd's error on corrupt input.
   */
  static int inflate(ByteBuffer in, byte[] dst) throws IOException {
    ZstdDecompressCtx context = CONTEXT.get();
    try {
      if (in.hasArray()) {
        return context.decompressByteArray(
            dst, 0, dst.length, in.array(), in.arrayOffset() + in.position(), in.remaining());
      }
      if (in.isDirect()) {
        return context.decompressDirectByteBufferToByteArray(
            dst, 0, dst.length, in, in.position(), in.remaining());
      }
      // A read-only heap buffer exposes no array: copy it once.
      byte[] src = new byte[in.remaining()];
      in.duplicate().get(src);
      return context.decompressByteArray(dst, 0, dst.length, src, 0, src.length);
    } catch (ZstdException e) {
      if (e.getErrorCode() == Zstd.errDstSizeTooSmall()) {
        return -1;
      }
      throw new IOException("zstd: " + e.getMessage(), e);
    }
  }
}
