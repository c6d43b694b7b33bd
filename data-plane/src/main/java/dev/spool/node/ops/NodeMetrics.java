package dev.spool.node.ops;

import dev.spool.broker.metrics.BrokerMetrics;
import dev.spool.quorum.QuorumServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * A node's metrics: one registry per node (not the client library's global default, so nodes
 * sharing a JVM in tests keep their own), the JVM's standard metrics (memory, GC, threads, classes,
 * buffer pools, process), the broker's and the controller's.
 *
 * <p>Threads: built and filled on the node's thread before the roles serve; read by scrapes.
 */
public final class NodeMetrics {
  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final BrokerMetrics broker;

  public NodeMetrics(int maxLabels) {
    JvmMetrics.builder().register(registry);
    broker = new BrokerMetrics(registry, maxLabels);
  }

  public PrometheusRegistry registry() {
    return registry;
  }

  /** The broker role's hot-path metrics (registered even on a controller-only node: zeros). */
  public BrokerMetrics broker() {
    return broker;
  }

  /** Adds the controller role's gauges; once, after the quorum member started. */
  public void addController(QuorumServer quorum) {
    ControllerGauges.register(registry, quorum);
  }
}
