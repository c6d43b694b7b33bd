package dev.spool.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The version comes from the build: the pom passes its project version to the tests. */
@Tag("unit")
class SpoolVersionTest {

  @Test
  void shouldBeTheProjectVersionTheBuildStamped() {
    String expected = System.getProperty("spool.project.version");
    assertNotNull(expected, "the client pom passes spool.project.version to the tests");
    assertEquals(expected, SpoolVersion.version());
    assertEquals("spool " + expected, SpoolVersion.describe());
  }
}
