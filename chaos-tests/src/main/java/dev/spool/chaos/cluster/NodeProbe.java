package dev.spool.chaos.cluster;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import dev.spool.common.ErrorCode;
import dev.spool.protocol.Frame;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.DescribeClusterRequest;
import dev.spool.protocol.message.DescribeClusterResponse;
import dev.spool.protocol.message.MetadataRequest;
import dev.spool.protocol.message.MetadataResponse;
import dev.spool.protocol.message.RequestHeader;
import dev.spool.protocol.message.ResponseHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Collection;

/**
 * A blocking one-request client that asks one node directly, on its own broker address (never
 * through a fault proxy and never redirected by metadata), what it believes: its Metadata (leaders,
 * epochs, ISRs as this node's image has them) or DescribeCluster (the quorum as this node sees it).
 * The harness uses it to find leaders and to observe each node's view for the white-box epoch
 * checker; the client library could not say which broker answered.
 *
 * <p>One connection per request, bounded by {@code timeoutMs} for connect and for the answer, so a
 * paused or partitioned node costs at most that. Thread-safe (no shared state).
 */
public final class NodeProbe {
  private static final int MAX_FRAME_BYTES = 64 * 1024 * 1024;

  private final InetSocketAddress address;
  private final int timeoutMs;

  public NodeProbe(InetSocketAddress address, int timeoutMs) {
    this.address = address;
    this.timeoutMs = timeoutMs;
  }

  public InetSocketAddress address() {
    return address;
  }

  /** The node's metadata for {@code topics} (all topics when empty). */
  public MetadataResponse metadata(Collection<String> topics) throws IOException {
    MetadataRequest req =
        MetadataRequest.newBuilder().addAllTopics(topics).setAllTopics(topics.isEmpty()).build();
    return MetadataResponse.parseFrom(call(ApiKey.METADATA, req));
  }

  /**
   * The cluster and quorum as the node sees them (the error is set if the quorum did not answer).
   */
  public DescribeClusterResponse describeCluster() throws IOException {
    return DescribeClusterResponse.parseFrom(
        call(ApiKey.DESCRIBE_CLUSTER, DescribeClusterRequest.getDefaultInstance()));
  }

  private byte[] call(ApiKey api, MessageLite body) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(address, timeoutMs);
      s.setSoTimeout(timeoutMs);
      s.setTcpNoDelay(true);
      RequestHeader h =
          RequestHeader.newBuilder()
              .setApiKey(api)
              .setApiVersion(0)
              .setCorrelationId(1)
              .setClientId("chaos-harness-probe")
              .build();
      ByteBuf prefix = Frame.encodePrefix(ByteBufAllocator.DEFAULT, h, body, 0);
      byte[] bytes = new byte[prefix.readableBytes()];
      prefix.readBytes(bytes);
      prefix.release();
      OutputStream out = s.getOutputStream();
      out.write(bytes);
      out.flush();
      DataInputStream in = new DataInputStream(s.getInputStream());
      int length = in.readInt();
      if (length < Frame.SECTION_LENGTHS_BYTES || length > MAX_FRAME_BYTES) {
        throw new IOException(address + " answered with a frame length of " + length);
      }
      byte[] frame = new byte[length];
      in.readFully(frame);
      Frame f = Frame.parse(Unpooled.wrappedBuffer(frame));
      ResponseHeader rh = f.parseHeader(ResponseHeader.parser());
      if (rh.getErrorCode() != ErrorCode.NONE) {
        throw new IOException(
            address + " refused " + api + ": " + rh.getErrorCode() + " " + rh.getErrorMessage());
      }
      byte[] out2 = new byte[f.body().readableBytes()];
      f.body().getBytes(f.body().readerIndex(), out2);
      return out2;
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      throw new IOException(address + ": unreadable answer to " + api + ": " + e.getMessage(), e);
    }
  }
}
