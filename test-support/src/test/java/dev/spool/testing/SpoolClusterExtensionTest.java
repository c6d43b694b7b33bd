package dev.spool.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.EventConditions.test;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

import dev.spool.client.Admin;
import dev.spool.client.NewTopic;
import dev.spool.testing.inprocess.InProcessCluster;
import dev.spool.testing.process.ProcessCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * {@link SpoolClusterTest} runs sample test classes (static nested classes, which neither Surefire
 * nor the enclosing class run on their own) through JUnit's test kit and checks what they saw and
 * what was left behind.
 */
@Tag("integration")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SpoolClusterExtensionTest {
  /** What the samples saw, in order; reset before each run. */
  static final List<Object> SEEN = new CopyOnWriteArrayList<>();

  private static EngineExecutionResults run(Class<?> sample) {
    SEEN.clear();
    return EngineTestKit.engine("junit-jupiter")
        .selectors(DiscoverySelectors.selectClass(sample))
        .execute();
  }

  /** Runs {@code sample} with this JVM's standard error captured (and passed on). */
  private static String runCapturingStderr(Class<?> sample, int succeeded, int failed) {
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      run(sample).testEvents().assertStatistics(s -> s.succeeded(succeeded).failed(failed));
    } finally {
      System.setErr(original);
    }
    String err = captured.toString(StandardCharsets.UTF_8);
    original.print(err);
    return err;
  }

  @SpoolClusterTest(config = "cluster.id=shared-sample")
  @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
  static class SharedSample {
    @BeforeAll
    static void before(SpoolCluster c) {
      SEEN.add(c);
    }

    @Test
    @Order(1)
    void first(SpoolCluster c, Admin admin, @Bootstrap String bootstrap) throws Exception {
      SEEN.add(c);
      assertSame(c.admin(), admin);
      assertEquals(c.bootstrapServers(), bootstrap);
      assertEquals("shared-sample", admin.describeCluster().get(30, TimeUnit.SECONDS).clusterId());
      admin.createTopic(NewTopic.of("t")).get(30, TimeUnit.SECONDS);
    }

    @Test
    @Order(2)
    void second(InProcessCluster c, Admin admin) throws Exception {
      SEEN.add(c);
      assertEquals(List.of("t"), admin.listTopics().get(30, TimeUnit.SECONDS), "the same cluster");
    }

    @Test
    @Order(3)
    void third(SpoolCluster c) {
      SEEN.add(c);
      fail("on purpose");
    }
  }

  @Test
  void shouldShareOneClusterPerClassAndPrintTheNodesStateWhenATestFails() throws Exception {
    String err = runCapturingStderr(SharedSample.class, 2, 1);
    assertEquals(4, SEEN.size());
    SpoolCluster c = (SpoolCluster) SEEN.get(0);
    for (Object seen : SEEN) {
      assertSame(c, seen, "@BeforeAll and every test got one cluster");
    }
    assertTrue(err.contains("third(SpoolCluster) failed"), err);
    assertTrue(err.contains("in-process nodes in " + c.dir()), err);
    assertTrue(err.contains("node 1: broker RUNNING"), err);
    assertFalse(c.node(1).isRunning(), "stopped after the class");
    InetSocketAddress broker = c.node(1).brokerAddress();
    assertEquals("127.0.0.1", broker.getHostString());
    assertThrows(ConnectException.class, () -> new Socket(broker.getAddress(), broker.getPort()));
    assertTrue(Files.isDirectory(c.node(1).dataDir()), "kept for a reader");
  }

  @SpoolClusterTest(config = {"cluster.id=class-config", "num.partitions=3"})
  @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
  static class OverrideSample {
    @Test
    @Order(1)
    void classCluster(SpoolCluster c) {
      SEEN.add(c);
    }

    @Test
    @Order(2)
    @ClusterConfig("num.partitions=2")
    void ownCluster(SpoolCluster c, Admin admin) throws Exception {
      SEEN.add(c);
      assertEquals("class-config", admin.describeCluster().get(30, TimeUnit.SECONDS).clusterId());
      admin.createTopic(NewTopic.of("mine")).get(30, TimeUnit.SECONDS);
      assertEquals(
          2, admin.describeTopic("mine").get(30, TimeUnit.SECONDS).partitions().size(), "its own");
    }

    @Test
    @Order(3)
    void classClusterAgain(SpoolCluster c, Admin admin) throws Exception {
      SEEN.add(c);
      assertFalse(((SpoolCluster) SEEN.get(1)).node(1).isRunning(), "stopped after its method");
      admin.createTopic(NewTopic.of("shared")).get(30, TimeUnit.SECONDS);
      assertEquals(3, admin.describeTopic("shared").get(30, TimeUnit.SECONDS).partitions().size());
      assertEquals(List.of("shared"), admin.listTopics().get(30, TimeUnit.SECONDS));
    }
  }

  @Test
  void shouldGiveAMethodWithItsOwnConfigAClusterOfItsOwn() {
    run(OverrideSample.class).testEvents().assertStatistics(s -> s.succeeded(3).failed(0));
    SpoolCluster shared = (SpoolCluster) SEEN.get(0);
    SpoolCluster own = (SpoolCluster) SEEN.get(1);
    assertSame(shared, SEEN.get(2), "the class's cluster, before and after");
    assertNotSame(shared, own, "the overriding method's own");
    assertFalse(shared.node(1).isRunning(), "stopped after the class");
    assertFalse(Files.exists(shared.dir()), "a clean run leaves no files behind: " + shared.dir());
    assertFalse(Files.exists(own.dir()), own.dir().toString());
  }

  @SpoolClusterTest(mode = ClusterMode.PROCESS)
  static class FailingProcessSample {
    @Test
    void fails(ProcessCluster c) {
      SEEN.add(c);
      fail("on purpose");
    }
  }

  @Test
  void shouldPrintTheNodeLogsOfAFailedTestAndKeepThem() throws IOException {
    String err = runCapturingStderr(FailingProcessSample.class, 0, 1);
    ProcessCluster c = (ProcessCluster) SEEN.get(0);
    assertTrue(err.contains("fails(ProcessCluster) failed"), err);
    assertTrue(err.contains("Spool cluster in " + c.dir()), err);
    assertTrue(err.contains("---- last 150 lines of n1 log " + c.logFile(1)), err);
    assertTrue(err.contains("node 1 started with pid " + c.pid(1)), "the log's own lines: " + err);
    assertFalse(
        ProcessHandle.of(c.pid(1)).map(ProcessHandle::isAlive).orElse(false), "node stopped");
    assertTrue(Files.readString(c.logFile(1)).contains("=== harness"), "kept for a reader");
  }

  @SpoolClusterTest(config = "no.such.key=1")
  static class BadConfigSample {
    @Test
    void one(SpoolCluster c) {
      SEEN.add(c);
    }

    @Test
    void two(SpoolCluster c) {
      SEEN.add(c);
    }

    @Test
    void wrongMode(ProcessCluster c) {
      SEEN.add(c);
    }
  }

  @Test
  void shouldFailEveryTestWithTheCauseWhenTheClusterCannotStart() {
    EngineExecutionResults r = run(BadConfigSample.class);
    r.testEvents().assertStatistics(s -> s.started(3).failed(3));
    r.testEvents()
        .assertThatEvents()
        .haveExactly(
            2,
            event(
                test(),
                finishedWithFailure(
                    message(
                        m -> m.contains("did not start") && m.contains("'no.such.key': unknown")))))
        .haveExactly(
            1,
            event(
                test("wrongMode"),
                finishedWithFailure(
                    instanceOf(ParameterResolutionException.class),
                    message(m -> m.contains("needs mode = PROCESS")))));
    assertEquals(List.of(), SEEN);
  }
}
