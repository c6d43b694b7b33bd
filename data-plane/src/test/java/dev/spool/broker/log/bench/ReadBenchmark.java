package dev.spool.broker.log.bench;

import dev.spool.broker.log.FileSlice;
import dev.spool.broker.log.LogReadResult;
import dev.spool.broker.log.LogStartupState;
import dev.spool.broker.log.PartitionLog;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * (2) Sequential read of a whole 256 MiB log through {@link PartitionLog#read} slices of up to 1
 * MiB (whole batches, found through the index) sent with {@code transferTo}, against a plain {@code
 * transferTo} of the same segment file. One operation = the whole log. The sink is /dev/null
 * (sendfile without a copy: the strictest comparison) or a loopback socket drained by a thread
 * (what the network layer does).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ReadBenchmark {
  static final long LOG_BYTES = 256L << 20;
  static final int FETCH_MAX_BYTES = 1 << 20;

  @Param({"devnull"})
  public String sink;

  private Path root;
  private ScheduledExecutorService scheduler;
  private PartitionLog log;
  private List<Path> segmentFiles;
  private WritableByteChannel out;
  private ServerSocketChannel server;
  private Thread drain;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    root = BenchSupport.benchRoot();
    scheduler = BenchSupport.scheduler();
    BenchSupport.fillLog(root, LOG_BYTES, scheduler);
    log = BenchSupport.open(root, new LogStartupState(Long.MAX_VALUE, 0, 0, true), scheduler);
    try (Stream<Path> s = Files.list(log.dir())) {
      segmentFiles = s.filter(p -> p.toString().endsWith(".log")).sorted().toList();
    }
    out = openSink();
  }

  private WritableByteChannel openSink() throws IOException {
    if (sink.equals("devnull")) {
      return FileChannel.open(Paths.get("/dev/null"), StandardOpenOption.WRITE);
    }
    server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
    SocketChannel client = SocketChannel.open(server.getLocalAddress());
    SocketChannel accepted = server.accept();
    drain =
        new Thread(
            () -> {
              ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
              try {
                while (accepted.read(buf) >= 0) {
                  buf.clear();
                }
              } catch (IOException ignored) {
                // closed at tear-down
              }
            },
            "bench-drain");
    drain.setDaemon(true);
    drain.start();
    return client;
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    out.close();
    if (server != null) {
      server.close();
    }
    log.close();
    scheduler.shutdownNow();
    BenchSupport.delete(root);
  }

  @Benchmark
  public long spoolReadSlicesTransferTo() throws IOException {
    long offset = log.logStartOffset();
    long end = log.logEndOffset();
    long sent = 0;
    while (offset < end) {
      LogReadResult r = log.read(offset, FETCH_MAX_BYTES, end, true);
      FileSlice slice = r.slice();
      long pos = slice.position();
      long left = slice.sizeInBytes();
      while (left > 0) {
        long n = slice.channel().transferTo(pos, left, out);
        pos += n;
        left -= n;
      }
      sent += slice.sizeInBytes();
      offset = r.firstBatchBaseOffset() + slice.offsets();
    }
    return sent;
  }

  /**
   * Not a target, a reference: the same files in fixed 1 MiB transferTo calls, to separate the cost
   * of fetching in 1 MiB pieces (a system call each) from the cost of {@code read()}.
   */
  @Benchmark
  public long referenceChunkedTransferTo() throws IOException {
    long sent = 0;
    for (Path file : segmentFiles) {
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
        long size = ch.size();
        long pos = 0;
        while (pos < size) {
          pos += ch.transferTo(pos, Math.min(FETCH_MAX_BYTES, size - pos), out);
        }
        sent += size;
      }
    }
    return sent;
  }

  @Benchmark
  public long baselinePlainTransferTo() throws IOException {
    long sent = 0;
    for (Path file : segmentFiles) {
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
        long size = ch.size();
        long pos = 0;
        while (pos < size) {
          pos += ch.transferTo(pos, size - pos, out);
        }
        sent += size;
      }
    }
    return sent;
  }
}
