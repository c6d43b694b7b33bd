package dev.spool.broker.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.datapoints.GaugeDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's hot-path metrics: counters and histograms updated where requests, appends and ISR
 * changes happen, registered in the node's {@link PrometheusRegistry}. Everything read from broker
 * state at scrape time (partition counts, log sizes, purgatories, lag) is in {@link BrokerGauges},
 * not here, so it costs the request path nothing.
 *
 * <p>Cost on the hot path: the Prometheus client's counters and histograms are lock-free adders;
 * per-API and per-topic data points are looked up once and cached in concurrent maps, so a request
 * costs a map lookup of a constant string and a few adder increments. With metrics off ({@link
 * #DISABLED}) every method returns at its first branch.
 *
 * <p>Label cardinality: {@code api} comes from the protocols' fixed API sets, {@code error} from
 * the error-code enum, {@code topic} is capped at {@code maxTopicLabels} distinct topics (the rest
 * count under {@value #OTHER_TOPICS}, with one log line when the cap is first hit).
 *
 * <p>Threads: every method may be called from any thread.
 */
public final class BrokerMetrics {
  private static final Logger log = LoggerFactory.getLogger(BrokerMetrics.class);

  /** The topic label of the topics counted beyond {@code maxTopicLabels}. */
  public static final String OTHER_TOPICS = "_other";

  /** Metrics off: nothing is registered, every method is a no-op. */
  public static final BrokerMetrics DISABLED = new BrokerMetrics(null, 0);

  /**
   * Request latency buckets in seconds: 0.1 ms to 10 s, the range between an in-memory answer and a
   * long poll that ran to its deadline.
   */
  private static final double[] LATENCY_BUCKETS_S = {
    0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10
  };

  private static final double NANOS_PER_SECOND = TimeUnit.SECONDS.toNanos(1);

  private final PrometheusRegistry registry;
  private final int maxTopicLabels;
  private final AtomicBoolean topicCapLogged = new AtomicBoolean();
  private final ConcurrentHashMap<String, Api> apis = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Topic> topics = new ConcurrentHashMap<>();
  private final Counter requests;
  private final Counter errors;
  private final Histogram localTime;
  private final Histogram remoteTime;
  private final Histogram responseQueueTime;
  private final Histogram totalTime;
  private final Gauge inFlight;
  private final Gauge connections;
  private final Counter bytesIn;
  private final Counter recordsIn;
  private final Counter bytesOut;
  private final Counter recordsOut;
  private final Counter isrShrinks;
  private final Counter isrExpands;
  private final Histogram logFlush;

  /**
   * Registers the metrics in {@code registry}; {@code null} builds {@link #DISABLED}.
   *
   * @param maxTopicLabels distinct topic label values before the rest count as {@value
   *     #OTHER_TOPICS}
   */
  public BrokerMetrics(PrometheusRegistry registry, int maxTopicLabels) {
    this.registry = registry;
    this.maxTopicLabels = maxTopicLabels;
    if (registry == null) {
      requests = errors = bytesIn = recordsIn = bytesOut = recordsOut = null;
      isrShrinks = isrExpands = null;
      localTime = remoteTime = responseQueueTime = totalTime = logFlush = null;
      inFlight = connections = null;
      return;
    }
    requests = counter("spool_requests_total", "Requests served, by API (both listeners).", "api");
    errors =
        counter(
            "spool_request_errors_total",
            "Error codes answered, by API and code: request-level errors, and partition-level"
                + " errors of Produce and Fetch.",
            "api",
            "error");
    localTime =
        latency(
            "spool_request_local_time_seconds",
            "Time the event loop spent starting the request (parsing, checks, queueing work).");
    remoteTime =
        latency(
            "spool_request_remote_time_seconds",
            "Time from the handler's return until its answer was ready: partition workers, the"
                + " acks=all purgatory, fetch long polls, quorum calls.");
    responseQueueTime =
        latency(
            "spool_request_response_queue_time_seconds",
            "Time a ready answer waited to be written: the hop back to the event loop and"
                + " earlier answers of the same connection (answers go out in request order).");
    totalTime =
        latency(
            "spool_request_total_time_seconds",
            "Time from reading the request until its answer was written.");
    inFlight =
        Gauge.builder()
            .name("spool_requests_in_flight")
            .help("Requests read and not yet answered, by API.")
            .labelNames("api")
            .register(registry);
    connections =
        Gauge.builder()
            .name("spool_connections")
            .help("Open client connections on both listeners.")
            .register(registry);
    bytesIn =
        counter(
            "spool_topic_bytes_in_total",
            "Record-batch bytes appended by produce requests on this broker as leader.",
            "topic");
    recordsIn =
        counter(
            "spool_topic_records_in_total",
            "Records appended by produce requests on this broker as leader.",
            "topic");
    bytesOut =
        counter(
            "spool_topic_bytes_out_total",
            "Record-batch bytes sent to consumers (follower fetches not included).",
            "topic");
    recordsOut =
        counter(
            "spool_topic_records_out_total",
            "Records sent to consumers (follower fetches not included), counted as the offsets the"
                + " sent batches cover: in a compacted topic this includes the offsets the cleaner"
                + " removed from between them.",
            "topic");
    isrShrinks =
        counter(
            "spool_isr_shrinks_total",
            "ISR shrinks of partitions this broker leads, as committed by the quorum.");
    isrExpands =
        counter(
            "spool_isr_expands_total",
            "ISR expansions of partitions this broker leads, as committed by the quorum.");
    logFlush =
        Histogram.builder()
            .name("spool_log_flush_seconds")
            .help(
                "Time of each log flush (fsync of the segments not yet on disk, files and"
                    + " indexes): after a roll, at a clean stop, and after every append under"
                    + " log.flush.policy=always.")
            .unit(Unit.SECONDS)
            .classicOnly()
            .classicUpperBounds(LATENCY_BUCKETS_S)
            .withoutExemplars()
            .register(registry);
  }

  private Counter counter(String name, String help, String... labels) {
    return Counter.builder()
        .name(name)
        .help(help)
        .labelNames(labels)
        .withoutExemplars()
        .register(registry);
  }

  private Histogram latency(String name, String help) {
    return Histogram.builder()
        .name(name)
        .help(help)
        .unit(Unit.SECONDS)
        .labelNames("api")
        .classicOnly()
        .classicUpperBounds(LATENCY_BUCKETS_S)
        .withoutExemplars()
        .register(registry);
  }

  /**
   * The label of an API named by an enum constant ({@code LIST_OFFSETS} becomes {@code
   * ListOffsets}, Kafka's spelling), so both protocols count an API under one name.
   */
  public static String apiLabel(String enumName) {
    StringBuilder b = new StringBuilder(enumName.length());
    boolean upper = true;
    for (int i = 0; i < enumName.length(); i++) {
      char c = enumName.charAt(i);
      if (c == '_') {
        upper = true;
      } else {
        b.append(upper ? Character.toUpperCase(c) : Character.toLowerCase(c));
        upper = false;
      }
    }
    return b.toString();
  }

  /** The label cap: distinct topics here, partitions per metric in {@link BrokerGauges}. */
  public int maxLabels() {
    return maxTopicLabels;
  }

  public boolean enabled() {
    return registry != null;
  }

  /** The registry the node serves; null when metrics are off. */
  public PrometheusRegistry registry() {
    return registry;
  }

  // ---------------------------------------------------------------- requests

  /** The data points of one API, looked up once per API name. */
  public Api api(String name) {
    if (registry == null) {
      return Api.NONE;
    }
    Api a = apis.get(name);
    return a != null ? a : apis.computeIfAbsent(name, n -> new Api(this, n));
  }

  /**
   * One API's request metrics. A connection calls {@link #started} when it reads a request and
   * {@link #finished} when it writes (or drops) the answer.
   */
  public static final class Api {
    static final Api NONE = new Api(null, "");

    private final BrokerMetrics owner;
    private final String name;
    private final CounterDataPoint requests;
    private final GaugeDataPoint inFlight;
    private final DistributionDataPoint local;
    private final DistributionDataPoint remote;
    private final DistributionDataPoint responseQueue;
    private final DistributionDataPoint total;

    private Api(BrokerMetrics owner, String name) {
      this.owner = owner;
      this.name = name;
      if (owner == null) {
        requests = null;
        inFlight = null;
        local = remote = responseQueue = total = null;
        return;
      }
      requests = owner.requests.labelValues(name);
      inFlight = owner.inFlight.labelValues(name);
      local = owner.localTime.labelValues(name);
      remote = owner.remoteTime.labelValues(name);
      responseQueue = owner.responseQueueTime.labelValues(name);
      total = owner.totalTime.labelValues(name);
    }

    public void started() {
      if (owner != null) {
        requests.inc();
        inFlight.inc();
      }
    }

    /**
     * The request's answer was written at {@code writtenNs}: it was read at {@code readNs}, the
     * handler returned at {@code servedNs} and the answer was ready at {@code completedNs}.
     */
    public void finished(long readNs, long servedNs, long completedNs, long writtenNs) {
      if (owner == null) {
        return;
      }
      inFlight.dec();
      local.observe((servedNs - readNs) / NANOS_PER_SECOND);
      remote.observe(Math.max(0, completedNs - servedNs) / NANOS_PER_SECOND);
      responseQueue.observe(Math.max(0, writtenNs - completedNs) / NANOS_PER_SECOND);
      total.observe((writtenNs - readNs) / NANOS_PER_SECOND);
    }

    /** The answer was dropped (the connection closed first): only the in-flight count changes. */
    public void dropped() {
      if (owner != null) {
        inFlight.dec();
      }
    }

    /** One error code answered for this API. */
    public void error(String code) {
      if (owner != null) {
        owner.errors.labelValues(name, code).inc();
      }
    }
  }

  /** Registers a gauge without labels that reads {@code value} at scrape time; off: nothing. */
  public void gauge(String name, String help, LongSupplier value) {
    if (registry != null) {
      GaugeWithCallback.builder()
          .name(name)
          .help(help)
          .callback(cb -> cb.call(value.getAsLong()))
          .register(registry);
    }
  }

  /**
   * Registers a counter without labels ({@code name} ends in {@code _total}) that reads {@code
   * total} at scrape time; off: nothing.
   */
  public void counter(String name, String help, DoubleSupplier total) {
    if (registry != null) {
      CounterWithCallback.builder()
          .name(name)
          .help(help)
          .callback(cb -> cb.call(total.getAsDouble()))
          .register(registry);
    }
  }

  /**
   * Registers a counter with one label ({@code name} ends in {@code _total}): each entry of {@code
   * totals} is read at scrape time under its label value; off: nothing.
   */
  public void counter(
      String name, String help, String label, java.util.Map<String, DoubleSupplier> totals) {
    if (registry != null) {
      CounterWithCallback.builder()
          .name(name)
          .help(help)
          .labelNames(label)
          .callback(
              cb -> {
                for (var e : totals.entrySet()) {
                  cb.call(e.getValue().getAsDouble(), e.getKey());
                }
              })
          .register(registry);
    }
  }

  /** One error code answered for API {@code api} (partition-level errors of a handler). */
  public void error(String api, String code) {
    if (registry != null) {
      errors.labelValues(api, code).inc();
    }
  }

  public void connectionOpened() {
    if (registry != null) {
      connections.inc();
    }
  }

  public void connectionClosed() {
    if (registry != null) {
      connections.dec();
    }
  }

  // ---------------------------------------------------------------- topics and ISR

  private record Topic(
      CounterDataPoint bytesIn,
      CounterDataPoint recordsIn,
      CounterDataPoint bytesOut,
      CounterDataPoint recordsOut) {}

  private Topic topic(String name) {
    Topic t = topics.get(name);
    if (t != null) {
      return t;
    }
    if (topics.size() >= maxTopicLabels) {
      if (topicCapLogged.compareAndSet(false, true)) {
        log.warn(
            "more than {} topics have traffic on this broker: further topics are counted under"
                + " topic=\"{}\" (metrics.partition.labels.max)",
            maxTopicLabels,
            OTHER_TOPICS);
      }
      name = OTHER_TOPICS;
    }
    String n = name;
    return topics.computeIfAbsent(
        n,
        k ->
            new Topic(
                bytesIn.labelValues(k),
                recordsIn.labelValues(k),
                bytesOut.labelValues(k),
                recordsOut.labelValues(k)));
  }

  /** A leader appended {@code records} records in {@code bytes} bytes of a produce to topic. */
  public void produced(String topic, long bytes, long records) {
    if (registry != null) {
      Topic t = topic(topic);
      t.bytesIn().inc(bytes);
      t.recordsIn().inc(records);
    }
  }

  /**
   * {@code bytes} of topic's record data, covering {@code records} offsets, were answered to a
   * consumer fetch.
   */
  public void consumed(String topic, long bytes, long records) {
    if (registry != null && bytes > 0) {
      Topic t = topic(topic);
      t.bytesOut().inc(bytes);
      if (records > 0) {
        t.recordsOut().inc(records);
      }
    }
  }

  /** A log flush took {@code nanos}. */
  public void logFlushed(long nanos) {
    if (registry != null) {
      logFlush.observe(nanos / NANOS_PER_SECOND);
    }
  }

  public void isrShrunk() {
    if (registry != null) {
      isrShrinks.inc();
    }
  }

  public void isrExpanded() {
    if (registry != null) {
      isrExpands.inc();
    }
  }

  // ---------------------------------------------------------------- totals

  /**
   * Node-wide running totals, for the status page's sparklines: record bytes in and out over every
   * topic, and the count and summed total time of produce requests (both listeners).
   */
  public record Totals(
      double bytesIn, double bytesOut, double produceRequests, double produceSeconds) {
    public static final Totals ZERO = new Totals(0, 0, 0, 0);
  }

  /** The running totals now; zeros when metrics are off. Any thread (reads the adders). */
  public Totals totals() {
    if (registry == null) {
      return Totals.ZERO;
    }
    double in = 0;
    for (var d : bytesIn.collect().getDataPoints()) {
      in += d.getValue();
    }
    double out = 0;
    for (var d : bytesOut.collect().getDataPoints()) {
      out += d.getValue();
    }
    String produce = apiLabel("PRODUCE");
    double count = 0;
    double seconds = 0;
    for (var d : totalTime.collect().getDataPoints()) {
      if (produce.equals(d.getLabels().get("api"))) {
        count += d.getCount();
        seconds += d.getSum();
      }
    }
    return new Totals(in, out, count, seconds);
  }
}
