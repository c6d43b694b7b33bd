package dev.spool.broker;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Module boundaries (docs/conventions.md#module-boundaries) for the broker core: replication does
 * not know about requests or sockets (handlers call it, never the reverse) and partition logic
 * knows no Netty channels. The rules towards other modules (no Ratis, no client internals) are in
 * {@code dev.spool.node.DataPlaneBoundariesTest}.
 */
@Tag("unit")
class BrokerCoreBoundariesTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.spool.broker");

  @Test
  void replicationDependsOnNeitherHandlersNorTheServer() {
    noClasses()
        .that()
        .resideInAPackage("dev.spool.broker.replication..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.spool.broker.request..", "dev.spool.broker.network..")
        .because("handlers call replication, never the reverse; replication knows no sockets")
        .check(MAIN);
  }

  @Test
  void partitionLogicTouchesNoNettyChannels() {
    noClasses()
        .that()
        .haveSimpleName("Partition")
        .or()
        .haveSimpleName("LeaderState")
        .or()
        .haveSimpleName("Divergence")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.netty..")
        .because(
            "partition state changes are plain logic on the partition's thread, testable alone")
        .check(MAIN);
  }
}
