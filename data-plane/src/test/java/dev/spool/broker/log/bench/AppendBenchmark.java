package dev.spool.broker.log.bench;

import dev.spool.broker.log.LogStartupState;
import dev.spool.broker.log.PartitionLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * (1) Appending 16 KiB batches of 1 KiB records through {@link PartitionLog#appendAsLeader}
 * (validation with CRC, record walk, offset assignment, write, index) against a plain {@link
 * FileChannel#write} of the same bytes. One operation = one batch; both start from an empty file
 * each iteration.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class AppendBenchmark {
  private Path root;
  private ScheduledExecutorService scheduler;
  private PartitionLog log;
  private FileChannel plain;
  private long plainPosition;
  private ByteBuffer batch;

  @Setup(Level.Trial)
  public void trial() {
    scheduler = BenchSupport.scheduler();
    batch = BenchSupport.batch(1);
  }

  @Setup(Level.Iteration)
  public void iteration() throws IOException {
    root = BenchSupport.benchRoot();
    log = BenchSupport.open(root, LogStartupState.UNKNOWN, scheduler);
    plain =
        FileChannel.open(
            root.resolve("plain.log"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    plainPosition = 0;
  }

  @TearDown(Level.Iteration)
  public void endIteration() throws IOException {
    log.close();
    plain.close();
    BenchSupport.delete(root);
  }

  @TearDown(Level.Trial)
  public void endTrial() {
    scheduler.shutdownNow();
  }

  @Benchmark
  public long spoolAppendAsLeader() {
    return log.appendAsLeader(batch.duplicate(), 0).lastOffset();
  }

  @Benchmark
  public long baselineFileChannelWrite() throws IOException {
    ByteBuffer b = batch.duplicate();
    while (b.hasRemaining()) {
      plainPosition += plain.write(b, plainPosition);
    }
    return plainPosition;
  }
}
