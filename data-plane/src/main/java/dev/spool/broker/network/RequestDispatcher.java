package dev.spool.broker.network;

import dev.spool.broker.quota.RequestMeter;
import dev.spool.broker.security.Caller;
import dev.spool.protocol.ApiVersionTable;
import dev.spool.protocol.message.ApiKey;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;

/**
 * Maps API keys to their handlers; the versions it answers are those of {@link ApiVersionTable}.
 */
public final class RequestDispatcher {
  private final Map<ApiKey, RequestHandler> handlers = new EnumMap<>(ApiKey.class);
  private final ApiVersionTable versions;
  private BiFunction<Caller, String, RequestMeter> meters = (caller, clientId) -> null;

  public RequestDispatcher(ApiVersionTable versions) {
    this.versions = versions;
  }

  public RequestDispatcher register(ApiKey key, RequestHandler handler) {
    if (handlers.putIfAbsent(key, handler) != null) {
      throw new IllegalArgumentException("two handlers for " + key);
    }
    return this;
  }

  /**
   * Where requests get their request-quota meter (docs/security.md#quotas): by caller and client
   * id, null when no request quota applies. None unless set.
   */
  public RequestDispatcher meters(BiFunction<Caller, String, RequestMeter> meters) {
    this.meters = meters;
    return this;
  }

  RequestMeter meter(Caller caller, String clientId) {
    return meters.apply(caller, clientId);
  }

  Optional<RequestHandler> handler(ApiKey key) {
    return Optional.ofNullable(handlers.get(key));
  }

  boolean supports(ApiKey key, int version) {
    return versions.supports(key, version);
  }
}
