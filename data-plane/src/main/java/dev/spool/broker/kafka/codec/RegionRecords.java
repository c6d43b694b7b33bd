package dev.spool.broker.kafka.codec;

import io.netty.channel.FileRegion;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.RecordsSend;

/**
 * A fetch answer's record bytes as a Netty file region over a segment file: Kafka's generated
 * classes count them as zero-copy bytes ({@code MessageSizeAccumulator.addZeroCopyBytes}) and hand
 * them to {@link ByteBufWritable#writeRecords}, which puts the region itself among the response's
 * parts, so the bytes go from the file to the socket by sendfile. Never sent through Kafka's own
 * {@code Send} machinery ({@link #toSend} is not supported).
 *
 * <p>Threads: built on the thread that completes the fetch, written on the connection's event loop.
 */
final class RegionRecords implements BaseRecords {
  private final FileRegion region;
  private final int sizeInBytes;

  RegionRecords(FileRegion region, int sizeInBytes) {
    this.region = region;
    this.sizeInBytes = sizeInBytes;
  }

  FileRegion region() {
    return region;
  }

  @Override
  public int sizeInBytes() {
    return sizeInBytes;
  }

  @Override
  public RecordsSend<? extends BaseRecords> toSend() {
    throw new UnsupportedOperationException("file regions are written by the Netty pipeline");
  }
}
