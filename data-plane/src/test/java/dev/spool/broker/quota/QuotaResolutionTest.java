package dev.spool.broker.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.spool.common.ClientQuotaEntity;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Kafka's precedence of client quotas: each level, set alone among all the lower ones, wins over
 * them; and whose usage each level meters.
 */
@Tag("unit")
class QuotaResolutionTest {
  private static final String D = ClientQuotaEntity.DEFAULT;
  private static final String KEY = ClientQuotaEntity.PRODUCER_BYTE_RATE;

  /** The levels from the most specific to the least, for user alice and client id app. */
  private static final List<ClientQuotaEntity> LEVELS =
      List.of(
          new ClientQuotaEntity("alice", "app"),
          new ClientQuotaEntity("alice", D),
          new ClientQuotaEntity("alice", null),
          new ClientQuotaEntity(D, "app"),
          new ClientQuotaEntity(D, D),
          new ClientQuotaEntity(D, null),
          new ClientQuotaEntity(null, "app"),
          new ClientQuotaEntity(null, D));

  @Test
  void eachLevelWinsOverEveryLowerOne() {
    for (int level = 0; level < LEVELS.size(); level++) {
      Map<ClientQuotaEntity, Map<String, Double>> quotas = new HashMap<>();
      for (int i = level; i < LEVELS.size(); i++) {
        quotas.put(LEVELS.get(i), Map.of(KEY, 100.0 + i));
      }
      QuotaResolution.Resolved r = QuotaResolution.resolve(quotas, KEY, "alice", "app");
      assertEquals(100.0 + level, r.bytesPerSec(), "level " + level + ": " + LEVELS.get(level));
    }
  }

  @Test
  void aQuotaOfAnotherKeyOrAnotherNameDoesNotApply() {
    Map<ClientQuotaEntity, Map<String, Double>> quotas =
        Map.of(
            new ClientQuotaEntity("bob", null), Map.of(KEY, 1.0),
            new ClientQuotaEntity(null, "other"), Map.of(KEY, 2.0),
            new ClientQuotaEntity("alice", null),
                Map.of(ClientQuotaEntity.CONSUMER_BYTE_RATE, 3.0));
    assertNull(QuotaResolution.resolve(quotas, KEY, "alice", "app"));
    assertNull(QuotaResolution.resolve(Map.of(), KEY, "alice", "app"));
  }

  @Test
  void theLevelSaysWhoseUsageItMeters() {
    assertEquals(
        new ClientQuotaEntity("alice", ""),
        QuotaResolution.resolve(
                Map.of(new ClientQuotaEntity(D, null), Map.of(KEY, 1.0)), KEY, "alice", "app")
            .metered(),
        "a default user quota meters each user on its own, all its client ids together");
    assertEquals(
        new ClientQuotaEntity("", "app"),
        QuotaResolution.resolve(
                Map.of(new ClientQuotaEntity(null, D), Map.of(KEY, 1.0)), KEY, "alice", "app")
            .metered());
    assertEquals(
        new ClientQuotaEntity("alice", "app"),
        QuotaResolution.resolve(
                Map.of(new ClientQuotaEntity("alice", D), Map.of(KEY, 1.0)), KEY, "alice", "app")
            .metered());
  }

  @Test
  void theUserIsThePrincipalsName() {
    assertEquals("alice", QuotaResolution.user("User:alice"));
    assertEquals("ANONYMOUS", QuotaResolution.user("User:ANONYMOUS"));
    assertEquals("CN=a,O=b", QuotaResolution.user("User:CN=a,O=b"));
  }
}
