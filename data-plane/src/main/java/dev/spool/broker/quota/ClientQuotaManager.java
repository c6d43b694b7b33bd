package dev.spool.broker.quota;

import dev.spool.common.ClientQuotaEntity;
import dev.spool.quorum.image.MetadataImage;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A broker's client quotas (docs/security.md#quotas), as Kafka's {@code ClientQuotaManager}: each
 * produce request's size and each consumer fetch answer's size is added to the rate of whoever the
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
    PRODUCE(ClientQuotaEntity.PRODUCER_BYTE_RATE),
    FETCH(ClientQuotaEntity.CONSUMER_BYTE_RATE);

    final String key;

    Kind(String key) {
      this.key = key;
    }
  }

  /** No quotas (tests that build a context by hand). */
  public static final ClientQuotaManager NONE =
      new ClientQuotaManager(() -> MetadataImage.EMPTY, 11, 1_000);

  private record Key(Kind kind, ClientQuotaEntity metered) {}

  private final Supplier<MetadataImage> image;
  private final int samples;
  private final long windowMs;
  private final Map<Key, QuotaRate> rates = new ConcurrentHashMap<>();
  private final AtomicLong throttledMs = new AtomicLong();
  private final AtomicLong lastSweepMs = new AtomicLong();

  /**
   * @param samples {@code quota.window.num}
   * @param windowMs {@code quota.window.size.seconds} in milliseconds
   */
  public ClientQuotaManager(Supplier<MetadataImage> image, int samples, long windowMs) {
    this.image = image;
    this.samples = samples;
    this.windowMs = windowMs;
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
      throttledMs.addAndGet(throttle);
    }
    return throttle;
  }

  /**
   * Every throttle time answered so far, in seconds (spool_client_quota_throttle_seconds_total).
   */
  public double throttledSeconds() {
    return throttledMs.get() / 1000.0;
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
