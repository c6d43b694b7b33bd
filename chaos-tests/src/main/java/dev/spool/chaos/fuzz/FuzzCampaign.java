package dev.spool.chaos.fuzz;

import dev.spool.common.HostPort;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * The loop every protocol's fuzzer shares: mutated requests go pipelined in rounds of {@link
 * #ROUND}, each followed by a valid sentinel request; a round ends at the sentinel's answer or when
 * the broker closes the connection (its answer to a malformed request), and the next round opens a
 * new one. A canary connection sends a valid request every 16 rounds and at the end and must be
 * answered every time: one connection's garbage must never cost another client.
 *
 * <p>Threads: one caller; not thread-safe.
 */
public final class FuzzCampaign {
  /** Mutated requests per round before the sentinel. */
  static final int ROUND = 4;

  /** The correlation id of the sentinel request. */
  static final int SENTINEL_CORRELATION = Integer.MAX_VALUE;

  /** What a campaign needs from one protocol. Every frame includes its 4-byte size field. */
  public interface Dialect {
    /** The next mutated request frame. */
    byte[] nextMutant();

    /** A valid request frame with correlation id {@link #SENTINEL_CORRELATION}. */
    byte[] sentinel();

    /** A valid request frame with correlation id {@code n}, for the canary connection. */
    byte[] canary(int n);

    /** The correlation id of an answer frame (without its size field); throws when unreadable. */
    int correlationId(byte[] answer) throws IOException;
  }

  /** Outcome of a campaign. */
  public record Result(long sent, long answered, long closes, long canaryChecks) {}

  private FuzzCampaign() {}

  /** Sends at least {@code requests} mutants; throws when the canary goes unanswered. */
  public static Result run(
      InetSocketAddress target, Dialect dialect, long requests, int readTimeoutMs)
      throws IOException {
    long sent = 0;
    long answered = 0;
    long closes = 0;
    long canary = 0;
    long rounds = 0;
    try (Conn health = new Conn(target, readTimeoutMs, dialect)) {
      Conn c = null;
      try {
        while (sent < requests) {
          if (c == null) {
            c = new Conn(target, readTimeoutMs, dialect);
          }
          for (int i = 0; i < ROUND; i++) {
            if (!c.trySend(dialect.nextMutant())) {
              break;
            }
            sent++;
          }
          c.trySend(dialect.sentinel());
          int got = c.readUntilSentinel();
          if (got < 0) {
            closes++;
            c.close();
            c = null;
          } else {
            answered += got;
          }
          if (++rounds % 16 == 0) {
            health.checkCanary(canary++);
          }
        }
        health.checkCanary(canary++);
      } finally {
        if (c != null) {
          c.close();
        }
      }
    }
    return new Result(sent, answered, closes, canary);
  }

  /** Makes a protocol's fuzzer: target, seed, topic, read timeout. */
  interface Fuzzer {
    Dialect create(InetSocketAddress target, long seed, String topic, int readTimeoutMs);
  }

  /**
   * {@code host:port seed requests [topic]}: runs a campaign of {@code name}'s fuzzer from a
   * command line and prints its outcome and rate.
   */
  static void main(String name, Fuzzer fuzzer, String[] args) throws IOException {
    if (args.length < 3) {
      System.err.println("usage: " + name + " host:port seed requests [topic]");
      System.exit(2);
    }
    InetSocketAddress target = address(args[0]);
    long seed = Long.parseLong(args[1]);
    long requests = Long.parseLong(args[2]);
    String topic = args.length > 3 ? args[3] : "fuzz";
    long start = System.nanoTime();
    Result r = run(target, fuzzer.create(target, seed, topic, 5_000), requests, 5_000);
    double secs = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        "%s seed %d: %d mutated requests in %.1f s (%.0f/s), %d answered, %d connections"
            + " closed by the broker, %d canary requests answered%n",
        name, seed, r.sent(), secs, r.sent() / secs, r.answered(), r.closes(), r.canaryChecks());
  }

  /** {@code host:port} (the one parser, {@link HostPort}) as an address. */
  static InetSocketAddress address(String hostPort) {
    HostPort hp = HostPort.parse(hostPort);
    return new InetSocketAddress(hp.host(), hp.port());
  }

  /** One blocking connection. */
  private static final class Conn implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final Dialect dialect;

    Conn(InetSocketAddress target, int readTimeoutMs, Dialect dialect) throws IOException {
      this.dialect = dialect;
      socket = new Socket();
      socket.connect(target, readTimeoutMs);
      socket.setSoTimeout(readTimeoutMs);
      socket.setTcpNoDelay(true);
      in = new DataInputStream(socket.getInputStream());
      out = socket.getOutputStream();
    }

    /** False when the broker has closed the connection already. */
    boolean trySend(byte[] frame) {
      try {
        out.write(frame);
        return true;
      } catch (IOException e) {
        return false;
      }
    }

    private byte[] readAnswer() throws IOException {
      int size = in.readInt();
      if (size < 4) {
        throw new IllegalStateException("answer of size " + size);
      }
      byte[] answer = new byte[size];
      in.readFully(answer);
      return answer;
    }

    /**
     * Reads answers until the sentinel's; their number, or -1 when the connection closed (or the
     * sentinel never came: a request held it back, e.g. a frame whose size field promised more).
     */
    int readUntilSentinel() {
      int answers = 0;
      try {
        out.flush();
        while (true) {
          if (dialect.correlationId(readAnswer()) == SENTINEL_CORRELATION) {
            return answers;
          }
          answers++;
        }
      } catch (EOFException | SocketTimeoutException e) {
        return -1;
      } catch (IOException e) {
        return -1; // reset by the broker
      }
    }

    void checkCanary(long n) throws IOException {
      out.write(dialect.canary((int) n));
      out.flush();
      byte[] answer;
      try {
        answer = readAnswer();
      } catch (IOException e) {
        throw new IOException("canary request " + n + " went unanswered: " + e, e);
      }
      int correlationId = dialect.correlationId(answer);
      if (correlationId != (int) n) {
        throw new IOException("canary answer " + correlationId + " for request " + n);
      }
    }

    @Override
    public void close() {
      try {
        socket.close();
      } catch (IOException e) {
        // closing a broken socket: nothing to keep
      }
    }
  }
}
