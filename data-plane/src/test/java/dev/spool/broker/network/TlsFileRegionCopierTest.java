package dev.spool.broker.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What reaches the SslHandler of a TLS connection: only buffers, never a FileRegion, holding the
 * region's bytes exactly and in order with what was written around them; the region is released
 * once its bytes are copied.
 */
class TlsFileRegionCopierTest {
  @TempDir Path dir;

  @Test
  void shouldCopyFileRegionsIntoBoundedBuffersInWriteOrder() throws Exception {
    byte[] file = new byte[3 * FileRegionChunks.CHUNK_BYTES + 1234];
    new Random(7).nextBytes(file);
    Path segment = dir.resolve("00000000000000000000.log");
    Files.write(segment, file);
    int offset = 1000;
    int count = file.length - offset - 10;
    try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ)) {
      FileRegion region = new DefaultFileRegion(ch, offset, count).retain();
      EmbeddedChannel channel = new EmbeddedChannel(new TlsFileRegionCopier());
      channel.write(Unpooled.wrappedBuffer(new byte[] {1, 2, 3}));
      channel.write(region);
      channel.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {4}));

      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int messages = 0;
      for (Object m; (m = channel.readOutbound()) != null; messages++) {
        ByteBuf b = assertInstanceOf(ByteBuf.class, m, "a non-buffer reached the TLS engine");
        assertTrue(b.readableBytes() <= FileRegionChunks.CHUNK_BYTES, "a chunk was too large");
        byte[] bytes = new byte[b.readableBytes()];
        b.readBytes(bytes);
        out.write(bytes);
        b.release();
      }
      byte[] expected = new byte[3 + count + 1];
      expected[0] = 1;
      expected[1] = 2;
      expected[2] = 3;
      System.arraycopy(file, offset, expected, 3, count);
      expected[expected.length - 1] = 4;
      assertArrayEquals(expected, out.toByteArray());
      assertEquals(2 + 4, messages, "the region's bytes in four chunks between the two buffers");
      assertEquals(1, region.refCnt(), "the copier releases its reference once copied");
      region.release();
      channel.finishAndReleaseAll();
    }
  }
}
