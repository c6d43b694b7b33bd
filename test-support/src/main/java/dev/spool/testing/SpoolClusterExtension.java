package dev.spool.testing;

import dev.spool.broker.log.LogManager;
import dev.spool.client.Admin;
import dev.spool.testing.inprocess.InProcessCluster;
import dev.spool.testing.process.ProcessCluster;
import dev.spool.testing.process.Signal;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The JUnit 5 extension behind {@link SpoolClusterTest}: starts the class's cluster when a method
 * first asks for it (a method with {@link ClusterConfig} gets its own), hands out the cluster, its
 * admin client and its bootstrap servers as parameters, prints the nodes' logs when a test fails,
 * and stops the cluster after the class (or the method).
 *
 * <p>Clusters live in the JUnit store of the class (or method) context, so JUnit also closes them
 * if a callback is skipped. Called by JUnit on the test thread.
 */
public final class SpoolClusterExtension
    implements ParameterResolver, AfterEachCallback, AfterAllCallback {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(SpoolClusterExtension.class);

  /** Different keys: a method context's store also sees its class context's values. */
  private static final String CLASS_CLUSTER = "class-cluster";

  private static final String METHOD_CLUSTER = "method-cluster";
  private static final int DUMP_LINES = 150;

  /**
   * One started (or failed) cluster and what happened to it. Closing stops the cluster and deletes
   * its directory unless a test using it failed.
   */
  private static final class Managed implements AutoCloseable {
    private final Path dir;
    private final SpoolCluster cluster;
    private final RuntimeException startFailure;
    private volatile boolean keep;
    private volatile boolean closed;

    private Managed(Path dir, SpoolCluster cluster, RuntimeException startFailure) {
      this.dir = dir;
      this.cluster = cluster;
      this.startFailure = startFailure;
      this.keep = startFailure != null;
    }

    static Managed start(ClusterSpec spec, Path dir) {
      try {
        if (Files.exists(dir)) {
          LogManager.deleteRecursively(dir); // left by an earlier run
        }
        return new Managed(dir, spec.start(dir), null);
      } catch (IOException | RuntimeException e) {
        return new Managed(
            dir,
            null,
            new IllegalStateException(
                "the Spool cluster in " + dir + " did not start: " + e.getMessage(), e));
      }
    }

    SpoolCluster cluster() {
      if (startFailure != null) {
        throw startFailure; // every test asking for it fails fast with the same cause
      }
      return cluster;
    }

    void dump(String what, Throwable cause, PrintStream out) {
      keep = true;
      if (cluster == null || closed) {
        return;
      }
      String why = String.valueOf(cause);
      if (why.length() > 200) {
        why = why.substring(0, 200) + "…";
      }
      out.println("==== " + what + " failed (" + why + "); Spool cluster in " + dir + " ====");
      cluster.dumpLogs(out, DUMP_LINES);
      out.println("==== end of the Spool cluster's logs ====");
      out.flush();
    }

    /**
     * Stops the cluster. Node processes get SIGKILL: no outcome depends on a graceful stop, which
     * takes each node seconds, and a reader after a failure finds the same logs and data either
     * way. The files are deleted after a clean run and kept after a failure.
     */
    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      if (cluster instanceof ProcessCluster p) {
        p.nodes().forEach(n -> p.kill(n, Signal.KILL));
      }
      if (cluster != null) {
        cluster.close();
      }
      if (!keep && Files.exists(dir)) {
        LogManager.deleteRecursively(dir);
      }
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext p, ExtensionContext context) {
    Class<?> type = p.getParameter().getType();
    return type == SpoolCluster.class
        || type == InProcessCluster.class
        || type == ProcessCluster.class
        || type == Admin.class
        || type == String.class && p.isAnnotated(Bootstrap.class);
  }

  @Override
  public Object resolveParameter(ParameterContext p, ExtensionContext context) {
    Class<?> type = p.getParameter().getType();
    ClusterMode mode = annotation(annotatedClassContext(context)).mode();
    Class<?> modeType = mode == ClusterMode.PROCESS ? ProcessCluster.class : InProcessCluster.class;
    if ((type == ProcessCluster.class || type == InProcessCluster.class) && type != modeType) {
      throw new ParameterResolutionException(
          type.getSimpleName()
              + " needs mode = "
              + (type == ProcessCluster.class ? ClusterMode.PROCESS : ClusterMode.IN_PROCESS)
              + " in @SpoolClusterTest, and this class runs "
              + mode
              + " (ask for SpoolCluster to accept both)");
    }
    SpoolCluster cluster = managed(context).cluster();
    if (type == Admin.class) {
      return cluster.admin();
    }
    if (type == String.class) {
      return cluster.bootstrapServers();
    }
    return cluster;
  }

  /** The cluster for this context: the method's own, or the class's (started on first use). */
  private static Managed managed(ExtensionContext context) {
    Optional<ClusterConfig> own =
        context
            .getTestMethod()
            .flatMap(m -> AnnotationSupport.findAnnotation(m, ClusterConfig.class));
    ExtensionContext owner = annotatedClassContext(context);
    ClusterSpec spec = ClusterSpec.of(annotation(owner));
    String className = owner.getRequiredTestClass().getSimpleName();
    if (own.isPresent()) {
      Method m = context.getRequiredTestMethod();
      return context
          .getStore(NAMESPACE)
          .getOrComputeIfAbsent(
              METHOD_CLUSTER,
              k ->
                  Managed.start(
                      spec.with(own.get()), ClusterSpec.dirFor(className + "." + m.getName())),
              Managed.class);
    }
    return owner
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(
            CLASS_CLUSTER, k -> Managed.start(spec, ClusterSpec.dirFor(className)), Managed.class);
  }

  /** The nearest class context whose class carries (or inherits) {@link SpoolClusterTest}. */
  private static ExtensionContext annotatedClassContext(ExtensionContext context) {
    for (ExtensionContext c = context; c != null; c = c.getParent().orElse(null)) {
      if (c.getTestMethod().isEmpty()
          && c.getTestClass().isPresent()
          && AnnotationSupport.isAnnotated(c.getTestClass().get(), SpoolClusterTest.class)) {
        return c;
      }
    }
    throw new ExtensionConfigurationException(
        "SpoolClusterExtension needs @SpoolClusterTest on the test class (or an enclosing one)");
  }

  private static SpoolClusterTest annotation(ExtensionContext classContext) {
    AnnotatedElement type = classContext.getRequiredTestClass();
    return AnnotationSupport.findAnnotation(type, SpoolClusterTest.class).orElseThrow();
  }

  /**
   * After each test: if it failed, prints the logs of the cluster it used (its own, else the
   * class's) while the nodes still run; then stops its own cluster.
   */
  @Override
  public void afterEach(ExtensionContext context) throws IOException {
    Managed own = context.getStore(NAMESPACE).remove(METHOD_CLUSTER, Managed.class);
    try {
      Optional<Throwable> failure = context.getExecutionException();
      if (failure.isPresent()) {
        Managed used = own != null ? own : classCluster(context);
        if (used != null) {
          used.dump(context.getDisplayName(), failure.get(), System.err);
        }
      }
    } finally {
      if (own != null) {
        own.close();
      }
    }
  }

  /** The class's cluster if it was started (a store lookup also searches the parent contexts). */
  private static Managed classCluster(ExtensionContext context) {
    return context.getStore(NAMESPACE).get(CLASS_CLUSTER, Managed.class);
  }

  /**
   * After the class that owns a cluster: prints its logs if the class failed outside a test (a
   * {@code @BeforeAll} or {@code @AfterAll}), then stops it.
   */
  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    Managed m = context.getStore(NAMESPACE).remove(CLASS_CLUSTER, Managed.class);
    if (m == null) {
      return;
    }
    try {
      context
          .getExecutionException()
          .ifPresent(e -> m.dump(context.getDisplayName(), e, System.err));
    } finally {
      m.close();
    }
  }
}
