package dev.spool.quorum;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Module boundaries of the metadata quorum (docs/conventions.md#module-boundaries): Ratis behind
 * one package, a pure image, a broker-side lifecycle that needs no controller, and of the client
 * module only the shared layers (common, config, protocol messages).
 */
@Tag("unit")
class ArchitectureTest {
  /** This module's classes and, from the classpath, the client module's they may depend on. */
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.spool");

  @Test
  void shouldImportRatisOnlyInTheRatisPackage() {
    noClasses()
        .that()
        .resideInAPackage("dev.spool.quorum..")
        .and()
        .resideOutsideOfPackage("dev.spool.quorum.ratis..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.apache.ratis..")
        .because(
            "only dev.spool.quorum.ratis may know Ratis; everything else stays testable "
                + "without it and replaceable")
        .check(MAIN);
  }

  @Test
  void shouldKeepImageAndDecisionsFreeOfThreadsAndTheBrokerSide() {
    noClasses()
        .that()
        .resideInAPackage("dev.spool.quorum.image..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.spool.quorum.controller..",
            "dev.spool.quorum.lifecycle..",
            "dev.spool.quorum.ratis..",
            "java.util.concurrent..")
        .because("the image and its replay are a pure core shared by controllers and brokers")
        .check(MAIN);
  }

  @Test
  void shouldRunTheBrokerLifecycleWithoutControllerOrRatis() {
    noClasses()
        .that()
        .resideInAPackage("dev.spool.quorum.lifecycle..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.spool.quorum.controller..", "dev.spool.quorum.ratis..")
        .because(
            "a broker-only node runs the lifecycle and talks to the quorum through QuorumClient;"
                + " it never hosts a controller")
        .check(MAIN);
  }

  @Test
  void shouldUseOfTheClientModuleOnlyTheSharedLayers() {
    noClasses()
        .that()
        .resideInAPackage("dev.spool.quorum..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.spool.client..", "dev.spool.network..", "dev.spool.cli..")
        .because(
            "the quorum serves brokers, not applications: it shares dev.spool.common, config and"
                + " the protocol messages with the client library, never the library itself")
        .check(MAIN);
  }

  @Test
  void shouldDependOnNeitherTheDataPlaneNorChaos() {
    noClasses()
        .that()
        .resideInAPackage("dev.spool.quorum..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.spool.broker..", "dev.spool.node..", "dev.spool.chaos..")
        .because(
            "the data plane is built on the quorum and chaos drives both from outside; neither"
                + " may be reached from here")
        .check(MAIN);
  }
}
