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
import java.util.ArrayList;
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
 * nor the enclosing class run on their own) through JUnit's test kit, once each before the tests
 * here, which then check what the samples saw, what they printed and what was left behind.
 */
@Tag("integration")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SpoolClusterExtensionTest {
  /** What the running sample saw, in order. */
  static final List<Object> SEEN = new CopyOnWriteArrayList<>();

  /** One finished run of a sample: its results, what it saw and its standard error. */
  record Run(EngineExecutionResults results, List<Object> seen, String stderr) {
    SpoolCluster cluster(int i) {
      return (SpoolCluster) seen.get(i);
    }
  }

  private static Run inProcess;
  private static Run process;
  private static Run badConfig;

  /** Runs {@code sample} with this JVM's standard error captured (and passed on). */
  private static Run run(Class<?> sample) {
    SEEN.clear();
    PrintStream original = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    EngineExecutionResults results;
    try {
      results =
          EngineTestKit.engine("junit-jupiter")
              .selectors(DiscoverySelectors.selectClass(sample))
              .execute();
    } finally {
      System.setErr(original);
    }
    String err = captured.toString(StandardCharsets.UTF_8);
    original.print(err);
    return new Run(results, new ArrayList<>(SEEN), err);
  }

  @BeforeAll
  static void runSamples() {
    inProcess = run(InProcessSample.class);
    process = run(FailingProcessSample.class);
    badConfig = run(BadConfigSample.class);
  }

  /**
   * Every way to get the class's cluster, a method with its own config, and a failure at the end.
   */
  @SpoolClusterTest(config = {"cluster.id=class-config", "num.partitions=3"})
  @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
  static class InProcessSample {
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
      assertEquals("class-config", admin.describeCluster().get(30, TimeUnit.SECONDS).clusterId());
      admin.createTopic(NewTopic.of("shared")).get(30, TimeUnit.SECONDS);
      assertEquals(3, admin.describeTopic("shared").get(30, TimeUnit.SECONDS).partitions().size());
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
    void classClusterAgain(InProcessCluster c, Admin admin) throws Exception {
      SEEN.add(c);
      assertFalse(((SpoolCluster) SEEN.get(2)).node(1).isRunning(), "stopped after its method");
      assertEquals(List.of("shared"), admin.listTopics().get(30, TimeUnit.SECONDS));
    }

    @Test
    @Order(4)
    void fails(SpoolCluster c) {
      SEEN.add(c);
      fail("on purpose");
    }
  }

  @Test
  void shouldHandOneClusterToEveryMethodOfAClass() {
    inProcess.results().testEvents().assertStatistics(s -> s.succeeded(3).failed(1));
    assertEquals(5, inProcess.seen().size());
    SpoolCluster shared = inProcess.cluster(0);
    for (int i : new int[] {1, 3, 4}) {
      assertSame(shared, inProcess.seen().get(i), "@BeforeAll and the tests got one cluster");
    }
  }

  @Test
  void shouldGiveAMethodWithItsOwnConfigAClusterOfItsOwnAndRemoveItAfterACleanRun() {
    SpoolCluster own = inProcess.cluster(2);
    assertNotSame(inProcess.cluster(0), own);
    assertFalse(own.node(1).isRunning());
    assertFalse(Files.exists(own.dir()), "a clean run leaves no files behind: " + own.dir());
  }

  @Test
  void shouldStopTheClusterAfterTheClassAndPrintAndKeepWhatAFailedTestLeft() throws Exception {
    SpoolCluster shared = inProcess.cluster(0);
    String err = inProcess.stderr();
    assertTrue(err.contains("fails(SpoolCluster) failed"), err);
    assertTrue(err.contains("in-process nodes in " + shared.dir()), err);
    assertTrue(err.contains("node 1: broker RUNNING"), err);
    assertFalse(shared.node(1).isRunning(), "stopped after the class");
    InetSocketAddress broker = shared.node(1).brokerAddress();
    assertEquals("127.0.0.1", broker.getHostString());
    assertThrows(ConnectException.class, () -> new Socket(broker.getAddress(), broker.getPort()));
    assertTrue(Files.isDirectory(shared.node(1).dataDir()), "kept for a reader");
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
    process.results().testEvents().assertStatistics(s -> s.failed(1));
    ProcessCluster c = (ProcessCluster) process.cluster(0);
    String err = process.stderr();
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
    EngineExecutionResults r = badConfig.results();
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
    assertEquals(List.of(), badConfig.seen());
  }
}
