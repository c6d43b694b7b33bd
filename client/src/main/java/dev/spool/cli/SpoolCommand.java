package dev.spool.cli;

import dev.spool.common.SpoolVersion;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code spool} command line: one entry point, a subcommand per task, {@code --help}
 * everywhere. Client-side subcommands live here; the node module adds {@code node} through the
 * hook:
 *
 * <pre>{@code
 * public static void main(String[] args) {
 *   System.exit(SpoolCommand.commandLine(Map.of("node", new NodeCommand())).execute(args));
 * }
 * }</pre>
 *
 * Extra subcommands may be picocli command objects or {@link CommandLine}s; they get the same error
 * handling (one {@code error: CODE: message} line on stderr), exit codes and help footer. Exit
 * codes: 0 success, 1 an operation failed, 2 usage error, 3 cannot reach the cluster or timed out.
 * Logs go through SLF4J (the node module's binding sends them to stderr at WARN); stdout carries
 * only command output.
 */
@Command(
    name = "spool",
    mixinStandardHelpOptions = true,
    versionProvider = SpoolCommand.Version.class,
    description = "Spool: a replicated log. Produce, consume, administer and benchmark a cluster.",
    subcommands = {
      ProduceCommand.class,
      ConsumeCommand.class,
      TopicCommand.class,
      GroupCommand.class,
      ClusterCommand.class,
      UserCommand.class,
      AclCommand.class,
      QuotaCommand.class,
      FeaturesCommand.class,
      ReassignCommand.class,
      PerfCommand.class,
      CommandLine.HelpCommand.class
    })
public final class SpoolCommand implements Callable<Integer> {
  /** {@code spool --version}: the version the build stamped (picocli instantiates it). */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {SpoolVersion.describe()};
    }
  }

  @Spec CommandSpec spec;

  private final CliContext ctx;

  public SpoolCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(ctx.err());
    return ExitCodes.USAGE;
  }

  /**
   * The command line for this process (System streams and environment) plus {@code
   * extraSubcommands}.
   */
  public static CommandLine commandLine(Map<String, Object> extraSubcommands) {
    return commandLine(CliContext.system(), extraSubcommands);
  }

  /**
   * The command line bound to {@code ctx}, plus {@code extraSubcommands} (name → command object).
   */
  public static CommandLine commandLine(CliContext ctx, Map<String, Object> extraSubcommands) {
    CommandLine cl = new CommandLine(new SpoolCommand(ctx), new Factory(ctx));
    extraSubcommands.forEach(cl::addSubcommand);
    cl.setOut(
        new PrintWriter(new java.io.OutputStreamWriter(ctx.out(), StandardCharsets.UTF_8), true));
    cl.setErr(
        new PrintWriter(new java.io.OutputStreamWriter(ctx.err(), StandardCharsets.UTF_8), true));
    cl.setExecutionExceptionHandler(
        (ex, commandLine, parseResult) -> {
          commandLine.getErr().println(ExitCodes.describe(ex));
          commandLine.getErr().flush();
          return ExitCodes.of(ex);
        });
    cl.setParameterExceptionHandler(
        (ex, args) -> {
          CommandLine bad = ex.getCommandLine();
          bad.getErr()
              .println(
                  "error: "
                      + ex.getMessage().replace('\n', ' ')
                      + " (try '"
                      + bad.getCommandSpec().qualifiedName()
                      + " --help')");
          bad.getErr().flush();
          return ExitCodes.USAGE;
        });
    applyHelpFooter(cl);
    return cl;
  }

  private static void applyHelpFooter(CommandLine cl) {
    cl.getCommandSpec()
        .usageMessage()
        .exitCodeListHeading("%nExit codes:%n")
        .exitCodeList(ExitCodes.helpList());
    cl.getSubcommands().values().forEach(SpoolCommand::applyHelpFooter);
  }

  /** Runs {@code args} against {@code ctx}; returns the exit code. */
  public static int run(CliContext ctx, String... args) {
    return commandLine(ctx, Map.of()).execute(args);
  }

  public static void main(String[] args) {
    System.exit(commandLine(Map.of()).execute(args));
  }

  /** Builds commands with the context when they take one. */
  private record Factory(CliContext ctx) implements CommandLine.IFactory {
    @Override
    public <K> K create(Class<K> cls) throws Exception {
      try {
        java.lang.reflect.Constructor<K> c = cls.getDeclaredConstructor(CliContext.class);
        c.setAccessible(true);
        return c.newInstance(ctx);
      } catch (NoSuchMethodException e) {
        return CommandLine.defaultFactory().create(cls);
      }
    }
  }
}
