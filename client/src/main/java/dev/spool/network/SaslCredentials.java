package dev.spool.network;

import dev.spool.common.ScramMechanism;
import dev.spool.config.ConfigException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Who a client (or a broker's replica fetcher) authenticates as on a SASL listener
 * (docs/security.md#sasl): the mechanism ({@code sasl.mechanism}) and the user name and password of
 * {@code sasl.jaas.config}, read from Kafka's JAAS syntax:
 *
 * <pre>
 * org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="secret";
 * org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="secret";
 * </pre>
 *
 * One login module entry, ending with ';'; its flag one of JAAS's ({@code required}, {@code
 * requisite}, {@code sufficient}, {@code optional}); options {@code name=value} with the value
 * quoted (backslash escapes {@code \"} and {@code \\}) or a bare word. The module must be the
 * mechanism's (ScramLoginModule for SCRAM-SHA-256/512, PlainLoginModule for PLAIN), {@code
 * username} and {@code password} must be there and the user name not empty; other options are
 * ignored but {@code tokenauth=true} (Spool has no delegation tokens). Anything else fails the
 * config with the key named.
 *
 * @param mechanism SCRAM-SHA-256, SCRAM-SHA-512 or PLAIN
 */
public record SaslCredentials(String mechanism, String username, String password) {
  /** Kafka's SCRAM login module. */
  public static final String SCRAM_LOGIN_MODULE =
      "org.apache.kafka.common.security.scram.ScramLoginModule";

  /** Kafka's PLAIN login module. */
  public static final String PLAIN_LOGIN_MODULE =
      "org.apache.kafka.common.security.plain.PlainLoginModule";

  /** The mechanisms a Spool client can authenticate with. */
  public static final List<String> MECHANISMS = List.of("SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN");

  /**
   * {@code sasl.mechanism}'s default: the strongest SCRAM (Kafka's is GSSAPI, which Spool lacks).
   */
  public static final String DEFAULT_MECHANISM = "SCRAM-SHA-512";

  private static final List<String> FLAGS =
      List.of("required", "requisite", "sufficient", "optional");

  /**
   * The credentials of {@code jaasConfig} for {@code mechanism}.
   *
   * @param jaasKey the config key the JAAS text came from, named in errors
   * @throws ConfigException naming {@code jaasKey} (or {@code mechanismKey}) when it does not parse
   */
  public static SaslCredentials parse(
      String mechanismKey, String mechanism, String jaasKey, String jaasConfig) {
    if (!MECHANISMS.contains(mechanism)) {
      throw new ConfigException(
          mechanismKey,
          "'"
              + mechanism
              + "' is not a mechanism Spool speaks ("
              + String.join(", ", MECHANISMS)
              + ")");
    }
    if (jaasConfig == null || jaasConfig.isBlank()) {
      throw new ConfigException(
          jaasKey,
          "must be set for SASL: "
              + (mechanism.equals("PLAIN") ? PLAIN_LOGIN_MODULE : SCRAM_LOGIN_MODULE)
              + " required username=\"...\" password=\"...\";");
    }
    Parser p = new Parser(jaasKey, jaasConfig);
    String module = p.word("a login module class name");
    String flag = p.word("a control flag (required)");
    if (!FLAGS.contains(flag)) {
      throw p.error("'" + flag + "' is not a control flag (" + String.join(", ", FLAGS) + ")");
    }
    Map<String, String> options = p.options();
    p.end();
    String expected = mechanism.equals("PLAIN") ? PLAIN_LOGIN_MODULE : SCRAM_LOGIN_MODULE;
    if (!module.equals(expected)) {
      throw p.error(
          "login module '"
              + module
              + "' does not go with sasl.mechanism "
              + mechanism
              + " (use "
              + expected
              + ")");
    }
    String username = options.get("username");
    String password = options.get("password");
    if (username == null || password == null) {
      throw p.error("needs username=\"...\" and password=\"...\"");
    }
    if (username.isEmpty()) {
      throw p.error("username is empty");
    }
    if ("true".equalsIgnoreCase(options.get("tokenauth"))) {
      throw p.error("tokenauth=true: Spool has no delegation tokens");
    }
    return new SaslCredentials(mechanism, username, password);
  }

  /** The SCRAM mechanism, when it is one. */
  public ScramMechanism scram() {
    return ScramMechanism.forName(mechanism).orElse(null);
  }

  @Override
  public String toString() {
    return "SaslCredentials{" + mechanism + ", username=" + username + ", password=[hidden]}";
  }

  /** A strict reader of one JAAS entry; errors never quote the text (it holds a password). */
  private static final class Parser {
    private final String key;
    private final String text;
    private int pos;

    Parser(String key, String text) {
      this.key = key;
      this.text = text;
    }

    ConfigException error(String why) {
      return new ConfigException(key, "malformed JAAS config: " + why);
    }

    private void skipSpace() {
      while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
        pos++;
      }
    }

    /** A bare word: letters, digits and {@code . _ - $}. */
    String word(String what) {
      skipSpace();
      int start = pos;
      while (pos < text.length() && isWordChar(text.charAt(pos))) {
        pos++;
      }
      if (start == pos) {
        throw error("expected " + what + " at character " + (pos + 1));
      }
      return text.substring(start, pos);
    }

    private static boolean isWordChar(char c) {
      return Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-' || c == '$';
    }

    /** {@code name=value} pairs up to the ';' that ends the entry. */
    Map<String, String> options() {
      Map<String, String> out = new LinkedHashMap<>();
      while (true) {
        skipSpace();
        if (pos >= text.length()) {
          throw error("the entry does not end with ';'");
        }
        if (text.charAt(pos) == ';') {
          pos++;
          return out;
        }
        String name = word("an option name or ';'");
        skipSpace();
        if (pos >= text.length() || text.charAt(pos) != '=') {
          throw error("option '" + name + "' has no '=value'");
        }
        pos++;
        skipSpace();
        String value =
            pos < text.length() && text.charAt(pos) == '"'
                ? quoted(name)
                : word("a value for option '" + name + "'");
        if (out.put(name, value) != null) {
          throw error("option '" + name + "' is given twice");
        }
      }
    }

    private String quoted(String name) {
      StringBuilder b = new StringBuilder();
      pos++; // the opening quote
      while (pos < text.length()) {
        char c = text.charAt(pos++);
        if (c == '"') {
          return b.toString();
        }
        if (c == '\\') {
          if (pos >= text.length()) {
            break;
          }
          c = text.charAt(pos++);
        }
        b.append(c);
      }
      throw error("the value of option '" + name + "' has no closing quote");
    }

    void end() {
      skipSpace();
      if (pos < text.length()) {
        throw error(
            "more than one login module entry (one is read; remove what follows the first ';')");
      }
    }
  }
}
