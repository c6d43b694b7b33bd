package dev.spool.broker.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.spool.common.Clock;
import dev.spool.node.SpoolNode;
import dev.spool.testing.ExternalCommand;
import dev.spool.testing.Promtool;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator files in {@code ops/}: the alert rules pass {@code promtool check rules} and their
 * unit tests ({@code promtool test rules}), and every Spool and JVM metric the rules and the
 * Grafana dashboard query is one a real node registers, so a renamed metric breaks this test
 * instead of an on-call engineer's dashboard.
 */
@Tag("integration")
@Timeout(180)
class OpsDashboardAlertsTest {
  private static final Pattern METRIC = Pattern.compile("\\b(?:spool|jvm)_[a-z0-9_]+");
  private static final Path OPS = repositoryRoot().resolve("ops");
  private static final Path ALERTS = OPS.resolve("prometheus/alerts.yml");
  private static final Path ALERTS_TEST = OPS.resolve("prometheus/alerts_test.yml");
  private static final Path DASHBOARD = OPS.resolve("grafana/spool.json");

  @TempDir Path dir;

  private static Path repositoryRoot() {
    // Surefire runs in the module directory; walk up to the directory that holds ops/.
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isDirectory(p.resolve("ops/prometheus"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException("no ops/prometheus above " + Path.of("").toAbsolutePath());
    }
    return p;
  }

  @Test
  void shouldPassPromtoolsRuleCheckAndTheRulesUnitTests() {
    ExternalCommand.Result check = Promtool.run("check", "rules", ALERTS.toString());
    assertEquals(0, check.exitCode(), "promtool check rules: " + check.output());
    assertTrue(check.output().contains("SUCCESS"), check.output());
    ExternalCommand.Result test = Promtool.run("test", "rules", ALERTS_TEST.toString());
    assertEquals(0, test.exitCode(), "promtool test rules: " + test.output());
    assertTrue(test.output().contains("SUCCESS"), test.output());
  }

  @Test
  void shouldQueryOnlyMetricsThatANodeRegisters() throws IOException {
    Set<String> dashboard = metricsIn(dashboardQueries());
    Set<String> alerts = metricsIn(List.of(Files.readString(ALERTS)));
    // Guards against a pattern or a walk that finds nothing and so passes vacuously.
    assertTrue(
        dashboard.containsAll(
            Set.of(
                "spool_controller_active",
                "spool_request_total_time_seconds_bucket",
                "jvm_memory_used_bytes")),
        dashboard.toString());
    assertTrue(
        alerts.containsAll(Set.of("spool_controller_active", "spool_under_replicated_partitions")),
        alerts.toString());

    Set<String> registered = registeredNames();
    Set<String> unknown = new TreeSet<>(dashboard);
    unknown.addAll(alerts);
    unknown.removeAll(registered);
    assertEquals(Set.of(), unknown, "queried but not registered by a node; it has " + registered);
  }

  @Test
  void shouldTakeItsDataSourceFromATemplateVariable() throws IOException {
    String json = Files.readString(DASHBOARD);
    assertTrue(
        Pattern.compile(
                "\"name\": \"datasource\",[^}]*\"type\": \"datasource\",\\s*\"query\": \"prometheus\"")
            .matcher(json)
            .find(),
        "no datasource template variable of type prometheus");
    assertFalse(
        Pattern.compile("\"uid\": \"(?!\\$\\{datasource\\}|spool-overview\")").matcher(json).find(),
        "a panel or query names a fixed data source instead of ${datasource}");
  }

  /** Every PromQL expression of the dashboard: the panels' targets and the variables' queries. */
  private static List<String> dashboardQueries() throws IOException {
    List<String> exprs = new ArrayList<>();
    try (JsonParser p = new JsonFactory().createParser(DASHBOARD.toFile())) {
      for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
        if (t == JsonToken.FIELD_NAME
            && Set.of("expr", "query", "definition").contains(p.currentName())
            && p.nextToken() == JsonToken.VALUE_STRING) {
          exprs.add(p.getText());
        }
      }
    }
    return exprs;
  }

  private static Set<String> metricsIn(List<String> texts) {
    Set<String> names = new TreeSet<>();
    for (String text : texts) {
      Matcher m = METRIC.matcher(text);
      while (m.find()) {
        names.add(m.group());
      }
    }
    return names;
  }

  /**
   * The series names a combined node registers, as PromQL sees them: counters with {@code _total},
   * histograms and summaries with their {@code _bucket}, {@code _count} and {@code _sum} series.
   * Taken from the registry rather than from {@code /metrics} because the text format leaves out
   * families without samples yet (the replica fetcher lag on a node that follows nothing); the
   * scrape is checked against it so the mapping to series names stays honest.
   */
  private Set<String> registeredNames() throws IOException {
    Set<String> names = new TreeSet<>();
    try (SpoolNode node =
        SpoolNode.start(
            NodeOpsEndpointTest.formatted(NodeOpsEndpointTest.combined(dir.resolve("node1"))),
            Clock.SYSTEM)) {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> NodeOpsEndpointTest.get(node, "/health/ready").statusCode() == 200);
      for (MetricSnapshot s : node.metricsRegistry().scrape()) {
        String name = s.getMetadata().getPrometheusName();
        if (s instanceof CounterSnapshot) {
          names.add(name + "_total");
        } else if (s instanceof HistogramSnapshot) {
          names.addAll(List.of(name + "_bucket", name + "_count", name + "_sum"));
        } else if (s instanceof SummarySnapshot) {
          names.addAll(List.of(name, name + "_count", name + "_sum"));
        } else if (s instanceof InfoSnapshot) {
          names.add(name + "_info");
        } else {
          names.add(name);
        }
      }
      String scraped = NodeOpsEndpointTest.get(node, "/metrics").body();
      for (String line : scraped.split("\n")) {
        if (!line.isBlank() && !line.startsWith("#")) {
          String series = line.split("[{ ]", 2)[0];
          assertTrue(
              names.contains(series) || series.endsWith("_created"),
              series + " is served but missing from the registry's names");
        }
      }
    }
    return names;
  }
}
