package dev.spool.common;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Whom a client quota applies to (docs/security.md#quotas), Kafka's model: a user, a client id, or
 * both; each part either a name or {@link #DEFAULT} (every user or client id without a quota of its
 * own). A null part is not part of the entity. The keys a quota sets are {@link #KEYS}.
 *
 * <p>Threads: immutable.
 *
 * @param user the user principal's name (without {@code User:}), {@link #DEFAULT}, or null
 * @param clientId the client id, {@link #DEFAULT}, or null
 */
public record ClientQuotaEntity(String user, String clientId) {
  /**
   * The name that stands for the default user or client id, as Kafka's ZooKeeper paths wrote it.
   */
  public static final String DEFAULT = "<default>";

  /** Produce bytes per second, counted on the requests' size. */
  public static final String PRODUCER_BYTE_RATE = "producer_byte_rate";

  /** Fetch bytes per second, counted on the responses' size. */
  public static final String CONSUMER_BYTE_RATE = "consumer_byte_rate";

  /** The share of one request thread's time, in percent (stored, not yet enforced). */
  public static final String REQUEST_PERCENTAGE = "request_percentage";

  /** The keys a client quota may set. */
  public static final List<String> KEYS =
      List.of(PRODUCER_BYTE_RATE, CONSUMER_BYTE_RATE, REQUEST_PERCENTAGE);

  /** A user name or client id is at most this long (Kafka's principal names are unbounded). */
  public static final int MAX_NAME_CHARS = 255;

  /** Entities in a stable order: user, then client id, absent first, default before names. */
  public static final Comparator<ClientQuotaEntity> ORDER =
      Comparator.comparing(
              ClientQuotaEntity::user, Comparator.nullsFirst(Comparator.naturalOrder()))
          .thenComparing(
              ClientQuotaEntity::clientId, Comparator.nullsFirst(Comparator.naturalOrder()));

  /** Null when the entity can hold quotas, else why not. */
  public String check() {
    if (user == null && clientId == null) {
      return "a client quota entity names a user, a client id or both";
    }
    String problem = checkName("user", user);
    return problem != null ? problem : checkName("client id", clientId);
  }

  /** Null when {@code key} is a quota key and {@code value} a legal value for it, else why not. */
  public static String checkValue(String key, double value) {
    String problem = checkKey(key);
    if (problem != null) {
      return problem;
    }
    if (!(value > 0) || Double.isInfinite(value)) {
      return "the value of " + key + " must be a finite number above 0, not " + value;
    }
    return null;
  }

  /** Null when {@code key} is a quota key, else why not. */
  public static String checkKey(String key) {
    return KEYS.contains(key)
        ? null
        : "unknown client quota key '" + printable(key) + "'; known: " + String.join(", ", KEYS);
  }

  private static String checkName(String what, String name) {
    if (name == null) {
      return null;
    }
    if (name.isEmpty()) {
      return "the " + what + " is empty (the default is " + DEFAULT + ")";
    }
    if (name.length() > MAX_NAME_CHARS) {
      return "the " + what + " is longer than " + MAX_NAME_CHARS + " characters";
    }
    if (name.chars().anyMatch(Character::isISOControl)) {
      return "the " + what + " '" + printable(name) + "' has control characters";
    }
    return null;
  }

  private static String printable(String s) {
    String p = Objects.toString(s).replaceAll("\\p{Cntrl}", "?");
    return p.length() > 64 ? p.substring(0, 64) + "..." : p;
  }

  @Override
  public String toString() {
    return (user == null ? "" : "user=" + user)
        + (user != null && clientId != null ? "," : "")
        + (clientId == null ? "" : "client-id=" + clientId);
  }
}
