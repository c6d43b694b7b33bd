package dev.spool.broker.quota;

import dev.spool.common.ClientQuotaEntity;
import java.util.List;
import java.util.Map;

/**
 * Which quota applies to a user and client id, in Kafka's order (the first entity with the key
 * wins): user and client id; user and default client id; user; default user and client id; default
 * user and default client id; default user; client id; default client id. The answer also says
 * whose usage the quota meters, as Kafka's metric tags do: a quota of a user (named or default)
 * meters that user's requests together, whatever their client ids; one of a client id alone meters
 * that client id's requests, whatever their users; one of both meters that pair.
 *
 * <p>Pure; any thread.
 */
final class QuotaResolution {
  private QuotaResolution() {}

  /**
   * The quota and whose usage it meters.
   *
   * @param bytesPerSec the quota
   * @param metered the user and client id whose requests share one rate; "" for a part that does
   *     not count
   */
  record Resolved(double bytesPerSec, ClientQuotaEntity metered) {}

  private static final String D = ClientQuotaEntity.DEFAULT;

  /** An entity that may hold the quota, and whose usage it meters if it does. */
  private record Candidate(ClientQuotaEntity entity, ClientQuotaEntity metered) {}

  /** The quota of {@code key} for {@code user} and {@code clientId}, or null when none applies. */
  static Resolved resolve(
      Map<ClientQuotaEntity, Map<String, Double>> quotas,
      String key,
      String user,
      String clientId) {
    if (quotas.isEmpty()) {
      return null;
    }
    ClientQuotaEntity both = new ClientQuotaEntity(user, clientId);
    ClientQuotaEntity userOnly = new ClientQuotaEntity(user, "");
    ClientQuotaEntity clientOnly = new ClientQuotaEntity("", clientId);
    List<Candidate> order =
        List.of(
            new Candidate(both, both),
            new Candidate(new ClientQuotaEntity(user, D), both),
            new Candidate(new ClientQuotaEntity(user, null), userOnly),
            new Candidate(new ClientQuotaEntity(D, clientId), both),
            new Candidate(new ClientQuotaEntity(D, D), both),
            new Candidate(new ClientQuotaEntity(D, null), userOnly),
            new Candidate(new ClientQuotaEntity(null, clientId), clientOnly),
            new Candidate(new ClientQuotaEntity(null, D), clientOnly));
    for (Candidate c : order) {
      Map<String, Double> values = quotas.get(c.entity());
      Double v = values == null ? null : values.get(key);
      if (v != null) {
        return new Resolved(v, c.metered());
      }
    }
    return null;
  }

  /**
   * The user name of a {@code Type:name} principal (Kafka's user quotas name the principal's name).
   */
  static String user(String principal) {
    int colon = principal.indexOf(':');
    return colon < 0 ? principal : principal.substring(colon + 1);
  }
}
