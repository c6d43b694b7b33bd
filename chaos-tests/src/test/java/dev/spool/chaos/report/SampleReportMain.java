package dev.spool.chaos.report;

import dev.spool.chaos.checker.CheckerSuite;
import dev.spool.chaos.checker.Verdict;
import java.nio.file.Path;
import java.util.List;

/** Writes the sample run's report to the folder given as argument, to look at it in a browser. */
public final class SampleReportMain {
  private SampleReportMain() {}

  public static void main(String[] args) throws Exception {
    SampleRun run = new SampleRun();
    Verdict v = CheckerSuite.standard().check(run.history, run.faults);
    RunInfo info =
        new RunInfo(
            "20261129-101500-s20261129",
            SampleRun.SEED,
            1_795_000_000_000L,
            "scripts/chaos.sh --seed 20261129 --time-limit 120 --nemesis kill,pause,partition,proxy",
            "3 nodes, combined roles, topic orders: 3 partitions, RF 3",
            "kill,pause,partition,proxy",
            List.of());
    System.out.println(
        RunReport.write(Path.of(args[0]), info, run.history, v, run.faults, List.of()));
  }
}
