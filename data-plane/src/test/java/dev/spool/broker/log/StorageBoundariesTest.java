package dev.spool.broker.log;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Arrays;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Module boundaries (docs/conventions.md#module-boundaries) for the storage engine: internals stay
 * internal, the record format stays pure.
 */
@Tag("unit")
class StorageBoundariesTest {
  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.spool");

  /** snappy-java, lz4-java, zstd-jni (gzip is the JDK's). */
  private static final String[] CODEC_LIBRARIES = {
    "org.xerial.snappy..", "net.jpountz..", "com.github.luben.zstd.."
  };

  @Test
  void onlyTheLogPackageUsesTheLogInternals() {
    noClasses()
        .that()
        .resideOutsideOfPackages("dev.spool.broker.log..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.spool.broker.log.internal..")
        .because("segment and index internals may change freely behind the log's API")
        .check(MAIN);
  }

  @Test
  void recordFormatDependsOnlyOnTheJdkAndTheCodecLibraries() {
    classes()
        .that()
        .resideInAPackage("dev.spool.record..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage(withCodecLibraries("dev.spool.record..", "java.."))
        .because("the record format is byte-level code shared by clients, brokers and tools")
        .check(MAIN);
  }

  @Test
  void onlyTheCodecsUseTheCompressionLibraries() {
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.spool.record.internal..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(CODEC_LIBRARIES)
        .because("each codec wraps its library in one class; the rest sees Compression")
        .check(MAIN);
  }

  private static String[] withCodecLibraries(String... packages) {
    String[] all = Arrays.copyOf(packages, packages.length + CODEC_LIBRARIES.length);
    System.arraycopy(CODEC_LIBRARIES, 0, all, packages.length, CODEC_LIBRARIES.length);
    return all;
  }
}
