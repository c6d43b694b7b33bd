package dev.spool.node.ops;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.spool.common.HostPort;
import dev.spool.config.ConfigException;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's operations endpoint on {@code metrics.listener}: one small HTTP server with fixed
 * routes, {@code /metrics} (Prometheus text format), {@code /health/live} and {@code
 * /health/ready}, and the status page ({@code /} and its {@code /status.json}, see {@link
 * StatusPage}). Any other path is 404, any method but GET and HEAD 405.
 *
 * <p>It runs on the JDK's HTTP server with one thread of its own ({@code ops-http-<id>}), never on
 * a Netty event loop or a partition worker: a slow scrape delays only the next scrape. Everything a
 * scrape or a health check reads is published state (volatile fields, immutable images, adders).
 * The same thread samples the status page's sparklines once a second.
 *
 * <p>Threads: {@link #start} and {@link #close} on the node's thread; requests on {@code
 * ops-http-<id>}.
 */
public final class OpsServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(OpsServer.class);

  /** A readiness verdict: {@code reason} says which condition fails (empty when ready). */
  public record Readiness(boolean ready, String reason) {
    public static final Readiness READY = new Readiness(true, "");

    public static Readiness notReady(String reason) {
      return new Readiness(false, reason);
    }
  }

  private static final String TEXT = "text/plain; charset=utf-8";

  /** How often the status page's sparklines take a sample. */
  static final long SAMPLE_INTERVAL_MS = 1000;

  private final PrometheusRegistry registry;
  private final Supplier<Readiness> readiness;
  private final StatusPage status;
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

  /** The last /metrics answer; written and read only on the ops thread. */
  private final ByteArrayOutputStream page = new ByteArrayOutputStream(64 * 1024);

  private final HttpServer server;
  private final ScheduledExecutorService thread;

  private OpsServer(
      PrometheusRegistry registry,
      Supplier<Readiness> readiness,
      StatusPage status,
      HttpServer server,
      ScheduledExecutorService thread) {
    this.registry = registry;
    this.readiness = readiness;
    this.status = status;
    this.server = server;
    this.thread = thread;
  }

  /**
   * Binds {@code listener} and starts serving. A port already taken fails with a {@link
   * ConfigException} naming {@code metrics.listener}.
   */
  public static OpsServer start(
      String listener,
      int nodeId,
      PrometheusRegistry registry,
      Supplier<Readiness> readiness,
      StatusPage status) {
    HostPort hp = HostPort.parse(listener);
    HttpServer http;
    try {
      http = HttpServer.create(new InetSocketAddress(hp.host(), hp.port()), 16);
    } catch (BindException e) {
      throw new ConfigException(
          OpsConfig.METRICS_LISTENER.name(),
          listener + " cannot be bound (" + e.getMessage() + "); is another process using it?");
    } catch (IOException e) {
      throw new ConfigException(
          OpsConfig.METRICS_LISTENER.name(), "cannot listen on " + listener + ": " + e);
    }
    ScheduledExecutorService thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "ops-http-" + nodeId);
              t.setDaemon(true);
              return t;
            });
    OpsServer s = new OpsServer(registry, readiness, status, http, thread);
    http.createContext("/", s::handle);
    http.setExecutor(thread);
    http.start();
    thread.scheduleAtFixedRate(
        s::sample, 0, SAMPLE_INTERVAL_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
    log.info("[node={}] metrics and health on http://{}/metrics", nodeId, s.address());
    return s;
  }

  /** Where the server listens (the bound port when the configured one was 0). */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String method = ex.getRequestMethod();
      if (!method.equals("GET") && !method.equals("HEAD")) {
        ex.getResponseHeaders().set("Allow", "GET, HEAD");
        send(ex, 405, TEXT, bytes("method " + method + " not allowed\n"));
        return;
      }
      String path = ex.getRequestURI().getPath();
      switch (path) {
        case "/metrics" -> metrics(ex);
        case "/health/live" -> send(ex, 200, TEXT, bytes("live\n"));
        case "/health/ready" -> ready(ex);
        case "/", "/index.html" -> send(ex, 200, "text/html; charset=utf-8", status.html());
        case "/status.json" -> send(ex, 200, "application/json", status.json());
        default -> send(ex, 404, TEXT, bytes("no such path: " + path + "\n"));
      }
    } catch (RuntimeException e) {
      log.warn("ops endpoint failed to answer {}: {}", ex.getRequestURI(), e.toString());
      throw e;
    }
  }

  private void sample() {
    try {
      status.sample(System.nanoTime());
    } catch (RuntimeException e) {
      // A failed sample leaves a gap in the sparklines; it must not cancel the schedule.
      log.warn("status page sample failed: {}", e.toString());
    }
  }

  /**
   * Writes the text into {@link #page}, which keeps its array from scrape to scrape, and sends it
   * with its length. A fresh buffer grown from 64 KiB and copied out with {@code toByteArray} cost
   * about 6 MiB per scrape at 10,000 partitions (docs/operations.md#cost); streaming it chunked (4
   * KiB chunks) saved as much but scraped slower in the bench. The page stays bounded by {@code
   * metrics.partition.labels.max}.
   */
  private void metrics(HttpExchange ex) throws IOException {
    page.reset();
    writer.write(page, registry.scrape(), EscapingScheme.UNDERSCORE_ESCAPING);
    send(ex, 200, PrometheusTextFormatWriter.CONTENT_TYPE, page.size(), page::writeTo);
  }

  private void ready(HttpExchange ex) throws IOException {
    Readiness r = readiness.get();
    if (r.ready()) {
      send(ex, 200, TEXT, bytes("ready\n"));
    } else {
      send(ex, 503, TEXT, bytes("not ready: " + r.reason() + "\n"));
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void send(HttpExchange ex, int status, String type, byte[] body)
      throws IOException {
    send(ex, status, type, body.length, os -> os.write(body));
  }

  /** An answer's bytes, written into the response. */
  private interface Body {
    void writeTo(OutputStream os) throws IOException;
  }

  /** Sends {@code length} bytes of {@code body}, or the headers alone to a HEAD request. */
  private static void send(HttpExchange ex, int status, String type, long length, Body body)
      throws IOException {
    ex.getResponseHeaders().set("Content-Type", type);
    boolean head = ex.getRequestMethod().equals("HEAD");
    ex.sendResponseHeaders(status, head ? -1 : length);
    if (!head) {
      try (OutputStream os = ex.getResponseBody()) {
        body.writeTo(os);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    thread.shutdownNow();
  }
}
