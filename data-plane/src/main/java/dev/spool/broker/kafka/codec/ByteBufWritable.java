package dev.spool.broker.kafka.codec;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Kafka's {@link Writable} over one Netty buffer sized for the whole response except its file
 * regions. Where a records field holds a {@link RegionRecords}, the bytes written so far become a
 * part (a retained slice of the buffer) and the region the next, so the response leaves as {@code
 * [bytes, region, bytes, region, ..., bytes]}, each region by sendfile: the layout Kafka's own
 * broker sends ({@code SendBuilder}), byte for byte. Varints are Kafka's: unsigned LEB128, and
 * zig-zag for the signed ones.
 *
 * <p>Threads: one response, on the connection's event loop.
 */
final class ByteBufWritable implements Writable {
  private final ByteBuf buf;
  private final List<Object> parts = new ArrayList<>();
  private int partStart;

  ByteBufWritable(ByteBuf buf) {
    this.buf = buf;
    this.partStart = buf.writerIndex();
  }

  /** The parts in order; the buffer's own reference passes to them. */
  List<Object> finish() {
    if (buf.writerIndex() > partStart || parts.isEmpty()) {
      parts.add(buf.retainedSlice(partStart, buf.writerIndex() - partStart));
    }
    buf.release();
    return parts;
  }

  @Override
  public void writeRecords(BaseRecords records) {
    if (records instanceof RegionRecords r) {
      if (buf.writerIndex() > partStart) {
        parts.add(buf.retainedSlice(partStart, buf.writerIndex() - partStart));
      }
      parts.add(r.region());
      partStart = buf.writerIndex();
    } else if (records instanceof MemoryRecords m) {
      writeByteBuffer(m.buffer());
    } else {
      throw new IllegalArgumentException("cannot write records of " + records.getClass());
    }
  }

  @Override
  public void writeByte(byte val) {
    buf.writeByte(val);
  }

  @Override
  public void writeShort(short val) {
    buf.writeShort(val);
  }

  @Override
  public void writeInt(int val) {
    buf.writeInt(val);
  }

  @Override
  public void writeLong(long val) {
    buf.writeLong(val);
  }

  @Override
  public void writeDouble(double val) {
    buf.writeDouble(val);
  }

  @Override
  public void writeByteArray(byte[] arr) {
    buf.writeBytes(arr);
  }

  @Override
  public void writeUnsignedVarint(int i) {
    int v = i;
    while ((v & ~0x7F) != 0) {
      buf.writeByte((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf.writeByte(v);
  }

  @Override
  public void writeByteBuffer(ByteBuffer src) {
    buf.writeBytes(src.duplicate());
  }

  @Override
  public void writeVarint(int i) {
    writeUnsignedVarint((i << 1) ^ (i >> 31));
  }

  @Override
  public void writeVarlong(long i) {
    long v = (i << 1) ^ (i >> 63);
    while ((v & ~0x7FL) != 0) {
      buf.writeByte(((int) v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buf.writeByte((int) v);
  }
}
