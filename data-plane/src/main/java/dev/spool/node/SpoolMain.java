package dev.spool.node;

import dev.spool.cli.CliContext;
import dev.spool.cli.SpoolCommand;
import java.util.Map;
import picocli.CommandLine;

/**
 * The {@code spool} executable: the client command line ({@code produce}, {@code consume}, {@code
 * topic}, {@code cluster}, {@code perf}) plus {@code node start} and {@code storage
 * format|random-uuid} and {@code quorum describe|add-voter|remove-voter}.
 */
public final class SpoolMain {
  private SpoolMain() {}

  public static CommandLine commandLine() {
    return commandLine(CliContext.system());
  }

  /** The command line bound to {@code ctx} (tests capture its streams). */
  public static CommandLine commandLine(CliContext ctx) {
    CommandLine cl =
        SpoolCommand.commandLine(
            ctx,
            Map.of(
                "node",
                new NodeCommand(),
                "storage",
                new StorageCommand(),
                "quorum",
                new QuorumCommand()));
    cl.getSubcommands()
        .get("node")
        .getSubcommands()
        .get("start")
        .getCommandSpec()
        .usageMessage()
        .footer(NodeCommand.keysHelp());
    return cl;
  }

  public static void main(String[] args) {
    // Ratis' shaded gRPC logs through java.util.logging, whose console handler would print its INFO
    // lines (e.g. "Epoll available during static init of TcpMetrics") into a command's output; the
    // CLI's own logging goes through SLF4J (spool-cli-logback.xml). Warnings still show.
    java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
    System.exit(commandLine().execute(args));
  }
}
