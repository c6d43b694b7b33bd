package dev.spool.broker.quota;

import dev.spool.common.ClientQuotaEntity;
import dev.spool.quorum.image.MetadataImage;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A broker's client quotas (docs/security.md#quotas), as Kafka's {@code ClientQuotaManager} and
 * {@code ClientRequestQuotaManager}: each produce request's size, each consumer fetch answer's size
 * and the thread time of requests ({@link RequestMeter}) is added to the rate of whoever the
 * applicable quota meters ({@link QuotaResolution}), measured over {@code quota.window.num} windows
 * of {@code quota.window.size.seconds}; when the rate is over the quota the answer carries Kafka's
 * throttle time and the connection stops reading for that long. The quotas are read from the
 * metadata image on every request, so a change applies at the next request. Rates nobody used for
 * the whole span of the windows are dropped.
 *
 * <p>Threads: thread-safe; called by the connections' event loops and the threads completing
 * answers. Each rate is locked on its own.
 */
public final class ClientQuotaManager {
  /** What a request is counted against. */
  public enum Kind {
    PRODUCE(ClientQuotaEntity.PRODUCER_BYTE_RATE, "produce"),
    FETCH(ClientQuotaEntity.CONSUMER_BYTE_RATE, "fetch"),
    /** Thread time, in Kafka's percent of one thread ({@link RequestMeter}). */
    REQUEST(ClientQuotaEntity.REQUEST_PERCENTAGE, "request");

    final String key;

    /** The {@code quota_type} label of the throttle metric. */
    public final String label;

    Kind(String key, String label) {
      this.key = key;
      this.label = label;
    }
  }

  // Kafka's nanosToPercentage: a second of one thread's time is 100 (percent) over one second.
  private static final double PERCENT_PER_NANO = 100.0 / 1_000_000_000L;

  /** No quotas (tests that build a context by hand). */
  public static final ClientQuotaManager NONE =
      new ClientQuotaManager(() -> MetadataImage.EMPTY, 11, 1_000);

  private record Key(Kind kind, ClientQuotaEntity metered) {}

  private final Supplier<MetadataImage> image;
  private final int samples;
  private final long windowMs;
  private final Map<Key, QuotaRate> rates = new ConcurrentHashMap<>();
  private final LongSupplier clockMs;
  private final AtomicLong[] throttledMs = new AtomicLong[Kind.values().length];
  private final AtomicLong requestNanos = new AtomicLong();
  private final AtomicLong lastSweepMs = new AtomicLong();

  /**
   * @param samples {@code quota.window.num}
   * @param windowMs {@code quota.window.size.seconds} in milliseconds
   */
  public ClientQuotaManager(Supplier<MetadataImage> image, int samples, long windowMs) {
    this(image, samples, windowMs, () -> System.nanoTime() / 1_000_000);
  }

  /**
   * @param clockMs a monotonic clock in milliseconds: the time at which thread time is recorded
   *     into request quotas (byte rates get theirs from the caller)
   */
  public ClientQuotaManager(
      Supplier<MetadataImage> image, int samples, long windowMs, LongSupplier clockMs) {
    this.image = image;
    this.samples = samples;
    this.windowMs = windowMs;
    this.clockMs = clockMs;
    for (int i = 0; i < throttledMs.length; i++) {
      throttledMs[i] = new AtomicLong();
    }
  }

  /**
   * Counts {@code bytes} of a {@code kind} request by {@code principal} ({@code Type:name}) with
   * {@code clientId} and answers how long it is throttled: 0 when no quota applies or the rate is
   * within it.
   */
  public long recordAndGetThrottleMs(
      Kind kind, String principal, String clientId, long bytes, long nowMs) {
    Map<ClientQuotaEntity, Map<String, Double>> quotas = image.get().clientQuotas();
    if (quotas.isEmpty()) {
      return 0;
    }
    QuotaResolution.Resolved q =
        QuotaResolution.resolve(quotas, kind.key, QuotaResolution.user(principal), clientId);
    if (q == null) {
      return 0;
    }
    sweep(nowMs);
    QuotaRate rate =
        rates.computeIfAbsent(
            new Key(kind, q.metered()), k -> new QuotaRate(samples, windowMs, nowMs));
    long throttle;
    synchronized (rate) {
      rate.record(bytes, nowMs);
      throttle =
          QuotaRate.throttleMs(rate.perSecond(nowMs), q.bytesPerSec(), rate.windowSizeMs(nowMs));
    }
    if (throttle > 0) {
      throttledMs[kind.ordinal()].addAndGet(throttle);
    }
    return throttle;
  }

  /**
   * The meter of a request by {@code principal} with {@code clientId} when a {@code
   * request_percentage} quota applies to it, else null (nothing is measured).
   */
  public RequestMeter requestMeter(String principal, String clientId) {
    Map<ClientQuotaEntity, Map<String, Double>> quotas = image.get().clientQuotas();
    if (quotas.isEmpty()) {
      return null;
    }
    QuotaResolution.Resolved q =
        QuotaResolution.resolve(
            quotas, Kind.REQUEST.key, QuotaResolution.user(principal), clientId);
    if (q == null) {
      return null;
    }
    long nowMs = clockMs.getAsLong();
    sweep(nowMs);
    QuotaRate rate =
        rates.computeIfAbsent(
            new Key(Kind.REQUEST, q.metered()), k -> new QuotaRate(samples, windowMs, nowMs));
    return new RequestMeter(this, rate, q.bytesPerSec());
  }

  /** Adds thread time to a request quota's rate, in Kafka's unit (percent of a thread × s). */
  void recordRequestNanos(RequestMeter meter, long nanos) {
    long nowMs = clockMs.getAsLong();
    synchronized (meter.rate) {
      meter.rate.record(nanos * PERCENT_PER_NANO, nowMs);
    }
    requestNanos.addAndGet(nanos);
  }

  /**
   * A request quota's throttle time: Kafka's formula as for byte rates, but never more than one
   * window ({@code quota.window.size.seconds}), as Kafka bounds request-time throttles.
   */
  long requestThrottleMs(RequestMeter meter) {
    long nowMs = clockMs.getAsLong();
    long throttle;
    synchronized (meter.rate) {
      throttle =
          Math.min(
              windowMs,
              QuotaRate.throttleMs(
                  meter.rate.perSecond(nowMs), meter.percent, meter.rate.windowSizeMs(nowMs)));
    }
    if (throttle > 0) {
      throttledMs[Kind.REQUEST.ordinal()].addAndGet(throttle);
    }
    return throttle;
  }

  /**
   * Every throttle time answered so far, in seconds (spool_client_quota_throttle_seconds_total).
   */
  public double throttledSeconds() {
    long total = 0;
    for (AtomicLong t : throttledMs) {
      total += t.get();
    }
    return total / 1000.0;
  }

  /** The throttle time answered for quotas of {@code kind}, in seconds. */
  public double throttledSeconds(Kind kind) {
    return throttledMs[kind.ordinal()].get() / 1000.0;
  }

  /**
   * The thread time recorded against request quotas so far, all clients together, in seconds
   * (spool_client_request_time_seconds_total).
   */
  public double requestSeconds() {
    return requestNanos.get() / 1e9;
  }

  /** How many rates are kept (tests). */
  int rateCount() {
    return rates.size();
  }

  /** At most once per window span, drops the rates idle for the whole span. */
  private void sweep(long nowMs) {
    long span = samples * windowMs;
    long last = lastSweepMs.get();
    if (nowMs - last < span || !lastSweepMs.compareAndSet(last, nowMs)) {
      return;
    }
    rates
        .entrySet()
        .removeIf(
            e -> {
              synchronized (e.getValue()) {
                return e.getValue().idle(nowMs);
              }
            });
  }
}
