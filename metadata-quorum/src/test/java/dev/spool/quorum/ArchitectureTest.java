package dev.spool.quorum;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Module boundaries (docs/conventions.md#module-boundaries). */
@Tag("unit")
class ArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.spool.quorum");

  @Test
  void shouldImportRatisOnlyInTheRatisPackage() {
    noClasses()
        .that()
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
            "dev.spool.quorum.broker..",
            "dev.spool.quorum.ratis..",
            "java.util.concurrent..")
        .because("the image and its replay are a pure core shared by controllers and brokers")
        .check(MAIN);
  }
}
