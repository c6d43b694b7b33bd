package dev.spool.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("unit")
class MetaPropertiesTest {
  @TempDir Path dir;

  @Test
  void shouldWriteKafkasVersionOneKeysAndReadThemBack() throws Exception {
    MetaProperties m = MetaProperties.fresh("J8xW2uQ3RZ6b0h3m6pO9Dg", 3);
    m.write(dir);
    assertEquals(m, MetaProperties.read(dir).orElseThrow());
    Properties p = new Properties();
    p.load(Files.newBufferedReader(dir.resolve("meta.properties"), StandardCharsets.ISO_8859_1));
    assertEquals("1", p.getProperty("version"));
    assertEquals("J8xW2uQ3RZ6b0h3m6pO9Dg", p.getProperty("cluster.id"));
    assertEquals("3", p.getProperty("node.id"));
    assertEquals(m.directoryId().toString(), p.getProperty("directory.id"));
    assertFalse(Files.exists(dir.resolve("meta.properties.tmp")), "the temporary file is renamed");
  }

  @Test
  void shouldReadNothingFromAnUnformattedDirectory() {
    assertTrue(MetaProperties.read(dir).isEmpty());
    assertTrue(MetaProperties.read(dir.resolve("missing")).isEmpty());
  }

  @Test
  void shouldReadAFileKafkaWrote() throws Exception {
    // As Kafka 3.9's kafka-storage format writes it (Properties.store with a date comment).
    Files.writeString(
        dir.resolve("meta.properties"),
        "#\n#Tue Dec 02 10:00:00 UTC 2026\nnode.id=2\ndirectory.id=oNnP8S1cS_K4iMDSy0uTXQ\n"
            + "version=1\ncluster.id=MkU3OEVBNTcwNTJENDM2Qk\n");
    MetaProperties m = MetaProperties.read(dir).orElseThrow();
    assertEquals("MkU3OEVBNTcwNTJENDM2Qk", m.clusterId());
    assertEquals(2, m.nodeId());
    assertEquals("oNnP8S1cS_K4iMDSy0uTXQ", m.directoryId().toString());
  }

  @Test
  void shouldRefuseAMalformedFileNamingItAndTheKey() throws Exception {
    for (String[] bad :
        new String[][] {
          {"version=2\ncluster.id=c\nnode.id=1\ndirectory.id=oNnP8S1cS_K4iMDSy0uTXQ\n", "version"},
          {"version=1\nnode.id=1\ndirectory.id=oNnP8S1cS_K4iMDSy0uTXQ\n", "cluster.id"},
          {"version=1\ncluster.id=c\nnode.id=x\ndirectory.id=oNnP8S1cS_K4iMDSy0uTXQ\n", "node.id"},
          {"version=1\ncluster.id=c\nnode.id=0\ndirectory.id=oNnP8S1cS_K4iMDSy0uTXQ\n", "node.id"},
          {"version=1\ncluster.id=c\nnode.id=1\ndirectory.id=short\n", "directory.id"},
          {
            "version=1\ncluster.id=c\nnode.id=1\ndirectory.id=AAAAAAAAAAAAAAAAAAAAAA\n",
            "directory.id"
          },
          {
            "version=1\ncluster.id=a b\nnode.id=1\ndirectory.id=oNnP8S1cS_K4iMDSy0uTXQ\n",
            "cluster id"
          },
        }) {
      Files.writeString(dir.resolve("meta.properties"), bad[0]);
      StorageException e = assertThrows(StorageException.class, () -> MetaProperties.read(dir));
      assertTrue(
          e.getMessage().contains(dir.resolve("meta.properties").toString()), e.getMessage());
      assertTrue(e.getMessage().contains(bad[1]), bad[1] + ": " + e.getMessage());
    }
  }

  @Test
  void shouldMakeRandomIdsInKafkasFormNeverStartingWithADash() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 2_000; i++) {
      Base64Uuid id = Base64Uuid.random();
      String s = id.toString();
      assertEquals(22, s.length(), s);
      assertTrue(s.matches("[A-Za-z0-9_-]{22}") && !s.startsWith("-"), s);
      assertEquals(id, Base64Uuid.parse(s));
      assertTrue(seen.add(s), "repeated " + s);
    }
  }

  @Test
  void shouldRefuseIdsThatAreNotTwentyTwoCanonicalBase64UrlCharacters() {
    for (String bad :
        new String[] {
          "", "abc", "oNnP8S1cS_K4iMDSy0uTXQ=", "oNnP8S1cS+K4iMDSy0uTXQ", "oNnP8S1cS_K4iMDSy0uTXR"
        }) {
      assertThrows(IllegalArgumentException.class, () -> Base64Uuid.parse(bad), bad);
    }
  }

  @Test
  void shouldRefuseMalformedClusterIds() {
    for (String bad : new String[] {"", "has space", "a/b", "x".repeat(65)}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> MetaProperties.checkClusterId(bad));
      assertTrue(e.getMessage().contains("malformed"), e.getMessage());
    }
    MetaProperties.checkClusterId(Base64Uuid.random().toString());
  }
}
