package dev.spool.network.tls;

import dev.spool.config.ConfigException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKey;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Key material in PEM, with Kafka's semantics for {@code ssl.keystore.type=PEM} and {@code
 * ssl.truststore.type=PEM}: a keystore is one PKCS#8 private key ({@code PRIVATE KEY}, or {@code
 * ENCRYPTED PRIVATE KEY} unlocked by {@code ssl.key.password}) and its certificate chain ({@code
 * CERTIFICATE} blocks, the node's first); a truststore is CA {@code CERTIFICATE} blocks. Either is
 * the content of the file at {@code .location} or the inline value ({@code ssl.keystore.key} with
 * {@code ssl.keystore.certificate.chain}, {@code ssl.truststore.certificates}). Both become an
 * in-memory PKCS12 {@link KeyStore}. Stateless.
 */
final class Pem {
  private Pem() {}

  /** The password of the in-memory keystore a PEM key is put in (it never leaves the process). */
  static final char[] IN_MEMORY_PASSWORD = "spool-pem".toCharArray();

  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----\\s*([A-Za-z0-9+/=\\s]*?)\\s*-----END \\1-----");

  private record Block(String type, byte[] der) {}

  /**
   * A keystore of the private key and certificate chain in {@code keyPem} and {@code chainPem} (the
   * same text when both come from one file); {@code where} names the source in errors and {@code
   * key} the config key to fix.
   */
  static KeyStore keyStore(
      String keyPem, String chainPem, String keyPassword, String key, String where) {
    List<Block> keys =
        blocks(keyPem).stream().filter(b -> b.type().endsWith("PRIVATE KEY")).toList();
    if (keys.size() != 1) {
      throw new ConfigException(
          key,
          where
              + " must hold exactly one PKCS#8 private key (-----BEGIN PRIVATE KEY----- or"
              + " -----BEGIN ENCRYPTED PRIVATE KEY-----), found "
              + keys.size()
              + (blocks(keyPem).stream().anyMatch(b -> b.type().contains("RSA PRIVATE KEY"))
                  ? " (a PKCS#1 'RSA PRIVATE KEY' is not PKCS#8: convert it with openssl pkcs8"
                      + " -topk8)"
                  : ""));
    }
    List<Certificate> chain = certificates(chainPem, key, where);
    if (chain.isEmpty()) {
      throw new ConfigException(key, where + " holds no certificate for the private key");
    }
    PrivateKey pk = privateKey(keys.get(0), keyPassword, key, where);
    try {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      ks.setKeyEntry("key", pk, IN_MEMORY_PASSWORD, chain.toArray(new Certificate[0]));
      return ks;
    } catch (GeneralSecurityException | IOException e) {
      throw new ConfigException(
          key, where + ": the key does not go with the certificate chain: " + e.getMessage());
    }
  }

  /** A truststore of the CA certificates in {@code pem}. */
  static KeyStore trustStore(String pem, String key, String where) {
    List<Certificate> cas = certificates(pem, key, where);
    if (cas.isEmpty()) {
      throw new ConfigException(key, where + " holds no -----BEGIN CERTIFICATE----- block");
    }
    try {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      for (int i = 0; i < cas.size(); i++) {
        ks.setCertificateEntry("ca-" + i, cas.get(i));
      }
      return ks;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("an in-memory PKCS12 keystore failed", e);
    }
  }

  private static List<Certificate> certificates(String pem, String key, String where) {
    List<Certificate> out = new ArrayList<>();
    try {
      CertificateFactory cf = CertificateFactory.getInstance("X.509");
      for (Block b : blocks(pem)) {
        if (b.type().equals("CERTIFICATE")) {
          out.add(cf.generateCertificate(new ByteArrayInputStream(b.der())));
        }
      }
    } catch (GeneralSecurityException e) {
      throw new ConfigException(key, where + " holds a certificate that does not parse: " + e);
    }
    return out;
  }

  private static PrivateKey privateKey(Block b, String password, String key, String where) {
    PKCS8EncodedKeySpec spec;
    if (b.type().equals("ENCRYPTED PRIVATE KEY")) {
      if (password.isEmpty()) {
        throw new ConfigException(
            "ssl.key.password", "must be set: the private key in " + where + " is encrypted");
      }
      try {
        EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(b.der());
        String algorithm = info.getAlgName();
        if (algorithm.equals("PBES2") || algorithm.equals("1.2.840.113549.1.5.13")) {
          // openssl's default (PBES2: PBKDF2 with an AES cipher); JDK 17 names the scheme only, its
          // parameters name the cipher the JCE knows (e.g. PBEWithHmacSHA256AndAES_256).
          algorithm = info.getAlgParameters().toString();
        }
        SecretKey pbe =
            SecretKeyFactory.getInstance(algorithm)
                .generateSecret(new PBEKeySpec(password.toCharArray()));
        Cipher cipher = Cipher.getInstance(algorithm);
        cipher.init(Cipher.DECRYPT_MODE, pbe, info.getAlgParameters());
        spec = info.getKeySpec(cipher);
      } catch (GeneralSecurityException | IOException e) {
        throw new ConfigException(
            "ssl.key.password", "does not decrypt the private key in " + where + ": " + e);
      }
    } else if (b.type().equals("PRIVATE KEY")) {
      spec = new PKCS8EncodedKeySpec(b.der());
    } else {
      throw new ConfigException(
          key, where + " holds a '" + b.type() + "', not a PKCS#8 PRIVATE KEY");
    }
    for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448", "DSA")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (InvalidKeySpecException | java.security.NoSuchAlgorithmException e) {
        // try the next
      }
    }
    throw new ConfigException(
        key, where + " holds a private key of no algorithm this JDK reads (RSA, EC, EdDSA, DSA)");
  }

  private static List<Block> blocks(String pem) {
    List<Block> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(pem);
    while (m.find()) {
      try {
        out.add(new Block(m.group(1), Base64.getMimeDecoder().decode(m.group(2))));
      } catch (IllegalArgumentException e) {
        // not base64: reported as a missing block of its kind
      }
    }
    return out;
  }

  /** The text of a PEM file's bytes. */
  static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.US_ASCII);
  }
}
