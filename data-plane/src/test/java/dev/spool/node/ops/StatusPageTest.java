package dev.spool.node.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.spool.broker.metrics.BrokerMetrics;
import dev.spool.protocol.message.QuorumInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The status page's sparkline rings: rates between samples, the produce latency average of each
 * interval, the last {@link StatusPage#HISTORY} kept oldest first; a quorum that does not answer
 * shows as an unknown controller; a node without a broker has no broker fields.
 */
@Tag("unit")
class StatusPageTest {
  private static final long SECOND_NS = 1_000_000_000L;

  private final AtomicReference<BrokerMetrics.Totals> totals =
      new AtomicReference<>(BrokerMetrics.Totals.ZERO);

  private StatusPage page(CompletableFuture<QuorumInfo> quorum) {
    return new StatusPage(
        7, 100, () -> OpsServer.Readiness.READY, () -> null, () -> quorum, totals::get);
  }

  @Test
  void samplesBecomeRatesAndLatencyAveragesOldestFirst() throws IOException {
    StatusPage p =
        page(CompletableFuture.completedFuture(QuorumInfo.newBuilder().setLeaderId(2).build()));
    p.sample(0);
    totals.set(new BrokerMetrics.Totals(2000, 500, 4, 0.010));
    p.sample(2 * SECOND_NS);
    totals.set(new BrokerMetrics.Totals(2000, 1500, 6, 0.050));
    p.sample(3 * SECOND_NS);
    String json = new String(p.json(), StandardCharsets.UTF_8);
    assertEquals(List.of(1000.0, 0.0), numbers(json, "bytesInPerSec"), json);
    assertEquals(List.of(250.0, 1000.0), numbers(json, "bytesOutPerSec"), json);
    // 4 produces in 10 ms (2.5 ms each), then 2 in 40 ms (20 ms each).
    assertEquals(List.of(2.5, 20.0), numbers(json, "produceLatencyMs"), json);
    assertTrue(json.contains("\"leader\":2"), json);
    assertTrue(json.contains("\"id\":7"), json);
    assertTrue(!json.contains("\"brokers\""), "a node without a broker lists none: " + json);
  }

  @Test
  void keepsTheLastHistorySamplesOnly() throws IOException {
    StatusPage p = page(CompletableFuture.completedFuture(QuorumInfo.getDefaultInstance()));
    p.sample(0);
    int n = StatusPage.HISTORY + 5;
    for (int i = 1; i <= n; i++) {
      totals.set(new BrokerMetrics.Totals(i * (double) i, 0, 0, 0));
      p.sample(i * SECOND_NS);
    }
    List<Double> in = numbers(new String(p.json(), StandardCharsets.UTF_8), "bytesInPerSec");
    assertEquals(StatusPage.HISTORY, in.size());
    // Sample i's rate is i*i - (i-1)*(i-1) = 2i - 1; the oldest kept is i = 6.
    assertEquals(11.0, in.get(0));
    assertEquals(2.0 * n - 1, in.get(in.size() - 1));
  }

  @Test
  void aQuorumThatDoesNotAnswerShowsAnUnknownController() throws IOException {
    String json = new String(page(new CompletableFuture<>()).json(), StandardCharsets.UTF_8);
    assertTrue(json.contains("\"controller\":{\"leader\":-1"), json);
  }

  private static List<Double> numbers(String json, String field) throws IOException {
    List<Double> out = new ArrayList<>();
    try (JsonParser p = new JsonFactory().createParser(json)) {
      while (p.nextToken() != null) {
        if (p.currentToken() == JsonToken.FIELD_NAME && p.currentName().equals(field)) {
          p.nextToken();
          while (p.nextToken() != JsonToken.END_ARRAY) {
            out.add(p.getDoubleValue());
          }
          return out;
        }
      }
    }
    throw new AssertionError("no " + field + " in " + json);
  }
}
