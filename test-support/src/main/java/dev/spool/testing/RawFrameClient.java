package dev.spool.testing;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import dev.spool.common.ErrorCode;
import dev.spool.common.ScramClient;
import dev.spool.common.ScramMechanism;
import dev.spool.protocol.Frame;
import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.RequestHeader;
import dev.spool.protocol.message.ResponseHeader;
import dev.spool.protocol.message.SaslAuthenticateRequest;
import dev.spool.protocol.message.SaslAuthenticateResponse;
import dev.spool.protocol.message.SaslHandshakeRequest;
import dev.spool.protocol.message.SaslHandshakeResponse;
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
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * A blocking connection that speaks raw Spool frames to one broker, so a test can send anything: a
 * well-formed request with any header, or bytes no client would send (random bytes, a frame shorter
 * than its header, negative or huge lengths). It reads answers frame by frame and can tell whether
 * the broker closed the connection.
 *
 * <pre>{@code
 * try (RawFrameClient raw = RawFrameClient.connect(cluster.node(1).brokerAddress())) {
 *   RawFrameClient.Reply r = raw.request(ApiKey.METADATA, MetadataRequest.getDefaultInstance());
 *   MetadataResponse m = r.body(MetadataResponse.parser());
 *   raw.sendRaw(new byte[] {0, 0, 0, 3});    // a frame too short for its section lengths
 *   assertTrue(raw.closedByPeer());
 * }
 * }</pre>
 *
 * <p>Not thread-safe: one test thread owns a connection.
 */
public final class RawFrameClient implements AutoCloseable {
  /** Answers longer than this are refused (a broken length, not a real answer). */
  private static final int MAX_FRAME_BYTES = 64 * 1024 * 1024;

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);
  private static final String CLIENT_ID = "spool-raw-frame-client";

  /** One answer: its header and the bytes of its body and record-data sections. */
  public record Reply(ResponseHeader header, byte[] body, byte[] records) {
    /** The body parsed with {@code parser} (e.g. {@code MetadataResponse.parser()}). */
    public <T> T body(Parser<T> parser) throws IOException {
      return parser.parseFrom(body);
    }
  }

  private final InetSocketAddress address;
  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;
  private int correlationId;

  private RawFrameClient(InetSocketAddress address, Duration timeout, SSLSocketFactory tls)
      throws IOException {
    this.address = address;
    Socket plain = new Socket();
    Socket s = plain;
    try {
      plain.connect(address, (int) Math.min(timeout.toMillis(), CONNECT_TIMEOUT.toMillis()));
      plain.setSoTimeout((int) timeout.toMillis());
      plain.setTcpNoDelay(true);
      if (tls != null) {
        SSLSocket ssl =
            (SSLSocket) tls.createSocket(plain, address.getHostString(), address.getPort(), true);
        s = ssl;
        ssl.startHandshake();
      }
      this.socket = s;
      this.in = new DataInputStream(s.getInputStream());
      this.out = s.getOutputStream();
    } catch (IOException e) {
      s.close();
      plain.close();
      throw e;
    }
  }

  /** Connects to {@code address}; reads wait up to 10 s. */
  public static RawFrameClient connect(InetSocketAddress address) throws IOException {
    return new RawFrameClient(address, READ_TIMEOUT, null);
  }

  /** Connects to a broker on 127.0.0.1. */
  public static RawFrameClient connect(int port) throws IOException {
    return connect(new InetSocketAddress("127.0.0.1", port));
  }

  /** Connects within {@code timeout} (at most 5 s); reads wait up to {@code timeout}. */
  public static RawFrameClient connect(InetSocketAddress address, Duration timeout)
      throws IOException {
    return new RawFrameClient(address, timeout, null);
  }

  /** As {@link #connect(InetSocketAddress, Duration)}, over TLS when {@code tls} is not null. */
  public static RawFrameClient connect(
      InetSocketAddress address, Duration timeout, SSLSocketFactory tls) throws IOException {
    return new RawFrameClient(address, timeout, tls);
  }

  /** The bytes of one request frame: section lengths, header, body, then {@code records}. */
  public static byte[] frame(MessageLite header, MessageLite body, byte[] records) {
    ByteBuf prefix = Frame.encodePrefix(ByteBufAllocator.DEFAULT, header, body, records.length);
    try {
      int prefixBytes = prefix.readableBytes();
      byte[] bytes = new byte[prefixBytes + records.length];
      prefix.readBytes(bytes, 0, prefixBytes);
      System.arraycopy(records, 0, bytes, prefixBytes, records.length);
      return bytes;
    } finally {
      prefix.release();
    }
  }

  /** Who to log in as on a SASL listener ({@link #authenticate}). */
  public record Login(String mechanism, String user, String password) {
    @Override
    public String toString() {
      return mechanism + " as " + user;
    }
  }

  /**
   * Logs in on a SASL listener: SaslHandshake, then SaslAuthenticate with PLAIN's message or
   * SCRAM's exchange (the server's signature checked); throws naming the broker's error.
   */
  public void authenticate(Login login) throws IOException {
    SaslHandshakeResponse h =
        request(
                ApiKey.SASL_HANDSHAKE,
                SaslHandshakeRequest.newBuilder().setMechanism(login.mechanism()).build())
            .body(SaslHandshakeResponse.parser());
    if (h.getErrorCode() != ErrorCode.NONE) {
      throw new IOException(
          address + " refused SaslHandshake: " + h.getErrorCode() + " " + h.getErrorMessage());
    }
    ScramMechanism m = ScramMechanism.forName(login.mechanism()).orElse(null);
    if (m == null) {
      saslToken(("\0" + login.user() + "\0" + login.password()).getBytes(StandardCharsets.UTF_8));
      return;
    }
    byte[] nonce = new byte[18];
    new SecureRandom().nextBytes(nonce);
    ScramClient scram =
        new ScramClient(
            m, login.user(), login.password(), Base64.getEncoder().encodeToString(nonce));
    byte[] serverFirst = saslToken(scram.clientFirst());
    scram.serverFinal(saslToken(scram.clientFinal(serverFirst)));
  }

  private byte[] saslToken(byte[] token) throws IOException {
    SaslAuthenticateResponse r =
        request(
                ApiKey.SASL_AUTHENTICATE,
                SaslAuthenticateRequest.newBuilder()
                    .setAuthBytes(ByteString.copyFrom(token))
                    .build())
            .body(SaslAuthenticateResponse.parser());
    if (r.getErrorCode() != ErrorCode.NONE) {
      throw new IOException(
          address + " refused SaslAuthenticate: " + r.getErrorCode() + " " + r.getErrorMessage());
    }
    return r.getAuthBytes().toByteArray();
  }

  /** A version-0 request header with the next correlation id of this connection. */
  public RequestHeader header(ApiKey key) {
    return RequestHeader.newBuilder()
        .setApiKey(key)
        .setApiVersion(0)
        .setCorrelationId(++correlationId)
        .setClientId(CLIENT_ID)
        .build();
  }

  /** Sends a request with an explicit version and correlation id (pipelining, bad versions). */
  public void send(ApiKey key, int version, int correlationId, MessageLite body, byte[] records)
      throws IOException {
    send(
        RequestHeader.newBuilder()
            .setApiKey(key)
            .setApiVersion(version)
            .setCorrelationId(correlationId)
            .setClientId(CLIENT_ID)
            .build(),
        body,
        records);
  }

  /** Sends a frame with any header (e.g. an unknown API key). */
  public void send(MessageLite header, MessageLite body, byte[] records) throws IOException {
    sendRaw(frame(header, body, records));
  }

  /** Writes {@code bytes} as they are. */
  public void sendRaw(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** Sends {@code body} (version 0, next correlation id) and reads the answer. */
  public Reply request(ApiKey key, MessageLite body) throws IOException {
    return request(key, body, new byte[0]);
  }

  /** Sends {@code body} with {@code records} as its record data and reads the answer. */
  public Reply request(ApiKey key, MessageLite body, byte[] records) throws IOException {
    return request(header(key), body, records);
  }

  /** Sends a request with {@code header} and reads the answer. */
  public Reply request(RequestHeader header, MessageLite body, byte[] records) throws IOException {
    send(header, body, records);
    return receive();
  }

  /** Reads the next answer frame; an end of stream or an impossible length is an IOException. */
  public Reply receive() throws IOException {
    int length = in.readInt();
    if (length < Frame.SECTION_LENGTHS_BYTES || length > MAX_FRAME_BYTES) {
      throw new IOException(address + " answered with a frame length of " + length);
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    try {
      Frame f = Frame.parse(Unpooled.wrappedBuffer(bytes));
      return new Reply(
          f.parseHeader(ResponseHeader.parser()), copy(f.body()), copy(f.recordData()));
    } catch (RuntimeException e) {
      throw new IOException(address + " answered with an unreadable frame: " + e.getMessage(), e);
    }
  }

  private static byte[] copy(ByteBuf b) {
    byte[] out = new byte[b.readableBytes()];
    b.getBytes(b.readerIndex(), out);
    return out;
  }

  /**
   * True when the broker closes the connection (end of stream or reset) within the read timeout;
   * false when it stays open that long. Anything it sends first (an error answer) is skipped.
   */
  public boolean closedByPeer() throws IOException {
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
