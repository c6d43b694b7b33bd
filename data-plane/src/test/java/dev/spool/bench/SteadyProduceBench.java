package dev.spool.bench;

import dev.spool.client.Producer;
import dev.spool.client.ProducerRecord;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A steady acks=all produce load for scripts/bench-reassign.sh (run by the script, not a test):
 * sends RATE records/s of SIZE bytes to TOPIC until the file STOP exists, and writes one line per
 * acknowledged record to OUT: {@code <scheduled send, epoch ms> <latency µs>}. The latency is
 * measured from the record's scheduled send time, not from when the loop got round to it, so a
 * stalled producer counts its stall (no coordinated omission). The script cuts the lines into
 * windows (before the move, during it) and takes each window's p99.
 *
 * <pre>java -cp ... dev.spool.bench.SteadyProduceBench BOOTSTRAP TOPIC RATE SIZE OUT STOP</pre>
 *
 * Prints {@code RESULT sent=… acked=… failed=…} when it stops.
 */
public final class SteadyProduceBench {
  private SteadyProduceBench() {}

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    int rate = Integer.parseInt(args[2]);
    int size = Integer.parseInt(args[3]);
    Path out = Path.of(args[4]);
    Path stop = Path.of(args[5]);
    byte[] value = new byte[size];
    for (int i = 0; i < size; i++) {
      value[i] = (byte) ('a' + i % 26);
    }
    AtomicLong acked = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    long sent = 0;
    long periodNs = TimeUnit.SECONDS.toNanos(1) / rate;
    try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8);
        Producer producer =
            new Producer(
                Map.of(
                    "bootstrap.servers", bootstrap,
                    "acks", "all",
                    "linger.ms", "0",
                    "delivery.timeout.ms", "120000"))) {
      long startNs = System.nanoTime();
      long startMs = System.currentTimeMillis();
      while (!Files.exists(stop)) {
        long scheduledNs = startNs + sent * periodNs;
        long waitNs = scheduledNs - System.nanoTime();
        if (waitNs > 0) {
          LockSupport.parkNanos(waitNs); // pacing the fixed rate, not waiting for an outcome
        }
        long scheduledMs = startMs + TimeUnit.NANOSECONDS.toMillis(scheduledNs - startNs);
        sent++;
        producer
            .send(new ProducerRecord(topic, null, null, value, List.of(), null))
            .whenComplete(
                (m, e) -> {
                  if (e != null) {
                    failed.incrementAndGet();
                    return;
                  }
                  long us = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - scheduledNs);
                  acked.incrementAndGet();
                  synchronized (w) {
                    try {
                      w.write(scheduledMs + " " + us + "\n");
                    } catch (IOException io) {
                      throw new java.io.UncheckedIOException(io);
                    }
                  }
                });
      }
      producer.flush();
      synchronized (w) {
        w.flush();
      }
    }
    System.out.printf("RESULT sent=%d acked=%d failed=%d%n", sent, acked.get(), failed.get());
  }
}
