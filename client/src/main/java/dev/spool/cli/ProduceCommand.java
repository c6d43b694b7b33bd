package dev.spool.cli;

import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import dev.spool.client.RecordMetadata;
import dev.spool.common.ErrorCode;
import dev.spool.common.SpoolException;
import dev.spool.record.Header;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code spool produce TOPIC}: one record per stdin line. Results are reported per line, in input
 * order, as each settles: nothing (plain) or one JSON object per line ({@code --output json}). Exit
 * 1 when any line failed (3 when every failure was an unreachable cluster or a timeout).
 */
@Command(
    name = "produce",
    mixinStandardHelpOptions = true,
    description = "Read lines from stdin and send one record per line.")
final class ProduceCommand implements Callable<Integer> {
  /** How long the CLI waits for metadata or buffer memory per record unless told otherwise. */
  private static final String CLI_MAX_BLOCK_MS = "15000";

  enum Output {
    plain,
    json
  }

  private record Pending(
      int lineNo, String key, String value, CompletableFuture<RecordMetadata> future) {}

  private static final Pending END = new Pending(-1, null, null, null);

  private final CliContext ctx;

  @Spec CommandSpec spec;

  @Mixin ClusterOptions cluster = new ClusterOptions();

  @Parameters(index = "0", paramLabel = "TOPIC", description = "Topic to write to.")
  String topic;

  @Option(
      names = "--key-separator",
      paramLabel = "SEP",
      description = "Each line is KEY<SEP>VALUE: the key is what precedes the first SEP.")
  String keySeparator;

  @Option(
      names = "--acks",
      defaultValue = "all",
      paramLabel = "all|1|0|-1",
      description = "Acknowledgement to wait for (default: ${DEFAULT-VALUE}).")
  String acks;

  @Option(
      names = "--partition",
      paramLabel = "N",
      description = "Write every record to this partition.")
  Integer partition;

  @Option(
      names = "--header",
      paramLabel = "k=v",
      description = "A header for every record (repeatable).")
  List<String> headers;

  @Option(
      names = "--producer-prop",
      paramLabel = "k=v",
      description =
          "A producer config (repeatable), e.g. linger.ms=0. See `spool produce --help-config`.")
  List<String> producerProps;

  @Option(
      names = "--help-config",
      help = true,
      description = "Print the producer config keys and exit.")
  boolean helpConfig;

  @Option(
      names = "--output",
      defaultValue = "plain",
      paramLabel = "plain|json",
      description =
          "json: one object per line, {\"value\",\"partition\",\"offset\"} or {\"value\",\"error\"} "
              + "(plus \"key\"), in input order.")
  Output output;

  ProduceCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() throws Exception {
    if (helpConfig) {
      ctx.out().print(dev.spool.client.ProducerConfig.help());
      return ExitCodes.OK;
    }
    if (!List.of("all", "-1", "1", "0").contains(acks)) {
      throw new ParameterException(
          spec.commandLine(), "--acks must be all, -1, 1 or 0, not '" + acks + "'");
    }
    if (keySeparator != null && keySeparator.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "--key-separator must not be empty");
    }
    Map<String, String> props = new HashMap<>();
    props.put("bootstrap.servers", cluster.resolve(ctx));
    props.put("acks", acks);
    props.put("max.block.ms", CLI_MAX_BLOCK_MS);
    props.putAll(KeyValues.parse(producerProps, "--producer-prop", spec));
    List<Header> recordHeaders = new ArrayList<>();
    KeyValues.parse(headers, "--header", spec)
        .forEach((k, v) -> recordHeaders.add(new Header(k, v.getBytes(StandardCharsets.UTF_8))));

    Results results = new Results();
    try (Producer producer = new Producer(props)) {
      LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>(100_000);
      Thread printer = new Thread(() -> print(queue, results), "spool-produce-printer");
      printer.start();
      try {
        readAndSend(producer, recordHeaders, queue);
      } finally {
        queue.put(END);
        printer.join();
      }
    }
    return results.exitCode(ctx, output == Output.json);
  }

  private void readAndSend(
      Producer producer, List<Header> recordHeaders, LinkedBlockingQueue<Pending> queue)
      throws IOException, InterruptedException {
    BufferedReader reader =
        new BufferedReader(new InputStreamReader(ctx.in(), StandardCharsets.UTF_8));
    SpoolException unreachable = null;
    String line;
    int lineNo = 0;
    while ((line = reader.readLine()) != null) {
      lineNo++;
      String key = null;
      String value = line;
      CompletableFuture<RecordMetadata> f;
      if (keySeparator != null) {
        int at = line.indexOf(keySeparator);
        if (at < 0) {
          queue.put(
              new Pending(
                  lineNo,
                  null,
                  line,
                  CompletableFuture.failedFuture(
                      new IllegalArgumentException(
                          "no key separator '" + keySeparator + "' in line " + lineNo))));
          continue;
        }
        key = line.substring(0, at);
        value = line.substring(at + keySeparator.length());
      }
      if (unreachable != null) {
        // The cluster or topic was unusable for an earlier line: fail the rest fast, in order.
        f = CompletableFuture.failedFuture(unreachable);
      } else {
        f =
            producer.send(
                new ProducerRecord(
                    topic, partition, bytes(key), bytes(value), recordHeaders, null));
        if (f.isCompletedExceptionally()) {
          Throwable cause = f.handle((m, e) -> ExitCodes.rootCause(e)).join();
          if (cause instanceof SpoolException se
              && (ExitCodes.isConnectivity(se.errorCode())
                  || se.errorCode() == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                  || se.errorCode() == ErrorCode.INVALID_TOPIC)) {
            unreachable = se;
          }
        }
      }
      queue.put(new Pending(lineNo, key, value, f));
    }
  }

  private static byte[] bytes(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  private void print(LinkedBlockingQueue<Pending> queue, Results results) {
    try {
      while (true) {
        Pending p = queue.take();
        if (p == END) {
          return;
        }
        RecordMetadata m = null;
        Throwable error = null;
        try {
          m = p.future().join();
        } catch (RuntimeException e) {
          error = ExitCodes.rootCause(e);
        }
        results.record(error);
        report(p, m, error);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void report(Pending p, RecordMetadata m, Throwable error) {
    if (output == Output.json) {
      RecordMetadata meta = m;
      String err = error == null ? null : ExitCodes.describe(error).substring("error: ".length());
      JsonLines.write(
          ctx.out(),
          g -> {
            g.writeStartObject();
            if (p.key() != null) {
              g.writeStringField("key", p.key());
            }
            g.writeStringField("value", p.value());
            if (err == null) {
              g.writeNumberField("partition", meta.partition());
              g.writeNumberField("offset", meta.offset());
            } else {
              g.writeStringField("error", err);
            }
            g.writeEndObject();
          });
    } else if (error != null) {
      ctx.err()
          .println(
              "error: line "
                  + p.lineNo()
                  + ": "
                  + ExitCodes.describe(error).substring("error: ".length()));
    }
  }

  /** Failure bookkeeping for the exit code; written by the printer thread, read after it ends. */
  private static final class Results {
    int lines;
    int failed;
    boolean otherFailure;
    String first;

    synchronized void record(Throwable error) {
      lines++;
      if (error == null) {
        return;
      }
      failed++;
      if (first == null) {
        first = ExitCodes.describe(error).substring("error: ".length());
      }
      if (!(error instanceof SpoolException se && ExitCodes.isConnectivity(se.errorCode()))) {
        otherFailure = true;
      }
    }

    synchronized int exitCode(CliContext ctx, boolean summarize) {
      if (failed == 0) {
        return ExitCodes.OK;
      }
      if (summarize) {
        ctx.err()
            .println(
                "error: " + failed + " of " + lines + " records failed (first: " + first + ")");
      }
      return otherFailure ? ExitCodes.FAILED : ExitCodes.UNREACHABLE;
    }
  }
}
