package dev.spool.node;

import dev.spool.common.Clock;
import dev.spool.config.Config;
import dev.spool.config.ConfigException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code spool node start --config node.properties}: runs a node until SIGTERM. */
@Command(
    name = "node",
    description = "Run a Spool node.",
    mixinStandardHelpOptions = true,
    subcommands = {NodeCommand.Start.class})
public final class NodeCommand {

  @Command(
      name = "start",
      mixinStandardHelpOptions = true,
      description = {
        "Start a node with the controller role, the broker role, or both (combined, the default).",
        "Stops gracefully on SIGTERM (leaderships are moved away first); SIGKILL loses nothing acknowledged."
      },
      footerHeading =
          "%nExit codes: 0 stopped cleanly, 1 failed while running, 2 bad configuration, 3 a data"
              + " directory is not formatted for this node (spool storage format).%n%n")
  static final class Start implements Callable<Integer> {
    private static final Logger log = LoggerFactory.getLogger(Start.class);

    @Option(
        names = "--config",
        required = true,
        paramLabel = "FILE",
        description = "Node properties file (key=value).")
    Path configFile;

    @Option(
        names = "--override",
        paramLabel = "KEY=VALUE",
        description = "Set a key, overriding the file (repeatable).")
    List<String> overrides = List.of();

    @Override
    public Integer call() {
      Config config;
      try {
        Map<String, String> o = new LinkedHashMap<>();
        for (String kv : overrides) {
          int eq = kv.indexOf('=');
          if (eq <= 0) {
            throw new ConfigException(null, "--override needs KEY=VALUE, got '" + kv + "'");
          }
          o.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
        }
        config = NodeConfig.parse(NodeConfig.load(configFile, o));
        // Before checkEnvironment, which creates missing directories: a refused start changes
        // nothing on disk.
        config = NodeStorage.verify(config);
        NodeConfig.checkEnvironment(config);
      } catch (ConfigException e) {
        System.err.println("spool node: bad configuration: " + e.getMessage());
        return 2;
      } catch (StorageException e) {
        System.err.println("spool node: refusing to start: " + e.getMessage());
        return 3;
      }
      log.info("{}", config.toLogString());
      SpoolNode node;
      try {
        node = SpoolNode.start(config, Clock.SYSTEM);
      } catch (ConfigException e) {
        System.err.println("spool node: bad configuration: " + e.getMessage());
        return 2;
      } catch (StorageException e) {
        System.err.println("spool node: refusing to start: " + e.getMessage());
        return 3;
      } catch (Exception e) {
        log.error("node failed to start: {}", SpoolNode.describe(config), e);
        return 1;
      }
      Runtime.getRuntime().addShutdownHook(new Thread(node::close, "spool-shutdown"));
      try {
        node.awaitStopped();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return 0;
    }
  }

  /** The help footer of {@code node start}: every configuration key with its default and doc. */
  static String keysHelp() {
    return ("Configuration keys (in the file or as --override):%n" + NodeConfig.DEF.help())
        .replace("%", "%%")
        .replace("%%n", "%n");
  }
}
