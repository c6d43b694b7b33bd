package dev.spool.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.cli.CliRunner;
import dev.spool.cli.CliRunner.Result;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.quorum.QuorumAdmin;
import dev.spool.quorum.image.MetadataVersion;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code spool quorum}'s usage errors and its answer when no controller is reachable; the changes
 * themselves are tested against real processes in {@code QuorumMembershipE2ETest}.
 */
@Tag("unit")
class QuorumCommandTest {
  @TempDir Path dir;

  private Result run(String... args) {
    return new CliRunner(SpoolMain::commandLine, Map.of(), dir).run("", args);
  }

  @Test
  void shouldAskWhereTheQuorumIsWhenNothingSaysIt() {
    Result r = run("quorum", "describe");
    assertEquals(2, r.exitCode(), r.toString());
    assertTrue(r.err().contains("--bootstrap-controller"), r.toString());
  }

  @Test
  void shouldRefuseAConfigWithoutVotersAndAnAddressThatIsNotHostPort() throws IOException {
    Path config = dir.resolve("node.properties");
    Files.writeString(config, "node.id=1\n");
    Result r = run("quorum", "describe", "--config", config.toString());
    assertEquals(2, r.exitCode(), r.toString());
    assertTrue(r.err().contains("controller.quorum.voters"), r.toString());

    r =
        run(
            "quorum",
            "add-voter",
            "--bootstrap-controller",
            "1@127.0.0.1:1",
            "--node-id",
            "4",
            "--address",
            "no-port");
    assertEquals(2, r.exitCode(), r.toString());
    assertTrue(r.err().contains("--address no-port is not HOST:PORT"), r.toString());
  }

  @Test
  void shouldSayTheQuorumIsUnavailableWhenNoControllerAnswers() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nobody listens there
    }
    Result r =
        run(
            "quorum",
            "remove-voter",
            "--bootstrap-controller",
            "1@127.0.0.1:" + port,
            "--node-id",
            "1",
            "--timeout-ms",
            "300");
    assertEquals(1, r.exitCode(), r.toString());
    assertTrue(
        r.err().startsWith("error: QUORUM_UNAVAILABLE: cannot find the quorum's leader"),
        r.toString());
  }

  @Test
  void shouldTurnAnUnexpectedFailureIntoAQuorumUnavailableError() {
    SpoolException e =
        QuorumCommand.unexpected(
            new IllegalStateException(new java.io.IOException("UNAVAILABLE: io exception")));
    assertEquals(ErrorCode.QUORUM_UNAVAILABLE, e.errorCode());
    assertTrue(e.getMessage().contains("UNAVAILABLE: io exception"), e.getMessage());
  }

  /**
   * The JSON keeps every field it had and adds each member's reported metadata.version range, null
   * while unknown.
   */
  @Test
  void shouldAddEachMembersReportedRangeToTheJsonAndKeepTheOtherFields() {
    QuorumAdmin.Description d =
        new QuorumAdmin.Description(
            1,
            3,
            40,
            List.of(
                new QuorumAdmin.Member(1, "127.0.0.1:9001", 40, 0, 0)
                    .withMetadataVersions(new MetadataVersion.Range(1, 4)),
                new QuorumAdmin.Member(2, "127.0.0.1:9002", 39, 1, 12)),
            List.of(
                new QuorumAdmin.Member(4, "127.0.0.1:9004", 30, 10, 5)
                    .withMetadataVersions(new MetadataVersion.Range(1, 3))),
            false);
    assertEquals(
        "{\"leaderId\":1,\"term\":3,\"commitIndex\":40,\"changing\":false,\"voters\":["
            + "{\"nodeId\":1,\"address\":\"127.0.0.1:9001\",\"commitIndex\":40,\"lag\":0,"
            + "\"lastContactMsAgo\":0,\"metadataVersion\":{\"min\":1,\"max\":4}},"
            + "{\"nodeId\":2,\"address\":\"127.0.0.1:9002\",\"commitIndex\":39,\"lag\":1,"
            + "\"lastContactMsAgo\":12,\"metadataVersion\":null}],\"listeners\":["
            + "{\"nodeId\":4,\"address\":\"127.0.0.1:9004\",\"commitIndex\":30,\"lag\":10,"
            + "\"lastContactMsAgo\":5,\"metadataVersion\":{\"min\":1,\"max\":3}}]}",
        QuorumCommand.toJson(d));
  }
}
