package dev.spool.record.internal;

import com.github.luben.zstd.RecyclingBufferPool;
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
 */
final class ZstdCodec {
  private ZstdCodec() {}

  static OutputStream wrapForOutput(OutputStream out, int level) throws IOException {
    return new BufferedOutputStream(
        new ZstdOutputStreamNoFinalizer(out, RecyclingBufferPool.INSTANCE, level), 16 * 1024);
  }

  static InputStream wrapForInput(ByteBuffer in) throws IOException {
    return new ZstdInputStreamNoFinalizer(
        new ByteBufferInputStream(in), RecyclingBufferPool.INSTANCE);
  }
}
