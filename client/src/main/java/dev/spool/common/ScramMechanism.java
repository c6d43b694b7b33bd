package dev.spool.common;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The SCRAM mechanisms (RFC 5802, RFC 7677) and the key derivation both sides of a SCRAM exchange
 * share: {@code SaltedPassword = Hi(password, salt, i)}, {@code ClientKey = HMAC(SaltedPassword,
 * "Client Key")}, {@code StoredKey = H(ClientKey)}, {@code ServerKey = HMAC(SaltedPassword, "Server
 * Key")}. A server stores only salt, iterations, StoredKey and ServerKey (docs/security.md#sasl).
 * Passwords are taken as their UTF-8 bytes, without SASLprep, as Kafka's clients send them.
 *
 * <p>Threads: immutable; any thread (each call makes its own {@link Mac}).
 */
public enum ScramMechanism {
  SCRAM_SHA_256("SCRAM-SHA-256", "HmacSHA256", "SHA-256", 32),
  SCRAM_SHA_512("SCRAM-SHA-512", "HmacSHA512", "SHA-512", 64);

  /** RFC 7677's floor, and Kafka's. */
  public static final int MIN_ITERATIONS = 4096;

  /** Kafka's ceiling for AlterUserScramCredentials: a higher count costs every login dearly. */
  public static final int MAX_ITERATIONS = 16384;

  /** Salt a client generates for a new credential, in bytes. */
  public static final int SALT_BYTES = 32;

  private final String mechanismName;
  private final String macAlgorithm;
  private final String hashAlgorithm;
  private final int hashBytes;

  ScramMechanism(String mechanismName, String macAlgorithm, String hashAlgorithm, int hashBytes) {
    this.mechanismName = mechanismName;
    this.macAlgorithm = macAlgorithm;
    this.hashAlgorithm = hashAlgorithm;
    this.hashBytes = hashBytes;
  }

  /** The SASL name, {@code SCRAM-SHA-256}. */
  public String mechanismName() {
    return mechanismName;
  }

  /** Bytes of the hash, so of StoredKey, ServerKey and the salted password. */
  public int hashBytes() {
    return hashBytes;
  }

  /** The mechanism by its SASL name, if it is one. */
  public static Optional<ScramMechanism> forName(String name) {
    for (ScramMechanism m : values()) {
      if (m.mechanismName.equals(name)) {
        return Optional.of(m);
      }
    }
    return Optional.empty();
  }

  /** HMAC(key, data). */
  public byte[] hmac(byte[] key, byte[] data) {
    try {
      Mac mac = Mac.getInstance(macAlgorithm);
      mac.init(new SecretKeySpec(key, macAlgorithm));
      return mac.doFinal(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(macAlgorithm + " is part of every Java 17 runtime", e);
    }
  }

  /** H(data). */
  public byte[] hash(byte[] data) {
    try {
      return MessageDigest.getInstance(hashAlgorithm).digest(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(hashAlgorithm + " is part of every Java 17 runtime", e);
    }
  }

  /** Hi(password, salt, i) of RFC 5802: PBKDF2 with this mechanism's HMAC and one block. */
  public byte[] saltedPassword(String password, byte[] salt, int iterations) {
    if (iterations < 1) {
      throw new IllegalArgumentException("iterations must be positive: " + iterations);
    }
    byte[] key = password.getBytes(StandardCharsets.UTF_8);
    try {
      Mac mac = Mac.getInstance(macAlgorithm);
      // An empty password is an empty HMAC key, which SecretKeySpec refuses; HMAC pads keys with
      // zero bytes to its block size, so one zero byte is the same key.
      mac.init(new SecretKeySpec(key.length == 0 ? new byte[1] : key, macAlgorithm));
      mac.update(salt);
      mac.update(new byte[] {0, 0, 0, 1});
      byte[] u = mac.doFinal();
      byte[] result = u.clone();
      for (int i = 1; i < iterations; i++) {
        u = mac.doFinal(u);
        for (int j = 0; j < result.length; j++) {
          result[j] ^= u[j];
        }
      }
      return result;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(macAlgorithm + " is part of every Java 17 runtime", e);
    }
  }

  public byte[] clientKey(byte[] saltedPassword) {
    return hmac(saltedPassword, "Client Key".getBytes(StandardCharsets.US_ASCII));
  }

  public byte[] storedKey(byte[] clientKey) {
    return hash(clientKey);
  }

  public byte[] serverKey(byte[] saltedPassword) {
    return hmac(saltedPassword, "Server Key".getBytes(StandardCharsets.US_ASCII));
  }

  /** What a server stores for a password: salt, iterations, StoredKey, ServerKey. */
  public record Credential(
      ScramMechanism mechanism, byte[] salt, int iterations, byte[] storedKey, byte[] serverKey) {

    /** Whether {@code password} is the one this credential was made from (constant time). */
    public boolean matches(String password) {
      byte[] salted = mechanism.saltedPassword(password, salt, iterations);
      return MessageDigest.isEqual(mechanism.storedKey(mechanism.clientKey(salted)), storedKey);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Credential c
          && mechanism == c.mechanism
          && iterations == c.iterations
          && Arrays.equals(salt, c.salt)
          && Arrays.equals(storedKey, c.storedKey)
          && Arrays.equals(serverKey, c.serverKey);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(storedKey);
    }

    @Override
    public String toString() {
      return "Credential{" + mechanism.mechanismName + ", iterations=" + iterations + "}";
    }
  }

  /** The credential derived from a salted password (what a controller does with an upsertion). */
  public Credential credential(byte[] salt, int iterations, byte[] saltedPassword) {
    return new Credential(
        this, salt, iterations, storedKey(clientKey(saltedPassword)), serverKey(saltedPassword));
  }

  /** A fresh random salt of {@link #SALT_BYTES}. */
  public static byte[] randomSalt(SecureRandom random) {
    byte[] salt = new byte[SALT_BYTES];
    random.nextBytes(salt);
    return salt;
  }
}
