package dev.spool.chaos.fuzz;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A slow-loris campaign against a live node: many connections, spread over its Spool and Kafka
 * listeners, that each announce a large frame, send a few bytes of it and stall. It checks the
 * node's own figures from its Prometheus endpoint: while they are held, the request memory pool
 * holds about 1 KiB per connection (the frame decoder grows a buffer with the bytes that arrived,
 * never from the length prefix), the network pool's direct memory stays bounded, and a well-behaved
 * client on each listener is answered; once {@code socket.request.receive.timeout.ms} passes, every
 * stalled connection has been closed by the node and its memory is back.
 *
 * <p>Threads: one caller.
 */
public final class SlowLoris {
  private static final int SENT_BYTES = 10;
  private static final long KIB = 1024;

  private final InetSocketAddress spool;
  private final InetSocketAddress kafka;
  private final URI metrics;
  private final HttpClient http = HttpClient.newHttpClient();

  SlowLoris(InetSocketAddress spool, InetSocketAddress kafka, URI metrics) {
    this.spool = spool;
    this.kafka = kafka;
    this.metrics = metrics;
  }

  /** One scrape: the request pool's bytes and the network pool's direct bytes. */
  record Memory(long requestBytes, long directBytes) {}

  Memory memory() throws IOException, InterruptedException {
    String body =
        http.send(HttpRequest.newBuilder(metrics).build(), HttpResponse.BodyHandlers.ofString())
            .body();
    long request = -1;
    long direct = -1;
    for (String line : body.split("\n")) {
      if (line.startsWith("spool_request_memory_used_bytes ")) {
        request = (long) Double.parseDouble(line.substring(line.indexOf(' ') + 1).trim());
      } else if (line.startsWith("spool_network_pool_direct_used_bytes ")) {
        direct = (long) Double.parseDouble(line.substring(line.indexOf(' ') + 1).trim());
      }
    }
    if (request < 0 || direct < 0) {
      throw new IOException("the node's /metrics lacks the request or network pool gauges");
    }
    return new Memory(request, direct);
  }

  /** Opens a connection that announces {@code announced} bytes and sends {@link #SENT_BYTES}. */
  private static Socket stall(InetSocketAddress to, int announced) throws IOException {
    Socket s = new Socket();
    s.connect(to, 10_000);
    s.setSoTimeout(1);
    OutputStream out = s.getOutputStream();
    out.write(ByteBuffer.allocate(4 + SENT_BYTES).putInt(announced).array());
    out.flush();
    return s;
  }

  private static boolean closedByPeer(Socket s) {
    try {
      return s.getInputStream().read() == -1;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true; // reset by the node
    }
  }

  /** A valid request on a new connection of {@code d}'s listener; true when answered in time. */
  private static boolean served(InetSocketAddress to, FuzzCampaign.Dialect d) {
    try (Socket s = new Socket()) {
      s.connect(to, 5_000);
      s.setSoTimeout(10_000);
      s.getOutputStream().write(d.canary(7));
      DataInputStream in = new DataInputStream(s.getInputStream());
      byte[] answer = new byte[in.readInt()];
      in.readFully(answer);
      return d.correlationId(answer) == 7;
    } catch (IOException e) {
      return false;
    }
  }

  /** Runs the campaign; returns the failures found (empty: every check passed). */
  List<String> run(int connections, int announced, Duration closeWithin) throws Exception {
    List<String> failures = new ArrayList<>();
    FuzzCampaign.Dialect spoolClient = new SpoolRequestFuzzer(spool, 1, "fuzz", 5_000);
    FuzzCampaign.Dialect kafkaClient = new KafkaRequestFuzzer(kafka, 1, "fuzz", 5_000);
    Memory before = memory();
    long start = System.nanoTime();
    List<Socket> held = new ArrayList<>(connections);
    try {
      for (int i = 0; i < connections; i++) {
        held.add(stall(i % 2 == 0 ? spool : kafka, announced));
      }
      double openS = (System.nanoTime() - start) / 1e9;
      long expected = connections * KIB;
      Memory peak = before;
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (System.nanoTime() < deadline) {
        peak = memory();
        if (peak.requestBytes() >= expected) {
          break;
        }
      }
      boolean spoolServed = served(spool, spoolClient);
      boolean kafkaServed = served(kafka, kafkaClient);
      System.out.printf(
          "slow loris: %d connections (announcing %d MiB each, %d bytes sent) open in %.1f s;"
              + " request pool %d KiB (%d per connection), network direct memory %d -> %d MiB;"
              + " a well-behaved client served: spool %s, kafka %s%n",
          connections,
          announced >> 20,
          SENT_BYTES,
          openS,
          peak.requestBytes() / KIB,
          peak.requestBytes() / connections,
          before.directBytes() >> 20,
          peak.directBytes() >> 20,
          spoolServed,
          kafkaServed);
      if (peak.requestBytes() > 2 * expected) {
        failures.add(
            "request pool held " + peak.requestBytes() + " bytes, over 2 KiB a connection");
      }
      if (peak.directBytes() - before.directBytes() > 64L << 20) {
        failures.add("network direct memory grew by more than 64 MiB");
      }
      if (!spoolServed || !kafkaServed) {
        failures.add("a well-behaved client went unanswered while the connections stalled");
      }
      long closeDeadline = System.nanoTime() + closeWithin.toNanos();
      int open = held.size();
      while (open > 0 && System.nanoTime() < closeDeadline) {
        open = 0;
        for (Socket s : held) {
          if (!s.isClosed() && !closedByPeer(s)) {
            open++;
          } else if (!s.isClosed()) {
            s.close();
          }
        }
      }
      Memory after = memory();
      System.out.printf(
          "slow loris: %d of %d connections still open %.0f s after the start; request pool %d"
              + " bytes, network direct memory %d MiB%n",
          open,
          connections,
          (System.nanoTime() - start) / 1e9,
          after.requestBytes(),
          after.directBytes() >> 20);
      if (open > 0) {
        failures.add(open + " stalled connections were still open after " + closeWithin);
      }
      if (after.requestBytes() != 0) {
        failures.add("the request pool still holds " + after.requestBytes() + " bytes");
      }
    } finally {
      for (Socket s : held) {
        s.close();
      }
    }
    return failures;
  }

  /**
   * {@code spool-host:port kafka-host:port metrics-url connections announced-bytes close-within-s}.
   * Exit status 0 when every check passed, 1 otherwise.
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 6) {
      System.err.println(
          "usage: SlowLoris spool-host:port kafka-host:port metrics-url connections"
              + " announced-bytes close-within-seconds");
      System.exit(2);
    }
    List<String> failures =
        new SlowLoris(
                FuzzCampaign.address(args[0]), FuzzCampaign.address(args[1]), URI.create(args[2]))
            .run(
                Integer.parseInt(args[3]),
                Integer.parseInt(args[4]),
                Duration.ofSeconds(Long.parseLong(args[5])));
    for (String f : failures) {
      System.out.println("FAIL: " + f);
    }
    System.exit(failures.isEmpty() ? 0 : 1);
  }
}
