package dev.spool.node;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.spool.broker.SecurityConfig;
import dev.spool.cli.CliContext;
import dev.spool.cli.ExitCodes;
import dev.spool.common.ErrorCode;
import dev.spool.common.HostPort;
import dev.spool.common.SpoolException;
import dev.spool.config.ConfigException;
import dev.spool.quorum.QuorumAdmin;
import dev.spool.quorum.QuorumAdmin.Description;
import dev.spool.quorum.QuorumAdmin.Member;
import dev.spool.quorum.QuorumConfig;
import dev.spool.quorum.QuorumTls;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code spool quorum describe|add-voter|remove-voter}: the controller quorum's membership, changed
 * online (docs/operations.md#dynamic-controller-quorum). Talks to the controllers' Raft ports
 * directly ({@link QuorumAdmin}). Runs on the command's thread.
 */
@Command(
    name = "quorum",
    mixinStandardHelpOptions = true,
    description = "Describe the controller quorum, add a voter or remove voters, online.",
    subcommands = {
      QuorumCommand.Describe.class,
      QuorumCommand.AddVoter.class,
      QuorumCommand.RemoveVoter.class
    })
public final class QuorumCommand {
  private static final JsonFactory JSON = new JsonFactory();

  /** Where the controllers are, and the time budget: every subcommand's options. */
  static final class Connection {
    @Option(
        names = "--bootstrap-controller",
        paramLabel = "ID@HOST:PORT,...",
        description =
            "Controllers to reach the quorum through, as controller.quorum.voters lists them (any"
                + " current member will do). Default: controller.quorum.voters of --config, or of"
                + " the local cluster's .spool-cluster/node-1/node.properties.")
    String bootstrap;

    @Option(
        names = {"-c", "--config"},
        paramLabel = "FILE",
        description =
            "A node's properties file: its controller.quorum.voters is the bootstrap, and with"
                + " listener.security.protocol.map CONTROLLER:SSL its ssl.* keys are the command's"
                + " certificate and trust (the quorum is mutual TLS). Default: the local cluster's"
                + " .spool-cluster/node-1/node.properties when it exists.")
    Path configFile;

    @Option(
        names = "--timeout-ms",
        defaultValue = "60000",
        paramLabel = "MS",
        description =
            "How long the command may take (a new voter's catch-up included). Default: ${DEFAULT-VALUE}.")
    long timeoutMs;

    @Option(names = "--json", description = "Print the quorum as one JSON object.")
    boolean json;

    private Path file(CliContext ctx) {
      return configFile != null
          ? ctx.workingDirectory().resolve(configFile)
          : ctx.workingDirectory().resolve(".spool-cluster/node-1/node.properties");
    }

    /**
     * The quorum's TLS material from the properties file (null: plaintext, or no file): its
     * listener.security.protocol.map and ssl.* keys, read as the node reads them.
     */
    QuorumTls tls(CliContext ctx) {
      Path file = file(ctx);
      if (configFile == null && !Files.exists(file)) {
        return null;
      }
      Map<String, String> security = new LinkedHashMap<>();
      NodeConfig.load(file, Map.of())
          .forEach(
              (k, v) -> {
                if (SecurityConfig.DEF.contains(k)) {
                  security.put(k, v);
                }
              });
      return SecurityConfig.quorumTls(SecurityConfig.DEF.parse(security));
    }

    Map<Integer, HostPort> controllers(CliContext ctx) {
      String voters = bootstrap;
      if (voters == null) {
        Path file = file(ctx);
        if (configFile == null && !Files.exists(file)) {
          throw new IllegalArgumentException(
              "where is the quorum? give --bootstrap-controller ID@HOST:PORT,... or --config FILE");
        }
        voters = NodeConfig.load(file, Map.of()).get(QuorumConfig.VOTERS.name());
        if (voters == null) {
          throw new IllegalArgumentException(
              file + " sets no " + QuorumConfig.VOTERS.name() + ": give --bootstrap-controller");
        }
      }
      return QuorumConfig.parseVoters(voters);
    }
  }

  /**
   * An unexpected failure of the quorum admin (a Ratis client error not mapped to a code): reported
   * as QUORUM_UNAVAILABLE with what went wrong, like the mapped ones, not as a stack trace.
   */
  static SpoolException unexpected(RuntimeException e) {
    Throwable c = e;
    while (c.getCause() != null && c.getCause() != c && c.getMessage() == null) {
      c = c.getCause();
    }
    return new SpoolException(
        ErrorCode.QUORUM_UNAVAILABLE, c.getClass().getSimpleName() + ": " + c.getMessage(), e);
  }

  /** Runs {@code op} against the quorum and prints what it returns; refusals go to stderr. */
  private static int run(
      CliContext ctx, Connection conn, Function<QuorumAdmin, Description> op, String done) {
    Map<Integer, HostPort> controllers;
    QuorumTls tls;
    try {
      controllers = conn.controllers(ctx);
      tls = conn.tls(ctx);
    } catch (IllegalArgumentException | ConfigException e) {
      ctx.err().println("error: " + e.getMessage());
      ctx.err().flush();
      return ExitCodes.USAGE;
    }
    Description d;
    try (QuorumAdmin admin = QuorumAdmin.connect(controllers, conn.timeoutMs, tls)) {
      d = op.apply(admin);
    } catch (SpoolException e) {
      ctx.err().println("error: " + e.getMessage()); // "CODE: message"
      ctx.err().flush();
      return ExitCodes.FAILED;
    } catch (RuntimeException e) {
      ctx.err().println("error: " + unexpected(e).getMessage());
      ctx.err().flush();
      return ExitCodes.FAILED;
    }
    if (conn.json) {
      ctx.out().println(toJson(d));
    } else {
      if (done != null) {
        ctx.out().println(done);
      }
      print(ctx.out(), d);
    }
    ctx.out().flush();
    return ExitCodes.OK;
  }

  private static void print(PrintStream out, Description d) {
    out.println(
        "leader "
            + d.leaderId()
            + "  term "
            + d.term()
            + "  commit index "
            + d.commitIndex()
            + (d.changing() ? "  (configuration change in progress)" : ""));
    out.printf(
        "%-9s %-7s %-24s %12s %8s %14s  %s%n",
        "ROLE", "NODE", "ADDRESS", "COMMIT", "LAG", "CONTACT_MS", "METADATA_VERSION");
    for (Member m : d.voters()) {
      row(out, m.nodeId() == d.leaderId() ? "leader" : "voter", m);
    }
    for (Member m : d.listeners()) {
      row(out, "listener", m);
    }
  }

  private static void row(PrintStream out, String role, Member m) {
    out.printf(
        "%-9s %-7d %-24s %12d %8d %14d  %s%n",
        role,
        m.nodeId(),
        m.address(),
        m.commitIndex(),
        m.lag(),
        m.lastContactMsAgo(),
        m.metadataVersions() == null ? "unknown" : m.metadataVersions().toString());
  }

  static String toJson(Description d) {
    StringWriter w = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(w)) {
      g.writeStartObject();
      g.writeNumberField("leaderId", d.leaderId());
      g.writeNumberField("term", d.term());
      g.writeNumberField("commitIndex", d.commitIndex());
      g.writeBooleanField("changing", d.changing());
      members(g, "voters", d.voters());
      members(g, "listeners", d.listeners());
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return w.toString();
  }

  private static void members(JsonGenerator g, String name, List<Member> ms) throws IOException {
    g.writeArrayFieldStart(name);
    for (Member m : ms) {
      g.writeStartObject();
      g.writeNumberField("nodeId", m.nodeId());
      g.writeStringField("address", m.address());
      g.writeNumberField("commitIndex", m.commitIndex());
      g.writeNumberField("lag", m.lag());
      g.writeNumberField("lastContactMsAgo", m.lastContactMsAgo());
      // Added with controller range reports: the range the member reported to the active
      // controller, null while unknown.
      if (m.metadataVersions() == null) {
        g.writeNullField("metadataVersion");
      } else {
        g.writeObjectFieldStart("metadataVersion");
        g.writeNumberField("min", m.metadataVersions().min());
        g.writeNumberField("max", m.metadataVersions().max());
        g.writeEndObject();
      }
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  @Command(
      name = "describe",
      mixinStandardHelpOptions = true,
      description =
          "The quorum as its leader sees it: leader, term, commit index, and per voter and listener"
              + " its address, commit index, lag behind the leader, last contact and the"
              + " metadata.version range it reported to the active controller.")
  static final class Describe implements Callable<Integer> {
    private final CliContext ctx;

    @Mixin Connection conn;

    Describe(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      return run(ctx, conn, QuorumAdmin::describe, null);
    }
  }

  @Command(
      name = "add-voter",
      mixinStandardHelpOptions = true,
      description = {
        "Add a running controller as a voter. Start it first as a new member: node.id not in"
            + " controller.quorum.voters, controller.quorum.listener=HOST:PORT, storage formatted"
            + " for this cluster. It joins as a listener, catches up with the leader's log, then"
            + " becomes a voter.",
        "Refused, changing nothing: a node id that is already a voter, an address nobody answers"
            + " at, a controller of another cluster, a change already in progress."
      })
  static final class AddVoter implements Callable<Integer> {
    private final CliContext ctx;

    @Mixin Connection conn;

    @Option(
        names = "--node-id",
        required = true,
        paramLabel = "ID",
        description = "The new voter's node.id.")
    int nodeId;

    @Option(
        names = "--address",
        required = true,
        paramLabel = "HOST:PORT",
        description = "The new voter's Raft address (its controller.quorum.listener).")
    String address;

    AddVoter(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      HostPort a;
      try {
        a = HostPort.parse(address);
      } catch (IllegalArgumentException e) {
        ctx.err().println("error: --address " + address + " is not HOST:PORT: " + e.getMessage());
        return ExitCodes.USAGE;
      }
      return run(
          ctx, conn, admin -> admin.addVoter(nodeId, a), "Added node " + nodeId + " as a voter.");
    }
  }

  @Command(
      name = "remove-voter",
      mixinStandardHelpOptions = true,
      description = {
        "Remove voters (or listeners) in one configuration change. If the active controller is"
            + " among them, leadership moves to a staying voter first. A removed controller stops"
            + " taking part in the quorum; stop its process (or take the controller role out of its"
            + " process.roles) afterwards.",
        "Refused, changing nothing: removing every voter, removing so many at once that the staying"
            + " voters are not a majority of the current ones, removing when the staying voters the"
            + " leader reaches are not a majority of them, an id that is not a member."
      })
  static final class RemoveVoter implements Callable<Integer> {
    private final CliContext ctx;

    @Mixin Connection conn;

    @Option(
        names = "--node-id",
        required = true,
        split = ",",
        paramLabel = "ID[,ID...]",
        description = "The voters to remove.")
    List<Integer> nodeIds;

    RemoveVoter(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      Set<Integer> ids = new TreeSet<>(nodeIds);
      return run(
          ctx, conn, admin -> admin.removeVoters(ids), "Removed " + ids + " from the quorum.");
    }
  }
}
