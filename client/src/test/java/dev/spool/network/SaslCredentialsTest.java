package dev.spool.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.config.ConfigException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Kafka's {@code sasl.jaas.config} syntax, read strictly: what parses and what fails, naming the
 * key.
 */
@Tag("unit")
class SaslCredentialsTest {
  private static final String SCRAM = SaslCredentials.SCRAM_LOGIN_MODULE;
  private static final String PLAIN = SaslCredentials.PLAIN_LOGIN_MODULE;

  private static SaslCredentials parse(String mechanism, String jaas) {
    return SaslCredentials.parse("sasl.mechanism", mechanism, "sasl.jaas.config", jaas);
  }

  private static ConfigException refused(String mechanism, String jaas) {
    return assertThrows(ConfigException.class, () -> parse(mechanism, jaas), jaas);
  }

  @Test
  void shouldReadKafkasSyntax() {
    SaslCredentials c =
        parse("SCRAM-SHA-512", SCRAM + " required username=\"alice\" password=\"s3cr=t;\";");
    assertEquals("SCRAM-SHA-512", c.mechanism());
    assertEquals("alice", c.username());
    assertEquals("s3cr=t;", c.password());
    assertFalse(c.toString().contains("s3cr"), c.toString());

    SaslCredentials p =
        parse(
            "PLAIN",
            "  "
                + PLAIN
                + "\n  required\n  username=bob password=\"a \\\"quoted\\\" \\\\ pw\" ;  ");
    assertEquals("bob", p.username());
    assertEquals("a \"quoted\" \\ pw", p.password());
    assertEquals(
        "", parse("SCRAM-SHA-256", SCRAM + " optional username=\"u\" password=\"\";").password());
    // unknown options are ignored, as Kafka's login modules do
    assertEquals(
        "u",
        parse("SCRAM-SHA-256", SCRAM + " required username=\"u\" password=\"p\" debug=true;")
            .username());
  }

  @Test
  void shouldRefuseMalformedValuesNamingTheKeyButNotThePassword() {
    String[] bad = {
      SCRAM + " required username=\"alice\" password=\"secret\"", // no ';'
      SCRAM + " username=\"alice\" password=\"secret\";", // no flag
      SCRAM + " mandatory username=\"alice\" password=\"secret\";", // not a flag
      SCRAM + " required username=\"alice\";", // no password
      SCRAM + " required password=\"secret\";", // no username
      SCRAM + " required username=\"\" password=\"secret\";", // empty user
      SCRAM + " required username=\"alice\" password=\"secret;", // unterminated quote
      SCRAM + " required username \"alice\" password=\"secret\";", // no '='
      SCRAM + " required username=\"a\" username=\"b\" password=\"secret\";", // twice
      SCRAM + " required username=\"a\" password=\"secret\"; " + SCRAM + " required;", // two
      SCRAM + " required username=\"a\" password=\"secret\" tokenauth=true;",
      PLAIN + " required username=\"alice\" password=\"secret\";", // module vs mechanism
      "",
      "   ",
      "required username=\"alice\" password=\"secret\";"
    };
    for (String jaas : bad) {
      ConfigException e = refused("SCRAM-SHA-256", jaas);
      assertEquals("sasl.jaas.config", e.key(), jaas);
      assertFalse(e.getMessage().contains("secret"), e.getMessage());
    }
    assertTrue(
        refused("PLAIN", SCRAM + " required username=\"a\" password=\"b\";")
            .getMessage()
            .contains(PLAIN));
    assertEquals("sasl.mechanism", refused("GSSAPI", SCRAM + " required;").key());
  }
}
