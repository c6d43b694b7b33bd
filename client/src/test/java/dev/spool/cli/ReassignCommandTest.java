package dev.spool.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code spool reassign}'s own checks, decided before any broker is asked (the bootstrap address
 * here reaches nothing, so a command that did ask would exit 3, not 2). Talking to a cluster is
 * covered with scripted brokers ({@code ReassignCommandClusterTest}).
 */
class ReassignCommandTest {
  private static final String PLAN =
      "{\"version\":1,\"partitions\":[{\"topic\":\"a\",\"partition\":0,\"replicas\":[1,2]}]}";

  @TempDir Path dir;

  private CliRunner.Result run(String... args) {
    return new CliRunner(Map.of("SPOOL_BOOTSTRAP", "127.0.0.1:1"), dir).run("", args);
  }

  private void assertUsage(CliRunner.Result r, String expected) {
    assertEquals(ExitCodes.USAGE, r.exitCode(), r.toString());
    assertTrue(r.err().contains(expected), "expected '" + expected + "' in " + r);
    assertEquals("", r.out(), r.toString());
  }

  private String file(String name, String content) throws IOException {
    Files.writeString(dir.resolve(name), content);
    return name;
  }

  @Test
  void planNeedsBrokersAndTopics() {
    assertUsage(run("reassign", "plan", "--topics", "a"), "--brokers");
    assertUsage(run("reassign", "plan", "--brokers", "1,2"), "--topics");
    assertUsage(run("reassign", "plan", "--brokers", "1,x", "--topics", "a"), "--brokers");
  }

  @Test
  void planRefusesToOverwriteAnOutputFile() throws IOException {
    file("plan.json", "keep me");
    assertUsage(
        run("reassign", "plan", "--brokers", "1", "--topics", "a", "--output", "plan.json"),
        "--output plan.json already exists");
    assertEquals("keep me", Files.readString(dir.resolve("plan.json")));
  }

  @Test
  void executeNeedsAReadableWellFormedPlan() throws IOException {
    assertUsage(run("reassign", "execute"), "PLAN");
    assertUsage(
        run("reassign", "execute", "missing.json"), "plan file missing.json does not exist");
    assertUsage(
        run("reassign", "execute", file("bad.json", "{\"version\":1,")),
        "plan file bad.json: the plan is not valid JSON");
    assertUsage(
        run("reassign", "execute", file("v2.json", "{\"version\":2,\"partitions\":[]}")),
        "plan file v2.json: the plan's version must be 1, got 2");
    assertUsage(
        run(
            "reassign",
            "execute",
            file(
                "dup.json",
                "{\"version\":1,\"partitions\":[{\"topic\":\"a\",\"partition\":0,\"replicas\":[1]},"
                    + "{\"topic\":\"a\",\"partition\":0,\"replicas\":[2]}]}")),
        "partition a-0 appears twice");
    assertUsage(
        run(
            "reassign",
            "execute",
            file(
                "missing-field.json",
                "{\"version\":1,\"partitions\":[{\"topic\":\"a\",\"replicas\":[1]}]}")),
        "has no \"partition\"");
  }

  @Test
  void aBadThrottleIsAUsageError() throws IOException {
    String plan = file("plan.json", PLAN);
    assertUsage(run("reassign", "execute", plan, "--throttle", "fast"), "--throttle must be");
    assertUsage(run("reassign", "execute", plan, "--throttle", "-1"), "--throttle must be");
    assertUsage(run("reassign", "execute", plan, "--throttle", "1TB/s"), "--throttle must be");
  }

  @Test
  void statusAndCancelCheckTheirPlanFirst() throws IOException {
    assertUsage(run("reassign", "status", "nope.json"), "plan file nope.json does not exist");
    assertUsage(run("reassign", "cancel", file("x.json", "[]")), "the plan must be a JSON object");
    assertUsage(run("reassign", "status", "a.json", "b.json"), "b.json");
  }

  @Test
  void aWellFormedPlanGetsAsFarAsTheCluster() throws IOException {
    CliRunner.Result r =
        run(
            "reassign",
            "execute",
            file("plan.json", PLAN),
            "--throttle",
            "50MB/s",
            "--timeout-ms",
            "300");
    assertEquals(ExitCodes.UNREACHABLE, r.exitCode(), r.toString());
  }

  @Test
  void helpListsTheSubcommandsAndTheThrottleUnits() {
    CliRunner.Result bare = run("reassign");
    assertEquals(ExitCodes.USAGE, bare.exitCode(), bare.toString());
    CliRunner.Result help = run("reassign", "--help");
    assertEquals(0, help.exitCode(), help.toString());
    for (String sub : new String[] {"plan", "execute", "status", "cancel"}) {
      assertTrue(help.out().contains(sub), help.toString());
    }
    CliRunner.Result execute = run("reassign", "execute", "--help");
    assertTrue(execute.out().contains("1024-based"), execute.toString());
    CliRunner.Result top = run("--help");
    assertTrue(top.out().contains("reassign"), top.toString());
  }
}
