package dev.spool.chaos;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Boundaries of the chaos suite (docs/conventions.md#module-boundaries). Inside: the checkers and
 * the report read a recorded history and nothing live; nemeses reach the cluster only through the
 * harness interfaces; the harness (cluster, net, workload) knows neither checkers nor runs; only
 * {@code run} wires everything. Outside: chaos drives nodes as processes and through the public
 * client API, so it uses no client internals, no Ratis and none of the broker's live parts.
 */
@Tag("unit")
class ChaosArchitectureTest {
  /** This module's classes and, from the classpath, those of every module below it. */
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.spool");

  private static final String[] HARNESS = {
    "dev.spool.chaos.cluster..", "dev.spool.chaos.net..", "dev.spool.chaos.workload.."
  };

  /** Everything above the history format and the nemeses. */
  private static final String[] HARNESS_CHECKERS_AND_RUNS = {
    "dev.spool.chaos.cluster..",
    "dev.spool.chaos.net..",
    "dev.spool.chaos.workload..",
    "dev.spool.chaos.run..",
    "dev.spool.chaos.checker..",
    "dev.spool.chaos.report.."
  };

  @Test
  void shouldCheckARecordedHistoryWithoutTheHarnessOrTheProduct() {
    noClasses()
        .that()
        .resideInAnyPackage("dev.spool.chaos.checker..", "dev.spool.chaos.report..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.spool.chaos.cluster..",
            "dev.spool.chaos.net..",
            "dev.spool.chaos.workload..",
            "dev.spool.chaos.run..",
            "dev.spool.client..",
            "dev.spool.network..",
            "dev.spool.broker..",
            "dev.spool.node..",
            "dev.spool.quorum..")
        .because(
            "a verdict is a pure function of the history file, so a run can be re-checked offline"
                + " and a checker tested on hand-written histories")
        .check(MAIN);
  }

  @Test
  void shouldRecordHistoriesWithoutTheHarnessOrTheCheckers() {
    noClasses()
        .that()
        .resideInAPackage("dev.spool.chaos.history..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(HARNESS_CHECKERS_AND_RUNS)
        .because("the history format sits below both the recorders and the checkers that read it")
        .check(MAIN);
  }

  @Test
  void shouldLetNemesesReachTheClusterOnlyThroughTheHarnessInterfaces() {
    noClasses()
        .that()
        .resideInAPackage("dev.spool.chaos.nemesis..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(HARNESS_CHECKERS_AND_RUNS)
        .because(
            "nemeses and their schedule are tested against a recording cluster through"
                + " ClusterControl, NetworkControl and ClientLinkControl")
        .check(MAIN);
  }

  @Test
  void shouldKeepTheHarnessFreeOfCheckersAndRuns() {
    noClasses()
        .that()
        .resideInAnyPackage(HARNESS)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.spool.chaos.checker..", "dev.spool.chaos.report..", "dev.spool.chaos.run..")
        .because("the harness makes and records events; judging them is the checkers' job")
        .check(MAIN);
  }

  @Test
  void shouldLetNothingButTheRunPackageDependOnRuns() {
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.spool.chaos.run..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.spool.chaos.run..")
        .because("runs are the entry points that wire harness, nemeses and checkers together")
        .check(MAIN);
  }

  @Test
  void shouldDriveTheProductOnlyFromOutside() {
    noClasses()
        .that()
        .resideInAPackage("dev.spool.chaos..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.spool.client.internal..",
            "dev.spool.network..",
            "dev.spool.broker.network..",
            "dev.spool.broker.request..",
            "dev.spool.broker.replication..",
            "dev.spool.node..",
            "dev.spool.quorum..",
            "org.apache.ratis..")
        .because(
            "chaos runs nodes as processes and talks to them as a client does (or reads their"
                + " data directories offline); only dev.spool.quorum.ratis may know Ratis")
        .check(MAIN);
  }

  @Test
  void shouldLetNothingOutsideChaosDependOnIt() {
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.spool.chaos..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.spool.chaos..")
        .because("the product never knows its tests")
        .check(MAIN);
  }
}
