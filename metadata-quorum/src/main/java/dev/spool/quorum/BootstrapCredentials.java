package dev.spool.quorum;

import com.google.protobuf.ByteString;
import dev.spool.common.ScramMechanism;
import dev.spool.quorum.image.RecordChecks;
import dev.spool.quorum.image.Records;
import dev.spool.quorum.message.MetadataRecord;
import dev.spool.quorum.message.RecordResult;
import dev.spool.quorum.message.ScramCredentialRecord;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The SCRAM users a fresh cluster starts with, as {@code spool storage format --add-scram} takes
 * them in Kafka's syntax ({@code SCRAM-SHA-256=[name=admin,password=admin-secret]}, with optional
 * {@code iterations=8192}, {@code salt=<base64>}, or {@code saltedpassword=<base64>} instead of the
 * password) and records them in the quorum directory's {@link BootstrapMetadata} file: the salt,
 * iterations, StoredKey and ServerKey, never the password nor the salted password. The first active
 * controller writes them as ScramCredentialRecords with the bootstrap metadata.version, so the
 * first user can log in to a cluster whose only listener is SASL (docs/security.md#sasl).
 * Stateless.
 */
public final class BootstrapCredentials {
  private static final String PREFIX = "scram.";

  private BootstrapCredentials() {}

  /**
   * The credential one {@code --add-scram} value asks for.
   *
   * @throws IllegalArgumentException saying what is wrong with {@code spec} (never quoting a
   *     password)
   */
  public static ScramCredentialRecord parse(String spec, SecureRandom random) {
    int eq = spec.indexOf('=');
    if (eq < 0 || !spec.endsWith("]") || spec.indexOf('[') != eq + 1) {
      throw bad("is not MECHANISM=[name=...,password=...]");
    }
    String mechanismName = spec.substring(0, eq).trim();
    ScramMechanism mechanism =
        ScramMechanism.forName(mechanismName)
            .orElseThrow(
                () -> bad("'" + mechanismName + "' is not SCRAM-SHA-256 or SCRAM-SHA-512"));
    Map<String, String> attrs = new LinkedHashMap<>();
    String body = spec.substring(eq + 2, spec.length() - 1);
    for (String part : splitOutsideQuotes(body)) {
      int e = part.indexOf('=');
      if (e <= 0) {
        throw bad("'" + redact(part) + "' is not key=value");
      }
      String key = part.substring(0, e).trim().toLowerCase(java.util.Locale.ROOT);
      String value = unquote(part.substring(e + 1).trim());
      if (!List.of("name", "password", "iterations", "salt", "saltedpassword").contains(key)) {
        throw bad("unknown key '" + key + "' (name, password, iterations, salt, saltedpassword)");
      }
      if (attrs.put(key, value) != null) {
        throw bad("'" + key + "' is given twice");
      }
    }
    String name = attrs.get("name");
    if (name == null) {
      throw bad("has no name=");
    }
    String problem = RecordChecks.checkUserName(name);
    if (problem != null) {
      throw bad(problem);
    }
    boolean hasPassword = attrs.containsKey("password");
    boolean hasSalted = attrs.containsKey("saltedpassword");
    if (hasPassword == hasSalted) {
      throw bad("needs exactly one of password= and saltedpassword=");
    }
    if (hasPassword && attrs.get("password").isEmpty()) {
      throw bad("password is empty");
    }
    int iterations = ScramMechanism.MIN_ITERATIONS;
    if (attrs.containsKey("iterations")) {
      try {
        iterations = Integer.parseInt(attrs.get("iterations"));
      } catch (NumberFormatException e) {
        throw bad("iterations '" + attrs.get("iterations") + "' is not a number");
      }
      problem = RecordChecks.checkIterations(iterations);
      if (problem != null) {
        throw bad(problem);
      }
    }
    byte[] salt;
    if (attrs.containsKey("salt")) {
      salt = base64(attrs.get("salt"), "salt");
      if (salt.length == 0) {
        throw bad("salt is empty");
      }
    } else if (hasSalted) {
      throw bad("saltedpassword= needs the salt= it was made with");
    } else {
      salt = ScramMechanism.randomSalt(random);
    }
    byte[] salted;
    if (hasSalted) {
      salted = base64(attrs.get("saltedpassword"), "saltedpassword");
      if (salted.length != mechanism.hashBytes()) {
        throw bad(
            "saltedpassword of "
                + salted.length
                + " bytes; "
                + mechanism.mechanismName()
                + " has "
                + mechanism.hashBytes());
      }
    } else {
      salted = mechanism.saltedPassword(attrs.get("password"), salt, iterations);
    }
    MetadataRecord r =
        Records.scramCredential(name, mechanism.credential(salt, iterations, salted));
    RecordResult refused = RecordChecks.check(r);
    if (refused != null) {
      throw bad(refused.getErrorMessage());
    }
    return r.getScramCredential();
  }

  /** The credentials as lines of the bootstrap file (properties). */
  static void put(Properties p, List<ScramCredentialRecord> credentials) {
    Base64.Encoder b64 = Base64.getEncoder();
    for (int i = 0; i < credentials.size(); i++) {
      ScramCredentialRecord c = credentials.get(i);
      String k = PREFIX + i + ".";
      p.setProperty(k + "user", c.getUser());
      p.setProperty(k + "mechanism", c.getMechanism());
      p.setProperty(k + "iterations", String.valueOf(c.getIterations()));
      p.setProperty(k + "salt", b64.encodeToString(c.getSalt().toByteArray()));
      p.setProperty(k + "stored_key", b64.encodeToString(c.getStoredKey().toByteArray()));
      p.setProperty(k + "server_key", b64.encodeToString(c.getServerKey().toByteArray()));
    }
  }

  /**
   * The credentials of a bootstrap file's properties, in order.
   *
   * @throws IllegalArgumentException when one is incomplete or fails the record checks
   */
  static List<ScramCredentialRecord> get(Properties p) {
    List<ScramCredentialRecord> out = new ArrayList<>();
    for (int i = 0; p.getProperty(PREFIX + i + ".user") != null; i++) {
      String k = PREFIX + i + ".";
      try {
        ScramCredentialRecord c =
            ScramCredentialRecord.newBuilder()
                .setUser(p.getProperty(k + "user"))
                .setMechanism(required(p, k + "mechanism"))
                .setIterations(Integer.parseInt(required(p, k + "iterations")))
                .setSalt(ByteString.copyFrom(Base64.getDecoder().decode(required(p, k + "salt"))))
                .setStoredKey(
                    ByteString.copyFrom(Base64.getDecoder().decode(required(p, k + "stored_key"))))
                .setServerKey(
                    ByteString.copyFrom(Base64.getDecoder().decode(required(p, k + "server_key"))))
                .build();
        RecordResult refused =
            RecordChecks.check(MetadataRecord.newBuilder().setScramCredential(c).build());
        if (refused != null) {
          throw new IllegalArgumentException(refused.getErrorMessage());
        }
        out.add(c);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(k + "*: " + e.getMessage(), e);
      }
    }
    return out;
  }

  private static String required(Properties p, String key) {
    String v = p.getProperty(key);
    if (v == null) {
      throw new IllegalArgumentException(key + " is missing");
    }
    return v;
  }

  private static byte[] base64(String v, String key) {
    try {
      return Base64.getDecoder().decode(v);
    } catch (IllegalArgumentException e) {
      throw bad(key + " is not base64");
    }
  }

  /** {@code body} split at the commas outside double quotes (a quoted password may hold one). */
  private static List<String> splitOutsideQuotes(String body) {
    List<String> parts = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean quoted = false;
    for (char c : body.toCharArray()) {
      if (c == '"') {
        quoted = !quoted;
      }
      if (c == ',' && !quoted) {
        parts.add(cur.toString());
        cur.setLength(0);
      } else {
        cur.append(c);
      }
    }
    if (quoted) {
      throw bad("a quoted value has no closing quote");
    }
    parts.add(cur.toString());
    return parts;
  }

  private static String unquote(String v) {
    return v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")
        ? v.substring(1, v.length() - 1)
        : v;
  }

  private static String redact(String part) {
    return part.toLowerCase(java.util.Locale.ROOT).startsWith("password") ? "password..." : part;
  }

  private static IllegalArgumentException bad(String why) {
    return new IllegalArgumentException("--add-scram: " + why);
  }
}
