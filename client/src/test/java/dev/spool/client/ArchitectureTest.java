package dev.spool.client;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Module boundaries of the client module (docs/conventions.md#module-boundaries). */
@Tag("unit")
class ArchitectureTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.spool");

  @Test
  void shouldDependOnNothingOfOursOutsideTheClientModule() {
    noClasses()
        .should()
        .dependOnClassesThat(
            resideInAPackage("dev.spool..")
                .and(
                    not(
                        resideInAnyPackage(
                            "dev.spool.client..",
                            "dev.spool.protocol..",
                            "dev.spool.record..",
                            "dev.spool.config..",
                            "dev.spool.time..",
                            "dev.spool.cli.."))))
        .because("every other module depends on client; client depends on none of them")
        .check(MAIN);
  }

  @Test
  void shouldBuildTheCommandLineOnThePublicApiOnly() {
    noClasses()
        .that()
        .resideInAPackage("dev.spool.cli..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.spool.client.internal..")
        .because("the CLI is a user of the client library like any other")
        .check(MAIN);
  }

  @Test
  void shouldKeepInternalTypesOutOfPublicApiSignatures() {
    codeUnits()
        .that()
        .arePublic()
        .and()
        .areDeclaredInClassesThat()
        .arePublic()
        .and()
        .areDeclaredInClassesThat()
        .resideInAPackage("dev.spool.client")
        .should(
            new ArchCondition<JavaCodeUnit>("not mention internal types") {
              @Override
              public void check(JavaCodeUnit unit, ConditionEvents events) {
                List<JavaClass> types = new ArrayList<>(unit.getRawParameterTypes());
                types.add(unit.getRawReturnType());
                for (JavaClass t : types) {
                  if (t.getPackageName().startsWith("dev.spool.client.internal")) {
                    events.add(
                        SimpleConditionEvent.violated(
                            unit, unit.getFullName() + " exposes " + t.getName()));
                  }
                }
              }
            })
        .because("internal packages may change freely; the public API is small and stable")
        .check(MAIN);
  }

  @Test
  void shouldUseNoUtilHelperOrManagerPackages() {
    noClasses()
        .should()
        .resideInAnyPackage("..util..", "..helper..", "..manager..")
        .because("docs/conventions.md#names: no util, helper or manager packages")
        .check(MAIN);
  }
}
