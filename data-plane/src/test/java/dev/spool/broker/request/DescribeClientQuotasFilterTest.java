package dev.spool.broker.request;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.spool.common.ClientQuotaEntity;
import dev.spool.protocol.message.DescribeClientQuotasRequest;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Kafka's DescribeClientQuotas filter over Spool's entities: EXACT, DEFAULT, SPECIFIED, strict. */
@Tag("unit")
class DescribeClientQuotasFilterTest {
  private static final String D = ClientQuotaEntity.DEFAULT;
  private static final List<ClientQuotaEntity> ALL =
      List.of(
          new ClientQuotaEntity("alice", null),
          new ClientQuotaEntity("alice", "app"),
          new ClientQuotaEntity(D, null),
          new ClientQuotaEntity(D, D),
          new ClientQuotaEntity(null, "app"),
          new ClientQuotaEntity(null, D));

  private static DescribeClientQuotasRequest.Component c(String type, String match, String name) {
    return DescribeClientQuotasRequest.Component.newBuilder()
        .setEntityType(type)
        .setMatchType(match)
        .setMatch(name)
        .build();
  }

  private static List<String> matching(
      boolean strict, DescribeClientQuotasRequest.Component... cs) {
    DescribeClientQuotasRequest req =
        DescribeClientQuotasRequest.newBuilder()
            .addAllComponents(List.of(cs))
            .setStrict(strict)
            .build();
    return ALL.stream()
        .filter(e -> DescribeClientQuotasHandler.matches(req, e))
        .map(ClientQuotaEntity::toString)
        .collect(Collectors.toList());
  }

  @Test
  void kafkasFilterRules() {
    assertEquals(6, matching(false).size(), "no component, not strict: everything");
    assertEquals(List.of(), matching(true), "no component, strict: nothing has no part");
    assertEquals(
        List.of("user=alice", "user=alice,client-id=app"),
        matching(false, c("user", "EXACT", "alice")));
    assertEquals(List.of("user=alice"), matching(true, c("user", "EXACT", "alice")));
    assertEquals(
        List.of("user=<default>", "user=<default>,client-id=<default>"),
        matching(false, c("user", "DEFAULT", "")));
    assertEquals(
        List.of("client-id=app", "client-id=<default>"),
        matching(true, c("client-id", "SPECIFIED", "")));
    assertEquals(
        List.of("user=alice,client-id=app"),
        matching(true, c("user", "EXACT", "alice"), c("client-id", "EXACT", "app")));
  }
}
