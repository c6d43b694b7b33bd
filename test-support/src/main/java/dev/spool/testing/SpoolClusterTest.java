package dev.spool.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a real Spool cluster for a test class. Tests, {@code @BeforeEach} and {@code @BeforeAll}
 * methods get it as a parameter: the cluster handle ({@link SpoolCluster}, or {@link
 * dev.spool.testing.inprocess.InProcessCluster} / {@link dev.spool.testing.process.ProcessCluster}
 * for the mode's own methods), a shared {@link dev.spool.client.Admin}, or the bootstrap servers as
 * a {@code @}{@link Bootstrap} {@code String}.
 *
 * <pre>{@code
 * @SpoolClusterTest(nodes = 3, config = "auto.create.topics.enable=false")
 * class OrdersTest {
 *   @Test
 *   void shouldKeepOrder(@Bootstrap String bootstrap, Admin admin) { ... }
 * }
 * }</pre>
 *
 * <ul>
 *   <li>One cluster per test class, started when a method first asks for it and stopped after the
 *       class (only the processes it started: SIGKILL by PID, since no outcome depends on a
 *       graceful stop, which takes seconds). A test method annotated with {@link ClusterConfig}
 *       gets a cluster of its own with those keys on top of {@link #config()}, stopped after that
 *       method.
 *   <li>Nodes listen on 127.0.0.1 on free ports. Their files live in {@code
 *       target/spool-clusters/<class>[.<method>]} (or under {@code -Dspool.test.dir}; under {@code
 *       java.io.tmpdir} when there is no {@code target/}), deleted after a clean run and kept when
 *       a test failed.
 *   <li>When a test fails, the tail of every node log (process mode) or every node's state
 *       (in-process mode) and the cluster's directory are printed to the test's standard error.
 * </ul>
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(SpoolClusterExtension.class)
public @interface SpoolClusterTest {
  /** Number of nodes, ids 1..n; every node is broker and controller unless {@link #roles()}. */
  int nodes() default 1;

  /** In this JVM (fast) or as separate processes (for crashes and pauses). */
  ClusterMode mode() default ClusterMode.IN_PROCESS;

  /** Node config for every node, {@code "key=value"} (see {@code spool node start --help}). */
  String[] config() default {};

  /**
   * Roles of single nodes, {@code "<id>=broker"}, {@code "<id>=controller"} or {@code
   * "<id>=broker,controller"}; e.g. {@code {"4=controller", "1=broker"}}. The controllers are the
   * quorum's voters.
   */
  String[] roles() default {};
}
