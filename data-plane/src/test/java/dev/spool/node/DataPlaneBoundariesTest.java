package dev.spool.node;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Module boundaries of the data plane (docs/conventions.md#module-boundaries) towards the modules
 * below it: of the client module it uses the shared layers and the wire client {@code
 * dev.spool.network} (for replication) only, of the quorum its client side only. The broker's own
 * layering is in {@code BrokerCoreBoundariesTest}, the storage engine's in {@code
 * StorageBoundariesTest}.
 */
@Tag("unit")
class DataPlaneBoundariesTest {
  /** This module's classes and, from the classpath, those of the client and quorum modules. */
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.spool");

  private static final String[] DATA_PLANE = {
    "dev.spool.broker..", "dev.spool.coordinator..", "dev.spool.node.."
  };

  @Test
  void shouldNeverUseTheClientLibraryNorItsInternals() {
    noClasses()
        .that()
        .resideInAnyPackage(DATA_PLANE)
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.spool.client..")
        .because(
            "the broker is not an application: the one client-side piece it needs, the wire client"
                + " its replica fetcher uses, is the named package dev.spool.network")
        .check(MAIN);
  }

  @Test
  void shouldUseTheWireClientOnlyForReplication() {
    noClasses()
        .that()
        .resideInAnyPackage(DATA_PLANE)
        .and()
        .resideOutsideOfPackages("dev.spool.broker", "dev.spool.broker.replication..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.spool.network")
        .because(
            "the wire client (dev.spool.network) is allowed to the data plane for broker-to-broker"
                + " replication (the replica fetcher and the Broker that wires it), nothing else;"
                + " its TLS settings (dev.spool.network.tls) are shared with the listeners")
        .check(MAIN);
  }

  @Test
  void shouldUseTheCommandLineOnlyInTheNodeEntryPoint() {
    noClasses()
        .that()
        .resideInAnyPackage(DATA_PLANE)
        .and()
        .resideOutsideOfPackage("dev.spool.node..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.spool.cli..")
        .because("only the node's main adds its subcommand to the spool command line")
        .check(MAIN);
  }

  @Test
  void shouldReachTheQuorumOnlyThroughItsClientSide() {
    noClasses()
        .that()
        .resideInAnyPackage(DATA_PLANE)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.spool.quorum.controller..", "dev.spool.quorum.ratis..")
        .because(
            "the data plane uses QuorumClient/QuorumServer, the image and the broker lifecycle;"
                + " controller decisions and Ratis stay inside the quorum module")
        .check(MAIN);
  }

  @Test
  void shouldImportRatisNowhere() {
    noClasses()
        .that()
        .resideInAnyPackage(DATA_PLANE)
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.apache.ratis..")
        .because("only dev.spool.quorum.ratis may know Ratis")
        .check(MAIN);
  }

  @Test
  void shouldLetNothingDependOnChaos() {
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.spool.chaos..")
        .because("chaos drives the product from outside; the product never knows its tests")
        .check(MAIN);
  }

  @Test
  void shouldImportKafkaClientsOnlyInTheKafkaCodec() {
    noClasses()
        .that()
        .resideInAPackage("dev.spool..")
        .and()
        .resideOutsideOfPackage("dev.spool.broker.kafka.codec")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.apache.kafka..")
        .because(
            "kafka-clients' message classes are not public API and move between releases: one"
                + " package pinned to one version takes every change (package-info of"
                + " dev.spool.broker.kafka.codec)")
        .check(MAIN);
  }
}
