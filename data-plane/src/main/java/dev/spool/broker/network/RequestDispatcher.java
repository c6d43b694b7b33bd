package dev.spool.broker.network;

import dev.spool.protocol.ApiVersionTable;
import dev.spool.protocol.message.ApiKey;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * Maps API keys to their handlers; the versions it answers are those of {@link ApiVersionTable}.
 */
public final class RequestDispatcher {
  private final Map<ApiKey, RequestHandler> handlers = new EnumMap<>(ApiKey.class);
  private final ApiVersionTable versions;

  public RequestDispatcher(ApiVersionTable versions) {
    this.versions = versions;
  }

  public RequestDispatcher register(ApiKey key, RequestHandler handler) {
    if (handlers.putIfAbsent(key, handler) != null) {
      throw new IllegalArgumentException("two handlers for " + key);
    }
    return this;
  }

  Optional<RequestHandler> handler(ApiKey key) {
    return Optional.ofNullable(handlers.get(key));
  }

  boolean supports(ApiKey key, int version) {
    return versions.supports(key, version);
  }
}
