package dev.spool.e2e;

import com.google.protobuf.MessageLite;
import dev.spool.protocol.Frame;
import dev.spool.protocol.message.ApiKey;
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
import java.net.SocketException;
import java.net.SocketTimeoutException;

/** A blocking connection that speaks raw frames to a broker, so a test can also send garbage. */
final class RawConnection implements AutoCloseable {
  record Reply(ResponseHeader header, byte[] body) {}

  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;
  private int correlationId;

  RawConnection(InetSocketAddress broker) throws IOException {
    socket = new Socket();
    socket.connect(broker, 5_000);
    socket.setSoTimeout(10_000);
    in = new DataInputStream(socket.getInputStream());
    out = socket.getOutputStream();
  }

  static byte[] frame(MessageLite header, MessageLite body, byte[] records) {
    ByteBuf prefix = Frame.encodePrefix(ByteBufAllocator.DEFAULT, header, body, records.length);
    byte[] bytes = new byte[prefix.readableBytes() + records.length];
    prefix.readBytes(bytes, 0, prefix.readableBytes());
    int n = bytes.length - records.length;
    prefix.release();
    System.arraycopy(records, 0, bytes, n, records.length);
    return bytes;
  }

  RequestHeader header(ApiKey key) {
    return RequestHeader.newBuilder()
        .setApiKey(key)
        .setApiVersion(0)
        .setCorrelationId(++correlationId)
        .setClientId("e2e-raw")
        .build();
  }

  Reply request(ApiKey key, MessageLite body, byte[] records) throws IOException {
    sendRaw(frame(header(key), body, records));
    return receive();
  }

  void sendRaw(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  Reply receive() throws IOException {
    int length = in.readInt();
    byte[] frame = new byte[length];
    in.readFully(frame);
    Frame f = Frame.parse(Unpooled.wrappedBuffer(frame));
    byte[] body = new byte[f.body().readableBytes()];
    f.body().getBytes(f.body().readerIndex(), body);
    return new Reply(f.parseHeader(ResponseHeader.parser()), body);
  }

  /**
   * True when the broker closes the connection within the socket timeout. Any answer it sends first
   * (a request-level error) is read and skipped.
   */
  boolean closedByPeer() throws IOException {
    try {
      while (in.read() >= 0) {
        // skip whatever the broker says before closing
      }
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (SocketException e) {
      return true; // reset
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
