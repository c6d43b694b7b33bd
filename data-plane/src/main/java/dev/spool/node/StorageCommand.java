package dev.spool.node;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.spool.cli.CliContext;
import dev.spool.cli.ExitCodes;
import dev.spool.config.Config;
import dev.spool.config.ConfigException;
import dev.spool.quorum.BootstrapCredentials;
import dev.spool.quorum.image.MetadataVersion;
import dev.spool.quorum.message.ScramCredentialRecord;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code spool storage format|random-uuid}: Kafka's {@code kafka-storage} for a Spool node
 * (docs/operations.md#storage-format-and-node-identity). Runs on the command's thread.
 */
@Command(
    name = "storage",
    mixinStandardHelpOptions = true,
    description = "Format a node's data directories, or make a new cluster id.",
    subcommands = {StorageCommand.Format.class, StorageCommand.RandomUuid.class})
public final class StorageCommand {
  private static final JsonFactory JSON = new JsonFactory();

  @Command(
      name = "format",
      mixinStandardHelpOptions = true,
      description = {
        "Write meta.properties (version, cluster.id, node.id, directory.id) into each data directory"
            + " of the node: its log directory (data.dir) and, on a controller, its quorum directory"
            + " (metadata.log.dir). A node refuses to start on a directory that is not formatted or"
            + " belongs to another cluster or node.",
        "Every directory is checked before any is written: a directory already formatted (unless"
            + " --ignore-formatted), formatted for another cluster or node, or holding data without"
            + " meta.properties fails the command and nothing changes."
      })
  static final class Format implements Callable<Integer> {
    private final CliContext ctx;

    Format(CliContext ctx) {
      this.ctx = ctx;
    }

    @Option(
        names = {"-c", "--config"},
        required = true,
        paramLabel = "FILE",
        description = "The node's properties file (as for spool node start).")
    Path configFile;

    @Option(
        names = {"-t", "--cluster-id"},
        required = true,
        paramLabel = "ID",
        description =
            "The cluster's id: the same on every node of the cluster (spool storage random-uuid"
                + " makes one); 1-64 characters of [A-Za-z0-9._-].")
    String clusterId;

    @Option(
        names = {"-g", "--ignore-formatted"},
        description =
            "Leave directories already formatted for this cluster and node as they are instead of"
                + " failing (a directory of another cluster or node still fails).")
    boolean ignoreFormatted;

    @Option(
        names = {"-r", "--release-version"},
        paramLabel = "LEVEL",
        description =
            "The metadata.version the cluster bootstraps at, recorded in the quorum directory of a"
                + " controller (Kafka's bootstrap checkpoint); the first active controller"
                + " finalizes it instead of the highest level it supports. Give every controller"
                + " the same. A level this build does not support fails the command and nothing is"
                + " written. Default: the highest level this build supports"
                + " (docs/operations.md#upgrades).")
    Integer releaseVersion;

    @Option(
        names = {"-S", "--add-scram"},
        paramLabel = "CREDENTIAL",
        description =
            "A SCRAM user the cluster starts with, in Kafka's syntax:"
                + " 'SCRAM-SHA-256=[name=admin,password=admin-secret]' (optional iterations=N,"
                + " 4096 to 16384, default 4096; salt=BASE64; saltedpassword=BASE64 with salt="
                + " instead of password=). Repeatable. Recorded in a controller's quorum directory"
                + " as salt, iterations and keys (never the password); the first active"
                + " controller writes them when it bootstraps the cluster, so a user can log in to"
                + " a cluster whose only listener is SASL (docs/security.md#sasl).")
    List<String> addScram;

    @Option(names = "--json", description = "Print the result as one JSON object.")
    boolean json;

    @Override
    public Integer call() {
      Config config;
      try {
        Path file = ctx.workingDirectory().resolve(configFile);
        config = NodeConfig.parse(NodeConfig.load(file, Map.of()));
      } catch (ConfigException e) {
        ctx.err().println("error: bad configuration: " + e.getMessage());
        return ExitCodes.USAGE;
      }
      List<NodeStorage.Formatted> done;
      try {
        List<ScramCredentialRecord> users = new ArrayList<>();
        SecureRandom random = new SecureRandom();
        for (String spec : addScram == null ? List.<String>of() : addScram) {
          users.add(BootstrapCredentials.parse(spec, random));
        }
        done =
            NodeStorage.format(
                config,
                clusterId,
                ignoreFormatted,
                releaseVersion == null ? OptionalInt.empty() : OptionalInt.of(releaseVersion),
                users);
      } catch (IllegalArgumentException e) {
        ctx.err().println("error: " + e.getMessage());
        return ExitCodes.USAGE;
      } catch (StorageException e) {
        ctx.err().println("error: " + e.getMessage());
        return ExitCodes.FAILED;
      }
      if (json) {
        ctx.out().println(toJson(done));
      } else if (done.stream().allMatch(NodeStorage.Formatted::alreadyFormatted)) {
        ctx.out().println("All of the node's directories are already formatted.");
      } else {
        for (NodeStorage.Formatted f : done) {
          ctx.out()
              .println(
                  (f.alreadyFormatted() ? "Already formatted, left as it was: " : "Formatted ")
                      + f.dir()
                      + " (cluster.id "
                      + f.meta().clusterId()
                      + ", node.id "
                      + f.meta().nodeId()
                      + ", directory.id "
                      + f.meta().directoryId()
                      + (f.bootstrapLevel() == MetadataVersion.UNSET
                          ? ""
                          : ", the cluster bootstraps at metadata.version " + f.bootstrapLevel())
                      + ")");
        }
      }
      ctx.out().flush();
      return ExitCodes.OK;
    }

    private static String toJson(List<NodeStorage.Formatted> done) {
      StringWriter w = new StringWriter();
      try (JsonGenerator g = JSON.createGenerator(w)) {
        g.writeStartObject();
        g.writeStringField("clusterId", done.get(0).meta().clusterId());
        g.writeNumberField("nodeId", done.get(0).meta().nodeId());
        g.writeArrayFieldStart("directories");
        for (NodeStorage.Formatted f : done) {
          g.writeStartObject();
          g.writeStringField("path", f.dir().path().toAbsolutePath().normalize().toString());
          g.writeStringField("role", f.dir().role());
          g.writeStringField("directoryId", f.meta().directoryId().toString());
          g.writeStringField("result", f.alreadyFormatted() ? "already-formatted" : "formatted");
          if (f.bootstrapLevel() != MetadataVersion.UNSET) {
            g.writeNumberField("bootstrapMetadataVersion", f.bootstrapLevel());
          }
          g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return w.toString();
    }
  }

  @Command(
      name = "random-uuid",
      mixinStandardHelpOptions = true,
      description =
          "Print a new random id as Kafka's kafka-storage random-uuid does (22 characters of"
              + " base64url), for --cluster-id.")
  static final class RandomUuid implements Callable<Integer> {
    private final CliContext ctx;

    RandomUuid(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      ctx.out().println(Base64Uuid.random());
      ctx.out().flush();
      return ExitCodes.OK;
    }
  }
}
