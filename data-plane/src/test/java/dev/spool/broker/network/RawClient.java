package dev.spool.broker.network;

import com.google.protobuf.MessageLite;
import dev.spool.protocol.Frame;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.RequestHeader;
import dev.spool.protocol.message.ResponseHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;

/** A blocking test client that speaks raw frames, so tests can also send garbage. */
final class RawClient implements AutoCloseable {
  record Reply(ResponseHeader header, byte[] body, byte[] records) {}

  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;

  RawClient(int port) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(10_000);
    in = new DataInputStream(socket.getInputStream());
    out = socket.getOutputStream();
  }

  void send(ApiKey key, int version, int correlationId, MessageLite body, byte[] records)
      throws IOException {
    RequestHeader h =
        RequestHeader.newBuilder()
            .setApiKey(key)
            .setApiVersion(version)
            .setCorrelationId(correlationId)
            .setClientId("test")
            .build();
    sendHeader(h, body, records);
  }

  void sendHeader(MessageLite header, MessageLite body, byte[] records) throws IOException {
    ByteBuf prefix = Frame.encodePrefix(ByteBufAllocator.DEFAULT, header, body, records.length);
    byte[] bytes = new byte[prefix.readableBytes()];
    prefix.readBytes(bytes);
    prefix.release();
    out.write(bytes);
    out.write(records);
    out.flush();
  }

  void sendRaw(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  Reply receive() throws IOException {
    int length = in.readInt();
    byte[] frame = new byte[length];
    in.readFully(frame);
    ByteBuf buf = io.netty.buffer.Unpooled.wrappedBuffer(frame);
    Frame f = Frame.parse(buf);
    byte[] body = new byte[f.body().readableBytes()];
    f.body().getBytes(f.body().readerIndex(), body);
    byte[] records = new byte[f.recordData().readableBytes()];
    f.recordData().getBytes(f.recordData().readerIndex(), records);
    return new Reply(f.parseHeader(ResponseHeader.parser()), body, records);
  }

  /** True when the broker closed the connection (EOF) within the socket timeout. */
  boolean closedByPeer() throws IOException {
    try {
      while (true) {
        if (in.read() < 0) {
          return true;
        }
      }
    } catch (EOFException e) {
      return true;
    } catch (java.net.SocketException e) {
      return true;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
