package dev.spool.testing;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Boundaries of the test-support module (docs/conventions.md#module-boundaries): node processes are
 * driven from outside, so what process mode shows is what a deployment does.
 */
@Tag("unit")
class TestSupportArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.spool.testing");

  @Test
  void shouldDriveNodeProcessesOnlyFromOutside() {
    noClasses()
        .that()
        .resideInAnyPackage("dev.spool.testing.process..", "dev.spool.testing.probe..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.spool.broker..",
            "dev.spool.quorum..",
            "dev.spool.node..",
            "dev.spool.network..",
            "dev.spool.client.internal..",
            "dev.spool.testing.inprocess..",
            "org.apache.ratis..")
        .because(
            "process nodes are started from their config file and a command line, asked over the"
                + " wire and signalled by PID, as an operator would")
        .check(MAIN);
  }

  @Test
  void shouldBuildNodesFromTheirPartsOnlyInTheInProcessCluster() {
    noClasses()
        .that()
        .resideInAPackage("dev.spool.testing..")
        .and()
        .resideOutsideOfPackage("dev.spool.testing.inprocess..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.spool.broker",
            "dev.spool.broker.replication..",
            "dev.spool.broker.request..",
            "dev.spool.quorum..",
            "org.apache.ratis..")
        .because("one package knows how a node is assembled; the rest sees a SpoolCluster")
        .check(MAIN);
  }
}
