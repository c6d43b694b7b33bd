package dev.spool.protocol;

import dev.spool.protocol.message.ApiKey;
import dev.spool.protocol.message.ApiVersionsResponse;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * The API versions this code speaks. Brokers advertise them in ApiVersions; clients pick, per API,
 * the highest version both sides support. Every API starts at version 0.
 */
public final class ApiVersionTable {
  public record Range(int min, int max) {
    public boolean contains(int version) {
      return version >= min && version <= max;
    }
  }

  private final Map<ApiKey, Range> ranges;

  private ApiVersionTable(Map<ApiKey, Range> ranges) {
    this.ranges = ranges;
  }

  /** What this build of Spool supports. */
  public static final ApiVersionTable CURRENT;

  static {
    Map<ApiKey, Range> m = new EnumMap<>(ApiKey.class);
    for (ApiKey k : ApiKey.values()) {
      if (k != ApiKey.API_KEY_UNSPECIFIED && k != ApiKey.UNRECOGNIZED) {
        m.put(k, new Range(0, 0));
      }
    }
    CURRENT = new ApiVersionTable(m);
  }

  public static ApiVersionTable fromResponse(ApiVersionsResponse response) {
    Map<ApiKey, Range> m = new EnumMap<>(ApiKey.class);
    for (ApiVersionsResponse.ApiVersionRange r : response.getApiVersionsList()) {
      if (r.getApiKey() != ApiKey.UNRECOGNIZED) {
        m.put(r.getApiKey(), new Range(r.getMinVersion(), r.getMaxVersion()));
      }
    }
    return new ApiVersionTable(m);
  }

  public Optional<Range> range(ApiKey key) {
    return Optional.ofNullable(ranges.get(key));
  }

  public boolean supports(ApiKey key, int version) {
    Range r = ranges.get(key);
    return r != null && r.contains(version);
  }

  /** The highest version both tables support, if any. */
  public Optional<Integer> highestCommon(ApiKey key, ApiVersionTable other) {
    Range mine = ranges.get(key);
    Range theirs = other.ranges.get(key);
    if (mine == null || theirs == null) {
      return Optional.empty();
    }
    int max = Math.min(mine.max(), theirs.max());
    int min = Math.max(mine.min(), theirs.min());
    return max >= min ? Optional.of(max) : Optional.empty();
  }

  public ApiVersionsResponse.Builder toResponse() {
    ApiVersionsResponse.Builder b = ApiVersionsResponse.newBuilder();
    ranges.forEach(
        (k, r) ->
            b.addApiVersions(
                ApiVersionsResponse.ApiVersionRange.newBuilder()
                    .setApiKey(k)
                    .setMinVersion(r.min())
                    .setMaxVersion(r.max())));
    return b;
  }
}
