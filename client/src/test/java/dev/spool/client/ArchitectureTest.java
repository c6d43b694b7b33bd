package dev.spool.client;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
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

/**
 * Module boundaries of the client module (docs/conventions.md#module-boundaries): the common layer
 * at the bottom, the shared record format, protocol and config above it, the wire client above
 * those, the client library and the CLI on top.
 */
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
                            "dev.spool.common..",
                            "dev.spool.config..",
                            "dev.spool.record..",
                            "dev.spool.protocol..",
                            "dev.spool.network..",
                            "dev.spool.client..",
                            "dev.spool.cli.."))))
        .because(
            "every other module (the quorum, the data plane, chaos) depends on client; client"
                + " depends on none of them")
        .check(MAIN);
  }

  @Test
  void shouldKeepTheCommonLayerFreeOfEverythingButTheJdkAndProtobuf() {
    classes()
        .that()
        .resideInAPackage("dev.spool.common..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(
            "dev.spool.common..", "java..", "javax.crypto..", "com.google.protobuf..")
        .because(
            "dev.spool.common is the bottom layer every module shares; its generated ErrorCode"
                + " needs protobuf's runtime and nothing else (javax.crypto is the JDK's, for the"
                + " SCRAM key derivation)")
        .check(MAIN);
  }

  @Test
  void shouldKeepTheSharedLayersFreeOfTheClientLibrary() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.spool.common..",
            "dev.spool.config..",
            "dev.spool.record..",
            "dev.spool.protocol..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.spool.client..", "dev.spool.network..", "dev.spool.cli..")
        .because(
            "the record format, the protocol and config are shared by brokers and controllers;"
                + " the client library is one of their users, not their base")
        .check(MAIN);
  }

  @Test
  void shouldKeepTheWireClientBelowTheClientLibrary() {
    noClasses()
        .that()
        .resideInAPackage("dev.spool.network..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.spool.client..", "dev.spool.cli..")
        .because(
            "the broker's replica fetcher uses dev.spool.network; through it, it must not reach"
                + " the client library or its internals")
        .check(MAIN);
  }

  @Test
  void shouldBuildTheCommandLineOnThePublicApiOnly() {
    noClasses()
        .that()
        .resideInAPackage("dev.spool.cli..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("dev.spool.client.internal..", "dev.spool.network..")
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
                  String pkg = t.getPackageName();
                  if (pkg.startsWith("dev.spool.client.internal")
                      || pkg.startsWith("dev.spool.network")) {
                    events.add(
                        SimpleConditionEvent.violated(
                            unit, unit.getFullName() + " exposes " + t.getName()));
                  }
                }
              }
            })
        .because(
            "internal packages and the wire client may change freely; the public API is small and"
                + " stable")
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
